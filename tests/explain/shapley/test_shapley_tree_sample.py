"""The large-data tree sample of a forest's TreeSHAP (``shap_tables(..., large_data_trees=)``, config
``large_data.shap_trees``): off, the tables are those without it; on, the values are the mean of the
sampled trees' exact TreeSHAP values (local accuracy against the sampled trees' mean prediction, by
hand), an unbiased estimate of the whole forest's, and the jackknife SE of mean SHAP / mean |SHAP| is
honest against the spread of fresh tree samples around the whole forest's exact value."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import make_friedman1
from sklearn.ensemble import ExtraTreesRegressor, RandomForestClassifier, RandomForestRegressor
from sklearn.tree import DecisionTreeRegressor

from xaipipe.config import LargeDataSettings, ShapSettings
from xaipipe.explain.shapley import shap_tables
from xaipipe.explain.shapley._trees import forest_tree_sample

NAMES = [f"x{j}" for j in range(5)]


@pytest.fixture(scope="module")
def friedman():
    X, y = make_friedman1(n_samples=400, n_features=5, noise=1.0, random_state=0)
    forest = RandomForestRegressor(n_estimators=120, max_features=1.0, random_state=0).fit(X[:300], y[:300])
    return X[300:360], X[:300], forest


def _tables(model, X, Xb, *, seed=0, classes=None, large_data_rows=None, large_data_trees=None):
    """``shap_tables`` of ``X`` (background ``Xb``); ``large_data_rows=m`` / ``large_data_trees=t``:
    the ``shap`` policy's row cap ``m`` (applies above ``m`` test rows) / tree cap ``t`` (from 2)."""
    data = SimpleNamespace(
        X_test=X,
        X_train=Xb,
        test_rows=np.arange(len(X)) + 11,
        features=NAMES[: X.shape[1]],
        feature_groups=None,
        classes=classes,
        dataset="d",
    )
    large = None
    if large_data_rows is not None or large_data_trees is not None:
        large = LargeDataSettings(
            min_rows=large_data_rows or 1,
            reliance_rows=None,
            shap_rows=large_data_rows,
            pd_rows=None,
            shap_trees=large_data_trees,
        )
    settings = ShapSettings(family="rf", seed=seed, max_rows_random_forest=None, background_size=None, large_data=large)
    return shap_tables(model, data, settings)


def test_off_or_not_fewer_trees_is_the_exact_forest(friedman):
    X, Xb, forest = friedman
    exact = _tables(forest, X, Xb, seed=1)
    for cap in (None, 120, 500):
        same = _tables(forest, X, Xb, seed=1, large_data_trees=cap)
        for name, frame in exact.to_frames().items():
            pd.testing.assert_frame_equal(same.to_frames()[name], frame, check_exact=True)
        assert same.meta == exact.meta and "large_data" not in same.meta
    tree = DecisionTreeRegressor(max_depth=4, random_state=0).fit(Xb, Xb[:, 0])  # not a forest: off
    pd.testing.assert_frame_equal(
        _tables(tree, X, Xb, large_data_trees=5).importance, _tables(tree, X, Xb).importance, check_exact=True
    )


def test_values_are_the_sampled_trees_exact_treeshap(friedman):
    X, Xb, forest = friedman
    out = _tables(forest, X, Xb, seed=4, large_data_trees=30)
    trees = forest_tree_sample(120, 30, 4)
    assert out.meta["details"]["tree_sample"] == trees.tolist() and out.meta["details"]["trees_explained"] == 30
    # local accuracy against the sampled trees' mean prediction, computed by hand
    sub_pred = np.mean([forest.estimators_[t].predict(X) for t in trees], axis=0)
    res = out.result
    np.testing.assert_allclose(res.model_output, sub_pred, rtol=1e-12)
    np.testing.assert_allclose(res.values.sum(axis=1) + res.base_values, sub_pred, rtol=1e-9, atol=1e-9)
    # and the values are the mean of the sampled trees' own TreeSHAP values (shap's TreeExplainer per tree)
    import shap

    mean_all = np.mean([shap.TreeExplainer(forest.estimators_[t]).shap_values(X) for t in trees], axis=0)
    np.testing.assert_allclose(res.values, mean_all, rtol=1e-9, atol=1e-10)
    imp = out.importance
    assert list(imp.columns[-4:]) == ["mean_abs_shap_se", "mean_shap_se", "n_trees", "n_trees_explained"]
    assert (imp["n_trees"] == 120).all() and (imp["n_trees_explained"] == 30).all()
    assert out.meta["large_data"] == {
        "policy": "shap",
        "trees": {
            "config_key": "large_data.shap_trees",
            "cap": 30,
            "n_trees": 120,
            "trees_explained": 30,
            "tree_groups": 10,
        },
    }


