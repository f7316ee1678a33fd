"""The whitened basis of the exact linear MCR (:mod:`xaipipe.rashomon.linear`, "Algorithm", step 1),
shared by :func:`~xaipipe.rashomon.linear.linear_mcr` and the exact pairwise order of the linear
class (:mod:`xaipipe.rashomon.linear_order`)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import linalg

from ..explain.reliance import features_from_groups, resolve_features
from ..validation import check_finite, check_matrix

_EPS = np.finfo(float).eps


def _as_matrix(X) -> tuple[np.ndarray, list[str] | None]:
    names = [str(c) for c in X.columns] if isinstance(X, pd.DataFrame) else None
    return check_matrix(X, "X"), names


def _as_vector(v, name: str, length: int | None = None) -> np.ndarray:
    try:
        arr = np.asarray(v, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be numeric: {exc}") from None
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {arr.shape}")
    if length is not None and arr.shape[0] != length:
        raise ValueError(f"{name} has length {arr.shape[0]}, expected {length}")
    check_finite(arr, name)
    return arr


def _as_scalar(v, name: str) -> float:
    try:
        x = float(v)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a real number, got {v!r}") from None
    if not math.isfinite(x):
        raise ValueError(f"{name} must be finite, got {v!r}")
    return x


def check_inputs(X, y, reference_coef, reference_intercept, epsilon, features, feature_names, feature_groups):
    """The checked inputs of :func:`~xaipipe.rashomon.linear.linear_mcr` and
    :func:`~xaipipe.rashomon.linear_order.linear_pair_order`: ``(X, y, coef, b0, eps, groups)``,
    ``groups`` the variables (:func:`xaipipe.explain.reliance.resolve_features`).

    Raises
    ------
    ValueError
        Non-numeric or non-finite inputs, bad shapes, ``n < 2``, ``epsilon < 0``, unknown variables.
    """

    X, df_names = _as_matrix(X)
    n, p = X.shape
    y = _as_vector(y, "y", n)
    if n < 2:
        raise ValueError("e_switch needs at least 2 samples")
    coef = _as_vector(reference_coef, "reference_coef", p)
    b0 = _as_scalar(reference_intercept, "reference_intercept")
    eps = _as_scalar(epsilon, "epsilon")
    if eps < 0:
        raise ValueError(f"epsilon must be >= 0, got {epsilon!r}")
    names = list(feature_names) if feature_names is not None else df_names
    if features is None and feature_groups is not None:
        if names is None:
            raise ValueError("feature_groups needs feature_names (or a DataFrame X)")
        features = features_from_groups(names, feature_groups)
    return X, y, coef, b0, eps, resolve_features(features, p, names)


@dataclass
class _Whitened:
    """A sample in the whitened basis of :func:`linear_mcr` (module docstring, "Algorithm", step 1):
    ``e_orig/c0 = e_min + ‖w‖² + m²`` with ``w = u - u0``, ``R(ε)`` the ball of radius ``rho``."""

    n: int
    xm: np.ndarray
    ym: float
    Xc: np.ndarray
    yc: np.ndarray
    c0: float
    scale: np.ndarray
    Xs: np.ndarray
    Vk: np.ndarray
    sk: np.ndarray
    Vnull: np.ndarray
    yn: np.ndarray
    u0: np.ndarray
    e_min: float
    rho: float
    w_ref: np.ndarray
    m_ref_n: float
    e_ref: float
    bound_abs: float

    def form(self, G: np.ndarray, fname: str) -> tuple[np.ndarray, np.ndarray, float]:
        """``D = e_switch - e_orig`` of the variable with columns ``G`` (boolean mask) as
        ``w'Kw + b'w + d0`` in units of ``c0``.

        Raises
        ------
        ValueError
            The variable's columns are exactly collinear with the others (``MCR+ = ∞``).
        """
        n, Xs, Vk, sk = self.n, self.Xs, self.Vk, self.sk
        if self.Vnull.shape[0]:
            leak = np.linalg.norm(Xs[:, G] @ self.Vnull[:, G].T, 2) / math.sqrt(n)
            if leak > 1e-7:
                raise ValueError(
                    f"variable {fname!r}: its columns are exactly collinear with the other columns "
                    "(a null direction of the design trades X1 against X2), so MR is unbounded on "
                    "R(epsilon) (MCR+ = inf); group the collinear columns (e.g. all levels of a one-hot "
                    "feature) or drop one"
                )
        P1 = (Xs[:, G] @ Vk[:, G].T) / sk / math.sqrt(n)
        P2 = (Xs[:, ~G] @ Vk[:, ~G].T) / sk / math.sqrt(n)
        nn = n / (n - 1.0)
        C = P2.T @ P1
        K = -nn * (C + C.T)
        k = 2.0 * nn * (P1.T @ self.yn)
        u0 = self.u0
        return K, 2.0 * K @ u0 + k, float(u0 @ K @ u0 + k @ u0)

    def to_model(self, w: np.ndarray, m: float) -> tuple[float, np.ndarray]:
        """``(intercept, slopes)`` in the units of ``X`` of the point ``(w, m)``."""
        beta = (self.Vk.T @ ((self.u0 + w) / self.sk)) * math.sqrt(self.c0) / self.scale
        mm = m * math.sqrt(self.c0)
        return float(self.ym - self.xm @ beta - mm), beta


def _whiten(X: np.ndarray, y: np.ndarray, coef: np.ndarray, b0: float, eps: float, ratio: bool) -> _Whitened:
    """Centre, standardise and whiten the sample; the reference model and the radius of ``R(ε)``
    (absolute slack ``eps``). ``ratio``: the MR ratio is asked for (a sample fitted exactly is an
    error)."""
    n, p = X.shape
    # centre, standardise, whiten (SVD of the standardised design)
    xm, ym = X.mean(axis=0), float(y.mean())
    Xc, yc = X - xm, y - ym
    c0 = float(yc @ yc) / n
    if not c0 > 0:
        raise ValueError("y is constant on this sample: MR is undefined")
    scale = np.sqrt(np.mean(Xc * Xc, axis=0))
    scale[scale == 0] = 1.0
    Xs = Xc / scale
    # Householder QR, then the SVD of the small triangular factor (backward stable,
    # much faster than an SVD of the tall matrix)
    Qf, Rf = linalg.qr(Xs / math.sqrt(n), mode="economic")
    Ur, sig, Vt = linalg.svd(Rf, full_matrices=False, lapack_driver="gesvd")
    U = Qf @ Ur
    keep = sig > max(n, p) * _EPS * sig[0] if sig.size and sig[0] > 0 else np.zeros(sig.size, bool)
    Uk, sk, Vk = U[:, keep], sig[keep], Vt[keep]
    yn = yc / math.sqrt(n * c0)  # ‖yn‖ = 1
    u0 = Uk.T @ yn
    e_min = float(np.sum((yn - Uk @ u0) ** 2))  # e_orig(OLS)/c0
    if ratio and e_min <= 1e3 * _EPS:
        raise ValueError("the sample is fitted exactly by a linear model (e_orig = 0): MR is undefined")

    # reference model, evaluated directly on the sample
    resid_ref = yc - Xc @ coef
    m_ref = ym - b0 - float(xm @ coef)
    e_ref = float(resid_ref @ resid_ref) / n + m_ref**2
    bound_abs = e_ref + eps
    rho2 = bound_abs / c0 - e_min
    if rho2 < -1e-9 * (bound_abs / c0):  # pragma: no cover - OLS is the minimum
        raise ValueError("the reference model is below the least-squares loss: inconsistent inputs")
    rho = math.sqrt(max(rho2, 0.0))
    w_ref = sk * (Vk @ (coef * scale)) / math.sqrt(c0) - u0
    m_ref_n = m_ref / math.sqrt(c0)
    # project the reference onto the ball if rounding put it a hair outside
    nr = math.hypot(float(np.linalg.norm(w_ref)), m_ref_n)
    if nr > rho:
        if nr > rho * (1 + 1e-6) + 1e-12:  # pragma: no cover - consistency guard
            raise ValueError("the reference model is outside its own Rashomon set: inconsistent inputs")
        f = rho / nr if nr > 0 else 0.0
        w_ref, m_ref_n = w_ref * f, m_ref_n * f

    return _Whitened(
        n=n,
        xm=xm,
        ym=ym,
        Xc=Xc,
        yc=yc,
        c0=c0,
        scale=scale,
        Xs=Xs,
        Vk=Vk,
        sk=sk,
        Vnull=Vt[~keep],
        yn=yn,
        u0=u0,
        e_min=e_min,
        rho=rho,
        w_ref=w_ref,
        m_ref_n=m_ref_n,
        e_ref=e_ref,
        bound_abs=bound_abs,
    )
