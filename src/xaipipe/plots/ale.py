"""Figures of accumulated local effects (ALE) beside partial dependence (PD), and of the second-order ALE.

Inputs are the tables of :func:`xaipipe.explain.pdp.ale_tables` (``ale.csv``: per variable the
ALE and the PD on the same grid, both centred the same way; ``ale_2d.csv``), so a figure rule draws
from the CSVs alone. Every function returns a :class:`matplotlib.figure.Figure` drawn under the
caller's :func:`xaipipe.plots.style.figure_style`; save it with :func:`xaipipe.plots.style.save_figure`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ._common import finish, placeholder
from .pdp import OUTPUT_LABELS, PD_COLOUR
from .style import DIVERGING_CMAP
from .units import with_unit, wrap_label

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["ALE_COLOUR", "plot_pd_vs_ale", "plot_ale_2d", "populated_corners", "ale_figures"]

#: Colour of the ALE curves (bluish green of the Okabe-Ito palette; PD is black as in the PD/ICE figures).
ALE_COLOUR = "#009E73"


def _order(table: pd.DataFrame, features: Sequence[str] | None, max_features: int) -> list[str]:
    if features is not None:
        missing = [f for f in features if f not in set(table["feature"])]
        if missing:
            raise ValueError(f"the ALE table has no variable(s) {missing}")
        return list(features)
    first = table.drop_duplicates("feature")
    ranked = first[first["rank"] > 0].sort_values("rank", kind="stable")["feature"].tolist()
    rest = [f for f in first["feature"] if f not in ranked]
    return (ranked + rest)[:max_features]


def plot_pd_vs_ale(
    table: pd.DataFrame,
    features: Sequence[str] | None = None,
    *,
    max_features: int = 4,
    ncols: int | None = None,
    title: str | None = None,
    target_unit: str | None = None,
):
    """PD and ALE of each variable in one panel, both centred the same way (``ale.csv``).

    Where the two curves part, PD averages the model over rows that do not occur (the variable moved
    far from the values its correlates allow); ALE moves each row only inside its bin (Apley & Zhu
    2020). Numeric variables: curves over the bin edges with a rug of the edges (quantiles of the
    rows); a one-hot group: points per level in the ALE order, the level's share of rows in the
    tick label.

    Parameters
    ----------
    table : DataFrame
        ``ale.csv`` of one model (:func:`xaipipe.explain.pdp.ale_tables`).
    features : sequence of str, optional
        Variables to draw; default the ``max_features`` first by ``rank`` (MR), then table order.
    max_features : int, default 4
    ncols : int, optional
        Panels per row (default: up to 4).
    title : str, optional
    target_unit : str, optional
        The dataset's ``target_unit`` (registry) on the y axis (:func:`xaipipe.plots.units.with_unit`).

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        A variable not in the table; an empty table.
    """
    import matplotlib.pyplot as plt

    if table.empty:
        raise ValueError("the ALE table has no rows")
    names = _order(table, features, max_features)
    k = len(names)
    ncols = ncols or min(k, 4)
    nrows = int(np.ceil(k / ncols))
    fig, axes = plt.subplots(nrows, ncols, figsize=(3.3 * ncols, 2.9 * nrows), squeeze=False)
    output = str(table["output"].iloc[0])
    for ax, name in zip(axes.ravel(), names):
        part = table[table["feature"] == name].sort_values("position")
        pd_c = part["pd_centred"].to_numpy(dtype=float)
        ale = part["ale"].to_numpy(dtype=float)
        if part["kind"].iloc[0] == "numeric":
            x = part["value"].to_numpy(dtype=float)
            ax.plot(x, pd_c, color=PD_COLOUR, lw=1.6, label="PD")
            ax.plot(x, ale, color=ALE_COLOUR, lw=1.6, ls="--", label="ALE")
            ymin = min(pd_c.min(), ale.min())
            ax.plot(x, np.full(x.size, ymin), "|", color="0.4", ms=8)
            ax.set_xlabel(name)
        else:
            pos = part["position"].to_numpy()
            share = part["n_rows"].to_numpy(dtype=float) / part["n_rows"].sum()
            ax.plot(pos, pd_c, "o-", color=PD_COLOUR, lw=1.2, label="PD")
            ax.plot(pos, ale, "s--", color=ALE_COLOUR, lw=1.2, label="ALE")
            ax.set_xticks(pos, [f"{lv}\n{s:.0%}" for lv, s in zip(part["level"], share)])
            ax.set_xlabel(f"{name} (ALE order)")
        gap = float(np.max(np.abs(pd_c - ale)))
        ax.set_title(f"max |PD − ALE| = {gap:.3g}", fontsize=8)
    for ax in axes.ravel()[k:]:
        ax.set_axis_off()
    axes[0, 0].set_ylabel(  # wrapped: a long unit would overrun the axes
        wrap_label(f"centred effect ({with_unit(OUTPUT_LABELS.get(output, output), output, target_unit, inner=True)})")
    )
    axes[0, 0].legend(frameon=False, fontsize=7)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


def populated_corners(table: pd.DataFrame) -> np.ndarray:
    """Grid points of a second-order ALE table that are a corner of a cell with rows.

    Parameters
    ----------
    table : DataFrame
        ``ale_2d.csv`` of one pair: ``position_1``, ``position_2`` (grid point ``(k, m)``) and
        ``imputed``, the flag of the cell whose upper corner the point is (``k, m >= 1``).

    Returns
    -------
    ndarray of bool, shape (K1, K2)
        True at the four corners of every cell that holds rows (``imputed`` False).
    """
    K1, K2 = int(table["position_1"].max()) + 1, int(table["position_2"].max()) + 1
    mask = np.zeros((K1, K2), dtype=bool)
    p1 = table["position_1"].to_numpy(dtype=int)
    p2 = table["position_2"].to_numpy(dtype=int)
    full = (p1 >= 1) & (p2 >= 1) & ~table["imputed"].astype(bool).to_numpy()
    for k, m in zip(p1[full], p2[full]):
        mask[k - 1 : k + 1, m - 1 : m + 1] = True
    return mask


def plot_ale_2d(table: pd.DataFrame, *, title: str | None = None, target_unit: str | None = None):
    """Second-order ALE (pure interaction) of a pair on the grid of bin edges (``ale_2d.csv``).

    A diverging map centred at 0 (no interaction); cells without rows (their local effect imputed
    from the nearest non-empty cell) are marked with a dot at their upper corner. The colour scale
    is symmetric about 0 and spans the values at the corners of the cells *with* rows
    (:func:`populated_corners`), so that an imputed corner cannot set it; values beyond it (only at
    corners of empty cells) take the end colours (the colour bar's arrows).

    Parameters
    ----------
    table : DataFrame
        ``ale_2d.csv`` of one model (one pair).
    title : str, optional
    target_unit : str, optional
        The dataset's ``target_unit`` (registry) on the colour bar.

    Raises
    ------
    ValueError
        An empty table or several pairs.
    """
    import matplotlib.pyplot as plt

    if table.empty:
        raise ValueError("the second-order ALE table has no rows")
    pairs = table[["feature_1", "feature_2"]].drop_duplicates()
    if len(pairs) != 1:
        raise ValueError("the table holds several pairs")
    f1, f2 = pairs.iloc[0]
    K1, K2 = int(table["position_1"].max()) + 1, int(table["position_2"].max()) + 1
    t = table.sort_values(["position_1", "position_2"])
    Z = t["ale"].to_numpy(dtype=float).reshape(K1, K2)
    v1 = t["value_1"].to_numpy(dtype=float).reshape(K1, K2)[:, 0]
    v2 = t["value_2"].to_numpy(dtype=float).reshape(K1, K2)[0, :]
    populated = populated_corners(t)
    lim = float(np.abs(Z[populated]).max()) if populated.any() else float(np.abs(Z).max())
    lim = lim or 1.0
    beyond = bool((np.abs(Z) > lim).any())
    fig, ax = plt.subplots(figsize=(4.8, 3.8))
    cs = ax.contourf(
        v1, v2, Z.T, levels=np.linspace(-lim, lim, 13), cmap=DIVERGING_CMAP, extend="both" if beyond else "neither"
    )
    imp = t[t["imputed"].astype(bool)]
    if len(imp):
        ax.plot(imp["value_1"], imp["value_2"], ".", color="0.3", ms=3, label="no rows (imputed)")
        ax.legend(frameon=False, fontsize=7, loc="upper right")
    ax.set_xlabel(f1)
    ax.set_ylabel(f2)
    output = str(t["output"].iloc[0])
    label = f"second-order ALE ({with_unit(OUTPUT_LABELS.get(output, output), output, target_unit, inner=True)})"
    fig.colorbar(cs, ax=ax).set_label(wrap_label(label) + ("\nscale: cells with rows" if beyond else ""))
    return finish(fig, ax, title)


def ale_figures(
    ale: pd.DataFrame,
    ale_2d: pd.DataFrame,
    *,
    max_features: int = 4,
    title: str = "",
    target_unit: str | None = None,
) -> dict[str, Figure]:
    """The ``ale`` rule's figures: ``ale`` (PD and ALE of the top variables by MR) and ``ale_2d``
    (the 2-D PD's pair: the largest H² among the top variables), with the dataset's ``target_unit``.

    A figure saying so replaces a figure without data (no variable with an ALE; no numeric pair).
    """
    return {
        "ale": plot_pd_vs_ale(ale, max_features=max_features, title=title or None, target_unit=target_unit)
        if len(ale)
        else placeholder("no ALE: no variable with two or more values", figsize=(5, 2), va="center"),
        "ale_2d": plot_ale_2d(ale_2d, title=title or None, target_unit=target_unit)
        if len(ale_2d)
        else placeholder(
            "no second-order ALE: no pair of numeric top variables (as the 2-D PD)", figsize=(5, 2), va="center"
        ),
    }
