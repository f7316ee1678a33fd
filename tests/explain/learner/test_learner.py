"""Learner-PD / learner-PFI (Molnar et al. 2023): the corrected interval against
its formula, every refit against a separately fitted model with brute-force PD
and hand-computed PFI, coverage of a known DGP-PD / DGP-PFI in repeated
simulations (corrected vs naive), zero width for identical refits,
determinism and independence of n_jobs."""

from __future__ import annotations

import dataclasses
import statistics
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.ensemble import RandomForestRegressor
from sklearn.inspection import partial_dependence as sk_partial_dependence
from sklearn.linear_model import LinearRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import PolynomialFeatures

from xaipipe.config import LearnerEffectsSettings, LearnerSettings
from xaipipe.data.resample import refit_seeds, subsample_splits
from xaipipe.explain.learner import (
    LEARNER_PD_COLUMNS,
    LEARNER_PFI_COLUMNS,
    LearnerTables,
    RefitDesign,
    RefitEffects,
    corrected_t_interval,
    estimator_factory,
    learner_pd_pfi,
    learner_pd_table,
    learner_pfi_table,
    learner_refits,
    learner_tables,
)
from xaipipe.explain.reliance import estimator_stream, random_permutations

_DESIGN = {f.name for f in dataclasses.fields(RefitDesign)}


def _design_and_rest(kw):
    """learner_refits' keywords split into a RefitDesign (its fields) and the other keywords."""
    return RefitDesign(**{k: v for k, v in kw.items() if k in _DESIGN}), {
        k: v for k, v in kw.items() if k not in _DESIGN
    }


def _refits(estimator, X, y, **kw):
    design, rest = _design_and_rest(kw)
    return learner_refits(estimator, X, y, design, **rest)


def _pd_pfi(estimator, X, y, **kw):
    design, rest = _design_and_rest(kw)
    return learner_pd_pfi(estimator, X, y, design, **rest)


def _dgp(rng, n, sigma=0.5):
    """y = x0 + 2 x1^2 + eps, x ~ U(-1, 1)^2 independent."""
    X = rng.uniform(-1, 1, (n, 2))
    return X, X[:, 0] + 2 * X[:, 1] ** 2 + rng.normal(0, sigma, n)


def _e_divide(model, X, y, col, perm=None):
    """Fisher et al.'s half-swap estimate by hand (squared loss), halving ``perm``."""
    p = np.arange(X.shape[0]) if perm is None else np.asarray(perm)
    X, y = X[p], y[p]
    h = X.shape[0] // 2
    Xs = X[: 2 * h].copy()
    Xs[:h, col] = X[h : 2 * h, col]
    Xs[h : 2 * h, col] = X[:h, col]
    return np.mean((y[: 2 * h] - model.predict(Xs)) ** 2)


def _e_switch(model, X, y, col):
    """Fisher et al.'s all-pairs estimate by hand (squared loss): every ordered pair i != j."""
    n = X.shape[0]
    donors, recipients = np.nonzero(~np.eye(n, dtype=bool))
    Xs = X[recipients].copy()
    Xs[:, col] = X[donors, col]
    return np.mean((y[recipients] - model.predict(Xs)) ** 2)


# ----------------------------------------------------------------------------- interval


def test_corrected_interval_matches_the_formula():
    rng = np.random.default_rng(3)
    v = rng.normal(size=(6, 4))
    ratio = 0.37 / 0.63
    out = corrected_t_interval(v, ratio, confidence=0.9)
    t = stats.t.ppf(0.95, 5)
    for j in range(4):
        col = v[:, j].tolist()
        s = statistics.stdev(col)
        m = statistics.fmean(col)
        assert out["mean"][j] == pytest.approx(m, rel=1e-13)
        assert out["std"][j] == pytest.approx(s, rel=1e-12)
        assert out["ci_high"][j] == pytest.approx(m + t * np.sqrt((1 / 6 + ratio) * s * s), rel=1e-12)
        assert out["ci_low_naive"][j] == pytest.approx(m - t * s / np.sqrt(6), rel=1e-12)
    width = out["ci_high"] - out["ci_low"]
    naive = out["ci_high_naive"] - out["ci_low_naive"]
    np.testing.assert_allclose(width / naive, np.sqrt(1 + 6 * ratio), rtol=1e-12)


