"""Figure of the TreeFARMS scope: MCR over the exact set of sparse trees beside the grid's
``decision_tree`` set, per variable, and the set's size against ε.

Inputs are the tables of :func:`xaipipe.rashomon.treefarms.treefarms_scope` (``treefarms.csv``,
``treefarms_mcr.csv``), so the rule draws from the CSVs alone; the figure is drawn under the caller's
:func:`xaipipe.plots.style.figure_style`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["plot_treefarms"]


def plot_treefarms(
    summary: pd.DataFrame,
    mcr: pd.DataFrame,
    *,
    epsilon: float,
    title: str | None = None,
    quantity: str = "mr_difference",
    max_features: int = 15,
):
    """Left: per variable (the ``max_features`` of largest MCR⁺ over the exact set), MCR⁻..MCR⁺ of the
    ``quantity`` over the exact set (thick) and over the grid's ``decision_tree`` set (thin, where it
    has one) at ``epsilon``. Right: the exact set's trees and distinct test functions against ε (log
    scale).

    Parameters
    ----------
    summary, mcr : DataFrame
        ``treefarms.csv`` and ``treefarms_mcr.csv``.
    epsilon : float
        The ε of the left panel (``rashomon.epsilon``; the nearest of the table's when absent).
    title : str, optional
    quantity : {"mr_difference", "mr_ratio"}, default "mr_difference"
        (zero-one loss: the difference is a change in error rate, defined where the ratio is not).
    max_features : int, default 15

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        An empty summary (a multiclass dataset's one-row summary draws its note instead).
    """
    import matplotlib.pyplot as plt

    if summary.empty:
        raise ValueError("the TreeFARMS tables have no rows")
    if mcr.empty:  # a multiclass dataset: the summary's note says why there is no set
        fig, ax = plt.subplots(figsize=(6.0, 2.0))
        ax.text(0.5, 0.5, str(summary["note"].iloc[0]) if "note" in summary else "no set", ha="center", va="center")
        ax.set_axis_off()
        if title:
            fig.suptitle(title)
        return fig
    eps_all = np.unique(mcr["epsilon"].to_numpy(dtype=float))
    eps = float(eps_all[np.argmin(np.abs(eps_all - float(epsilon)))])
    part = mcr[(mcr["quantity"] == quantity) & np.isclose(mcr["epsilon"].to_numpy(dtype=float), eps)]
    part = part.sort_values("mcr_plus", ascending=False).head(int(max_features)).iloc[::-1]
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(10.0, max(3.4, 0.26 * len(part) + 1.4)), width_ratios=[1.5, 1])
    y = np.arange(len(part))
    ax.hlines(y + 0.15, part["mcr_minus"], part["mcr_plus"], color="C0", lw=5, label="exact set (TreeFARMS)")
    if "grid_mcr_minus" in part and part["grid_mcr_minus"].notna().any():
        ax.hlines(
            y - 0.15, part["grid_mcr_minus"], part["grid_mcr_plus"], color="C1", lw=2, label="grid (decision_tree)"
        )
    ax.set_yticks(y, part["feature"])
    ax.axvline(0, color="0.6", lw=0.8)
    ax.set(xlabel=f"MCR of {quantity} (zero-one loss, test split)", title=f"MCR at ε = {eps:g}")
    ax.legend(fontsize=7, loc="lower right")
    s = summary.sort_values("epsilon")
    bx.plot(s["epsilon"], s["n_trees"], "o-", label="trees in the set")
    bx.plot(s["epsilon"], s["n_distinct_functions"], "s--", label="distinct test functions (evaluated trees)")
    bx.set_yscale("log")
    bx.set(xlabel="ε (SE of the optimal tree's training error)", ylabel="count", title="size of the exact set")
    bx.legend(fontsize=7)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig
