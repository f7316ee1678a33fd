"""e_divide on random halvings (Fisher, Rudin & Dominici 2019, §3.1): unbiased for e_switch.

The oracle is the definition: the all-pairs ``e_switch`` (exact, computed by the
same package but by another design) and, for a linear model, its closed form.
Data are sorted by the variable of interest (the adversarial row order of the
UCI files), where the file-order halving is biased.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from sklearn.linear_model import LinearRegression

from xaipipe.explain.reliance import RelianceOptions, model_reliance


def _f(Z):
    """A fixed non-linear 'model' with an interaction, as a predict-many callable (one member)."""
    return (np.sin(2 * Z[:, 0]) + Z[:, 0] * Z[:, 1] + 0.5 * Z[:, 1] ** 2)[None]


@pytest.mark.parametrize("n", [5, 6])
def test_mean_over_all_halvings_equals_e_switch_exactly(n):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(n, 2))
    order = np.argsort(X[:, 0])  # rows sorted by the variable of interest
    X = X[order]
    y = _f(X)[0] + rng.normal(scale=0.3, size=n)
    perms = np.array(list(itertools.permutations(range(n))))  # every halving, each equally likely
    divide = model_reliance(
        _f, X, y, estimator="e_divide", features={"x0": [0]}, options=RelianceOptions(permutations=perms)
    )
    switch = model_reliance(_f, X, y, estimator="e_switch", features={"x0": [0]})
    assert divide.e_switch.shape == (1, 1, len(perms))
    np.testing.assert_allclose(divide.e_switch.mean(), switch.e_switch[0, 0, 0], rtol=1e-12)


def test_random_halvings_agree_with_e_switch_on_sorted_rows_and_file_order_does_not():
    rng = np.random.default_rng(7)
    n = 400
    X = rng.uniform(-1, 1, size=(n, 2))
    X = X[np.argsort(X[:, 0])]  # sorted by x0, like Airfoil by chord length
    y = _f(X)[0] + rng.normal(scale=0.2, size=n)
    feats = {"x0": [0]}
    exact = model_reliance(_f, X, y, estimator="e_switch", features=feats).e_switch[0, 0, 0]
    random = model_reliance(_f, X, y, estimator="e_divide", features=feats, n_repeats=200, random_state=3)
    table = random.to_frame()
    mean, se = float(table["e_switch"].iloc[0]), float(table["mr_difference_se"].iloc[0])
    assert random.algorithm == "random_halvings" and np.isfinite(se) and se > 0
    assert abs(mean - exact) < 3.5 * se  # unbiased: within its Monte-Carlo error
    file_order = model_reliance(
        _f, X, y, estimator="e_divide", features=feats, options=RelianceOptions(permutations=np.arange(n)[None])
    )
    assert file_order.algorithm == "given_halvings"
    assert abs(file_order.e_switch[0, 0, 0] - exact) > 10 * se  # the first half vs the second: biased


def test_random_halvings_are_seeded_and_independent_of_the_permutation_stream():
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(50, 3)), rng.normal(size=50)
    kw = dict(features=[0, 1], n_repeats=4, random_state=11)
    a = model_reliance(_f, X, y, estimator="e_divide", **kw)
    b = model_reliance(_f, X, y, estimator="e_divide", **kw)
    c = model_reliance(_f, X, y, estimator="e_divide", **{**kw, "random_state": 12})
    p = model_reliance(_f, X, y, estimator="permutation", **kw)
    assert np.array_equal(a.e_switch, b.e_switch) and not np.array_equal(a.e_switch, c.e_switch)
    assert not np.array_equal(a.e_switch, p.e_switch)


def test_linear_model_e_divide_close_to_exact_e_switch_on_sorted_diabetes():
    from sklearn.datasets import load_diabetes

    X, y = load_diabetes(return_X_y=True, scaled=False)
    model = LinearRegression().fit(X, y)
    for j in range(X.shape[1]):
        order = np.argsort(X[:, j], kind="stable")
        Xs, ys = X[order], y[order]
        exact = model_reliance(model, Xs, ys, estimator="e_switch", features=[j], method="linear")
        assert exact.algorithm == "linear_closed_form"
        divide = model_reliance(model, Xs, ys, estimator="e_divide", features=[j], n_repeats=20, random_state=5)
        d, e = divide.mr_difference().mean(), exact.mr_difference()[0, 0, 0]
        se = divide.to_frame()["mr_difference_se"].iloc[0]
        assert abs(d - e) < 4 * se + 1e-9 * abs(e), (j, d, e, se)


@pytest.mark.parametrize("kind", ["forest", "boosting"])
def test_engine_equals_generic_path_on_random_halvings(kind):
    from sklearn.ensemble import GradientBoostingRegressor, RandomForestRegressor

    rng = np.random.default_rng(2)
    X = rng.normal(size=(120, 4))
    y = X[:, 0] * X[:, 1] + X[:, 2] + rng.normal(scale=0.1, size=120)
    model = (
        RandomForestRegressor(n_estimators=12, random_state=0)
        if kind == "forest"
        else GradientBoostingRegressor(n_estimators=15, random_state=0)
    ).fit(X, y)
    kw = dict(estimator="e_divide", n_repeats=5, random_state=9, n_estimators=[4, 12])
    engine = model_reliance(model, X, y, method="engine", **kw)
    generic = model_reliance(model, X, y, method="generic", **kw)
    auto = model_reliance(model, X, y, **kw)
    assert engine.method == "engine" and generic.method == "generic" and auto.method == "engine"
    assert np.array_equal(engine.e_orig, generic.e_orig) and np.array_equal(engine.e_switch, generic.e_switch)
