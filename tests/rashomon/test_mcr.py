"""Model class reliance: refits share prefixes, MR uses common random numbers and
equals per-model computation with separately fitted models, MCR intervals contain
the reference MR, widen with ε, and equal a brute-force min/max over R(ε)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from xaipipe.config import RashomonSettings
from xaipipe.explain.reliance import RelianceOptions, model_reliance, random_permutations
from xaipipe.models.cv import cross_validate_grid, summarize_cv
from xaipipe.models.families import make_estimator
from xaipipe.models.grid import config_id, expand_grid
from xaipipe.rashomon.envelope import members_partial_dependence, pd_envelope
from xaipipe.rashomon.mcr import mcr_interval, mcr_table
from xaipipe.rashomon.members import member_table, members_reliance
from xaipipe.rashomon.refit import params_from_config_id
from xaipipe.rashomon.sets import rashomon_scopes, rashomon_set, select_set
from xaipipe.rashomon.study import rashomon_reliance

SEED = 5
EPS = [0.0, 0.02, 0.1, 0.3, 2.0]
GRIDS = {
    "gradient_boosting": {"n_estimators": [4, 8, 12], "max_depth": [1, 2]},
    "random_forest": {"n_estimators": [4, 8], "max_depth": [3]},
    "xgboost": {"n_estimators": [3, 6], "max_depth": [2]},
    "linear_regression": {},
}
NAMES = ["a", "b", "c1", "c2", "d"]
GROUPS = {"c": ["c1", "c2"]}
FEATURES = {"a": [0], "b": [1], "c": [2, 3], "d": [4]}


@pytest.fixture(scope="module")
def toy():
    rng = np.random.default_rng(1)
    n = 160
    X = rng.normal(size=(n, 5))
    X[:, 3] = (X[:, 2] > 0).astype(float)
    y = 2 * X[:, 0] + X[:, 1] ** 2 + 0.5 * X[:, 3] + 0.4 * rng.normal(size=n)
    Xtr, ytr, Xte, yte = X[:120], y[:120], X[120:], y[120:]
    folds = [(np.flatnonzero(np.arange(120) % 3 != k), np.flatnonzero(np.arange(120) % 3 == k)) for k in range(3)]
    parts = []
    for fam, grid in GRIDS.items():
        s = summarize_cv(cross_validate_grid(fam, "regression", grid, Xtr, ytr, folds, random_state=SEED), "regression")
        s.insert(0, "dataset", "toy")
        parts.append(s)
    summary = pd.concat(parts, ignore_index=True)
    data = SimpleNamespace(
        X_train=Xtr, y_train=ytr, X_test=Xte, y_test=yte, features=NAMES, feature_groups=GROUPS, dataset="toy"
    )
    settings = RashomonSettings(
        task="regression",
        metric="rmse",
        seed=SEED,
        options={},
        loss="squared_error",
        epsilon_mode="relative",
        epsilon=EPS[-1],
        epsilons=tuple(EPS),
        scopes=("family", "cross_family"),
        estimators=("permutation", "e_divide"),
        n_repeats=3,
        e_switch_max_rows=400,
        figure_scope="cross_family",
    )
    members, mcr, groups = rashomon_reliance(data, settings, summary)
    return dict(
        X_train=Xtr, y_train=ytr, X_test=Xte, y_test=yte, summary=summary, members=members, mcr=mcr, groups=groups
    )


def test_params_from_config_id_round_trip():
    grid = {
        "n_estimators": [100],
        "learning_rate": [0.1, 1e-05],
        "loss": ["huber"],
        "max_depth": [None, 3],
        "bootstrap": [True],
    }
    for cfg in expand_grid(grid):
        assert params_from_config_id(config_id(cfg)) == cfg
    assert params_from_config_id("default") == {}
    for bad in ("", "max_depth", "=3", "b=2;a=1"):
        with pytest.raises(ValueError):
            params_from_config_id(bad)


def test_one_fit_per_prefix_group(toy):
    groups = toy["groups"]
    cand = toy["members"].drop_duplicates(["family", "config_id"])
    assert sum(g.n_members for g in groups) == len(cand)
    for fam in GRIDS:
        mine = cand[cand["family"] == fam]
        fitted = [g for g in groups if g.family == fam]
        if fam == "linear_regression":
            assert len(fitted) == len(mine) == 1
        else:  # one fit per distinct non-prefix configuration (max_depth here)
            assert len(fitted) == mine["max_depth"].nunique()
            assert sorted(c for g in fitted for c in g.config_ids) == sorted(mine["config_id"])
    gb = [g for g in groups if g.family == "gradient_boosting"]
    assert any(g.n_members > 1 for g in gb)  # prefixes really shared
    for g in groups:
        if g.n_estimators:
            assert g.model.get_params()["n_estimators"] == max(g.n_estimators)
            assert g.config_ids == [config_id(dict(g.base_params, n_estimators=k)) for k in g.n_estimators]
        else:
            assert len(g.config_ids) == 1
    # the refit is the cross-validated configuration fitted on all training rows
    g = gb[0]
    ref = make_estimator(
        "gradient_boosting", "regression", dict(g.base_params, n_estimators=max(g.n_estimators)), random_state=SEED
    ).fit(toy["X_train"], toy["y_train"])
    np.testing.assert_array_equal(ref.predict(toy["X_test"]), g.model.predict(toy["X_test"]))


def test_member_reliance_equals_separately_fitted_models(toy):
    """Oracle: every member refitted alone, MR computed with the same permutations."""
    members = toy["members"]
    Xte, yte = toy["X_test"], toy["y_test"]
    perms = random_permutations(len(yte), 3, len(FEATURES), SEED)
    perm_rows = members[members["estimator"] == "permutation"]
    for (fam, cid), rows in perm_rows.groupby(["family", "config_id"]):
        model = make_estimator(fam, "regression", params_from_config_id(cid), random_state=SEED)
        model.fit(toy["X_train"], toy["y_train"])
        ref = model_reliance(
            model, Xte, yte, features=FEATURES, options=RelianceOptions(permutations=perms), method="generic"
        )
        got = rows.set_index("feature").loc[list(FEATURES)]
        np.testing.assert_allclose(got["e_orig"], ref.e_orig[0], rtol=1e-12)
        np.testing.assert_allclose(got["mr_ratio"], ref.mr_ratio()[0].mean(axis=1), rtol=1e-12)
        np.testing.assert_allclose(
            got["mr_difference_se"], ref.mr_difference()[0].std(axis=1, ddof=1) / np.sqrt(3), rtol=1e-9
        )


def test_generic_path_gives_the_same_table(toy):
    groups = [g for g in toy["groups"] if g.family in ("gradient_boosting", "random_forest")]
    kw = dict(features=FEATURES, n_repeats=3, random_state=SEED, estimators=("permutation",))
    a = members_reliance(groups, toy["X_test"], toy["y_test"], method="engine", **kw)
    b = members_reliance(groups, toy["X_test"], toy["y_test"], method="generic", **kw)
    c = members_reliance(groups, toy["X_test"], toy["y_test"], **kw)  # auto
    cols = ["e_orig", "e_switch", "mr_ratio", "mr_difference", "mr_ratio_std"]
    np.testing.assert_array_equal(a[cols].to_numpy(), b[cols].to_numpy())
    np.testing.assert_array_equal(c[cols].to_numpy(), b[cols].to_numpy())


def test_engine_threads_do_not_change_the_table(toy):
    groups = [g for g in toy["groups"] if g.family in ("gradient_boosting", "random_forest")]
    kw = dict(features=FEATURES, n_repeats=3, random_state=SEED, estimators=("permutation", "e_divide"))
    a = members_reliance(groups, toy["X_test"], toy["y_test"], n_jobs=1, **kw)
    b = members_reliance(groups, toy["X_test"], toy["y_test"], n_jobs=2, **kw)
    cols = ["e_orig", "e_switch", "mr_ratio", "mr_difference", "mr_ratio_std"]
    np.testing.assert_array_equal(a[cols].to_numpy(), b[cols].to_numpy())


def test_e_switch_subsample_is_shared_and_seeded(toy):
    lin = [g for g in toy["groups"] if g.family == "linear_regression"]
    got = members_reliance(
        lin,
        toy["X_test"],
        toy["y_test"],
        features=FEATURES,
        estimators=("e_switch",),
        random_state=SEED,
        e_switch_max_rows=15,
    )
    rows = np.sort(np.random.default_rng(SEED).choice(40, 15, replace=False))
    ref = model_reliance(
        lin[0].model,
        toy["X_test"][rows],
        toy["y_test"][rows],
        features=FEATURES,
        estimator="e_switch",
        method="generic",
    )  # all pairs, no closed form
    assert ref.algorithm == "all_pairs"
    np.testing.assert_allclose(got["mr_ratio"], ref.mr_ratio()[0, :, 0], rtol=1e-10)
    assert got["algorithm"].iloc[0] == "linear_closed_form" and (got["n_samples"] == 15).all()


def test_mcr_contains_reference_and_widens(toy):
    mcr = toy["mcr"]
    assert {"dataset", "scope", "epsilon", "feature", "mcr_minus", "mcr_plus", "mr_reference", "n_members"} <= set(
        mcr.columns
    )
    assert (mcr["mcr_minus"] <= mcr["mr_reference"]).all()
    assert (mcr["mr_reference"] <= mcr["mcr_plus"]).all()
    assert set(mcr["scope"]) == set(GRIDS) | {"cross_family"}
    for _, part in mcr.groupby(["scope", "feature", "estimator", "quantity"]):
        part = part.sort_values("epsilon")
        assert np.all(np.diff(part["mcr_minus"]) <= 0)
        assert np.all(np.diff(part["mcr_plus"]) >= 0)
        assert np.all(np.diff(part["n_members"]) >= 0)
    # at epsilon = 0 (no ties) the set is the reference alone
    zero = mcr[(mcr["epsilon"] == 0) & (mcr["scope"] == "cross_family")]
    assert (zero["n_members"] == 1).all()
    np.testing.assert_array_equal(zero["mcr_minus"], zero["mr_reference"])


def test_mcr_equals_brute_force_min_max(toy):
    summary, members, mcr = toy["summary"], toy["members"], toy["mcr"]
    for scope in list(GRIDS) + ["cross_family"]:
        part = summary if scope == "cross_family" else summary[summary["family"] == scope]
        for eps in EPS:
            rs = rashomon_set(part, metric="rmse", epsilon=eps)
            keys = set(zip(rs.members["family"], rs.members["config_id"]))
            inside = members[[k in keys for k in zip(members["family"], members["config_id"])]]
            assert len(set(zip(inside["family"], inside["config_id"]))) == rs.size
            for (feature, est), sub in inside.groupby(["feature", "estimator"]):
                for q in ("mr_ratio", "mr_difference"):
                    row = mcr[
                        (mcr["scope"] == scope)
                        & (mcr["epsilon"] == eps)
                        & (mcr["feature"] == feature)
                        & (mcr["estimator"] == est)
                        & (mcr["quantity"] == q)
                    ]
                    assert len(row) == 1
                    assert row["mcr_minus"].iloc[0] == sub[q].min()
                    assert row["mcr_plus"].iloc[0] == sub[q].max()
                    assert row["n_members"].iloc[0] == rs.size
                    assert row["rashomon_ratio"].iloc[0] == pytest.approx(rs.ratio)
                    ref = sub[
                        (sub["family"] == rs.reference["family"]) & (sub["config_id"] == rs.reference["config_id"])
                    ]
                    assert row["mr_reference"].iloc[0] == ref[q].iloc[0]


def test_cross_family_membership_is_within_epsilon_of_global_best(toy):
    members = toy["members"].drop_duplicates(["family", "config_id"])
    best = toy["summary"]["rmse_mean"].min()
    for eps in EPS:
        inside = members["min_epsilon_cross_family"] <= eps
        expect = (members["cv_loss"] - best) / best <= eps
        assert inside.tolist() == expect.tolist()
        # family sets: within eps of the family's own best
        fam_best = members["family"].map(toy["summary"].groupby("family")["rmse_mean"].min())
        assert (members["min_epsilon_family"] <= eps).tolist() == (
            (members["cv_loss"] - fam_best) / fam_best <= eps
        ).tolist()


def test_member_table_layout(toy):
    members = toy["members"]
    n_members = members[["family", "config_id"]].drop_duplicates().shape[0]
    assert len(members) == n_members * len(FEATURES) * 2
    assert members.groupby(["family", "config_id", "estimator"]).size().eq(len(FEATURES)).all()
    assert members["rank_mr_ratio"].between(1, len(FEATURES)).all()
    for col in (
        "cv_loss",
        "cv_loss_std",
        "gap_family",
        "gap_cross_family",
        "is_reference_cross_family",
        "max_depth",
        "n_estimators",
        "mr_ratio_se",
    ):
        assert col in members
    assert members.drop_duplicates(["family", "config_id"])["is_reference_cross_family"].sum() == 1
    assert len(select_set(members, "cross_family", 0.0)["config_id"].unique()) == 1
    with pytest.raises(ValueError, match="neither"):
        select_set(members, "knn", 0.1)
    # an empty selection raises, unless asked for (one refit job's families); an unknown scope still raises
    nobody = members.assign(min_epsilon_cross_family=np.nan)
    with pytest.raises(ValueError, match="no members"):
        select_set(nobody, "cross_family", 2.0)
    assert select_set(nobody, "cross_family", 2.0, allow_empty=True).empty
    with pytest.raises(ValueError, match="neither"):
        select_set(members, "knn", 0.1, allow_empty=True)


def test_sets_at_smaller_epsilon_reuse_members(toy):
    sets = rashomon_scopes(toy["summary"], metric="rmse", epsilon=EPS[-1])
    again = mcr_table(toy["members"], sets, epsilons=EPS[:2])
    first = toy["mcr"][toy["mcr"]["epsilon"].isin(EPS[:2])].reset_index(drop=True)
    pd.testing.assert_frame_equal(again.reset_index(drop=True), first, check_dtype=False)
    with pytest.raises(ValueError, match="quantities"):
        mcr_table(toy["members"], sets, epsilons=EPS, quantities=("shap",))
    with pytest.raises(ValueError, match="no reliance rows"):
        member_table(sets, toy["members"].iloc[:0][["family", "config_id", "feature"]], epsilons=EPS)


def test_members_partial_dependence_equals_per_model_pd(toy):
    from xaipipe.explain.pdp import partial_dependence

    Xte = toy["X_test"]
    grid = np.linspace(-1.5, 1.5, 7)
    groups = [g for g in toy["groups"] if g.family in ("gradient_boosting", "xgboost", "linear_regression")]
    pdm = members_partial_dependence(groups, Xte, [0], grid, max_batch_rows=50)  # several chunks
    for (fam, cid), rows in pdm.groupby(["family", "config_id"]):
        model = make_estimator(fam, "regression", params_from_config_id(cid), random_state=SEED)
        model.fit(toy["X_train"], toy["y_train"])
        ref = partial_dependence(model, Xte, [0], grid)
        np.testing.assert_allclose(rows.sort_values("grid_index")["pd"], ref, rtol=1e-10, atol=1e-12)
    first = pdm[["family", "config_id"]].iloc[0]
    env = pd_envelope(pdm, (first["family"], first["config_id"]), grid=grid)
    assert (env["pd_min"] <= env["pd_reference"]).all() and (env["pd_reference"] <= env["pd_max"]).all()
    np.testing.assert_array_equal(env["x"], grid)
    one = pd_envelope(pdm, tuple(first), members=pdm.iloc[:1])
    np.testing.assert_array_equal(one["pd_min"], one["pd_max"])
    with pytest.raises(ValueError, match="reference"):
        pd_envelope(pdm, ("knn", "default"))
    with pytest.raises(ValueError, match="columns"):
        members_partial_dependence(groups, Xte, [9], grid)


def test_mcr_interval_min_max_ties_and_undefined_values():
    assert mcr_interval([1.2, 0.9, 3.0, 1.1]) == (1, 2, 0)
    # ties resolve to the first member in table order
    assert mcr_interval([2.0, 1.0, 5.0, 1.0, 5.0]) == (1, 2, 0)
    assert mcr_interval([4.0, 4.0, 4.0]) == (0, 0, 0)
    # NaN and inf (a member with zero loss) are left out and counted; positions index the input
    assert mcr_interval([np.nan, 3.0, np.inf, 0.5, -np.inf, 2.0]) == (3, 1, 3)
    assert mcr_interval(np.array([np.inf, 7.0])) == (1, 1, 1)
    assert mcr_interval([np.nan, np.inf]) == (-1, -1, 2)
    assert mcr_interval([]) == (-1, -1, 0)
    # brute force on random values with missing ones
    rng = np.random.default_rng(0)
    for _ in range(50):
        v = rng.integers(0, 4, size=rng.integers(1, 9)).astype(float)
        v[rng.random(v.size) < 0.2] = np.nan
        lo, hi, undefined = mcr_interval(v)
        fin = [i for i in range(v.size) if np.isfinite(v[i])]
        assert undefined == v.size - len(fin)
        if fin:
            assert lo == min(fin, key=lambda i: (v[i], i)) and hi == max(fin, key=lambda i: (v[i], -i))
        else:
            assert (lo, hi) == (-1, -1)


def test_mcr_table_leaves_undefined_members_out(toy):
    sets = rashomon_scopes(toy["summary"], metric="rmse", epsilon=EPS[-1])
    members = toy["members"].copy()
    ref = members["is_reference_cross_family"]
    # give one non-reference member of the cross-family set a zero loss: MR = inf / NaN
    victim = members.loc[~ref & (members["min_epsilon_cross_family"] <= EPS[-1]), ["family", "config_id"]].iloc[0]
    hit = (members["family"] == victim["family"]) & (members["config_id"] == victim["config_id"])
    members.loc[hit, "mr_ratio"] = np.inf
    members.loc[hit & (members["feature"] == "a"), "mr_ratio"] = np.nan
    got = mcr_table(members, sets, epsilons=EPS)
    base = toy["mcr"]
    rows = (got["scope"] == "cross_family") & (got["epsilon"] == EPS[-1]) & (got["quantity"] == "mr_ratio")
    assert (got.loc[rows, "n_undefined"] == 1).all() and (base.loc[rows, "n_undefined"] == 0).all()
    for _, row in got[rows].iterrows():
        sub = members[
            (members["min_epsilon_cross_family"] <= EPS[-1])
            & (members["feature"] == row["feature"])
            & (members["estimator"] == row["estimator"])
            & ~hit
        ]
        assert row["mcr_minus"] == sub["mr_ratio"].min() and row["mcr_plus"] == sub["mr_ratio"].max()
        assert row["n_members"] == base.loc[row.name, "n_members"]  # still a member of the set
        assert f"{victim['family']}:{victim['config_id']}" not in (row["argmin_config"], row["argmax_config"])


def _data_and_settings(toy, kw):
    """The toy as a prepared split and RashomonSettings (no column groups by default: the toy's group
    "c" is not one-hot, so it has no PD grid); ``kw`` overrides settings or ``feature_groups``."""
    kw = dict(kw)
    data = SimpleNamespace(
        X_train=toy["X_train"],
        y_train=toy["y_train"],
        X_test=toy["X_test"],
        y_test=toy["y_test"],
        features=NAMES,
        feature_groups=kw.pop("feature_groups", None),
        dataset="toy",
    )
    args = dict(
        task="regression",
        metric="rmse",
        seed=SEED,
        options={},
        loss="squared_error",
        epsilon_mode="relative",
        epsilon=0.3,
        epsilons=tuple(EPS),
        scopes=("family", "cross_family"),
        estimators=("permutation", "e_switch"),
        n_repeats=3,
        e_switch_max_rows=400,
        figure_scope="cross_family",
        pd={"top_k": 2, "resolution": 7},
    )
    args.update({k: tuple(v) if k in ("scopes", "estimators") else v for k, v in kw.items() if k != "refits"})
    return data, RashomonSettings(**args)


def _study(toy, **kw):
    from xaipipe.rashomon.study import mcr_study

    data, settings = _data_and_settings(toy, kw)
    out = mcr_study(data, settings, toy["summary"], refits=kw.get("refits"))
    return {**out.to_frames(), "n_groups": out.n_groups, "predictions": out.predictions}


def _refit(toy, families, **kw):
    from xaipipe.rashomon.study import rashomon_refit

    data, settings = _data_and_settings(toy, kw)
    return rashomon_refit(data, settings, toy["summary"], families=families)


@pytest.fixture(scope="module")
def one_job(toy):
    return {scope: _study(toy, figure_scope=scope) for scope in ("cross_family", "gradient_boosting")}


@pytest.mark.parametrize(
    "jobs, figure_scope",
    [
        ([], "cross_family"),
        ([["random_forest"]], "cross_family"),
        ([["xgboost", "linear_regression"], ["gradient_boosting"]], "cross_family"),
        ([["linear_regression"], ["xgboost"], ["random_forest"], ["gradient_boosting"]], "cross_family"),
        ([["random_forest", "gradient_boosting"]], "gradient_boosting"),
    ],
)
def test_refit_jobs_combine_to_the_tables_of_one_job_byte_for_byte(toy, one_job, jobs, figure_scope, tmp_path):
    from xaipipe.io import read_joblib, write_csv, write_joblib
    from xaipipe.rashomon.study import RashomonRefit

    one = one_job[figure_scope]
    refits = [_refit(toy, fams, figure_scope=figure_scope) for fams in reversed(jobs)]
    assert all(isinstance(r, RashomonRefit) for r in refits)
    stored = []  # as the rules store and read them: the pickled to_dict()
    for i, r in enumerate(refits):
        write_joblib(tmp_path / f"refit_{i}.joblib", r.to_dict())
        stored.append(read_joblib(tmp_path / f"refit_{i}.joblib"))
    assert all(list(d) == ["families", "reliance", "curves", "n_groups", "predictions"] for d in stored)
    split = _study(toy, figure_scope=figure_scope, refits=stored)
    assert _study(toy, figure_scope=figure_scope, refits=refits)["n_groups"] == split["n_groups"]
    assert split["n_groups"] == one["n_groups"]
    for name in ("sets", "members", "mcr", "path", "envelope", "curves", "prediction_index"):
        assert len(one[name]) > 0, name
        a, b = tmp_path / f"{name}_one.csv", tmp_path / f"{name}_split.csv"
        write_csv(a, one[name])
        write_csv(b, split[name])
        assert a.read_bytes() == b.read_bytes(), name
    # the members' test predictions (issue 35), in the member table's order: the same bytes
    assert one["predictions"].dtype == np.float64 and one["predictions"].tobytes() == split["predictions"].tobytes()
    # the jobs computed every family they were given (the rest ran in the combining call)
    done = {f for fams in jobs for f in fams}
    for r in refits:
        assert set(r.reliance["family"]) == set(r.families) <= done
        # PD curves of every variable, for the job's members of the envelope's set only
        if len(r.curves):
            assert set(r.curves["feature"]) == set(NAMES)


def test_refit_jobs_are_checked(toy):
    a = _refit(toy, ["random_forest"])
    with pytest.raises(ValueError, match="two rashomon_refit results"):
        _study(toy, refits=[a, a])
    with pytest.raises(ValueError, match="families must not be empty"):
        _refit(toy, [])
    # a family without members at the largest epsilon: empty frames, no fit
    none = _refit(toy, ["decision_tree"])
    assert none.n_groups == 0 and none.reliance.empty and none.curves.empty
    # a variable without a PD grid (a column group that is not one-hot) is left out of a job's curves
    grouped = _refit(toy, ["random_forest"], feature_groups=GROUPS)
    assert set(grouped.curves["feature"]) == {"a", "b", "d"}
    # curves computed for another envelope set than the combining call's are refused
    other = _refit(toy, ["gradient_boosting", "random_forest", "xgboost", "linear_regression"], epsilon=0.0)
    with pytest.raises(ValueError, match="no PD curve"):
        _study(toy, refits=[other])


def test_without_the_linear_exact_scope_its_table_has_columns_and_no_rows(toy, tmp_path):
    """A dataset without the scope (classification, or not configured) still writes a table:
    a header-only linear_exact.csv that reads back (an empty file does not)."""
    from xaipipe.io import write_csv
    from xaipipe.rashomon.linear import LINEAR_EXACT_COLUMNS

    out = _study(toy, scopes=("family", "cross_family"))
    write_csv(tmp_path / "linear_exact.csv", out["linear_exact"])
    back = pd.read_csv(tmp_path / "linear_exact.csv")
    assert list(back.columns) == list(LINEAR_EXACT_COLUMNS) and back.empty
    assert set(out["mcr"]["scope"]) == {"cross_family", *GRIDS}


def test_linear_exact_is_left_out_when_the_test_rows_are_fitted_exactly():
    """n_test <= p + 1 (generic rows): OLS interpolates the test rows, e_orig = 0 and MR is undefined;
    the scope is skipped (no failed job). Collinear columns (a one-hot group) lower the rank."""
    from xaipipe.rashomon.linear import linear_mcr
    from xaipipe.rashomon.study import _fitted_exactly

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(4, 3)), rng.normal(size=4)
    assert _fitted_exactly(X, "d")
    with pytest.raises(ValueError, match="fitted exactly"):  # what the scope would have raised
        linear_mcr(X, y, reference_coef=np.zeros(3), reference_intercept=0.0, epsilon=0.1)
    assert not _fitted_exactly(rng.normal(size=(5, 3)), "d")
    groups = np.eye(3)[rng.choice(3, 4)]  # 4 rows, 2 numeric + a 3-level group: rank 3 of the centred design
    X2 = np.column_stack([rng.normal(size=(4, 2)), groups])
    assert _fitted_exactly(X2, "d") == (np.linalg.matrix_rank(X2 - X2.mean(axis=0)) >= 3)
    a = rng.normal(size=(4, 1))
    assert not _fitted_exactly(np.column_stack([a, 2 * a, 3 * a]), "d")  # 4 rows, rank 1: not interpolated


def test_member_predictions_distinct_functions_and_default_epsilon(toy, one_job):
    """Issue 35: the members' test predictions are stored in the member table's order; sets, mcr and
    mcr_path count the bitwise-distinct functions of each set and mark the default epsilon."""
    from sklearn.linear_model import LinearRegression

    from xaipipe.rashomon.sets import CROSS_FAMILY

    out = one_job["cross_family"]
    P, index, members = out["predictions"], out["prediction_index"], out["members"]
    base = members.drop_duplicates(["family", "config_id"]).reset_index(drop=True)
    assert P.shape == (len(base), len(toy["y_test"]))
    assert index["family"].tolist() == base["family"].tolist() and index["member"].tolist() == list(range(len(base)))
    assert index["config_id"].tolist() == base["config_id"].tolist()
    lin = int(np.flatnonzero(index["family"] == "linear_regression")[0])
    expected = LinearRegression().fit(toy["X_train"], toy["y_train"]).predict(toy["X_test"])
    np.testing.assert_allclose(P[lin], expected, rtol=0, atol=1e-10)

    def distinct(scope, inside):
        part = base if scope == CROSS_FAMILY else base[base["family"] == scope]
        idx = part.index[inside(part)].to_numpy()
        return np.unique(P[idx], axis=0).shape[0]

    for name in ("sets", "mcr", "path"):
        table = out[name]
        assert list(table.columns[-2:]) == ["n_distinct_functions", "is_default"], name
        size = "size" if name == "sets" else "n_members"
        finite = table[table["scope"] != "linear_exact"]
        assert (finite["n_distinct_functions"] <= finite[size]).all() and (finite["n_distinct_functions"] >= 1).all()
        assert table.loc[table["scope"] == "linear_exact", "n_distinct_functions"].isna().all()
        for (scope, eps), rows in finite.groupby(["scope", "epsilon"]):
            label = CROSS_FAMILY if scope == CROSS_FAMILY else "family"
            if name == "path":
                inside = lambda part: np.maximum(part[f"gap_{label}"].fillna(np.inf), 0.0) <= eps  # noqa: E731
            else:
                inside = lambda part: part[f"min_epsilon_{label}"].fillna(np.inf) <= eps  # noqa: E731
            assert (rows["n_distinct_functions"] == distinct(scope, inside)).all(), (name, scope, eps)
    for name in ("sets", "mcr"):
        assert (out[name]["is_default"] == (out[name]["epsilon"] == 0.3)).all()
    path = out["path"]
    for scope, rows in path.groupby("scope"):
        step = rows.loc[rows["epsilon"] <= 0.3, "epsilon"].max()
        assert (rows["is_default"] == (rows["epsilon"] == step)).all(), scope


def test_a_linear_exact_scope_that_is_not_estimable_says_why_in_its_table(toy, tmp_path):
    """Five test rows for five columns: OLS fits them exactly, so the scope has no interval; the job
    still succeeds and linear_exact.csv holds one row whose note says why (issue 32, item 1)."""
    from xaipipe.io import write_csv
    from xaipipe.rashomon.linear import LINEAR_EXACT_COLUMNS

    few = {**toy, "X_test": toy["X_test"][:5], "y_test": toy["y_test"][:5]}
    out = _study(few, scopes=("family", "cross_family", "linear_exact"))
    assert "linear_exact" not in set(out["mcr"]["scope"]) and "linear_exact" not in set(out["path"]["scope"])
    write_csv(tmp_path / "linear_exact.csv", out["linear_exact"])
    back = pd.read_csv(tmp_path / "linear_exact.csv")
    assert list(back.columns) == [*LINEAR_EXACT_COLUMNS, "note"] and len(back) == 1
    assert back.loc[0, "n_samples"] == 5 and back.loc[0, "note"].startswith("not estimable: the 5 test rows")
