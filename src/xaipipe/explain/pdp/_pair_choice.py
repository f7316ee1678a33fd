"""Which pair of variables the 2-D figures show: the pair of largest Friedman H² (issue 43).

The ``pd_ice`` rule draws its 2-D PD, and through ``pd_2d.csv`` the ``ale`` rule its second-order
ALE, for :func:`strongest_h2_pair` of the model's H-statistic table (rule ``h_statistic``,
:func:`xaipipe.explain.pdp.h_statistic`). A module of its own, so that only the rule that
chooses the pair depends on it (``xaipipe.report.code_version``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["H2_ZERO", "strongest_h2_pair"]

#: H² at or below which a pair has no interaction (:func:`strongest_h2_pair`): an additive model's H²
#: is rounding error (1e-31 to 1e-28 for the linear models of the small configuration).
H2_ZERO = 1e-8


def strongest_h2_pair(table: pd.DataFrame, fallback=(), *, zero: float = H2_ZERO) -> tuple[str, str] | None:
    """The pair of largest Friedman H² in an H-statistic table, else the first two of ``fallback``.

    The ``pd_ice`` rule draws its 2-D PD (and the ``ale`` rule its second-order ALE) for this pair:
    the H-statistic table (rule ``h_statistic``) ranks the pairs of the top variables by MR by how
    much of their joint PD is interaction, so the figure shows the interaction the model has, not
    the two variables it relies on most (on additive variables a 2-D PD shows nothing the 1-D PDs do
    not). On the simulated Friedman-1 data the largest H² is the DGP's only interaction, x1 × x2.

    Parameters
    ----------
    table : DataFrame
        ``h_statistic.csv`` of one model (:meth:`HStatisticResult.to_frame` columns ``kind``,
        ``feature_1``, ``feature_2``, ``h2``); multiclass tables hold one class (``explain.figure_class``).
    fallback : sequence of str
        Variables ranked by MR: its first two are the pair when no pairwise row has a finite H² above
        ``zero`` (fewer than two top variables, a constant PD, a model additive in the top variables).
    zero : float, default :data:`H2_ZERO`
        H² at or below this is no interaction (an additive model's H² is rounding error, which would
        otherwise pick a pair at random).

    Returns
    -------
    (str, str) or None
        ``(feature_1, feature_2)`` as the table orders them (ties: the first such row); None when
        there is no pair at all.
    """
    part = table[(table["kind"] == "pairwise")] if len(table) else table
    if len(part):
        h2 = part["h2"].to_numpy(dtype=float)
        finite = np.isfinite(h2) & (h2 > zero)
        if finite.any():
            best = int(np.flatnonzero(finite)[np.argmax(h2[finite])])
            row = part.iloc[best]
            return str(row["feature_1"]), str(row["feature_2"])
    fallback = list(fallback)
    return (str(fallback[0]), str(fallback[1])) if len(fallback) >= 2 else None
