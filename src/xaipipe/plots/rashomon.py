"""Figures of Rashomon sets and model class reliance (thesis 001 Figs 4.1, 4.2 and beyond).

* :func:`plot_member_reliance` - MR of every member of a Rashomon set per variable
  (Fig 4.1): one row of points per variable, a box of the members' values, the
  reference model highlighted.
* :func:`plot_rank_heatmap` - rank of each variable's MR within each member
  (members × variables, Fig 4.2; rank 1 = the member's most relied-on variable).
* :func:`plot_mcr_intervals` - :math:`[MCR_-(\\epsilon), MCR_+(\\epsilon)]` per
  variable with the reference model's MR marked (Fisher et al. 2019, §4).
* :func:`plot_epsilon_sensitivity` - :math:`MCR_-` and :math:`MCR_+` against ε,
  one panel per variable.
* :func:`plot_pd_envelope` - pointwise min/max of the members' partial
  dependence curves with the reference PD (Friedman 2001 §8.2 over the set).

Inputs are the tables of :mod:`xaipipe.rashomon.mcr` (``member_table``,
``mcr_table``, ``pd_envelope``). Each function draws with the current matplotlib
style (wrap calls in :func:`xaipipe.plots.style.figure_style`) and returns the
Figure; save it with :func:`xaipipe.plots.style.save_figure`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..rashomon.sets import QUANTITIES, select_set
from ._common import annotate_cells, finish
from .catalog import kinds

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "plot_member_reliance",
    "plot_rank_heatmap",
    "plot_mcr_intervals",
    "plot_epsilon_sensitivity",
    "plot_pd_envelope",
    "rashomon_figures",
    "RASHOMON_FIGURES",
]

_LABELS = {
    "mr_ratio": ("model reliance $e_{switch}/e_{orig}$", 1.0),
    "mr_difference": ("model reliance $e_{switch}-e_{orig}$ (loss units)", 0.0),
}
REFERENCE_COLOUR = "#D55E00"
MEMBER_COLOUR = "#0072B2"


def _check_quantity(quantity: str) -> None:
    if quantity not in QUANTITIES:
        raise ValueError(f"quantity must be one of {list(QUANTITIES)}, got {quantity!r}")


def _one(frame: pd.DataFrame, column: str, value, what: str) -> pd.DataFrame:
    if column not in frame:
        raise ValueError(f"the {what} table has no {column!r} column")
    out = frame[frame[column] == value]
    if out.empty:
        raise ValueError(f"no rows with {column} == {value!r} in the {what} table")
    return out


def _scope_rows(members: pd.DataFrame, scope: str, epsilon: float, estimator: str):
    if not isinstance(members, pd.DataFrame):
        raise ValueError("members must be the member table (a DataFrame)")
    rows = _one(select_set(members, scope, epsilon), "estimator", estimator, "member")
    kind = "cross_family" if scope == "cross_family" else "family"
    ref = rows[rows[f"is_reference_{kind}"].astype(bool)]
    return rows, ref


def _member_label(frame: pd.DataFrame) -> pd.Series:
    multi = frame["family"].nunique() > 1
    cid = frame["config_id"].astype(str).str.replace(";", ", ", regex=False)
    return (frame["family"].astype(str) + ": " + cid) if multi else cid


def plot_member_reliance(
    members: pd.DataFrame,
    *,
    scope: str,
    epsilon: float,
    estimator: str = "permutation",
    quantity: str = "mr_ratio",
    title: str | None = None,
    random_state: int = 0,
):
    """MR of every Rashomon-set member per variable, reference highlighted (Fig 4.1).

    Parameters
    ----------
    members : DataFrame
        :func:`xaipipe.rashomon.members.member_table` output.
    scope : str
        Family name or ``"cross_family"``.
    epsilon : float
        The set ``R(ε)`` drawn.
    estimator : str, default "permutation"
    quantity : {"mr_ratio", "mr_difference"}, default "mr_ratio"
    title : str, optional
    random_state : int
        Seed of the vertical jitter of the points.

    Returns
    -------
    matplotlib.figure.Figure
        Variables sorted by the reference model's MR (largest on top).

    Raises
    ------
    ValueError
        Unknown quantity, scope or estimator; no members at ``epsilon``.
    """
    import matplotlib.pyplot as plt

    _check_quantity(quantity)
    rows, ref = _scope_rows(members, scope, epsilon, estimator)
    ref_v = ref.set_index("feature")[quantity] if len(ref) else pd.Series(dtype=float)
    feats = list(pd.unique(rows["feature"]))
    feats.sort(key=lambda f: -float(ref_v.get(f, rows.loc[rows["feature"] == f, quantity].median())))
    rng = np.random.default_rng(random_state)
    fig, ax = plt.subplots(figsize=(6.0, max(2.2, 0.42 * len(feats) + 1.2)))
    data = [rows.loc[rows["feature"] == f, quantity].to_numpy(dtype=float) for f in feats]
    pos = np.arange(len(feats))[::-1]
    ax.boxplot(
        [d[np.isfinite(d)] for d in data],
        positions=pos,
        orientation="horizontal",
        widths=0.6,
        showfliers=False,
        patch_artist=False,
        medianprops={"color": "0.3"},
    )
    for p, d in zip(pos, data):
        ax.scatter(
            d,
            p + rng.uniform(-0.18, 0.18, d.size),
            s=9,
            alpha=0.55,
            color=MEMBER_COLOUR,
            linewidths=0,
            label="members" if p == pos[0] else None,
            zorder=3,
        )
    for p, f in zip(pos, feats):
        if f in ref_v.index:
            ax.scatter(
                [ref_v[f]],
                [p],
                marker="D",
                s=36,
                color=REFERENCE_COLOUR,
                zorder=4,
                label="reference model" if p == pos[0] else None,
            )
    label, base = _LABELS[quantity]
    ax.axvline(base, color="0.5", linestyle=":", linewidth=0.8)
    ax.set_yticks(pos, feats)
    n = rows[["family", "config_id"]].drop_duplicates().shape[0]
    ax.set_xlabel(f"{label}  ({estimator}; {n} models, ε = {epsilon:g})")
    ax.legend(loc="lower right")
    return finish(fig, ax, title)


def plot_rank_heatmap(
    members: pd.DataFrame,
    *,
    scope: str,
    epsilon: float,
    estimator: str = "permutation",
    quantity: str = "mr_ratio",
    max_members: int | None = 60,
    title: str | None = None,
):
    """Rank of each variable's MR within each member: members × variables (Fig 4.2).

    Rank 1 is the member's most relied-on variable (ties share the smallest
    rank). Members are ordered by CV loss (best on top); with more than
    ``max_members`` members the best ``max_members`` are drawn.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        As :func:`plot_member_reliance`; ``max_members < 1``.
    """
    import matplotlib.pyplot as plt

    from .style import SEQUENTIAL_CMAP

    _check_quantity(quantity)
    if max_members is not None and max_members < 1:
        raise ValueError(f"max_members must be >= 1 or None, got {max_members!r}")
    rows, ref = _scope_rows(members, scope, epsilon, estimator)
    rows = rows.assign(_rank=rows.groupby(["family", "config_id"])[quantity].rank(ascending=False, method="min"))
    order = (
        rows[["family", "config_id", "cv_loss"]]
        .drop_duplicates(["family", "config_id"])
        .sort_values("cv_loss", kind="stable")
    )
    if max_members is not None:
        order = order.head(max_members)
    ref_feat = ref.set_index("feature")[quantity] if len(ref) else None
    feats = list(pd.unique(rows["feature"]))
    if ref_feat is not None:
        feats.sort(key=lambda f: -float(ref_feat.get(f, 0.0)))
    table = rows.pivot_table(index=["family", "config_id"], columns="feature", values="_rank", aggfunc="first")
    table = table.loc[list(zip(order["family"], order["config_id"])), feats]
    ranks = table.to_numpy(dtype=float)
    labels = _member_label(order.reset_index(drop=True)).tolist()
    ref_keys = set(zip(ref["family"], ref["config_id"])) if len(ref) else set()
    fig, ax = plt.subplots(figsize=(1.0 + 0.55 * len(feats) + 2.8, max(2.4, 0.2 * len(labels) + 1.6)))
    im = ax.imshow(ranks, aspect="auto", cmap=SEQUENTIAL_CMAP + "_r", vmin=1, vmax=len(feats))
    ax.set_xticks(np.arange(len(feats)), feats, rotation=45, ha="right")
    ax.set_yticks(np.arange(len(labels)), labels, fontsize=6 if len(labels) > 30 else 7)
    for i, key in enumerate(zip(order["family"], order["config_id"])):
        if key in ref_keys:
            ax.get_yticklabels()[i].set_color(REFERENCE_COLOUR)
            ax.get_yticklabels()[i].set_fontweight("bold")
    if len(labels) * len(feats) <= 400:
        annotate_cells(ax, ranks, lambda v: f"{int(v)}", lambda v: v <= len(feats) / 2)
    cbar = fig.colorbar(im, ax=ax, fraction=0.04)
    cbar.set_label(f"rank of {quantity} (1 = most relied on)")
    ax.set_xlabel(f"variable ({estimator}; ε = {epsilon:g})")
    return finish(fig, ax, title)


def plot_mcr_intervals(
    mcr: pd.DataFrame,
    *,
    scope: str,
    epsilon: float,
    estimator: str = "permutation",
    quantity: str = "mr_ratio",
    title: str | None = None,
):
    """MCR intervals per variable with the reference model's MR marked.

    Parameters
    ----------
    mcr : DataFrame
        :func:`xaipipe.rashomon.mcr.mcr_table` output.
    scope, epsilon, estimator, quantity
        Row selection.

    Returns
    -------
    matplotlib.figure.Figure
        One horizontal segment ``[MCR-, MCR+]`` per variable (sorted by the
        reference MR), a diamond at the reference MR.

    Raises
    ------
    ValueError
        No matching rows or an unknown quantity.
    """
    import matplotlib.pyplot as plt

    _check_quantity(quantity)
    rows = _one(mcr, "scope", scope, "MCR")
    rows = rows[np.isclose(rows["epsilon"].astype(float), float(epsilon), rtol=0, atol=1e-12)]
    rows = _one(_one(rows, "estimator", estimator, "MCR"), "quantity", quantity, "MCR")
    rows = rows.sort_values("mr_reference", ascending=True, kind="stable")
    pos = np.arange(len(rows))
    fig, ax = plt.subplots(figsize=(6.0, max(2.2, 0.4 * len(rows) + 1.2)))
    ax.hlines(pos, rows["mcr_minus"], rows["mcr_plus"], color=MEMBER_COLOUR, linewidth=3.0, label="[MCR$_-$, MCR$_+$]")
    ax.scatter(rows["mr_reference"], pos, marker="D", s=30, color=REFERENCE_COLOUR, zorder=3, label="reference model")
    label, base = _LABELS[quantity]
    ax.axvline(base, color="0.5", linestyle=":", linewidth=0.8)
    ax.set_yticks(pos, rows["feature"].astype(str))
    n = int(rows["n_members"].iloc[0])
    ax.set_xlabel(f"{label}  ({estimator}; {n} models, ε = {epsilon:g} {rows['epsilon_mode'].iloc[0]})")
    ax.legend(loc="lower right")
    return finish(fig, ax, title)


def plot_epsilon_sensitivity(
    mcr: pd.DataFrame,
    *,
    scope: str,
    estimator: str = "permutation",
    quantity: str = "mr_ratio",
    features: Sequence[str] | None = None,
    ncols: int = 4,
    epsilon_max: float | None = None,
    title: str | None = None,
):
    """MCR- and MCR+ against ε, one panel per variable (nested sets widen the band).

    Parameters
    ----------
    mcr : DataFrame
        The exact ε-path (:func:`xaipipe.rashomon.mcr.mcr_path`: a step at each
        member's entry ε) or :func:`xaipipe.rashomon.mcr.mcr_table` (a grid of ε);
        drawn as right-continuous steps.
    epsilon_max : float, optional
        Extend the last step to this ε (the path's largest configured ε).
    scope, estimator, quantity
        Row selection.
    features : sequence of str, optional
        Variables and their order (default: all, by decreasing reference MR).
    ncols : int, default 4

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        No matching rows, unknown features or quantity, ``ncols < 1``.
    """
    import matplotlib.pyplot as plt

    _check_quantity(quantity)
    if ncols < 1:
        raise ValueError(f"ncols must be >= 1, got {ncols!r}")
    rows = _one(_one(_one(mcr, "scope", scope, "MCR"), "estimator", estimator, "MCR"), "quantity", quantity, "MCR")
    if features is None:
        last = rows[rows["epsilon"] == rows["epsilon"].min()]
        features = list(last.sort_values("mr_reference", ascending=False)["feature"])
    else:
        unknown = [f for f in features if f not in set(rows["feature"])]
        if unknown:
            raise ValueError(f"unknown features {unknown}")
    nf = len(features)
    nc = min(ncols, nf)
    nr = int(np.ceil(nf / nc))
    fig, axes = plt.subplots(nr, nc, figsize=(2.4 * nc + 0.6, 2.1 * nr + 0.5), squeeze=False, sharex=True)
    label, base = _LABELS[quantity]
    for i, f in enumerate(features):
        ax = axes[i // nc, i % nc]
        r = rows[rows["feature"] == f].sort_values("epsilon", kind="stable")
        if epsilon_max is not None and len(r) and float(r["epsilon"].iloc[-1]) < epsilon_max:
            r = pd.concat([r, r.iloc[[-1]].assign(epsilon=float(epsilon_max))], ignore_index=True)
        eps = r["epsilon"].to_numpy(dtype=float)
        ax.fill_between(eps, r["mcr_minus"], r["mcr_plus"], step="post", color=MEMBER_COLOUR, alpha=0.25, linewidth=0)
        ax.step(eps, r["mcr_minus"], where="post", color=MEMBER_COLOUR, label="MCR$_-$ / MCR$_+$")
        ax.step(eps, r["mcr_plus"], where="post", color=MEMBER_COLOUR)
        ax.step(eps, r["mr_reference"], where="post", color=REFERENCE_COLOUR, linestyle="--", label="reference")
        ax.axhline(base, color="0.5", linestyle=":", linewidth=0.7)
        ax.set_title(str(f), fontsize=8)
        if i // nc == nr - 1:
            ax.set_xlabel(f"ε ({rows['epsilon_mode'].iloc[0]})")
    for j in range(nf, nr * nc):
        axes[j // nc, j % nc].set_visible(False)
    axes[0, 0].set_ylabel(quantity)
    axes[0, 0].legend(loc="best", fontsize=6)
    fig.suptitle(title or f"{label}: ε-sensitivity ({scope}, {estimator})", fontsize=9)
    fig.tight_layout()
    return fig


def plot_pd_envelope(
    envelopes: Mapping[str, pd.DataFrame],
    *,
    curves: Mapping[str, pd.DataFrame] | None = None,
    ylabel: str = "prediction",
    title: str | None = None,
):
    """Envelope of the PD curves across a Rashomon set, with the reference PD.

    Parameters
    ----------
    envelopes : mapping feature -> DataFrame, or DataFrame with a ``feature`` column
        :func:`xaipipe.rashomon.mcr.pd_envelope` outputs with an ``x`` column
        (numeric grid, or level labels of a one-hot group, drawn as categories),
        or the long table of :func:`xaipipe.rashomon.mcr.pd_envelope_table`.
    curves : mapping feature -> DataFrame, or DataFrame with ``feature``, optional
        :func:`~xaipipe.rashomon.mcr.members_partial_dependence` rows of the same
        members, drawn as thin lines.
    ylabel, title : str

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        Empty input or an envelope without ``x``.
    """
    import matplotlib.pyplot as plt

    def by_feature(obj):
        if isinstance(obj, pd.DataFrame):
            if "feature" not in obj:
                raise ValueError("a long table needs a 'feature' column")
            return {f: part for f, part in obj.groupby("feature", sort=False)}
        return dict(obj)

    envelopes = by_feature(envelopes) if envelopes is not None else {}
    curves = by_feature(curves) if curves is not None else None
    if not envelopes:
        raise ValueError("no envelopes given")
    nf = len(envelopes)
    fig, axes = plt.subplots(1, nf, figsize=(3.2 * nf + 0.6, 3.0), squeeze=False)
    for ax, (feature, env) in zip(axes[0], envelopes.items()):
        if "x" not in env:
            raise ValueError(f"envelope of {feature!r} has no 'x' column (pass grid= to pd_envelope)")
        env = env.sort_values("grid_index")
        as_number = pd.to_numeric(env["x"], errors="coerce")
        numeric = bool(as_number.notna().all())
        x = as_number.to_numpy(dtype=float) if numeric else np.arange(len(env))
        if curves is not None and feature in curves:
            for _, c in curves[feature].groupby(["family", "config_id"]):
                c = c.sort_values("grid_index")
                ax.plot(x[c["grid_index"].to_numpy()], c["pd"], color="0.6", linewidth=0.4, alpha=0.5)
        if numeric:
            ax.fill_between(
                x,
                env["pd_min"],
                env["pd_max"],
                color=MEMBER_COLOUR,
                alpha=0.3,
                linewidth=0,
                label=f"Rashomon envelope ({int(env['n_members'].iloc[0])} models)",
            )
            ax.plot(x, env["pd_reference"], color=REFERENCE_COLOUR, label="reference PD")
        else:
            ax.vlines(
                x,
                env["pd_min"],
                env["pd_max"],
                color=MEMBER_COLOUR,
                linewidth=6,
                alpha=0.4,
                label=f"Rashomon envelope ({int(env['n_members'].iloc[0])} models)",
            )
            ax.scatter(x, env["pd_reference"], marker="D", color=REFERENCE_COLOUR, zorder=3, label="reference PD")
            ax.set_xticks(x, env["x"].astype(str))
        ax.set_xlabel(str(feature))
    axes[0, 0].set_ylabel(ylabel)
    axes[0, -1].legend(loc="best", fontsize=7)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


#: The figures of one model class (:func:`rashomon_figures`; declared in :mod:`xaipipe.plots.catalog`).
RASHOMON_FIGURES = kinds("rashomon_figures")


def rashomon_figures(
    members: pd.DataFrame,
    mcr: pd.DataFrame,
    envelope: pd.DataFrame,
    curves: pd.DataFrame,
    *,
    scope: str,
    epsilon: float,
    quantity: str = "mr_ratio",
    path: pd.DataFrame | None = None,
) -> dict[str, Figure]:
    """The ``rashomon_figures`` rule: Figs 4.1 (MR of every member) and 4.2 (rank heatmap) of seed 001,
    the MCR intervals, the ε-sensitivity (from the exact ε-path ``path`` when given,
    else from the ε grid of ``mcr``) and the PD envelope of one model class.

    ``scope`` falls back to the first scope of ``mcr`` when the model class has no
    such scope (e.g. ``cross_family`` on a dataset with one family); the estimator
    is ``permutation`` when computed, else the first of ``mcr``.

    Returns
    -------
    dict
        :data:`RASHOMON_FIGURES` -> Figure.
    """
    scope = scope if scope in set(mcr["scope"]) else mcr["scope"].iloc[0]
    estimator = "permutation" if "permutation" in set(mcr["estimator"]) else mcr["estimator"].iloc[0]
    name = str(mcr["dataset"].iloc[0])
    eps, q = epsilon, quantity
    kw = dict(scope=scope, epsilon=eps, estimator=estimator, quantity=q)
    envelopes = {f: part for f, part in envelope.groupby("feature", sort=False)}
    member_curves = {f: part for f, part in curves.groupby("feature", sort=False)}
    return {
        "member_reliance": plot_member_reliance(
            members, title=f"{name}: MR of every model in R({eps:g}), {scope}", **kw
        ),
        "rank_heatmap": plot_rank_heatmap(members, title=f"{name}: MR ranks in R({eps:g}), {scope}", **kw),
        "mcr_intervals": plot_mcr_intervals(mcr, title=f"{name}: MCR, {scope}, eps = {eps:g}", **kw),
        "epsilon_sensitivity": plot_epsilon_sensitivity(
            mcr if path is None else path,
            scope=scope,
            estimator=estimator,
            quantity=q,
            epsilon_max=float(mcr["epsilon"].max()),
            title=f"{name}: MCR as a function of eps (exact path), {scope}",
        ),
        "pd_envelope": plot_pd_envelope(
            envelopes,
            curves=member_curves,
            title=f"{name}: PD of the Rashomon set R({eps:g}), {scope}"
            + (f", class {envelope['class'].iloc[0]}" if "class" in envelope.columns and len(envelope) else ""),
        ),
    }
