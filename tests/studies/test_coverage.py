"""Coverage audit: reproducibility (same tables twice, any n_jobs, repetition r independent of R),
coverage arithmetic against hand counts, intervals known to cover / miss, the learner's expected
value against closed forms, and that the audit's rows are the pipeline's own functions' output."""

from __future__ import annotations

import io
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from xaipipe.config import CoverageSettings
from xaipipe.studies.coverage import COVERAGE_COLUMNS, REPETITION_COLUMNS, coverage_audit, coverage_table

#: The audit with its own defaults (DEFAULT_LEARNERS, DEFAULT_LEARNER_CONFIG, DEFAULT_RASHOMON_CONFIG),
#: no estimator options and seed 0: what the tests below change.
AUDIT = CoverageSettings(learners=None, learner_config=None, rashomon_config=None, options=None, random_state=0)


def _audit(n_jobs=1, **fields):
    """coverage_audit of AUDIT with ``fields`` changed."""
    return coverage_audit(replace(AUDIT, **fields), n_jobs=n_jobs)


TINY = dict(
    n=100,
    n_repetitions=3,
    learners={"gradient_boosting": {"n_estimators": 5, "max_depth": 1}},
    learner_config={
        "n_refits": 3,
        "n_repeats": 2,
        "pd_features": ["x1", "x6"],
        "grid": [-0.5, 0.5],
        "truth_fits": 4,
        "truth_eval_rows": 100,
    },
    rashomon_config={
        "families": {"linear_regression": {}, "gradient_boosting": {"n_estimators": [3, 6], "max_depth": [1]}},
        "epsilons": [0.0, 1.0, 3.0],
        "n_repeats": 2,
        "population_rows": 200,
    },
    random_state=7,
)


def _csv(frame: pd.DataFrame) -> bytes:
    buf = io.StringIO()
    frame.to_csv(buf, index=False, float_format="%.17g", lineterminator="\n")
    return buf.getvalue().encode()


@pytest.fixture(scope="module")
def tiny_runs():
    first = _audit(**TINY, n_jobs=1)
    parallel = _audit(**TINY, n_jobs=2)
    shorter = _audit(**{**TINY, "n_repetitions": 2}, n_jobs=1)
    return first, parallel, shorter


def test_same_seed_same_tables_byte_for_byte_any_n_jobs(tiny_runs):
    (reps1, cov1), (reps2, cov2), _ = tiny_runs  # n_jobs = 1 and 2
    assert list(reps1.columns) == REPETITION_COLUMNS and list(cov1.columns) == COVERAGE_COLUMNS
    assert _csv(reps1) == _csv(reps2)
    assert _csv(cov1) == _csv(cov2)
    other = _audit(**{**TINY, "random_state": 8, "n_repetitions": 2, "rashomon_config": False})[0]
    assert not np.array_equal(other["estimate"].to_numpy()[:10], reps1["estimate"].to_numpy()[:10])


def test_repetition_r_does_not_depend_on_R(tiny_runs):
    (reps3, _), _, (reps2, _) = tiny_runs
    head = reps3[reps3["repetition"] < 2].reset_index(drop=True)
    assert sorted(reps2["repetition"].unique()) == [0, 1]
    assert _csv(head) == _csv(reps2)


