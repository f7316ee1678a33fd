"""Figures of model reliance and split-gain importance (thesis Figs 5.2, 5.5, 5.8).

Both functions take the tidy tables of :func:`xaipipe.explain.reliance.model_reliance`
(or the pipeline's ``model_reliance.csv`` filtered to one dataset and model) and of
:func:`xaipipe.explain.reliance.split_gain_importance`, draw with the current
matplotlib style (wrap calls in :func:`xaipipe.plots.style.figure_style`) and
return the Figure; callers save it with :func:`xaipipe.plots.style.save_figure`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ._common import finish, with_coverage

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "plot_model_reliance",
    "plot_reliance_vs_split_gain",
    "plot_dependent_reliance",
    "dependent_reliance_figure",
    "reliance_figures",
]

_VALUES = {
    "mr_ratio": ("Model reliance  $e_{switch}/e_{orig}$", 1.0, "no reliance (MR = 1)"),
    "mr_difference": ("Model reliance  $e_{switch}-e_{orig}$ (loss units)", 0.0, "no reliance"),
}
_ERRORS = {"se": "Monte-Carlo s.e.", "std": "s.d. across permutations"}


def _one_model(table: pd.DataFrame, member) -> pd.DataFrame:
    if not isinstance(table, pd.DataFrame) or "feature" not in table:
        raise ValueError("expected a model-reliance table with a 'feature' column")
    frame = table
    if member is not None:
        if "member" not in frame:
            raise ValueError("member given but the table has no 'member' column")
        frame = frame[frame["member"] == member]
        if frame.empty:
            raise ValueError(f"no rows for member {member!r}")
    for col in ("member", "dataset", "model", "estimator", "loss"):
        if col in frame and frame[col].nunique(dropna=False) > 1:
            values = sorted(map(str, frame[col].unique()))[:5]
            raise ValueError(
                f"the table holds several values of {col!r} ({values}); filter it to one model first (or pass member=)"
            )
    if frame["feature"].duplicated().any():
        raise ValueError("a feature appears twice in the table")
    return frame


def _values(frame: pd.DataFrame, value: str, error: str | None):
    if value not in _VALUES:
        raise ValueError(f"value must be one of {list(_VALUES)}, got {value!r}")
    if error not in (None, *_ERRORS):
        raise ValueError(f"error must be one of {list(_ERRORS)} or None, got {error!r}")
    if value not in frame:
        raise ValueError(f"the table has no {value!r} column")
    v = frame[value].to_numpy(dtype=float)
    err = None
    if error is not None:
        col = f"{value}_{error}"
        if col in frame:
            e = frame[col].to_numpy(dtype=float)
            if np.isfinite(e).any():
                err = np.where(np.isfinite(e), e, 0.0)
    return v, err


def _bars(ax, names, v, err, xlabel, ref, color):
    """Bars from the reference value (1 for the ratio, 0 otherwise) to ``v``."""
    base = 0.0 if ref is None else ref
    y = np.arange(len(names))
    ax.barh(
        y,
        v - base,
        left=base,
        xerr=err,
        color=color,
        ecolor="black",
        capsize=2,
        height=0.7,
        error_kw={"elinewidth": 0.8},
    )
    ax.set_yticks(y, names)
    ax.set_ylim(len(names) - 0.5, -0.5)  # most important on top (idempotent for shared axes)
    if ref is not None:
        ax.axvline(ref, color="0.3", linestyle="--", linewidth=0.8)
    ax.set_xlabel(xlabel)


def _note(value, err, error):
    parts = [f"dashed: {_VALUES[value][2]}"]
    if err is not None:
        parts.append(f"error bars: ± {_ERRORS[error]}")
    return "\n(" + "; ".join(parts) + ")"


def plot_model_reliance(
    table: pd.DataFrame,
    *,
    value: str = "mr_ratio",
    error: str | None = "se",
    member=None,
    title: str | None = None,
):
    """Horizontal bars of model reliance per variable, most important on top.

    Parameters
    ----------
    table : DataFrame
        Model-reliance rows of one model (columns ``feature``, ``value`` and
        optionally ``{value}_se`` / ``{value}_std``).
    value : {"mr_ratio", "mr_difference"}, default="mr_ratio"
    error : {"se", "std"} or None, default="se"
        Error bars from ``{value}_{error}``; omitted when the column is missing
        or all NaN (deterministic estimators).
    member : optional
        Select ``table["member"] == member`` first.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
        One bar per variable from the no-reliance value (dashed line), most relied-on on top.

    Raises
    ------
    ValueError
        If the table holds several models/estimators or the options are invalid.
    """
    import matplotlib.pyplot as plt

    frame = _one_model(table, member)
    v, err = _values(frame, value, error)
    order = np.argsort(-v, kind="stable")
    names = frame["feature"].astype(str).to_numpy()[order]
    xlabel, ref, _ = _VALUES[value]
    fig, ax = plt.subplots(figsize=(5.5, max(2.0, 0.3 * len(names) + 1.2)))
    _bars(ax, names, v[order], None if err is None else err[order], xlabel + _note(value, err, error), ref, "C0")
    return finish(fig, ax, title)


def plot_reliance_vs_split_gain(
    table: pd.DataFrame,
    split_gain: pd.DataFrame,
    *,
    value: str = "mr_ratio",
    error: str | None = "se",
    member=None,
    title: str | None = None,
):
    """Model reliance and split-gain importance side by side, variables in MR order.

    Parameters
    ----------
    table : DataFrame
        Model-reliance rows of one model (see :func:`plot_model_reliance`).
    split_gain : DataFrame
        :func:`xaipipe.explain.reliance.split_gain_importance` output for the
        same model (columns ``feature``, ``split_gain``, optional ``kind``).
    value, error, member, title
        As :func:`plot_model_reliance`.

    Returns
    -------
    matplotlib.figure.Figure
        Left the MR bars, right the split-gain shares, in the MR order.

    Raises
    ------
    ValueError
        If the two tables do not list the same variables, or as
        :func:`plot_model_reliance`.
    """
    import matplotlib.pyplot as plt

    frame = _one_model(table, member)
    if not {"feature", "split_gain"} <= set(split_gain.columns):
        raise ValueError("split_gain must have columns 'feature' and 'split_gain'")
    if split_gain["feature"].duplicated().any():
        raise ValueError("a feature appears twice in split_gain")
    mr_features = set(frame["feature"].astype(str))
    sg_features = set(split_gain["feature"].astype(str))
    if mr_features != sg_features:
        raise ValueError(
            f"variables differ: only in reliance {sorted(mr_features - sg_features)}, "
            f"only in split gain {sorted(sg_features - mr_features)}"
        )
    v, err = _values(frame, value, error)
    order = np.argsort(-v, kind="stable")
    names = frame["feature"].astype(str).to_numpy()[order]
    gain = split_gain.set_index(split_gain["feature"].astype(str))["split_gain"].reindex(names)
    kind = str(split_gain["kind"].iloc[0]) if "kind" in split_gain else "split gain"
    xlabel, ref, _ = _VALUES[value]
    fig, (left, right) = plt.subplots(1, 2, sharey=True, figsize=(7.5, max(2.0, 0.3 * len(names) + 1.2)))
    _bars(left, names, v[order], None if err is None else err[order], xlabel + _note(value, err, error), ref, "C0")
    left.set_title("Model reliance")
    _bars(
        right,
        names,
        gain.to_numpy(dtype=float),
        None,
        f"Split-gain share ({kind})\n(sums to 1; training data)",
        None,
        "C1",
    )
    right.set_title("Split-gain importance")
    right.tick_params(axis="y", left=False)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


def reliance_figures(
    table: pd.DataFrame,
    split_gain: pd.DataFrame,
    *,
    estimator: str,
    loss: str,
    quantity: str,
    title: str = "",
    coverage: dict | None = None,
) -> dict[str, Figure]:
    """The ``reliance_figures`` rule: MR bars with uncertainty and MR beside split gain.

    Parameters
    ----------
    table : DataFrame
        ``model_reliance.csv`` of one model; the rows of ``estimator`` and ``loss``
        are drawn, ``quantity`` (``mr_difference`` / ``mr_ratio``) with its
        Monte-Carlo standard error.
    split_gain : DataFrame
        ``split_gain.csv``.
    coverage : dict kind -> str, optional
        A caption line per figure below its title: the MR interval's coverage on the dataset's twin
        (:func:`xaipipe.studies.twin_table.reliance_captions`), where the twin audit has run.

    Returns
    -------
    dict
        ``model_reliance``, ``reliance_vs_split_gain`` -> Figure.
    """
    part = table[(table["estimator"] == estimator) & (table["loss"] == loss)]
    return {
        "model_reliance": plot_model_reliance(
            part,
            value=quantity,
            error="se",
            title=with_coverage(f"{title}: model reliance ({estimator}, {loss})", coverage, "model_reliance"),
        ),
        "reliance_vs_split_gain": plot_reliance_vs_split_gain(
            part,
            split_gain,
            value=quantity,
            error="se",
            title=with_coverage(f"{title}: model reliance vs split gain", coverage, "reliance_vs_split_gain"),
        ),
    }


#: Estimators of :func:`plot_dependent_reliance`: the marginal one, its conditional and grouped variants.
DEPENDENT_PANELS = {
    "permutation": "marginal (permutation)",
    "conditional_permutation": "conditional (within tree strata)",
    "grouped_permutation": "grouped (|r| clusters, jointly)",
}
_DEPENDENT_COLOURS = {"permutation": "#0072B2", "conditional_permutation": "#E69F00", "grouped_permutation": "#009E73"}


def _cluster_label(name: str, width: int = 30) -> str:
    """A cluster's name ``"a+b+c"`` as ``"a + b + c"`` on lines of at most ~``width`` characters."""
    lines, line = [], ""
    for member in str(name).split("+"):
        joined = f"{line} + {member}" if line else member
        if line and len(joined) > width:
            lines.append(line + " +")
            line = member
        else:
            line = joined
    return "\n".join([*lines, line])


