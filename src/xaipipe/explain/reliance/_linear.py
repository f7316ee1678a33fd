"""Linear models: their coefficients and the exact O(n) ``e_switch`` (squared loss).

For ``f(x) = b0 + Σ_j b_j x_j`` with residuals ``r_k = y_k - f(x_k)``,
``c_k = Σ_{j∈G} b_j x_kj`` and ``a_k = r_k + c_k``, the pair term of ``e_switch``
(Fisher, Rudin & Dominici 2019, §3) is ``(a_j - c_i)²`` and

``Σ_j Σ_{i≠j} (a_j - c_i)² = n Σa² - 2 Σa Σc + n Σc² - Σ_k r_k²``
``= n Σ(a-ā)² + n Σ(c-c̄)² + n² (ā-c̄)² - Σ_k r_k²``

(the centred second form is used; it avoids cancellation), divided by ``n(n-1)``.
"""

from __future__ import annotations

import numpy as np

__all__ = ["linear_coefficients", "linear_e_switch"]


def linear_coefficients(model) -> tuple[np.ndarray, float]:
    """Coefficients ``b`` and intercept ``b0`` with ``model.predict(x) = b0 + x @ b``.

    Supports fitted scikit-learn linear regressors (``LinearRegression``,
    ``Ridge``, ``Lasso``, ... any ``sklearn.linear_model`` regressor with a 1-D
    ``coef_``) and ``Pipeline``s whose earlier steps are column-wise affine
    scalers (``StandardScaler``, ``MinMaxScaler``, ``MaxAbsScaler``,
    ``"passthrough"``), which are folded into the coefficients.

    Returns
    -------
    coef : ndarray of shape (n_features,)
    intercept : float

    Raises
    ------
    TypeError
        If the model is not such a linear regressor.
    """
    from sklearn.base import is_classifier
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import MaxAbsScaler, MinMaxScaler, StandardScaler

    steps = list(model.steps) if isinstance(model, Pipeline) else [("model", model)]
    final = steps[-1][1]
    coef = getattr(final, "coef_", None)
    if (
        is_classifier(final)
        or coef is None
        or not type(final).__module__.startswith("sklearn.linear_model")
        or np.ndim(coef) != 1
        or np.ndim(getattr(final, "intercept_", 0.0)) != 0
    ):
        raise TypeError(f"{type(final).__name__} is not a single-output scikit-learn linear regressor")
    scale = np.ones(coef.shape[0])
    shift = np.zeros(coef.shape[0])
    for name, step in steps[:-1]:  # z = x * scale + shift, composed left to right
        if step is None or step == "passthrough":
            continue
        if isinstance(step, StandardScaler):
            s = step.scale_ if step.scale_ is not None else 1.0
            m = step.mean_ if step.with_mean and step.mean_ is not None else 0.0
            a, b = 1.0 / s, -np.asarray(m) / s
        elif isinstance(step, MinMaxScaler):
            if getattr(step, "clip", False):
                raise TypeError("MinMaxScaler(clip=True) is not affine")
            a, b = step.scale_, step.min_
        elif isinstance(step, MaxAbsScaler):
            a, b = 1.0 / step.scale_, 0.0
        else:
            raise TypeError(f"pipeline step {name!r} ({type(step).__name__}) is not a column-wise affine scaler")
        scale, shift = scale * a, shift * a + b
    coef = np.asarray(coef, dtype=np.float64)
    return coef * scale, float(final.intercept_) + float(coef @ shift)


def linear_e_switch(X, y, coef, intercept, groups) -> np.ndarray:
    """Closed-form ê_switch of ``m`` linear models with squared loss (module docstring).

    Parameters
    ----------
    X : ndarray of shape (n, p)
    y : ndarray of shape (n,)
    coef : ndarray of shape (m, p)
    intercept : ndarray of shape (m,)
    groups : sequence of column-index arrays, length G

    Returns
    -------
    ndarray of shape (m, G)
        ``ê_switch`` per model and variable (squared target units).
    """
    n = X.shape[0]
    Xf = X.astype(np.float64, copy=False)
    pred = Xf @ coef.T + intercept  # (n, m)
    r = y.astype(np.float64)[:, None] - pred
    rr = np.sum(r * r, axis=0)
    out = np.empty((coef.shape[0], len(groups)))
    for g, cols in enumerate(groups):
        c = Xf[:, cols] @ coef[:, cols].T  # (n, m)
        a = r + c
        da = a - a.mean(axis=0)
        dc = c - c.mean(axis=0)
        total = n * np.sum(da * da, axis=0) + n * np.sum(dc * dc, axis=0)
        total += n * n * (a.mean(axis=0) - c.mean(axis=0)) ** 2
        out[:, g] = (total - rr) / (n * (n - 1))
    return out
