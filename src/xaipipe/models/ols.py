"""Classical OLS inference table (coefficient, standard error, t, p, 95 % CI).

Computed with :class:`statsmodels.regression.linear_model.OLS` on the training
split with an intercept. The standard error of coefficient ``j`` is
``sqrt(s^2 [(X'X)^{-1}]_jj)`` with ``s^2 = RSS / (n - p - 1)`` (e.g. Seber &
Lee 2003, §3.2; Hastie, Tibshirani & Friedman 2009, eq. 3.8).

Departure from seed 003 (§ on linear regression): its code computes
``np.std(error) * np.sqrt((np.dot(T.T, T) ** (-1))[diag, diag])``, which takes the
*element-wise* reciprocal of ``X'X`` instead of its matrix inverse, divides the
residual sum of squares by ``n`` instead of ``n - p - 1`` and omits the
intercept column. That is not the OLS standard error; this module uses the
formula above (``tests/models/test_ols.py`` checks it against the closed form
and shows the seed's expression differs).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["ols_inference"]


def ols_inference(X: np.ndarray, y: np.ndarray, feature_names: list[str], alpha: float = 0.05) -> pd.DataFrame:
    """OLS fit with intercept and its classical inference table.

    Parameters
    ----------
    X : ndarray of shape (n, p)
    y : ndarray of shape (n,)
    feature_names : list of str, length p
    alpha : float, default=0.05
        ``1 - alpha`` confidence intervals.

    Returns
    -------
    DataFrame
        Rows ``const`` then the features; columns ``term``, ``coefficient``,
        ``std_error``, ``t_value``, ``p_value`` (two-sided), ``ci_low``,
        ``ci_high``, ``n``, ``df_resid``, ``sigma`` (residual standard error,
        target units), ``r2``.

    Raises
    ------
    ValueError
        If ``X`` is rank deficient (coefficients not identified) or shapes differ.
    """
    import statsmodels.api as sm

    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    if X.ndim != 2 or X.shape[0] != y.shape[0] or X.shape[1] != len(feature_names):
        raise ValueError(f"shape mismatch: X {X.shape}, y {y.shape}, {len(feature_names)} names")
    design = sm.add_constant(X, has_constant="add")
    if np.linalg.matrix_rank(design) < design.shape[1]:
        raise ValueError("design matrix is rank deficient: OLS coefficients are not identified "
                         "(e.g. all levels of a one-hot feature plus the intercept)")
    fit = sm.OLS(y, design).fit()
    ci = np.asarray(fit.conf_int(alpha=alpha))
    return pd.DataFrame(
        {
            "term": ["const"] + list(feature_names),
            "coefficient": fit.params,
            "std_error": fit.bse,
            "t_value": fit.tvalues,
            "p_value": fit.pvalues,
            "ci_low": ci[:, 0],
            "ci_high": ci[:, 1],
            "n": int(fit.nobs),
            "df_resid": float(fit.df_resid),
            "sigma": float(np.sqrt(fit.scale)),
            "r2": float(fit.rsquared),
        }
    )
