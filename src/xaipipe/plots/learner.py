"""Figures of learner-PD and learner-PFI with corrected and naive intervals.

Inputs are the tidy tables of :func:`xaipipe.explain.learner.learner_pd_table`
and :func:`xaipipe.explain.learner.learner_pfi_table` (or the pipeline's CSV
files filtered to one dataset and model). Both functions draw with the current
matplotlib style (wrap calls in :func:`xaipipe.plots.style.figure_style`) and
return the Figure; callers save it with :func:`xaipipe.plots.style.save_figure`.

Encoding (both figures): the **corrected** interval (Nadeau & Bengio variance,
Molnar et al. 2023) is the wide, light band / thin error bar; the **naive**
interval (refits treated as independent) the narrow, darker band / thick bar
inside it, so the under-coverage of the naive interval is visible at a glance.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ._common import check_table, with_coverage
from .pdp import OUTPUT_LABELS

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["with_coverage", "interval_bars", "plot_learner_pd", "plot_learner_pfi", "learner_figures"]

MEAN_COLOUR = "#000000"
BAND_COLOUR = "#0072B2"  # Okabe-Ito blue
TRUTH_COLOUR = "#D55E00"  # vermillion

_PD_NEEDED = [
    "feature",
    "grid_index",
    "grid_value",
    "level",
    "mean",
    "ci_low",
    "ci_high",
    "ci_low_naive",
    "ci_high_naive",
]
_MEASURES = {
    "mr_difference": ("learner-PFI  $e_{switch}-e_{orig}$ (loss units)", 0.0),
    "mr_ratio": ("learner-PFI  $e_{switch}/e_{orig}$", 1.0),
}


def _one_model(table: pd.DataFrame, needed: Sequence[str], what: str) -> pd.DataFrame:
    check_table(table, needed, what)
    for col in ("dataset", "model", "estimator", "loss", "output", "confidence"):
        if col in table and table[col].nunique(dropna=False) > 1:
            raise ValueError(f"{what} holds several values of {col!r}; filter it to one model first")
    return table


def _info(frame: pd.DataFrame) -> str:
    parts = []
    if "n_refits" in frame:
        parts.append(f"K = {int(frame['n_refits'].iloc[0])} refits")
    if "n_train" in frame and "n_test" in frame:
        parts.append(f"$n_1$ = {int(frame['n_train'].iloc[0])}, $n_2$ = {int(frame['n_test'].iloc[0])}")
    if "confidence" in frame:
        parts.append(f"{100 * float(frame['confidence'].iloc[0]):g} % intervals")
    return "; ".join(parts)


def plot_learner_pd(
    table: pd.DataFrame,
    *,
    features: Sequence[str] | None = None,
    ncols: int = 3,
    show_naive: bool = True,
    truth: Mapping[str, Callable[[np.ndarray], np.ndarray] | Sequence[float]] | None = None,
    title: str | None = None,
    quantity: str = "PD",
):
    """Learner-PD per feature with corrected (and naive) pointwise intervals.

    Parameters
    ----------
    table : DataFrame
        :data:`xaipipe.explain.learner.LEARNER_PD_COLUMNS` of one model.
    features : sequence of str, optional
        Panels to draw, in order (default: every feature of the table).
    ncols : int, default 3
        Panels per row.
    show_naive : bool, default True
        Also draw the naive interval.
    truth : mapping feature -> callable or values, optional
        A known PD to overlay (simulations): ``f(grid_values) -> values`` or
        one value per grid point.
    title : str, optional
    quantity : str, default "PD"
        The curve's name in the labels (``"ALE"``: the learner-ALE table of
        :func:`xaipipe.explain.learner.learner_ale_table`, the same columns).

    Returns
    -------
    matplotlib.figure.Figure
        One axes per feature (numeric: line and bands over the grid; one-hot
        group: points with error bars per level), unused axes hidden.

    Raises
    ------
    ValueError, TypeError
        Missing columns, several models in the table, unknown features,
        ``ncols < 1`` or a ``truth`` of the wrong length.
    """
    import matplotlib.pyplot as plt

    frame = _one_model(table, _PD_NEEDED, "learner-PD table")
    names = list(pd.unique(frame["feature"])) if features is None else list(features)
    unknown = [f for f in names if f not in set(frame["feature"])]
    if unknown:
        raise ValueError(f"features {unknown} are not in the table")
    if not names:
        raise ValueError("no features to plot")
    if isinstance(ncols, bool) or not isinstance(ncols, (int, np.integer)) or ncols < 1:
        raise ValueError(f"ncols must be a positive int, got {ncols!r}")
    ncols = min(int(ncols), len(names))
    nrows = int(np.ceil(len(names) / ncols))
    fig, axes = plt.subplots(nrows, ncols, figsize=(3.0 * ncols, 2.5 * nrows), squeeze=False)
    out = frame["output"].iloc[0] if "output" in frame else ""
    ylabel = f"learner-{quantity}: " + OUTPUT_LABELS.get(str(out) if isinstance(out, str) else "", "model output")
    truth = dict(truth or {})
    for ax, name in zip(axes.ravel(), names):
        part = frame[frame["feature"] == name].sort_values("grid_index")
        levels = part["level"].fillna("").astype(str).to_numpy()
        categorical = bool((levels != "").any())
        x = part["grid_index"].to_numpy(dtype=float) if categorical else part["grid_value"].to_numpy(dtype=float)
        m = part["mean"].to_numpy(dtype=float)
        lo, hi = part["ci_low"].to_numpy(dtype=float), part["ci_high"].to_numpy(dtype=float)
        nlo, nhi = part["ci_low_naive"].to_numpy(dtype=float), part["ci_high_naive"].to_numpy(dtype=float)
        if categorical:
            bars = [(lo, hi, BAND_COLOUR, 1.0, 4, "corrected CI")]
            if show_naive:
                bars.append((nlo, nhi, MEAN_COLOUR, 3.0, 0, "naive CI"))
            for low, high, colour, width, cap, label in bars:
                ax.errorbar(
                    x,
                    m,
                    yerr=[m - low, high - m],
                    fmt="none",
                    ecolor=colour,
                    elinewidth=width,
                    capsize=cap,
                    label=label,
                )
            ax.plot(x, m, "o", color=MEAN_COLOUR, label=f"learner-{quantity}")
            ax.set_xticks(x, levels)
        else:
            ax.fill_between(x, lo, hi, color=BAND_COLOUR, alpha=0.25, linewidth=0, label="corrected CI")
            if show_naive:
                ax.fill_between(x, nlo, nhi, color=BAND_COLOUR, alpha=0.5, linewidth=0, label="naive CI")
            ax.plot(x, m, color=MEAN_COLOUR, label=f"learner-{quantity}")
        if name in truth:
            t = truth[name]
            xv = part["grid_value"].to_numpy(dtype=float)
            tv = np.asarray(t(xv) if callable(t) else t, dtype=float)
            if tv.shape != m.shape:
                raise ValueError(f"truth of {name!r} has shape {tv.shape}, the grid has {m.shape[0]} points")
            ax.plot(x, tv, linestyle="--", color=TRUTH_COLOUR, label=f"true {quantity}")
        ax.set_xlabel(name)
    for ax in axes.ravel()[len(names) :]:
        ax.set_visible(False)
    for row in axes:
        row[0].set_ylabel(ylabel)
    axes.ravel()[0].legend(loc="best")
    info = _info(frame)
    fig.suptitle((title + "\n" if title else "") + info if (title or info) else "")
    fig.tight_layout()
    return fig


def plot_learner_pfi(
    table: pd.DataFrame,
    *,
    measure: str = "mr_difference",
    show_naive: bool = True,
    title: str | None = None,
):
    """Learner-PFI bars with corrected (thin, capped) and naive (thick) intervals.

    Parameters
    ----------
    table : DataFrame
        :data:`xaipipe.explain.learner.LEARNER_PFI_COLUMNS` of one model.
    measure : {"mr_difference", "mr_ratio"}, default "mr_difference"
        The paper's PFI is the difference.
    show_naive : bool, default True
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
        Bars from the no-reliance value (0 or 1) to ``<measure>_mean``, most
        important on top.

    Raises
    ------
    ValueError, TypeError
        Unknown ``measure``, missing columns, several models, duplicated features.
    """

    if measure not in _MEASURES:
        raise ValueError(f"measure must be one of {list(_MEASURES)}, got {measure!r}")
    cols = [f"{measure}_{s}" for s in ("mean", "ci_low", "ci_high", "ci_low_naive", "ci_high_naive")]
    frame = _one_model(table, ["feature", *cols], "learner-PFI table")
    if frame["feature"].duplicated().any():
        raise ValueError("a feature appears twice in the learner-PFI table")
    xlabel, ref = _MEASURES[measure]
    return interval_bars(frame, cols, ref=ref, xlabel=xlabel, label="learner-PFI", show_naive=show_naive, title=title)


def interval_bars(
    frame: pd.DataFrame,
    columns: Sequence[str],
    *,
    ref: float,
    xlabel: str,
    label: str,
    show_naive: bool = True,
    title: str | None = None,
):
    """Bars of one value per variable with corrected (thin, capped) and naive (thick) intervals.

    Parameters
    ----------
    frame : DataFrame
        One row per variable (``feature``), one model.
    columns : sequence of 5 str
        The columns of the value, corrected interval ends and naive interval ends, in that order.
    ref : float
        Where the bars start (the value of no importance).
    xlabel, label : str
        Axis label; the bars' legend label.
    show_naive : bool, default True
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
        Largest value on top.
    """
    import matplotlib.pyplot as plt

    order = np.argsort(-frame[columns[0]].to_numpy(dtype=float), kind="stable")
    f = frame.iloc[order]
    names = f["feature"].astype(str).tolist()
    m, lo, hi, nlo, nhi = (f[c].to_numpy(dtype=float) for c in columns)
    y = np.arange(len(names))
    fig, ax = plt.subplots(figsize=(6.3, 0.45 * len(names) + 1.4))
    ax.barh(y, m - ref, left=ref, color=BAND_COLOUR, alpha=0.35, height=0.7, label=label)
    ax.errorbar(
        m, y, xerr=[m - lo, hi - m], fmt="none", ecolor=MEAN_COLOUR, elinewidth=0.9, capsize=3, label="corrected CI"
    )
    if show_naive:
        ax.errorbar(
            m, y, xerr=[m - nlo, nhi - m], fmt="none", ecolor=MEAN_COLOUR, elinewidth=3.5, capsize=0, label="naive CI"
        )
    ax.axvline(ref, color="0.3", linestyle="--", linewidth=0.8)
    ax.set_yticks(y, names)
    ax.set_ylim(len(names) - 0.5, -0.5)
    ax.set_xlabel(xlabel)
    ax.legend(loc="lower right")
    info = _info(frame)
    if title or info:
        ax.set_title((title + "\n" if title else "") + info)
    fig.tight_layout()
    return fig


def learner_figures(
    pd_table: pd.DataFrame, pfi: pd.DataFrame, *, title: str = "", coverage: dict | None = None
) -> dict[str, Figure]:
    """The ``learner_figures`` rule: learner-PD bands and learner-PFI bars.

    Parameters
    ----------
    pd_table, pfi : DataFrame
        ``learner_pd.csv``, ``learner_pfi.csv`` of one model.
    title : str
    coverage : dict kind -> str, optional
        The intervals' coverage on the dataset's twin, one line per figure kind, where the twin audit
        has run (None: the figures as before).

    Returns
    -------
    dict
        ``learner_pd``, ``learner_pfi`` -> Figure.
    """
    return {
        "learner_pd": plot_learner_pd(pd_table, title=with_coverage(f"{title}: learner-PD", coverage, "learner_pd")),
        "learner_pfi": plot_learner_pfi(pfi, title=with_coverage(f"{title}: learner-PFI", coverage, "learner_pfi")),
    }
