"""KernelSHAP converges to exact interventional TreeSHAP on the same background."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import shap
from sklearn.datasets import load_breast_cancer
from sklearn.ensemble import GradientBoostingClassifier

from xaipipe.config.shap import shap_algorithm
from xaipipe.explain.shapley import kernel_vs_tree_shap

GRID = (8, 16, 32, 62)  # 62 = 2^6 - 2: every coalition of 6 features


@pytest.fixture(scope="module")
def setup():
    data = load_breast_cancer()
    X, y = data.data[:, [0, 1, 6, 7, 20, 27]], 1 - data.target
    model = GradientBoostingClassifier(n_estimators=15, max_depth=2, random_state=0).fit(X[:400], y[:400])
    return model, X[400:406], X[:400], [data.feature_names[j] for j in [0, 1, 6, 7, 20, 27]]


@pytest.fixture(scope="module")
def check(setup):
    model, Xe, Xb, names = setup
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Linear regression equation is singular")
        return kernel_vs_tree_shap(model, Xe, Xb, n_samples=GRID, background_size=20, feature_names=names)


def test_kernel_shap_converges_to_tree_shap(check):
    s = check.summary
    assert list(s["n_samples"]) == list(GRID)
    err = s["max_abs_difference"].to_numpy()
    assert err[0] > 1e-3  # sampling error is visible at 8 coalitions
    assert np.all(np.diff(s["mean_abs_difference"].to_numpy()) < 0)  # decreases along the grid
    assert err[-1] < 1e-6 and bool(s["exhaustive"].iloc[-1]) and not s["exhaustive"].iloc[:-1].any()
    # both are locally accurate against the directly computed log-odds
    assert s["kernel_local_accuracy_gap"].max() < 1e-9
    assert s["tree_local_accuracy_gap"].max() < 1e-6
    assert set(s["output"]) == {"log_odds"}


def test_tree_side_is_the_interventional_game_on_the_same_background(setup, check):
    model, Xe, Xb, _ = setup
    bg = Xb[check.details["background_index"]]
    assert len(bg) == 20
    # independent oracle: brute-force Shapley values of v(S) = mean_b f(x_S, b_notS)
    from itertools import combinations
    from math import comb

    p = Xe.shape[1]
    x = Xe[0]

    def v(S):
        Z = bg.copy()
        Z[:, list(S)] = x[list(S)]
        return model.decision_function(Z).mean()

    phi = np.zeros(p)
    for j in range(p):
        others = [k for k in range(p) if k != j]
        for size in range(p):
            for S in combinations(others, size):
                phi[j] += (v(S + (j,)) - v(S)) / (p * comb(p - 1, size))
    tree = check.values[(check.values.n_samples == GRID[0]) & (check.values.row == 0)]["tree_shap"].to_numpy()
    np.testing.assert_allclose(tree, phi, atol=1e-7)
    assert check.base_value == pytest.approx(model.decision_function(bg).mean(), abs=1e-7)
    # the path-dependent TreeSHAP of the pipeline answers another game
    path = shap.TreeExplainer(model, feature_perturbation="tree_path_dependent").shap_values(Xe[:1])[0]
    assert np.abs(path - phi).max() > 1e-3


def test_tables_and_seed(setup, check):
    assert len(check.by_row) == len(GRID) * 6 and len(check.by_feature) == len(GRID) * 6
    assert len(check.values) == len(GRID) * 6 * 6
    last = check.by_row[check.by_row.n_samples == GRID[-1]]
    assert last["max_abs_difference"].max() < 1e-6
    model, Xe, Xb, names = setup
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Linear regression equation is singular")
        again = kernel_vs_tree_shap(model, Xe, Xb, n_samples=GRID[:2], background_size=20, feature_names=names)
    np.testing.assert_array_equal(
        again.values["kernel_shap"], check.values[check.values.n_samples.isin(GRID[:2])]["kernel_shap"]
    )


def test_shap_algorithm_hook():
    assert shap_algorithm("xgboost") == "auto"
    assert shap_algorithm("knn", {"knn": "kernel"}) == "kernel"
    assert shap_algorithm("xgboost", {"knn": "kernel"}) == "auto"
    with pytest.raises(ValueError, match="explain.shap.algorithm.knn"):
        shap_algorithm("knn", {"knn": "kernal"})
    with pytest.raises(KeyError, match="unknown model family"):
        shap_algorithm("svm")


@pytest.mark.parametrize("task", ["regression", "classification"])
def test_a_forest_store_is_explained_a_block_at_a_time(setup, task, tmp_path):
    """Above large_data.forest_block_rows the shap_check rule opens the fit's forest store lazily
    (xaipipe.io.open_model): TreeSHAP per stored block, weighted by its trees, equals the whole
    forest's values to shap's precision (its interventional values differ from a brute-force
    Shapley sum by up to ~3e-7 relative on these sub-forests: not bitwise); KernelSHAP's model
    output (predict / predict_proba over the lazily read trees) is bitwise the whole forest's."""
    from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor

    from xaipipe.io import open_model
    from xaipipe.models.forest_store import save_forest

    _, Xe, Xb, names = setup
    y = Xb[:, 0] + 2 * Xb[:, 2] if task == "regression" else (Xb[:, 0] > np.median(Xb[:, 0])).astype(int)
    cls = RandomForestRegressor if task == "regression" else RandomForestClassifier
    forest = cls(n_estimators=11, max_depth=4, random_state=0).fit(Xb, y)
    save_forest(tmp_path / "model.joblib", forest, 3)  # blocks of 3, 3, 3, 2 trees
    lazy = open_model(tmp_path / "model.joblib")
    kw = dict(n_samples=(8, 62), background_size=15, feature_names=names, random_state=4)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Linear regression equation is singular")
        whole = kernel_vs_tree_shap(forest, Xe, Xb, **kw)
        blocks = kernel_vs_tree_shap(lazy, Xe, Xb, **kw)
    assert blocks.details["tree_shap_blocks"] == 4 and "tree_shap_blocks" not in whole.details
    a, b = whole.values, blocks.values
    assert np.abs(a["tree_shap"]).max() > 1e-3  # not a trivial game
    scale = np.abs(a["tree_shap"]).max()
    np.testing.assert_allclose(b["tree_shap"], a["tree_shap"], rtol=0, atol=2e-6 * scale)
    np.testing.assert_array_equal(b["kernel_shap"], a["kernel_shap"])  # same f(x): bitwise
    assert blocks.base_value == pytest.approx(whole.base_value, rel=1e-12)
    assert blocks.summary["tree_local_accuracy_gap"].max() < 1e-6  # shap's float32-level error, as above