def test_rows_and_truths(tiny_runs):
    (reps, _), *_ = tiny_runs
    from xaipipe.studies.simulation import model_reliance_truth, partial_dependence_truth

    counts = reps.groupby("repetition").size()
    assert counts.nunique() == 1 and counts.size == 3
    lpd = reps[reps["quantity"] == "learner_pd"]
    assert set(lpd["feature"]) == {"x1", "x6"} and set(lpd["grid_value"]) == {-0.5, 0.5}
    pdt = partial_dependence_truth("friedman1", ["x1", "x6"], [-0.5, 0.5]).set_index(["feature", "grid_value"])
    np.testing.assert_array_equal(lpd["truth"], pdt.loc[list(zip(lpd["feature"], lpd["grid_value"])), "pd"])
    mrt = model_reliance_truth("friedman1").set_index("feature")
    for q, col in (
        ("learner_mr_ratio", "mr_ratio"),
        ("mcr_ratio", "mr_ratio"),
        ("learner_mr_difference", "mr_difference"),
        ("mcr_difference", "mr_difference"),
    ):
        part = reps[reps["quantity"] == q]
        assert len(part) > 0
        np.testing.assert_array_equal(part["truth"], mrt.loc[part["feature"], col])
    learner = reps[reps["quantity"].str.startswith("learner")]
    # corrected >= naive (equal only at zero width: a variable no refit of the 5-stump model split on)
    assert (learner["df"] == 2).all() and (learner["se"] >= learner["se_naive"]).all()
    assert (learner["se"] > learner["se_naive"]).any()
    assert learner["truth_learner"].notna().all() and (learner["truth_learner_se"] >= 0).all()
    assert (learner.loc[learner["feature"].isin(["x1", "x4"]), "truth_learner_se"] > 0).all()
    # the truth of the learner is one number per (quantity, feature, grid point), the same in every repetition
    assert learner.groupby(["quantity", "feature", "grid_value"], dropna=False)["truth_learner"].nunique().max() == 1
    assert reps.loc[reps["feature"].isin(["x6", "x7"]), "active"].eq(False).all()
    assert reps.loc[reps["feature"].isin(["x1", "x5"]), "active"].eq(True).all()


def test_mcr_rows_are_nested_in_epsilon_and_contain_the_reference(tiny_runs):
    (reps, _), *_ = tiny_runs
    mcr = reps[reps["quantity"].str.startswith("mcr")]
    assert set(mcr["scope"]) == {"linear_regression", "gradient_boosting", "cross_family", "linear_exact"}
    assert set(mcr["epsilon"]) == {0.0, 1.0, 3.0} and set(mcr["epsilon_mode"]) == {"se"}
    tol = 1e-9
    assert (mcr["ci_low"] <= mcr["estimate"] + tol).all() and (mcr["estimate"] <= mcr["ci_high"] + tol).all()
    grid_scopes = mcr[mcr["scope"] != "linear_exact"]
    assert grid_scopes[["population_low", "population_high", "n_members"]].notna().all().all()
    assert (grid_scopes["population_low"] <= grid_scopes["population_high"]).all()
    assert mcr.loc[mcr["scope"] == "linear_exact", "population_low"].isna().all()
    # a single linear regression is a set of one model: a point interval
    lr = mcr[mcr["scope"] == "linear_regression"]
    np.testing.assert_array_equal(lr["ci_low"], lr["ci_high"])
    for _, part in mcr.groupby(["repetition", "scope", "feature", "quantity"]):
        part = part.sort_values("epsilon")
        assert np.all(np.diff(part["ci_low"].to_numpy()) <= tol)
        assert np.all(np.diff(part["ci_high"].to_numpy()) >= -tol)


def test_learner_rows_are_learner_pd_pfi_on_the_documented_streams():
    """Repetition 0 recomputed by hand from the documented seeding: simulate, make_split, learner_pd_pfi."""
    from xaipipe.data.simulated import feature_names, simulate
    from xaipipe.data.split import make_split
    from xaipipe.explain.learner import RefitDesign, estimator_factory, learner_pd_pfi

    cfg = {**TINY, "n_repetitions": 2, "rashomon_config": False}
    reps, _ = _audit(**cfg)
    child = np.random.SeedSequence(7).spawn(2)[1].spawn(2)[0]
    data_seed, split_seed, learner_seed = [int(v % 2**31) for v in child.generate_state(5)][:3]
    frame = simulate("friedman1", n=100, p=10, random_state=data_seed)
    names = feature_names(10)
    split = make_split(frame["y"].to_numpy(), "regression", test_size=0.2, n_folds=5, random_state=split_seed)
    tr = np.asarray(split["train"])
    res = learner_pd_pfi(
        estimator_factory("gradient_boosting", "regression", {"n_estimators": 5, "max_depth": 1}),
        frame[names].to_numpy()[tr],
        frame["y"].to_numpy()[tr],
        RefitDesign(n_refits=3, n_repeats=2, random_state=learner_seed, grids={"x1": [-0.5, 0.5], "x6": [-0.5, 0.5]}),
        feature_names=names,
        pd_features=["x1", "x6"],
    )
    r0 = reps[reps["repetition"] == 0]
    got = r0[r0["quantity"] == "learner_pd"]
    np.testing.assert_array_equal(got["estimate"], res.pd["mean"])
    np.testing.assert_array_equal(got["se"], res.pd["se"])
    np.testing.assert_array_equal(got["se_naive"], res.pd["se_naive"])
    got = r0[r0["quantity"] == "learner_mr_ratio"]
    np.testing.assert_array_equal(got["estimate"], res.pfi["mr_ratio_mean"])
    np.testing.assert_array_equal(got["se"], res.pfi["mr_ratio_se"])
    # and the corrected interval at the pipeline's 95 % is the table's
    t = stats.t.ppf(0.975, 2)
    np.testing.assert_allclose(got["estimate"] - t * got["se"], res.pfi["mr_ratio_ci_low"], rtol=0, atol=1e-12)


