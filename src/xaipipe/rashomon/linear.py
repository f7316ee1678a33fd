"""Exact model class reliance (MCR) of the class of linear regression models
with squared loss.

Model class and sample
----------------------
``F = {f(x) = b0 + x'β : b0 ∈ R, β ∈ R^p}`` -- every linear model with a free
intercept, no norm constraint -- and the squared loss ``L = (y - f(x))²``. All
quantities are the paper's *empirical* ones (Fisher, Rudin & Dominici 2019,
"All Models are Wrong, but Many are Useful", JMLR 20(177), §3 and §6), computed
on ONE sample ``(y, X)`` of ``n`` rows (in the pipeline the test split, with
the reference model ``f_ref`` = OLS fitted on the training split):

* ``e_orig(f) = (1/n) Σ_i (y_i - f(X1_i, X2_i))²``
* ``e_switch(f) = 1/(n(n-1)) Σ_i Σ_{j≠i} (y_j - f(X1_i, X2_j))²`` (all ordered pairs)
* ``MR(f) = e_switch(f) / e_orig(f)`` (``"mr_ratio"``) and
  ``e_switch(f) - e_orig(f)`` (``"mr_difference"``, loss units)
* ``R(ε) = {f ∈ F : e_orig(f) ≤ e_orig(f_ref) + ε}`` (``ε`` absolute, in squared
  target units; the bound ``e_orig(f_ref) + ε`` is reported as ``loss_bound``)
* ``MCR-(ε) = min_{f ∈ R(ε)} MR(f)``, ``MCR+(ε) = max_{f ∈ R(ε)} MR(f)``.

``X1`` is the variable of interest (one column or a group of columns permuted
jointly, e.g. a one-hot group), ``X2`` the other columns.

Quadratic forms (how the intercept enters)
------------------------------------------
Centre the sample, ``X̃ = X - x̄``, ``ỹ = y - ȳ``, and write the intercept through
the *mean residual* ``m = ȳ - b0 - x̄'β``. Then, exactly,

* ``e_orig(β, m)   = (1/n)‖ỹ - X̃β‖² + m²``
* ``e_switch(β, m) = (1/n)‖ỹ - X̃2β2‖² + (1/n)‖X̃1β1‖²
  + 2/(n(n-1)) (ỹ - X̃2β2)'X̃1β1 + m²``

(expand ``Σ_{i≠j}`` as the full double sum minus the diagonal; the centred columns
sum to zero). So the intercept enters both losses as the same ``+ m²``, and

* ``D(β) = e_switch - e_orig = 2/(n-1) · (ỹ - X̃2β2)'X̃1β1``

does not depend on it. As quadratic forms ``β'Aβ + a'β + c + m²``
(:func:`linear_loss_forms`): ``A_orig = X̃'X̃/n``, ``a_orig = -2X̃'ỹ/n``,
``c = ỹ'ỹ/n``; ``A_switch`` / ``a_switch`` are the same with the cross moments
between ``X1`` and ``(X2, y)`` multiplied by ``-1/(n-1)``. (This is the centred
form of the "full permuted" cross-products of the authors' R package ``mcr``,
``get_XtX_perm_lm`` / ``get_ytX_perm_lm``.) A free intercept matters for the
ratio: spending loss budget on a wrong intercept adds the same ``m²`` to both
losses and pulls MR towards 1, so ``MCR-`` of a variable every good model relies
on can be attained by a model with ``m ≠ 0``.

Algorithm
---------
1. *Well-conditioned basis.* Columns are centred and scaled to unit root mean
   square, then ``X̃_s/√n = U Σ V'`` (Householder QR, then the SVD of its
   triangular factor; singular values below
   ``max(n, p)·eps·σ_1`` dropped). In ``u = Σ V' β_s / √c0`` (``c0 = ỹ'ỹ/n``) and
   ``m`` scaled likewise, ``e_orig/c0 = e_min + ‖u - u0‖² + m²`` with ``u0 = U'ỹ``
   the OLS fit on this sample: ``R(ε)`` is the ball ``‖(u - u0, m)‖ ≤ ρ`` with
   ``ρ² = (loss_bound - e_orig(OLS))/c0``, and ``D/c0`` is a (generally
   indefinite) quadratic in ``u``. The class is invariant to affine rescaling
   of columns, so nothing is lost; the condition number of the raw design
   (Diabetes ~5e7, Airfoil ~1e11) never enters a solve. Directions dropped as
   null are within one side (``X1`` or ``X2``) and change neither loss; a null
   direction that trades ``X1`` against ``X2`` (exact collinearity across the
   split, e.g. one level of a one-hot group taken alone) makes ``MCR+``
   infinite and raises ``ValueError``.
2. *Difference* ``e_switch - e_orig``: ``min`` / ``max`` of ``D`` over the ball is
   a trust-region subproblem (a quadratic program with one quadratic
   constraint), solved globally: eigendecomposition, secular equation for the
   multiplier (Brent's method on ``1/ρ - 1/‖x(λ)‖`` in the shifted variable
   ``δ = λ + λ_min``, which keeps near-singular curvatures accurate), "hard
   case" handled explicitly (Moré & Sorensen 1983).
3. *Ratio* ``MR = 1 + D/e_orig``: a search over the MR level ``t`` (the multiplier
   of the paper's §6 binary search: for MCR- the subproblem
   ``min_{R(ε)} e_switch - t·e_orig`` is the paper's ``h_{-,γ}`` with ``γ = -t``;
   for MCR+ ``max_{R(ε)} e_switch - t·e_orig`` is ``-t·h_{+,γ}`` with ``γ = -1/t``).
   Each subproblem is again a trust-region subproblem over the ball
   ``R(ε)`` (in ``(u, m)``), solved globally. Levels are updated by Dinkelbach's
   (1967) rule ``t ← MR(f_t)`` of the subproblem's solution ``f_t``, with a
   bisection step whenever an update fails to halve the bracket.
4. *Certificates.* Every subproblem also returns a Lagrangian dual bound (weak
   duality of the trust-region subproblem). For MCR+ at level ``t`` with
   ``max_{R(ε)} (e_switch - t e_orig) ≤ φ``: every ``f ∈ R(ε)`` has
   ``MR(f) ≤ t + φ / e_orig(f) ≤ t + φ/e_min`` (``φ ≥ 0``; ``t + φ/loss_bound``
   if ``φ < 0``), and symmetrically for MCR-. The search stops when
   ``bound - attained ≤ tol · max(1, |MCR-|, |MCR+|)`` (``tol`` default ``1e-10``;
   MCR+ is searched first and sets the scale), when the bracket has stopped
   narrowing for 5 subproblems (the floating-point floor, about
   ``eps · max|MR|``), or after ``max_iter`` subproblems; ``mcr_minus`` /
   ``mcr_plus`` are MR values
   *attained* by the returned models (members of ``R(ε)``), ``mcr_minus_lower`` /
   ``mcr_plus_upper`` the certified outer bounds, ``converged`` whether the gap
   met ``tol``.

Departure from the paper's computation: Fisher et al. (§6; R package ``mcr``,
``getMCR_internal`` with ``get_h_min_lm_unregularized``) minimise ``h_γ`` over the
*whole* class ``F`` and binary-search ``γ`` until the minimiser's loss hits the
bound; for linear models ``h_γ`` is unbounded below once its Hessian is
indefinite, and a minimiser strictly inside ``R(ε)`` leaves a gap. Here the
loss constraint is kept in every subproblem, which makes each step a global,
exactly solvable trust-region problem and the result exact up to ``tol`` with a
certificate. The paper's bounds remain valid and are checked against these
intervals in ``tests/rashomon/test_linear.py``.

Why one module of this size (~860 lines since the tree was formatted with ruff): the
loss forms, the trust-region subproblem, the difference and ratio searches and the
scope builder share the private problem class and its eigen-decomposition
(``_Problem``, ``_trs``); the public surface is three functions.

References
----------
Fisher, A., Rudin, C. & Dominici, F. (2019). JMLR 20(177), 1-81.
Dinkelbach, W. (1967). On nonlinear fractional programming. Management Science
13(7), 492-498. Moré, J. J. & Sorensen, D. C. (1983). Computing a trust region
step. SIAM J. Sci. Stat. Comput. 4(3), 553-572.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import linalg, optimize

from ._linear_basis import _EPS, _as_matrix, _as_scalar, _as_vector, _whiten, check_inputs

__all__ = [
    "LINEAR_EXACT",
    "LINEAR_EXACT_COLUMNS",
    "LinearLossForms",
    "linear_loss_forms",
    "linear_mcr",
    "linear_loss_bound",
    "linear_exact_scope",
]

#: Reliance quantities (as in :mod:`xaipipe.rashomon.sets`).
QUANTITIES = ("mr_ratio", "mr_difference")


# ----------------------------------------------------------------------------- input checks


def _columns(columns, p: int) -> np.ndarray:
    idx = np.atleast_1d(np.asarray(columns))
    if idx.size == 0:
        raise ValueError("columns of the variable of interest are empty")
    if idx.dtype.kind not in "iu":
        raise ValueError(f"columns must be integer indices, got {columns!r}")
    if idx.min() < 0 or idx.max() >= p:
        raise ValueError(f"column index out of range for {p} columns: {columns!r}")
    if len(set(idx.tolist())) != idx.size:
        raise ValueError(f"a column is listed twice: {columns!r}")
    return np.sort(idx.astype(np.intp))


# ----------------------------------------------------------------------------- quadratic forms


@dataclass(frozen=True)
class LinearLossForms:
    """``e_orig`` and ``e_switch`` of ``f(x) = b0 + x'β`` as quadratic forms in ``β``.

    ``e(β, b0) = β' A β + a' β + c + m²`` with the mean residual
    ``m = y_mean - b0 - x_mean'β`` (module docstring). Attributes are ``(p, p)``
    matrices, ``(p,)`` vectors and floats.
    """

    columns: np.ndarray
    n_samples: int
    x_mean: np.ndarray
    y_mean: float
    orig_matrix: np.ndarray
    orig_vector: np.ndarray
    switch_matrix: np.ndarray
    switch_vector: np.ndarray
    constant: float

    def mean_residual(self, coef, intercept) -> np.ndarray:
        """``m = y_mean - b0 - x_mean'β``; ``coef`` of shape ``(p,)`` or ``(k, p)``."""
        coef = np.asarray(coef, dtype=float)
        return self.y_mean - np.asarray(intercept, dtype=float) - coef @ self.x_mean

    def _value(self, A, a, coef, intercept):
        coef = np.asarray(coef, dtype=float)
        quad = np.einsum("...i,ij,...j->...", coef, A, coef)
        return quad + coef @ a + self.constant + self.mean_residual(coef, intercept) ** 2

    def e_orig(self, coef, intercept) -> np.ndarray:
        """Empirical loss ``(1/n) Σ_i (y_i - b0 - x_i'β)²``."""
        return self._value(self.orig_matrix, self.orig_vector, coef, intercept)

    def e_switch(self, coef, intercept) -> np.ndarray:
        """``1/(n(n-1)) Σ_i Σ_{j≠i} (y_j - b0 - X1_i'β1 - X2_j'β2)²``."""
        return self._value(self.switch_matrix, self.switch_vector, coef, intercept)