def test_identical_values_give_exactly_zero_width():
    v = np.tile([[0.1, 1 / 3, 1e6 + 0.7]], (7, 1))
    out = corrected_t_interval(v, 0.5)
    assert (out["std"] == 0).all()
    np.testing.assert_array_equal(out["mean"], v[0])
    np.testing.assert_array_equal(out["ci_low"], v[0])
    np.testing.assert_array_equal(out["ci_high_naive"], v[0])


@pytest.mark.parametrize(
    "values, ratio, conf",
    [([[1.0]], 0.5, 0.95), ([1.0, np.nan], 0.5, 0.95), ([1.0, 2.0], -0.1, 0.95), ([1.0, 2.0], 0.5, 1.0)],
)
def test_corrected_interval_rejects_bad_input(values, ratio, conf):
    with pytest.raises(ValueError):
        corrected_t_interval(values, ratio, confidence=conf)


# ----------------------------------------------------------------------------- resampling


def test_subsample_splits_partition_and_do_not_depend_on_k():
    splits = subsample_splits(50, 4, 0.6, random_state=7)
    for train, hold in splits:
        assert train.size == 30 and hold.size == 20
        assert (np.diff(train) > 0).all() and (np.diff(hold) > 0).all()
        np.testing.assert_array_equal(np.union1d(train, hold), np.arange(50))
    assert not np.array_equal(splits[0][0], splits[1][0])
    longer = subsample_splits(50, 6, 0.6, random_state=7)
    for (a, _), (b, _) in zip(splits, longer):
        np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError):
        subsample_splits(10, 2, 0.1)  # one training row
    with pytest.raises(ValueError):
        subsample_splits(10, 2, 1.5)


# ----------------------------------------------------------------------------- refits vs separate fits


def test_each_refit_equals_a_separately_fitted_model():
    """Rows, seeds, PD and PFI of every refit against a model fitted by hand."""
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, (90, 3))
    y = X[:, 0] - X[:, 1] ** 2 + rng.normal(0, 0.1, 90)
    grid = np.array([-0.5, 0.0, 0.7])
    est = RandomForestRegressor(n_estimators=5, max_depth=3, random_state=123)
    kw = dict(n_refits=3, fraction=0.6, grids={"x0": grid, "x2": grid}, pd_features=["x0", "x2"], random_state=11)
    pd_r, pfi_r = _refits(est, X, y, pfi_estimator="e_divide", **kw)
    pd_p, pfi_p = _refits(est, X, y, pfi_estimator="permutation", n_repeats=2, **kw)
    splits = subsample_splits(90, 3, 0.6, random_state=11)
    seeds = refit_seeds(11, 3)
    assert len(pd_r) == 3 * 2 * 3 and len(pfi_r) == 3 * 3
    for k, ((train, hold), (_, mseed, pseed)) in enumerate(zip(splits, seeds)):
        model = RandomForestRegressor(n_estimators=5, max_depth=3, random_state=mseed).fit(X[train], y[train])
        Xh, yh = X[hold], y[hold]
        for name, j in (("x0", 0), ("x2", 2)):
            brute = []
            for z in grid:
                Z = Xh.copy()
                Z[:, j] = z
                brute.append(model.predict(Z).mean())
            got = pd_r[(pd_r.refit == k) & (pd_r.feature == name)].sort_values("grid_index")["value"]
            np.testing.assert_allclose(got, brute, rtol=1e-12)
        e_orig = np.mean((yh - model.predict(Xh)) ** 2)
        perms = random_permutations(len(hold), 2, 3, pseed)
        for j, name in enumerate(["x0", "x1", "x2"]):
            row = pfi_r[(pfi_r.refit == k) & (pfi_r.feature == name)].iloc[0]
            assert row.e_orig == pytest.approx(e_orig, rel=1e-12)
            halved = random_permutations(len(hold), 5, 3, estimator_stream("e_divide", pseed))  # 5 halvings
            e_div = np.mean([_e_divide(model, Xh, yh, j, halved[j, r]) for r in range(5)])
            assert row.mr_difference == pytest.approx(e_div - e_orig, rel=1e-10, abs=1e-14)
            switched = []
            for r in range(2):
                Z = Xh.copy()
                Z[:, j] = Xh[perms[j, r], j]
                switched.append(np.mean((yh - model.predict(Z)) ** 2))
            rowp = pfi_p[(pfi_p.refit == k) & (pfi_p.feature == name)].iloc[0]
            assert rowp.mr_difference == pytest.approx(np.mean(switched) - e_orig, rel=1e-10, abs=1e-14)
            assert rowp.mr_ratio == pytest.approx(np.mean(np.array(switched) / e_orig), rel=1e-10)
    assert (pd_r.n_train == 54).all() and (pd_r.n_test == 36).all()
    # reseed=False keeps the estimator's own random_state in every refit
    pd_f, _ = _refits(est, X, y, reseed=False, pfi_features=[], **kw)
    train = splits[1][0]
    model = RandomForestRegressor(n_estimators=5, max_depth=3, random_state=123).fit(X[train], y[train])
    Z = X[splits[1][1]].copy()
    Z[:, 0] = grid[2]
    got = pd_f[(pd_f.refit == 1) & (pd_f.feature == "x0") & (pd_f.grid_index == 2)]["value"].iloc[0]
    assert got == pytest.approx(model.predict(Z).mean(), rel=1e-12)


def test_identical_refits_have_zero_width_and_equal_the_single_model():
    rng = np.random.default_rng(1)
    X, y = _dgp(rng, 80)
    Xe, ye = _dgp(rng, 40)
    grid = np.array([-0.6, 0.1, 0.8])
    res = _pd_pfi(
        LinearRegression(),
        X,
        y,
        n_refits=4,
        fraction=1.0,
        eval_set=(Xe, ye),
        grids={"x0": grid, "x1": grid},
        pfi_estimator="e_switch",
    )
    for cols in (["std", "se", "se_naive"],):
        assert (res.pd[cols].to_numpy() == 0).all()
    np.testing.assert_array_equal(res.pd["ci_low"], res.pd["mean"])
    np.testing.assert_array_equal(res.pd["ci_high_naive"], res.pd["mean"])
    assert (res.pfi["mr_difference_std"] == 0).all()
    np.testing.assert_array_equal(res.pfi["mr_difference_ci_high"], res.pfi["mr_difference_mean"])
    single = LinearRegression().fit(X, y)
    for j, name in enumerate(["x0", "x1"]):
        sk = sk_partial_dependence(single, Xe, [j], custom_values={j: grid}, method="brute")
        got = res.pd[res.pd.feature == name].sort_values("grid_index")["mean"]
        np.testing.assert_allclose(got, sk["average"][0], rtol=1e-12)
        e_orig = np.mean((ye - single.predict(Xe)) ** 2)
        want = _e_switch(single, Xe, ye, j) - e_orig  # deterministic: refits cannot differ
        assert res.pfi.set_index("feature").loc[name, "mr_difference_mean"] == pytest.approx(want, rel=1e-10)
    assert (res.pd["n_test"] == 40).all() and (res.pd["n_train"] == 80).all()


# ----------------------------------------------------------------------------- intervals on real refits


def test_corrected_is_wider_than_naive_by_the_nadeau_bengio_factor():
    rng = np.random.default_rng(2)
    X, y = _dgp(rng, 150)
    res = _pd_pfi(
        LinearRegression(), X, y, n_refits=7, fraction=0.7, resolution=4, pfi_estimator="e_divide", random_state=5
    )
    n1, n2 = 105, 45
    factor = np.sqrt((1 / 7 + n2 / n1) / (1 / 7))
    np.testing.assert_allclose(res.pd.test_train_ratio, n2 / n1, rtol=1e-15)
    width = res.pd.ci_high - res.pd.ci_low
    naive = res.pd.ci_high_naive - res.pd.ci_low_naive
    assert (naive > 0).all()
    np.testing.assert_allclose(width / naive, factor, rtol=1e-10)
    for m in ("mr_difference", "mr_ratio"):
        w = res.pfi[f"{m}_ci_high"] - res.pfi[f"{m}_ci_low"]
        nw = res.pfi[f"{m}_ci_high_naive"] - res.pfi[f"{m}_ci_low_naive"]
        np.testing.assert_allclose(w / nw, factor, rtol=1e-10)
    # the summaries can be recomputed from the per-refit tables at another level
    pd80 = learner_pd_table(res.pd_refits, confidence=0.8)
    ratio = stats.t.ppf(0.9, 6) / stats.t.ppf(0.975, 6)
    np.testing.assert_allclose((pd80.ci_high - pd80.ci_low) / width, ratio, rtol=1e-10)
    np.testing.assert_allclose(pd80["mean"], res.pd["mean"], rtol=0, atol=0)
    assert list(res.pd.columns) == LEARNER_PD_COLUMNS
    assert list(learner_pfi_table(res.pfi_refits).columns) == LEARNER_PFI_COLUMNS


def test_corrected_intervals_cover_the_known_dgp_in_repeated_simulations():
    """y = x0 + 2 x1^2 + eps, x ~ U(-1,1)^2: DGP-PD_0(z) = z + 2/3, DGP-PD_1(z) = 2 z^2,
    DGP-PFI = 2 Var(f_j(X_j)) = 2/3 and 8 (1/5 - 1/9) = 32/45. A quadratic OLS is
    unbiased, so E[learner-PD] is the DGP-PD exactly. 25 data sets, K = 8 refits
    (measured over 200 data sets: corrected PD 0.89, naive 0.54; PFI 0.96 vs 0.68)."""
    z = np.array([-0.8, -0.4, 0.0, 0.4, 0.8])
    true_pd = {"x0": z + 2 / 3, "x1": 2 * z**2}
    true_pfi = {"x0": 2 / 3, "x1": 32 / 45}
    cover = {"pd": [], "pd_naive": [], "pfi": [], "pfi_naive": []}
    for r in range(25):
        X, y = _dgp(np.random.default_rng(100 + r), 240)
        res = _pd_pfi(
            make_pipeline(PolynomialFeatures(2), LinearRegression()),
            X,
            y,
            n_refits=8,
            grids={"x0": z, "x1": z},
            pfi_estimator="e_divide",
            random_state=r,
        )
        for f in ("x0", "x1"):
            p = res.pd[res.pd.feature == f].sort_values("grid_index")
            t = true_pd[f]
            cover["pd"] += list((p.ci_low <= t) & (t <= p.ci_high))
            cover["pd_naive"] += list((p.ci_low_naive <= t) & (t <= p.ci_high_naive))
            q = res.pfi.set_index("feature").loc[f]
            cover["pfi"].append(q.mr_difference_ci_low <= true_pfi[f] <= q.mr_difference_ci_high)
            cover["pfi_naive"].append(q.mr_difference_ci_low_naive <= true_pfi[f] <= q.mr_difference_ci_high_naive)
    rate = {k: float(np.mean(v)) for k, v in cover.items()}
    assert rate["pd"] >= 0.78, rate
    assert rate["pd_naive"] <= rate["pd"] - 0.2, rate
    assert rate["pfi"] >= 0.84, rate
    assert rate["pfi_naive"] < rate["pfi"], rate


# ----------------------------------------------------------------------------- determinism, options


def test_deterministic_prefix_stable_and_independent_of_n_jobs():
    rng = np.random.default_rng(4)
    X, y = _dgp(rng, 70)
    est = RandomForestRegressor(n_estimators=4, max_depth=3)
    kw = dict(resolution=3, n_repeats=2, random_state=9)
    a_pd, a_pfi = _refits(est, X, y, n_refits=3, **kw)
    b_pd, b_pfi = _refits(est, X, y, n_refits=3, **kw)
    pd.testing.assert_frame_equal(a_pd, b_pd)
    pd.testing.assert_frame_equal(a_pfi, b_pfi)
    c_pd, c_pfi = _refits(est, X, y, n_refits=4, n_jobs=2, **kw)
    pd.testing.assert_frame_equal(a_pd, c_pd[c_pd.refit < 3].reset_index(drop=True))
    pd.testing.assert_frame_equal(a_pfi, c_pfi[c_pfi.refit < 3].reset_index(drop=True))
    d_pd, _ = _refits(est, X, y, n_refits=3, **dict(kw, random_state=10))
    assert not np.allclose(a_pd["value"], d_pd["value"])


def test_classifier_factory_with_one_hot_group():
    rng = np.random.default_rng(5)
    n = 160
    level = rng.integers(0, 3, n)
    onehot = np.eye(3)[level]
    x = rng.normal(size=n)
    X = np.column_stack([x, onehot])
    y = (x + (level == 2) + rng.normal(0, 0.5, n) > 0.5).astype(int)
    names = ["x", "S_a", "S_b", "S_c"]
    factory = estimator_factory("logistic_regression", "classification", {"C": 1.0})
    res = _pd_pfi(
        factory,
        pd.DataFrame(X, columns=names),
        y,
        n_refits=3,
        resolution=4,
        features={"x": ["x"], "S": ["S_a", "S_b", "S_c"]},
        n_repeats=2,
    )
    s = res.pd[res.pd.feature == "S"].sort_values("grid_index")
    assert list(s.level) == ["S_a", "S_b", "S_c"] and list(s.grid_value) == [0.0, 1.0, 2.0]
    assert (res.pd.output == "proba").all()
    assert ((res.pd["mean"] > 0) & (res.pd["mean"] < 1)).all()
    assert s["mean"].iloc[2] > s["mean"].iloc[0]  # level c raises P(y = 1)
    assert set(res.pfi.loss) == {"log_loss"} and list(res.pfi.feature) == ["x", "S"]
    assert (res.pfi.mr_difference_mean > 0).all()


@pytest.mark.parametrize(
    "kwargs, error",
    [
        (dict(fraction=1.0), ValueError),
        (dict(n_refits=1), ValueError),
        (dict(pd_features=["nope"]), ValueError),
        (dict(grids={"x1": [0.0, 1.0]}, pd_features=["x0"]), ValueError),
        (dict(eval_set=(np.zeros((5, 3)), np.zeros(5))), ValueError),
        (dict(eval_set=(np.zeros((5, 2)), None)), ValueError),
        (dict(pfi_estimator="shap"), ValueError),
        (dict(fraction=0.99), ValueError),  # one held-out row
        (dict(n_refits=2.5), TypeError),
    ],
)
def test_invalid_options_are_rejected(kwargs, error):
    rng = np.random.default_rng(6)
    X, y = _dgp(rng, 30)
    with pytest.raises(error):
        _refits(LinearRegression(), X, y, **kwargs)


def test_invalid_estimator_and_data_are_rejected():
    X, y = _dgp(np.random.default_rng(7), 30)
    with pytest.raises(TypeError):
        _refits("linear", X, y)
    with pytest.raises(ValueError):
        _refits(LinearRegression(), X, y[:-1])
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError):
        _refits(LinearRegression(), Xn, y)
    with pytest.raises(ValueError):
        estimator_factory("linear_regression", "classification")
    with pytest.raises(ValueError):
        learner_pd_table(pd.DataFrame({"refit": [0]}))


def _learner_settings(kw):
    """LearnerSettings of the rule from learner_refits keywords (ranking: permutation MR difference, top 2)."""
    return LearnerSettings(
        task="regression",
        seed=kw["random_state"],
        n_refits=kw["n_refits"],
        fraction=kw["fraction"],
        resolution=kw["resolution"],
        grid="uniform",
        percentiles=(0.0, 1.0),
        pfi_estimator=kw["pfi_estimator"],
        n_repeats=kw["n_repeats"],
        confidence=kw["confidence"],
        top_k=2,
        ranking_estimator="permutation",
        ranking_quantity="mr_difference",
        loss="squared_error",
    )


def test_learner_tables_wrap_learner_pd_pfi():
    rng = np.random.default_rng(8)
    n = 80
    level = rng.integers(0, 2, n)
    x = rng.uniform(-1, 1, (n, 2))
    X = np.column_stack([x, np.eye(2)[level]])
    y = x[:, 0] + 2 * x[:, 1] ** 2 + level + rng.normal(0, 0.3, n)
    names = ["x0", "x1", "g_a", "g_b"]
    groups = {"g": ["g_a", "g_b"]}
    kw = dict(
        n_refits=3, fraction=0.7, resolution=4, pfi_estimator="e_divide", n_repeats=2, confidence=0.9, random_state=2
    )
    settings = _learner_settings(kw)
    data = SimpleNamespace(
        X_train_raw=X, y_train=y, features=names, feature_groups=groups, classes=None, imputer=None, dataset="toy"
    )
    best = {"n_estimators": 5, "max_depth": 2}
    effects = LearnerEffectsSettings(ale_bins=4)  # learner-SHAP / ALE (issue 45)
    res = learner_tables(data, settings, "gradient_boosting", best, pd_features=["x1", "g"], effects=effects)
    assert isinstance(res, LearnerTables) and res.pd_features == ["x1", "g"]
    out = res.to_frames()
    assert list(out) == ["pd", "pfi", "pd_refits", "pfi_refits", "shap", "ale", "shap_refits", "ale_refits"]
    # the rule's call: the PD variables are the model's top_k by the ranking's MR (here x1 and g)
    reliance = pd.DataFrame(
        {
            "feature": ["x0", "x1", "g", "x0", "x1", "g"],
            "estimator": ["permutation"] * 3 + ["e_divide"] * 3,
            "loss": "squared_error",
            "mr_difference": [0.1, 0.5, 0.5, 9.0, 0.0, 0.0],
        }
    )
    ranked = learner_tables(data, settings, "gradient_boosting", best, reliance=reliance)
    assert ranked.pd_features == ["g", "x1"]  # ties broken by name (top_features)
    with pytest.raises(ValueError, match="exactly one of reliance"):
        learner_tables(data, settings, "gradient_boosting", best)
    ref = _pd_pfi(
        estimator_factory("gradient_boosting", "regression", {"n_estimators": 5, "max_depth": 2}),
        X,
        y,
        feature_names=names,
        features={"x0": [0], "x1": [1], "g": [2, 3]},
        pd_features=["x1", "g"],
        kind="uniform",
        percentiles=(0.0, 1.0),
        effects=RefitEffects(ale_bins=4),
        **kw,
    )  # the rule's grid
    for name in out:
        frame = out[name]
        assert list(frame.columns[:2]) == ["dataset", "model"]
        assert (frame["dataset"] == "toy").all() and (frame["model"] == "gradient_boosting").all()
        pd.testing.assert_frame_equal(frame.drop(columns=["dataset", "model"]), getattr(ref, name))
    assert list(out["pfi"]["feature"]) == ["x0", "x1", "g"] and set(out["pd"]["feature"]) == {"x1", "g"}
    assert list(out["shap"]["feature"]) == ["x0", "x1", "g"] and list(pd.unique(out["ale"]["feature"])) == [
        "x0",
        "x1",
        "g",
    ]
    # without effects (or with neither), the same PD / PFI tables and empty SHAP / ALE tables
    bare = learner_tables(
        data,
        settings,
        "gradient_boosting",
        best,
        pd_features=["x1", "g"],
        effects=LearnerEffectsSettings(effects=()),
    ).to_frames()
    for name in ("pd", "pfi", "pd_refits", "pfi_refits"):
        pd.testing.assert_frame_equal(bare[name], out[name])
    assert all(bare[name].empty for name in ("shap", "ale", "shap_refits", "ale_refits"))
    assert out["pd_refits"]["refit"].nunique() == 3
    # every refit is the family's configuration with its own seed: refit 0 by hand
    seed = refit_seeds(2, 3)[0][1]
    first = out["pd_refits"][(out["pd_refits"]["refit"] == 0) & (out["pd_refits"]["feature"] == "x1")]
    train, hold = subsample_splits(n, 3, 0.7, random_state=2)[0]
    model = estimator_factory("gradient_boosting", "regression", {"n_estimators": 5, "max_depth": 2})(
        random_state=seed
    ).fit(X[train], y[train])
    grid = first.sort_values("grid_index")["grid_value"].to_numpy()
    Xh = X[hold]  # PD on the refit's held-out rows
    brute = [model.predict(np.column_stack([Xh[:, 0], np.full(len(hold), g), Xh[:, 2:]])).mean() for g in grid]
    np.testing.assert_allclose(first.sort_values("grid_index")["value"], brute, rtol=1e-12)


def test_missing_values_are_imputed_from_each_refit_training_rows():
    """Each refit's fit, PD and PFI see its evaluation rows filled with the medians of its own
    training rows (oracle: a scikit-learn Pipeline(SimpleImputer(median), model) fitted on them)."""
    from sklearn.impute import SimpleImputer
    from sklearn.pipeline import Pipeline

    from xaipipe.data.impute import MissingValueImputer

    rng = np.random.default_rng(2)
    X = rng.uniform(-1, 1, (80, 3))
    y = X[:, 0] - X[:, 1] + rng.normal(0, 0.1, 80)
    X[rng.random(X.shape) < 0.2] = np.nan
    grid = np.array([-0.5, 0.5])
    kw = dict(n_refits=3, fraction=0.6, grids={"x0": grid}, pd_features=["x0"], random_state=4)
    pd_r, pfi_r = _refits(LinearRegression(), X, y, pfi_estimator="e_switch", imputer=MissingValueImputer(), **kw)
    for k, (train, hold) in enumerate(subsample_splits(80, 3, 0.6, random_state=4)):
        pipe = Pipeline([("impute", SimpleImputer(strategy="median")), ("model", LinearRegression())])
        pipe.fit(X[train], y[train])
        Xh = pipe[0].transform(X[hold])
        e_orig = np.mean((y[hold] - pipe[1].predict(Xh)) ** 2)
        assert pfi_r[(pfi_r.refit == k) & (pfi_r.feature == "x0")]["e_orig"].iloc[0] == pytest.approx(e_orig, rel=1e-12)
        e_sw = _e_switch(pipe[1], Xh, y[hold], 1)  # MR of the imputed features
        row = pfi_r[(pfi_r.refit == k) & (pfi_r.feature == "x1")].iloc[0]
        assert row.e_switch == pytest.approx(e_sw, rel=1e-10)
        Z = Xh.copy()
        Z[:, 0] = grid[1]
        got = pd_r[(pd_r.refit == k) & (pd_r.grid_index == 1)]["value"].iloc[0]
        assert got == pytest.approx(pipe[1].predict(Z).mean(), rel=1e-12)
    with pytest.raises(ValueError, match="NaN"):
        _refits(LinearRegression(), X, y, **kw)


def test_the_default_design_is_refit_designs_defaults():
    """learner_refits without a design uses RefitDesign(): the same rows, bit for bit."""
    X, y = _dgp(np.random.default_rng(3), 40)
    a = learner_refits(LinearRegression(), X, y)
    b = learner_refits(LinearRegression(), X, y, RefitDesign())
    c = learner_refits(LinearRegression(), X, y, RefitDesign(n_refits=15, fraction=0.632, random_state=0))
    for x, z in ((a, b), (a, c)):
        pd.testing.assert_frame_equal(x[0], z[0])
        pd.testing.assert_frame_equal(x[1], z[1])
    assert a[0]["refit"].nunique() == 15 and (a[0]["n_train"] == round(0.632 * 40)).all()
