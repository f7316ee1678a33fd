"""SHAP values of one-hot groups (xaipipe.explain.shapley.group_shap_result) against oracles.

Oracles: shap's own TreeExplainer values of the columns, XGBoost's own interaction values,
the models' predictions (local accuracy), and brute-force Shapley values over all
coalitions of the interventional game, both with the columns as players and with each
group as one player (the quotient game).
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
import shap

from xaipipe.config import ShapSettings
from xaipipe.explain.shapley import (
    GroupedShapResult,
    global_importance,
    group_shap_result,
    interaction_frame,
    level_labels,
    result_metadata,
    row_frame,
    shap_tables,
    shap_values,
    tidy_frame,
)
from xaipipe.models.families import make_estimator

NAMES = ["x1", "c_a", "c_b", "c_c", "x2"]
GROUPS = {"c": ["c_a", "c_b", "c_c"]}
VARIABLES = ["x1", "c", "x2"]


def _frame(n: int, seed: int):
    """x1, a 3-level categorical c (one-hot, in the middle), x2; y with a c x x2 interaction."""
    rng = np.random.default_rng(seed)
    level = rng.integers(0, 3, size=n)
    x1, x2 = rng.normal(size=n), rng.normal(size=n)
    X = np.column_stack([x1, np.eye(3)[level], x2])
    y = 1.5 * x1 + np.array([0.0, 2.0, -1.0])[level] + x2 * (level == 2) + 0.1 * rng.normal(size=n)
    return X, y, level


@pytest.fixture(scope="module")
def data():
    X, y, level = _frame(360, 5)
    return X[:300], y[:300], X[300:], level[300:]


@pytest.fixture(scope="module")
def gbm(data):
    Xtr, ytr, _, _ = data
    return make_estimator("gradient_boosting", "regression", {"n_estimators": 40}, random_state=0).fit(Xtr, ytr)


def test_group_value_is_the_sum_of_shaps_column_values(gbm, data):
    _, _, Xte, level = data
    grouped = group_shap_result(shap_values(gbm, Xte, feature_names=NAMES), GROUPS)
    oracle = np.asarray(shap.TreeExplainer(gbm).shap_values(Xte))  # shap itself, per column
    assert isinstance(grouped, GroupedShapResult)
    assert grouped.feature_names == tuple(VARIABLES)
    np.testing.assert_allclose(grouped.values[:, 1], oracle[:, 1:4].sum(axis=1), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(grouped.values[:, [0, 2]], oracle[:, [0, 4]], rtol=1e-10, atol=1e-12)
    # local accuracy over the variables: base + sum of the group values = the model's prediction
    np.testing.assert_allclose(grouped.base_values + grouped.values.sum(axis=1), gbm.predict(Xte), atol=1e-10)
    # the level code and its label: the member column set to 1
    np.testing.assert_array_equal(grouped.data[:, 1], level)
    assert grouped.levels == {"c": ("c_a", "c_b", "c_c")}
    np.testing.assert_array_equal(level_labels(grouped)[:, 1], np.array(NAMES[1:4], dtype=object)[level])
    assert set(level_labels(grouped)[:, [0, 2]].ravel()) == {""}
    # nothing lost: the columns are kept
    np.testing.assert_allclose(grouped.columns.values, oracle, rtol=1e-10, atol=1e-12)


def test_group_importance_is_mean_abs_of_the_sum(gbm, data):
    _, _, Xte, _ = data
    columns = shap_values(gbm, Xte, feature_names=NAMES)
    imp = global_importance(group_shap_result(columns, GROUPS)).set_index("feature")
    assert list(imp.index) == sorted(VARIABLES, key=lambda v: -imp.loc[v, "mean_abs_shap"])
    brute = np.mean([abs(sum(columns.values[i, j] for j in (1, 2, 3))) for i in range(columns.n_rows)])
    assert imp.loc["c", "mean_abs_shap"] == pytest.approx(brute, rel=1e-12)
    # not the sum of the members' mean |SHAP|: the members' values have opposite signs in a row
    summed_members = np.abs(columns.values[:, 1:4]).mean(axis=0).sum()
    assert imp.loc["c", "mean_abs_shap"] < 0.9 * summed_members
    assert imp.loc["x1", "mean_abs_shap"] == pytest.approx(np.abs(columns.values[:, 0]).mean(), rel=1e-12)


def test_group_interaction_values_are_block_sums(data):
    Xtr, ytr, Xte, _ = data
    model = make_estimator("xgboost", "regression", {"n_estimators": 30, "max_depth": 3}, random_state=0)
    model.fit(Xtr, ytr)
    grouped = group_shap_result(shap_values(model, Xte, feature_names=NAMES, interactions=True), GROUPS)
    import xgboost as xgb

    oracle = model.get_booster().predict(xgb.DMatrix(Xte), pred_interactions=True)[:, :5, :5].astype(np.float64)
    blocks = [[0], [1, 2, 3], [4]]
    for a, ca in enumerate(blocks):
        for b, cb in enumerate(blocks):
            np.testing.assert_allclose(
                grouped.interaction_values[:, a, b], oracle[:, ca][:, :, cb].sum(axis=(1, 2)), rtol=1e-6, atol=1e-6
            )
    # each row of the grouped matrix still adds up to the grouped SHAP values
    np.testing.assert_allclose(grouped.interaction_values.sum(axis=2), grouped.values, atol=1e-5)
    table = interaction_frame(grouped)
    assert set(table["feature_1"]) == set(VARIABLES) and len(table) == grouped.n_rows * 9


# --------------------------------------------------------------------------- #
# what the sum is: the quotient game (group as one player) agrees only for additive games
def _brute_force_shapley(f, x, background, players):
    """Exact Shapley values of v(S) = mean_b f(x_S, b_notS); players are lists of columns."""
    m = len(players)

    def v(coalition):
        Z = background.copy()
        for k in coalition:
            Z[:, players[k]] = x[players[k]]
        return float(np.mean(f(Z)))

    phi = np.zeros(m)
    for k in range(m):
        others = [j for j in range(m) if j != k]
        for size in range(m):
            for S in itertools.combinations(others, size):
                w = math.factorial(size) * math.factorial(m - size - 1) / math.factorial(m)
                phi[k] += w * (v(S + (k,)) - v(S))
    return phi


def test_sum_equals_the_quotient_game_for_a_linear_model(data):
    Xtr, ytr, Xte, _ = data
    model = make_estimator("linear_regression", "regression", {}, random_state=0).fit(Xtr, ytr)
    background = Xtr[:40]
    grouped = group_shap_result(
        shap_values(model, Xte[:6], X_background=background, feature_names=NAMES, background_size=40), GROUPS
    )
    for i in range(6):
        quotient = _brute_force_shapley(model.predict, Xte[i], background, [[0], [1, 2, 3], [4]])
        np.testing.assert_allclose(grouped.values[i], quotient, atol=1e-10)


def test_sum_differs_from_the_quotient_game_with_interactions_inside_the_group(data):
    Xtr, ytr, Xte, _ = data

    # a dividend on {x1, c_b, c_c}: two of the group's columns with a column outside it
    def f(Z):
        return Z[:, 0] * Z[:, 2] * (1 + Z[:, 3]) + Z[:, 4]

    background = Xtr[:30]
    differ = 0
    for i in range(8):
        columns = _brute_force_shapley(f, Xte[i], background, [[j] for j in range(5)])
        quotient = _brute_force_shapley(f, Xte[i], background, [[0], [1, 2, 3], [4]])
        summed = np.array([columns[0], columns[1:4].sum(), columns[4]])
        np.testing.assert_allclose(summed.sum(), quotient.sum(), atol=1e-10)  # both efficient
        differ += not np.allclose(summed, quotient, atol=1e-6)
    assert differ >= 4


# --------------------------------------------------------------------------- #
# tables of the rule
def test_shap_tables_with_groups(gbm, data):
    _, _, Xte, level = data
    test_rows = np.arange(100, 100 + len(Xte))
    split = SimpleNamespace(
        X_test=Xte, X_train=Xte, test_rows=test_rows, features=NAMES, feature_groups=None, classes=None, dataset="d"
    )
    settings = ShapSettings(
        family="gradient_boosting", seed=0, max_rows=30, max_rows_random_forest=None, background_size=None
    )
    plain = shap_tables(gbm, split, settings)
    out = shap_tables(gbm, SimpleNamespace(**{**vars(split), "feature_groups": GROUPS}), settings)
    result = out.result
    assert isinstance(result, GroupedShapResult) and result.estimator is None and result.columns.estimator is None
    values = out.values
    assert list(values.columns) == [
        "dataset",
        "model",
        "row",
        "row_id",
        "feature",
        "feature_value",
        "level",
        "shap_value",
        "base_value",
        "model_output",
    ]
    assert list(pd.unique(values["feature"])) == VARIABLES
    cat = values[values["feature"] == "c"]
    np.testing.assert_array_equal(cat["level"], np.array(NAMES[1:4], dtype=object)[level[cat["row"]]])
    np.testing.assert_array_equal(cat["feature_value"], level[cat["row"]])
    # the group's value per row = the sum of the columns' values of the ungrouped table
    per_column = plain.values.set_index(["row", "feature"])["shap_value"]
    expected = [sum(per_column[(r, c)] for c in GROUPS["c"]) for r in cat["row"]]
    np.testing.assert_allclose(cat["shap_value"], expected, rtol=1e-12, atol=1e-14)
    # rows: the sum over all columns, the table of the ungrouped run
    pd.testing.assert_frame_equal(out.rows, plain.rows)
    assert list(out.importance["feature"]) == list(global_importance(result)["feature"])
    assert set(out.importance["feature"]) == set(VARIABLES)
    meta = out.meta
    assert meta["feature_names"] == VARIABLES and meta["n_features"] == 3 and meta["n_columns"] == 5
    assert meta["feature_groups"] == GROUPS and meta["levels"] == {"c": ["c_a", "c_b", "c_c"]}
    assert meta["column_names"] == NAMES
    # no groups: the column result itself, every table as before
    assert group_shap_result(plain.result, None) is plain.result
    assert group_shap_result(plain.result, {}) is plain.result
    assert "level" not in plain.values.columns and "feature_groups" not in plain.meta
    empty = shap_tables(gbm, SimpleNamespace(**{**vars(split), "feature_groups": {}}), settings)
    for key in ("values", "rows", "importance", "interactions"):
        pd.testing.assert_frame_equal(getattr(empty, key), getattr(plain, key))
    assert empty.meta == plain.meta


def test_group_that_is_not_one_hot_and_input_errors(gbm, data):
    _, _, Xte, _ = data
    columns = shap_values(gbm, Xte, feature_names=NAMES)
    pair = group_shap_result(columns, {"both": ["x1", "x2"]})  # numeric columns: a group, not one-hot
    assert pair.feature_names == ("both", "c_a", "c_b", "c_c")
    np.testing.assert_allclose(pair.values[:, 0], columns.values[:, [0, 4]].sum(axis=1), rtol=1e-12)
    assert np.isnan(pair.data[:, 0]).all() and pair.levels == {}
    assert level_labels(pair) is None and "level" not in tidy_frame(pair).columns
    # a drop-first encoding: the all-zero rows are the level "(none)", listed first
    dropped = dataclasses.replace(columns, data=columns.data.copy())
    dropped.data[:, 1] = 0.0
    grouped = group_shap_result(dropped, GROUPS)
    assert grouped.levels["c"] == ("(none)", "c_a", "c_b", "c_c")
    assert set(level_labels(grouped)[:, 1]) <= {"(none)", "c_b", "c_c"}
    with pytest.raises(ValueError, match="not a column"):
        group_shap_result(columns, {"c": ["c_a", "c_z"]})
    with pytest.raises(TypeError, match="already grouped"):
        group_shap_result(group_shap_result(columns, GROUPS), GROUPS)
    with pytest.raises(TypeError):
        group_shap_result(columns.values, GROUPS)
    assert row_frame(group_shap_result(columns, GROUPS))["additivity_error"].abs().max() < 1e-10
    assert "feature_groups" not in result_metadata(columns) and "levels" not in result_metadata(columns)
