"""LIME explanations: seeded, local prediction recomputed, compared with SHAP values."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer

from xaipipe.explain.lime import compare_lime_shap, lime_explanations, lime_frame, lime_shap_summary
from xaipipe.explain.shapley import shap_values
from xaipipe.models.families import make_estimator

COLS = [0, 1, 6, 7, 20, 21, 22, 27]


@pytest.fixture(scope="module")
def setup():
    data = load_breast_cancer()
    X, y = data.data[:, COLS], 1 - data.target
    names = [data.feature_names[j] for j in COLS]
    model = make_estimator("xgboost", "classification", {"n_estimators": 20, "max_depth": 2}, random_state=0)
    model.fit(X[:400], y[:400])
    return model, X[400:440], X[:400], names


@pytest.fixture(scope="module")
def explained(setup):
    model, X, Xtr, names = setup
    return lime_explanations(model, X, Xtr, rows=[3, 11, 25], feature_names=names, num_samples=1000, random_state=4)


def test_two_runs_are_equal_and_rows_independent(setup, explained):
    model, X, Xtr, names = setup
    again = lime_explanations(model, X, Xtr, rows=[3, 11, 25], feature_names=names, num_samples=1000, random_state=4)
    for field in ("weights", "intercept", "local_prediction", "score", "model_output"):
        np.testing.assert_array_equal(getattr(again, field), getattr(explained, field))
    assert again.conditions == explained.conditions
    alone = lime_explanations(model, X, Xtr, rows=[11], feature_names=names, num_samples=1000, random_state=4)
    np.testing.assert_array_equal(alone.weights[0], explained.weights[1])
    other = lime_explanations(model, X, Xtr, rows=[3], feature_names=names, num_samples=1000, random_state=5)
    assert not np.array_equal(other.weights[0], explained.weights[0])


def test_local_prediction_is_the_surrogate_at_x(setup, explained):
    model, X, _, _ = setup
    # discretised: x is the all-ones interpretable input, so g(x) = intercept + sum of weights
    np.testing.assert_allclose(
        explained.local_prediction, explained.intercept + explained.weights.sum(axis=1), rtol=1e-10, atol=1e-12
    )
    # f(x) is the margin (log-odds) of the model at the explained rows
    np.testing.assert_allclose(explained.model_output, model.predict(X[[3, 11, 25]], output_margin=True), rtol=1e-6)
    np.testing.assert_allclose(
        explained.local_accuracy_gap, np.abs(explained.local_prediction - explained.model_output)
    )
    assert explained.output == "log_odds" and explained.details["mode"] == "regression"
    assert all(len(c) == 8 for c in explained.conditions)
    assert any("<" in c or ">" in c for c in explained.conditions[0])  # quartile conditions


def test_continuous_surrogate_and_probability_output(setup):
    model, X, Xtr, names = setup
    res = lime_explanations(
        model, X, Xtr, rows=[0], feature_names=names, num_samples=500, discretize_continuous=False, output="probability"
    )
    z = (X[0] - Xtr.mean(0)) / Xtr.std(0)  # LIME's scaler: training mean and (population) SD
    np.testing.assert_allclose(res.local_prediction, res.intercept + res.weights @ z, rtol=1e-8)
    np.testing.assert_allclose(res.model_output, model.predict_proba(X[[0]])[:, 1], rtol=1e-6)
    assert res.conditions[0] == tuple(names)


def test_comparison_with_shap(setup, explained):
    model, X, _, names = setup
    shap_result = shap_values(model, X, feature_names=names)
    table = compare_lime_shap(explained, shap_result)
    assert len(table) == 3 * 8 and list(table["row"].unique()) == [3, 11, 25]
    # SHAP adds up to f(x); LIME does not (ridge surrogate, heuristic kernel)
    assert table["shap_local_accuracy_gap"].max() < 1e-5
    assert table["lime_local_accuracy_gap"].min() > 1e-4
    for r, g in table.groupby("row"):
        k = int(np.flatnonzero(shap_result.row_index == r)[0])
        np.testing.assert_allclose(g["shap_value"], shap_result.values[k])
        np.testing.assert_allclose(g["shap_sum"], shap_result.model_output[k], atol=1e-5)
        assert sorted(g["shap_rank"]) == list(range(1, 9))
    summary = lime_shap_summary(table, top_k=3)
    assert list(summary["row"]) == [3, 11, 25]
    assert summary["spearman"].between(-1, 1).all() and summary["top_k_overlap"].between(0, 1).all()
    frame = lime_frame(explained)
    np.testing.assert_array_equal(frame["lime_weight"], table["lime_weight"])
    # a SHAP result in probability cannot be compared with LIME in log-odds
    prob = lime_explanations(model, X, X[:5], rows=[3], feature_names=names, num_samples=200, output="probability")
    with pytest.raises(ValueError, match="output spaces differ"):
        compare_lime_shap(prob, shap_result)


def test_bad_input(setup):
    model, X, Xtr, names = setup
    with pytest.raises(ValueError, match="rows"):
        lime_explanations(model, X, Xtr, rows=[len(X)], feature_names=names)
    with pytest.raises(ValueError, match="features"):
        lime_explanations(model, X, Xtr[:, :3], feature_names=names)
    with pytest.raises(ValueError, match="output"):
        lime_explanations(model, X, Xtr, output="margin", feature_names=names)
