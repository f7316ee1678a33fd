"""Figure of predictive multiplicity over a Rashomon set: the test rows with the widest viable
prediction ranges, and multiplicity along the ε grid of every scope.

Inputs are the tables of :func:`xaipipe.rashomon.multiplicity.multiplicity_tables`
(``multiplicity_rows.csv``, ``multiplicity.csv``), so the rule draws from the CSVs alone; the
figure is drawn under the caller's :func:`xaipipe.plots.style.figure_style`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["plot_multiplicity"]


def plot_multiplicity(
    rows: pd.DataFrame,
    summary: pd.DataFrame,
    *,
    scope: str,
    max_rows: int = 20,
    title: str | None = None,
):
    """Left: the ``max_rows`` test rows of ``scope`` with the widest viable prediction range at the
    default ε (range of the members' predictions or class-1 probabilities, the reference member's
    value as a dot, the observed response as a cross). Right: along the ε grid, per scope, the mean
    width (regression) or the ambiguity (solid) and discrepancy (dashed) (classification).

    Parameters
    ----------
    rows : DataFrame
        ``multiplicity_rows.csv`` (``scope``, ``row``, ``reference``, ``min``, ``max``, ``width``,
        ``y_true``).
    summary : DataFrame
        ``multiplicity.csv`` (``scope``, ``epsilon``, ``task``, ``mean_width``, ``ambiguity``,
        ``discrepancy``, ``is_default``).
    scope : str
        The scope of the left panel (config ``rashomon.figure_scope``; the first scope of ``rows``
        when it has no rows).
    max_rows : int, default 20
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        Empty tables; ``max_rows < 1``.
    """
    import matplotlib.pyplot as plt

    if rows.empty or summary.empty:
        raise ValueError("the multiplicity tables have no rows")
    if isinstance(max_rows, bool) or not isinstance(max_rows, (int, np.integer)) or max_rows < 1:
        raise ValueError(f"max_rows must be a positive integer, got {max_rows!r}")
    if scope not in set(rows["scope"]):
        scope = str(rows["scope"].iloc[0])
    part = rows[rows["scope"] == scope].sort_values(["width", "row"], ascending=[False, True], kind="stable")
    top = part.head(int(max_rows)).iloc[::-1]
    task = str(summary["task"].iloc[0])
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(9.4, max(3.2, 0.22 * len(top) + 1.4)), width_ratios=[1.3, 1])
    y = np.arange(len(top))
    ax.hlines(y, top["min"], top["max"], color="C0", lw=2.2, label="viable range")
    ax.plot(top["reference"], y, "o", color="black", ms=3.5, label="reference model")
    if "y_true" in top:
        ax.plot(top["y_true"], y, "x", color="C3", ms=4, label="observed")
    ax.set_yticks(y, [str(r) for r in top["row"]], fontsize=7)
    ax.set_ylabel("test row")
    ax.set_xlabel("predicted probability of class 1" if task == "classification" else "prediction")
    eps = float(part["epsilon"].iloc[0]) if "epsilon" in part else float("nan")
    ax.set_title(f"{scope}, ε = {eps:g}: widest {len(top)} rows", fontsize=9)
    ax.legend(frameon=False, fontsize=7, loc="lower right")
    for i, (s, sub) in enumerate(summary.groupby("scope", sort=False)):
        sub = sub.sort_values("epsilon")
        colour = f"C{i % 10}"
        lw = 2.0 if s == scope else 1.0
        if task == "classification":
            bx.plot(sub["epsilon"], sub["ambiguity"], "-o", color=colour, lw=lw, ms=3, label=s)
            bx.plot(sub["epsilon"], sub["discrepancy"], "--", color=colour, lw=lw)
        else:
            bx.plot(sub["epsilon"], sub["mean_width"], "-o", color=colour, lw=lw, ms=3, label=s)
    default = summary[summary["is_default"].astype(bool)]["epsilon"]
    if len(default):
        bx.axvline(float(default.iloc[0]), color="0.5", lw=0.8, ls=":")
    bx.set_xlabel("ε")
    bx.set_ylabel("ambiguity (—), discrepancy (--)" if task == "classification" else "mean width of the viable range")
    bx.legend(frameon=False, fontsize=6, ncol=1)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig
