"""Figures of interaction strength: the SHAP interaction matrix (heatmap), the strongest SHAP
interaction pairs, and Friedman's H² with its bootstrap standard error.

Every function returns a :class:`matplotlib.figure.Figure` drawn under
:func:`xaipipe.plots.style.figure_style`; save it with :func:`xaipipe.plots.style.save_figure`.
Inputs are the library's results (:mod:`xaipipe.explain.interactions`) or their ``to_frame()``
tables, so a figure rule can draw from the CSV alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..explain.interactions import ShapInteractionSummary
from .style import SEQUENTIAL_CMAP, figure_style

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "plot_shap_interaction_matrix",
    "plot_shap_interaction_summary",
    "plot_h_statistic",
    "h_statistic_figures",
    "shap_interaction_figures",
]


def _max_display(k) -> int:
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"max_display must be a positive integer, got {k!r}")
    return int(k)


def _summary(summary) -> ShapInteractionSummary:
    if not isinstance(summary, ShapInteractionSummary):
        raise TypeError(f"expected a ShapInteractionSummary, got {type(summary).__name__}")
    return summary


def plot_shap_interaction_matrix(
    summary: ShapInteractionSummary,
    *,
    max_display: int = 15,
    include_main_effects: bool = False,
    output_label: str = "model output",
    title: str | None = None,
):
    """Heatmap of mean |SHAP interaction value| per pair of features.

    Parameters
    ----------
    summary : ShapInteractionSummary
        :func:`xaipipe.explain.interactions.shap_interaction_summary`.
    max_display : int, default 15
        The features with the largest total interaction (row sums without the diagonal) are drawn.
    include_main_effects : bool, default False
        Colour the diagonal (main effects) too; otherwise it is blank, so the scale shows the
        interactions.
    output_label : str
        Units of the SHAP values, for the colour bar.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    TypeError, ValueError
        Not a summary; ``max_display < 1``.
    """
    import matplotlib.pyplot as plt

    s = _summary(summary)
    k = _max_display(max_display)
    M = s.matrix.to_numpy(dtype=float)
    off = M - np.diag(np.diag(M))
    order = np.argsort(-off.sum(axis=1), kind="stable")[:k]
    names = [s.matrix.index[i] for i in order]
    A = M[np.ix_(order, order)].copy()
    if not include_main_effects:
        np.fill_diagonal(A, np.nan)
    with figure_style():
        size = 1.6 + 0.42 * len(names)
        fig, ax = plt.subplots(figsize=(size + 1.2, size))
        im = ax.imshow(A, cmap=SEQUENTIAL_CMAP, vmin=0)
        ax.set_xticks(np.arange(len(names)), names, rotation=45, ha="right")
        ax.set_yticks(np.arange(len(names)), names)
        if len(names) <= 12:
            finite = A[np.isfinite(A)]
            mid = (finite.max() / 2) if finite.size else 0
            for i in range(len(names)):
                for j in range(len(names)):
                    if np.isfinite(A[i, j]):
                        ax.text(
                            j,
                            i,
                            f"{A[i, j]:.2g}",
                            ha="center",
                            va="center",
                            fontsize=6,
                            color="white" if A[i, j] < mid else "black",
                        )
        cbar = fig.colorbar(im, ax=ax, fraction=0.046)
        cbar.set_label(f"mean |SHAP interaction value| ({output_label})")
        if title:
            ax.set_title(title)
        fig.tight_layout()
    return fig


def plot_shap_interaction_summary(
    summary: ShapInteractionSummary | pd.DataFrame,
    *,
    max_display: int = 15,
    output_label: str = "model output",
    title: str | None = None,
):
    """Horizontal bars of the strongest pairs by mean |SHAP interaction value| (whole pair, ``2 Φ_jk``).

    Parameters
    ----------
    summary : ShapInteractionSummary or DataFrame
        The summary or its ``to_frame()`` table (``feature_1``, ``feature_2``, ``mean_abs_pair``).
    max_display : int, default 15
    output_label : str
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib.pyplot as plt

    table = summary.to_frame() if isinstance(summary, ShapInteractionSummary) else summary
    need = {"feature_1", "feature_2", "mean_abs_pair"}
    if not isinstance(table, pd.DataFrame) or not need <= set(table.columns):
        raise ValueError(f"expected a ShapInteractionSummary or a table with columns {sorted(need)}")
    top = table.sort_values("mean_abs_pair", ascending=False, kind="stable").head(_max_display(max_display))
    labels = [f"{a} × {b}" for a, b in zip(top["feature_1"], top["feature_2"])]
    with figure_style():
        fig, ax = plt.subplots(figsize=(6.3, 0.3 * len(labels) + 1.2))
        y = np.arange(len(labels))[::-1]
        ax.barh(y, top["mean_abs_pair"].to_numpy(dtype=float), color="C0")
        ax.set_yticks(y, labels)
        ax.set_xlabel(f"mean |SHAP interaction| of the pair ({output_label})")
        if title:
            ax.set_title(title)
        fig.tight_layout()
    return fig


def plot_h_statistic(result, *, kind: str = "total", max_display: int = 15, unnormalised: bool = False, title=None):
    """Friedman's H² per variable (``kind="total"``) or pair (``"pairwise"``) with ±2 bootstrap SE.

    Parameters
    ----------
    result : HStatisticResult or DataFrame
        :func:`xaipipe.explain.interactions.h_statistic` or its ``to_frame()``.
    kind : {"total", "pairwise"}
    max_display : int, default 15
    unnormalised : bool, default False
        Draw ``h2_unnormalised`` (squared output units) instead of H².
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        Unknown ``kind``; no rows of that kind.
    """
    import matplotlib.pyplot as plt

    if kind not in ("total", "pairwise"):
        raise ValueError(f"kind must be 'total' or 'pairwise', got {kind!r}")
    table = result if isinstance(result, pd.DataFrame) else result.to_frame()
    part = table[table["kind"] == kind]
    if part.empty:
        raise ValueError(f"no {kind} H-statistics to draw")
    col = "h2_unnormalised" if unnormalised else "h2"
    part = part.sort_values(col, ascending=False, kind="stable").head(_max_display(max_display))
    labels = [str(v).replace(":", " × ") for v in part["feature"]]
    with figure_style():
        fig, ax = plt.subplots(figsize=(6.3, 0.3 * len(labels) + 1.2))
        y = np.arange(len(labels))[::-1]
        se = part[f"{col}_se"].to_numpy(dtype=float)
        ax.barh(y, part[col].to_numpy(dtype=float), xerr=None if np.isnan(se).all() else 2 * se, color="C1")
        ax.set_yticks(y, labels)
        n = int(part["n_rows"].iloc[0])
        ax.set_xlabel(("unnormalised H²" if unnormalised else "Friedman's H²") + f" ({n} rows; bars ±2 SE)")
        if title:
            ax.set_title(title)
        fig.tight_layout()
    return fig


def h_statistic_figures(table: pd.DataFrame, *, max_display: int = 15, title: str | None = None) -> dict[str, Figure]:
    """The H² figures of one model (``h_statistic.csv``): ``h_statistic`` (total per variable) and
    ``h_statistic_pairs`` (pairwise); a figure saying so replaces one without rows (e.g. fewer than two
    top variables, so no pair)."""
    import matplotlib.pyplot as plt

    out = {}
    for key, kind in (("h_statistic", "total"), ("h_statistic_pairs", "pairwise")):
        if (table["kind"] == kind).any():
            out[key] = plot_h_statistic(table, kind=kind, max_display=max_display, title=title)
        else:
            with figure_style():
                fig, ax = plt.subplots(figsize=(5, 2))
                ax.text(0.5, 0.5, f"no {kind} H-statistic", ha="center", va="center")
                ax.set_axis_off()
            out[key] = fig
    return out


def shap_interaction_figures(
    summary: ShapInteractionSummary | None, *, max_display: int = 15, output_label: str = "model output", title=None
) -> dict[str, Figure]:
    """The SHAP interaction figures of one model: ``matrix`` (:func:`plot_shap_interaction_matrix`) and
    ``summary`` (:func:`plot_shap_interaction_summary`); figures saying so when the model has no SHAP
    interaction values (``summary`` None)."""
    import matplotlib.pyplot as plt

    if summary is None:
        out = {}
        for key in ("matrix", "summary"):
            with figure_style():
                fig, ax = plt.subplots(figsize=(5, 2))
                ax.text(0.5, 0.5, "no SHAP interaction values for this model", ha="center", va="center")
                ax.set_axis_off()
            out[key] = fig
        return out
    kw = {"max_display": max_display, "output_label": output_label, "title": title}
    return {
        "matrix": plot_shap_interaction_matrix(summary, **kw),
        "summary": plot_shap_interaction_summary(summary, **kw),
    }
