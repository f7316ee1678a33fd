"""Figures of model comparison on a test set (seed 003, Figs 3.1-3.4).

Inputs are the outputs of :mod:`xaipipe.models.comparison`. Every function draws
with the current matplotlib style (the pipeline wraps calls in
:func:`xaipipe.plots.style.figure_style`) and returns the Figure without saving it.

* :func:`plot_loss_difference` -- histogram of the paired bootstrap differences
  with 0 and the observed difference marked, and the percentile interval (Fig 3.3);
* :func:`plot_error_distribution` -- bootstrap distribution of a test error with
  the normal curve of the binomial standard error (Fig 3.2);
* :func:`plot_reject_option` -- share of rows given the null action and the error
  on the accepted rows against the risk λ (Fig 3.1);
* :func:`plot_predicted_vs_observed` -- predicted against observed with the line
  ``y = x`` and R² / RMSE (Fig 3.4);
* :func:`comparison_figures` -- the figures of one dataset drawn by the pipeline's
  ``comparison_figures_*`` rules, from its stored comparison tables.

The seed draws Figs 3.2 and 3.3 with seaborn's ``displot(kde=True)``; here they are
density histograms (the kernel density estimate is left out: the bootstrap
distribution of a mean of 0/1 losses is discrete, on a grid of step ``1/n``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ._common import finish
from .catalog import TASKS, kinds

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "COMPARISON_FIGURES",
    "comparison_figures",
    "plot_error_distribution",
    "plot_loss_difference",
    "plot_predicted_vs_observed",
    "plot_reject_option",
    "plot_reject_options",
]

BAR_COLOUR = "#0072B2"  # blue
CURVE_COLOUR = "#D55E00"  # vermillion
SECOND_COLOUR = "#009E73"  # bluish green

#: Figures of :func:`comparison_figures`, per task (the kinds of ``figures/<dataset>/comparison/``;
#: declared in :mod:`xaipipe.plots.catalog`).
COMPARISON_FIGURES = {task: kinds("comparison_figures", task) for task in TASKS}

_LOSS_LABELS = {"error_rate": "error rate", "log_loss": "log loss (nats)", "mse": "MSE", "mae": "MAE"}


def _draws(draws, name: str) -> np.ndarray:
    arr = np.asarray(draws, dtype=float).ravel()
    if arr.size < 2 or not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} needs at least two finite bootstrap draws")
    return arr


def _bins(arr: np.ndarray, bins) -> np.ndarray | int | str:
    """Bins centred on the values when the draws lie on a grid (means of 0/1 losses)."""
    if bins is not None:
        return bins
    values = np.unique(np.round(arr, 12))
    if 1 < values.size <= 60:
        step = np.min(np.diff(values))
        if np.allclose(np.round((values - values[0]) / step), (values - values[0]) / step, atol=1e-6):
            return np.arange(values[0] - step / 2, values[-1] + step, step)
    if values.size == 1:  # every resample gives the same value (e.g. identical predictions)
        half = 1e-3 * max(abs(values[0]), 1.0)
        return np.array([values[0] - half, values[0] + half])
    return "auto"


def plot_loss_difference(
    draws,
    result: pd.DataFrame | None = None,
    *,
    loss: str | None = None,
    labels: tuple[str, str] = ("a", "b"),
    bins=None,
    title: str | None = None,
):
    """Histogram of the paired bootstrap differences of mean test loss (seed 003, Fig 3.3).

    Parameters
    ----------
    draws : array-like of shape (B,)
        :func:`xaipipe.models.comparison.bootstrap_loss_difference`.
    result : DataFrame, optional
        The one-row output of :func:`~xaipipe.models.comparison.paired_bootstrap_test`
        (or one row of :func:`~xaipipe.models.comparison.compare_families`) for the same
        draws: adds the observed difference, the percentile interval and the z / p
        annotation.
    loss : str, optional
        Loss name for the axis label (default from ``result["loss"]`` if present).
    labels : (str, str), default ("a", "b")
        Names of the two models; the axis reads ``loss(a) - loss(b)``.
    bins : optional
        Passed to ``Axes.hist``; default: one bar per value when the draws lie on a
        grid, else ``"auto"``.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
        A density histogram; a dashed black vertical line at 0; with ``result``, a solid
        line at the observed difference and a shaded percentile interval.

    Raises
    ------
    ValueError
        Fewer than two or non-finite draws, ``result`` with other than one row.
    """
    import matplotlib.pyplot as plt

    arr = _draws(draws, "plot_loss_difference")
    if result is not None:
        if not isinstance(result, pd.DataFrame) or len(result) != 1:
            raise ValueError("result must be a one-row DataFrame (filter compare_families' table to one row)")
        row = result.iloc[0]
        if loss is None and "loss" in result.columns:
            loss = str(row["loss"])
    fig, ax = plt.subplots()
    ax.hist(arr, bins=_bins(arr, bins), density=True, color=BAR_COLOUR, alpha=0.7, label=f"B = {arr.size} resamples")
    ax.axvline(0.0, color="black", linestyle="--", linewidth=1.0, label="no difference")
    if result is not None:
        ax.axvline(float(row["difference"]), color=CURVE_COLOUR, linewidth=1.4, label="observed difference")
        conf = float(row["confidence"])
        ax.axvspan(
            float(row["ci_low"]),
            float(row["ci_high"]),
            color=CURVE_COLOUR,
            alpha=0.12,
            zorder=0,
            label=f"{100 * conf:g} % percentile interval",
        )
        # The test's numbers as a legend entry without a handle.
        ax.plot([], [], " ", label=f"se = {row['se']:.3g}, z = {row['z']:.2f},\ntwo-sided p = {row['p_value']:.3g}")
    name = _LOSS_LABELS.get(loss, loss or "loss")
    ax.set_xlabel(f"{name}({labels[0]}) - {name}({labels[1]}), bootstrap resamples of the test rows")
    ax.set_ylabel("density")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return finish(fig, ax, title)


def plot_error_distribution(draws, error_rate: float, n_test: int, *, bins=None, title: str | None = None):
    """Bootstrap distribution of a test error with the binomial normal curve (seed 003, Fig 3.2).

    Parameters
    ----------
    draws : array-like of shape (B,)
        ``bootstrap_error_rate(...)["error_rate"]``.
    error_rate : float
        The test error ``e`` of the full test set.
    n_test : int
        Number of test rows ``n``.
    bins : optional
        Passed to ``Axes.hist`` (default: one bar per multiple of ``1/n`` reached).
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
        A density histogram of the draws and the curve of the normal density with
        mean ``e`` and standard deviation ``sqrt(e (1 - e) / n)`` (the first line of
        the axes), evaluated on 400 points over the histogram's range.

    Raises
    ------
    ValueError
        Bad draws, ``error_rate`` outside [0, 1], ``n_test < 1``.
    """
    import matplotlib.pyplot as plt
    from scipy.stats import norm

    arr = _draws(draws, "plot_error_distribution")
    e = float(error_rate)
    if not 0.0 <= e <= 1.0:
        raise ValueError(f"error_rate must lie in [0, 1], got {error_rate!r}")
    if int(n_test) < 1:
        raise ValueError(f"n_test must be positive, got {n_test!r}")
    se = float(np.sqrt(e * (1 - e) / int(n_test)))
    fig, ax = plt.subplots()
    ax.hist(
        arr,
        bins=_bins(arr, bins),
        density=True,
        color=BAR_COLOUR,
        alpha=0.7,
        label=f"bootstrap, B = {arr.size} (sd {np.std(arr, ddof=1):.4f})",
    )
    lo = min(arr.min(), e - 4 * se)
    hi = max(arr.max(), e + 4 * se)
    x = np.linspace(lo, hi, 400)
    if se > 0:
        ax.plot(x, norm.pdf(x, loc=e, scale=se), color=CURVE_COLOUR, label=f"normal, binomial se = {se:.4f}")
    ax.axvline(e, color="black", linestyle="--", linewidth=1.0, label=f"test error {e:.4f}")
    ax.set_xlabel(f"test error (n = {int(n_test)} rows)")
    ax.set_ylabel("density")
    ax.legend(loc="upper right")
    return finish(fig, ax, title)


def plot_reject_option(curve: pd.DataFrame, *, log_scale: bool = True, title: str | None = None):
    """Reject-option curve (seed 003, Fig 3.1).

    Parameters
    ----------
    curve : DataFrame
        :func:`xaipipe.models.comparison.reject_option_curve` (columns ``risk``,
        ``rejected_share``, ``error_accepted``, ``n_test``).
    log_scale : bool, default=True
        Log scale for the rejected share (as the seed's Fig 3.1, whose count axis is
        logarithmic); a share of 0 is then left out of the line (a gap).
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
        Left axis: share of test rows given the null action; right axis (a twin):
        error rate of the accepted rows (gaps where no row is accepted; the seed plots
        an error of 0 there).

    Raises
    ------
    ValueError
        Missing columns or an empty table.
    """
    import matplotlib.pyplot as plt

    need = ("risk", "rejected_share", "error_accepted", "n_test")
    missing = [c for c in need if c not in curve.columns]
    if missing or curve.empty:
        raise ValueError(f"reject-option table lacks columns {missing} or is empty")
    frame = curve.sort_values("risk", kind="stable")
    fig, ax = plt.subplots()
    share = frame["rejected_share"].to_numpy(dtype=float)
    if log_scale:
        share = np.where(share > 0, share, np.nan)
    ax.plot(frame["risk"], share, color=BAR_COLOUR, marker=".", label="rejected (null action)")
    ax.set_xlabel(r"risk $\lambda$ (cost of the null action; reject when max posterior $\leq 1-\lambda$)")
    ax.set_ylabel("share of test rows rejected", color=BAR_COLOUR)
    if log_scale:
        ax.set_yscale("log")
    else:
        ax.set_ylim(-0.02, 1.02)
    ax2 = ax.twinx()
    ax2.spines["right"].set_visible(True)
    ax2.plot(frame["risk"], frame["error_accepted"], color=CURVE_COLOUR, marker=".", label="error on accepted rows")
    ax2.set_ylabel("error rate of the accepted rows", color=CURVE_COLOUR)
    ax.set_title((title + "\n" if title else "") + f"n = {int(frame['n_test'].iloc[0])} test rows")
    handles = ax.get_legend_handles_labels()[0] + ax2.get_legend_handles_labels()[0]
    ax.legend(handles=handles, loc="center right")
    fig.tight_layout()
    return fig


def plot_predicted_vs_observed(points: pd.DataFrame, *, title: str | None = None):
    """Predicted against observed, with the ideal line ``y = x`` (seed 003, Fig 3.4).

    Parameters
    ----------
    points : DataFrame
        :func:`xaipipe.models.comparison.predicted_vs_observed` (columns ``y_true``,
        ``y_pred``).
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
        Scatter of ``(y_pred, y_true)`` (prediction on the x axis, as in the seed),
        the line ``y = x`` from the smallest to the largest value, and R² / RMSE
        (:func:`xaipipe.models.comparison.regression_summary`) in the corner.

    Raises
    ------
    ValueError
        Missing columns or an empty table.
    """
    import matplotlib.pyplot as plt

    from ..models.comparison import regression_summary

    missing = [c for c in ("y_true", "y_pred") if c not in points.columns]
    if missing or points.empty:
        raise ValueError(f"points table lacks columns {missing} or is empty")
    y = points["y_true"].to_numpy(dtype=float)
    yhat = points["y_pred"].to_numpy(dtype=float)
    summ = regression_summary(y, yhat).iloc[0]
    lo = float(min(y.min(), yhat.min()))
    hi = float(max(y.max(), yhat.max()))
    fig, ax = plt.subplots(figsize=(4.6, 4.2))
    ax.scatter(yhat, y, s=12, color=BAR_COLOUR, alpha=0.8, label="test rows")
    ax.plot([lo, hi], [lo, hi], color=CURVE_COLOUR, linewidth=1.2, label="ideal: observed = predicted")
    ax.set_xlabel("predicted")
    ax.set_ylabel("observed")
    ax.set_aspect("equal", adjustable="datalim")
    ax.text(
        0.03,
        0.97,
        f"R² = {summ['r2']:.3f}\nRMSE = {summ['rmse']:.4g}\nn = {int(summ['n_test'])}\nline: observed = predicted",
        transform=ax.transAxes,
        va="top",
        ha="left",
        fontsize=8,
    )
    return finish(fig, ax, title)


def plot_reject_options(curves: pd.DataFrame, *, log_scale: bool = True, title: str | None = None):
    """Reject-option curves of several classifiers (seed 003 Fig 3.1, every family).

    Parameters
    ----------
    curves : DataFrame
        :func:`xaipipe.models.comparison.reject_option_curves` (``family`` and the
        columns of :func:`~xaipipe.models.comparison.reject_option_curve`).
    log_scale : bool, default=True
        Log scale for the rejected share (a share of 0 leaves a gap).
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
        Two axes sharing the risk axis: share of test rows given the null action
        (left) and error rate of the accepted rows (right), one line per family
        (families in sorted order).

    Raises
    ------
    ValueError
        Missing columns or an empty table.
    """
    import matplotlib.pyplot as plt

    need = ("family", "risk", "rejected_share", "error_accepted", "n_test")
    missing = [c for c in need if c not in curves.columns]
    if missing or curves.empty:
        raise ValueError(f"reject-option table lacks columns {missing} or is empty")
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10.0, 4.0), sharex=True)
    for family, frame in curves.groupby("family", sort=True):
        frame = frame.sort_values("risk", kind="stable")
        share = frame["rejected_share"].to_numpy(dtype=float)
        if log_scale:
            share = np.where(share > 0, share, np.nan)
        ax1.plot(frame["risk"], share, marker=".", label=str(family))
        ax2.plot(frame["risk"], frame["error_accepted"], marker=".", label=str(family))
    ax1.set_ylabel("share of test rows rejected")
    if log_scale:
        ax1.set_yscale("log")
    ax2.set_ylabel("error rate of the accepted rows")
    for ax in (ax1, ax2):
        ax.set_xlabel(r"risk $\lambda$ (reject when max posterior $\leq 1-\lambda$)")
    ax2.legend(loc="best")
    fig.suptitle((title + ", " if title else "") + f"n = {int(curves['n_test'].iloc[0])} test rows")
    fig.tight_layout()
    return fig


def _ranked(test_loss: pd.DataFrame, losses) -> list[str]:
    """Families from best to worst by the first loss, ties broken by the next ones, then by name."""
    wide = test_loss.pivot_table(index="family", columns="loss", values="mean")
    return list(wide.reset_index().sort_values([*losses, "family"], kind="stable")["family"])


def comparison_figures(
    predictions,
    pairs: pd.DataFrame,
    test_loss: pd.DataFrame,
    *,
    n_bootstrap: int,
    random_state: int | None,
    dataset: str | None = None,
    classes=None,
) -> dict[str, Figure]:
    """The comparison figures of one dataset (seed 003 Figs 3.1-3.4; seed 004's ROC and PR).

    Parameters
    ----------
    predictions : DataFrame or mapping family -> DataFrame
        The families' test predictions, as
        :func:`xaipipe.models.comparison.compare_families`.
    pairs, test_loss : DataFrame
        :func:`xaipipe.models.comparison.comparison_tables` of the same predictions,
        ``n_bootstrap`` and ``random_state`` (the rule's ``pairs.csv`` and
        ``test_loss.csv``): the figures annotate their numbers, and the histograms
        are the very draws behind them.
    n_bootstrap : int
    random_state : int or None
    dataset : str, optional
        For titles.
    classes : sequence of str, optional
        A multiclass dataset's labels in code order (panel titles of the one-vs-rest
        curves; default the codes).

    Returns
    -------
    dict kind -> matplotlib.figure.Figure
        The kinds of :data:`COMPARISON_FIGURES` for the task. "The best family" is
        the one with the lowest test value of the task's first loss (``error_rate``,
        ``mse``; ties broken by the second loss, then by name):

        * ``reject_option`` (Fig 3.1): every classifier (:func:`plot_reject_options`);
        * ``error_bootstrap`` (Fig 3.2): the best classifier;
        * ``loss_difference`` (Fig 3.3): the best family against the second best,
          first loss (the closest contest); with one family a figure saying so;
        * ``predicted_vs_observed`` (Fig 3.4): the best regression model;
        * ``roc``, ``precision_recall``: every classifier on one axes; for multiclass
          predictions (``proba_0 .. proba_{K-1}``) the one-vs-rest curves, one panel
          per class (:func:`xaipipe.plots.curves.plot_ovr_curves`).

    Raises
    ------
    ValueError
        Tables that do not match the predictions (a family or pair missing), and the
        errors of the comparison functions.
    """
    import matplotlib.pyplot as plt

    from ..models.comparison import (
        DEFAULT_LOSSES,
        aligned_predictions,
        bootstrap_differences,
        class_probabilities,
        predicted_vs_observed,
        reject_option_curves,
    )
    from .curves import plot_ovr_curves, plot_precision_recall_curves, plot_roc_curves

    name, task, families, per, losses = aligned_predictions(predictions, dataset, None)
    name = name or "dataset"
    losses = DEFAULT_LOSSES[task]
    missing = sorted(set(families) - set(test_loss["family"].astype(str)))
    if missing:
        raise ValueError(f"test_loss table lacks families {missing}")
    ranked = _ranked(test_loss[test_loss["family"].astype(str).isin(families)], losses)
    best, loss = ranked[0], losses[0]
    figs = {}
    if len(ranked) > 1:
        fa, fb = sorted(ranked[:2])
        row = pairs[(pairs.family_a == fa) & (pairs.family_b == fb) & (pairs.loss == loss)]
        if len(row) != 1:
            raise ValueError(f"pairs table lacks the row ({fa}, {fb}, {loss})")
        draws = bootstrap_differences(
            predictions, loss=loss, pairs=[(fa, fb)], n_bootstrap=n_bootstrap, random_state=random_state
        )["difference"]
        figs["loss_difference"] = plot_loss_difference(
            draws, row.reset_index(drop=True), labels=(fa, fb), title=f"{name}: {fa} against {fb}"
        )
    else:
        fig, ax = plt.subplots()
        ax.text(0.5, 0.5, f"{name}: one family ({best}), no pair to compare", ha="center", va="center")
        ax.set_axis_off()
        figs["loss_difference"] = fig
    y = per[best]["y_true"].to_numpy()
    if task == "classification":
        figs["reject_option"] = plot_reject_options(reject_option_curves(predictions), title=name)
        s = test_loss[(test_loss.family == best) & (test_loss.loss == "error_rate")].iloc[0]
        draws = bootstrap_differences(
            predictions, loss="error_rate", families=[best], n_bootstrap=n_bootstrap, random_state=random_state
        )["value"]
        figs["error_bootstrap"] = plot_error_distribution(
            draws, float(s["mean"]), int(s["n_test"]), title=f"{name} / {best}: test error"
        )
        multi = {f: class_probabilities(per[f]) for f in families}
        if all(P is not None for P in multi.values()):  # multiclass: one-vs-rest curves, one panel per class
            scores = {f: (per[f]["y_true"].to_numpy(), multi[f]) for f in families}
            figs["roc"] = plot_ovr_curves(
                scores, kind="roc", classes=classes, title=f"{name}: one-vs-rest ROC (test set)"
            )
            figs["precision_recall"] = plot_ovr_curves(
                scores,
                kind="precision_recall",
                classes=classes,
                title=f"{name}: one-vs-rest precision-recall (test set)",
            )
        else:
            scores = {f: (per[f]["y_true"].to_numpy(), per[f]["proba_1"].to_numpy()) for f in families}
            figs["roc"] = plot_roc_curves(scores, title=f"{name}: ROC (test set)")
            figs["precision_recall"] = plot_precision_recall_curves(
                scores, title=f"{name}: precision-recall (test set)"
            )
    else:
        points = predicted_vs_observed(y, per[best]["y_pred"].to_numpy(), row=per[best]["row"].to_numpy())
        figs["predicted_vs_observed"] = plot_predicted_vs_observed(points, title=f"{name} / {best}")
    return {k: figs[k] for k in COMPARISON_FIGURES[task]}
