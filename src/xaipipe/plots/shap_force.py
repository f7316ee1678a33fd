"""Force plots of 000 Figs 4.3-4.5 and the interactive stacked force plot (000 §4.2).

Seed 000 shows its local explanations as shap *force plots*: the SHAP values of
one row as arrows ("forces") that push the model output up (red) or down (blue)
from the base value ``E[f(X)]`` to ``f(x)`` (Lundberg & Lee 2017; Lundberg et al.
2018, Nat. Biomed. Eng. 2:749-760, where the layout was introduced).  The
pipeline's figure rules draw waterfall plots of the same numbers
(:mod:`xaipipe.plots.shap`); this module draws the force plots as printed:

* :func:`plot_shap_force` - one row, ``shap.plots.force(..., matplotlib=True)``;
* :func:`plot_shap_force_local` - the high / low / near-base rows of 000
  Figs 4.3-4.5, chosen by :func:`xaipipe.plots.shap.local_rows` (the rule
  the waterfall figures use: largest and smallest model output, and the output
  closest to its base value);
* :func:`save_force_html` - the interactive stacked force plot of all explained
  rows (000 §4.2, conclusions: "visualizar todos los Force Plots individuales de
  manera conjunta"), ``shap.save_html`` of ``shap.plots.force`` on many rows.
  The HTML embeds shap's JavaScript bundle in a ``<script>`` element, so the file
  opens offline; it loads nothing from the network.

Units: those of ``ShapResult.output`` (log-odds for XGBoost and gradient-boosting
classifiers, probability for trees and forests, the prediction for regressors),
named on the figure.  For the HTML page, ``link="logit"`` (log-odds results only)
keeps the forces in log-odds but labels the axis in probabilities, as shap does;
the matplotlib force plot does not offer it (shap 0.51 puts a logit-scaled axis
under log-odds positions there, which fails to draw).
"""

from __future__ import annotations

import os
import random
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from ..explain.shapley import ShapResult, level_labels
from .shap import LOCAL_ROW_KINDS, local_rows, row_title
from .style import figure_style

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["force_rows", "plot_shap_force", "plot_shap_force_local", "save_force_html"]

_KIND_TITLES = {"high": "high prediction", "low": "low prediction", "near_base": "prediction near the base value"}


def _check_result(result) -> None:
    if not isinstance(result, ShapResult):
        raise TypeError(f"expected a ShapResult, got {type(result).__name__}")


def _check_link(result: ShapResult, link: str) -> str:
    if link not in ("identity", "logit"):
        raise ValueError(f"link must be 'identity' or 'logit', got {link!r}")
    if link == "logit" and result.output != "log_odds":
        raise ValueError(f"link='logit' needs SHAP values in log-odds, this result is in {result.output!r}")
    return link


def _display_values(result: ShapResult, rows) -> np.ndarray:
    """Feature values of ``rows`` as shown next to each force (4 significant digits); a one-hot
    group of a grouped result shows its level label (the member column set to 1)."""
    shown = np.vectorize(lambda v: float(f"{v:.4g}"))(np.asarray(result.data[rows], dtype=float))
    labels = level_labels(result)
    if labels is None:
        return shown
    shown = shown.astype(object)
    grouped = labels[rows] != ""
    shown[grouped] = labels[rows][grouped]
    return shown


def force_rows(result: ShapResult) -> dict[str, int]:
    """Rows of 000 Figs 4.3-4.5: :func:`xaipipe.plots.shap.local_rows`.

    Returns
    -------
    dict
        ``{"high": i, "low": j, "near_base": k}``, positions in the result's arrays
        (``result.row_index[i]`` is the position in ``X``).
    """
    _check_result(result)
    return local_rows(result)