def test_se_is_honest_against_fresh_tree_samples(friedman):
    """SD of the estimates over 40 fresh tree samples / RMS of the reported SE in [0.7, 1.4] per
    variable (mean SHAP, unbiased) and the estimates within 3 SE of the whole forest's exact value."""
    X, Xb, forest = friedman
    exact = _tables(forest, X, Xb).importance.set_index("feature")
    est, se = [], []
    for seed in range(40):
        imp = _tables(forest, X, Xb, seed=seed, large_data_trees=20).importance.set_index("feature")
        est.append(imp.loc[NAMES, ["mean_shap", "mean_abs_shap"]].to_numpy())
        se.append(imp.loc[NAMES, ["mean_shap_se", "mean_abs_shap_se"]].to_numpy())
    est, se = np.array(est), np.array(se)  # (40, 5, 2)
    truth = exact.loc[NAMES, ["mean_shap", "mean_abs_shap"]].to_numpy()
    ratio = est.std(axis=0, ddof=1) / np.sqrt((se**2).mean(axis=0))
    assert np.all((ratio[:, 0] > 0.7) & (ratio[:, 0] < 1.4)), ratio
    z = (est - truth) / se
    assert np.mean(np.abs(z[:, :, 0]) <= 2) > 0.85, z[:, :, 0]
    # mean |SHAP| of the two important variables: unbiased to within its SE, the SE honest too
    top = np.argsort(-truth[:, 1])[:2]
    bias = est[:, top, 1].mean(axis=0) - truth[top, 1]
    assert np.all(np.abs(bias) < 3 * np.sqrt((se[:, top, 1] ** 2).mean(axis=0) / 40)), bias
    assert np.all((ratio[top, 1] > 0.7) & (ratio[top, 1] < 1.4)), ratio


def test_rows_and_trees_together_and_extra_trees(friedman):
    X, Xb, _ = friedman
    et = ExtraTreesRegressor(n_estimators=50, random_state=0).fit(Xb, Xb[:, 0] + Xb[:, 1])
    both = _tables(et, X, Xb, seed=2, large_data_rows=25, large_data_trees=20)
    rows_only = _tables(et, X, Xb, seed=2, large_data_rows=25)
    imp, ro = both.importance.set_index("feature"), rows_only.importance.set_index("feature")
    assert (imp["n_rows"] == 25).all() and (imp["n_trees_explained"] == 20).all()
    assert both.meta["large_data"]["n_rows"] == 25 and both.meta["large_data"]["trees"]["n_trees"] == 50
    # the tree sample only adds error: combined SE >= the row SE of the same values' spread
    assert (imp["mean_abs_shap_se"] > 0).all() and np.isfinite(ro["mean_abs_shap_se"]).all()


def test_multiclass_forest_every_class(friedman):
    X, Xb, _ = friedman
    yc = np.digitize(Xb[:, 0], [0.33, 0.66])
    rf = RandomForestClassifier(n_estimators=40, random_state=0).fit(Xb, yc)
    out = _tables(rf, X, Xb, seed=0, classes=["a", "b", "c"], large_data_trees=20)
    imp = out.importance
    assert set(imp["class"]) == {"a", "b", "c"} and imp["mean_abs_shap_se"].gt(0).all()
    # each class's values sum with its base value to the sampled trees' mean probability
    trees = forest_tree_sample(40, 20, 0)
    proba = np.mean([rf.estimators_[t].predict_proba(X) for t in trees], axis=0)
    for k, res in enumerate(out.result.results):
        np.testing.assert_allclose(res.values.sum(axis=1) + res.base_values, proba[:, k], atol=1e-9)


def test_settings_key():
    section = {"min_rows": 100, "reliance_rows": 50, "shap_rows": 50, "pd_rows": 50, "shap_trees": 30}
    s = LargeDataSettings.from_config({"large_data": section})
    assert s.trees(100) is None and s.trees(101) == 30
    assert LargeDataSettings.from_params(s.to_params()) == s
    off = LargeDataSettings.from_config({"large_data": {**section, "shap_trees": None}})
    assert off.trees(10**6) is None