def linear_loss_forms(X, y, columns) -> LinearLossForms:
    """Exact quadratic forms of ``e_orig`` and ``e_switch`` for linear models.

    Parameters
    ----------
    X : array-like of shape (n, p)
    y : array-like of shape (n,)
    columns : int or sequence of int
        Columns of ``X1`` (switched jointly).

    Returns
    -------
    LinearLossForms
        ``A_orig = X̃'X̃/n``, ``a_orig = -2X̃'ỹ/n``, ``c = ỹ'ỹ/n`` on the centred
        sample; ``A_switch``, ``a_switch`` equal them except that the blocks
        ``[X1, X2]`` / ``[X2, X1]`` and the ``X1`` entries of ``a`` are multiplied
        by ``-1/(n-1)`` (Fisher et al. 2019, §3 definition of ``ê_switch``,
        expanded over all ``n(n-1)`` ordered pairs).

    Raises
    ------
    ValueError
        Non-numeric or non-finite input, shape mismatch, ``n < 2``, bad columns.

    Notes
    -----
    Evaluating a quadratic form in raw coordinates loses relative accuracy on
    ill-conditioned designs; :func:`linear_mcr` never does, it works in a
    whitened basis.
    """
    X, _ = _as_matrix(X)
    n, p = X.shape
    y = _as_vector(y, "y", n)
    if n < 2:
        raise ValueError("e_switch needs at least 2 samples")
    G = _columns(columns, p)
    xm, ym = X.mean(axis=0), float(y.mean())
    Xc, yc = X - xm, y - ym
    A = Xc.T @ Xc / n
    a = -2.0 * (Xc.T @ yc) / n
    c = float(yc @ yc / n)
    other = np.setdiff1d(np.arange(p), G)
    As, as_ = A.copy(), a.copy()
    f = -1.0 / (n - 1)
    As[np.ix_(G, other)] *= f
    As[np.ix_(other, G)] *= f
    as_[G] *= f
    return LinearLossForms(G, n, xm, ym, A, a, As, as_, c)


