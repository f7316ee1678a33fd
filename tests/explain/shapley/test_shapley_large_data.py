"""The large-data policy of the ``shap`` rule (``shap_tables`` with
``ShapSettings.large_data``, config ``large_data.shap_rows``): off, the tables are those without it; on, every family explains the
seeded subsample, and ``shap_importance``'s SE of mean |SHAP| / mean SHAP is honest against the
spread of fresh subsamples around the all-rows value (exact TreeSHAP of a decision tree: each row's
values do not depend on the subsample), the finite-population correction included."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LinearRegression
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from xaipipe.config import LargeDataSettings, ShapSettings
from xaipipe.explain.shapley import shap_tables


@pytest.fixture(scope="module")
def simulated():
    rng = np.random.default_rng(0)
    n = 2000
    X = rng.normal(size=(n, 3))
    y = 2 * X[:, 0] + X[:, 1] + 0.5 * X[:, 0] ** 2 + rng.normal(size=n)
    return X, y, DecisionTreeRegressor(max_depth=5, random_state=0).fit(X, y)


def _tables(model, X, family="decision_tree", *, classes=None, large_data_rows=None, **fields):
    """``shap_tables`` of ``X`` (test and background rows); ``large_data_rows=m``: the ``shap``
    policy applies above ``m`` test rows with cap ``m``; ``fields``: of :class:`ShapSettings`."""
    data = SimpleNamespace(
        X_test=X,
        X_train=X,
        test_rows=np.arange(len(X)) + 7,
        features=["a", "b", "c"],
        feature_groups=None,
        classes=classes,
        dataset="d",
    )
    large = None
    if large_data_rows is not None:
        large = LargeDataSettings(
            min_rows=large_data_rows, reliance_rows=None, shap_rows=large_data_rows, pd_rows=None, shap_trees=None
        )
    settings = ShapSettings(
        **{"family": family, "seed": 0, "max_rows_random_forest": None, **fields},
        background_size=50,
        large_data=large,
    )
    out = shap_tables(model, data, settings)
    return {**out.to_frames(), "meta": out.meta, "result": out.result}  # the ShapTables' fields by name


def test_off_is_the_tables_without_it(simulated):
    X, y, tree = simulated
    base = _tables(tree, X[:300], max_rows=200, seed=3)
    for cap in (None, 300):
        same = _tables(tree, X[:300], max_rows=200, seed=3, large_data_rows=cap)
        for name in ("values", "rows", "importance", "interactions"):
            pd.testing.assert_frame_equal(same[name], base[name], check_exact=True)
        assert same["meta"] == base["meta"] and "large_data" not in base["meta"]


def test_on_every_family_explains_the_subsample_and_reports_its_se(simulated):
    X, y, tree = simulated
    lin = LinearRegression().fit(X, y)
    for model, family in ((tree, "decision_tree"), (lin, "linear_regression")):
        out = _tables(model, X, family=family, seed=5, large_data_rows=120)
        assert out["values"]["row"].nunique() == 120 == len(out["meta"]["test_rows_explained"])
        imp = out["importance"]
        assert list(imp.columns[-4:]) == ["mean_abs_shap_se", "mean_shap_se", "n_rows", "n_test_rows"]
        assert (imp["n_rows"] == 120).all() and (imp["n_test_rows"] == 2000).all()
        assert out["meta"]["large_data"] == {"policy": "shap", "cap": 120, "n_rows": 120, "n_test_rows": 2000}
        # by hand: s / sqrt(m) * sqrt(1 - m / n) of |phi| over the explained rows
        v = out["values"][out["values"]["feature"] == "a"]["shap_value"].to_numpy()
        row = imp[imp["feature"] == "a"].iloc[0]
        assert row["mean_abs_shap"] == pytest.approx(np.abs(v).mean(), rel=1e-12)
        assert row["mean_abs_shap_se"] == pytest.approx(np.abs(v).std(ddof=1) / np.sqrt(120) * np.sqrt(1 - 0.06))
    # the smaller cap wins (explain.shap.max_rows)
    assert _tables(tree, X, max_rows=50, large_data_rows=120)["importance"]["n_rows"].eq(50).all()


def test_multiclass_se_per_class():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(600, 3))
    y = np.digitize(X[:, 0] + 0.5 * X[:, 1], [-0.5, 0.5])
    clf = DecisionTreeClassifier(max_depth=4, random_state=0).fit(X, y)
    out = _tables(clf, X, classes=["low", "mid", "high"], seed=2, large_data_rows=100)
    imp = out["importance"]
    assert len(imp) == 9 and imp["mean_abs_shap_se"].notna().all() and (imp["n_rows"] == 100).all()
    for label, part in out["values"].groupby("class"):
        v = part[part["feature"] == "b"]["shap_value"].to_numpy()
        got = imp[(imp["class"] == label) & (imp["feature"] == "b")]["mean_shap_se"].item()
        assert got == pytest.approx(v.std(ddof=1) / 10 * np.sqrt(1 - 100 / 600))


@pytest.mark.parametrize(("m", "seeds"), [(100, 200), (1500, 100)])
def test_the_se_is_honest_against_fresh_subsamples(simulated, m, seeds):
    """m = 100 and 1 500 of 2 000 rows (at 1 500 the finite-population correction halves the SE:
    without it the reported SE would be twice the spread)."""
    X, y, tree = simulated
    full = _tables(tree, X)["importance"].set_index("feature")
    est, se = [], []
    for seed in range(seeds):
        imp = _tables(tree, X, seed=seed, large_data_rows=m)["importance"].set_index("feature").loc[full.index]
        est.append(imp[["mean_abs_shap", "mean_shap"]].to_numpy())
        se.append(imp[["mean_abs_shap_se", "mean_shap_se"]].to_numpy())
    est, se = np.array(est)[:, :2], np.array(se)[:, :2]  # the two variables the tree uses
    truth = full[["mean_abs_shap", "mean_shap"]].to_numpy()[:2]
    spread = est.std(axis=0, ddof=1)
    assert np.all(np.abs(est.mean(axis=0) - truth) < 4 * spread / np.sqrt(seeds))
    ratio = spread / np.sqrt((se**2).mean(axis=0))
    assert np.all((ratio > 0.8) & (ratio < 1.25)), ratio
