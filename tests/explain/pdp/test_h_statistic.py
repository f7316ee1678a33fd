"""Friedman's H² (zero on additive models, the analytic value on a product, the definition written out)
on row subsamples with bootstrap SEs, groups and pairs, and H² above 1 flagged, not clipped."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from xaipipe.explain.pdp import H_COLUMNS, h_statistic


def _rows(n=120, seed=0):
    rng = np.random.default_rng(seed)
    x0 = rng.normal(size=n)
    x1 = 0.7 * x0 + rng.normal(size=n)  # dependent features: H must still be 0 for an additive model
    x2 = rng.uniform(size=n)
    return np.column_stack([x0, x1, x2])


def test_additive_model_has_zero_h():
    X = _rows()

    def f(Z):
        return np.sin(Z[:, 0]) + Z[:, 1] ** 2 - 3 * Z[:, 2]

    r = h_statistic(f, X, n_rows=None, n_bootstrap=10)
    t = r.to_frame()
    assert list(t.columns) == H_COLUMNS
    assert t["kind"].tolist() == ["total"] * 3 + ["pairwise"] * 3
    assert (t["h2"].abs() < 1e-24).all() and (t["h2_unnormalised"].abs() < 1e-24).all()
    assert (t["h2_se"] < 1e-12).all()


def test_product_on_a_factorial_design_equals_the_analytic_value():
    v1 = (np.arange(30) + 0.5) / 30  # midpoints of 30 bins of (0, 1)
    v2 = np.linspace(1.0, 3.0, 20)
    a, b = np.meshgrid(v1, v2, indexing="ij")
    X = np.column_stack([a.ravel(), b.ravel()])  # the empirical distribution is a product
    r = h_statistic(lambda Z: Z[:, 0] * Z[:, 1], X, n_rows=None, n_bootstrap=0)
    s1, s2 = v1.var(), v2.var()
    analytic = s1 * s2 / ((v1**2).mean() * (v2**2).mean() - v1.mean() ** 2 * v2.mean() ** 2)
    t = r.to_frame().set_index("feature")
    np.testing.assert_allclose(t.loc["x0:x1", "h2"], analytic, rtol=1e-10)
    # with two variables F_{\1} = F_2, so the total statistics equal the pairwise one
    np.testing.assert_allclose(t.loc[["x0", "x1"], "h2"], analytic, rtol=1e-10)
    # unnormalised: the mean of (x1 - mu1)^2 (x2 - mu2)^2 = s1 s2
    np.testing.assert_allclose(t.loc["x0:x1", "h2_unnormalised"], s1 * s2, rtol=1e-10)
    assert np.isnan(t["h2_se"]).all() and t["se_method"].eq("none").all()
    # two uniforms on (0, 1): 1/7 (the midpoint grid has variance (1 - 1/900) / 12)
    sq = h_statistic(lambda Z: Z[:, 0] * Z[:, 1], np.column_stack([a.ravel(), a.T.ravel()[: a.size]]), n_rows=None)
    assert sq.pairwise.shape == (1, 2)
    g = np.meshgrid(v1, v1, indexing="ij")
    uni = h_statistic(lambda Z: Z[:, 0] * Z[:, 1], np.column_stack([g[0].ravel(), g[1].ravel()]), n_rows=None)
    assert uni.pairwise[0, 0] == pytest.approx(1 / 7, abs=2e-3)


def _brute_h(f, X):
    """Friedman & Popescu's definitions with explicit loops over rows."""
    n, p = X.shape

    def pd_at(cols, i):
        vals = []
        for l_ in range(n):
            z = X[l_].copy()
            z[cols] = X[i, cols]
            vals.append(f(z[None])[0])
        return np.mean(vals)

    def centred(v):
        return v - v.mean()

    F = centred(np.array([f(X[i][None])[0] for i in range(n)]))
    one = {j: centred(np.array([pd_at([j], i) for i in range(n)])) for j in range(p)}
    rest = {j: centred(np.array([pd_at([k for k in range(p) if k != j], i) for i in range(n)])) for j in range(p)}
    total = {j: ((F - one[j] - rest[j]) ** 2).sum() / (F**2).sum() for j in range(p)}
    total_u = {j: ((F - one[j] - rest[j]) ** 2).mean() for j in range(p)}
    pair, pair_u = {}, {}
    for j in range(p):
        for k in range(j + 1, p):
            J = centred(np.array([pd_at([j, k], i) for i in range(n)]))
            pair[(j, k)] = ((J - one[j] - one[k]) ** 2).sum() / (J**2).sum()
            pair_u[(j, k)] = ((J - one[j] - one[k]) ** 2).mean()
    return total, total_u, pair, pair_u


def test_matches_the_definition_written_out():
    X = _rows(n=14, seed=3)

    def f(Z):
        return Z[:, 0] * Z[:, 1] + np.exp(0.3 * Z[:, 0]) * Z[:, 2] + Z[:, 1] ** 2

    r = h_statistic(f, X, n_rows=None, n_bootstrap=0)
    total, total_u, pair, pair_u = _brute_h(f, X)
    np.testing.assert_allclose(r.total[:, 0], [total[j] for j in range(3)], rtol=1e-10)
    np.testing.assert_allclose(r.total[:, 1], [total_u[j] for j in range(3)], rtol=1e-10)
    assert r.pairs == [("x0", "x1"), ("x0", "x2"), ("x1", "x2")]
    np.testing.assert_allclose(r.pairwise[:, 0], [pair[q] for q in sorted(pair)], rtol=1e-10, atol=1e-20)
    np.testing.assert_allclose(r.pairwise[:, 1], [pair_u[q] for q in sorted(pair_u)], rtol=1e-10, atol=1e-20)


def test_subsample_bootstrap_groups_and_pairs():
    rng = np.random.default_rng(5)
    n = 400
    level = rng.integers(0, 3, size=n)
    onehot = np.eye(3)[level]
    x = rng.normal(size=n)
    w = rng.normal(size=n)
    X = pd.DataFrame(np.column_stack([onehot, x, w]), columns=["s_a", "s_b", "s_c", "x", "w"])

    def f(Z):
        Z = np.asarray(Z)
        return Z[:, :3] @ [1.0, 2.0, -1.0] * Z[:, 3] + Z[:, 4]  # the group interacts with x, not w

    groups = {"s": ["s_a", "s_b", "s_c"]}
    r = h_statistic(f, X, feature_groups=groups, n_rows=60, n_bootstrap=30, random_state=1)
    t = r.to_frame().set_index("feature")
    assert r.rows.size == 60 and np.all(np.diff(r.rows) > 0)
    assert list(t.index[t["kind"] == "total"]) == ["s", "x", "w"]
    assert t.loc["w", "h2"] < 1e-24 and t.loc["s:w", "h2"] < 1e-24 and t.loc["x:w", "h2"] < 1e-24
    assert t.loc["s:x", "h2"] > 0.1 and 0 < t.loc["s:x", "h2_se"] < t.loc["s:x", "h2"]
    again = h_statistic(f, X, feature_groups=groups, n_rows=60, n_bootstrap=30, random_state=1)
    np.testing.assert_array_equal(again.total, r.total)
    np.testing.assert_array_equal(again.total_se, r.total_se)
    only = h_statistic(f, X, ["x"], pairs=[("s", "x")], feature_groups=groups, n_rows=60, random_state=1)
    assert only.features == ["x"] and only.pairs == [("s", "x")]
    np.testing.assert_allclose(only.pairwise[0], r.pairwise[r.pairs.index(("s", "x"))])
    with pytest.raises(ValueError, match="shares columns"):
        h_statistic(f, X, pairs=[("s", "s_a")], feature_groups=groups)
    with pytest.raises(TypeError):
        h_statistic(f, X, n_bootstrap=1.5)


def test_h2_above_one_is_flagged_not_clipped():
    """F = (x0 - x1)² on x1 ≈ x0: near 0 on the rows, the separate PDs large (extrapolation): H² > 1."""
    rng = np.random.default_rng(4)
    x0 = rng.normal(size=150)
    X = np.column_stack([x0, x0 + rng.normal(scale=0.05, size=150)])

    def f(Z):
        return (Z[:, 0] - Z[:, 1]) ** 2

    t = h_statistic(f, X, n_rows=None, n_bootstrap=0).to_frame().set_index("feature")
    # the definition written out: numerator over denominator of the centred PD functions
    F = f(X)
    F1 = np.array([f(np.column_stack([np.full(150, a), X[:, 1]])).mean() for a in X[:, 0]])
    F2 = np.array([f(np.column_stack([X[:, 0], np.full(150, b)])).mean() for b in X[:, 1]])
    F, F1, F2 = F - F.mean(), F1 - F1.mean(), F2 - F2.mean()
    h2 = ((F - F1 - F2) ** 2).sum() / (F**2).sum()
    assert h2 > 10 and t.loc["x0:x1", "h2"] == pytest.approx(h2, rel=1e-10)
    assert t.loc["x0:x1", "h2_exceeds_1"] and t["h2_exceeds_1"].dtype == bool
    # independent variables and a product: at most 1, not flagged
    g = np.random.default_rng(5)
    Y = g.uniform(size=(150, 2))
    u = h_statistic(lambda Z: Z[:, 0] * Z[:, 1], Y, n_rows=None, n_bootstrap=0).to_frame()
    assert (u["h2"] <= 1).all() and not u["h2_exceeds_1"].any()