def test_learner_expected_value_of_ols_matches_closed_forms():
    """OLS on Friedman #1: x4 enters linearly (population slope 5), so the learner's expected PD of x4 is
    f*'s PD; x3 enters as 5 x3^2 (population slope 0), so its expected learner-PD is flat at E f*."""
    from xaipipe.data.simulated import get_dgp

    reps, _ = _audit(
        n=400,
        n_repetitions=2,
        learners={"linear_regression": {}},
        rashomon_config=False,
        random_state=3,
        learner_config={
            "n_refits": 2,
            "pd_features": ["x3", "x4"],
            "grid": [-0.8, 0.0, 0.8],
            "truth_fits": 60,
            "truth_eval_rows": 2000,
        },
    )
    pdl = reps[(reps["quantity"] == "learner_pd") & (reps["repetition"] == 0)]
    x4, x3 = pdl[pdl["feature"] == "x4"], pdl[pdl["feature"] == "x3"]
    assert (np.abs(x4["truth_learner"] - x4["truth"]) < 4 * x4["truth_learner_se"] + 0.02).all()
    mean_f = get_dgp("friedman1").mean()
    assert (np.abs(x3["truth_learner"] - mean_f) < 4 * x3["truth_learner_se"] + 0.02).all()
    # ... which is not f*'s PD of x3 (5 z^2 + const): the learner's bias, the gap between the two targets
    assert np.abs(x3["truth_learner"] - x3["truth"]).max() > 1.0
    mrd = reps[(reps["quantity"] == "learner_mr_difference") & (reps["repetition"] == 0)].set_index("feature")
    # OLS slope of x4 is 5: MR difference 2 * 25 * Var(X4) = 50/3 up to the slope's sampling variance
    assert abs(mrd.loc["x4", "truth_learner"] - 50 / 3) < 0.05 * 50 / 3
    assert abs(mrd.loc["x3", "truth_learner"]) < 0.2


# ----------------------------------------------------------------------------- arithmetic


def _learner_row(r, feature, z, estimate, se, se_naive, df, truth, truth_learner, quantity="learner_pd", active=True):
    return {
        "repetition": r,
        "n": 50,
        "quantity": quantity,
        "family": "fam",
        "scope": "",
        "epsilon_mode": "",
        "epsilon": np.nan,
        "feature": feature,
        "active": active,
        "grid_value": z,
        "estimate": estimate,
        "se": se,
        "se_naive": se_naive,
        "df": df,
        "ci_low": np.nan,
        "ci_high": np.nan,
        "population_low": np.nan,
        "population_high": np.nan,
        "n_members": np.nan,
        "truth": truth,
        "truth_learner": truth_learner,
        "truth_learner_se": 0.0,
    }


def _mcr_row(r, feature, lo, hi, truth, plo=np.nan, phi=np.nan, active=True, eps=1.0, scope="cross_family"):
    return {
        "repetition": r,
        "n": 50,
        "quantity": "mcr_ratio",
        "family": "",
        "scope": scope,
        "epsilon_mode": "se",
        "epsilon": eps,
        "feature": feature,
        "active": active,
        "grid_value": np.nan,
        "estimate": (lo + hi) / 2,
        "se": np.nan,
        "se_naive": np.nan,
        "df": np.nan,
        "ci_low": lo,
        "ci_high": hi,
        "population_low": plo,
        "population_high": phi,
        "n_members": 3,
        "truth": truth,
        "truth_learner": np.nan,
        "truth_learner_se": np.nan,
    }


def _one(cov, **where):
    sel = np.ones(len(cov), dtype=bool)
    for k, v in where.items():
        col = cov[k]
        sel &= col.isna().to_numpy() if (isinstance(v, float) and np.isnan(v)) else (col == v).to_numpy()
    assert sel.sum() == 1, where
    return cov[sel].iloc[0]


def test_interval_known_to_cover_or_miss_gives_one_or_zero():
    # estimate 0, se 1, df huge: the 95 % interval is +-1.96, the 80 % one +-1.28; the truth 1.5 is inside
    # the first only. The naive se 0.1 misses at both levels; the learner target 0.05 is inside all.
    reps = pd.DataFrame(
        [_learner_row(r, "x1", 0.0, 0.0, 1.0, 0.1, 10**9, 1.5, 0.05) for r in range(2)]
        + [
            _mcr_row(0, "x1", 1.0, 2.0, 1.5),
            _mcr_row(1, "x1", 1.0, 2.0, 2.0),
            _mcr_row(0, "x2", 1.0, 2.0, 2.5),
            _mcr_row(1, "x2", 1.0, 2.0, 0.5),
        ]
    )
    cov = coverage_table(reps, nominal=[0.8, 0.95])
    key = {"quantity": "learner_pd", "feature": "x1", "grid_value": np.nan}
    assert _one(cov, interval="corrected", target="f_star", nominal=0.95, **key)["coverage"] == 1.0
    assert _one(cov, interval="corrected", target="f_star", nominal=0.8, **key)["coverage"] == 0.0
    assert _one(cov, interval="naive", target="f_star", nominal=0.95, **key)["coverage"] == 0.0
    assert _one(cov, interval="naive", target="learner", nominal=0.8, **key)["coverage"] == 1.0
    row = _one(cov, interval="corrected", target="f_star", nominal=0.95, **key)
    assert row["coverage_se"] == 0.0 and row["n_repetitions"] == 2 and row["n_intervals"] == 2
    np.testing.assert_allclose(row["mean_width"], 2 * stats.t.ppf(0.975, 10**9))
    assert row["mean_error"] == -1.5
    # MCR: [1, 2] covers 1.5 and its end point 2 (closed interval), misses 2.5 and 0.5
    assert _one(cov, quantity="mcr_ratio", interval="mcr", feature="x1")["coverage"] == 1.0
    assert _one(cov, quantity="mcr_ratio", interval="mcr", feature="x2")["coverage"] == 0.0
    mcr_all = _one(cov, quantity="mcr_ratio", interval="mcr", feature="all")
    assert mcr_all["coverage"] == 0.5 and np.isnan(mcr_all["nominal"]) and mcr_all["target"] == "f_star"
    # no population interval given: no population rows
    assert not (cov["interval"] == "population_members").any()


def _hand_coverage(reps, R, select, lo_hi):
    """Coverage and its SE over repetitions, counted row by row."""
    shares = []
    for r in range(R):
        hits = total = 0
        for rec in reps.to_dict("records"):
            if rec["repetition"] != r or not select(rec):
                continue
            lo, hi, target = lo_hi(rec)
            hits += int(lo <= target <= hi)
            total += 1
        shares.append(hits / total)
    c = sum(shares) / R
    se = (sum((s - c) ** 2 for s in shares) / R) ** 0.5 / R**0.5
    return c, se


