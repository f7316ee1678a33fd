"""ALE (Apley & Zhu 2020): exact on linear and additive models, the definition written out by brute
force on small inputs, the maintained PyALE package as an independent implementation, row order."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.ensemble import GradientBoostingRegressor
from sklearn.linear_model import LinearRegression

from xaipipe.explain.pdp import (
    ALE_COLUMNS,
    accumulated_local_effects,
    accumulated_local_effects_2d,
    ale_bin_edges,
    order_levels,
)


def _nonadditive(X):
    X = np.asarray(X, dtype=float)
    return X[:, 0] * X[:, 1] + np.exp(0.5 * X[:, 0]) * X[:, 2] + np.sin(X[:, 1])


def _correlated(n=300, seed=0):
    rng = np.random.default_rng(seed)
    x0 = rng.normal(size=n)
    x1 = 0.8 * x0 + 0.6 * rng.normal(size=n)
    x2 = rng.uniform(-1, 1, size=n)
    return np.column_stack([x0, x1, x2])


# --------------------------------------------------------------------------- bins


def test_bin_edges_are_alepplot_type1_quantiles():
    x = np.array([5.0, 1, 3, 3, 3, 9, 7, 2, 8, 6])
    edges = ale_bin_edges(x, 4)
    # R: c(min(x), quantile(x, c(.25, .5, .75, 1), type = 1)) = 1, 3, 3, 7, 9 (sorted x: 1 2 3 3 3 5 6 7 8 9;
    # type 1 is x_(ceil(np)) and x_(np) for integer np), the repeated 3 merged
    np.testing.assert_array_equal(edges, [1, 3, 7, 9])
    np.testing.assert_array_equal(edges, np.unique(np.r_[1, np.sort(x)[[2, 4, 7, 9]]]))
    # ties merge bins
    assert ale_bin_edges(np.r_[np.zeros(8), 1.0, 2.0], 10).tolist() == [0, 1, 2]
    with pytest.raises(ValueError, match="constant"):
        ale_bin_edges(np.ones(5), 3)


# --------------------------------------------------------------------------- exact cases


def test_linear_model_slope_is_the_coefficient_and_centering_formulas():
    X = _correlated()
    y = X @ [1.5, -2.0, 0.7] + 0.1
    model = LinearRegression().fit(X, y)
    b = model.coef_
    for j in range(3):
        for centering in ("ale_plot", "paper"):
            r = accumulated_local_effects(model, X, j, n_bins=12, centering=centering)
            z = r.edges
            np.testing.assert_allclose(np.diff(r.ale) / np.diff(z), b[j], rtol=1e-9)
            np.testing.assert_allclose(r.ale_uncentred, b[j] * (z - z[0]), atol=1e-10)
            n_k = r.n_rows
            mid = (z[:-1] + z[1:]) / 2 if centering == "ale_plot" else z[1:]
            c = b[j] * ((n_k * mid).sum() / n_k.sum() - z[0])
            np.testing.assert_allclose(r.ale, b[j] * (z - z[0]) - c, atol=1e-10)
            assert n_k.sum() == len(X)


def test_additive_model_equals_the_component_at_the_edges():
    X = _correlated(seed=3)

    def f(Z):
        return np.sin(2 * Z[:, 0]) + Z[:, 1] ** 3 - 4 * np.abs(Z[:, 2])

    comps = [lambda v: np.sin(2 * v), lambda v: v**3, lambda v: -4 * np.abs(v)]
    for j in range(3):
        r = accumulated_local_effects(f, X, j, n_bins=15)
        g = comps[j](r.edges)
        np.testing.assert_allclose(r.ale_uncentred, g - g[0], atol=1e-12)
        # centred: the component minus its row-weighted mean over the bins (trapezoid per bin)
        mids = (g[:-1] + g[1:]) / 2
        np.testing.assert_allclose(r.ale, g - (r.n_rows * mids).sum() / len(X), atol=1e-12)


def _brute_force_ale(f, X, j, edges):
    """The estimator of Apley & Zhu (eq. 15) and ALEPlot's centering, written out with loops."""
    K = len(edges) - 1
    g = [0.0]
    counts = []
    for k in range(1, K + 1):
        diffs = []
        for i in range(len(X)):
            x = X[i, j]
            in_bin = (edges[k - 1] < x <= edges[k]) or (k == 1 and x == edges[0])
            if in_bin:
                hi, lo = X[i].copy(), X[i].copy()
                hi[j], lo[j] = edges[k], edges[k - 1]
                diffs.append(f(hi[None])[0] - f(lo[None])[0])
        counts.append(len(diffs))
        g.append(g[-1] + sum(diffs) / len(diffs))
    g = np.array(g)
    c = sum(counts[k] * (g[k] + g[k + 1]) / 2 for k in range(K)) / sum(counts)
    return g - c, np.array(counts)


def test_nonadditive_model_matches_brute_force_definition():
    X = _correlated(n=40, seed=5)
    for j in range(3):
        r = accumulated_local_effects(_nonadditive, X, j, n_bins=6)
        ale, counts = _brute_force_ale(_nonadditive, X, j, r.edges)
        np.testing.assert_allclose(r.ale, ale, atol=1e-12)
        np.testing.assert_array_equal(r.n_rows, counts)


def test_row_order_does_not_matter():
    X = _correlated(seed=7)
    y = _nonadditive(X)
    model = GradientBoostingRegressor(n_estimators=30, random_state=0).fit(X, y)
    for j in range(3):
        a = accumulated_local_effects(model, X, j, n_bins=10)
        srt = X[np.argsort(X[:, j], kind="stable")]
        b = accumulated_local_effects(model, srt, j, n_bins=10)
        c = accumulated_local_effects(model, X[::-1], j, n_bins=10)
        for other in (b, c):
            np.testing.assert_array_equal(a.edges, other.edges)
            np.testing.assert_array_equal(a.n_rows, other.n_rows)
            np.testing.assert_allclose(a.ale, other.ale, rtol=1e-12, atol=1e-12)
    p = accumulated_local_effects_2d(model, X, (0, 1), n_bins=5)
    q = accumulated_local_effects_2d(model, X[np.argsort(X[:, 1])], (0, 1), n_bins=5)
    np.testing.assert_allclose(p.ale, q.ale, atol=1e-12)


def test_to_frame_and_dataframe_names():
    X = pd.DataFrame(_correlated(n=50), columns=["a", "b", "c"])
    r = accumulated_local_effects(_nonadditive, X, "b", n_bins=5)
    t = r.to_frame()
    assert list(t.columns) == ALE_COLUMNS
    assert t["feature"].eq("b").all() and t["kind"].eq("numeric").all()
    assert t["n_rows"].iloc[0] == 0 and t["n_rows"].sum() == 50
    assert np.isnan(t["bin_lower"].iloc[0]) and t["bin_lower"].iloc[1] == t["value"].iloc[0]


def test_invalid_inputs():
    X = _correlated(n=30)
    with pytest.raises(ValueError, match="centering"):
        accumulated_local_effects(_nonadditive, X, 0, centering="mean")
    with pytest.raises(ValueError, match="constant"):
        accumulated_local_effects(_nonadditive, np.column_stack([X[:, :2], np.ones(30)]), 2)
    with pytest.raises(ValueError, match="cover"):
        accumulated_local_effects(_nonadditive, X, 0, edges=[0.0, 0.5])
    with pytest.raises(ValueError, match="no rows"):
        accumulated_local_effects(_nonadditive, X, 0, edges=[-10, -9, 0, 10])
    with pytest.raises(ValueError, match="same feature"):
        accumulated_local_effects_2d(_nonadditive, X, (1, 1))
    with pytest.raises(TypeError):
        accumulated_local_effects(_nonadditive, X, 0, n_bins=2.5)


