"""Figures of the thesis' chapters 2 and 3 (seed 001), drawn from the tables of
:mod:`xaipipe.studies.illustrations`.

Every function draws with the current matplotlib style (wrap calls in
:func:`xaipipe.plots.style.figure_style`) and returns the Figure; callers save it
(:func:`xaipipe.plots.style.save_figure`). Nothing here computes a statistic.

* :func:`plot_regression_tree` -- Fig 2.1, :func:`sklearn.tree.plot_tree`.
* :func:`plot_pruning_path` -- Fig 2.2, training / test MSE against :math:`\\alpha`.
* :func:`plot_oob_curve` -- §3.1, OOB and test MSE against the number of trees.
* :func:`plot_loss_functions` -- Fig 3.1, squared / absolute / Huber loss.
* :func:`plot_boosting_depth` -- Fig 3.2, boosting MSE against tree depth.
* :func:`plot_boosting_shrinkage` -- Fig 3.3, training and test MSE per
  iteration for each learning rate, early-stopping iterations marked.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from ._common import check_table

__all__ = [
    "plot_boosting_depth",
    "plot_boosting_shrinkage",
    "plot_loss_functions",
    "plot_oob_curve",
    "plot_pruning_path",
    "plot_regression_tree",
]

TRAIN_LABEL = "training"
TEST_LABEL = "test"
#: :func:`sklearn.tree.plot_tree`'s node style of Fig 2.1: filled, rounded boxes without the impurity
_TREE_NODES = {"filled": True, "impurity": False, "rounded": True, "fontsize": 8}


def _train_test(draw, x, t: pd.DataFrame, *args, **kwargs) -> None:
    """Draw the training and then the test MSE of ``t`` against ``x`` with ``draw`` (``ax.plot``,
    ``ax.step``), labelled :data:`TRAIN_LABEL` / :data:`TEST_LABEL`."""
    for col, label in (("train_mse", TRAIN_LABEL), ("test_mse", TEST_LABEL)):
        draw(x, t[col], *args, label=label, **kwargs)


def _labelled(ax, xlabel: str, ylabel: str = "MSE"):
    """Label the axes, add the legend and return the figure."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.legend()
    return ax.figure


def plot_regression_tree(
    tree, feature_names: Sequence[str] | None = None, *, precision: int = 2, target_name: str = "progression index"
):
    """Fig 2.1: a fitted regression tree drawn by :func:`sklearn.tree.plot_tree`.

    Parameters
    ----------
    tree : fitted DecisionTreeRegressor
        E.g. :func:`xaipipe.studies.illustrations.fit_diabetes_tree`.
    feature_names : sequence of str, optional
        Default: ``tree.feature_names_in_``.
    precision : int, default 2
        Decimals of thresholds and node values.
    target_name : str
        Named in the title.

    Returns
    -------
    matplotlib.figure.Figure
        Nodes show the split, the number of observations and the mean response
        (the prediction at the leaves); impurity is left out for legibility.
    """
    import matplotlib.pyplot as plt
    from sklearn.tree import plot_tree

    names = [str(n) for n in (feature_names if feature_names is not None else getattr(tree, "feature_names_in_", []))]
    depth = tree.get_depth()
    fig, ax = plt.subplots(figsize=(max(6.3, 1.6 * 2**depth), 1.3 * (depth + 1) + 0.6))
    plot_tree(tree, feature_names=names or None, precision=precision, ax=ax, **_TREE_NODES)
    ax.set_title(f"Regression tree: {target_name} (depth {depth}, {tree.get_n_leaves()} leaves)")
    return fig


def plot_pruning_path(path: pd.DataFrame):
    """Fig 2.2: training and test MSE of the pruned subtrees against :math:`\\alpha`.

    Parameters
    ----------
    path : DataFrame
        :func:`xaipipe.studies.illustrations.pruning_path` (``alpha``,
        ``train_mse``, ``test_mse``, ``n_leaves``).

    Returns
    -------
    matplotlib.figure.Figure
        Symmetric-log :math:`\\alpha` axis (linear below the smallest positive
        alpha, so the unpruned tree at :math:`\\alpha = 0` is shown), step
        lines (the subtree is constant between consecutive alphas), the
        minimum test MSE marked.
    """
    import matplotlib.pyplot as plt

    t = check_table(path, ["alpha", "train_mse", "test_mse", "n_leaves"], "pruning path").sort_values("alpha")
    fig, ax = plt.subplots()
    _train_test(ax.step, t["alpha"], t, where="post")
    best = t.loc[t["test_mse"].idxmin()]
    ax.plot(
        [best["alpha"]], [best["test_mse"]], "o", color="black", label=f"min test MSE ({int(best['n_leaves'])} leaves)"
    )
    positive = t["alpha"][t["alpha"] > 0]
    if len(positive):
        ax.set_xscale("symlog", linthresh=float(positive.min()))
    return _labelled(ax, r"cost-complexity parameter $\alpha$")


def plot_oob_curve(curve: pd.DataFrame):
    """§3.1: out-of-bag and test MSE against the number of trees.

    Parameters
    ----------
    curve : DataFrame
        :func:`xaipipe.studies.illustrations.oob_curve` (``max_features``,
        ``n_trees``, ``oob_mse``, ``test_mse``).

    Returns
    -------
    matplotlib.figure.Figure
        One colour per ``max_features`` (``1.0`` labelled bagging); OOB solid,
        test dashed (if present).
    """
    import matplotlib.pyplot as plt

    t = check_table(curve, ["max_features", "n_trees", "oob_mse", "test_mse"], "OOB curve")
    fig, ax = plt.subplots()
    for k, (mf, part) in enumerate(t.groupby("max_features", sort=False)):
        part = part.sort_values("n_trees")
        colour = f"C{k}"
        try:
            name = "bagging" if float(mf) == 1.0 else f"random forest (max_features={float(mf):.3g})"
        except ValueError:
            name = f"random forest (max_features={mf})"
        ax.plot(part["n_trees"], part["oob_mse"], color=colour, label=f"{name}: OOB")
        if part["test_mse"].notna().any():
            ax.plot(part["n_trees"], part["test_mse"], color=colour, linestyle="--", label=f"{name}: test")
    return _labelled(ax, "number of trees $B$")


def plot_loss_functions(losses: pd.DataFrame):
    """Fig 3.1: squared (:math:`r^2/2`), absolute and Huber loss against the residual.

    Parameters
    ----------
    losses : DataFrame
        :func:`xaipipe.studies.illustrations.loss_functions`.

    Returns
    -------
    matplotlib.figure.Figure
        Dotted vertical lines at :math:`\\pm\\delta`.
    """
    import matplotlib.pyplot as plt

    t = check_table(losses, ["residual", "squared", "absolute", "huber", "delta"], "loss table")
    delta = float(t["delta"].iloc[0])
    fig, ax = plt.subplots()
    ax.plot(t["residual"], t["squared"], label=r"squared $r^2/2$")
    ax.plot(t["residual"], t["absolute"], label=r"absolute $|r|$")
    ax.plot(t["residual"], t["huber"], linestyle="--", linewidth=2.0, label=rf"Huber ($\delta$ = {delta:g})")
    for x in (-delta, delta):
        ax.axvline(x, color="grey", linestyle=":", linewidth=0.8)
    return _labelled(ax, r"residual $r = y - f(x)$", "loss")


def plot_boosting_depth(depths: pd.DataFrame):
    """Fig 3.2: gradient boosting's training and test MSE against ``max_depth``.

    Parameters
    ----------
    depths : DataFrame
        :func:`xaipipe.studies.illustrations.boosting_depth_curve`.

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib.pyplot as plt

    t = check_table(depths, ["max_depth", "train_mse", "test_mse"], "depth table").sort_values("max_depth")
    fig, ax = plt.subplots()
    _train_test(ax.plot, t["max_depth"], t, "o-")
    ax.set_xticks(t["max_depth"].to_numpy())
    info = [
        f"{col} = {t[col].iloc[0]:g}" for col in ("n_estimators", "learning_rate") if col in t and t[col].nunique() == 1
    ]
    if info:
        ax.set_title(", ".join(info))
    return _labelled(ax, "maximum depth of the trees")


def plot_boosting_shrinkage(curves: pd.DataFrame, *, log_y: bool = True):
    """Fig 3.3: training (left) and test (right) MSE per iteration, one line per learning rate.

    Parameters
    ----------
    curves : DataFrame
        :func:`xaipipe.studies.illustrations.boosting_staged_curves`
        (``learning_rate``, ``iteration``, ``train_mse``, ``test_mse``,
        ``early_stop``).
    log_y : bool, default True
        Logarithmic MSE axis (training error falls over orders of magnitude).

    Returns
    -------
    matplotlib.figure.Figure
        Two panels sharing the x axis; the iteration where scikit-learn's early
        stopping stops is marked with a black dot on each curve (none when it
        does not stop).
    """
    import matplotlib.pyplot as plt

    t = check_table(curves, ["learning_rate", "iteration", "train_mse", "test_mse", "early_stop"], "staged curves")
    fig, axes = plt.subplots(1, 2, figsize=(6.3, 3.0), sharex=True)
    for k, (lr, part) in enumerate(t.groupby("learning_rate", sort=True)):
        part = part.sort_values("iteration")
        stop = part[part["early_stop"].astype(bool)]
        for ax, col in zip(axes, ("train_mse", "test_mse")):
            ax.plot(part["iteration"], part[col], color=f"C{k}", label=rf"$\lambda$ = {lr:g}")
            if len(stop):
                ax.plot(stop["iteration"], stop[col], "o", color="black", markersize=4, label="early stop")
    for ax, title in zip(axes, (TRAIN_LABEL, TEST_LABEL)):
        ax.set_title(f"{title} MSE")
        ax.set_xlabel("boosting iteration")
        if log_y:
            ax.set_yscale("log")
    axes[0].set_ylabel("MSE")
    handles, labels = axes[1].get_legend_handles_labels()
    seen = {}
    for h, lab in zip(handles, labels):
        seen.setdefault(lab, h)
    order = [lab for lab in seen if lab != "early stop"] + [lab for lab in seen if lab == "early stop"]
    axes[1].legend([seen[lab] for lab in order], order)
    return fig
