"""OLS inference table against the closed form, the seed-003 standard-error bug, and seed 003's
squared-terms comparison against raw least squares."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from sklearn.datasets import load_diabetes
from sklearn.model_selection import train_test_split

from xaipipe.models.ols import ols_inference, squared_terms_comparison


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


def test_a_design_that_is_not_identified_is_reported_not_raised():
    rng = np.random.default_rng(0)
    x = rng.normal(size=40)
    X = np.column_stack([np.ones(40), x, 2 * x + 1])
    y = 3 * x + rng.normal(size=40)
    table = ols_inference(X, y, ["one", "x", "x2"]).set_index("term")
    assert table.loc["one", "note"].startswith("not identified: constant")
    assert table.loc["x2", "note"] == "not identified: a linear combination of const, x in the training rows (aliased)"
    assert table.loc[["one", "x2"], "coefficient"].isna().all()
    plain = ols_inference(x[:, None], y, ["x"]).set_index("term")
    np.testing.assert_allclose(table.loc[["const", "x"], "coefficient"], plain["coefficient"], rtol=1e-12)
    assert table["df_resid"].iloc[0] == 38


def _grouped(n=300, seed=1):
    """y = 1 + 2 x + 1.5 [g = b] - 1 [g = c] + noise; g one-hot with every level (a, b, c)."""
    rng = np.random.default_rng(seed)
    g = rng.choice(["a", "b", "c"], size=n)
    x = rng.normal(size=n)
    y = 1 + 2 * x + 1.5 * (g == "b") - (g == "c") + rng.normal(scale=0.5, size=n)
    order = np.argsort(y)  # adversarial row order: sorted by the response
    X = np.column_stack([x, g == "a", g == "b", g == "c"]).astype(float)[order]
    return X, y[order], g[order], ["x", "g_a", "g_b", "g_c"], {"g": ["g_a", "g_b", "g_c"]}


def test_groups_use_reference_coding_as_statsmodels_formula():
    import pandas as pd
    import statsmodels.formula.api as smf

    X, y, g, names, groups = _grouped()
    table = ols_inference(X, y, names, feature_groups=groups)
    assert list(table["term"]) == ["const", "x", "g_b", "g_c"]
    assert list(table["reference_level"]) == ["", "", "g_a", "g_a"] and "note" not in table
    ref = smf.ols("y ~ x + C(g)", data=pd.DataFrame({"y": y, "x": X[:, 0], "g": g})).fit()
    order = ["Intercept", "x", "C(g)[T.b]", "C(g)[T.c]"]
    np.testing.assert_allclose(table["coefficient"], ref.params[order], rtol=1e-10)
    np.testing.assert_allclose(table["std_error"], ref.bse[order], rtol=1e-10)
    assert table.loc[2, "ci_low"] > 1.0 and table.loc[3, "ci_high"] < 0


def test_squared_terms_with_a_group_fit_the_reference_coding():
    X, y, _, names, groups = _grouped()
    out = squared_terms_comparison(
        X[:240], y[:240], X[240:], y[240:], names, feature_groups=groups, n_bootstrap=50
    ).iloc[0]
    assert out["columns_dropped"] == "g_a" and out["n_params_b"] == 4
    assert "g_a" not in out["selected"].split(";")


@pytest.fixture(scope="module")
def diabetes_split():
    X, y = load_diabetes(return_X_y=True, scaled=False)
    names = ["age", "sex", "bmi", "bp", "s1", "s2", "s3", "s4", "s5", "s6"]
    return (*train_test_split(X, y, test_size=0.2, random_state=0), names)


def test_squared_terms_comparison_against_raw_least_squares(diabetes_split):
    Xtr, Xte, ytr, yte, names = diabetes_split
    out = squared_terms_comparison(Xtr, ytr, Xte, yte, names, n_bootstrap=300, random_state=0).iloc[0]
    # Selection = |t| >= 2 of the classical OLS table (training rows only).
    table = ols_inference(Xtr, ytr, names).set_index("term")
    expected = [n for n in names if abs(table.loc[n, "t_value"]) >= 2]
    assert out["selected"].split(";") == expected
    assert out["squares_dropped"] == ("sex" if "sex" in expected else "")
    # Oracle: raw columns, their squares (sex's too), minimum-norm least squares.
    sel = [names.index(n) for n in expected]
    A = lambda X: np.column_stack([np.ones(len(X)), X[:, sel], X[:, sel] ** 2])
    w, *_ = np.linalg.lstsq(A(Xtr), ytr, rcond=None)
    F = lambda X: np.column_stack([np.ones(len(X)), X])
    w_full, *_ = np.linalg.lstsq(F(Xtr), ytr, rcond=None)
    assert out["mean_a"] == pytest.approx(np.mean((yte - A(Xte) @ w) ** 2), rel=1e-8)
    assert out["mean_b"] == pytest.approx(np.mean((yte - F(Xte) @ w_full) ** 2), rel=1e-8)
    assert out["n_train"] == len(ytr) and out["n_test"] == len(yte)
    assert out["n_params_a"] == 1 + len(sel) + len(sel) - (1 if "sex" in expected else 0)
    # Test rows only evaluate: permuting them changes nothing but the bootstrap draws' pairing.
    perm = np.random.default_rng(0).permutation(len(yte))
    out2 = squared_terms_comparison(Xtr, ytr, Xte[perm], yte[perm], names, n_bootstrap=300).iloc[0]
    assert out2["selected"] == out["selected"]
    assert out2["difference"] == pytest.approx(out["difference"], rel=1e-9)


def test_squared_terms_comparison_errors(diabetes_split):
    Xtr, Xte, ytr, yte, names = diabetes_split
    with pytest.raises(ValueError, match="not among the features"):
        squared_terms_comparison(Xtr, ytr, Xte, yte, names, selected=["bmi", "BMI"])
    # a constant column is left out of both models and named, not an error
    plain = squared_terms_comparison(Xtr, ytr, Xte, yte, names, n_bootstrap=50).iloc[0]
    with_one = squared_terms_comparison(
        np.column_stack([Xtr, np.ones(len(Xtr))]),
        ytr,
        np.column_stack([Xte, np.ones(len(Xte))]),
        yte,
        names + ["one"],
        n_bootstrap=50,
    ).iloc[0]
    assert with_one["columns_dropped"] == "one" and "columns_dropped" not in plain
    assert with_one["difference"] == pytest.approx(plain["difference"], rel=1e-9)
    with pytest.raises(ValueError, match="regression loss"):
        squared_terms_comparison(Xtr, ytr, Xte, yte, names, losses=("error_rate",))
    with pytest.raises(ValueError, match="shape"):
        squared_terms_comparison(Xtr, ytr, Xte, yte, names[:-1])