def test_coverage_arithmetic_against_hand_counts():
    rng = np.random.default_rng(5)
    R = 7
    rows = []
    for r in range(R):
        for f, active in (("x1", True), ("x2", True), ("x9", False)):
            for z in (-0.5, 0.0, 0.5):
                rows.append(
                    _learner_row(
                        r,
                        f,
                        z,
                        rng.normal(),
                        rng.uniform(0.2, 1.5),
                        rng.uniform(0.05, 0.5),
                        int(rng.integers(2, 12)),
                        rng.normal(),
                        rng.normal(),
                        active=active,
                    )
                )
        for f, active in (("x1", True), ("x9", False)):
            lo = rng.normal()
            hi = lo + rng.uniform(0, 2)
            rows.append(_mcr_row(r, f, lo, hi, rng.normal(0.5), lo - 0.3, hi + 0.3, active=active))
    reps = pd.DataFrame(rows)
    levels = [0.5, 0.9]
    cov = coverage_table(reps, nominal=levels)

    def hand(select, lo_hi):
        return _hand_coverage(reps, R, select, lo_hi)

    for c in levels:
        for interval, se_col in (("corrected", "se"), ("naive", "se_naive")):
            for target, t_col in (("f_star", "truth"), ("learner", "truth_learner")):

                def lo_hi(rec, c=c, se_col=se_col, t_col=t_col):
                    t = stats.t.ppf(0.5 + c / 2, rec["df"])
                    return rec["estimate"] - t * rec[se_col], rec["estimate"] + t * rec[se_col], rec[t_col]

                cases = {
                    ("x2", 0.0): lambda rec: rec["feature"] == "x2" and rec["grid_value"] == 0.0,
                    ("x1", np.nan): lambda rec: rec["feature"] == "x1",
                    ("active", np.nan): lambda rec: rec["active"],
                    ("irrelevant", np.nan): lambda rec: not rec["active"] and rec["quantity"] == "learner_pd",
                    ("all", np.nan): lambda rec: rec["quantity"] == "learner_pd",
                }
                for (feature, z), select in cases.items():

                    def sel(rec, select=select):
                        return rec["quantity"] == "learner_pd" and select(rec)

                    want_c, want_se = hand(sel, lo_hi)
                    got = _one(
                        cov,
                        quantity="learner_pd",
                        interval=interval,
                        target=target,
                        nominal=c,
                        feature=feature,
                        grid_value=z,
                    )
                    assert got["coverage"] == pytest.approx(want_c, abs=1e-12)
                    assert got["coverage_se"] == pytest.approx(want_se, abs=1e-12)
    for interval, cols in (
        ("mcr", ("ci_low", "ci_high")),
        ("population_members", ("population_low", "population_high")),
    ):
        for feature in ("x1", "x9", "all"):
            want_c, want_se = hand(
                lambda rec, f=feature: rec["quantity"] == "mcr_ratio" and f in ("all", rec["feature"]),
                lambda rec, cols=cols: (rec[cols[0]], rec[cols[1]], rec["truth"]),
            )
            got = _one(cov, quantity="mcr_ratio", interval=interval, feature=feature)
            assert got["coverage"] == pytest.approx(want_c, abs=1e-12)
            assert got["coverage_se"] == pytest.approx(want_se, abs=1e-12)
            if feature != "all":  # one interval per repetition: sqrt(c (1 - c) / R)
                assert got["coverage_se"] == pytest.approx(np.sqrt(want_c * (1 - want_c) / R), abs=1e-12)


def test_coverage_table_round_trips_through_csv(tiny_runs):
    (reps, cov), *_ = tiny_runs
    back = pd.read_csv(io.BytesIO(_csv(reps)))
    assert _csv(coverage_table(back)) == _csv(cov)


def test_bad_input_is_rejected():
    with pytest.raises(ValueError, match="unknown key"):
        _audit(learner_config={"n_refit": 3})
    with pytest.raises(ValueError, match="pd_features"):
        _audit(learner_config={"pd_features": ["x11"]})
    with pytest.raises(ValueError, match="unknown DGP"):
        _audit(dgp="friedman9")
    with pytest.raises(ValueError, match="n_repetitions"):
        _audit(n_repetitions=1)
    with pytest.raises(ValueError, match="lacks columns"):
        coverage_table(pd.DataFrame({"repetition": [0]}))
    with pytest.raises(ValueError, match="nominal"):
        coverage_table(pd.DataFrame(columns=REPETITION_COLUMNS), nominal=[1.0])
