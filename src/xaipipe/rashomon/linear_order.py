"""The exact consensus order of the class of all linear models: one trust-region problem per pair.

Issue 45, item 4, at the ``linear_exact`` scope (:mod:`xaipipe.rashomon.linear`: the class of all
linear models ``f(x) = b0 + x'β`` with squared loss, its empirical Rashomon set ``R(ε)`` on the
test split around the training-split OLS). The certified MCR bounds give a sufficient condition
for ``A ≻ B`` (:func:`xaipipe.rashomon.consensus.certified_order`); this module decides every pair
exactly.

Why one problem per pair suffices. For one model, ``MR_A > MR_B`` (ratio or difference) iff
``e_switch,A > e_switch,B`` (the two MR of a model share its ``e_orig``), i.e. iff
``D_A(β) - D_B(β) > 0`` with ``D = e_switch - e_orig`` (:mod:`xaipipe.rashomon.linear`,
"Quadratic forms"). ``D`` does not depend on the intercept, and the intercept's mean residual
``m`` only adds ``m²`` to ``e_orig``, so the slopes of ``R(ε)`` are exactly the ellipsoid
``e_orig(β, m = 0) ≤ bound`` -- in the whitened basis of :func:`~xaipipe.rashomon.linear.linear_mcr`
the ball ``‖w‖ ≤ ρ``. ``D_A - D_B`` is a (generally indefinite) quadratic in ``w``, so

.. math:: A \\succ B \\text{ over } \\mathcal R(\\epsilon) \\iff
          \\min_{\\|w\\| \\le \\rho} \\big(D_A(w) - D_B(w)\\big) > 0,

a trust-region subproblem solved globally (Moré & Sorensen 1983; the same solver as the MCR
difference) with a Lagrangian dual bound. ``a_over_b`` when the certified lower bound of the
minimum is positive, ``b_over_a`` when the certified upper bound of the maximum is negative,
``incomparable`` when attained models lie on both sides of zero (``d_min <= 0 <= d_max``: the
minimising and maximising models, reported as ``coef_min`` / ``coef_max``, are the witnesses), and
``not_certified`` in the remaining rounding band. No ``tie``: no pair is equal over a continuum
unless ``D_A - D_B`` vanishes identically (reported as ``tie`` then).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from scipy import linalg

from ._linear_basis import _whiten, check_inputs
from .linear import _difference, _Problem, linear_loss_bound

__all__ = ["LINEAR_ORDER_COLUMNS", "linear_exact_order", "linear_pair_order"]

#: Columns of :func:`linear_pair_order` (and, with ``epsilon_grid`` first, :func:`linear_exact_order`).
LINEAR_ORDER_COLUMNS = [
    "feature_a",
    "feature_b",
    "relation",
    "d_min",
    "d_min_lower",
    "d_max",
    "d_max_upper",
    "loss_bound",
    "intercept_min",
    "coef_min",
    "intercept_max",
    "coef_max",
]


def linear_pair_order(
    X,
    y,
    *,
    reference_coef,
    reference_intercept: float,
    epsilon: float,
    features=None,
    feature_names: Sequence[str] | None = None,
    feature_groups: Mapping[str, Sequence[str]] | None = None,
) -> pd.DataFrame:
    """The exact order of every pair of variables over all linear models of ``R(ε)`` (module docstring).

    Parameters
    ----------
    X, y, reference_coef, reference_intercept, epsilon, features, feature_names, feature_groups
        As :func:`xaipipe.rashomon.linear.linear_mcr` (the sample, the reference, the absolute loss
        slack ``ε`` in squared target units, the variables).

    Returns
    -------
    DataFrame
        One row per pair ``i < j`` of variables, :data:`LINEAR_ORDER_COLUMNS`: ``relation``;
        ``d_min`` / ``d_max`` the smallest / largest ``e_switch,A - e_switch,B`` over ``R(ε)``
        attained by a model (loss units), ``d_min_lower`` / ``d_max_upper`` their certified bounds;
        ``loss_bound``; the attaining models' intercepts and slopes (JSON, units of ``X``).

    Raises
    ------
    ValueError
        As :func:`~xaipipe.rashomon.linear.linear_mcr` (bad inputs, a variable exactly collinear
        with the others, a constant ``y``).
    """
    X, y, coef, b0, eps, groups = check_inputs(
        X, y, reference_coef, reference_intercept, epsilon, features, feature_names, feature_groups
    )
    p = X.shape[1]
    wh = _whiten(X, y, coef, b0, eps, False)
    forms = {}
    for fname, cols in groups.items():
        G = np.zeros(p, bool)
        G[cols] = True
        forms[fname] = wh.form(G, fname)
    keys = list(forms)
    rows = []
    for i, a in enumerate(keys):
        for b in keys[i + 1 :]:
            (Ka, ba, da), (Kb, bb, db) = forms[a], forms[b]
            K = Ka - Kb
            prob = _Problem(K=K, b=ba - bb, d0=da - db, e_min=wh.e_min, rho=wh.rho, w_ref=wh.w_ref, m_ref=wh.m_ref_n)
            eig = linalg.eigh(K) if K.shape[0] else (np.zeros(0), np.zeros((0, 0)))
            lo, lo_b, w_lo, _, _ = _difference(prob, -1, eig)
            hi, hi_b, w_hi, _, _ = _difference(prob, +1, eig)
            lo, lo_b, hi, hi_b = (wh.c0 * v for v in (lo, lo_b, hi, hi_b))
            if lo_b > 0:
                relation = "a_over_b"
            elif hi_b < 0:
                relation = "b_over_a"
            elif lo_b == hi_b == 0:
                relation = "tie"
            elif lo <= 0 <= hi:
                relation = "incomparable"
            else:
                relation = "not_certified"
            int_lo, beta_lo = wh.to_model(w_lo, 0.0)
            int_hi, beta_hi = wh.to_model(w_hi, 0.0)
            rows.append(
                {
                    "feature_a": a,
                    "feature_b": b,
                    "relation": relation,
                    "d_min": lo,
                    "d_min_lower": lo_b,
                    "d_max": hi,
                    "d_max_upper": hi_b,
                    "loss_bound": wh.bound_abs,
                    "intercept_min": int_lo,
                    "coef_min": json.dumps([float(v) for v in beta_lo]),
                    "intercept_max": int_hi,
                    "coef_max": json.dumps([float(v) for v in beta_hi]),
                }
            )
    return pd.DataFrame(rows, columns=LINEAR_ORDER_COLUMNS)


def linear_exact_order(
    X_train,
    y_train,
    X_test,
    y_test,
    *,
    epsilons: Sequence[float],
    epsilon_mode: str = "se",
    feature_names: Sequence[str],
    feature_groups: Mapping[str, Sequence[str]] | None = None,
) -> pd.DataFrame:
    """:func:`linear_pair_order` at every ε of the grid, with the ``linear_exact`` scope's reference and
    sets (:func:`xaipipe.rashomon.linear.linear_exact_scope`: OLS on the training split, the loss
    bound of :func:`~xaipipe.rashomon.linear.linear_loss_bound` on the test split).

    Returns
    -------
    DataFrame
        ``epsilon_grid`` then :data:`LINEAR_ORDER_COLUMNS`, one row per ε x pair.
    """
    from sklearn.linear_model import LinearRegression

    Xtr, Xte = np.asarray(X_train, dtype=float), np.asarray(X_test, dtype=float)
    ols = LinearRegression().fit(Xtr, np.asarray(y_train, dtype=float))
    frames = []
    for eps in sorted(set(float(e) for e in epsilons)):
        e_ref, bound = linear_loss_bound(Xte, y_test, ols.coef_, ols.intercept_, eps, epsilon_mode)
        out = linear_pair_order(
            Xte,
            y_test,
            reference_coef=ols.coef_,
            reference_intercept=float(ols.intercept_),
            epsilon=bound - e_ref,
            feature_names=list(feature_names),
            feature_groups=feature_groups,
        )
        out.insert(0, "epsilon_grid", eps)
        frames.append(out)
    if not frames:
        return pd.DataFrame(columns=["epsilon_grid", *LINEAR_ORDER_COLUMNS])
    return pd.concat(frames, ignore_index=True)
