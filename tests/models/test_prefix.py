"""Exact shared-prefix evaluation: per family, the prefix predictions of one fit are
bitwise identical to a separately fitted model with n_estimators = k."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_diabetes

from xaipipe.models.families import make_estimator
from xaipipe.models.output import model_output
from xaipipe.models.prefix import ensemble_kind, member_predictor, n_members, prefix_predictions

KS = [1, 3, 10, 25]


@pytest.fixture(scope="module")
def regression_data():
    X, y = load_diabetes(return_X_y=True)
    return X[:300], y[:300], X[300:]


@pytest.fixture(scope="module")
def classification_data():
    X, y = load_breast_cancer(return_X_y=True)
    return X[:400], y[:400], X[400:]


CASES = [
    ("random_forest", {}),
    ("extra_trees", {}),
    ("extra_trees", {"max_features": 0.5, "bootstrap": True}),
    ("gradient_boosting", {"learning_rate": 0.1}),
    ("gradient_boosting", {"learning_rate": 0.2, "subsample": 0.7}),
    ("xgboost", {"learning_rate": 0.1, "max_depth": 3}),
    ("xgboost", {"learning_rate": 0.2, "max_depth": 6, "subsample": 0.8}),
]


@pytest.mark.parametrize("task", ["regression", "classification"])
@pytest.mark.parametrize("family,params", CASES)
def test_prefix_equals_separate_fit(family, params, task, regression_data, classification_data):
    X, y, X_new = regression_data if task == "regression" else classification_data
    big = make_estimator(family, task, {**params, "n_estimators": max(KS)}, random_state=11, n_jobs=2).fit(X, y)
    prefixes = prefix_predictions(big, X_new, KS)
    expected_shape = (len(KS), len(X_new)) if task == "regression" else (len(KS), len(X_new), 2)
    assert prefixes.shape == expected_shape
    for k, pred in zip(KS, prefixes):
        small = make_estimator(family, task, {**params, "n_estimators": k}, random_state=11, n_jobs=1).fit(X, y)
        ref = np.asarray(model_output(small)(X_new), dtype=np.float64)
        assert np.array_equal(pred, ref), f"{family} k={k}: max diff {np.abs(pred - ref).max()}"


def test_forest_prefix_of_the_full_model_equals_predict(regression_data):
    X, y, X_new = regression_data
    rf = make_estimator("random_forest", "regression", {"n_estimators": 20}, random_state=0, n_jobs=1).fit(X, y)
    assert np.array_equal(prefix_predictions(rf, X_new, [20])[0], rf.predict(X_new))
    assert ensemble_kind(rf) == "forest" and n_members(rf) == 20


def test_ensemble_kinds_come_from_the_family_registry(regression_data, classification_data):
    X, y, _ = regression_data
    Xc, yc, _ = classification_data
    expected = {
        "random_forest": "forest",
        "extra_trees": "forest",
        "gradient_boosting": "boosting",
        "xgboost": "xgboost",
    }
    for family, kind in expected.items():
        for task, (A, b) in (("regression", (X, y)), ("classification", (Xc, yc))):
            est = make_estimator(family, task, {"n_estimators": 4}, random_state=0).fit(A, b)
            assert ensemble_kind(est) == kind and n_members(est) == 4, (family, task)
    tree = make_estimator("decision_tree", "regression", {"max_depth": 2}, random_state=0).fit(X, y)
    assert ensemble_kind(tree) is None
    with pytest.raises(TypeError, match="not a supported tree ensemble"):
        n_members(tree)


def test_prefix_errors(regression_data):
    X, y, X_new = regression_data
    gb = make_estimator("gradient_boosting", "regression", {"n_estimators": 5}, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="only 5"):
        prefix_predictions(gb, X_new, [6])
    with pytest.raises(ValueError, match=">= 1"):
        prefix_predictions(gb, X_new, [0])
    lin = make_estimator("linear_regression", "regression", {}, random_state=0).fit(X, y)
    with pytest.raises(TypeError, match="no shared-prefix"):
        prefix_predictions(lin, X_new, [1])
    assert ensemble_kind(lin) is None


def test_order_and_duplicates_of_ks(regression_data):
    X, y, X_new = regression_data
    gb = make_estimator("xgboost", "regression", {"n_estimators": 12}, random_state=0).fit(X, y)
    a = prefix_predictions(gb, X_new, [12, 4, 4, 8])
    b = prefix_predictions(gb, X_new, [4, 8, 12])
    assert np.array_equal(a[0], b[2]) and np.array_equal(a[1], b[0]) and np.array_equal(a[2], a[1])


@pytest.mark.parametrize("task", ["regression", "classification"])
def test_xgboost_chained_margins_equal_iteration_range(task, regression_data, classification_data):
    # The prefixes come from one pass (each segment starts at the previous margin):
    # every one must be bitwise the model's own predict with iteration_range=(0, k).
    X, y, X_new = regression_data if task == "regression" else classification_data
    est = make_estimator(
        "xgboost", task, {"n_estimators": 150, "learning_rate": 0.1, "max_depth": 4}, random_state=3
    ).fit(X, y)
    ks = [150, 1, 2, 37, 37, 99, 100]
    out = prefix_predictions(est, X_new, ks)
    method = est.predict_proba if task == "classification" else est.predict
    for k, pred in zip(ks, out):
        assert np.array_equal(pred, method(X_new, iteration_range=(0, k))), k


@pytest.mark.parametrize("family", ["random_forest", "extra_trees", "gradient_boosting", "xgboost"])
def test_member_predictor_row_blocks_are_bitwise_equal(family):
    # n_jobs splits the rows over threads; every row's output must not change.
    X, y = load_diabetes(return_X_y=True)
    model = make_estimator(family, "regression", {"n_estimators": 40}, random_state=0, n_jobs=1).fit(X, y)
    Z = np.tile(X, (4, 1))  # 1 768 rows: three blocks of >= 512 rows
    ks = [1, 7, 40]
    serial = member_predictor(model, ks)(Z)
    np.testing.assert_array_equal(serial, prefix_predictions(model, Z, ks))
    for n_jobs in (2, 3):
        assert np.array_equal(member_predictor(model, ks, n_jobs=n_jobs)(Z), serial)
    assert np.array_equal(member_predictor(model, None, n_jobs=2)(Z), member_predictor(model)(Z))
    np.testing.assert_array_equal(member_predictor(model)(Z)[0], model.predict(Z))


def test_member_predictor_of_a_classifier_and_a_non_ensemble(classification_data):
    X, y, X_new = classification_data
    gb = make_estimator("gradient_boosting", "classification", {"n_estimators": 6}, random_state=0).fit(X, y)
    out = member_predictor(gb, [2, 6])(X_new)
    assert out.shape == (2, len(X_new), 2) and out.dtype == np.float64
    np.testing.assert_array_equal(out[1], gb.predict_proba(X_new))
    knn = make_estimator("knn", "classification", {"n_neighbors": 5}, random_state=0).fit(X, y)
    one = member_predictor(knn, n_jobs=2)(X_new)  # not an ensemble: n_jobs ignored
    assert one.shape == (1, len(X_new), 2)
    np.testing.assert_array_equal(one[0], knn.predict_proba(X_new))
