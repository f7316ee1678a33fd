"""Rashomon prediction intervals: the exact linear range against a constrained optimiser (brute
force), its affine invariance on an ill-conditioned design; the conformal correction against the
order statistic and, at ε = 0, against MAPIE's split-conformal interval of the reference model;
finite-sample coverage on exchangeable data; the rule's tables on rows sorted by the response."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from scipy import optimize
from sklearn.linear_model import LinearRegression

from xaipipe.rashomon.prediction_intervals import (
    conformal_range,
    linear_prediction_range,
    prediction_interval_tables,
)


def _linear_data(n=40, p=3, seed=0, noise=1.0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p)) @ np.array([[1.0, 0.4, 0.0], [0.0, 1.0, 0.3], [0.0, 0.0, 1.0]])[:p, :p]
    y = 2.0 + X @ np.arange(1.0, p + 1) + noise * rng.normal(size=n)
    return X, y


def _mse(X, y, b0, beta):
    return float(np.mean((y - b0 - X @ beta) ** 2))


def test_the_linear_range_is_the_extreme_prediction_over_the_set():
    """Brute force: maximise / minimise f(x) over {(b0, β): e_train <= e_min + δ} with SLSQP."""
    X, y = _linear_data()
    ols = LinearRegression().fit(X, y)
    e_min = _mse(X, y, ols.intercept_, ols.coef_)
    queries = np.array([[0.0, 0.0, 0.0], [1.5, -2.0, 0.5], [3.0, 1.0, -1.0]])
    for delta in (0.05, 0.7):
        center, half = linear_prediction_range(X, y, queries, delta)
        np.testing.assert_allclose(center, ols.predict(queries), rtol=1e-10, atol=1e-10)
        for x, c, h in zip(queries, center, half):
            for sign in (1.0, -1.0):
                res = optimize.minimize(
                    lambda t: -sign * (t[0] + x @ t[1:]),
                    np.r_[ols.intercept_, ols.coef_],
                    constraints=[{"type": "ineq", "fun": lambda t: e_min + delta - _mse(X, y, t[0], t[1:])}],
                    method="SLSQP",
                    options={"ftol": 1e-12, "maxiter": 500},
                )
                assert res.success
                assert -res.fun == pytest.approx(sign * c + h, rel=1e-5)


def test_random_members_of_the_set_stay_in_the_range():
    X, y = _linear_data(seed=1)
    ols = LinearRegression().fit(X, y)
    e_min, delta = _mse(X, y, ols.intercept_, ols.coef_), 0.3
    rng = np.random.default_rng(2)
    x = np.array([0.5, -1.0, 2.0])
    center, half = linear_prediction_range(X, y, x[None], delta)
    for _ in range(200):
        d = rng.normal(size=4)
        b0, beta = ols.intercept_ + 0.1 * d[0], ols.coef_ + 0.1 * d[1:]
        if _mse(X, y, b0, beta) <= e_min + delta:
            assert abs(b0 + x @ beta - center[0]) <= half[0] + 1e-9


def test_the_range_is_affine_invariant_on_an_ill_conditioned_design():
    """Columns scaled by 1e6 and 1e-4 and shifted by 1e8 and 5e3 (Airfoil-like conditioning) give the
    same range, to the ~1e-9 the shifted inputs themselves keep (5e3 beside values of 1e-4)."""
    X, y = _linear_data(n=60)
    A, b = np.diag([1e6, 1.0, 1e-4]), np.array([1e8, -3.0, 5e3])
    queries = X[:5] + 0.3
    c0, h0 = linear_prediction_range(X, y, queries, [0.0, 0.5])
    c1, h1 = linear_prediction_range(X @ A + b, y, queries @ A + b, [0.0, 0.5])
    np.testing.assert_allclose(c1, c0, rtol=1e-6)
    np.testing.assert_allclose(h1, h0, rtol=1e-6)
    assert h0.shape == (2, 5) and np.all(h0[0] == 0)


def test_a_row_off_the_span_of_collinear_training_rows_has_an_infinite_range():
    X, y = _linear_data()
    Xc = np.column_stack([X[:, 0], 2.0 * X[:, 0], X[:, 1]])  # column 1 = 2 x column 0
    on = np.array([[1.0, 2.0, 0.5]])
    off = np.array([[1.0, 0.0, 0.5]])
    assert np.isfinite(linear_prediction_range(Xc, y, on, 0.2)[1]).all()
    assert np.isinf(linear_prediction_range(Xc, y, off, 0.2)[1]).all()


def test_bad_linear_inputs_raise():
    X, y = _linear_data()
    with pytest.raises(ValueError, match="slack"):
        linear_prediction_range(X, y, X[:2], -0.1)
    with pytest.raises(ValueError, match="columns"):
        linear_prediction_range(X, y, X[:2, :2], 0.1)
    with pytest.raises(ValueError, match="finite"):
        linear_prediction_range(np.where(X > 1, np.nan, X), y, X[:2], 0.1)


def test_the_correction_is_the_conformal_order_statistic():
    rng = np.random.default_rng(3)
    for n in (20, 21, 57):
        c = rng.normal(size=n)
        y = c + rng.normal(size=n)
        lo, hi = c - 0.4, c + 0.4
        scores = np.sort(np.maximum(lo - y, y - hi))
        k = math.ceil((n + 1) * 0.95)
        assert conformal_range(lo, hi, y) == pytest.approx(scores[k - 1], abs=1e-12)
    # a wide range: the correction is negative (the interval then keeps the range: q+ = 0)
    assert conformal_range(c - 10, c + 10, y) < 0
    assert conformal_range(c[:19], c[:19], y[:19]) == math.inf  # below MAPIE's 1 / (1 - 0.95) rows
    with pytest.raises(ValueError, match="lower bound"):
        conformal_range(c + 1, c, y)
    with pytest.raises(ValueError, match="level"):
        conformal_range(c, c, y, level=1.0)


def test_at_zero_slack_the_interval_is_mapie_s_split_conformal_interval_of_ols():
    """δ = 0: the set is {OLS}, the range a point, the interval split conformal's absolute-residual
    interval of OLS (MAPIE's ``SplitConformalRegressor``, prefit)."""
    from mapie.regression import SplitConformalRegressor

    X, y = _linear_data(n=300, seed=4)
    Xtr, ytr, Xcal, ycal, Xte = X[:100], y[:100], X[100:200], y[100:200], X[200:]
    ols = LinearRegression().fit(Xtr, ytr)
    mapie = SplitConformalRegressor(ols, confidence_level=0.9, prefit=True).conformalize(Xcal, ycal)
    _, expected = mapie.predict_interval(Xte)
    c_cal, h_cal = linear_prediction_range(Xtr, ytr, Xcal, 0.0)
    q = conformal_range(c_cal - h_cal, c_cal + h_cal, ycal, level=0.9)
    c_te, _ = linear_prediction_range(Xtr, ytr, Xte, 0.0)
    np.testing.assert_allclose(c_te - q, expected[:, 0, 0], rtol=1e-10)
    np.testing.assert_allclose(c_te + q, expected[:, 1, 0], rtol=1e-10)


@pytest.mark.parametrize("relative_slack", [0.0, 0.5, 4.0])
def test_finite_sample_coverage_on_exchangeable_data(relative_slack):
    """400 replicates of a linear model with 30 training, 39 calibration and 200 test rows: the
    mean coverage is at least the level (within 3 Monte-Carlo SEs) at every slack, and at δ = 0
    at most level + 1/(n_cal + 1)."""
    level, reps, covered = 0.9, 400, []
    for r in range(reps):
        X, y = _linear_data(n=269, seed=100 + r)
        Xtr, ytr = X[:30], y[:30]
        ols = LinearRegression().fit(Xtr, ytr)
        delta = relative_slack * _mse(Xtr, ytr, ols.intercept_, ols.coef_)
        c, h = linear_prediction_range(Xtr, ytr, X[30:], delta)
        lo, hi = c - h, c + h
        q = max(conformal_range(lo[:39], hi[:39], y[30:69], level=level), 0.0)
        covered.append(np.mean((lo[39:] - q <= y[69:]) & (y[69:] <= hi[39:] + q)))
    mean, se = float(np.mean(covered)), float(np.std(covered, ddof=1) / np.sqrt(reps))
    assert mean >= level - 3 * se
    if relative_slack == 0.0:
        assert mean <= level + 1 / 40 + 3 * se


def _prepared(n_train=150, n_test=120, seed=5, task="regression"):
    X, y = _linear_data(n=n_train + n_test, seed=seed)
    order = np.argsort(y[n_train:])  # the test rows sorted by the response: adversarial order
    te = n_train + order
    cols = ["a", "b", "c"]
    return SimpleNamespace(
        X_train=pd.DataFrame(X[:n_train], columns=cols),
        y_train=y[:n_train],
        X_test=pd.DataFrame(X[te], columns=cols),
        y_test=y[te],
        test_rows=te,
        task=task,
        dataset="toy",
    )


def _members(data):
    """Two families: OLS (reference of both scopes) and a shrunk copy entering at ε = 1."""
    ols = LinearRegression().fit(data.X_train, data.y_train)
    P = np.vstack([ols.predict(data.X_test), 0.9 * ols.predict(data.X_test) + 0.1 * data.y_train.mean()])
    index = pd.DataFrame({"family": ["lin", "shrunk"], "config_id": ["0", "0"]})
    members = index.assign(
        min_epsilon_family=[0.0, 0.0],
        is_reference_family=[True, True],
        min_epsilon_cross_family=[0.0, 1.0],
        is_reference_cross_family=[True, False],
    )
    return P, index, members


def test_the_rule_s_tables_on_test_rows_sorted_by_the_response():
    data = _prepared()
    P, index, members = _members(data)
    out = prediction_interval_tables(
        data, P, index, members, epsilons=[0.0, 1.0, 2.0], default_epsilon=1.0, n_splits=30, seed=1
    )
    t = out.intervals
    assert set(t["scope"]) == {"lin", "shrunk", "cross_family", "linear_exact"}
    cross = t[t["scope"] == "cross_family"].set_index("epsilon")
    assert cross.loc[0.0, "n_members"] == 1 and cross.loc[1.0, "n_members"] == 2
    assert cross.loc[0.0, "range_width"] == 0.0 and cross.loc[1.0, "range_width"] > 0
    # the halvings are random, so the sorted order does not bias the coverage
    assert (t["coverage"] > 0.9).all() and (t.loc[t["scope"] != "linear_exact", "coverage"] < 1.0).all()
    lin = t[t["scope"] == "linear_exact"]
    assert lin["relative_slack"].min() == 0.0 and lin["relative_slack"].max() == pytest.approx(2.0)
    assert lin["epsilon"].notna().sum() == 3 and len(lin) == 3 + 41
    rows = out.rows
    assert set(rows["epsilon"]) == {1.0} and len(rows) == 4 * 120
    assert (rows["lower"] <= rows["range_min"]).all() and (rows["upper"] >= rows["range_max"]).all()
    assert rows["covered"].mean() > 0.9
    assert list(out.to_frames()) == ["intervals", "rows"]


def test_the_width_keeps_split_conformal_s_width_until_the_range_covers_alone():
    """The kink: on a linear Gaussian model the interval's width stays near 2 q0 while the mean
    correction is positive and then grows with the range (module docstring)."""
    data = _prepared(n_train=400, n_test=400, seed=7)
    P, index, members = _members(data)
    t = prediction_interval_tables(data, P, index, members, epsilons=[0.0], default_epsilon=0.0, n_splits=10)
    lin = t.intervals[(t.intervals["scope"] == "linear_exact") & t.intervals["epsilon"].isna()]
    lin = lin.sort_values("relative_slack")
    w0 = float(lin["width"].iloc[0])
    below = lin[lin["correction"] > 0.3 * lin["correction"].iloc[0]]
    assert len(below) >= 3 and (below["width"] < 1.15 * w0).all()
    assert float(lin["width"].iloc[-1]) > 1.3 * w0 and float(lin["correction"].iloc[-1]) < 0


def test_bad_rule_inputs_name_the_dataset():
    data = _prepared()
    P, index, members = _members(data)
    with pytest.raises(ValueError, match="'toy'.*regression only"):
        prediction_interval_tables(
            _prepared(task="classification"), P, index, members, epsilons=[0.0], default_epsilon=0.0
        )
    with pytest.raises(ValueError, match="'toy'.*do not match"):
        prediction_interval_tables(data, P[:, :5], index, members, epsilons=[0.0], default_epsilon=0.0)
