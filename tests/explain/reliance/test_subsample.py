"""The large-data policy of model reliance (``model_reliance(..., subsample_rows=)``, config
``large_data.reliance_rows``): bitwise unchanged at or below the cap, each repeat on its documented
subsample with ``e_orig`` on every row, and an honest Monte-Carlo SE -- the mean of 200 fresh
estimates at the exact full-data value (linear closed form of ``e_switch`` on all rows), their spread
equal to the reported SE, ~95 % coverage of +-2 SE, where one fixed subsample's SE would be ~5x too
small."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.ensemble import GradientBoostingClassifier
from sklearn.linear_model import LinearRegression
from sklearn.tree import DecisionTreeRegressor

from xaipipe.explain.reliance import RelianceOptions, model_reliance
from xaipipe.explain.reliance._subsample import subsample_design


@pytest.fixture(scope="module")
def simulated():
    """y = 2 x0 + x1 + 0.5 x0² + noise, x2 correlated with x0 and unused by the truth; n = 3 000."""
    rng = np.random.default_rng(0)
    n = 3000
    X = rng.normal(size=(n, 3))
    X[:, 2] = 0.5 * X[:, 0] + rng.normal(size=n)
    y = 2 * X[:, 0] + X[:, 1] + 0.5 * X[:, 0] ** 2 + rng.normal(size=n)
    return X, y, LinearRegression().fit(X, y)


@pytest.mark.parametrize("estimator", ["permutation", "e_divide"])
def test_at_or_below_the_cap_nothing_changes(estimator):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(80, 3))
    y = X[:, 0] - X[:, 1] + rng.normal(scale=0.1, size=80)
    tree = DecisionTreeRegressor(max_depth=4, random_state=0).fit(X, y)
    base = model_reliance(tree, X, y, estimator=estimator, n_repeats=5, random_state=7).to_frame()
    for cap in (80, 1000):
        same = model_reliance(
            tree, X, y, estimator=estimator, n_repeats=5, random_state=7, options=RelianceOptions(subsample_rows=cap)
        )
        pd.testing.assert_frame_equal(same.to_frame(), base, check_exact=True)


@pytest.mark.parametrize("estimator", ["permutation", "e_divide"])
def test_each_repeat_is_its_documented_subsample(estimator):
    """Repeat r = the estimator on rows_r with the permutations of subsample_design (the same numbers
    as model_reliance on X[rows_r] with those permutations given), as the paired difference added
    to e_orig of all rows; n_samples = the cap; a prefix ensemble (members) too."""
    rng = np.random.default_rng(2)
    X = rng.normal(size=(300, 4))
    y = (X[:, 0] + 0.5 * X[:, 1] + rng.normal(size=300) > 0).astype(int)
    gb = GradientBoostingClassifier(n_estimators=20, max_depth=2, random_state=0).fit(X, y)
    members = [5, 20]
    res = model_reliance(
        gb,
        X,
        y,
        estimator=estimator,
        n_repeats=4,
        random_state=11,
        options=RelianceOptions(subsample_rows=60),
        n_estimators=members,
    )
    full_orig = model_reliance(gb, X, y, estimator="permutation", n_repeats=1, n_estimators=members).e_orig
    np.testing.assert_allclose(res.e_orig, full_orig, rtol=1e-12)  # every row, not the subsample
    design = subsample_design(estimator, 300, 60, 4, 4, 11)
    assert len(design) == 4 and all(len(np.unique(rows)) == 60 and perms.shape == (4, 60) for rows, perms in design)
    for r, (rows, perms) in enumerate(design):
        part = model_reliance(
            gb,
            X[rows],
            y[rows],
            estimator=estimator,
            options=RelianceOptions(permutations=perms[:, None, :]),
            n_estimators=members,
        )
        expected = res.e_orig[:, None] + (part.e_switch[:, :, 0] - part.e_orig[:, None])
        np.testing.assert_allclose(res.e_switch[:, :, r], expected, rtol=1e-10, atol=1e-14)
    frame = res.to_frame()
    assert (frame["n_samples"] == 60).all() and (frame["n_repeats"] == 4).all()
    label = "subsampled_permutations" if estimator == "permutation" else "subsampled_halvings"
    assert set(frame["algorithm"]) == {label}
    np.testing.assert_allclose(frame["mr_difference"], (res.e_switch - res.e_orig[:, None, None]).mean(axis=2).ravel())
    # the two estimators draw independent streams of one seed (as without subsampling)
    other = subsample_design("e_divide" if estimator == "permutation" else "permutation", 300, 60, 4, 4, 11)
    assert not np.array_equal(other[0][0], design[0][0])


def test_refusals():
    X = np.random.default_rng(0).normal(size=(30, 2))
    y = X[:, 0]
    lin = LinearRegression().fit(X, y)
    with pytest.raises(ValueError, match="subsample_rows applies to estimator='permutation' or 'e_divide'"):
        model_reliance(lin, X, y, estimator="e_switch", options=RelianceOptions(subsample_rows=10))
    with pytest.raises(ValueError, match="either permutations or subsample_rows"):
        model_reliance(
            lin, X, y, options=RelianceOptions(permutations=np.tile(np.arange(30), (2, 1)), subsample_rows=10)
        )
    with pytest.raises(TypeError, match="method='linear' needs estimator='e_switch'"):
        model_reliance(lin, X, y, method="linear", options=RelianceOptions(subsample_rows=10))


@pytest.mark.parametrize("estimator", ["permutation", "e_divide"])
def test_the_se_is_honest_against_fresh_subsamples(simulated, estimator):
    """200 seeds, m = 100 of n = 3 000 rows, R = 20. Truth: e_divide is unbiased for the full set's
    ê_switch - ê_orig (exact, linear closed form on all rows); permutation for (1 - 1/m) times it."""
    X, y, lin = simulated
    n, m, R, S = len(y), 100, 20, 200
    exact = model_reliance(lin, X, y, estimator="e_switch").to_frame()["mr_difference"].to_numpy()
    target = exact * (1 - 1 / m) if estimator == "permutation" else exact
    values, ses = [], []
    for seed in range(S):
        f = model_reliance(
            lin, X, y, estimator=estimator, n_repeats=R, random_state=seed, options=RelianceOptions(subsample_rows=m)
        ).to_frame()
        values.append(f["mr_difference"].to_numpy())
        ses.append(f["mr_difference_se"].to_numpy())
    values, ses = np.array(values), np.array(ses)
    spread = values.std(axis=0, ddof=1)
    # unbiased for the full-data value: the mean of 200 estimates within 4 of its own SEs
    assert np.all(np.abs(values.mean(axis=0) - target) < 4 * spread / np.sqrt(S))
    # the reported SE is the spread of fresh estimates (the SD of 200 draws is known to ~5 %)
    ratio = spread / np.sqrt((ses**2).mean(axis=0))
    assert np.all((ratio > 0.8) & (ratio < 1.25)), ratio
    coverage = (np.abs(values - target) <= 2 * ses).mean(axis=0)
    assert np.all((coverage > 0.9) & (coverage < 0.99)), coverage
    # the check has teeth: one fixed subsample with R permutations reports only the permutation error
    naive, naive_se = [], []
    for seed in range(40):
        rows = np.random.default_rng(10_000 + seed).choice(n, m, replace=False)
        g = model_reliance(lin, X[rows], y[rows], estimator=estimator, n_repeats=R, random_state=seed).to_frame()
        naive.append(g["mr_difference"].to_numpy())
        naive_se.append(g["mr_difference_se"].to_numpy())
    assert np.all(np.array(naive).std(axis=0, ddof=1) / np.sqrt((np.array(naive_se) ** 2).mean(axis=0)) > 2.5)


def test_e_switch_se_under_the_policy_is_honest():
    """reliance_report with the policy on: e_switch on its e_switch_max_rows subsample gets the SE of
    that subsample (U-statistic projection), equal to the spread of 200 fresh subsamples around the
    exact all-rows e_switch (the full switched-loss matrix, n = 1 000) of a tree with an interaction;
    without the policy the SE stays NaN and the estimate is unchanged."""
    from xaipipe.explain.reliance import reliance_report, switch_loss_matrix
    from xaipipe.losses import squared_error
    from xaipipe.models.prefix import member_predictor

    rng = np.random.default_rng(5)
    n, m = 1000, 60
    X = rng.normal(size=(n, 3))
    y = 2 * X[:, 0] + X[:, 0] * X[:, 1] + X[:, 2] + rng.normal(size=n)
    tree = DecisionTreeRegressor(max_depth=6, random_state=0).fit(X, y)
    truth = []
    for j in range(3):
        M = switch_loss_matrix(member_predictor(tree, None), X, y, [j], squared_error)[0]
        truth.append((M.sum() - np.trace(M)) / (n * (n - 1)) - np.trace(M) / n)
    kw = dict(feature_names=["a", "b", "c"], estimators=["e_switch"], e_switch_max_rows=m)
    off = reliance_report(tree, X, y, random_state=0, **kw)
    on = reliance_report(tree, X, y, random_state=0, reliance_rows=50, **kw)
    assert off["mr_difference_se"].isna().all() and on["mr_difference_se"].notna().all()
    pd.testing.assert_frame_equal(
        on.drop(columns=["mr_ratio_se", "mr_difference_se"]), off.drop(columns=["mr_ratio_se", "mr_difference_se"])
    )
    est, se, ratio, ratio_se = [], [], [], []
    for seed in range(200):
        t = reliance_report(tree, X, y, random_state=seed, reliance_rows=50, **kw)
        est.append(t["mr_difference"].to_numpy())
        se.append(t["mr_difference_se"].to_numpy())
        ratio.append(t["mr_ratio"].to_numpy())
        ratio_se.append(t["mr_ratio_se"].to_numpy())
    est, se, ratio, ratio_se = map(np.array, (est, se, ratio, ratio_se))
    spread = est.std(axis=0, ddof=1)
    assert np.all(np.abs(est.mean(axis=0) - np.array(truth)) < 4 * spread / np.sqrt(200))
    for values, errors in ((est, se), (ratio, ratio_se)):
        q = values.std(axis=0, ddof=1) / np.sqrt((errors**2).mean(axis=0))
        assert np.all((q > 0.8) & (q < 1.25)), q


def _matrix_se(predict, X, y, cols, loss_fn, rows, n):
    """The oracle of the e_switch subsample SE: the whole switched-loss matrix of the subsample
    (switch_loss_matrix), its U-statistic projection written out (PairSums.standard_errors)."""
    from xaipipe.explain.reliance import switch_loss_matrix

    m = len(rows)
    fpc = np.sqrt((1 - m / n) / m)
    ratio_se, diff_se = [], []
    for c in cols:
        M = switch_loss_matrix(predict, X[rows], y[rows], c, loss_fn)
        out_r, out_d = [], []
        for Mi in M:  # members
            diag = np.diag(Mi).copy()
            K = Mi - diag[:, None]
            psi = (K.sum(axis=1) + K.sum(axis=0)) / (m - 1)
            D, e_bar = K.sum() / (m * (m - 1)), diag.mean()
            out_d.append(psi.std(ddof=1) * fpc)
            out_r.append((psi / e_bar - D * (diag - e_bar) / e_bar**2).std(ddof=1) * fpc)
        ratio_se.append(out_r)
        diff_se.append(out_d)
    return np.array(ratio_se).T, np.array(diff_se).T  # (members, G)


@pytest.mark.parametrize("task", ["regression", "classification"])
def test_e_switch_subsample_se_from_the_estimate_s_own_losses(task, tmp_path):
    """model_reliance(max_samples=, subsample_se=True) gathers the row and column sums of the
    switched-loss matrix from the losses the estimate is formed from, on every path (the engine's
    kernel, its forest-store blocks, its scikit-learn loop, the generic path; prefix members too):
    the SE equals the whole matrix's (the oracle) to rounding, and the estimate is bitwise the one
    without it."""
    from sklearn.ensemble import GradientBoostingRegressor, RandomForestClassifier, RandomForestRegressor

    from xaipipe.explain.reliance import _kernels
    from xaipipe.losses import resolve_loss
    from xaipipe.models.forest_store import open_forest, save_forest
    from xaipipe.models.prefix import member_predictor

    rng = np.random.default_rng(3)
    n, m = 300, 37
    X = rng.normal(size=(n, 4))
    if task == "regression":
        y = X[:, 0] + X[:, 1] ** 2 + rng.normal(size=n)
        forest, loss = RandomForestRegressor(n_estimators=12, random_state=0).fit(X, y), "squared_error"
        boosted = GradientBoostingRegressor(n_estimators=15, max_depth=2, random_state=0).fit(X, y)
    else:
        y = (X[:, 0] + 0.5 * rng.normal(size=n) > 0).astype(int)
        forest, loss = RandomForestClassifier(n_estimators=12, random_state=0).fit(X, y), "log_loss"
        boosted = None
    save_forest(tmp_path / "m.joblib", forest, 5)
    lazy = open_forest(tmp_path / "m.joblib")
    loss_fn = resolve_loss(loss)[1]
    rows = np.sort(np.random.default_rng(1).choice(n, m, replace=False))
    cols = [[0], [1], [2, 3]]
    features = {"a": [0], "b": [1], "cd": [2, 3]}
    kw = dict(estimator="e_switch", loss=loss, features=features, random_state=1)
    oracle = _matrix_se(member_predictor(forest, None), X, y, cols, loss_fn, rows, n)
    cases = [(forest, "engine", {}), (lazy, "engine", {}), (forest, "generic", {})]
    if boosted is not None:
        cases.append((boosted, "engine", {"n_estimators": [5, 15]}))
    for model, method, extra in cases:
        plain = model_reliance(
            model, X, y, method=method, options=RelianceOptions(max_rows_per_batch=500, max_samples=m), **extra, **kw
        )
        res = model_reliance(
            model,
            X,
            y,
            method=method,
            options=RelianceOptions(max_rows_per_batch=500, max_samples=m, subsample_se=True),
            **extra,
            **kw,
        )
        np.testing.assert_array_equal(res.e_switch, plain.e_switch)
        np.testing.assert_array_equal(res.e_orig, plain.e_orig)
        expected = oracle
        if model is boosted:
            expected = _matrix_se(member_predictor(boosted, [5, 15]), X, y, cols, loss_fn, rows, n)
        for got, want in zip(res.subsample_se, expected):
            np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)
        frame = res.to_frame()
        np.testing.assert_allclose(frame["mr_difference_se"], expected[1].ravel(), rtol=1e-9, atol=1e-12)
        assert frame["mr_difference_std"].isna().all() and plain.to_frame()["mr_difference_se"].isna().all()
    # the engine's scikit-learn loop (no compiled kernel) too
    saved, _kernels.AVAILABLE = _kernels.AVAILABLE, False
    try:
        res = model_reliance(
            forest,
            X,
            y,
            method="engine",
            options=RelianceOptions(max_rows_per_batch=500, max_samples=m, subsample_se=True),
            **kw,
        )
    finally:
        _kernels.AVAILABLE = saved
    for got, want in zip(res.subsample_se, oracle):
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)
    # no subsample (m >= n) or the policy off: no SE
    assert (
        model_reliance(
            forest, X[:30], y[:30], options=RelianceOptions(max_samples=m, subsample_se=True), **kw
        ).subsample_se
        is None
    )
