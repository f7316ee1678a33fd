"""Figure of the regional effects of a fitted model: per split variable, its PD on all rows and in
each region of the first split, the rule and the heterogeneity explained.

Inputs are the tables of :func:`xaipipe.explain.pdp.regional_effects` (``regional_effects.csv``,
``regional_curves.csv``), so the rule draws from the CSVs alone; the figure is drawn under the
caller's :func:`xaipipe.plots.style.figure_style`.
"""

from __future__ import annotations

import pandas as pd

from .units import with_unit

__all__ = ["plot_regional_effects"]


def plot_regional_effects(
    regions: pd.DataFrame, curves: pd.DataFrame, *, title: str | None = None, target_unit: str | None = None
):
    """One panel per split variable: its PD on all rows (black, dashed) and in each region of the
    first split (coloured; legend: the rule, its rows and heterogeneity), the panel's title the share
    of the heterogeneity its leaves explain. Without a split variable (every ICE curve parallel, e.g.
    an additive model) one panel says so.

    Parameters
    ----------
    regions : DataFrame
        ``regional_effects.csv`` (``feature``, ``region``, ``level``, ``rule``, ``n_rows``,
        ``heterogeneity``, ``explained``).
    curves : DataFrame
        ``regional_curves.csv`` (``feature``, ``region``, ``x``, ``pd``).
    title : str, optional
    target_unit : str, optional
        The dataset's target unit (the PD axis).

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib.pyplot as plt

    features = list(pd.unique(regions["feature"])) if len(regions) else []
    fig, axes = plt.subplots(1, max(1, len(features)), figsize=(4.6 * max(1, len(features)), 3.6), squeeze=False)
    if not features:
        ax = axes[0, 0]
        ax.text(0.5, 0.5, "no variable's ICE curves fan out:\nno region to split", ha="center", va="center")
        ax.set_axis_off()
    for ax, feature in zip(axes[0], features):
        reg = regions[regions["feature"] == feature]
        cur = curves[curves["feature"] == feature]
        root = cur[cur["region"] == 0]
        ax.plot(
            root["x"],
            root["pd"],
            color="k",
            ls="--",
            lw=1.2,
            label=f"all rows (H = {reg['heterogeneity'].iloc[0]:.3g})",
        )
        for k, r in enumerate(reg[reg["level"] == 1].itertuples(index=False)):
            c = cur[cur["region"] == r.region]
            ax.plot(c["x"], c["pd"], color=f"C{k}", label=f"{r.rule} (n = {r.n_rows}, H = {r.heterogeneity:.3g})")
        explained = float(reg["explained"].iloc[0])
        ax.set(
            xlabel=feature,
            ylabel=with_unit("centred PD", "prediction", target_unit),
            title=f"{feature}: {explained:.0%} of the heterogeneity explained",
        )
        ax.legend(fontsize=7)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig
