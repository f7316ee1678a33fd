"""The Rashomon importance distribution and the MCR endpoints across bootstrap resamples: summaries.

Tables of :func:`xaipipe.rashomon.bootstrap.bootstrap_rashomon` summarised: the
RID of each variable as a step CDF, its mean, quantiles and ``P(MR > no
reliance)`` (Donnelly, Katta, Rudin & Browne 2023, NeurIPS), and the MCR
endpoints per resample with their intervals across resamples, labelled by what
they are (:func:`mcr_summary`). Columns are named ``quantity`` (``mr_ratio`` /
``mr_difference``) like the MCR tables (the bootstrap tables called it
``measure`` before issue 22).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from .sets import QUANTITIES

__all__ = [
    "MCR_COLUMNS",
    "NO_RELIANCE",
    "QUANTITIES",
    "mcr_per_resample",
    "mcr_summary",
    "min_resamples",
    "rid_cdf",
    "rid_quantile",
    "rid_summary",
]

#: Reference value of "no reliance" per quantity.
NO_RELIANCE = {"mr_ratio": 1.0, "mr_difference": 0.0}
#: Columns of :func:`mcr_per_resample`.
MCR_COLUMNS = ["bootstrap", "feature", "quantity", "mcr_minus", "mcr_plus", "set_size"]


def _check_reliance(reliance: pd.DataFrame, quantity: str) -> None:
    if not isinstance(reliance, pd.DataFrame):
        raise TypeError("reliance must be a DataFrame")
    if quantity not in QUANTITIES:
        raise ValueError(f"quantity must be one of {QUANTITIES}, got {quantity!r}")
    missing = [c for c in ("bootstrap", "feature", "weight", quantity) if c not in reliance.columns]
    if missing:
        raise ValueError(f"reliance table lacks columns {missing}")
    if reliance.empty:
        raise ValueError("reliance table is empty")
    if not np.isfinite(reliance[quantity].to_numpy(dtype=float)).all():
        raise ValueError(f"{quantity} has non-finite values (a member with zero loss?)")
    sums = reliance.groupby(["bootstrap", "feature"])["weight"].sum().to_numpy()
    if not np.allclose(sums, 1.0, rtol=0, atol=1e-9):
        raise ValueError("weights must sum to 1 within each resample and feature")


def _weighted(reliance: pd.DataFrame, quantity: str, feature) -> tuple[np.ndarray, np.ndarray]:
    """Sorted values and their RID masses (sum 1) for one feature."""
    part = reliance[reliance["feature"] == feature]
    if part.empty:
        raise ValueError(f"no rows for feature {feature!r}")
    B = part["bootstrap"].nunique()
    v = part[quantity].to_numpy(dtype=float)
    w = part["weight"].to_numpy(dtype=float) / B
    order = np.argsort(v, kind="stable")
    return v[order], w[order]


def rid_quantile(values, weights, probs) -> np.ndarray:
    """Quantiles of a discrete distribution: the smallest ``v`` with ``F(v) >= p``.

    Parameters
    ----------
    values : array-like of shape (m,)
    weights : array-like of shape (m,)
        Non-negative masses summing to 1.
    probs : array-like of levels in [0, 1]

    Returns
    -------
    ndarray of shape (len(probs),)
        The inverse of the right-continuous step CDF (``inverted_cdf``);
        :math:`p = 0` gives the smallest value with positive mass.

    Raises
    ------
    ValueError
        Mismatched shapes, negative weights, weights not summing to 1, or
        levels outside [0, 1].
    """
    v = np.asarray(values, dtype=float)
    w = np.asarray(weights, dtype=float)
    p = np.atleast_1d(np.asarray(probs, dtype=float))
    if v.ndim != 1 or v.shape != w.shape or v.size == 0:
        raise ValueError("values and weights must be 1-D of the same non-zero length")
    if (w < 0).any() or not np.isclose(w.sum(), 1.0, rtol=0, atol=1e-9):
        raise ValueError("weights must be non-negative and sum to 1")
    if ((p < 0) | (p > 1)).any():
        raise ValueError("probs must lie in [0, 1]")
    order = np.argsort(v, kind="stable")
    v, w = v[order], w[order]
    keep = w > 0
    v, w = v[keep], w[keep]
    cdf = np.cumsum(w)
    cdf[-1] = 1.0
    idx = np.searchsorted(cdf, p - 1e-12, side="left")
    return v[np.minimum(idx, v.size - 1)]


def rid_cdf(reliance: pd.DataFrame, *, quantity: str = "mr_ratio", values=None) -> pd.DataFrame:
    """The RID as a step CDF per feature.

    Parameters
    ----------
    reliance : DataFrame
        :data:`RELIANCE_COLUMNS` (:func:`bootstrap_rashomon`).
    quantity : {"mr_ratio", "mr_difference"}
    values : array-like, optional
        Where to evaluate :math:`\\widehat{\\mathrm{RID}}_j(k)`; default: every
        distinct value of the feature (the jump points).

    Returns
    -------
    DataFrame
        Columns ``feature``, ``value``, ``cdf``: :math:`\\frac1B \\sum_b
        \\sum_{f \\in R^{(b)}} 1(\\phi_j(f) \\le k) / |R^{(b)}|`.

    Raises
    ------
    ValueError
        Invalid table (missing columns, non-finite values, weights not summing
        to 1 per resample and feature).
    """
    _check_reliance(reliance, quantity)
    rows = []
    for feature in pd.unique(reliance["feature"]):
        v, w = _weighted(reliance, quantity, feature)
        ks = np.unique(v) if values is None else np.asarray(values, dtype=float).ravel()
        cdf = np.cumsum(w)
        idx = np.searchsorted(v, ks, side="right")
        F = np.where(idx > 0, cdf[np.maximum(idx - 1, 0)], 0.0)
        F = np.minimum(F, 1.0)
        rows.append(pd.DataFrame({"feature": feature, "value": ks, "cdf": F}))
    return pd.concat(rows, ignore_index=True)


def rid_summary(
    reliance: pd.DataFrame, *, quantity: str = "mr_ratio", probs: Sequence[float] = (0.025, 0.25, 0.5, 0.75, 0.975)
) -> pd.DataFrame:
    """Mean, quantiles and :math:`P(\\phi_j > \\text{no reliance})` of the RID per feature.

    Returns
    -------
    DataFrame
        Columns ``feature``, ``quantity``, ``mean`` (RID-weighted mean),
        ``q<p>`` per level (:func:`rid_quantile`), ``prob_reliance``
        (RID mass strictly above 1 for the ratio, 0 for the difference),
        ``n_resamples``, ``n_values``; rows in order of first appearance.
    """
    _check_reliance(reliance, quantity)
    probs = [float(p) for p in probs]
    rows = []
    for feature in pd.unique(reliance["feature"]):
        v, w = _weighted(reliance, quantity, feature)
        q = rid_quantile(v, w, probs)
        rec = {"feature": feature, "quantity": quantity, "mean": float(np.sum(v * w))}
        rec.update({f"q{p:g}": float(x) for p, x in zip(probs, q)})
        rec["prob_reliance"] = float(np.sum(w[v > NO_RELIANCE[quantity]]))
        part = reliance[reliance["feature"] == feature]
        rec["n_resamples"] = int(part["bootstrap"].nunique())
        rec["n_values"] = int(len(part))
        rows.append(rec)
    return pd.DataFrame(rows)


def mcr_per_resample(reliance: pd.DataFrame) -> pd.DataFrame:
    """MCR⁻ and MCR⁺ (min and max MR over the set) per resample, feature and quantity.

    Fisher, Rudin & Dominici (2019), §4 (empirical MCR over the Rashomon set),
    with the pipeline's one min/max (:func:`xaipipe.rashomon.mcr.mcr_interval`:
    undefined MR values are left out; NaN when none is defined).

    Returns
    -------
    DataFrame
        :data:`MCR_COLUMNS`, one row per resample x feature x quantity.
    """
    from .mcr import mcr_interval

    if reliance.empty:
        return pd.DataFrame(columns=MCR_COLUMNS)
    rows = []
    for (b, feature), part in reliance.groupby(["bootstrap", "feature"], sort=False):
        for m in QUANTITIES:
            v = part[m].to_numpy(dtype=float)
            lo, hi, _ = mcr_interval(v)
            rows.append(
                {
                    "bootstrap": int(b),
                    "feature": feature,
                    "quantity": m,
                    "mcr_minus": float(v[lo]) if lo >= 0 else np.nan,
                    "mcr_plus": float(v[hi]) if hi >= 0 else np.nan,
                    "set_size": int(part["set_size"].iloc[0]),
                }
            )
    return pd.DataFrame(rows, columns=MCR_COLUMNS)


def min_resamples(confidence: float) -> int:
    """Fewest resamples ``B`` for which a two-sided percentile interval at ``confidence``
    is not simply the range: the ``(1 - c)/2`` quantile must lie at least one order
    statistic inside, ``(B - 1)(1 - c)/2 >= 1``, i.e. ``B >= 1 + 2 / (1 - c)``
    (41 at 95 %)."""
    c = float(confidence)
    return int(math.ceil(1.0 + 2.0 / (1.0 - c) - 1e-9))


def mcr_summary(mcr: pd.DataFrame, *, confidence: float = 0.95) -> pd.DataFrame:
    """Bootstrap intervals of the MCR endpoints across resamples, labelled by what they are.

    With ``B >= min_resamples(confidence)`` resamples the interval is the
    percentile bootstrap interval (Efron & Tibshirani 1993, §13.3): the
    ``(1 -/+ confidence)/2`` quantiles across resamples, ``interval =
    "percentile"``. With fewer (the default ``B = 10``) those quantiles are the
    smallest and largest values up to interpolation, and calling them a
    ``confidence`` interval would claim a coverage they do not have: the interval
    is then the *range over the B resamples* (min and max), ``interval = "range"``,
    and ``confidence`` is NaN. The range of ``B`` draws covers a quantile ``q`` of
    the bootstrap distribution with probability ``1 - q^B - (1 - q)^B`` only, and
    says nothing more; increase ``B`` for a real interval.

    Parameters
    ----------
    mcr : DataFrame
        :data:`MCR_COLUMNS` (:func:`mcr_per_resample`).
    confidence : float in (0, 1), default 0.95

    Returns
    -------
    DataFrame
        Per feature and quantity: ``mcr_minus_median``, ``mcr_minus_low``,
        ``mcr_minus_high``, ``mcr_plus_median``, ``mcr_plus_low``,
        ``mcr_plus_high``, ``set_size_median``, ``n_resamples``, ``confidence``
        (NaN for a range), ``interval`` (``percentile`` or ``range``).

    Raises
    ------
    ValueError
        Bad ``confidence`` or missing columns.
    """
    c = float(confidence)
    if not 0 < c < 1:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence!r}")
    missing = [col for col in MCR_COLUMNS if col not in mcr.columns]
    if missing:
        raise ValueError(f"mcr table lacks columns {missing}")
    rows = []
    for (feature, m), part in mcr.groupby(["feature", "quantity"], sort=False):
        rec = {"feature": feature, "quantity": m}
        B = int(part["bootstrap"].nunique())
        percentile = B >= min_resamples(c)
        lo, hi = ((1 - c) / 2, (1 + c) / 2) if percentile else (0.0, 1.0)
        for end in ("mcr_minus", "mcr_plus"):
            v = part[end].to_numpy(dtype=float)
            rec[f"{end}_median"] = float(np.median(v))
            rec[f"{end}_low"], rec[f"{end}_high"] = (float(x) for x in np.quantile(v, [lo, hi]))
        rec["set_size_median"] = float(np.median(part["set_size"]))
        rec["n_resamples"] = B
        rec["confidence"] = c if percentile else np.nan
        rec["interval"] = "percentile" if percentile else "range"
        rows.append(rec)
    return pd.DataFrame(rows)
