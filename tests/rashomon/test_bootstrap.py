"""Bootstrap of the Rashomon set (Donnelly et al. 2023): sets, losses and MR
against brute force (every configuration fitted separately on every resample,
MR computed by hand), epsilon = 0, weights, RID quantiles / CDF and MCR against
their definitions, determinism and independence of n_jobs."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import log_loss as sk_log_loss
from sklearn.metrics import mean_squared_error

from xaipipe.config import BootstrapSettings, RashomonSettings
from xaipipe.explain.reliance import random_permutations
from xaipipe.models.families import make_estimator
from xaipipe.models.grid import config_id, expand_grid
from xaipipe.rashomon.bootstrap import (
    BOOTSTRAP_RELIANCE_COLUMNS,
    MCR_COLUMNS,
    MODEL_COLUMNS,
    BootstrapEngine,
    BootstrapReliance,
    bootstrap_indices,
    bootstrap_rashomon,
    bootstrap_tables,
    grid_configurations,
    resample_seeds,
)
from xaipipe.rashomon.rid import mcr_per_resample, mcr_summary, rid_cdf, rid_quantile, rid_summary

GRIDS = {
    "gradient_boosting": {"n_estimators": [3, 6, 12], "learning_rate": [0.1, 0.4], "max_depth": [2]},
    "decision_tree": {"max_depth": [1, 2, 4]},
}
SEED = 3  # one seed: the estimators' random_state and the root of the resamples
B = 3


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, (70, 3))
    y = X[:, 0] + X[:, 1] ** 2 + rng.normal(0, 0.2, 70)
    return X, y


@pytest.fixture(scope="module")
def brute(data):
    """Every configuration fitted on its own on every resample; OOB MSE."""
    X, y = data
    out = []
    for b, (boot, oob) in enumerate(bootstrap_indices(len(y), B, random_state=SEED)):
        for family, grid in GRIDS.items():
            for cfg in expand_grid(grid):
                model = make_estimator(family, "regression", cfg, random_state=SEED).fit(X[boot], y[boot])
                loss = mean_squared_error(y[oob], model.predict(X[oob]))
                out.append(
                    {
                        "bootstrap": b,
                        "family": family,
                        "config_id": config_id(cfg),
                        "loss": loss,
                        "model": model,
                        "oob": oob,
                    }
                )
    return pd.DataFrame(out)


def _e_switch(model, X, y, col):
    """All ordered pairs j != i (Fisher et al. 2019, §3): y_j with X1 of i and X2 of j."""
    n = X.shape[0]
    i, j = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    off = i != j
    Z = X[j[off]].copy()
    Z[:, col] = X[i[off], col]
    return np.mean((y[j[off]] - model.predict(Z)) ** 2)


# bootstrap_rashomon-style MR keywords of _run -> BootstrapReliance's fields
_MR_KEYS = {
    "mr_estimator": "estimator",
    "mr_data": "data",
    "n_repeats": "n_repeats",
    "X_test": "X_test",
    "y_test": "y_test",
}


def _run(data, **kw):
    X, y = data
    mr = {"estimator": "e_switch"}
    mr.update({_MR_KEYS[k]: kw.pop(k) for k in list(kw) if k in _MR_KEYS})
    args = dict(
        task="regression",
        grids=GRIDS,
        epsilon=0.03,
        epsilon_mode="absolute",
        metric="mse",
        n_bootstrap=B,
        random_state=SEED,
        reliance=BootstrapReliance(**mr),
    )
    args.update(kw)
    return bootstrap_rashomon(X, y, **args)


def _rule_args(X, y, *, feature_groups=None, summary=None, confidence=0.95, **kw):
    """The bootstrap rules' (data, settings, summary) for arrays and bootstrap_rashomon-style keywords."""
    data = SimpleNamespace(
        X_train_raw=X,
        y_train=y,
        X_test_raw=None,
        y_test=None,
        features=["x0", "x1", "x2"],
        feature_groups=feature_groups,
        imputer=None,
        dataset="toy",
    )
    rashomon = RashomonSettings(
        task=kw["task"],
        metric=kw.get("metric", "mse"),
        seed=kw.get("random_state", 0),
        options={},
        loss="squared_error",
        epsilon_mode=kw["epsilon_mode"],
        epsilon=kw["epsilon"],
        epsilons=(kw["epsilon"],),
        scopes=("family", "cross_family"),
        estimators=("permutation",),
        n_repeats=2,
        e_switch_max_rows=400,
        figure_scope="cross_family",
    )
    settings = BootstrapSettings(
        rashomon=rashomon,
        n_bootstrap=kw["n_bootstrap"],
        mr_data="oob",
        estimator=kw.get("mr_estimator", "permutation"),
        n_repeats=kw.get("n_repeats", 5),
        confidence=confidence,
        families=tuple(kw["grids"]),
        n_shards=1,
    )
    return data, settings, summary


