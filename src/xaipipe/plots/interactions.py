"""Figures of interaction strength: the SHAP interaction matrix (heatmap), the strongest SHAP
interaction pairs, the main-effect vs interaction dependence plots of the strongest pair, and
Friedman's H² with its bootstrap standard error.

Every function returns a :class:`matplotlib.figure.Figure` drawn under
:func:`xaipipe.plots.style.figure_style`; save it with :func:`xaipipe.plots.style.save_figure`.
Inputs are the library's results (:mod:`xaipipe.explain.pdp`) or their ``to_frame()``
tables, so a figure rule can draw from the CSV alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..explain.shapley import ShapInteractionSummary
from ._common import annotate_cells, with_coverage
from .style import SEQUENTIAL_CMAP, figure_style

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "plot_shap_interaction_matrix",
    "plot_shap_interaction_summary",
    "plot_h_statistic",
    "plot_shap_interaction_dependence",
    "strongest_shap_pair",
    "h_statistic_figures",
    "shap_interaction_figures",
]


#: Colour (Okabe-Ito vermillion) and note of an H² above 1 in :func:`plot_h_statistic`.
H2_ABOVE_ONE_COLOUR = "#D55E00"
H2_ABOVE_ONE_NOTE = "hatched: H² > 1, inherits PD's extrapolation under correlated features"


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
        :func:`xaipipe.explain.shapley.shap_interaction_summary`.
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
        The features x features heatmap (top ``max_display`` by total interaction) with a colour
        bar; the values are written in the cells when at most 12 features are drawn.

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
            annotate_cells(ax, A, lambda v: f"{v:.2g}", lambda v: v < mid)
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

    H² is a share of the variance of a PD (Friedman & Popescu 2008, eqs. 44-46) and lies in [0, 1]
    when the PDs are those of the data's distribution; estimated from PDs that average the model
    over rows the data never hold (a variable moved away from its correlates), it can exceed 1. Such
    bars (``h2 > 1``, computed from the value itself) are hatched in vermillion and a note says why:
    the estimate inherits PD's extrapolation under correlated features.

    Parameters
    ----------
    result : HStatisticResult or DataFrame
        :func:`xaipipe.explain.pdp.h_statistic` or its ``to_frame()``.
    kind : {"total", "pairwise"}
    max_display : int, default 15
    unnormalised : bool, default False
        Draw ``h2_unnormalised`` (squared output units) instead of H².
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
        One horizontal bar (± 2 SE) per variable or pair, largest on top.

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
        values = part[col].to_numpy(dtype=float)
        bars = ax.barh(y, values, xerr=None if np.isnan(se).all() else 2 * se, color="C1")
        ax.set_yticks(y, labels)
        n = int(part["n_rows"].iloc[0])
        xlabel = ("unnormalised H²" if unnormalised else "Friedman's H²") + f" ({n} rows; bars ±2 SE)"
        above = np.flatnonzero(values > 1.0) if not unnormalised else np.array([], dtype=int)
        if above.size:
            for i in above:
                bars[i].set_facecolor(H2_ABOVE_ONE_COLOUR)
                bars[i].set_hatch("///")
            ax.axvline(1.0, color="0.3", linestyle=":", linewidth=0.8)
            xlabel += "\n" + H2_ABOVE_ONE_NOTE
        ax.set_xlabel(xlabel)
        if title:
            ax.set_title(title)
        fig.tight_layout()
    return fig


def h_statistic_figures(
    table: pd.DataFrame, *, max_display: int = 15, title: str | None = None, coverage: dict | None = None
) -> dict[str, Figure]:
    """The H² figures of one model (``h_statistic.csv``): ``h_statistic`` (total per variable) and
    ``h_statistic_pairs`` (pairwise); a figure saying so replaces one without rows (e.g. fewer than two
    top variables, so no pair). ``coverage``: a caption line per figure (the bootstrap SE's coverage
    on the dataset's twin, :func:`xaipipe.studies.twin_table.importance_captions`) below the title."""
    import matplotlib.pyplot as plt

    out = {}
    for key, kind in (("h_statistic", "total"), ("h_statistic_pairs", "pairwise")):
        if (table["kind"] == kind).any():
            out[key] = plot_h_statistic(
                table, kind=kind, max_display=max_display, title=with_coverage(title, coverage, key)
            )
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


def strongest_shap_pair(interaction_values, values) -> tuple[int, int]:
    """The pair ``(j, k)`` of largest mean |SHAP interaction value|, ``j`` the one of larger mean |SHAP|.

    Parameters
    ----------
    interaction_values : ndarray of shape (n, p, p)
        SHAP interaction values :math:`\\Phi_{i,jk}` (Lundberg et al. 2020), ``p >= 2``.
    values : ndarray of shape (n, p)
        SHAP values (the order within the pair).

    Returns
    -------
    (int, int)
        Ties: the first pair in row-major order of the upper triangle.

    Raises
    ------
    ValueError
        Fewer than two features, or mismatched shapes.
    """
    Phi = np.asarray(interaction_values, dtype=float)
    V = np.asarray(values, dtype=float)
    if Phi.ndim != 3 or Phi.shape[1] != Phi.shape[2] or Phi.shape[1] < 2 or V.shape != Phi.shape[:2]:
        raise ValueError(f"need interaction values (n, p, p) with p >= 2 and values (n, p), got {Phi.shape}, {V.shape}")
    M = np.abs(Phi).mean(axis=0)
    iu = np.triu_indices(M.shape[0], k=1)
    q = int(np.argmax(M[iu]))
    j, k = int(iu[0][q]), int(iu[1][q])
    strength = np.abs(V).mean(axis=0)
    return (j, k) if strength[j] >= strength[k] else (k, j)


def _feature_axis(ax, result, j: int) -> np.ndarray:
    """x values of feature ``j`` (a one-hot group: its level codes, jittered, levels as tick labels)."""
    x = np.asarray(result.data[:, j], dtype=float)
    levels = getattr(result, "levels", {}).get(result.feature_names[j])
    if levels is None:
        ax.set_xlabel(result.feature_names[j])
        return x
    ax.set_xticks(np.arange(len(levels)), list(levels), rotation=30 if len(levels) > 3 else 0)
    ax.set_xlabel(result.feature_names[j])
    return x + np.random.default_rng(0).uniform(-0.15, 0.15, size=x.size)


def plot_shap_interaction_dependence(result, *, title: str = "", figure_class=None, target_unit: str | None = None):
    """Main-effect vs interaction dependence plots of the strongest SHAP interaction pair.

    Lundberg et al. (2020, Nat. Mach. Intell. 2:56-67, Fig. 5; shap's ``dependence_plot`` with an
    interaction index): a SHAP value splits into a main effect and interactions,
    :math:`\\phi_j = \\Phi_{jj} + \\sum_{k \\ne j} \\Phi_{jk}`. For the pair ``(j, k)`` of largest
    mean :math:`|\\Phi_{jk}|` (:func:`strongest_shap_pair`), one row per variable of the pair, against
    its value: the SHAP value :math:`\\phi_j` (as in seed 000's dependence plots, Fig. 4.8), the main
    effect :math:`\\Phi_{jj}` and the pair's interaction :math:`2\\Phi_{jk}` (:math:`\\Phi_{jk} =
    \\Phi_{kj}` is half of it), coloured by the other variable's value; the rows share their y scale.

    Parameters
    ----------
    result : ShapResult or ShapClasses
        With ``interaction_values`` (XGBoost's ``pred_contribs``, config ``explain.shap.interactions``);
        a multiclass model's ``figure_class`` (default its first class) is drawn.
    title : str
    figure_class : str, optional
    target_unit : str, optional
        The dataset's ``target_unit`` (registry) on the y axes (:func:`xaipipe.plots.units.with_unit`).

    Returns
    -------
    matplotlib.figure.Figure
        A figure saying so when the result has no interaction values or fewer than two variables.
    """
    import matplotlib.pyplot as plt

    from ..explain.shapley import class_result
    from .units import with_unit

    one = class_result(result, figure_class)
    if one.interaction_values is None or one.n_features < 2:
        with figure_style():
            fig, ax = plt.subplots(figsize=(5, 2))
            ax.text(
                0.5,
                0.5,
                "no SHAP interaction values for this model\n(explain.shap.interactions: XGBoost)",
                ha="center",
                va="center",
            )
            ax.set_axis_off()
        return fig
    Phi = np.asarray(one.interaction_values, dtype=float)
    j, k = strongest_shap_pair(Phi, one.values)
    unit = with_unit(one.output_label, one.output, target_unit, inner=True)
    names = one.feature_names
    with figure_style():
        fig, axes = plt.subplots(2, 3, figsize=(10.2, 6.0), sharey="row", layout="constrained")
        for row, (a, b) in enumerate(((j, k), (k, j))):
            panels = (
                (one.values[:, a], f"SHAP value φ of {names[a]}"),
                (Phi[:, a, a], f"main effect Φ of {names[a]}"),
                (2.0 * Phi[:, a, b], f"interaction 2Φ of {names[a]} × {names[b]}"),
            )
            colour = np.asarray(one.data[:, b], dtype=float)
            for ax, (y, label) in zip(axes[row], panels):
                x = _feature_axis(ax, one, a)
                points = ax.scatter(x, y, c=colour, cmap=SEQUENTIAL_CMAP, s=8, linewidths=0)
                ax.axhline(0.0, color="0.5", linewidth=0.6, linestyle=":")
                ax.set_title(label, fontsize=8)
            axes[row, 0].set_ylabel(f"SHAP ({unit})")
            fig.colorbar(points, ax=list(axes[row]), label=names[b], fraction=0.03)
        fig.suptitle(
            (f"{title}: " if title else "")
            + f"main effect and interaction of the strongest SHAP pair ({names[j]} × {names[k]})",
            fontsize=9,
        )
    return fig
