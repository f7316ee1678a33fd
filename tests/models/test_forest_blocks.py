"""Forests fitted a block of trees at a time: the trees (every array of ``tree_``) and the
prefix predictions are bitwise those of one plain ``fit`` (the oracle: scikit-learn's own
one-shot fit and :func:`xaipipe.models.prefix.prefix_predictions`)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import load_diabetes, load_iris, make_classification

from xaipipe.models.families import make_estimator
from xaipipe.models.forest_blocks import (
    fit_forest_blocks,
    forest_block_prefix_predictions,
    supports_forest_blocks,
)
from xaipipe.models.prefix import prefix_predictions

TREE_ARRAYS = ("children_left", "children_right", "feature", "threshold", "value", "impurity", "n_node_samples")


def _data(task):
    if task == "regression":
        X, y = load_diabetes(return_X_y=True)
        return X[:250], y[:250], X[250:]
    if task == "binary":
        X, y = make_classification(n_samples=300, n_features=8, n_informative=4, random_state=3)
        return X[:220], y[:220], X[220:]
    X, y = load_iris(return_X_y=True)  # 3 classes, shuffled so that a bootstrap sees all of them
    order = np.random.default_rng(0).permutation(len(y))
    X, y = X[order], y[order]
    return X[:110], y[:110], X[110:]


def _same_tree(a, b):
    ta, tb = a.tree_, b.tree_
    assert ta.node_count == tb.node_count
    for name in TREE_ARRAYS:
        assert np.array_equal(getattr(ta, name), getattr(tb, name), equal_nan=True), name
    assert a.random_state == b.random_state


CASES = [
    ("random_forest", {}),
    ("random_forest", {"max_features": 0.5, "max_samples": 0.7, "min_samples_leaf": 2}),
    ("random_forest", {"class_weight": "balanced_subsample"}),
    ("extra_trees", {}),
    ("extra_trees", {"bootstrap": True, "max_features": 0.5}),
]


@pytest.mark.parametrize("task", ["regression", "binary", "multiclass"])
@pytest.mark.parametrize("family,params", CASES)
@pytest.mark.parametrize("block", [1, 4, 7, 23])
def test_blocks_fit_the_trees_of_one_fit(family, params, task, block):
    if "class_weight" in params and task == "regression":
        pytest.skip("class_weight is a classifier option")
    X, y, _ = _data(task)
    kind = "regression" if task == "regression" else "classification"
    forest = make_estimator(family, kind, {**params, "n_estimators": 23}, random_state=5, n_jobs=1)
    plain = make_estimator(family, kind, {**params, "n_estimators": 23}, random_state=5, n_jobs=2).fit(X, y)
    seen = []
    for start, trees, shell in fit_forest_blocks(forest, X, y, block):
        assert start == len(seen) and 1 <= len(trees) <= block
        assert all(t is None for t in shell.estimators_[:start])  # earlier blocks were dropped
        seen.extend(trees)
        if kind == "classification":
            assert np.array_equal(shell.classes_, plain.classes_) and shell.n_classes_ == plain.n_classes_
    assert len(seen) == 23
    for a, b in zip(seen, plain.estimators_):
        _same_tree(a, b)
    assert not hasattr(forest, "estimators_")  # the argument is not fitted


@pytest.mark.parametrize("task", ["regression", "binary", "multiclass"])
@pytest.mark.parametrize("family,params", CASES[:2] + CASES[3:4])
def test_block_prefix_predictions_equal_prefix_predictions(family, params, task):
    X, y, X_new = _data(task)
    kind = "regression" if task == "regression" else "classification"
    ks = [25, 1, 10, 7, 25, 3]
    plain = make_estimator(family, kind, {**params, "n_estimators": 25}, random_state=9, n_jobs=1).fit(X, y)
    ref = prefix_predictions(plain, X_new, ks)
    for block in (1, 6, 25, 40):
        forest = make_estimator(family, kind, {**params, "n_estimators": 3}, random_state=9, n_jobs=1)
        got, fit_s, pred_s = forest_block_prefix_predictions(forest, X, y, X_new, ks, block)
        assert got.shape == ref.shape and got.dtype == np.float64
        assert np.array_equal(got, ref), f"block {block}: max diff {np.abs(got - ref).max()}"
        assert fit_s > 0 and pred_s > 0
    # the whole forest's prefix is the forest's own predict / predict_proba (n_jobs=1)
    full = plain.predict(X_new) if kind == "regression" else plain.predict_proba(X_new)
    assert np.array_equal(got[0], full)


def test_unsupported_forests_are_refused():
    X, y, _ = _data("regression")
    oob = make_estimator("random_forest", "regression", {"n_estimators": 4, "oob_score": True}, random_state=0)
    assert not supports_forest_blocks(oob)
    with pytest.raises(ValueError, match="oob_score=False"):
        next(fit_forest_blocks(oob, X, y, 2))
    rs = make_estimator("random_forest", "regression", {"n_estimators": 4}, random_state=0)
    rs.set_params(random_state=np.random.RandomState(0))
    assert not supports_forest_blocks(rs)
    with pytest.raises(ValueError, match="integer random_state"):
        forest_block_prefix_predictions(rs, X, y, X, [2], 2)
    ok = make_estimator("random_forest", "regression", {"n_estimators": 4}, random_state=0)
    with pytest.raises(ValueError, match="block_trees must be >= 1"):
        next(fit_forest_blocks(ok, X, y, 0))
    with pytest.raises(ValueError, match=">= 1"):
        forest_block_prefix_predictions(ok, X, y, X, [0, 2], 2)
    assert not supports_forest_blocks(make_estimator("gradient_boosting", "regression", {}, random_state=0))