# ----------------------------------------------------------------------------- trust region


@dataclass
class _TRS:
    x: np.ndarray  # solution in the eigenbasis
    value: float  # objective at x (without constant)
    dual: float  # certified lower bound on the minimum
    lam: float  # multiplier of the ball constraint


def _trs(lam_eig: np.ndarray, gt: np.ndarray, radius: float) -> _TRS:
    """Globally minimise ``Σ lam_i x_i² + gt'x`` over ``‖x‖ ≤ radius`` (eigenbasis).

    Moré & Sorensen (1983): ``x(λ) = -gt / (2(lam + λ))`` with the multiplier
    ``λ ≥ max(0, -lam_min)`` the root of ``‖x(λ)‖ = radius`` unless the
    unconstrained minimiser is interior; hard case when ``gt`` has no weight on
    the leftmost eigenvectors. ``dual`` is the Lagrangian bound
    ``-Σ gt_i²/(4(lam_i + λ')) - λ' radius²`` at the best admissible ``λ'``.
    """
    r = lam_eig.size
    if radius <= 0.0 or r == 0:
        return _TRS(np.zeros(r), 0.0, 0.0, 0.0)
    order = np.argsort(lam_eig, kind="stable")
    if np.any(order != np.arange(r)):
        res = _trs(lam_eig[order], gt[order], radius)
        x = np.empty(r)
        x[order] = res.x
        return _TRS(x, res.value, res.dual, res.lam)
    gnorm = float(np.linalg.norm(gt))
    scale = max(float(np.abs(lam_eig).max()), gnorm / radius, 1e-300)
    tiny = 64 * _EPS * scale
    l1 = float(lam_eig[0])
    # multiplier λ = lam_lo + δ; the curvatures lam_i + λ = base_i + δ are formed from the
    # exact gaps base_i = lam_i - lam_1 (base_1 = 0), so small ones keep full relative accuracy
    lam_lo = max(0.0, -l1)
    base = lam_eig - l1 if l1 < 0 else lam_eig.copy()
    active = gt != 0

    def value(x):
        return float(lam_eig @ (x * x) + gt @ x)

    def dual_at(delta):
        d = base + delta
        if np.any(d < 0) or np.any(d[active] <= 0):
            return -np.inf
        return float(-np.sum(gt[active] ** 2 / (4.0 * d[active])) - (lam_lo + delta) * radius * radius)

    def finish(x, delta):
        nx = float(np.linalg.norm(x))
        if nx > radius:  # rounding: stay feasible
            x = x * (radius / nx)
        duals = [dual_at(delta * f + k * tiny) for f, k in ((1.0, 0.0), (1.0 + 1e-8, 0.0), (1.0, 1.0), (1.0, 1e2))]
        return _TRS(x, value(x), max(duals), lam_lo + delta)

    if l1 > tiny:  # convex: interior minimiser?
        x0 = -gt / (2.0 * lam_eig)
        if np.linalg.norm(x0) <= radius:
            return finish(x0, 0.0)

    def xnorm(delta):
        with np.errstate(over="ignore", divide="ignore"):
            return float(np.linalg.norm(gt / (2.0 * (base + delta))))

    a = 1e-30 * scale
    if gnorm > 0 and xnorm(a) > radius:
        hi = gnorm / (2.0 * radius) + tiny  # every curvature >= hi: ‖x(hi)‖ <= radius

        def f(delta):  # decreasing in delta
            return 1.0 / radius - 1.0 / xnorm(delta)

        delta = optimize.brentq(f, a, hi, xtol=1e-300, rtol=8 * _EPS, maxiter=1000)
        return finish(-gt / (2.0 * (base + delta)), delta)
    # hard case (δ = 0): fill the ball along the leftmost eigenvectors
    deg = base <= tiny
    x = np.zeros(r)
    x[~deg] = -gt[~deg] / (2.0 * base[~deg])
    left = radius * radius - float(x @ x)
    if deg.any() and left > 0 and (l1 < 0 or np.any(gt[deg] != 0)):
        gd = gt[deg]
        nd = np.linalg.norm(gd)
        direction = -gd / nd if nd > 0 else np.eye(int(deg.sum()))[0]
        x[deg] = math.sqrt(left) * direction
    return finish(x, 0.0)


# ----------------------------------------------------------------------------- the problem


@dataclass
class _Problem:
    """One variable's MCR problem in whitened coordinates (units of c0)."""

    K: np.ndarray  # D(w) = w'Kw + b'w + d0, w = u - u0
    b: np.ndarray
    d0: float
    e_min: float  # e_orig of the sample's OLS fit / c0
    rho: float  # radius of R(eps) in (w, m)
    w_ref: np.ndarray
    m_ref: float

    def D(self, w):
        return float(w @ self.K @ w + self.b @ w + self.d0)

    def e(self, w, m):
        return self.e_min + float(w @ w) + m * m


def _difference(prob: _Problem, sign: int, K_eig):
    """Extreme of D over ‖w‖ ≤ ρ (sign +1: max). Returns (value, bound, w, m, 1)."""
    lam, Q = K_eig
    s = float(sign)
    res = _trs(-s * lam, -s * (Q.T @ prob.b), prob.rho)
    w = Q @ res.x
    val = prob.D(w)
    bound = prob.d0 - s * res.dual  # max D ≤ d0 - dual(min -D); min D ≥ d0 + dual(min D)
    if sign > 0:
        bound = max(bound, val)
    else:
        bound = min(bound, val)
    return val, bound, w, 0.0, 1


def _ratio(prob: _Problem, sign: int, Kh_eig, tol: float, max_iter: int, scale: float = 1.0):
    """Extreme of τ = D/e over the ball in (w, m) (sign +1: max). Values on the τ scale.

    Stops when ``|bound - attained| ≤ tol · max(scale, |1 + attained|)``, or when the
    bracket has not narrowed for 5 subproblems (the floating-point floor).
    Returns (attained τ, certified bound, w, m, iterations).
    """
    lam, Q = Kh_eig  # eigen of blockdiag(K, 0) (size r+1)
    r1 = lam.size
    bh = np.concatenate([prob.b, [0.0]])
    bt = Q.T @ bh
    e_max = prob.e_min + prob.rho**2
    s = float(sign)
    w_best, m_best = prob.w_ref.copy(), prob.m_ref
    best = prob.D(w_best) / prob.e(w_best, m_best)
    bound = np.inf * s
    tau = best
    it = 0
    prev_width = np.inf
    smallest, stalled = np.inf, 0
    for it in range(1, max_iter + 1):  # noqa: B007 (the count is returned)
        # minimise s*(tau*e - D) = sum s(tau - lam_i) x_i^2 - s*bt'x + s(tau e_min - d0)
        res = _trs(s * (tau - lam), -s * bt, prob.rho)
        theta = Q @ res.x
        w, m = theta[: r1 - 1], float(theta[-1])
        val = prob.D(w) / prob.e(w, m)
        if s * (val - best) > 0:
            best, w_best, m_best = val, w, m
        const = s * (tau * prob.e_min - prob.d0)
        v_lo = res.dual + const  # ≤ min over the ball of s*(tau e - D)
        # sign +1: max (D - tau e) ≤ -v_lo ; sign -1: min (D - tau e) ≥ v_lo
        phi = -v_lo if sign > 0 else v_lo
        if sign > 0:
            cand = tau + (phi / prob.e_min if phi >= 0 else phi / e_max)
            bound = min(bound, cand)
            bound = max(bound, best)
        else:
            cand = tau + (phi / prob.e_min if phi <= 0 else phi / e_max)
            bound = max(bound, cand)
            bound = min(bound, best)
        width = abs(bound - best)
        if width <= tol * max(scale, abs(1.0 + best)):
            break
        if width < smallest:
            smallest, stalled = width, 0
        else:
            stalled += 1
            if stalled >= 5:
                break
        # Dinkelbach step (tau <- attained ratio); bisection if the bracket did not halve
        tau = best if width <= 0.5 * prev_width else 0.5 * (best + bound)
        prev_width = width
    return best, bound, w_best, m_best, it


def _check_quantities(quantity) -> list[str]:
    qs = [quantity] if isinstance(quantity, str) else list(quantity)
    bad = [q for q in qs if q not in QUANTITIES]
    if bad or not qs:
        raise ValueError(f"quantity must be a non-empty subset of {list(QUANTITIES)}, got {quantity!r}")
    return qs


def linear_mcr(
    X,
    y,
    *,
    reference_coef,
    reference_intercept: float,
    epsilon: float,
    features=None,
    feature_names: Sequence[str] | None = None,
    feature_groups: Mapping[str, Sequence[str]] | None = None,
    quantity: str | Sequence[str] = QUANTITIES,
    tol: float = 1e-10,
    max_iter: int = 200,
) -> pd.DataFrame:
    """Exact empirical MCR over all linear regression models (squared loss).

    The paper's empirical MCR (Fisher, Rudin & Dominici 2019, §4 and §6): for each
    variable, the smallest and largest model reliance over the empirical Rashomon
    set ``R(ε) = {f : e_orig(f) ≤ e_orig(f_ref) + ε}`` of the class of all linear
    models ``f(x) = b0 + x'β`` (free intercept, no norm constraint). ``e_orig``,
    ``e_switch`` (all ``n(n-1)`` ordered pairs), MR and the loss bound are all
    computed on the SAME sample ``(X, y)``: in the pipeline the test split, with
    ``f_ref`` the OLS fit on the training split. Algorithm, tolerance and
    certificates: module docstring.

    Parameters
    ----------
    X : array-like or DataFrame of shape (n, p)
        The sample (raw units; standardised internally).
    y : array-like of shape (n,)
    reference_coef : array-like of shape (p,)
        Slopes of the reference model, in the units of ``X``.
    reference_intercept : float
    epsilon : float
        Absolute loss slack, ``≥ 0``, in squared target units (e.g. ``0.05 ·
        e_orig(f_ref)`` for 5 % of the reference MSE).
    features : mapping, sequence or None
        Variables (:func:`xaipipe.explain.reliance.resolve_features`); default
        every column, or ``feature_groups`` merged (one-hot groups permuted
        jointly) when ``feature_names`` is given.
    feature_names : sequence of str, optional
        Column names (default: ``X.columns`` of a DataFrame).
    feature_groups : mapping name -> column names, optional
        One-hot groups (:func:`xaipipe.explain.reliance.features_from_groups`).
    quantity : {"mr_ratio", "mr_difference"} or a sequence of them
    tol : float, default=1e-10
        Stop when the certified gap ``bound - attained`` of an endpoint is at most
        ``tol · max(1, |MCR-|, |MCR+|)`` for the ratio, ``tol · max(|MCR-|, |MCR+|,
        e_orig(OLS))`` for the difference (one trust-region solve per endpoint);
        ``converged`` reports whether it was met.
    max_iter : int, default=200
        Subproblems per ratio endpoint.

    Returns
    -------
    DataFrame
        One row per variable × quantity: ``feature``, ``columns`` (JSON list of
        column indices), ``quantity``, ``n_samples``, ``epsilon``,
        ``e_orig_reference``, ``e_orig_min`` (OLS on this sample),
        ``loss_bound`` (``e_orig_reference + epsilon``), ``mr_reference``,
        ``mcr_minus``, ``mcr_plus`` (attained by the models below),
        ``mcr_minus_lower``, ``mcr_plus_upper`` (certified outer bounds),
        ``gap`` (largest of the two endpoint gaps), ``converged`` (gap within
        ``tol``), ``iterations`` (subproblems solved, both endpoints),
        ``e_orig_argmin`` / ``e_orig_argmax``, ``intercept_argmin`` /
        ``intercept_argmax`` and ``coef_argmin`` / ``coef_argmax`` (JSON lists, units
        of ``X``) of the extreme models. ``MCR-`` below 1 is reported as is.

    Raises
    ------
    ValueError
        Bad shapes or values, ``epsilon < 0``, an unknown feature or group column,
        ``n < 2``, a constant ``y``, a sample fitted exactly (ratio undefined), a
        reference outside ``R(ε)`` (impossible unless the inputs disagree), or a
        variable exactly collinear with the other columns (``MCR+ = ∞``).
    """
    X, y, coef, b0, eps, groups = check_inputs(
        X, y, reference_coef, reference_intercept, epsilon, features, feature_names, feature_groups
    )
    n, p = X.shape
    tol = _as_scalar(tol, "tol")
    if not 0 < tol < 1:
        raise ValueError(f"tol must be in (0, 1), got {tol!r}")
    if int(max_iter) != max_iter or max_iter < 1:
        raise ValueError(f"max_iter must be a positive integer, got {max_iter!r}")
    qs = _check_quantities(quantity)

    wh = _whiten(X, y, coef, b0, eps, "mr_ratio" in qs)
    c0, e_min, rho, e_ref, bound_abs = wh.c0, wh.e_min, wh.rho, wh.e_ref, wh.bound_abs
    rows = []
    for fname, cols in groups.items():
        G = np.zeros(p, bool)
        G[cols] = True
        K, b, d0 = wh.form(G, fname)
        prob = _Problem(K=K, b=b, d0=d0, e_min=e_min, rho=rho, w_ref=wh.w_ref, m_ref=wh.m_ref_n)
        r = K.shape[0]
        K_eig = linalg.eigh(K) if r else (np.zeros(0), np.zeros((0, 0)))
        Kh = np.zeros((r + 1, r + 1))
        Kh[:r, :r] = K
        Kh_eig = linalg.eigh(Kh)
        D_ref_direct = 2.0 / (n - 1) * float((wh.yc - wh.Xc[:, ~G] @ coef[~G]) @ (wh.Xc[:, G] @ coef[G]))
        to_model = wh.to_model

        for q in qs:
            if q == "mr_ratio":
                hi, hi_b, w_hi, m_hi, it_hi = _ratio(prob, +1, Kh_eig, tol, int(max_iter))
                size = max(1.0, abs(1.0 + hi))
                lo, lo_b, w_lo, m_lo, it_lo = _ratio(prob, -1, Kh_eig, tol, int(max_iter), size)
                size = max(size, abs(1.0 + lo))
                vals = [1.0 + lo, 1.0 + hi, 1.0 + lo_b, 1.0 + hi_b]
                mr_ref = (e_ref + D_ref_direct) / e_ref
                conv = [abs(lo - lo_b) <= tol * size, abs(hi_b - hi) <= tol * size]
            else:
                lo, lo_b, w_lo, m_lo, it_lo = _difference(prob, -1, K_eig)
                hi, hi_b, w_hi, m_hi, it_hi = _difference(prob, +1, K_eig)
                vals = [c0 * lo, c0 * hi, c0 * lo_b, c0 * hi_b]
                mr_ref = D_ref_direct
                tol_d = tol * max(abs(lo), abs(hi), e_min)
                conv = [abs(lo - lo_b) <= tol_d, abs(hi_b - hi) <= tol_d]
            int_lo, beta_lo = to_model(w_lo, m_lo)
            int_hi, beta_hi = to_model(w_hi, m_hi)
            rows.append(
                {
                    "feature": fname,
                    "columns": json.dumps([int(c) for c in cols]),
                    "quantity": q,
                    "n_samples": n,
                    "epsilon": eps,
                    "e_orig_reference": e_ref,
                    "e_orig_min": c0 * e_min,
                    "loss_bound": bound_abs,
                    "mr_reference": mr_ref,
                    "mcr_minus": vals[0],
                    "mcr_plus": vals[1],
                    "mcr_minus_lower": vals[2],
                    "mcr_plus_upper": vals[3],
                    "gap": max(vals[0] - vals[2], vals[3] - vals[1]),
                    "converged": bool(all(conv)),
                    "iterations": int(it_lo + it_hi),
                    "e_orig_argmin": c0 * prob.e(w_lo, m_lo),
                    "e_orig_argmax": c0 * prob.e(w_hi, m_hi),
                    "intercept_argmin": int_lo,
                    "intercept_argmax": int_hi,
                    "coef_argmin": json.dumps([float(v) for v in beta_lo]),
                    "coef_argmax": json.dumps([float(v) for v in beta_hi]),
                }
            )
    return pd.DataFrame(rows)


#: Scope label of the exact MCR of the class of linear models.
LINEAR_EXACT = "linear_exact"

#: Columns of ``linear_exact.csv`` (the ``detail`` of :func:`linear_exact_scope`); a dataset without
#: the scope (classification) gets a table with these columns and no rows.
LINEAR_EXACT_COLUMNS = (
    "dataset",
    "epsilon_grid",
    "feature",
    "columns",
    "quantity",
    "n_samples",
    "epsilon",
    "e_orig_reference",
    "e_orig_min",
    "loss_bound",
    "mr_reference",
    "mcr_minus",
    "mcr_plus",
    "mcr_minus_lower",
    "mcr_plus_upper",
    "gap",
    "converged",
    "iterations",
    "e_orig_argmin",
    "e_orig_argmax",
    "intercept_argmin",
    "intercept_argmax",
    "coef_argmin",
    "coef_argmax",
)


def linear_loss_bound(X, y, coef, intercept: float, epsilon: float, mode: str) -> tuple[float, float]:
    """``(e_orig(f_ref), loss bound)`` of the ``linear_exact`` scope on the sample ``(X, y)``.

    The ε of the grid-based sets is carried over to this sample's loss (the MSE):

    * ``"se"``: ``e_orig(f_ref) + ε · SE``, with ``SE = sd(r²) / √n`` the standard
      error of the reference's mean squared error on the sample (``ddof=1``) — the
      same one-standard-error logic as the CV-based sets, on the sample that
      defines this set;
    * ``"relative"``: ``(1 + ε)² e_orig(f_ref)`` — the same relative slack in RMSE;
    * ``"absolute"``: ``(√e_orig(f_ref) + ε)²`` — the same slack in RMSE units.

    Raises
    ------
    ValueError
        Unknown ``mode`` or ``epsilon < 0``.
    """
    if not epsilon >= 0:
        raise ValueError(f"epsilon must be >= 0, got {epsilon!r}")
    r = np.asarray(y, dtype=float) - (np.asarray(X, dtype=float) @ np.asarray(coef, dtype=float) + float(intercept))
    e = float(np.mean(r * r))
    if mode == "se":
        return e, e + float(epsilon) * float(np.std(r * r, ddof=1) / np.sqrt(len(r)))
    if mode == "relative":
        return e, e * (1.0 + float(epsilon)) ** 2
    if mode == "absolute":
        return e, (np.sqrt(e) + float(epsilon)) ** 2
    raise ValueError(f"unknown epsilon mode {mode!r}")


