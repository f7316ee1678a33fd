"""Figure of the Rashomon prediction intervals of a regression dataset: coverage and width against ε
for the exact linear set (a path of slacks; the kink where its range alone covers the level) and for
every grid scope (the ε grid).

Input is ``prediction_intervals.csv`` of
:func:`xaipipe.rashomon.prediction_intervals.prediction_interval_tables`, so the rule draws from the CSV
alone; the figure is drawn under the caller's :func:`xaipipe.plots.style.figure_style`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..rashomon.linear import LINEAR_EXACT
from .units import epsilon_label, with_unit

__all__ = ["kink_slack", "plot_prediction_intervals"]


def kink_slack(path: pd.DataFrame) -> float:
    """The smallest relative slack of the exact linear path whose mean conformal correction is <= 0
    (the range alone covers the level; beyond it the interval is the range): NaN when none is.

    Parameters
    ----------
    path : DataFrame
        Rows of ``prediction_intervals.csv`` of one dataset's ``linear_exact`` scope
        (``relative_slack``, ``correction``).
    """
    p = path.sort_values("relative_slack")
    hit = p[p["correction"].to_numpy(dtype=float) <= 0]
    return float(hit["relative_slack"].iloc[0]) if len(hit) else float("nan")


def plot_prediction_intervals(intervals: pd.DataFrame, *, title: str | None = None, target_unit: str | None = None):
    """Left: the exact linear set's mean interval width (solid) and range width (dashed) against the
    relative slack δ / e_min, the kink (:func:`kink_slack`) dotted, the ε grid's points as dots.
    Middle: the same set's coverage (mean over the calibration halvings, ± their SD shaded) and the
    bare range's coverage (dashed) against the nominal level. Right: every grid scope's interval
    width (solid) and range width (dashed) on the ε grid, the coverage at each ε in the legend's
    range.

    Parameters
    ----------
    intervals : DataFrame
        ``prediction_intervals.csv`` of one dataset (``scope``, ``epsilon``, ``relative_slack``,
        ``width``, ``range_width``, ``coverage``, ``coverage_sd``, ``range_coverage``, ``correction``,
        ``level``, ``epsilon_mode``).
    title : str, optional
    target_unit : str, optional
        The dataset's target unit (the width axes).

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        An empty table.
    """
    import matplotlib.pyplot as plt

    if intervals.empty:
        raise ValueError("the prediction-interval table has no rows")
    t = intervals
    level = float(t["level"].iloc[0])
    width_label = with_unit("mean width", "prediction", target_unit)
    fig, (ax, bx, cx) = plt.subplots(1, 3, figsize=(12.0, 3.6))
    lin = t[t["scope"] == LINEAR_EXACT]
    path = lin[lin["epsilon"].isna()].sort_values("relative_slack")
    grid = lin[lin["epsilon"].notna()].sort_values("relative_slack")
    if len(path):
        x = path["relative_slack"].to_numpy(dtype=float)
        ax.plot(x, path["width"], color="C0", label="interval")
        ax.plot(x, path["range_width"], color="C0", ls="--", label="range of the set")
        ax.plot(grid["relative_slack"], grid["width"], "o", color="C3", ms=4, label="ε grid")
        kink = kink_slack(path)
        if np.isfinite(kink):
            for a in (ax, bx):
                a.axvline(kink, color="0.4", ls=":", lw=1)
            ax.annotate(
                "range covers alone", (kink, ax.get_ylim()[0]), xytext=(3, 3), textcoords="offset points", fontsize=7
            )
        cov, sd = path["coverage"].to_numpy(dtype=float), path["coverage_sd"].to_numpy(dtype=float)
        bx.plot(x, cov, color="C0", label="interval")
        bx.fill_between(x, cov - sd, cov + sd, color="C0", alpha=0.2, lw=0)
        bx.plot(x, path["range_coverage"], color="C0", ls="--", label="range of the set")
    bx.axhline(level, color="k", lw=0.8, label=f"nominal {level:g}")
    ax.set(xlabel="relative slack δ / e_min (training MSE)", ylabel=width_label, title="all linear models (exact)")
    bx.set(xlabel="relative slack δ / e_min (training MSE)", ylabel="coverage of the test rows", ylim=(0, 1.02))
    ax.legend(fontsize=7)
    bx.legend(fontsize=7, loc="lower right")
    scopes = [s for s in pd.unique(t["scope"]) if s != LINEAR_EXACT]
    for k, scope in enumerate(scopes):
        s = t[t["scope"] == scope].sort_values("epsilon")
        c = f"C{k % 10}"
        cov = s["coverage"].to_numpy(dtype=float)
        cx.plot(
            s["epsilon"], s["width"], "o-", color=c, ms=3, label=f"{scope} (coverage {cov.min():.2f}-{cov.max():.2f})"
        )
        cx.plot(s["epsilon"], s["range_width"], "--", color=c, lw=0.8)
    mode = str(t["epsilon_mode"].iloc[0]) if "epsilon_mode" in t else None
    cx.set(xlabel=epsilon_label(mode), ylabel=width_label, title="grid scopes (dashed: range)")
    if scopes:
        cx.legend(fontsize=6)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig
