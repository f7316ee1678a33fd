"""Split-gain importance vs independent oracles: Friedman's eq. 44 summed by hand
over the internal nodes of scikit-learn trees, and XGBoost's per-split gains from
the tree dump."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import xgboost as xgb
from sklearn.datasets import load_breast_cancer, load_diabetes
from sklearn.ensemble import GradientBoostingRegressor, RandomForestClassifier
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeRegressor

from xaipipe.explain.reliance import split_gain_columns, split_gain_importance


@pytest.fixture(scope="module")
def reg():
    X, y = load_diabetes(return_X_y=True)
    X = X[:150].copy()
    X[:, 3] = 1.0  # constant column: never split on
    return X, y[:150]


def _tree_gains(tree) -> np.ndarray:
    """Eq. 44 by hand: weighted impurity decrease summed over internal nodes by split variable."""
    t = tree.tree_
    gains = np.zeros(tree.n_features_in_)
    w, imp = t.weighted_n_node_samples, t.impurity
    for node in range(t.node_count):
        left, right = t.children_left[node], t.children_right[node]
        if left == -1:  # leaf
            continue
        gains[t.feature[node]] += w[node] * imp[node] - w[left] * imp[left] - w[right] * imp[right]
    return gains


def test_decision_tree_matches_hand_sum_over_internal_nodes(reg):
    X, y = reg
    tree = DecisionTreeRegressor(max_depth=4, random_state=0).fit(X, y)
    shares, kind = split_gain_columns(tree)
    oracle = _tree_gains(tree)
    np.testing.assert_allclose(shares, oracle / oracle.sum(), rtol=1e-12, atol=1e-15)
    assert kind == "mdi" and shares[3] == 0 and shares.sum() == pytest.approx(1.0)


def test_gradient_boosting_is_the_average_over_trees_eq45(reg):
    X, y = reg
    gb = GradientBoostingRegressor(n_estimators=8, max_depth=2, random_state=0).fit(X, y)
    oracle = np.mean([_tree_gains(stage[0]) for stage in gb.estimators_], axis=0)
    table = split_gain_importance(gb)
    np.testing.assert_allclose(table["split_gain"], oracle / oracle.sum(), rtol=1e-10, atol=1e-15)
    assert table["feature"].tolist() == [f"x{j}" for j in range(10)]


def test_groups_are_summed_and_forest_uses_mdi():
    X, y = load_breast_cancer(return_X_y=True)
    X, y = X[:200, :6], y[:200]
    rf = RandomForestClassifier(n_estimators=5, max_depth=3, random_state=0).fit(X, y)
    names = ["a", "b", "c", "d", "e", "f"]
    table = split_gain_importance(rf, features={"ab": ["a", "b"], "c": ["c"], "def": [3, 4, 5]}, feature_names=names)
    fi = rf.feature_importances_
    np.testing.assert_allclose(table["split_gain"], [fi[:2].sum(), fi[2], fi[3:].sum()], rtol=1e-12)
    assert table["split_gain"].sum() == pytest.approx(1.0) and (table["kind"] == "mdi").all()


def test_xgboost_total_gain_matches_tree_dump(reg):
    X, y = reg
    model = xgb.XGBRegressor(n_estimators=6, max_depth=2, learning_rate=0.3, random_state=0, n_jobs=1).fit(X, y)
    dump = model.get_booster().trees_to_dataframe()
    splits = dump[dump["Feature"] != "Leaf"]
    total = splits.groupby("Feature")["Gain"].sum()
    oracle = np.array([total.get(f"f{j}", 0.0) for j in range(X.shape[1])])
    shares, kind = split_gain_columns(model)
    assert kind == "total_gain"
    np.testing.assert_allclose(shares, oracle / oracle.sum(), rtol=1e-5, atol=1e-9)
    assert shares[3] == 0.0 and (shares > 0).sum() == len(total)
    # fitted on a DataFrame with named (shuffled-order) columns: mapped by name back to column order
    cols = [f"v{j}" for j in range(X.shape[1])][::-1]
    named = xgb.XGBRegressor(n_estimators=6, max_depth=2, learning_rate=0.3, random_state=0, n_jobs=1)
    named.fit(pd.DataFrame(X, columns=cols), y)
    np.testing.assert_allclose(split_gain_columns(named)[0], shares, rtol=1e-6)
    grouped = split_gain_importance(named, features={"first": [0, 1]}, feature_names=cols)
    assert grouped["split_gain"].iloc[0] == pytest.approx(shares[:2].sum(), rel=1e-6)


def test_non_tree_models_and_unfitted_models_are_rejected(reg):
    X, y = reg
    with pytest.raises(TypeError, match="tree model"):
        split_gain_importance(LinearRegression().fit(X, y))
    yb = (y > np.median(y)).astype(int)
    with pytest.raises(TypeError, match="LogisticRegression"):
        split_gain_importance(make_pipeline(StandardScaler(), LogisticRegression()).fit(X, yb))
    with pytest.raises(NotFittedError):
        split_gain_importance(DecisionTreeRegressor())
    piped = make_pipeline(StandardScaler(), DecisionTreeRegressor(max_depth=3, random_state=0)).fit(X, y)
    assert split_gain_importance(piped)["split_gain"].sum() == pytest.approx(1.0)


def test_model_without_splits_gives_zeros(reg):
    X, _ = reg
    stump = DecisionTreeRegressor().fit(X, np.ones(len(X)))
    table = split_gain_importance(stump)
    assert (table["split_gain"] == 0).all()
