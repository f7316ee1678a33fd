"""Hasse diagram of the consensus partial order over a Rashomon set (issue 45, item 4).

Input: ``consensus.csv`` and ``consensus_summary.csv`` of one dataset
(:func:`xaipipe.rashomon.consensus.consensus_tables`). One panel per scope drawn: the members'
consensus at the figure's scope and ε, and, where the dataset has it, the exact order of all linear
models of the ``linear_exact`` scope at the same ε. A line from an upper box to a lower one: every member relies on
the upper variable(s) more (a covering pair of the order: lines implied by transitivity are left
out); variables tied in every member share a box; variables on one level without a line between
them are incomparable (the members disagree).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..rashomon.consensus import hasse_diagram
from ._common import placeholder

__all__ = ["consensus_figures", "plot_hasse"]

_NODE_COLOUR = "#0072B2"  # Okabe-Ito blue


def _rows(g, per_row: int) -> list[list]:
    """The boxes of a Hasse diagram in drawing rows: each level (longest chain above) in rows of at
    most ``per_row`` boxes, within a level by how many variables a box is above, then name."""
    import networkx as nx

    below = {n: len(nx.descendants(g, n)) for n in g.nodes}
    levels: dict[int, list] = {}
    for n, data in g.nodes(data=True):
        levels.setdefault(int(data["level"]), []).append(n)
    rows = []
    for lvl in sorted(levels):
        nodes = sorted(levels[lvl], key=lambda n: (-below[n], n))
        rows += [nodes[i : i + per_row] for i in range(0, len(nodes), per_row)]
    return rows


def plot_hasse(pairs: pd.DataFrame, *, ax=None, title: str | None = None, per_row: int = 6):
    """Draw the Hasse diagram of one pair table (one scope, ε, estimator).

    Parameters
    ----------
    pairs : DataFrame
        ``feature_a``, ``feature_b``, ``relation`` of one scope, ε and estimator.
    ax : matplotlib Axes, optional
    title : str, optional
    per_row : int, default 6
        Most boxes in one drawing row (a wider level takes several rows).

    Returns
    -------
    matplotlib.figure.Figure
        Levels top-down (level = the longest chain above a box), a wide level in several rows;
        within a level, boxes by how many variables they are above, then name. Without any ordered
        pair the panel says so.

    Raises
    ------
    ValueError
        No pairs, or a relation with a cycle.
    """
    import matplotlib.pyplot as plt

    if pairs.empty:
        raise ValueError("no pairs to draw")
    g = hasse_diagram(pairs)
    rows = _rows(g, int(per_row))
    width = max(len(r) for r in rows)
    if ax is None:
        fig, ax = plt.subplots(figsize=(min(max(6.0, 1.5 * width), 24.0), 1.0 + 0.9 * len(rows)))
    else:
        fig = ax.figure
    pos = {}
    for i, nodes in enumerate(rows):
        xs = np.linspace(0.0, 1.0, len(nodes) + 2)[1:-1] if len(nodes) > 1 else [0.5]
        for x, n in zip(xs, nodes):
            pos[n] = (float(x), -float(i))
    # the lines in a fixed order: networkx's transitive reduction yields the edges in set order, which
    # follows the process's string-hash seed (PYTHONHASHSEED), and the figure's bytes followed it
    for u, v in sorted(g.edges):
        (x0, y0), (x1, y1) = pos[u], pos[v]
        ax.plot([x0, x1], [y0, y1], color="0.45", linewidth=0.9, zorder=1)
    fontsize = "small" if width <= 8 else "x-small" if width <= 16 else 5
    for n, (x, y) in pos.items():
        ax.text(
            x,
            y,
            n,
            ha="center",
            va="center",
            fontsize=fontsize,
            zorder=2,
            bbox={"boxstyle": "round,pad=0.25", "facecolor": "white", "edgecolor": _NODE_COLOUR},
        )
    if not g.number_of_edges():
        ax.text(0.5, 0.45, "no pair is ordered alike by every member", ha="center", va="bottom", fontsize="small")
    ax.set_xlim(-0.05, 1.05)
    ax.set_ylim(-(len(rows) - 1 + 0.6), 0.6)
    ax.axis("off")
    if title:
        ax.set_title(title, fontsize="small")
    return fig


def _panel_title(row: pd.Series | None, label: str) -> str:
    if row is None:
        return label
    text = f"{label}: {int(row['n_ordered'])} of {int(row['n_pairs'])} pairs ordered"
    if row["method"] == "all_members":
        text += f" by all {int(row['n_members'])} members"
        if pd.notna(row.get("n_functions")):
            text += f" ({int(row['n_functions'])} distinct functions)"
    elif row["method"] == "exact":
        text += " by every linear model of the set (exact)"
    else:
        text += " (certified by the MCR bounds)"
    if int(row.get("n_ties", 0)):
        text += f"; {int(row['n_ties'])} tied"
    return text


def consensus_figures(
    pairs: pd.DataFrame, summary: pd.DataFrame, *, scope: str, epsilon: float, estimator: str, title: str = ""
):
    """The ``consensus_figures`` rule: Hasse diagram(s) of one dataset at the figure's scope and ε.

    Parameters
    ----------
    pairs, summary : DataFrame
        ``consensus.csv``, ``consensus_summary.csv``.
    scope : str
        Members' scope drawn (config ``rashomon.figure_scope``).
    epsilon : float
        Config ``rashomon.epsilon``.
    estimator : str
        The MR estimator of the members' panel (the first of ``rashomon.estimators`` present).
    title : str

    Returns
    -------
    matplotlib.figure.Figure
        Left: the members' consensus; right (regression datasets with the scope): ``linear_exact``.

    ``scope`` falls back to the first members' scope with rows at ``epsilon`` when the model class
    has no such scope (``cross_family`` on a dataset with one family), as the Rashomon figures do.

    A dataset with one variable has no pair to order: the figure says so ("no consensus order to
    draw: 1 variable, ...") instead of a diagram.

    Raises
    ------
    ValueError
        No members' rows at ``epsilon`` in any scope although the summary has pairs there.
    """
    import matplotlib.pyplot as plt

    at = np.isclose(pairs["epsilon"].astype(float), float(epsilon))
    scopes = [s for s in pd.unique(pairs.loc[at, "scope"]) if s != "linear_exact"]
    if scope not in scopes and scopes:  # e.g. cross_family on a dataset with one family
        scope = str(scopes[0])
    members = pairs[at & (pairs["scope"] == scope)]
    if estimator not in set(members["estimator"]) and len(members):
        estimator = str(members["estimator"].iloc[0])
    members = members[members["estimator"] == estimator]
    s_at = summary[np.isclose(summary["epsilon"].astype(float), float(epsilon))]
    if members.empty and len(s_at) and (s_at["n_pairs"].astype(int) == 0).all():
        # one variable: no pair to order (a documented "not applicable" figure, not an error)
        n = int(s_at["n_features"].max())
        return placeholder(
            f"no consensus order to draw: {n} variable{'' if n == 1 else 's'}, no pair of variables to order",
            figsize=(6, 1.6),
            va="center",
            title=title,
        )
    if members.empty:
        raise ValueError(f"no consensus rows at scope {scope!r} and epsilon {epsilon}")
    linear = pairs[at & (pairs["scope"] == "linear_exact")]
    if len(linear):  # the exact order where computed, else the MCR bounds' certificate
        method = "exact" if "exact" in set(linear["method"]) else "mcr_bounds"
        linear = linear[linear["method"] == method]
    panels = [(members, scope, estimator)] + ([(linear, "linear_exact", "e_switch")] if len(linear) else [])

    n_rows = max(len(_rows(hasse_diagram(p), 6)) for p, _, _ in panels)
    fig, axes = plt.subplots(1, len(panels), figsize=(8.0 * len(panels), 1.6 + 0.8 * n_rows), squeeze=False)
    for ax, (part, sc, est) in zip(axes[0], panels):
        rows = s_at[(s_at["scope"] == sc) & (s_at["estimator"] == est) & s_at["method"].isin(set(part["method"]))]
        label = f"{sc}, ε = {float(epsilon):g}" + (f", MR by {est}" if sc != "linear_exact" else "")
        plot_hasse(part, ax=ax, title=_panel_title(rows.iloc[0] if len(rows) else None, label))
    fig.suptitle(f"{title}: consensus order of model reliance (Laberge et al. 2023)" if title else "", fontsize="small")
    fig.tight_layout()
    return fig