def plot_shap_force(
    result: ShapResult,
    row: int,
    *,
    contribution_threshold: float = 0.05,
    title: str | None = None,
    text_rotation: float = 30.0,
    figsize: tuple[float, float] = (14.0, 4.0),
):
    """Force plot of one explained row (000 Figs 4.3-4.5), ``shap.plots.force``.

    Parameters
    ----------
    result : ShapResult
    row : int
        Position in the result's arrays (e.g. from :func:`force_rows`).
    contribution_threshold : float, default=0.05
        Features whose |SHAP value| is below this fraction of the sum of all
        |SHAP values| are drawn without a label (shap's ``contribution_threshold``).
    title : str, optional
        Default: the row, its model output and the output space.
    text_rotation : float, default=30
        Angle of the feature labels (degrees): shap writes them on one line,
        where 30 features overlap unrotated.
    figsize : (float, float), default=(14, 4)
        Inches.

    Returns
    -------
    matplotlib.figure.Figure
        One axes; base value and ``f(x)`` annotated by shap.

    Raises
    ------
    ValueError
        ``row`` out of range or bad ``contribution_threshold``.
    """
    import matplotlib.pyplot as plt
    import shap

    _check_result(result)
    if isinstance(row, bool) or not isinstance(row, (int, np.integer)) or not 0 <= row < result.n_rows:
        raise ValueError(f"row must be an integer in [0, {result.n_rows}), got {row!r}")
    if not 0.0 <= float(contribution_threshold) < 1.0:
        raise ValueError(f"contribution_threshold must lie in [0, 1), got {contribution_threshold!r}")
    i = int(row)
    interactive = plt.isinteractive()  # shap.plots.force(show=False) switches interactive mode off
    with figure_style():
        fig = shap.plots.force(
            float(result.base_values[i]),
            result.values[i],
            _display_values(result, i),
            feature_names=list(result.feature_names),
            out_names="f(x)",
            matplotlib=True,
            show=False,
            figsize=figsize,
            contribution_threshold=float(contribution_threshold),
            text_rotation=float(text_rotation),
        )
        ax = fig.axes[0]
        label = title or (
            f"row {int(result.row_index[i])}: f(x) = {result.model_output[i]:.3g}, "
            f"base value = {result.base_values[i]:.3g}"
        )
        fig.suptitle(label, x=0.01, y=0.99, ha="left", va="top")
        ax.set_xlabel(f"model output ({result.output_label})")
    if interactive:
        plt.ion()
    return fig


def plot_shap_force_local(result: ShapResult, *, contribution_threshold: float = 0.05) -> dict[str, Figure]:
    """Force plots of the high, low and near-base rows of :func:`force_rows`.

    Returns
    -------
    dict
        ``{"high": Figure, "low": Figure, "near_base": Figure}`` (000 Figs 4.3, 4.4, 4.5).
    """
    rows = force_rows(result)
    return {
        kind: plot_shap_force(
            result,
            rows[kind],
            contribution_threshold=contribution_threshold,
            title=row_title(result, rows[kind], f"Force plot, {_KIND_TITLES[kind]}", result.output_label),
        )
        for kind in LOCAL_ROW_KINDS
    }


def save_force_html(
    result: ShapResult,
    path: str | os.PathLike,
    *,
    rows: Sequence[int] | None = None,
    link: str = "identity",
    random_state: int = 0,
) -> None:
    """Write the interactive stacked force plot of many rows to a self-contained HTML file.

    ``shap.save_html(path, shap.plots.force(base, values, data))``: one force plot
    per row, rotated and stacked side by side; the page lets the reader order
    the rows (by similarity, by output, by a feature) and pick the feature shown.
    The file embeds shap's JavaScript bundle inline (``<script>`` element, no
    ``src``), so it works offline.  Written atomically.

    Parameters
    ----------
    result : ShapResult
    path : path-like
        Output ``.html`` file.
    rows : sequence of int, optional
        Positions in the result's arrays; default all explained rows.
    link : {"identity", "logit"}, default="identity"
    random_state : int, default=0
        Seed of the element id shap draws from Python's global ``random`` (state
        restored afterwards): the same result gives the same bytes.

    Raises
    ------
    ValueError
        Rows out of range or empty, different base values across rows (a stacked
        plot has one base value), bad ``link``.
    """
    import shap

    from ..io import atomic_path

    _check_result(result)
    link = _check_link(result, link)
    idx = np.arange(result.n_rows) if rows is None else np.asarray(list(rows), dtype=np.int64)
    if idx.size == 0 or idx.min() < 0 or idx.max() >= result.n_rows:
        raise ValueError(f"rows must be non-empty positions in [0, {result.n_rows})")
    base = result.base_values[idx]
    if not np.allclose(base, base[0], rtol=1e-12, atol=1e-12):
        raise ValueError("the stacked force plot needs one base value; this result's base values differ by row")
    plot = shap.plots.force(
        float(base[0]),
        result.values[idx],
        _display_values(result, idx),
        feature_names=list(result.feature_names),
        out_names=f"f(x) ({result.output_label})",
        link=link,
    )
    saved = random.getstate()
    random.seed(random_state)
    try:
        with atomic_path(path) as tmp:
            shap.save_html(str(tmp), plot)
    finally:
        random.setstate(saved)
