"""Figures of the data and model steps (the explain / rashomon figures live beside their code)."""

from __future__ import annotations

import pandas as pd

from .style import DIVERGING_CMAP

__all__ = ["plot_correlation"]


def plot_correlation(corr: pd.DataFrame, title: str | None = None):
    """Annotated heatmap of a correlation matrix (thesis Figs 5.1, 5.4, 5.7).

    Parameters
    ----------
    corr : DataFrame
        Output of :func:`xaipipe.data.preparation.correlation_matrix` (a
        ``variable`` column followed by the square matrix).
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib.pyplot as plt

    names = corr["variable"].tolist() if "variable" in corr else list(corr.columns)
    values = corr[names].to_numpy(dtype=float)
    n = len(names)
    size = max(3.5, 0.45 * n + 1.5)
    fig, ax = plt.subplots(figsize=(size + 1.0, size))
    im = ax.imshow(values, cmap=DIVERGING_CMAP, vmin=-1, vmax=1)
    ax.set_xticks(range(n), names, rotation=60, ha="right")
    ax.set_yticks(range(n), names)
    if n <= 16:
        for i in range(n):
            for j in range(n):
                v = values[i, j]
                ax.text(
                    j, i, f"{v:.2f}", ha="center", va="center", fontsize=6.5, color="white" if abs(v) > 0.6 else "black"
                )
    fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04, label="Pearson correlation")
    if title:
        ax.set_title(title)
    ax.spines[:].set_visible(False)
    return fig