def plot_dependent_reliance(
    table: pd.DataFrame,
    *,
    loss: str,
    quantity: str = "mr_difference",
    max_display: int = 15,
    title: str | None = None,
):
    """Marginal, conditional and correlation-grouped model reliance of one model, with ±2 SE.

    Left: per variable, the marginal MR (``permutation``) beside the conditional MR
    (``conditional_permutation``: permutations within the leaves of a tree that predicts the
    variable from the others; Molnar et al. 2023); right: the MR of each cluster of variables with
    ``|r| >=`` the threshold (``grouped_permutation``, the cluster permuted jointly; Gregorutti et
    al. 2015), a cluster of one variable under its name (docs/methods_dependent_features.md). The
    two panels share the x axis. A variable with large marginal and small conditional MR is one the
    model uses but could replace by its correlates.

    Parameters
    ----------
    table : DataFrame
        ``model_reliance.csv`` of one model (all estimators); the rows of ``loss`` are drawn.
    loss : str
    quantity : {"mr_difference", "mr_ratio"}, default "mr_difference"
        Error bars: ±2 ``<quantity>_se`` (the Monte-Carlo SE over the repeats).
    max_display : int, default 15
        Variables (largest marginal or conditional MR) and clusters (largest MR) shown per panel.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
        A figure saying so when the table has no conditional or grouped rows
        (``explain.reliance.dependent.estimators`` empty).

    Raises
    ------
    ValueError
        Unknown ``quantity``; ``max_display < 1``; no marginal (``permutation``) rows for ``loss``.
    """
    import matplotlib.pyplot as plt

    if quantity not in _VALUES:
        raise ValueError(f"quantity must be one of {list(_VALUES)}, got {quantity!r}")
    if isinstance(max_display, bool) or not isinstance(max_display, (int, np.integer)) or max_display < 1:
        raise ValueError(f"max_display must be a positive integer, got {max_display!r}")
    part = table[table["loss"] == loss]
    by = {e: part[part["estimator"] == e].set_index("feature") for e in DEPENDENT_PANELS}
    if by["permutation"].empty:
        raise ValueError(f"no marginal (permutation) model reliance rows for loss {loss!r}")
    if by["conditional_permutation"].empty and by["grouped_permutation"].empty:
        fig, ax = plt.subplots(figsize=(5.5, 2))
        ax.text(0.5, 0.5, "no conditional or grouped MR\n(explain.reliance.dependent.estimators)", ha="center")
        ax.set_axis_off()
        return fig
    xlabel, ref, _ = _VALUES[quantity]

    def column(frame, names, col):
        return frame.reindex(names)[col].to_numpy(dtype=float) if col in frame else np.full(len(names), np.nan)

    marginal, conditional = by["permutation"], by["conditional_permutation"]
    names = list(marginal.index)
    both = np.fmax(column(marginal, names, quantity), column(conditional, names, quantity))
    names = [names[i] for i in np.argsort(-both, kind="stable")[:max_display]]
    grouped = by["grouped_permutation"]
    clusters = list(grouped.sort_values(quantity, ascending=False, kind="stable").index[:max_display])
    labels = [_cluster_label(c) for c in clusters]
    rows = max(len(names), 0.6 * sum(label.count("\n") + 1 for label in labels))
    fig, (left, right) = plt.subplots(
        1, 2, sharex=True, figsize=(8.6, max(2.6, 0.34 * rows + 1.9)), width_ratios=[1, 1]
    )
    y = np.arange(len(names))
    for offset, est in ((-0.2, "permutation"), (0.2, "conditional_permutation")):
        v = column(by[est], names, quantity)
        se = column(by[est], names, f"{quantity}_se")
        if np.isfinite(v).any():
            left.barh(
                y + offset,
                v - ref,
                left=ref,
                height=0.38,
                xerr=np.where(np.isfinite(se), 2 * se, 0.0),
                color=_DEPENDENT_COLOURS[est],
                label=DEPENDENT_PANELS[est],
                error_kw={"elinewidth": 0.8},
            )
    left.set_yticks(y, names)
    left.set_ylim(len(names) - 0.5, -0.5)
    left.set_title("per variable", fontsize=9)
    if clusters:
        yc = np.arange(len(clusters))
        v = grouped.loc[clusters, quantity].to_numpy(dtype=float)
        se = column(grouped, clusters, f"{quantity}_se")
        right.barh(
            yc,
            v - ref,
            left=ref,
            height=0.6,
            xerr=np.where(np.isfinite(se), 2 * se, 0.0),
            color=_DEPENDENT_COLOURS["grouped_permutation"],
            label=DEPENDENT_PANELS["grouped_permutation"],
            error_kw={"elinewidth": 0.8},
        )
        right.set_yticks(yc, labels, fontsize=7)
        right.set_ylim(len(clusters) - 0.5, -0.5)
    else:
        right.text(0.5, 0.5, "no grouped MR", ha="center", transform=right.transAxes)
    right.set_title(DEPENDENT_PANELS["grouped_permutation"], fontsize=9)
    for ax in (left, right):
        ax.axvline(ref, color="0.3", linestyle="--", linewidth=0.8)
        ax.set_xlabel(f"{xlabel}\n(loss {loss}; error bars ±2 Monte-Carlo SE)")
    fig.suptitle(title or "marginal vs conditional vs grouped model reliance", fontsize=9)
    handles = [h for ax in (left, right) for h in ax.get_legend_handles_labels()[0]]
    fig.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0.965), ncol=3, frameon=False, fontsize=7)
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.3 / fig.get_figheight()))
    return fig


def dependent_reliance_figure(
    table: pd.DataFrame, *, loss: str, quantity: str, title: str = "", coverage: dict | None = None
):
    """The ``reliance_figures`` rule's ``model_reliance_dependent`` figure (:func:`plot_dependent_reliance`);
    ``coverage``: as :func:`reliance_figures`'."""
    return plot_dependent_reliance(
        table,
        loss=loss,
        quantity=quantity,
        title=with_coverage(f"{title}: marginal vs conditional vs grouped MR", coverage, "model_reliance_dependent"),
    )
