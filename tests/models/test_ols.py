"""OLS inference table against the closed form, and the seed-003 standard-error bug."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from sklearn.datasets import load_diabetes

from xaipipe.models.ols import ols_inference


def test_ols_table_matches_closed_form():
    X, y = load_diabetes(return_X_y=True, scaled=False)
    table = ols_inference(X, y, [f"x{i}" for i in range(10)])
    A = np.column_stack([np.ones(len(X)), X])
    beta = np.linalg.solve(A.T @ A, A.T @ y)
    resid = y - A @ beta
    n, k = A.shape
    s2 = resid @ resid / (n - k)
    se = np.sqrt(s2 * np.diag(np.linalg.inv(A.T @ A)))
    t = beta / se
    p = 2 * stats.t.sf(np.abs(t), n - k)
    q = stats.t.ppf(0.975, n - k)
    np.testing.assert_allclose(table["coefficient"], beta, rtol=1e-8)
    np.testing.assert_allclose(table["std_error"], se, rtol=1e-8)
    np.testing.assert_allclose(table["t_value"], t, rtol=1e-8)
    np.testing.assert_allclose(table["p_value"], p, rtol=1e-6, atol=1e-300)
    np.testing.assert_allclose(table["ci_low"], beta - q * se, rtol=1e-8)
    assert table["term"].iloc[0] == "const" and table["df_resid"].iloc[0] == n - k

    # Seed 003's expression: element-wise reciprocal of X'X, RSS/n, no intercept column.
    T = X
    error = y - A @ beta
    seed_se = np.std(error) * np.sqrt((np.dot(T.T, T) ** (-1))[np.arange(10), np.arange(10)])
    assert not np.allclose(seed_se, se[1:], rtol=0.05)


def test_rank_deficient_design_is_an_error():
    X = np.column_stack([np.ones(20), np.arange(20.0)])
    with pytest.raises(ValueError, match="rank deficient"):
        ols_inference(X, np.arange(20.0), ["one", "t"])
