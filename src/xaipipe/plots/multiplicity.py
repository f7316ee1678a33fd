"""Figure of predictive multiplicity over a Rashomon set: the test rows with the widest viable
prediction ranges, and multiplicity along ε of every scope (the exact ε-path, the ε grid marked).

Inputs are the tables of :func:`xaipipe.rashomon.multiplicity.multiplicity_tables`
(``multiplicity_rows.csv``, ``multiplicity.csv``, ``multiplicity_path.csv``), so the rule draws
from the CSVs alone; the figure is drawn under the caller's :func:`xaipipe.plots.style.figure_style`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .units import epsilon_label, with_unit

__all__ = ["plot_multiplicity"]


def plot_multiplicity(
    rows: pd.DataFrame,
    summary: pd.DataFrame,
    *,
    scope: str,
    max_rows: int = 20,
    title: str | None = None,
    path: pd.DataFrame | None = None,
    epsilon_mode: str | None = None,
    metric: str | None = None,
    target_unit: str | None = None,
):
    """Left: the ``max_rows`` test rows of ``scope`` with the widest viable prediction range at the
    default ε (range of the members' predictions or class-1 probabilities, the reference member's
    value as a dot, the observed response as a cross). Right: along ε, per scope, the mean width
    (regression) or the ambiguity (solid) and discrepancy (dashed) (classification): a step
    function over the exact ε-path (``path``: every ε at which a member enters, so every value the
    statistic takes up to the largest grid ε), with the ε grid's values as dots; without ``path``,
    the grid's points joined by lines.

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
    path : DataFrame, optional
        ``multiplicity_path.csv`` (``scope``, ``epsilon`` = a member's entry ε, the same columns).
    epsilon_mode : {"se", "relative", "absolute"}, optional
        The ε rule (config ``rashomon.epsilon_mode``), for the unit of the ε axis
        (:func:`xaipipe.plots.units.epsilon_label`).
    metric : str, optional
        The CV loss of the sets (config ``selection.<task>``), named in that unit.
    target_unit : str, optional
        The dataset's ``target_unit`` (registry) on the prediction axis.

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
    output = "proba" if task == "classification" else "predict"
    ax.set_xlabel(
        with_unit("predicted probability of class 1" if task == "classification" else "prediction", output, target_unit)
    )
    eps = float(part["epsilon"].iloc[0]) if "epsilon" in part else float("nan")
    ax.set_title(f"{scope}, ε = {eps:g}: widest {len(top)} rows", fontsize=9)
    ax.legend(frameon=False, fontsize=7, loc="lower right")
    columns = (("ambiguity", "-"), ("discrepancy", "--")) if task == "classification" else (("mean_width", "-"),)
    top_eps = float(summary["epsilon"].max())
    for i, (s, sub) in enumerate(summary.groupby("scope", sort=False)):
        sub = sub.sort_values("epsilon")
        colour = f"C{i % 10}"
        lw = 2.0 if s == scope else 1.0
        steps = None if path is None else path[path["scope"] == s].sort_values("epsilon", kind="stable")
        for c, (col, style) in enumerate(columns):
            label = s if c == 0 else None
            if steps is not None and len(steps):
                x = np.append(steps["epsilon"].to_numpy(dtype=float), top_eps)
                v = steps[col].to_numpy(dtype=float)
                bx.step(x, np.append(v, v[-1]), where="post", color=colour, lw=lw, ls=style, label=label)
                bx.plot(sub["epsilon"], sub[col], "o", color=colour, ms=3)
            elif c == 0:
                bx.plot(sub["epsilon"], sub[col], "-o", color=colour, lw=lw, ms=3, label=label)
            else:
                bx.plot(sub["epsilon"], sub[col], style, color=colour, lw=lw)
    default = summary[summary["is_default"].astype(bool)]["epsilon"]
    if len(default):
        bx.axvline(float(default.iloc[0]), color="0.5", lw=0.8, ls=":")
    bx.set_xlabel(
        epsilon_label(epsilon_mode, metric) + ("\n(steps: exact ε-path; dots: ε grid)" if path is not None else "")
    )
    bx.set_ylabel("ambiguity (—), discrepancy (--)" if task == "classification" else "mean width of the viable range")
    bx.legend(frameon=False, fontsize=6, ncol=1)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig
