"""Figure of an EBM's own explanation: its main terms' shape functions with the bagged error bars and
the terms' importances.

Inputs are the tables of :func:`xaipipe.explain.glassbox.ebm_terms` (``ebm_terms.csv``,
``ebm_shapes.csv``), so the rule draws from the CSVs alone; the figure is drawn under the caller's
:func:`xaipipe.plots.style.figure_style`.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .units import with_unit

__all__ = ["plot_ebm_terms"]

#: Main terms drawn (the most important on the test rows).
MAX_TERMS = 8


def _draw_shape(ax, bins: pd.DataFrame, color: str, label: str | None):
    """One main term: a step function over continuous bins, points with bars for categorical levels."""
    if bins["level"].str.len().gt(0).all():
        x = np.arange(len(bins))
        ax.errorbar(x, bins["score"], yerr=bins["sd"], fmt="o", color=color, capsize=3, label=label)
        ax.set_xticks(x, bins["level"].astype(str), rotation=45, fontsize=7)
        return
    edges = np.r_[bins["x_lower"].to_numpy(float), bins["x_upper"].to_numpy(float)[-1]]
    score = np.r_[bins["score"].to_numpy(float), bins["score"].to_numpy(float)[-1]]
    lower = np.r_[bins["lower"].to_numpy(float), bins["lower"].to_numpy(float)[-1]]
    upper = np.r_[bins["upper"].to_numpy(float), bins["upper"].to_numpy(float)[-1]]
    ax.fill_between(edges, lower, upper, step="post", color=color, alpha=0.25, lw=0)
    ax.step(edges, score, where="post", color=color, lw=1.2, label=label)


def plot_ebm_terms(
    terms: pd.DataFrame,
    shapes: pd.DataFrame,
    *,
    title: str | None = None,
    target_unit: str | None = None,
    coverage: str | None = None,
):
    """The term importances (bars) and the shapes of the :data:`MAX_TERMS` most important main terms:
    score per bin (step function; a point per level of a categorical variable), shaded or barred
    ± one standard deviation over the outer bags (interpret's own error bars, not a confidence
    interval). A multiclass EBM draws one curve per class.

    Parameters
    ----------
    terms : DataFrame
        ``ebm_terms.csv`` (``term``, ``kind``, ``test_importance``, ``rank``).
    shapes : DataFrame
        ``ebm_shapes.csv`` (``term``, ``feature``, ``output``, ``class``, ``level``, ``x_lower``, ``x_upper``,
        ``score``, ``sd``, ``lower``, ``upper``, ``n_bags``).
    title : str, optional
    target_unit : str, optional
        The dataset's target unit (a regression EBM's score axis).
    coverage : str, optional
        The bars' coverage on the dataset's twin (:func:`xaipipe.studies.ebm_caption`), under the title.

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib.pyplot as plt

    # a CSV read back has NaN for the empty class / level cells of a regression EBM
    shapes = shapes.assign(**{c: shapes[c].fillna("").astype(str) for c in ("class", "level")})
    ranked = terms.sort_values("rank")
    mains = [t for t in ranked.loc[ranked["kind"] == "main", "term"] if t in set(shapes["term"])][:MAX_TERMS]
    n_panels = 1 + len(mains)
    n_cols = min(3, n_panels)
    n_rows = math.ceil(n_panels / n_cols)
    fig, axes = plt.subplots(n_rows, n_cols, figsize=(4.2 * n_cols, 3.2 * n_rows), squeeze=False)
    flat = axes.ravel()
    ax = flat[0]
    top = ranked.head(15).iloc[::-1]
    ax.barh(top["term"].astype(str), top["test_importance"], color="C0")
    ax.set(xlabel="mean |score| on the test rows", title="term importance")
    ax.tick_params(axis="y", labelsize=7)
    classes = [c for c in pd.unique(shapes["class"]) if c] or [""]
    n_bags = int(shapes["n_bags"].iloc[0]) if len(shapes) else 0
    for ax, term in zip(flat[1:], mains):
        rows = shapes[shapes["term"] == term]
        for k, cls in enumerate(classes):
            bins = rows[rows["class"] == cls] if cls else rows
            _draw_shape(ax, bins, f"C{k}", f"class {cls}" if cls else None)
        ax.axhline(0.0, color="0.6", lw=0.6)
        output = str(rows["output"].iloc[0])
        ylabel = "score (log-odds)" if output == "log_odds" else with_unit("score", output, target_unit)
        ax.set(xlabel=str(rows["feature"].iloc[0]), ylabel=ylabel)
        if len(classes) > 1:
            ax.legend(fontsize=7)
    for ax in flat[n_panels:]:
        ax.set_axis_off()
    band = f"band: ± 1 SD over {n_bags} outer bags (not a confidence interval)"
    if coverage:
        band += f"\n{coverage}"
    fig.suptitle(f"{title}\n{band}" if title else band, fontsize=9)
    fig.tight_layout()
    return fig
