from __future__ import annotations

import threading

import numpy as np
import pytest
from sklearn.ensemble import GradientBoostingClassifier, GradientBoostingRegressor, _gb

from xaipipe.models import boosting
from xaipipe.models.boosting import fast_leaf_updates, fit_estimator, update_terminal_regions

ORIGINAL = _gb._update_terminal_regions


def _regression_data(n=400, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5))
    X[:, 4] = rng.integers(0, 3, size=n)  # a discrete column: ties in the splits
    # integer target (like Abalone's Rings): many exactly equal residuals, even and odd leaf sizes
    y = np.round(3 * X[:, 0] + X[:, 1] ** 2 + 2 * X[:, 4] + rng.normal(size=n)) + 10
    return X, y


def _classification_data(n=300, seed=1):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 6))
    y = (X[:, 0] + 0.5 * X[:, 1] ** 2 + rng.normal(scale=0.7, size=n) > 0.5).astype(int)
    return X, y


def _assert_bitwise(a, b, X):
    assert a.estimators_.shape == b.estimators_.shape
    for ta, tb in zip(a.estimators_.ravel(), b.estimators_.ravel()):
        assert np.array_equal(ta.tree_.threshold, tb.tree_.threshold)
        assert np.array_equal(ta.tree_.value.view(np.int64), tb.tree_.value.view(np.int64))
    out_a = a.predict_proba(X) if hasattr(a, "predict_proba") else a.predict(X)
    out_b = b.predict_proba(X) if hasattr(b, "predict_proba") else b.predict(X)
    assert np.array_equal(out_a.view(np.int64), out_b.view(np.int64))


@pytest.mark.parametrize("loss", ["squared_error", "absolute_error", "huber"])
@pytest.mark.parametrize("max_depth", [1, 3, 5])
def test_regression_leaf_values_are_bitwise_scikit_learn(loss, max_depth):
    X, y = _regression_data()
    params = dict(
        loss=loss,
        max_depth=max_depth,
        n_estimators=60,
        learning_rate=0.1,
        min_samples_leaf=1 if max_depth < 5 else 3,
        random_state=0,
    )
    plain = GradientBoostingRegressor(**params).fit(X, y)
    fast = fit_estimator(GradientBoostingRegressor(**params), X, y)
    _assert_bitwise(plain, fast, X)


@pytest.mark.parametrize("max_depth", [2, 4])
def test_binary_log_loss_leaf_values_are_bitwise_scikit_learn(max_depth):
    X, y = _classification_data()
    params = dict(max_depth=max_depth, n_estimators=80, learning_rate=0.2, random_state=0)
    plain = GradientBoostingClassifier(**params).fit(X, y)
    fast = fit_estimator(GradientBoostingClassifier(**params), X, y)
    _assert_bitwise(plain, fast, X)


def test_the_fast_path_is_taken(monkeypatch):
    X, y = _regression_data(n=200)
    calls = {"fast": 0, "fallback": 0}
    real_fallback = boosting._call_original

    def counting_fallback(*args):
        calls["fallback"] += 1
        return real_fallback(*args)

    real_partition = np.partition

    def counting_partition(*args, **kwargs):
        calls["fast"] += 1
        return real_partition(*args, **kwargs)

    monkeypatch.setattr(boosting, "_call_original", counting_fallback)
    monkeypatch.setattr(boosting.np, "partition", counting_partition)
    fit_estimator(GradientBoostingRegressor(loss="absolute_error", n_estimators=5, max_depth=2, random_state=0), X, y)
    assert calls["fallback"] == 0 and calls["fast"] >= 5 * 2  # every leaf of every stage


@pytest.mark.parametrize(
    "make",
    [
        lambda: GradientBoostingRegressor(loss="huber", subsample=0.7, n_estimators=30, random_state=0),
        lambda: GradientBoostingRegressor(loss="quantile", alpha=0.3, n_estimators=30, random_state=0),
        lambda: GradientBoostingRegressor(loss="squared_error", n_estimators=30, random_state=0),
        lambda: GradientBoostingClassifier(loss="exponential", n_estimators=30, random_state=0),
        lambda: GradientBoostingClassifier(subsample=0.6, n_estimators=30, random_state=0),
    ],
)
def test_other_cases_are_scikit_learn_unchanged(make):
    X, y = _classification_data() if isinstance(make(), GradientBoostingClassifier) else _regression_data()
    _assert_bitwise(make().fit(X, y), fit_estimator(make(), X, y), X)


