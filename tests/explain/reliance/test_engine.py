"""The tree engine equals the generic predict-many path bitwise, and both equal the
per-member computation with separately fitted models; it re-evaluates fewer trees."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.ensemble import (
    GradientBoostingClassifier,
    GradientBoostingRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)
from sklearn.base import clone

from xaipipe.explain.reliance import member_predictor, random_permutations, reliance_arrays
from xaipipe.models.prefix import prefix_predictions
from xaipipe.rashomon import engine
from xaipipe.rashomon.engine import (
    ensemble_outputs,
    ensemble_reliance_arrays,
    supports_engine,
    switch_designs,
    tree_terms,
)

N, P = 48, 5
FEATURES = {"a": [0], "b": [1], "cd": [2, 3], "e": [4]}


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(N, P))
    X[:, 3] = rng.integers(0, 2, N)  # a 0/1 column grouped with column 2
    y = X[:, 0] + np.sin(2 * X[:, 1]) + 0.5 * X[:, 3] + 0.3 * rng.normal(size=N)
    return X, y, (y > np.median(y)).astype(int)


MODELS = {
    "gb_squared": (GradientBoostingRegressor(n_estimators=12, max_depth=2, random_state=0), "squared_error"),
    "gb_huber_sub": (GradientBoostingRegressor(n_estimators=12, max_depth=3, loss="huber", subsample=0.7,
                                               random_state=1), "squared_error"),
    "gb_absolute": (GradientBoostingRegressor(n_estimators=12, max_depth=1, loss="absolute_error",
                                              random_state=2), "squared_error"),
    "gb_classifier": (GradientBoostingClassifier(n_estimators=12, max_depth=2, random_state=0), "log_loss"),
    "gb_classifier_01": (GradientBoostingClassifier(n_estimators=12, max_depth=2, random_state=0), "zero_one"),
    "rf_regressor": (RandomForestRegressor(n_estimators=10, max_depth=3, random_state=0), "squared_error"),
    "rf_classifier": (RandomForestClassifier(n_estimators=10, max_depth=3, random_state=0), "log_loss"),
}


def _fit(name, data):
    X, yr, yc = data
    est, loss = MODELS[name]
    y = yc if "classifier" in name else yr
    return clone(est).fit(X, y), X, y, loss


def _ks(model):
    top = len(model.estimators_)
    return [3, top, 1, 7, 3]  # any order, duplicates allowed


@pytest.mark.parametrize("name", list(MODELS))
def test_forward_pass_equals_prefix_predictions(name, data):
    model, X, _, _ = _fit(name, data)
    ks = _ks(model)
    np.testing.assert_array_equal(ensemble_outputs(model, X, ks), prefix_predictions(model, X, ks))
    terms = tree_terms(model, X)
    assert terms.shape[:2] == (len(model.estimators_), N)


@pytest.mark.parametrize("kernel", [True, False], ids=["kernel", "sklearn_loop"])
@pytest.mark.parametrize("estimator", ["permutation", "e_divide", "e_switch"])
@pytest.mark.parametrize("name", list(MODELS))
def test_engine_equals_generic_path_bitwise(name, estimator, kernel, data):
    model, X, y, loss = _fit(name, data)
    ks = _ks(model)
    kw = dict(features=FEATURES, estimator=estimator, loss=loss, max_rows_per_batch=300)
    if estimator == "permutation":
        kw["permutations"] = random_permutations(N, 3, len(FEATURES), 5)
    fast = ensemble_reliance_arrays(model, X, y, n_estimators=ks, kernel=kernel, **kw)
    slow = reliance_arrays(member_predictor(model, ks), X, y, **kw)
    assert fast.features == slow.features == list(FEATURES)
    assert fast.algorithm == slow.algorithm and fast.loss == slow.loss
    np.testing.assert_array_equal(fast.e_orig, slow.e_orig)
    np.testing.assert_array_equal(fast.e_switch, slow.e_switch)
    # members with the same prefix give the same numbers
    np.testing.assert_array_equal(fast.e_switch[0], fast.e_switch[4])


@pytest.mark.parametrize("name", ["gb_squared", "gb_classifier", "rf_regressor", "rf_classifier"])
def test_engine_equals_separately_fitted_members(name, data):
    """Oracle: each prefix refitted on its own with n_estimators=k, MR computed per model."""
    model, X, y, loss = _fit(name, data)
    ks = [2, 5, len(model.estimators_)]
    perms = random_permutations(N, 4, len(FEATURES), 11)
    fast = ensemble_reliance_arrays(model, X, y, n_estimators=ks, features=FEATURES, loss=loss,
                                    permutations=perms)
    for i, k in enumerate(ks):
        single = clone(model).set_params(n_estimators=k).fit(X, data[2] if "classifier" in name else data[1])
        ref = reliance_arrays(member_predictor(single), X, y, features=FEATURES, loss=loss, permutations=perms)
        # prefixes are bitwise equal to refitted models (xaipipe.models.prefix), so is MR
        np.testing.assert_array_equal(fast.e_orig[i], ref.e_orig[0])
        np.testing.assert_array_equal(fast.e_switch[i], ref.e_switch[0])


def test_default_permutations_match_generic_and_are_seeded(data):
    model, X, y, loss = _fit("gb_squared", data)
    a = ensemble_reliance_arrays(model, X, y, features=FEATURES, n_repeats=4, random_state=3)
    b = reliance_arrays(member_predictor(model), X, y, features=FEATURES, n_repeats=4, random_state=3)
    np.testing.assert_array_equal(a.e_switch, b.e_switch)
    c = ensemble_reliance_arrays(model, X, y, features=FEATURES, n_repeats=4, random_state=4)
    assert not np.array_equal(a.e_switch, c.e_switch)
    assert a.e_switch.shape == (1, len(FEATURES), 4) and a.algorithm == "random_permutations"


def test_engine_skips_trees_that_do_not_split_on_the_variable(data, monkeypatch):
    """Rows passed to scikit-learn's stage loop (``kernel=False``): the engine
    re-evaluates only stages that split on the permuted variable, the generic path
    all stages on all rows. (The compiled kernel's skipping is tested in
    ``test_kernels.py`` against ``decision_path``.)"""
    from sklearn.ensemble import _gradient_boosting

    model, X, y, _ = _fit("gb_squared", data)
    used = [set(t.tree_.feature[t.tree_.feature >= 0]) for t in model.estimators_[:, 0]]
    R = 3
    perms = random_permutations(N, R, len(FEATURES), 0)
    calls = []
    real = _gradient_boosting.predict_stages

    def counting(estimators, X_, scale, out):
        calls.append(len(estimators) * X_.shape[0])
        return real(estimators, X_, scale, out)

    monkeypatch.setattr(_gradient_boosting, "predict_stages", counting)
    ensemble_reliance_arrays(model, X, y, features=FEATURES, permutations=perms, kernel=False)
    expected = sum(R * N for cols in FEATURES.values() for u in used if u & set(cols))
    assert sum(calls) == expected
    assert expected < len(used) * len(FEATURES) * R * N  # something was skipped


def test_designs():
    perms = random_permutations(6, 2, 1, 0)
    d = switch_designs("permutation", 6, 1, permutations=perms)[0]
    assert [r for r, _, _ in d] == [0, 1] and np.array_equal(d[1][2], perms[0, 1])
    (r, recip, donors), = switch_designs("e_divide", 7, 1)[0]
    assert recip.tolist() == list(range(6)) and donors.tolist() == [3, 4, 5, 0, 1, 2]
    chunks = switch_designs("e_switch", 5, 1, max_rows_per_batch=8)[0]
    pairs = {(int(j), int(i)) for _, rc, dn in chunks for j, i in zip(rc, dn)}
    assert pairs == {(j, i) for j in range(5) for i in range(5) if i != j}
    assert sum(len(rc) for _, rc, _ in chunks) == 20


def test_validation(data):
    from sklearn.linear_model import LinearRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    model, X, y, _ = _fit("gb_squared", data)
    assert supports_engine(model)
    lin = LinearRegression().fit(X, y)
    assert not supports_engine(lin)
    assert not supports_engine(make_pipeline(StandardScaler(), clone(model)).fit(X, y))
    with pytest.raises(TypeError, match="random forest or gradient"):
        ensemble_reliance_arrays(lin, X, y)
    with pytest.raises(ValueError, match=r"\[1, 12\]"):
        ensemble_reliance_arrays(model, X, y, n_estimators=[13])
    with pytest.raises(ValueError, match="empty"):
        ensemble_reliance_arrays(model, X, y, n_estimators=[])
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError, match="finite"):
        ensemble_reliance_arrays(model, Xn, y)
    with pytest.raises(ValueError, match="columns"):
        ensemble_reliance_arrays(model, X[:, :3], y)
    with pytest.raises(ValueError, match="permutation of range"):
        ensemble_reliance_arrays(model, X, y, permutations=np.zeros((2, N), dtype=int))
    with pytest.raises(ValueError, match="only"):
        ensemble_reliance_arrays(model, X, y, estimator="e_divide", n_repeats=3)
    with pytest.raises(ValueError, match="unknown estimator"):
        ensemble_reliance_arrays(model, X, y, estimator="exact")
    with pytest.raises(ValueError, match="max_rows_per_batch"):
        ensemble_reliance_arrays(model, X, y, max_rows_per_batch=0)
    with pytest.raises(ValueError, match="n_trees"):
        tree_terms(model, X, n_trees=0)
    assert engine.ENGINE_KINDS == ("random_forest", "gradient_boosting")


@pytest.mark.parametrize("name", ["gb_squared", "rf_classifier"])
def test_truncated_ensemble_equals_refit(name, data):
    from xaipipe.models.prefix import predict_output
    from xaipipe.rashomon.engine import truncated_ensemble

    model, X, y, _ = _fit(name, data)
    short = truncated_ensemble(model, 4)
    refit = clone(model).set_params(n_estimators=4).fit(X, data[2] if "classifier" in name else data[1])
    np.testing.assert_array_equal(predict_output(short, X), predict_output(refit, X))
    assert len(model.estimators_) > 4  # the original is untouched
    with pytest.raises(ValueError):
        truncated_ensemble(model, 0)


def test_time_reliance_paths_reports_three_timings(data):
    from xaipipe.rashomon.engine import time_reliance_paths

    model, X, y, _ = _fit("gb_squared", data)
    out = time_reliance_paths(model, X, y, [4, 12], features=FEATURES, n_repeats=2)
    assert out["equal"] and out["members"] == 2
    assert all(out[k] >= 0 for k in ("engine_s", "generic_s", "permutation_importance_s"))


@pytest.mark.parametrize("estimator", ["permutation", "e_switch"])
@pytest.mark.parametrize("kind", ["regressor", "classifier"])
def test_interval_path_of_deep_forests_equals_generic_path(kind, estimator, monkeypatch):
    """Fully grown forests with no signature table (limit 0) and no minimum height: every
    affected tree of a one-column variable takes the interval path (rows sorted by donor value, one
    search below the entry node); equal to the generic path bitwise, in tree blocks
    of one tree or of all trees."""
    from xaipipe.rashomon import _kernels

    rng = np.random.default_rng(5)
    n = 90
    X = rng.normal(size=(n, 4))
    X[:, 3] = np.round(X[:, 3], 1)  # ties among donor values
    y = X[:, 0] + X[:, 1] * X[:, 2] + 0.3 * rng.normal(size=n)
    if kind == "classifier":
        model = RandomForestClassifier(n_estimators=9, random_state=0).fit(X, (y > 0).astype(int))
        target, loss = (y > 0).astype(int), "log_loss"
    else:
        model = RandomForestRegressor(n_estimators=9, random_state=0).fit(X, y)
        target, loss = y, "squared_error"
    assert model.estimators_[0].get_depth() > 5
    original = _kernels.signatures
    monkeypatch.setattr(_kernels, "signatures", lambda *a, **k: original(*a, **{**k, "limit": 0}))
    monkeypatch.setattr(_kernels, "PIECE_HEIGHT", 0)  # below every entry node
    kw = dict(estimator=estimator, loss=loss, features={"a": [0], "b": [1], "c": [2], "d": [3]})
    if estimator == "permutation":
        kw["permutations"] = random_permutations(n, 12, 4, 0)  # 12 rows per recipient >= PIECE_ROWS
    ks = [2, 9, 5]
    ref = reliance_arrays(member_predictor(model, ks), X, target, **kw)
    for block_nodes in (1, 1 << 30):
        monkeypatch.setattr(_kernels, "BLOCK_NODES", block_nodes)
        got = ensemble_reliance_arrays(model, X, target, n_estimators=ks, n_jobs=2, **kw)
        np.testing.assert_array_equal(got.e_orig, ref.e_orig)
        np.testing.assert_array_equal(got.e_switch, ref.e_switch)


def test_engine_preferred():
    from sklearn.tree import DecisionTreeRegressor

    X = np.arange(20.0).reshape(10, 2)
    y = X[:, 0]
    rf = RandomForestRegressor(n_estimators=2, random_state=0).fit(X, y)
    gb = GradientBoostingRegressor(n_estimators=2).fit(X, y)
    for model in (rf, gb):
        assert engine.engine_preferred(model, "permutation")
        assert engine.engine_preferred(model, "e_switch")
        assert not engine.engine_preferred(model, "e_divide")
    assert not engine.engine_preferred(DecisionTreeRegressor().fit(X, y), "permutation")