def linear_exact_scope(
    X_train,
    y_train,
    X_test,
    y_test,
    *,
    epsilons: Sequence[float],
    epsilon_mode: str = "se",
    feature_names: Sequence[str],
    feature_groups: Mapping[str, Sequence[str]] | None = None,
    path_points: int = 21,
    dataset: str = "",
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """The ``linear_exact`` scope of a regression dataset: exact MCR of all linear models.

    Reference model: OLS fitted on the training split; the empirical Rashomon set,
    MR (exact ``e_switch``, all pairs) and the loss bound are computed on the test
    split (the paper's empirical MCR with a pre-specified reference,
    :func:`linear_mcr`); ε as for the grid-based sets (:func:`linear_loss_bound`).

    Returns
    -------
    (mcr, path, detail)
        ``mcr``: rows in the layout of :func:`xaipipe.rashomon.mcr.mcr_table`
        (``scope = "linear_exact"``, one per ε of ``epsilons`` × variable ×
        quantity; ``estimator = "e_switch"``, ``n_members`` / ``grid_size`` NaN: the
        class is infinite). ``path``: the same at ``path_points`` values of ε from 0
        to ``max(epsilons)`` (a continuous path), in the layout of
        :func:`xaipipe.rashomon.mcr.mcr_path`. ``detail``: :func:`linear_mcr`'s full
        output at every ε of ``epsilons`` (extreme models' coefficients,
        certificates).
    """
    from sklearn.linear_model import LinearRegression

    Xtr, Xte = np.asarray(X_train, dtype=float), np.asarray(X_test, dtype=float)
    ols = LinearRegression().fit(Xtr, np.asarray(y_train, dtype=float))
    grid = sorted(set(float(e) for e in epsilons))
    path_eps = np.unique(np.concatenate([np.linspace(0.0, grid[-1], max(int(path_points), 2)), grid]))
    names = list(feature_names)
    frames = {}
    for eps in path_eps:
        e_ref, bound = linear_loss_bound(Xte, y_test, ols.coef_, ols.intercept_, eps, epsilon_mode)
        out = linear_mcr(
            Xte,
            y_test,
            reference_coef=ols.coef_,
            reference_intercept=float(ols.intercept_),
            epsilon=bound - e_ref,
            feature_names=names,
            feature_groups=feature_groups,
        )
        out.insert(0, "epsilon_grid", float(eps))
        frames[float(eps)] = out
    rows, path = [], []
    for eps, out in frames.items():
        for rec in out.itertuples(index=False):
            common = {
                "dataset": dataset,
                "scope": LINEAR_EXACT,
                "epsilon": eps,
                "epsilon_mode": epsilon_mode,
                "loss_bound": float(rec.loss_bound),
                "epsilon_abs": float(rec.loss_bound - rec.e_orig_reference),
                "feature": rec.feature,
                "estimator": "e_switch",
                "loss": "squared_error",
                "quantity": rec.quantity,
                "mcr_minus": float(rec.mcr_minus),
                "mcr_plus": float(rec.mcr_plus),
                "mr_reference": float(rec.mr_reference),
            }
            path.append(
                {
                    **common,
                    "n_members": np.nan,
                    "n_configurations": np.nan,
                    "argmin_config": "",
                    "argmax_config": "",
                    "n_hyperparameter_settings": np.nan,
                }
            )
            if eps in grid:
                rows.append(
                    {
                        **common,
                        "cv_metric": "mse (test split)",
                        "reference_family": "linear_regression",
                        "reference_config_id": "ols",
                        "n_members": np.nan,
                        "n_undefined": 0,
                        "argmin_config": "",
                        "argmax_config": "",
                        "rashomon_ratio": np.nan,
                        "grid_size": np.nan,
                        "n_configurations": np.nan,
                        "n_families": 1,
                        "n_hyperparameter_settings": np.nan,
                    }
                )
    detail = pd.concat([frames[e] for e in grid], ignore_index=True)
    detail.insert(0, "dataset", dataset)
    return pd.DataFrame(rows), pd.DataFrame(path), detail