def test_multiclass_and_sample_weights_fall_back_bitwise():
    X, y = _classification_data()
    y3 = y + (X[:, 2] > 1)
    a = GradientBoostingClassifier(n_estimators=20, random_state=0).fit(X, y3)
    with fast_leaf_updates():
        b = GradientBoostingClassifier(n_estimators=20, random_state=0).fit(X, y3)
    _assert_bitwise(a, b, X)
    Xr, yr = _regression_data()
    w = np.random.default_rng(3).uniform(0.5, 2.0, size=len(yr))
    a = GradientBoostingRegressor(loss="absolute_error", n_estimators=20, random_state=0).fit(Xr, yr, sample_weight=w)
    with fast_leaf_updates():
        b = GradientBoostingRegressor(loss="absolute_error", n_estimators=20, random_state=0).fit(
            Xr, yr, sample_weight=w
        )
    _assert_bitwise(a, b, Xr)


def test_context_manager_installs_nests_and_restores():
    assert _gb._update_terminal_regions is ORIGINAL
    with fast_leaf_updates() as outer:
        assert outer is True and _gb._update_terminal_regions is update_terminal_regions
        with fast_leaf_updates() as inner:
            assert inner is True
        assert _gb._update_terminal_regions is update_terminal_regions
    assert _gb._update_terminal_regions is ORIGINAL
    with pytest.raises(KeyError):
        with fast_leaf_updates():
            raise KeyError("boom")
    assert _gb._update_terminal_regions is ORIGINAL


def test_an_unexpected_scikit_learn_signature_patches_nothing(monkeypatch):
    def other(loss, tree, X, y, something_new):  # pragma: no cover - never called
        raise AssertionError

    monkeypatch.setattr(_gb, "_update_terminal_regions", other)
    with fast_leaf_updates() as installed:
        assert installed is False and _gb._update_terminal_regions is other
    assert _gb._update_terminal_regions is other


def test_concurrent_fits_in_threads_are_bitwise_and_restore():
    X, y = _regression_data()
    params = dict(loss="huber", n_estimators=40, max_depth=3, random_state=0)
    expected = GradientBoostingRegressor(**params).fit(X, y).predict(X)
    results, errors = [], []

    def work():
        try:
            results.append(fit_estimator(GradientBoostingRegressor(**params), X, y).predict(X))
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(results) == 4
    assert all(np.array_equal(r, expected) for r in results)
    assert _gb._update_terminal_regions is ORIGINAL


def test_fit_estimator_validates_parameters_once_and_restores_the_config(monkeypatch):
    import sklearn
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.tree import DecisionTreeRegressor
    from sklearn.utils._param_validation import InvalidParameterError

    X, y = _regression_data(n=80)
    # the estimator's own parameters and those of a Pipeline step are still checked,
    # before anything is fitted
    with pytest.raises(InvalidParameterError, match="learning_rate"):
        fit_estimator(GradientBoostingRegressor(learning_rate=-1.0), X, y)
    bad = make_pipeline(StandardScaler(), GradientBoostingRegressor(max_depth=0))
    with pytest.raises(InvalidParameterError, match="max_depth"):
        fit_estimator(bad, X, y)
    assert not hasattr(bad[0], "mean_")
    assert sklearn.get_config()["skip_parameter_validation"] is False

    # the stage trees are not re-validated: count DecisionTreeRegressor validations
    calls = []
    original = DecisionTreeRegressor._validate_params

    def counting(self):
        calls.append(1)
        return original(self)

    monkeypatch.setattr(DecisionTreeRegressor, "_validate_params", counting)
    fit_estimator(GradientBoostingRegressor(n_estimators=7, random_state=0), X, y)
    assert calls == []
    GradientBoostingRegressor(n_estimators=7, random_state=0).fit(X, y)
    assert len(calls) == 7


def test_fit_estimator_returns_the_fitted_estimator_for_any_model():
    from sklearn.linear_model import LinearRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from xgboost import XGBClassifier, XGBRegressor

    X, y = _regression_data(n=50)
    model = LinearRegression()
    assert fit_estimator(model, X, y) is model and hasattr(model, "coef_")
    # XGBoost's wrappers have scikit-learn's _validate_params but no constraints
    xgb = XGBRegressor(n_estimators=3, max_depth=2, nthread=1)
    assert fit_estimator(xgb, X, y) is xgb
    assert np.array_equal(xgb.predict(X), XGBRegressor(n_estimators=3, max_depth=2, nthread=1).fit(X, y).predict(X))
    Xc, yc = _classification_data(n=60)
    pipe = make_pipeline(StandardScaler(), XGBClassifier(n_estimators=3, max_depth=2, nthread=1))
    assert fit_estimator(pipe, Xc, yc) is pipe and pipe.predict_proba(Xc).shape == (60, 2)


def test_an_unverified_scikit_learn_release_patches_nothing(monkeypatch):
    import sklearn

    monkeypatch.setattr(sklearn, "__version__", "1.99.0")
    with fast_leaf_updates() as installed:
        assert installed is False and _gb._update_terminal_regions is ORIGINAL