# --------------------------------------------------------------------------- categorical groups


def _grouped_data(n=300, seed=0):
    """Three levels A, B, C whose other-feature distributions are ordered A < C < B."""
    rng = np.random.default_rng(seed)
    level = rng.integers(0, 3, size=n)
    centre = np.array([0.0, 6.0, 3.0])[level]
    x = centre + rng.normal(size=n)
    w = rng.uniform(size=n)
    onehot = np.eye(3)[level]
    X = pd.DataFrame(np.column_stack([onehot, x, w]), columns=["L_A", "L_B", "L_C", "x", "w"])
    return X, level


def test_level_order_follows_the_other_features():
    X, level = _grouped_data()
    order = order_levels(level, 3, X[["x", "w"]].to_numpy())
    assert order.tolist() in ([0, 2, 1], [1, 2, 0])
    r = accumulated_local_effects(_nonadditive, X, "L", feature_groups={"L": ["L_A", "L_B", "L_C"]})
    assert r.kind == "categorical" and r.levels == ("L_A", "L_C", "L_B")
    np.testing.assert_array_equal(r.n_rows, np.bincount(level)[[0, 2, 1]])


def test_categorical_additive_effect_is_exact():
    X, level = _grouped_data(seed=1)
    effect = np.array([1.0, -2.0, 0.5])

    def f(Z):
        Z = np.asarray(Z)
        return Z[:, :3] @ effect + Z[:, 3] * Z[:, 4]

    r = accumulated_local_effects(f, X, ["L_A", "L_B", "L_C"])
    idx = [["L_A", "L_B", "L_C"].index(lv) for lv in r.levels]
    p = np.bincount(level) / len(level)
    np.testing.assert_allclose(r.ale, effect[idx] - (p * effect).sum(), atol=1e-12)
    np.testing.assert_allclose(r.ale_uncentred, effect[idx] - effect[idx[0]], atol=1e-12)


def test_categorical_brute_force_and_reference_level():
    rng = np.random.default_rng(4)
    n = 60
    level = rng.integers(0, 3, size=n)  # level 0 = the all-zero reference of a drop-first encoding
    onehot = np.eye(3)[level][:, 1:]
    x = np.array([0.0, 2.0, 4.0])[level] + rng.normal(size=n)
    X = np.column_stack([onehot, x])

    def f(Z):
        Z = np.asarray(Z)
        return Z[:, 0] * Z[:, 2] ** 2 - 3 * Z[:, 1] * Z[:, 2]

    r = accumulated_local_effects(f, X, [0, 1], feature_names=["g_b", "g_c", "x"])
    assert set(r.levels) == {"(none)", "g_b", "g_c"}
    vec = {"(none)": [0, 0], "g_b": [1, 0], "g_c": [0, 1]}
    lev_of_row = ["(none)", "g_b", "g_c"]
    pos = {lv: i for i, lv in enumerate(r.levels)}
    g = [0.0]
    for k in range(1, 3):
        diffs = []
        for i in range(n):
            here = pos[lev_of_row[level[i]]]
            if here in (k - 1, k):
                up, down = X[i].copy(), X[i].copy()
                up[:2], down[:2] = vec[r.levels[k]], vec[r.levels[k - 1]]
                diffs.append(f(up[None])[0] - f(down[None])[0])
        g.append(g[-1] + np.mean(diffs))
    counts = np.array([np.sum([pos[lev_of_row[v]] == k for v in level]) for k in range(3)])
    np.testing.assert_allclose(r.ale, np.array(g) - (counts * g).sum() / n, atol=1e-12)


def test_categorical_needs_two_levels():
    X = np.column_stack([np.ones(10), np.zeros(10), np.arange(10.0)])
    with pytest.raises(ValueError, match="two observed levels"):
        accumulated_local_effects(lambda Z: Z[:, 2], X, [0, 1])


# --------------------------------------------------------------------------- second order


