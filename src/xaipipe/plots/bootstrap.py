"""Figures of the bootstrapped Rashomon set: the RID per variable and the MCR endpoints.

Inputs are the tables of :func:`xaipipe.rashomon.bootstrap.bootstrap_rashomon`
(``reliance``, ``mcr``, ``sizes``) or the pipeline's CSV files filtered to one
dataset. Functions draw with the current matplotlib style (wrap calls in
:func:`xaipipe.plots.style.figure_style`) and return the Figure; callers save
it with :func:`xaipipe.plots.style.save_figure`.

:func:`plot_rid` draws, per variable, a *weighted* box plot of the RID
(Donnelly et al. 2023): every member of resample ``b`` has mass
``1 / (B |R_b|)``, so matplotlib's unweighted ``boxplot`` cannot be used; the
box spans the RID quartiles, the whiskers its ``(1 -/+ confidence)/2``
quantiles (:func:`xaipipe.rashomon.rid.rid_quantile`), the dot is the
RID mean (the RID's quantiles describe the distribution; they are not a
confidence interval). Below and above each box, the bootstrap intervals of MCR⁻
and MCR⁺ across resamples (:func:`xaipipe.rashomon.rid.mcr_summary`) with
their medians, labelled by what they are: a percentile interval when ``B`` is
large enough for the level, otherwise the range over the ``B`` resamples. :func:`plot_rid_cdf` draws the RID CDFs themselves.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..rashomon.rid import NO_RELIANCE, QUANTITIES, mcr_summary, rid_cdf, rid_summary
from ._common import finish

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["plot_rid", "plot_rid_cdf", "plot_set_sizes", "rid_figures"]

BOX_COLOUR = "#0072B2"
MINUS_COLOUR = "#009E73"  # bluish green
PLUS_COLOUR = "#D55E00"  # vermillion
_LABELS = {
    "mr_ratio": "model reliance  $e_{switch}/e_{orig}$",
    "mr_difference": "model reliance  $e_{switch}-e_{orig}$ (loss units)",
}


def _one_dataset(table: pd.DataFrame, what: str) -> pd.DataFrame:
    if not isinstance(table, pd.DataFrame):
        raise TypeError(f"{what} must be a DataFrame")
    for col in ("dataset", "estimator", "loss"):
        if col in table and table[col].nunique(dropna=False) > 1:
            raise ValueError(f"{what} holds several values of {col!r}; filter it first")
    return table


def plot_rid(
    reliance: pd.DataFrame,
    mcr: pd.DataFrame | None = None,
    *,
    quantity: str = "mr_ratio",
    confidence: float = 0.95,
    title: str | None = None,
):
    """Weighted box plot of the RID per variable, with MCR endpoint intervals.

    Parameters
    ----------
    reliance : DataFrame
        :data:`xaipipe.rashomon.bootstrap.BOOTSTRAP_RELIANCE_COLUMNS` of one dataset.
    mcr : DataFrame, optional
        :data:`xaipipe.rashomon.bootstrap.MCR_COLUMNS`; adds the MCR⁻ / MCR⁺
        percentile intervals.
    quantity : {"mr_ratio", "mr_difference"}, default "mr_ratio"
    confidence : float in (0, 1), default 0.95
        Whisker levels and MCR interval level.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
        Variables as rows, highest RID median on top.

    Raises
    ------
    ValueError, TypeError
        Invalid tables (see :func:`~xaipipe.rashomon.rid.rid_summary`),
        ``quantity`` or ``confidence``.
    """
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    if quantity not in QUANTITIES:
        raise ValueError(f"quantity must be one of {QUANTITIES}, got {quantity!r}")
    c = float(confidence)
    if not 0 < c < 1:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence!r}")
    lo, hi = (1 - c) / 2, (1 + c) / 2
    rel = _one_dataset(reliance, "reliance table")
    summ = rid_summary(rel, quantity=quantity, probs=(lo, 0.25, 0.5, 0.75, hi))
    qlo, q25, q50, q75, qhi = (f"q{p:g}" for p in (lo, 0.25, 0.5, 0.75, hi))
    summ = summ.iloc[np.argsort(-summ[q50].to_numpy(), kind="stable")].reset_index(drop=True)
    ms = None
    if mcr is not None:
        ms = mcr_summary(_one_dataset(mcr, "mcr table"), confidence=c)
        ms = ms[ms["quantity"] == quantity].set_index("feature")
    n = len(summ)
    fig, ax = plt.subplots(figsize=(6.3, 0.6 * n + 1.4))
    for i, row in summ.iterrows():
        ax.add_patch(
            Rectangle(
                (row[q25], i - 0.18),
                row[q75] - row[q25],
                0.36,
                facecolor=BOX_COLOUR,
                alpha=0.35,
                edgecolor=BOX_COLOUR,
                label="RID quartiles" if i == 0 else None,
            )
        )
        ax.plot(
            [row[q50]] * 2, [i - 0.18, i + 0.18], color="black", linewidth=1.6, label="RID median" if i == 0 else None
        )
        ax.plot([row[qlo], row[q25]], [i, i], color=BOX_COLOUR, linewidth=1.0)
        ax.plot(
            [row[q75], row[qhi]],
            [i, i],
            color=BOX_COLOUR,
            linewidth=1.0,
            label=f"RID {100 * lo:g}-{100 * hi:g} %" if i == 0 else None,
        )
        ax.plot([row["mean"]], [i], "o", color="black", markersize=3, label="RID mean" if i == 0 else None)
        if ms is not None and row["feature"] in ms.index:
            r = ms.loc[row["feature"]]
            what = (
                f"{100 * c:g} % percentile interval"
                if r["interval"] == "percentile"
                else f"range over B = {int(r['n_resamples'])} resamples"
            )
            ax.plot(
                [r["mcr_minus_low"], r["mcr_minus_high"]],
                [i + 0.3] * 2,
                color=MINUS_COLOUR,
                linewidth=2.0,
                label=f"MCR$^-$ {what}" if i == 0 else None,
            )
            ax.plot([r["mcr_minus_median"]], [i + 0.3], marker="<", color=MINUS_COLOUR, linestyle="none")
            ax.plot(
                [r["mcr_plus_low"], r["mcr_plus_high"]],
                [i - 0.3] * 2,
                color=PLUS_COLOUR,
                linewidth=2.0,
                label=f"MCR$^+$ {what}" if i == 0 else None,
            )
            ax.plot([r["mcr_plus_median"]], [i - 0.3], marker=">", color=PLUS_COLOUR, linestyle="none")
    ax.axvline(NO_RELIANCE[quantity], color="0.3", linestyle="--", linewidth=0.8)
    ax.set_yticks(np.arange(n), summ["feature"].astype(str).tolist())
    ax.set_ylim(n - 0.5, -0.5)
    ax.autoscale_view(scalex=True, scaley=False)
    ax.set_xlabel(_LABELS[quantity])
    B = int(summ["n_resamples"].max())
    ax.set_title((title + "\n" if title else "") + f"Rashomon importance distribution, B = {B} bootstrap resamples")
    ax.legend(loc="best", fontsize=7)
    fig.tight_layout()
    return fig


def plot_rid_cdf(
    reliance: pd.DataFrame,
    *,
    quantity: str = "mr_ratio",
    features: Sequence[str] | None = None,
    title: str | None = None,
):
    """RID CDFs (:func:`~xaipipe.rashomon.rid.rid_cdf`) of several variables on one axes.

    Returns
    -------
    matplotlib.figure.Figure
        One step curve per variable (``where="post"``), from 0 to 1.

    Raises
    ------
    ValueError
        Invalid table or ``quantity``, unknown ``features``.
    """
    import matplotlib.pyplot as plt

    rel = _one_dataset(reliance, "reliance table")
    cdf = rid_cdf(rel, quantity=quantity)
    names = list(pd.unique(cdf["feature"])) if features is None else list(features)
    unknown = [f for f in names if f not in set(cdf["feature"])]
    if unknown:
        raise ValueError(f"features {unknown} are not in the table")
    fig, ax = plt.subplots()
    lo_all = cdf["value"].min()
    hi_all = cdf["value"].max()
    pad = 0.02 * (hi_all - lo_all if hi_all > lo_all else 1.0)
    for name in names:
        part = cdf[cdf["feature"] == name]
        x = np.concatenate([[lo_all - pad], part["value"].to_numpy(), [hi_all + pad]])
        y = np.concatenate([[0.0], part["cdf"].to_numpy(), [1.0]])
        ax.step(x, y, where="post", label=str(name))
    ax.axvline(NO_RELIANCE[quantity], color="0.3", linestyle="--", linewidth=0.8)
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel(_LABELS[quantity])
    ax.set_ylabel("RID: P(importance ≤ value)")
    ax.legend(loc="lower right")
    return finish(fig, ax, title)


def plot_set_sizes(sizes: pd.DataFrame, *, title: str | None = None):
    """Rashomon set size per bootstrap resample (bars), with the model-class size.

    Parameters
    ----------
    sizes : DataFrame
        :data:`xaipipe.rashomon.bootstrap.SIZE_COLUMNS` of one dataset.

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib.pyplot as plt

    frame = _one_dataset(sizes, "sizes table")
    missing = [c for c in ("bootstrap", "set_size", "n_models") if c not in frame.columns]
    if missing or frame.empty:
        raise ValueError(f"sizes table lacks columns {missing} or is empty")
    fig, ax = plt.subplots(figsize=(6.3, 2.6))
    ax.bar(frame["bootstrap"].to_numpy(), frame["set_size"].to_numpy(), color=BOX_COLOUR)
    ax.set_xlabel("bootstrap resample")
    ax.set_ylabel("|Rashomon set|")
    ax.set_title((title + "\n" if title else "") + f"out of {int(frame['n_models'].max())} models")
    fig.tight_layout()
    return fig


def rid_figures(
    reliance: pd.DataFrame, mcr: pd.DataFrame, sizes: pd.DataFrame, *, confidence: float = 0.95, title: str = ""
) -> dict[str, Figure]:
    """The ``rid_figures`` rule: the Rashomon importance distribution and the bootstrap set sizes.

    Returns
    -------
    dict
        ``rid``, ``set_sizes`` -> Figure.
    """
    return {
        "rid": plot_rid(reliance, mcr, confidence=confidence, title=f"{title}: Rashomon importance distribution"),
        "set_sizes": plot_set_sizes(sizes, title=f"{title}: Rashomon set size per bootstrap resample"),
    }
