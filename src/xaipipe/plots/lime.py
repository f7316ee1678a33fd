"""LIME weights beside SHAP values for the force-plot rows (000 §3.1 vs §3.3).

Input: the table of :func:`xaipipe.explain.lime.compare_lime_shap` (stored
results), one panel per explained row.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from .style import figure_style

__all__ = ["plot_lime_vs_shap"]

_OUTPUT_LABELS = {
    "log_odds": "log-odds of class 1",
    "probability": "probability of class 1",
    "prediction": "prediction",
}
_KIND_TITLES = {"high": "high prediction", "low": "low prediction", "near_base": "near the base value"}


def plot_lime_vs_shap(
    comparison: pd.DataFrame,
    rows: Mapping[str, int] | Sequence[int] | None = None,
    *,
    max_display: int = 10,
    title: str | None = None,
):
    """Paired horizontal bars: LIME weight and SHAP value of each feature, one panel per row.

    Parameters
    ----------
    comparison : DataFrame
        Output of :func:`xaipipe.explain.lime.compare_lime_shap`.
    rows : mapping label -> row, sequence of rows, or None
        ``row`` values (positions in ``X``) to draw, e.g. ``{"high": 164, "low": 140,
        "near_base": 14}`` for the force-plot rows (labels ``high`` / ``low`` /
        ``near_base`` get the 000 titles); default every row of the table.
    max_display : int, default=10
        Features per panel: the largest |SHAP value| first.
    title : str, optional
        Figure title.

    Returns
    -------
    matplotlib.figure.Figure
        One axes per row; x label "contribution (<output>)"; each panel's title
        gives ``f(x)``, LIME's ``g(x)`` and its gap ``|g(x) - f(x)|``, and
        ``phi_0 + sum phi``.

    Raises
    ------
    ValueError
        Missing columns, rows not in the table, bad ``max_display``.
    """
    import matplotlib.pyplot as plt

    need = {
        "row",
        "feature",
        "condition",
        "lime_weight",
        "shap_value",
        "model_output",
        "lime_local_prediction",
        "lime_local_accuracy_gap",
        "shap_sum",
        "output",
    }
    if not isinstance(comparison, pd.DataFrame) or not need <= set(comparison.columns):
        missing = sorted(need - set(getattr(comparison, "columns", [])))
        raise ValueError(f"comparison must be compare_lime_shap's table; missing columns {missing}")
    if isinstance(max_display, bool) or not isinstance(max_display, (int, np.integer)) or max_display < 1:
        raise ValueError(f"max_display must be a positive integer, got {max_display!r}")
    if rows is None:
        labelled = [(None, int(r)) for r in pd.unique(comparison["row"])]
    elif isinstance(rows, Mapping):
        labelled = [(str(k), int(v)) for k, v in rows.items()]
    else:
        labelled = [(None, int(r)) for r in rows]
    present = set(comparison["row"].astype(int))
    absent = [r for _, r in labelled if r not in present]
    if absent or not labelled:
        raise ValueError(f"rows {absent} are not in the comparison table" if absent else "no rows to draw")
    output = str(comparison["output"].iloc[0])
    unit = _OUTPUT_LABELS.get(output, output)
    k = min(int(max_display), int(comparison.groupby("row").size().min()))
    with figure_style():
        fig, axes = plt.subplots(
            1, len(labelled), figsize=(4.6 * len(labelled), 0.42 * k + 1.9), squeeze=False, layout="constrained"
        )
        colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
        for ax, (label, r) in zip(axes[0], labelled):
            g = comparison[comparison["row"].astype(int) == r]
            g = g.iloc[np.argsort(-np.abs(g["shap_value"].to_numpy()), kind="stable")[:k]][::-1]
            y = np.arange(len(g))
            ax.barh(y + 0.2, g["shap_value"], height=0.4, color=colors[0], label="SHAP value")
            ax.barh(y - 0.2, g["lime_weight"], height=0.4, color=colors[1 % len(colors)], label="LIME weight")
            ax.set_yticks(y, list(g["condition"]))
            ax.axvline(0.0, color="0.3", linewidth=0.6)
            ax.set_xlabel(f"contribution ({unit})")
            first = g.iloc[0]
            head = f"{_KIND_TITLES.get(label, label)} - " if label else ""
            ax.set_title(
                f"{head}row {r}\n"
                f"f(x) = {first['model_output']:.3g}; SHAP: base + sum = {first['shap_sum']:.3g}\n"
                f"LIME: g(x) = {first['lime_local_prediction']:.3g} "
                f"(|g(x) - f(x)| = {first['lime_local_accuracy_gap']:.2g})",
                fontsize="small",
                loc="left",
            )
        axes[0][0].legend(loc="lower right", fontsize="small")
        if title:
            fig.suptitle(title)
    return fig