def test_2d_is_zero_for_an_additive_model_and_exact_for_a_product():
    rng = np.random.default_rng(2)
    X = rng.uniform(size=(400, 3))

    def additive(Z):
        return np.sin(Z[:, 0]) + Z[:, 1] ** 2 + Z[:, 2]

    r = accumulated_local_effects_2d(additive, X, (0, 1), n_bins=6)
    np.testing.assert_allclose(r.ale, 0.0, atol=1e-12)

    # f = x0 * x1: the second difference of a cell is (dz)(dw) exactly, so the uncentred h is
    # (z - z0)(w - w0); the first-order and constant parts are then removed.
    def product(Z):
        return Z[:, 0] * Z[:, 1]

    p = accumulated_local_effects_2d(product, X, (0, 1), n_bins=5)
    z, w = p.edges_1, p.edges_2
    full = ~p.empty
    assert full.sum() > 10
    np.testing.assert_allclose(p.local_effects[full], np.outer(np.diff(z), np.diff(w))[full], atol=1e-12)
    assert not p.empty.any()
    h = np.outer(z - z[0], w - w[0])
    # the ALE is h minus functions of one axis and a constant: its mixed second differences are h's
    resid = p.ale - h
    np.testing.assert_allclose(np.diff(np.diff(resid, axis=0), axis=1), 0.0, atol=1e-10)


def _brute_force_ale_2d(f, X, j1, j2, e1, e2):
    """ALEPlot's second-order estimator written out with loops (no empty cells)."""
    K1, K2 = len(e1) - 1, len(e2) - 1

    def bin_of(v, e):
        for k in range(1, len(e)):
            if e[k - 1] < v <= e[k] or (k == 1 and v == e[0]):
                return k
        raise AssertionError

    D = np.zeros((K1, K2))
    N = np.zeros((K1, K2))
    for i in range(len(X)):
        k, m = bin_of(X[i, j1], e1), bin_of(X[i, j2], e2)

        def at(a, b):
            z = X[i].copy()
            z[j1], z[j2] = e1[a], e2[b]
            return f(z[None])[0]

        D[k - 1, m - 1] += (at(k, m) - at(k - 1, m)) - (at(k, m - 1) - at(k - 1, m - 1))
        N[k - 1, m - 1] += 1
    assert (N > 0).all()
    D /= N
    h = np.zeros((K1 + 1, K2 + 1))
    for k in range(1, K1 + 1):
        for m in range(1, K2 + 1):
            h[k, m] = D[:k, :m].sum()
    f1 = np.zeros(K1 + 1)
    for k in range(1, K1 + 1):
        s = sum(N[k - 1, m] * ((h[k, m] - h[k - 1, m]) + (h[k, m + 1] - h[k - 1, m + 1])) / 2 for m in range(K2))
        f1[k] = f1[k - 1] + s / N[k - 1].sum()
    f2 = np.zeros(K2 + 1)
    for m in range(1, K2 + 1):
        s = sum(N[k, m - 1] * ((h[k, m] - h[k, m - 1]) + (h[k + 1, m] - h[k + 1, m - 1])) / 2 for k in range(K1))
        f2[m] = f2[m - 1] + s / N[:, m - 1].sum()
    h = h - f1[:, None] - f2[None, :]
    c = sum(N[k, m] * (h[k, m] + h[k + 1, m] + h[k, m + 1] + h[k + 1, m + 1]) / 4 for k in range(K1) for m in range(K2))
    return h - c / N.sum()


def test_2d_matches_brute_force_definition():
    rng = np.random.default_rng(8)
    X = rng.uniform(size=(80, 3))
    r = accumulated_local_effects_2d(_nonadditive, X, (0, 1), n_bins=3)
    assert not r.empty.any()
    np.testing.assert_allclose(r.ale, _brute_force_ale_2d(_nonadditive, X, 0, 1, r.edges_1, r.edges_2), atol=1e-12)
    t = r.to_frame()
    assert len(t) == r.ale.size and t["n_rows"].sum() == 80