# ----------------------------------------------------------------------------- pieces


def test_bootstrap_indices_and_prefix_stability():
    splits = bootstrap_indices(40, 3, random_state=5)
    for boot, oob in splits:
        assert boot.size == 40 and (np.diff(boot) >= 0).all()
        assert np.intersect1d(boot, oob).size == 0
        np.testing.assert_array_equal(np.union1d(boot, oob), np.arange(40))
    assert not np.array_equal(splits[0][0], splits[1][0])
    more = bootstrap_indices(40, 5, random_state=5)
    for (a, _), (b, _) in zip(splits, more):
        np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError):
        bootstrap_indices(1, 2)


def test_grid_configurations_groups_prefixes():
    groups = grid_configurations(GRIDS)
    assert [g["family"] for g in groups] == ["gradient_boosting"] * 2 + ["decision_tree"] * 3
    assert groups[0]["ks"] == [3, 6, 12] and groups[0]["base"] == {"learning_rate": 0.1, "max_depth": 2}
    assert groups[2]["ks"] == [] and groups[2]["configs"] == [{"max_depth": 1}]
    assert sum(len(g["configs"]) for g in groups) == 9
    with pytest.raises(ValueError):
        grid_configurations({})
    with pytest.raises(KeyError):
        grid_configurations({"svm": {}})
    with pytest.raises(ValueError):
        grid_configurations({"decision_tree": [{"max_depth": 2}, {"max_depth": 2}]})


# ----------------------------------------------------------------------------- brute force


def test_sets_losses_and_mr_equal_brute_force(data, brute):
    X, y = data
    res = _run(data)
    assert list(res.models.columns[: len(MODEL_COLUMNS)]) == MODEL_COLUMNS
    assert list(res.reliance.columns) == BOOTSTRAP_RELIANCE_COLUMNS
    merged = res.models.merge(brute, on=["bootstrap", "family", "config_id"], suffixes=("", "_brute"))
    assert len(merged) == len(brute) == B * 9
    np.testing.assert_allclose(merged["loss"], merged["loss_brute"], rtol=1e-12)
    for b, part in merged.groupby("bootstrap"):
        expected = part["loss_brute"] - part["loss_brute"].min() <= 0.03
        np.testing.assert_array_equal(part["in_set"], expected)
        assert res.sizes.set_index("bootstrap").loc[b, "set_size"] == expected.sum()
    assert res.sizes["set_size"].min() >= 1 and res.sizes["set_size"].max() < 9  # a non-trivial set
    members = merged[merged["in_set"]]
    assert len(res.reliance) == 3 * len(members)
    for _, m in members.iterrows():
        oob = m["oob"]
        Xo, yo = X[oob], y[oob]
        e_orig = np.mean((yo - m["model"].predict(Xo)) ** 2)
        rows = res.reliance[
            (res.reliance.bootstrap == m.bootstrap)
            & (res.reliance.config_id == m.config_id)
            & (res.reliance.family == m.family)
        ].set_index("feature")
        for j, f in enumerate(["x0", "x1", "x2"]):
            e_sw = _e_switch(m["model"], Xo, yo, j)
            assert rows.loc[f, "e_orig"] == pytest.approx(e_orig, rel=1e-12)
            assert rows.loc[f, "mr_ratio"] == pytest.approx(e_sw / e_orig, rel=1e-10)
            assert rows.loc[f, "mr_difference"] == pytest.approx(e_sw - e_orig, rel=1e-10, abs=1e-14)


def test_relative_epsilon_and_epsilon_zero(data, brute):
    rel = _run(data, epsilon=0.1, epsilon_mode="relative", metric=None)  # default metric: RMSE
    assert (rel.models["metric"] == "rmse").all()
    np.testing.assert_allclose(np.sort(rel.models["loss"]), np.sort(np.sqrt(brute["loss"])), rtol=1e-12)
    zero = _run(data, epsilon=0.0)
    for b, part in brute.groupby("bootstrap"):
        rmse = np.sqrt(part["loss"])
        want = set(part.loc[(rmse - rmse.min()) / rmse.min() <= 0.1, "config_id"])
        got = rel.models[(rel.models.bootstrap == b) & rel.models.in_set]
        assert set(got["config_id"]) == want
        z = zero.models[(zero.models.bootstrap == b) & zero.models.in_set]
        assert len(z) == 1 and z["is_best"].all()
        assert z["config_id"].iloc[0] == part.loc[part["loss"].idxmin(), "config_id"]
    assert (zero.sizes["set_size"] == 1).all()
    assert (zero.reliance["weight"] == 1.0).all()
    m = zero.mcr
    np.testing.assert_array_equal(m["mcr_minus"], m["mcr_plus"])  # one member: MCR- = MCR+


def test_permutation_mr_uses_common_permutations_per_resample(data, brute):
    X, y = data
    res = _run(data, mr_estimator="permutation", n_repeats=3, epsilon=0.05)
    _, s_perm = resample_seeds(SEED, B)[1]
    members = res.models[(res.models.bootstrap == 1) & res.models.in_set]
    assert len(members) >= 2
    for _, m in members.iterrows():
        row = brute[(brute.bootstrap == 1) & (brute.config_id == m.config_id) & (brute.family == m.family)].iloc[0]
        oob = row["oob"]
        perms = random_permutations(oob.size, 3, 3, s_perm)
        Xo, yo = X[oob], y[oob]
        e_orig = np.mean((yo - row["model"].predict(Xo)) ** 2)
        for j, f in enumerate(["x0", "x1", "x2"]):
            sw = []
            for r in range(3):
                Z = Xo.copy()
                Z[:, j] = Xo[perms[j, r], j]
                sw.append(np.mean((yo - row["model"].predict(Z)) ** 2))
            got = res.reliance[
                (res.reliance.bootstrap == 1)
                & (res.reliance.config_id == m.config_id)
                & (res.reliance.family == m.family)
                & (res.reliance.feature == f)
            ].iloc[0]
            assert got["mr_difference"] == pytest.approx(np.mean(sw) - e_orig, rel=1e-10, abs=1e-14)


def test_mr_on_a_fixed_test_set(data, brute):
    X, y = data
    rng = np.random.default_rng(9)
    Xt = rng.uniform(-1, 1, (30, 3))
    yt = Xt[:, 0] + Xt[:, 1] ** 2
    res = _run(data, mr_data="test", X_test=Xt, y_test=yt)
    assert (res.sizes["n_mr"] == 30).all()
    best = res.models[res.models.is_best].iloc[0]
    model = brute[
        (brute.bootstrap == best.bootstrap) & (brute.config_id == best.config_id) & (brute.family == best.family)
    ]["model"].iloc[0]
    got = res.reliance[
        (res.reliance.bootstrap == best.bootstrap)
        & (res.reliance.config_id == best.config_id)
        & (res.reliance.family == best.family)
    ]
    np.testing.assert_allclose(got["e_orig"], np.mean((yt - model.predict(Xt)) ** 2), rtol=1e-12)


# ----------------------------------------------------------------------------- summaries


def test_weights_rid_and_mcr_match_their_definitions(data):
    res = _run(data, epsilon=0.06, n_bootstrap=4)
    rel = res.reliance
    sums = rel.groupby(["bootstrap", "feature"])["weight"].sum()
    np.testing.assert_allclose(sums, 1.0, rtol=0, atol=1e-12)
    probs = [0.0, 0.1, 0.25, 0.5, 0.9, 1.0]
    summ = rid_summary(rel, quantity="mr_ratio", probs=probs).set_index("feature")
    cdf = rid_cdf(rel, quantity="mr_ratio")
    for f in ["x0", "x1", "x2"]:
        part = rel[rel.feature == f]

        def F(k):  # brute-force RID: (1/B) sum_b |{f in R_b: phi <= k}| / |R_b|
            return np.mean([np.mean(p["mr_ratio"] <= k) for _, p in part.groupby("bootstrap")])

        candidates = np.sort(part["mr_ratio"].unique())
        for p in probs:
            want = min(k for k in candidates if F(k) >= p - 1e-12)
            assert summ.loc[f, f"q{p:g}"] == want
        mean = np.mean([p["mr_ratio"].mean() for _, p in part.groupby("bootstrap")])
        assert summ.loc[f, "mean"] == pytest.approx(mean, rel=1e-12)
        c = cdf[cdf.feature == f]
        np.testing.assert_allclose(c["cdf"], [F(k) for k in c["value"]], rtol=1e-12)
        assert c["cdf"].iloc[-1] == pytest.approx(1.0)
        above = np.mean([np.mean(p["mr_ratio"] > 1) for _, p in part.groupby("bootstrap")])
        assert summ.loc[f, "prob_reliance"] == pytest.approx(above)
        for b, p in part.groupby("bootstrap"):
            row = res.mcr[(res.mcr.bootstrap == b) & (res.mcr.feature == f) & (res.mcr.quantity == "mr_ratio")]
            assert row["mcr_minus"].iloc[0] == p["mr_ratio"].min()
            assert row["mcr_plus"].iloc[0] == p["mr_ratio"].max()
    pd.testing.assert_frame_equal(mcr_per_resample(rel), res.mcr)
    # B = 4 resamples allow a percentile interval at 30 % (B >= 1 + 2 / (1 - c)), not at 50 %
    ms = mcr_summary(res.mcr, confidence=0.3).set_index(["feature", "quantity"])
    v = res.mcr[(res.mcr.feature == "x1") & (res.mcr.quantity == "mr_difference")]["mcr_plus"]
    assert ms.loc[("x1", "mr_difference"), "interval"] == "percentile"
    assert ms.loc[("x1", "mr_difference"), "mcr_plus_low"] == pytest.approx(np.quantile(v, 0.35))
    assert ms.loc[("x1", "mr_difference"), "mcr_plus_median"] == pytest.approx(np.median(v))


def test_rid_quantile_and_table_checks():
    v = np.array([3.0, 1.0, 2.0, 5.0])
    w = np.array([0.1, 0.4, 0.0, 0.5])
    np.testing.assert_array_equal(rid_quantile(v, w, [0, 0.4, 0.41, 0.5, 0.51, 1]), [1, 1, 3, 3, 5, 5])
    with pytest.raises(ValueError):
        rid_quantile(v, w * 2, [0.5])
    with pytest.raises(ValueError):
        rid_quantile(v, w, [1.5])
    bad = pd.DataFrame({"bootstrap": [0, 0], "feature": ["a", "a"], "weight": [0.5, 0.4], "mr_ratio": [1.0, 2.0]})
    with pytest.raises(ValueError):
        rid_summary(bad)
    with pytest.raises(ValueError):
        rid_cdf(bad.assign(weight=0.5), quantity="shap")


# ----------------------------------------------------------------------------- determinism, options


def test_deterministic_prefix_stable_and_independent_of_n_jobs(data):
    a = _run(data, mr_estimator="permutation", n_repeats=2)
    b = _run(data, mr_estimator="permutation", n_repeats=2, n_bootstrap=B + 1, n_jobs=2)
    for name in ("models", "reliance", "sizes", "mcr"):
        x, y = getattr(a, name), getattr(b, name)
        pd.testing.assert_frame_equal(x, y[y.bootstrap < B].reset_index(drop=True))
    c = _run(data, mr_estimator="permutation", n_repeats=2, random_state=2)
    assert not np.allclose(a.models["loss"], c.models["loss"])


def test_classification_and_failed_fits():
    rng = np.random.default_rng(4)
    x = rng.normal(size=(80, 2))
    X = np.column_stack([x, x[:, 0]])  # rank-deficient: QDA without shrinkage fails
    y = (x[:, 0] + 0.5 * rng.normal(size=80) > 0).astype(int)
    res = bootstrap_rashomon(
        X,
        y,
        task="classification",
        epsilon=0.05,
        n_bootstrap=2,
        reliance=BootstrapReliance(n_repeats=2),
        grids={"qda": {"reg_param": [0.0, 0.5]}, "logistic_regression": {"C": [0.01, 1.0]}},
    )
    failed = res.models[res.models.status == "failed"]
    assert set(failed["config_id"]) == {"reg_param=0.0"} and not failed["in_set"].any()
    assert failed["loss"].isna().all() and (res.sizes["n_failed"] == 1).all()
    assert (res.models["metric"] == "log_loss").all()
    assert set(res.reliance["loss"]) == {"log_loss"}
    # OOB log loss of one configuration by hand
    boot, oob = bootstrap_indices(80, 2, random_state=0)[0]
    model = make_estimator("logistic_regression", "classification", {"C": 1.0}, random_state=0).fit(X[boot], y[boot])
    got = res.models[(res.models.bootstrap == 0) & (res.models.config_id == "C=1.0")]["loss"].iloc[0]
    assert got == pytest.approx(sk_log_loss(y[oob], model.predict_proba(X[oob])), rel=1e-12)


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(task="clustering"),
        dict(metric="r2"),
        dict(metric="log_loss"),
        dict(epsilon=-0.1),
        dict(epsilon_mode="additive"),
        dict(epsilon=True),
        dict(mr_data="test"),
        dict(mr_data="oob", X_test=np.zeros((3, 3)), y_test=np.zeros(3)),
        dict(mr_estimator="tree_shap"),
        dict(n_bootstrap=0),
        dict(grids={"logistic_regression": {"C": [1.0]}}),
    ],
)
def test_invalid_options_are_rejected(data, kwargs):
    with pytest.raises((ValueError, TypeError)):
        _run(data, **kwargs)


def test_mcr_per_resample_leaves_undefined_values_out():
    rel = pd.DataFrame(
        {
            "bootstrap": [0, 0, 0, 1, 1],
            "feature": "x0",
            "set_size": [3, 3, 3, 2, 2],
            "mr_ratio": [np.inf, 1.5, 1.2, np.nan, np.nan],  # an MR with zero loss; a resample with none defined
            "mr_difference": [0.3, 0.2, 0.2, 0.1, -0.4],
        }
    )
    out = mcr_per_resample(rel).set_index(["bootstrap", "quantity"])
    assert list(mcr_per_resample(rel).columns) == MCR_COLUMNS
    assert tuple(out.loc[(0, "mr_ratio"), ["mcr_minus", "mcr_plus"]]) == (1.2, 1.5)
    assert out.loc[(1, "mr_ratio"), ["mcr_minus", "mcr_plus"]].isna().all()
    assert tuple(out.loc[(1, "mr_difference"), ["mcr_minus", "mcr_plus"]]) == (-0.4, 0.1)
    assert out.loc[(0, "mr_ratio"), "set_size"] == 3
    assert mcr_per_resample(rel.iloc[:0]).empty


def test_bootstrap_tables_wrap_bootstrap_rashomon(data):
    X, y = data
    kw = dict(
        task="regression",
        grids=GRIDS,
        epsilon=0.03,
        epsilon_mode="absolute",
        metric="mse",
        n_bootstrap=B,
        mr_estimator="e_switch",
        random_state=SEED,
    )
    tables = bootstrap_tables(*_rule_args(X, y, confidence=0.5, **kw), grids=GRIDS)
    res = _run(data)
    assert list(tables.to_frames()) == ["models", "reliance", "sizes", "mcr", "rid", "mcr_summary"]
    expected = {
        "models": res.models,
        "reliance": res.reliance,
        "sizes": res.sizes,
        "mcr": res.mcr,
        "rid": rid_summary(res.reliance),
        "mcr_summary": mcr_summary(res.mcr, confidence=0.5),
    }
    for name, frame in tables.to_frames().items():
        assert frame.columns[0] == "dataset" and (frame["dataset"] == "toy").all()
        frame = frame.drop(columns="dataset")
        if name == "sizes":  # the epsilon actually used, recorded with every resample
            assert (frame["epsilon"] == 0.03).all() and (frame["epsilon_mode"] == "absolute").all()
            frame = frame.drop(columns=["epsilon", "epsilon_mode"])
        pd.testing.assert_frame_equal(frame, expected[name])
    # one-hot groups are one variable
    grouped = bootstrap_tables(*_rule_args(X, y, feature_groups={"g": ["x1", "x2"]}, **kw), grids=GRIDS)
    assert list(pd.unique(grouped.reliance["feature"])) == ["x0", "g"]
    pd.testing.assert_frame_equal(grouped.models, tables.models)  # the sets do not depend on the variables


def test_bootstrap_tables_make_the_se_epsilon_absolute_from_the_cv_summary(data):
    from xaipipe.rashomon.sets import cv_standard_error

    X, y = data
    summary = pd.DataFrame(
        {
            "family": "gradient_boosting",
            "config_id": ["a", "b"],
            "status": "ok",
            "n_folds": 5,
            "mse_mean": [1.0, 1.3],
            "mse_std": [0.2, 0.1],
        }
    )
    kw = dict(task="regression", grids=GRIDS, epsilon=2.0, epsilon_mode="se", metric="mse", n_bootstrap=2)
    tables = bootstrap_tables(
        *_rule_args(X, y, summary=summary, mr_estimator="e_switch", random_state=SEED, **kw), grids=GRIDS
    )
    expected = 2.0 * cv_standard_error(summary.iloc[0], "mse")
    assert np.allclose(tables.sizes["epsilon"], expected) and (tables.sizes["epsilon_mode"] == "absolute").all()
    with pytest.raises(ValueError, match="needs the CV summary"):
        bootstrap_tables(*_rule_args(X, y, **{**kw, "epsilon": 1.0}), grids=GRIDS)


@pytest.mark.parametrize("n_shards", [2, B])
def test_bootstrap_shards_combine_to_the_unsplit_tables_byte_for_byte(data, n_shards, tmp_path):
    """Resamples dealt round-robin to jobs, stored through joblib, combined in any order: the rule's bytes."""
    from xaipipe.io import read_joblib, write_csv, write_joblib
    from xaipipe.rashomon.bootstrap import BootstrapShard, bootstrap_shard, combine_bootstrap_shards

    X, y = data
    kw = dict(
        task="regression",
        grids=GRIDS,
        epsilon=0.03,
        epsilon_mode="absolute",
        metric="mse",
        n_bootstrap=B,
        mr_estimator="permutation",
        n_repeats=2,
        random_state=SEED,
    )
    data, settings, _ = _rule_args(X, y, confidence=0.5, **kw)
    settings = dataclasses.replace(settings, n_shards=n_shards)
    whole = bootstrap_tables(data, settings, None, grids=GRIDS)
    paths = []
    for k in reversed(range(n_shards)):
        assert settings.shard_resamples(k) == range(k, B, n_shards)
        shard = bootstrap_shard(data, settings, None, grids=GRIDS, resamples=settings.shard_resamples(k))
        assert isinstance(shard, BootstrapShard) and list(shard.to_frames()) == ["models", "reliance", "sizes"]
        assert sorted(shard.sizes["bootstrap"]) == list(range(k, B, n_shards))
        paths.append(tmp_path / f"bootstrap_{k}.joblib")
        write_joblib(paths[-1], shard.to_frames())  # as the rule stores it
    split = combine_bootstrap_shards([read_joblib(p) for p in paths], n_bootstrap=B, dataset="toy", confidence=0.5)
    assert list(split.to_frames()) == list(whole.to_frames())
    for name in whole.FRAMES:
        write_csv(tmp_path / f"a_{name}.csv", getattr(whole, name))
        write_csv(tmp_path / f"b_{name}.csv", getattr(split, name))
        assert (tmp_path / f"a_{name}.csv").read_bytes() == (tmp_path / f"b_{name}.csv").read_bytes(), name
    # a missing or repeated resample is an error, not a shorter table
    shards = [read_joblib(p) for p in paths]
    with pytest.raises(ValueError, match="resamples 0..B-1 once each"):
        combine_bootstrap_shards(shards[1:], n_bootstrap=B, dataset="toy")
    with pytest.raises(ValueError, match="resamples 0..B-1 once each"):
        combine_bootstrap_shards(shards + shards[:1], n_bootstrap=B, dataset="toy")
    with pytest.raises(ValueError, match="non-empty subset"):
        bootstrap_shard(data, settings, None, grids=GRIDS, resamples=[B])
    # a BootstrapShard itself combines as its stored frames do
    direct = combine_bootstrap_shards(
        [bootstrap_shard(data, settings, None, grids=GRIDS)], n_bootstrap=B, dataset="toy", confidence=0.5
    )
    for name in whole.FRAMES:
        pd.testing.assert_frame_equal(getattr(direct, name), getattr(whole, name))


def test_missing_values_are_imputed_from_each_resample_in_bag_rows():
    """Each resample's fits and its out-of-bag rows use fill values of its in-bag rows only:
    the out-of-bag losses and the MR's e_orig equal a scikit-learn Pipeline(SimpleImputer(median), model)
    fitted on the in-bag rows (the oracle), for a prefix group and a linear model."""
    from sklearn.impute import SimpleImputer
    from sklearn.pipeline import Pipeline

    from xaipipe.data.impute import MissingValueImputer

    rng = np.random.default_rng(4)
    X = rng.normal(size=(90, 3))
    y = X @ np.array([1.0, -2.0, 0.5]) + rng.normal(scale=0.3, size=90)
    X[rng.random(X.shape) < 0.2] = np.nan
    grids = {"linear_regression": {}, "gradient_boosting": {"n_estimators": [3, 6], "max_depth": [2]}}
    out = bootstrap_rashomon(
        X,
        y,
        task="regression",
        grids=grids,
        epsilon=10.0,
        n_bootstrap=3,
        random_state=2,
        engine=BootstrapEngine(imputer=MissingValueImputer()),
    )
    assert (out.models["status"] == "ok").all()
    for b, (boot, oob) in enumerate(bootstrap_indices(90, 3, 2)):
        for family, params in [("linear_regression", {}), ("gradient_boosting", {"n_estimators": 3, "max_depth": 2})]:
            pipe = Pipeline(
                [
                    ("impute", SimpleImputer(strategy="median")),
                    ("model", make_estimator(family, "regression", params, random_state=2)),
                ]
            ).fit(X[boot], y[boot])
            pred = pipe.predict(X[oob])
            models, rel = out.models[out.models["family"] == family], out.reliance[out.reliance["family"] == family]
            row = models[(models["bootstrap"] == b) & (models["config_id"] == config_id(params))]
            assert row["loss"].iloc[0] == pytest.approx(np.sqrt(mean_squared_error(y[oob], pred)), rel=1e-12)
            mr = rel[(rel["bootstrap"] == b) & (rel["config_id"] == config_id(params))]
            if len(mr):  # members only
                assert mr["e_orig"].iloc[0] == pytest.approx(mean_squared_error(y[oob], pred), rel=1e-12)
    assert len(out.reliance)
    with pytest.raises(ValueError, match="NaN"):
        bootstrap_rashomon(X, y, task="regression", grids=grids, epsilon=1.0, n_bootstrap=1)
