"""The large-data policy of the ``pd_ice`` rule (``pd_ice_tables`` with ``PdIceSettings.large_data``, config
``large_data.pd_rows``): off, the tables are those without it; on, the PD is the mean of brute-force
predictions over the documented subsample on the all-rows grid, ICE rows come from it, and the
``pd_se`` rows are honest against the spread of fresh subsamples around the all-rows PD of a tree
with an interaction."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from tests.keyword_steps import pd_ice_tables_kw
from xaipipe.explain.pdp import feature_grid


@pytest.fixture(scope="module")
def simulated():
    rng = np.random.default_rng(0)
    n = 3000
    X = rng.normal(size=(n, 3))
    y = 2 * X[:, 0] + X[:, 0] * X[:, 1] + X[:, 2] + rng.normal(size=n)
    return X, DecisionTreeRegressor(max_depth=6, random_state=0).fit(X, y)


KW = dict(feature_names=["a", "b", "c"], output="predict", resolution=12, percentiles=(0.0, 1.0), max_curves=50)


def test_off_is_the_tables_without_it(simulated):
    X, tree = simulated
    base = pd_ice_tables_kw(tree, X[:400], top=["a", "b"], extra=["c"], **KW)
    for kwargs in ({"large_data_rows": None}, {"large_data_rows": 400, "random_state": 3}):
        same = pd_ice_tables_kw(tree, X[:400], top=["a", "b"], extra=["c"], **KW, **kwargs)
        for got, want in zip(same, base):
            pd.testing.assert_frame_equal(got, want, check_exact=True)


def test_on_the_pd_is_the_mean_over_the_documented_subsample(simulated):
    X, tree = simulated
    n, m = len(X), 150
    ids = np.arange(n) + 1000
    curves, pairs = pd_ice_tables_kw(
        tree, X, top=["a", "b"], row_ids=ids, large_data_rows=m, random_state=4, **{**KW, "max_curves": 40}
    )
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
    curves, _ = pd_ice_tables_kw(
        clf, X, top=["a"], classes=["l", "m", "h"], large_data_rows=100, **{**KW, "output": "proba"}
    )
    se = curves[curves.kind == "pd_se"]
    assert set(se["class"]) == {"l", "m", "h"} and len(se) == 3 * 12 and (se["value"] >= 0).all()


def test_the_pd_se_is_honest_against_fresh_subsamples(simulated):
    """200 seeds, m = 100 of n = 3 000: the mean PD is the all-rows PD and its spread the reported
    SE at every grid point of x1 (whose PD averages over the x0 x x1 interaction)."""
    X, tree = simulated
    S = 200
    kw = {**KW, "max_curves": 1}
    full = pd_ice_tables_kw(tree, X, top=["b"], **kw)[0]
    truth = full[full.kind == "pd"]["value"].to_numpy()
    est, ses = [], []
    for seed in range(S):
        c = pd_ice_tables_kw(tree, X, top=["b"], large_data_rows=100, random_state=seed, **kw)[0]
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
    from tests.keyword_steps import ale_tables_kw

    X, tree = simulated
    n, m = len(X), 100
    kw = dict(feature_names=["a", "b", "c"], output="predict", n_bins=8, pair=("a", "b"))
    base, base_2d, _ = ale_tables_kw(tree, X, **kw)
    off, off_2d, _ = ale_tables_kw(tree, X, large_data_rows=None, **kw)
    pd.testing.assert_frame_equal(off, base, check_exact=True)
    pd.testing.assert_frame_equal(off_2d, base_2d, check_exact=True)
    on, on_2d, _ = ale_tables_kw(tree, X, large_data_rows=m, random_state=5, **kw)
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
        t = ale_tables_kw(tree, X, large_data_rows=m, random_state=seed, **{**kw, "pair": None})[0]
        est.append(t[t.feature == "b"]["pd"].to_numpy())
        ses.append(t[t.feature == "b"]["pd_se"].to_numpy())
    est, ses = np.array(est), np.array(ses)
    spread = est.std(axis=0, ddof=1)
    assert np.all(np.abs(est.mean(axis=0) - truth) < 4 * spread / np.sqrt(150))
    ratio = spread / np.sqrt((ses**2).mean(axis=0))
    assert np.all((ratio > 0.78) & (ratio < 1.28)), ratio