def test_2d_empty_cells_are_imputed_from_the_nearest_cell():
    X = _correlated(n=200, seed=9)
    X[:, 1] = X[:, 0] + 0.05 * X[:, 1]  # nearly collinear: most off-diagonal cells are empty
    r = accumulated_local_effects_2d(_nonadditive, X, (0, 1), n_bins=6)
    assert r.empty.any() and np.isfinite(r.ale).all()
    assert r.n_rows.sum() == 200


# --------------------------------------------------------------------------- PyALE (test-only dependency)


def test_matches_pyale_continuous_and_2d():
    pyale = pytest.importorskip("PyALE")
    from PyALE._src.ALE_1D import aleplot_1D_continuous
    from PyALE._src.ALE_2D import aleplot_2D_continuous
    from PyALE._src.lib import quantile_ied

    X = pd.DataFrame(_correlated(n=250, seed=11), columns=["a", "b", "c"])

    class Model:
        def predict(self, Z):
            return _nonadditive(np.asarray(Z, dtype=float))

    model = Model()
    for col in ("a", "b", "c"):
        ref = aleplot_1D_continuous(X, model, col, grid_size=10, include_CI=False)
        # PyALE's own quantiles (its quantile_ied is not exactly R's type 1): compare on its bins
        bins = np.unique([X[col].min()] + quantile_ied(X[col], np.linspace(0, 1, 11)).to_list())
        r = accumulated_local_effects(model.predict, X, col, edges=bins)
        np.testing.assert_allclose(r.edges, ref.index.to_numpy(dtype=float))
        np.testing.assert_allclose(r.ale, ref["eff"].to_numpy(), atol=1e-10)
        np.testing.assert_array_equal(r.n_rows, ref["size"].to_numpy()[1:])
    ref2 = aleplot_2D_continuous(X, model, ["a", "c"], grid_size=4)
    q = np.append(0, np.arange(1 / 4, 1 + 1 / 4, 1 / 4))
    e1 = np.unique([X["a"].min()] + quantile_ied(X["a"], q).to_list())
    e2 = np.unique([X["c"].min()] + quantile_ied(X["c"], q).to_list())
    r2 = accumulated_local_effects_2d(model.predict, X, ("a", "c"), edges=(e1, e2))
    assert not r2.empty.any()
    np.testing.assert_allclose(r2.ale, ref2.to_numpy(dtype=float), atol=1e-10)
    assert pyale is not None


def test_matches_pyale_categorical():
    pytest.importorskip("PyALE")
    from PyALE._src.ALE_1D import aleplot_1D_categorical

    X, level = _grouped_data(n=240, seed=12)
    names = ["L_A", "L_B", "L_C"]

    def f(Z):
        Z = np.asarray(Z, dtype=float)
        return Z[:, :3] @ [1.0, -2.0, 0.5] + Z[:, 1] * Z[:, 3] ** 2 + Z[:, 2] * Z[:, 4]

    class Model:
        def predict(self, Z):
            return f(Z)

    raw = X[["x", "w"]].copy()
    raw["L"] = np.array(names)[level]

    def encode(frame):
        col = frame.iloc[:, 0].astype(str)
        return pd.DataFrame({n: (col == n).astype(float) for n in names}, index=frame.index)

    ref = aleplot_1D_categorical(raw, Model(), "L", encode_fun=encode, predictors=names + ["x", "w"], include_CI=False)
    r = accumulated_local_effects(f, X, "L", feature_groups={"L": names})
    ref_levels = tuple(str(v) for v in ref.index)
    # PyALE's MDS may point the other way; the centred ALE per level does not depend on the direction
    assert r.levels in (ref_levels, ref_levels[::-1])
    got = dict(zip(r.levels, r.ale))
    np.testing.assert_allclose([got[lv] for lv in ref_levels], ref["eff"].to_numpy(), atol=1e-10)
