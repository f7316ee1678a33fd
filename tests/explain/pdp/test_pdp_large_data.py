"""The large-data policy of the ``pd_ice`` rule (``pd_ice_tables`` with ``PdIceSettings.large_data``, config
``large_data.pd_rows``): off, the tables are those without it; on, the PD is the mean of brute-force
predictions over the documented subsample on the all-rows grid, ICE rows come from it, and the
``pd_se`` rows are honest against the spread of fresh subsamples around the all-rows PD of a tree
with an interaction."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from xaipipe.config import AleSettings, LargeDataSettings, PdIceSettings
from xaipipe.explain.pdp import ale_tables, feature_grid, pd_ice_tables
from xaipipe.explain.pdp._grid import DEFAULT_MAX_BATCH_ROWS


@pytest.fixture(scope="module")
def simulated():
    rng = np.random.default_rng(0)
    n = 3000
    X = rng.normal(size=(n, 3))
    y = 2 * X[:, 0] + X[:, 0] * X[:, 1] + X[:, 2] + rng.normal(size=n)
    return X, DecisionTreeRegressor(max_depth=6, random_state=0).fit(X, y)


KW = dict(resolution=12, percentiles=(0.0, 1.0), max_curves=50)


def _pd_rows(m):
    """The ``pd`` policy with cap ``m``, applying above ``m`` test rows (None: no policy)."""
    return None if m is None else LargeDataSettings(min_rows=m, reliance_rows=None, shap_rows=None, pd_rows=m)


def _pd_ice(model, X, top, *, extra=(), row_ids=None, classes=None, large_data_rows=None, **fields):
    """``pd_ice_tables`` of the test rows ``X`` (variables a, b, c; a classifier's probability where
    ``classes``); ``fields``: of :class:`PdIceSettings`."""
    task = "regression" if classes is None else "classification"
    split = SimpleNamespace(
        X_test=X, features=["a", "b", "c"], feature_groups=None, test_rows=row_ids, task=task, classes=classes
    )
    settings = PdIceSettings(
        **{"task": task, "seed": 0, "smooth": 0, "max_batch_rows": 100_000, **fields},
        large_data=_pd_rows(large_data_rows),
    )
    return pd_ice_tables(model, split, settings, top=top, extra=extra)


def test_off_is_the_tables_without_it(simulated):
    X, tree = simulated
    base = _pd_ice(tree, X[:400], top=["a", "b"], extra=["c"], **KW)
    for kwargs in ({"large_data_rows": None}, {"large_data_rows": 400, "seed": 3}):
        same = _pd_ice(tree, X[:400], top=["a", "b"], extra=["c"], **KW, **kwargs)
        for got, want in zip(same, base):
            pd.testing.assert_frame_equal(got, want, check_exact=True)


def test_on_the_pd_is_the_mean_over_the_documented_subsample(simulated):
    X, tree = simulated
    n, m = len(X), 150
    ids = np.arange(n) + 1000
    curves, pairs = _pd_ice(tree, X, top=["a", "b"], row_ids=ids, large_data_rows=m, seed=4, **{**KW, "max_curves": 40})
    rows = np.sort(np.random.default_rng(4).choice(n, m, replace=False))
    pd_a = curves[(curves.feature == "a") & (curves.kind == "pd")]
    grid = feature_grid(X[:, 0], resolution=12, percentiles=(0.0, 1.0))  # all rows' grid
    np.testing.assert_array_equal(pd_a["grid_value"], grid)
    ice = np.empty((m, grid.size))
    for k, v in enumerate(grid):
        Xv = X[rows].copy()
        Xv[:, 0] = v
        ice[:, k] = tree.predict(Xv)
    np.testing.assert_allclose(pd_a["value"], ice.mean(axis=0), rtol=1e-12)
    se = curves[(curves.feature == "a") & (curves.kind == "pd_se")]
    np.testing.assert_allclose(se["value"], ice.std(axis=0, ddof=1) / np.sqrt(m) * np.sqrt(1 - m / n), rtol=1e-10)
    assert (se["rank"] == 1).all() and (se["row"] == -1).all()
    ice_rows = set(curves[curves.kind == "ice"]["row"])
    assert len(ice_rows) == 40 and ice_rows <= set(ids[rows])
    assert set(curves[curves.kind == "pd_se"]["feature"]) == {"a", "b"}
    # the 2-D PD on the subsample too (brute force at one grid cell)
    cell = pairs.iloc[len(pairs) // 3]
    Xc = X[rows].copy()
    Xc[:, 0], Xc[:, 1] = cell["value_1"], cell["value_2"]
    assert cell["pd"] == pytest.approx(tree.predict(Xc).mean(), rel=1e-12)


def test_multiclass_pd_se_per_class():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(500, 3))
    y = np.digitize(X[:, 0] + 0.5 * X[:, 1], [-0.5, 0.5])
    clf = DecisionTreeClassifier(max_depth=4, random_state=0).fit(X, y)
    curves, _ = _pd_ice(
        clf, X, top=["a"], classes=["l", "m", "h"], large_data_rows=100, classification_output="proba", **KW
    )
    se = curves[curves.kind == "pd_se"]
    assert set(se["class"]) == {"l", "m", "h"} and len(se) == 3 * 12 and (se["value"] >= 0).all()


def test_the_pd_se_is_honest_against_fresh_subsamples(simulated):
    """200 seeds, m = 100 of n = 3 000: the mean PD is the all-rows PD and its spread the reported
    SE at every grid point of x1 (whose PD averages over the x0 x x1 interaction)."""
    X, tree = simulated
    S = 200
    kw = {**KW, "max_curves": 1}
    full = _pd_ice(tree, X, top=["b"], **kw)[0]
    truth = full[full.kind == "pd"]["value"].to_numpy()
    est, ses = [], []
    for seed in range(S):
        c = _pd_ice(tree, X, top=["b"], large_data_rows=100, seed=seed, **kw)[0]
        est.append(c[c.kind == "pd"]["value"].to_numpy())
        ses.append(c[c.kind == "pd_se"]["value"].to_numpy())
    est, ses = np.array(est), np.array(ses)
    spread = est.std(axis=0, ddof=1)
    assert np.all(np.abs(est.mean(axis=0) - truth) < 4 * spread / np.sqrt(S))
    ratio = spread / np.sqrt((ses**2).mean(axis=0))
    assert np.all((ratio > 0.8) & (ratio < 1.25)), ratio
    coverage = (np.abs(est - truth) <= 2 * ses).mean(axis=0)
    assert np.all((coverage > 0.88) & (coverage < 0.995)), coverage


def test_ale_rule_pd_column_on_the_subsample(simulated):
    """ale_tables: off, the tables without it; on, the ALE keeps every row, the pd column is the
    brute-force mean over the documented subsample at the all-rows ALE edges, with its SE and rows;
    the SE is honest against 150 fresh subsamples around the all-rows pd column."""
    X, tree = simulated
    n, m = len(X), 100
    split = SimpleNamespace(X_test=X, features=["a", "b", "c"], feature_groups=None, classes=None)
    settings = AleSettings(seed=0, output="predict", max_batch_rows=DEFAULT_MAX_BATCH_ROWS, n_bins=8, large_data=None)

    def _ale(seed=0, large_data_rows=None, pair=("a", "b")):
        out = ale_tables(tree, split, replace(settings, seed=seed, large_data=_pd_rows(large_data_rows)), pair=pair)
        return out.ale, out.ale_2d, out.skipped

    base, base_2d, _ = _ale()
    off, off_2d, _ = _ale(large_data_rows=None)
    pd.testing.assert_frame_equal(off, base, check_exact=True)
    pd.testing.assert_frame_equal(off_2d, base_2d, check_exact=True)
    on, on_2d, _ = _ale(large_data_rows=m, seed=5)
    assert list(on.columns) == list(base.columns) + ["pd_se", "pd_rows"] and (on["pd_rows"] == m).all()
    shared = [c for c in base.columns if c not in ("pd", "pd_centred")]
    pd.testing.assert_frame_equal(on[shared], base[shared], check_exact=True)  # the ALE: every row
    pd.testing.assert_frame_equal(on_2d, base_2d, check_exact=True)
    rows = np.sort(np.random.default_rng(5).choice(n, m, replace=False))
    a = on[on.feature == "a"]
    for _, point in a.iloc[[0, 4]].iterrows():
        Xz = X[rows].copy()
        Xz[:, 0] = point["value"]
        out = tree.predict(Xz)
        assert point["pd"] == pytest.approx(out.mean(), rel=1e-12)
        assert point["pd_se"] == pytest.approx(out.std(ddof=1) / np.sqrt(m) * np.sqrt(1 - m / n), rel=1e-10)
    truth = base[base.feature == "b"]["pd"].to_numpy()
    est, ses = [], []
    for seed in range(150):
        t = _ale(large_data_rows=m, seed=seed, pair=None)[0]
        est.append(t[t.feature == "b"]["pd"].to_numpy())
        ses.append(t[t.feature == "b"]["pd_se"].to_numpy())
    est, ses = np.array(est), np.array(ses)
    spread = est.std(axis=0, ddof=1)
    assert np.all(np.abs(est.mean(axis=0) - truth) < 4 * spread / np.sqrt(150))
    ratio = spread / np.sqrt((ses**2).mean(axis=0))
    assert np.all((ratio > 0.78) & (ratio < 1.28)), ratio
