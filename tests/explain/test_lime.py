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
    with pytest.raises(ValueError, match="X_train must be .* columns"):
        lime_explanations(model, X, Xtr[:, :3], feature_names=names)
    with pytest.raises(ValueError, match="output"):
        lime_explanations(model, X, Xtr, output="margin", feature_names=names)


def test_lime_tables_explain_the_force_plot_rows_and_a_seeded_sample(setup):
    """lime_tables (the rule entry): the rows are the force-plot rows and n_rows others drawn with
    default_rng(seed) from the SHAP result's rows (by hand), the tables those of lime_explanations /
    compare_lime_shap / lime_shap_summary of these rows, and force_plot_row names the kind."""
    from types import SimpleNamespace

    from xaipipe.config import LimeSettings
    from xaipipe.explain.lime import lime_rows, lime_tables

    model, X, Xtr, names = setup
    shap_result = shap_values(model, X, feature_names=names)
    settings = LimeSettings(seed=11, dataset="d", n_rows=3, num_samples=300)
    data = SimpleNamespace(X_test=X, X_train=Xtr, features=names, feature_groups=None)
    named = {"highest": 5, "lowest": 17}
    out = lime_tables(model, data, shap_result, settings, named=named)
    others = np.setdiff1d(shap_result.row_index, [5, 17])
    extra = np.random.default_rng(11).choice(others, size=3, replace=False)
    rows = sorted({5, 17, *map(int, extra)})
    assert len(rows) == 5 and lime_rows(settings, shap_result.row_index, named) == rows
    lime = lime_explanations(model, X, Xtr, rows=rows, feature_names=names, num_samples=300, random_state=11)
    oracle = compare_lime_shap(lime, shap_result)
    assert out.comparison.equals(oracle)
    summary = lime_shap_summary(oracle)
    assert list(out.summary.columns) == [summary.columns[0], "force_plot_row", *summary.columns[1:]]
    assert out.summary.drop(columns="force_plot_row").equals(summary)
    role = dict(zip(out.summary["row"], out.summary["force_plot_row"]))
    assert role == {r: {5: "highest", 17: "lowest"}.get(r, "") for r in rows}
    assert set(out.to_frames()) == {"comparison", "summary"}
    # n_rows above the other rows: all of them
    assert lime_rows(LimeSettings(seed=0, n_rows=100), np.arange(6), {"a": 2}) == list(range(6))
