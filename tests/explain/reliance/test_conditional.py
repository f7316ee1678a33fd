"""Conditional permutation MR (cs-PFI) and correlation-grouped MR: the known truth of a simulated DGP
with x2 = x1 + small noise, brute-force checks of the within-strata permutations, and the grouped MR
against model_reliance with the same groups."""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LinearRegression

from xaipipe.explain.reliance import (
    RelianceOptions,
    conditional_model_reliance,
    conditional_permutations,
    conditional_strata,
    correlation_groups,
    grouped_model_reliance,
    model_reliance,
)


def _dgp(n, seed, noise=0.05):
    rng = np.random.default_rng(seed)
    x1 = rng.normal(size=n)
    x2 = x1 + noise * rng.normal(size=n)
    x3 = rng.normal(size=n)
    X = np.column_stack([x1, x2, x3])
    y = 2 * x1 + x3 + 0.5 * rng.normal(size=n)
    return X, y


def _uses_x2(Z):
    """A model that relies on x2 where the truth uses x1: 2 x2 + x3 (predict-many form, one member)."""
    Z = np.asarray(Z, dtype=float)
    return (2 * Z[:, 1] + Z[:, 2])[None]


def test_conditional_mr_is_near_the_truth_where_marginal_mr_is_not():
    X_tr, _ = _dgp(4000, 0)
    X, y = _dgp(1500, 1)
    names = ["x1", "x2", "x3"]
    kw = dict(options=RelianceOptions(feature_names=names), n_repeats=10, random_state=3)
    marginal = model_reliance(_uses_x2, X, y, **kw).to_frame().set_index("feature")
    cond = (
        conditional_model_reliance(_uses_x2, X, y, X_tr, max_depth=10, min_samples_leaf=10, **kw)
        .to_frame()
        .set_index("feature")
    )
    assert cond["estimator"].eq("conditional_permutation").all()
    # marginal: E[(2 (x2' - x2))^2] = 8 Var(x2) ~ 8 extra squared error
    assert marginal.loc["x2", "mr_difference"] > 6.0
    # truth 0: given (x1, x3), x2~ = x1 + e~ moves the prediction by 2 (e~ - e) (mean square 8 * 0.05^2) but
    # not the expected loss (the residual e - 2 e~ is distributed as e - 2 e): the estimates are biases
    assert cond.loc["x2", "mr_difference"] < 0.1
    assert cond.loc["x2", "mr_difference"] < 0.02 * marginal.loc["x2", "mr_difference"]
    # x1 is not used by the model: both are zero
    assert marginal.loc["x1", "mr_difference"] == 0 and cond.loc["x1", "mr_difference"] == 0
    # x3 is independent of the rest: conditional = marginal up to Monte-Carlo error (truth 2 Var(x3) = 2)
    assert cond.loc["x3", "mr_difference"] == pytest.approx(marginal.loc["x3", "mr_difference"], rel=0.1)
    assert cond.loc["x3", "mr_difference"] == pytest.approx(2.0, rel=0.1)
    assert (cond["mr_difference_se"] >= 0).all() and cond["n_repeats"].eq(10).all()


def test_within_strata_permutations_are_uniform_permutations_of_each_stratum():
    strata = np.array([[5, 1, 5, 1, 1], [0, 0, 0, 0, 0]])
    P = conditional_permutations(strata, n_repeats=6000, random_state=0)
    assert P.shape == (2, 6000, 5)
    for g in range(2):
        for p in P[g]:
            assert sorted(p) == list(range(5))
            assert (strata[g][p] == strata[g]).all()
    # stratum {0, 2} has 2 orders and {1, 3, 4} has 6: 12 equally likely permutations
    counts = Counter(map(tuple, P[0]))
    valid = [
        p for p in itertools.permutations(range(5)) if all(strata[0][list(p)][k] == strata[0][k] for k in range(5))
    ]
    assert set(counts) == set(valid) and len(valid) == 12
    freq = np.array([counts[v] for v in valid]) / 6000
    assert np.abs(freq - 1 / 12).max() < 0.02
    # one stratum: all 120 permutations can occur
    assert len(Counter(map(tuple, P[1]))) > 100


def test_conditional_mr_equals_the_definition_written_out():
    X_tr, y_tr = _dgp(600, 4)
    X, y = _dgp(80, 5)
    model = LinearRegression().fit(X_tr, y_tr)
    res = conditional_model_reliance(model, X, y, X_tr, n_repeats=4, random_state=7, max_depth=3)
    strata = conditional_strata(X_tr, X, max_depth=3, random_state=7)
    perms = conditional_permutations(np.stack([strata[k] for k in ("x0", "x1", "x2")]), 4, 7)
    for g in range(3):
        assert len(np.unique(strata[f"x{g}"])) > 1
        for r in range(4):
            Z = X.copy()
            Z[:, g] = X[perms[g, r], g]
            np.testing.assert_allclose(res.e_switch[0, g, r], np.mean((y - model.predict(Z)) ** 2), rtol=1e-12)
    np.testing.assert_allclose(res.e_orig[0], np.mean((y - model.predict(X)) ** 2), rtol=1e-12)
    assert res.algorithm == "tree_strata_permutations"


def test_strata_come_from_the_training_rows_only():
    X_tr, _ = _dgp(500, 6)
    X, _ = _dgp(50, 7)
    a = conditional_strata(X_tr, X, max_depth=2)
    b = conditional_strata(X_tr, X[::-1], max_depth=2)
    for k in a:
        np.testing.assert_array_equal(a[k], b[k][::-1])  # a row's stratum does not depend on the others
        assert len(np.unique(a[k])) <= 4


def _components(R, t):
    """Connected components of |r| >= t by breadth-first search (the single-linkage oracle)."""
    p = R.shape[0]
    seen, comps = set(), []
    for s in range(p):
        if s in seen:
            continue
        comp, todo = [], [s]
        seen.add(s)
        while todo:
            u = todo.pop()
            comp.append(u)
            for v in range(p):
                if v not in seen and abs(R[u, v]) >= t:
                    seen.add(v)
                    todo.append(v)
        comps.append(sorted(comp))
    return sorted(comps)


def test_correlation_groups_single_linkage_are_connected_components():
    rng = np.random.default_rng(0)
    for trial in range(20):
        p = 7
        A = rng.normal(size=(p, p)) * (rng.uniform(size=(p, p)) < 0.3)
        X = rng.normal(size=(200, p)) @ (np.eye(p) + 2 * A)
        R = np.corrcoef(X, rowvar=False)
        for t in (0.5, 0.7, 0.9):
            groups = correlation_groups(X, t)
            assert sorted(sorted(c) for c in groups.values()) == _components(R, t), (trial, t)


def test_correlation_groups_linkage_names_and_one_hot_groups():
    rng = np.random.default_rng(1)
    a = rng.normal(size=500)
    b = a + 0.35 * rng.normal(size=500)  # r(a, b) ~ 0.94
    c = b + 0.35 * rng.normal(size=500)  # r(b, c) ~ 0.95, r(a, c) ~ 0.89
    d = rng.normal(size=500)
    level = rng.integers(0, 3, size=500)
    onehot = np.eye(3)[level]
    X = np.column_stack([a, b, c, d, onehot])
    names = ["a", "b", "c", "d", "s_0", "s_1", "s_2"]
    R = np.corrcoef(X[:, :3], rowvar=False)
    assert R[0, 1] > 0.9 and R[1, 2] > 0.9 and R[0, 2] < 0.9
    single = correlation_groups(X, 0.9, feature_names=names, feature_groups={"s": ["s_0", "s_1", "s_2"]})
    assert single == {"a+b+c": [0, 1, 2], "d": [3], "s": [4, 5, 6]}
    complete = correlation_groups(
        X, 0.9, feature_names=names, feature_groups={"s": ["s_0", "s_1", "s_2"]}, linkage="complete"
    )
    assert sorted(complete.values()) == sorted([[0, 1], [2], [3], [4, 5, 6]]) or sorted(complete.values()) == sorted(
        [[0], [1, 2], [3], [4, 5, 6]]
    )
    # a constant column is its own cluster; invalid options
    Xc = np.column_stack([X[:, :2], np.ones(500)])
    assert correlation_groups(Xc, 0.9) == {"x0+x1": [0, 1], "x2": [2]}
    with pytest.raises(ValueError, match="threshold"):
        correlation_groups(X, 1.5)
    with pytest.raises(ValueError, match="linkage"):
        correlation_groups(X, 0.9, linkage="ward")


def test_grouped_mr_equals_model_reliance_with_those_groups():
    X_tr, y_tr = _dgp(400, 8)
    X, y = _dgp(120, 9)
    model = LinearRegression().fit(X_tr, y_tr)
    names = ["x1", "x2", "x3"]
    for estimator in ("permutation", "e_divide", "e_switch"):
        kw = {} if estimator == "e_switch" else dict(n_repeats=5, random_state=11)
        got = grouped_model_reliance(model, X, y, X_tr, threshold=0.9, feature_names=names, estimator=estimator, **kw)
        groups = correlation_groups(X_tr, 0.9, feature_names=names)
        assert groups == {"x1+x2": [0, 1], "x3": [2]}
        ref = model_reliance(
            model, X, y, features=groups, options=RelianceOptions(feature_names=names), estimator=estimator, **kw
        )
        np.testing.assert_array_equal(got.e_switch, ref.e_switch)
        t = got.to_frame()
        assert t["estimator"].eq(f"grouped_{estimator}").all() and t["feature"].tolist() == ["x1+x2", "x3"]


def test_conditional_subsample_at_or_below_the_cap_changes_nothing():
    X_tr, y_tr = _dgp(600, 4)
    X, y = _dgp(80, 5)
    model = LinearRegression().fit(X_tr, y_tr)
    base = conditional_model_reliance(model, X, y, X_tr, n_repeats=4, random_state=7, max_depth=3).to_frame()
    for cap in (80, 500):
        same = conditional_model_reliance(
            model, X, y, X_tr, n_repeats=4, random_state=7, max_depth=3, options=RelianceOptions(subsample_rows=cap)
        ).to_frame()
        pd.testing.assert_frame_equal(same, base, check_exact=True)


def test_conditional_subsample_is_its_documented_design():
    """Repeat r: recipients = the permutation estimator's subsample rows of the seed, donors = a
    within-strata permutation of *all* rows (subsample_design with strata), each donor in its
    recipient's stratum; e_switch = e_orig (all rows) + the paired mean difference on the recipients."""
    from xaipipe.explain.reliance._subsample import subsample_design

    X_tr, y_tr = _dgp(2000, 4)
    X, y = _dgp(400, 5)
    model = LinearRegression().fit(X_tr, y_tr)
    m, R = 50, 6
    res = conditional_model_reliance(
        model, X, y, X_tr, n_repeats=R, random_state=3, options=RelianceOptions(subsample_rows=m)
    )
    assert res.algorithm == "subsampled_tree_strata_permutations" and res.n_samples == m
    frame = res.to_frame()
    assert (frame["estimator"] == "conditional_permutation").all() and frame["mr_difference_se"].notna().all()
    strata = conditional_strata(X_tr, X, random_state=3)
    S = np.stack([strata[k] for k in ("x0", "x1", "x2")])
    design = subsample_design("permutation", 400, m, R, 3, 3, strata=S)
    plain = subsample_design("permutation", 400, m, R, 3, 3)
    orig = (y - model.predict(X)) ** 2
    np.testing.assert_allclose(res.e_orig[0], orig.mean(), rtol=1e-12)
    for r, ((rows, perms), (plain_rows, _)) in enumerate(zip(design, plain)):
        np.testing.assert_array_equal(rows, plain_rows)  # paired with the marginal permutation's rows
        assert perms.shape == (3, 400)
        for g in range(3):
            donors = perms[g, rows]
            np.testing.assert_array_equal(S[g, donors], S[g, rows])
            Z = X[rows].copy()
            Z[:, g] = X[donors, g]
            d = np.mean((y[rows] - model.predict(Z)) ** 2 - orig[rows])
            np.testing.assert_allclose(res.e_switch[0, g, r], orig.mean() + d, rtol=1e-10)
    with pytest.raises(ValueError, match="subsample_rows"):
        conditional_model_reliance(model, X, y, X_tr, options=RelianceOptions(subsample_rows=1))


def test_conditional_subsample_se_is_honest_against_fresh_subsamples():
    """200 seeds, m = 100 of n = 3 000 test rows, R = 20. Truth: the all-rows estimator's expectation,
    exact by brute force (each row's switched loss averaged over every donor of its stratum, itself
    included); the mean of the estimates within 4 of its SEs, their spread equal to the reported SE,
    ~95 % coverage of +-2 SE."""
    X_tr, y_tr = _dgp(4000, 14, noise=0.5)
    X, y = _dgp(3000, 15, noise=0.5)
    y_tr, y = y_tr + X_tr[:, 1], y + X[:, 1]  # a truth, and a model, that use all three variables
    model = LinearRegression().fit(X_tr, y_tr)
    names = ("x0", "x1", "x2")
    strata = conditional_strata(X_tr, X, min_samples_leaf=0.05, random_state=0)
    other = conditional_strata(X_tr, X, min_samples_leaf=0.05, random_state=1)
    assert all(np.array_equal(strata[k], other[k]) for k in names)
    orig = (y - model.predict(X)) ** 2
    resid, truth = y - model.predict(X), []
    for g, k in enumerate(names):
        total = 0.0
        for s in np.unique(strata[k]):
            idx = np.flatnonzero(strata[k] == s)
            shift = model.coef_[g] * (X[idx, g][None, :] - X[idx, g][:, None])  # [recipient, donor]
            total += ((resid[idx][:, None] - shift) ** 2).mean(axis=1).sum() - orig[idx].sum()
        truth.append(total / len(y))
    truth = np.array(truth)
    m, R, S = 100, 20, 200
    values, ses = [], []
    for seed in range(S):
        f = conditional_model_reliance(
            model,
            X,
            y,
            X_tr,
            n_repeats=R,
            random_state=seed,
            options=RelianceOptions(subsample_rows=m),
            min_samples_leaf=0.05,
        ).to_frame()
        values.append(f["mr_difference"].to_numpy())
        ses.append(f["mr_difference_se"].to_numpy())
    values, ses = np.array(values), np.array(ses)
    spread = values.std(axis=0, ddof=1)
    assert np.all(np.abs(values.mean(axis=0) - truth) < 4 * spread / np.sqrt(S)), (values.mean(axis=0), truth)
    ratio = spread / np.sqrt((ses**2).mean(axis=0))
    assert np.all((ratio > 0.8) & (ratio < 1.25)), ratio
    coverage = (np.abs(values - truth) <= 2 * ses).mean(axis=0)
    assert np.all((coverage > 0.9) & (coverage < 0.99)), coverage
    # the check has teeth: recipients and donors both drawn from the subsample only (permuting
    # within the subsample's strata) shrink the estimate by about 1/k - 1/n_s (k, n_s: stratum
    # sizes in the subsample and in all rows), here more than 4 of its SEs
    naive = []
    for seed in range(40):
        rows = np.sort(np.random.default_rng(seed).choice(len(y), m, replace=False))
        g = conditional_model_reliance(
            model, X[rows], y[rows], X_tr, n_repeats=R, random_state=seed, min_samples_leaf=0.05
        ).to_frame()
        naive.append(g["mr_difference"].to_numpy())
    naive = np.array(naive)
    assert np.all(truth - naive.mean(axis=0) > 4 * naive.std(axis=0, ddof=1) / np.sqrt(40)), (naive.mean(0), truth)
