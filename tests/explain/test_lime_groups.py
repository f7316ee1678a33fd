"""LIME and the KernelSHAP check with a one-hot group as one variable.

Oracles: the model's own calls (every row LIME evaluates has exactly one level set), LIME's
surrogate recomputed at x, the SHAP values' sums, and the per-column KernelSHAP check.
"""

from __future__ import annotations

import numpy as np
import pytest

from xaipipe.explain.lime import compare_lime_shap, lime_explanations, lime_shap_summary
from xaipipe.explain.shapley import group_shap_result, kernel_vs_tree_shap, shap_values
from xaipipe.models.families import make_estimator

NAMES = ["x1", "c_a", "c_b", "c_c", "x2"]
GROUPS = {"c": ["c_a", "c_b", "c_c"]}


@pytest.fixture(scope="module")
def setup():
    rng = np.random.default_rng(17)
    n = 240
    level = rng.integers(0, 3, n)
    X = np.column_stack([rng.normal(size=n), np.eye(3)[level], rng.normal(size=n)])
    y = X[:, 0] + np.array([0.0, 3.0, -1.0])[level] + 0.5 * X[:, 4] + 0.1 * rng.normal(size=n)
    model = make_estimator("gradient_boosting", "regression", {"n_estimators": 30}, random_state=0)
    model.fit(X[:200], y[:200])
    return model, X[200:], X[:200], level[200:]


class _Recorder:
    """The model, recording every row it is asked to predict."""

    def __init__(self, model):
        self.original, self.rows = model.predict, []

    def predict(self, Z):
        self.rows.append(np.asarray(Z).copy())
        return self.original(Z)


def test_lime_draws_only_real_levels_of_the_group(setup, monkeypatch):
    model, X, Xtr, level = setup
    recorder = _Recorder(model)
    monkeypatch.setattr(model, "predict", recorder.predict)
    out = lime_explanations(
        model, X, Xtr, rows=[0, 5], feature_names=NAMES, feature_groups=GROUPS, num_samples=300, random_state=1
    )
    seen = np.vstack(recorder.rows)
    assert seen.shape[0] >= 2 * 300
    np.testing.assert_array_equal(seen[:, 1:4].sum(axis=1), 1.0)  # one level per row, never two or none
    assert set(np.unique(seen[:, 1:4])) == {0.0, 1.0}
    assert len(np.unique(seen[:, 1:4].argmax(axis=1))) == 3  # every level is drawn
    # the same LIME on the columns makes rows the model never saw (two levels, or none)
    recorder.rows.clear()
    lime_explanations(model, X, Xtr, rows=[0], feature_names=NAMES, num_samples=300, random_state=1)
    assert np.any(np.vstack(recorder.rows)[:, 1:4].sum(axis=1) != 1.0)
    monkeypatch.undo()
    assert out.feature_names == ("x1", "c", "x2")
    np.testing.assert_array_equal(out.data[:, 1], level[[0, 5]])
    assert [c[1] for c in out.conditions] == [f"c={NAMES[1 + level[i]]}" for i in (0, 5)]
    assert out.details["kernel_width"] == pytest.approx(0.75 * np.sqrt(3))
    np.testing.assert_allclose(out.local_prediction, out.intercept + out.weights.sum(axis=1), rtol=1e-10)
    np.testing.assert_allclose(out.model_output, model.predict(X[[0, 5]]), rtol=1e-12)
    again = lime_explanations(
        model, X, Xtr, rows=[0, 5], feature_names=NAMES, feature_groups=GROUPS, num_samples=300, random_state=1
    )
    np.testing.assert_array_equal(again.weights, out.weights)
    # the continuous surrogate: g(x) recomputed with the group's input 1 at x
    cont = lime_explanations(
        model,
        X,
        Xtr,
        rows=[2],
        feature_names=NAMES,
        feature_groups=GROUPS,
        num_samples=300,
        discretize_continuous=False,
    )
    assert cont.feature_names == ("x1", "c", "x2")


def test_lime_beside_grouped_shap(setup):
    model, X, Xtr, _ = setup
    columns = shap_values(model, X, feature_names=NAMES)
    grouped = group_shap_result(columns, GROUPS)
    lime = lime_explanations(
        model, X, Xtr, rows=[1, 4, 9], feature_names=NAMES, feature_groups=GROUPS, num_samples=500, random_state=2
    )
    table = compare_lime_shap(lime, grouped)
    assert list(table["feature"][:3]) == ["x1", "c", "x2"]
    np.testing.assert_allclose(
        table.loc[table["feature"] == "c", "shap_value"], columns.values[[1, 4, 9]][:, 1:4].sum(axis=1), rtol=1e-12
    )
    assert table["shap_local_accuracy_gap"].max() < 1e-8
    summary = lime_shap_summary(table, top_k=2)
    assert len(summary) == 3
    # a per-column LIME is read beside the grouped result's columns
    plain = lime_explanations(model, X, Xtr, rows=[1], feature_names=NAMES, num_samples=200, random_state=2)
    assert list(compare_lime_shap(plain, grouped)["feature"]) == NAMES
    with pytest.raises(ValueError, match="different features"):
        compare_lime_shap(lime, columns)
    bad = X.copy()
    bad[0, 1:4] = [1.0, 1.0, 0.0]
    with pytest.raises(ValueError, match="not one-hot"):
        lime_explanations(model, bad, Xtr, rows=[0], feature_names=NAMES, feature_groups=GROUPS, num_samples=50)


def test_kernel_check_by_variable(setup):
    model, X, Xtr, _ = setup
    kw = dict(n_samples=[64, 256], background_size=15, feature_names=NAMES, random_state=3)
    plain = kernel_vs_tree_shap(model, X[:3], Xtr, **kw)
    grouped = kernel_vs_tree_shap(model, X[:3], Xtr, feature_groups=GROUPS, **kw)
    # the players are the columns: summary, rows and values as without groups
    for name in ("summary", "by_row", "values"):
        assert getattr(grouped, name).equals(getattr(plain, name))
    by = grouped.by_feature
    assert list(by["feature"][:3]) == ["x1", "c", "x2"] and len(by) == 2 * 3
    v = plain.values
    for n in (64, 256):
        part = v[(v["n_samples"] == n) & v["feature"].isin(GROUPS["c"])]
        diff = part.groupby("row")["difference"].sum()
        tree = part.groupby("row")["tree_shap"].sum()
        row = by[(by["n_samples"] == n) & (by["feature"] == "c")].iloc[0]
        assert row["max_abs_difference"] == pytest.approx(diff.abs().max(), rel=1e-12)
        assert row["mean_abs_difference"] == pytest.approx(diff.abs().mean(), rel=1e-12)
        assert row["mean_abs_tree_shap"] == pytest.approx(tree.abs().mean(), rel=1e-12)
        x1 = by[(by["n_samples"] == n) & (by["feature"] == "x1")].iloc[0]
        ref = plain.by_feature[(plain.by_feature["n_samples"] == n) & (plain.by_feature["feature"] == "x1")].iloc[0]
        assert x1.equals(ref)
