"""Truth of the simulated DGPs against independent Monte Carlo and finite differences,
and the truth table built from the pipeline's own tables."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import pytest

from xaipipe.data.simulated import DGPS, Friedman1, feature_names, get_dgp, simulate
from xaipipe.studies.simulation import (
    QUANTITIES,
    TRUTH_COLUMNS,
    ice_derivative_truth,
    ice_truth,
    model_reliance_truth,
    partial_dependence_truth,
    truth_table,
)

GRID = np.array([-1.0, -0.55, 0.0, 0.3, 1.0])


@dataclass(frozen=True)
class _NoClosedForms(Friedman1):
    """Friedman #1 stripped of every closed form: exercises the Monte-Carlo / finite-difference paths."""

    name: str = "friedman1_numeric"

    def _gradient(self, X):
        raise NotImplementedError

    def _pd(self, j, z):
        raise NotImplementedError

    def _mr_difference(self, j):
        raise NotImplementedError


@pytest.mark.parametrize("name", sorted(DGPS))
def test_pd_closed_form_against_independent_monte_carlo(name):
    """PD(z) = E[f*(z, X_C)]: average f* over a fresh sample with x_j set to z."""
    dgp = get_dgp(name)
    truth = partial_dependence_truth(dgp, grid=GRID, p=10)
    assert (truth["method"] == "closed_form").all() and (truth["pd_se"] == 0).all()
    X = dgp.sample_X(np.random.default_rng(123), 100_000, 10)
    for (feature, z), row in truth.set_index(["feature", "grid_value"]).iterrows():
        j = int(feature[1:]) - 1
        Xz = X.copy()
        Xz[:, j] = z
        v = dgp.f(Xz)
        se = v.std(ddof=1) / np.sqrt(v.size)
        assert abs(row["pd"] - v.mean()) <= 4.5 * se + 1e-12, (feature, z)
        g = dgp.gradient(Xz)[:, j]
        gse = g.std(ddof=1) / np.sqrt(g.size)
        assert abs(row["d_pd"] - g.mean()) <= 4.5 * gse + 1e-12, (feature, z)


def test_module_monte_carlo_agrees_with_closed_form_and_reports_its_error():
    cf = partial_dependence_truth("friedman1", grid=GRID)
    mc = partial_dependence_truth("friedman1", grid=GRID, method="monte_carlo", n_mc=50_000, random_state=4)
    assert (mc["method"] == "monte_carlo").all() and (mc["n_mc"] == 50_000).all()
    z = np.abs(mc["pd"] - cf["pd"]) / mc["pd_se"].where(mc["pd_se"] > 0)
    assert z.max() < 4.5
    assert (np.abs(mc["d_pd"] - cf["d_pd"]) <= 4.5 * mc["d_pd_se"] + 1e-12).all()
    # its standard error is the spread of an independent replicate
    reps = [
        partial_dependence_truth("friedman1", ["x1"], [0.3], method="monte_carlo", n_mc=2000, random_state=s)[
            "pd"
        ].iloc[0]
        for s in range(40)
    ]
    se = partial_dependence_truth("friedman1", ["x1"], [0.3], method="monte_carlo", n_mc=2000)["pd_se"].iloc[0]
    assert 0.6 < np.std(reps, ddof=1) / se < 1.5


@pytest.mark.parametrize("name", sorted(DGPS))
def test_mr_truth_against_large_sample_e_switch_over_e_orig(name):
    """MR of f* from its definition on a fresh sample with noisy Y and a permuted column."""
    dgp = get_dgp(name)
    truth = model_reliance_truth(dgp, p=10, noise_sd=1.0).set_index("feature")
    rng = np.random.default_rng(99)
    n = 200_000
    X = dgp.sample_X(rng, n, 10)
    Y = dgp.f(X) + rng.standard_normal(n)
    b = (Y - dgp.f(X)) ** 2
    for j, feature in enumerate(feature_names(10)):
        Xs = X.copy()
        Xs[:, j] = X[rng.permutation(n), j]
        a = (Y - dgp.f(Xs)) ** 2
        ratio = a.mean() / b.mean()
        se_ratio = np.std(a - ratio * b, ddof=1) / np.sqrt(n) / b.mean()  # delta method
        se_diff = np.std(a - b, ddof=1) / np.sqrt(n)
        row = truth.loc[feature]
        assert abs(ratio - row["mr_ratio"]) <= 4.5 * se_ratio + 1e-12, feature
        assert abs((a.mean() - b.mean()) - row["mr_difference"]) <= 4.5 * se_diff + 1e-12, feature
        assert row["e_switch"] == pytest.approx(row["e_orig"] + row["mr_difference"])


def test_mr_monte_carlo_path_and_noise_scaling():
    cf = model_reliance_truth("friedman1", noise_sd=2.0)
    mc = model_reliance_truth("friedman1", noise_sd=2.0, method="monte_carlo", n_mc=100_000, random_state=3)
    assert (cf["e_orig"] == 4.0).all()
    active = mc["mr_difference_se"] > 0
    assert (np.abs(mc["mr_difference"] - cf["mr_difference"])[active] <= 4.5 * mc["mr_difference_se"][active]).all()
    np.testing.assert_allclose(cf["mr_ratio"], 1 + cf["mr_difference"] / 4.0)
    np.testing.assert_allclose(mc["mr_ratio_se"], mc["mr_difference_se"] / 4.0)
    with pytest.raises(ValueError, match="noise_sd must be > 0"):
        model_reliance_truth("friedman1", noise_sd=0.0)


@pytest.mark.parametrize("method", ["closed_form", "monte_carlo"])
def test_irrelevant_variables_have_constant_pd_and_mr_exactly_one(method):
    dgp = get_dgp("friedman1")
    pdt = partial_dependence_truth(dgp, ["x6", "x10"], GRID, p=12, method=method, n_mc=5000)
    for _, part in pdt.groupby("feature"):
        assert part["pd"].nunique() == 1 and (part["d_pd"] == 0).all()
    mr = model_reliance_truth(dgp, ["x6", "x7", "x12"], p=12, method=method, n_mc=5000)
    assert (mr["mr_ratio"] == 1.0).all() and (mr["mr_difference"] == 0.0).all()
    # while every active one has ratio > 1
    act = model_reliance_truth(dgp, feature_names(5), method=method, n_mc=5000)
    assert (act["mr_ratio"] > 1.5).all()


def test_goldstein_pd_hides_an_effect_that_mr_sees():
    pdt = partial_dependence_truth("goldstein2015", ["x2", "x3"], GRID)
    assert (pdt["pd"] == 0).all()
    mr = model_reliance_truth("goldstein2015", ["x2", "x3"]).set_index("feature")
    assert mr.loc["x2", "mr_difference"] == pytest.approx(50 / 3) and mr.loc["x3", "mr_ratio"] == pytest.approx(53 / 3)
    mc = partial_dependence_truth("goldstein2015", ["x2"], GRID, method="monte_carlo", n_mc=40_000)
    assert (np.abs(mc["pd"]) <= 4.5 * mc["pd_se"]).all()


@pytest.mark.parametrize("name", sorted(DGPS))
def test_ice_derivative_against_finite_differences(name):
    dgp = get_dgp(name)
    X = dgp.sample_X(np.random.default_rng(8), 40, 10)
    grid = np.array([-0.9, -0.35, 0.2, 0.75])  # away from Goldstein's jump at x3 = 0
    h = 1e-6
    for j in range(10):
        d = ice_derivative_truth(dgp, X, f"x{j + 1}", grid)
        fd = (ice_truth(dgp, X, j, grid + h) - ice_truth(dgp, X, j, grid - h)) / (2 * h)
        np.testing.assert_allclose(d, fd, rtol=1e-6, atol=1e-6)
        # at the rows themselves
        Xp, Xm = X.copy(), X.copy()
        Xp[:, j] += h
        Xm[:, j] -= h
        np.testing.assert_allclose(
            ice_derivative_truth(dgp, X, j), (dgp.f(Xp) - dgp.f(Xm)) / (2 * h), rtol=1e-6, atol=1e-6
        )


def test_ice_truth_is_f_star_along_each_row():
    dgp = get_dgp()
    X = dgp.sample_X(np.random.default_rng(0), 5, 10)
    curves = ice_truth(dgp, X, "x3", GRID)
    assert curves.shape == (5, GRID.size)
    for i in range(5):
        for k, z in enumerate(GRID):
            x = X[i].copy()
            x[2] = z
            assert curves[i, k] == dgp.f(x[None, :])[0]
    # their mean over many rows is the PD
    big = dgp.sample_X(np.random.default_rng(1), 50_000, 10)
    mean = ice_truth(dgp, big, "x1", GRID).mean(axis=0)
    np.testing.assert_allclose(mean, partial_dependence_truth(dgp, ["x1"], GRID)["pd"], atol=0.05)


def test_numeric_fallbacks_match_the_closed_forms():
    plain, numeric = get_dgp("friedman1"), _NoClosedForms()
    auto = partial_dependence_truth(numeric, ["x1", "x3"], GRID, n_mc=40_000)
    assert (auto["method"] == "monte_carlo").all()
    cf = partial_dependence_truth(plain, ["x1", "x3"], GRID)
    assert (np.abs(auto["pd"] - cf["pd"]) <= 4.5 * auto["pd_se"]).all()
    # central differences of f* in place of the analytic gradient
    X = plain.sample_X(np.random.default_rng(2), 30, 10)
    np.testing.assert_allclose(
        ice_derivative_truth(numeric, X, "x2", GRID), ice_derivative_truth(plain, X, "x2", GRID), rtol=1e-6, atol=1e-6
    )
    with pytest.raises(ValueError, match="no closed-form PD"):
        partial_dependence_truth(numeric, ["x1"], GRID, method="closed_form")
    with pytest.raises(ValueError, match="no closed-form MR"):
        model_reliance_truth(numeric, ["x1"], method="closed_form")
    mr = model_reliance_truth(numeric, ["x1", "x8"], n_mc=20_000)
    # irrelevant variables are known to be irrelevant: D_j = 0 without Monte Carlo
    assert list(mr["method"]) == ["monte_carlo", "closed_form"] and mr["mr_ratio"].iloc[1] == 1.0


# ----------------------------------------------------------------------------- truth table
@pytest.fixture(scope="module")
def pipeline_tables():
    """The pipeline's own functions on a small simulated data set: MR, PD/ICE and learner tables."""
    from sklearn.ensemble import GradientBoostingRegressor

    from xaipipe.explain.learner import RefitDesign, learner_pd_pfi
    from xaipipe.explain.pdp import effects_table, explain_feature
    from xaipipe.explain.reliance import reliance_report
    from xaipipe.io import with_ids
    from xaipipe.studies.illustrations import simulated_split

    data = simulate(n=500, random_state=5)
    s = simulated_split(data, random_state=5)
    names = s["features"]
    model = GradientBoostingRegressor(n_estimators=100, max_depth=3, random_state=0).fit(s["X_train"], s["y_train"])
    rel = reliance_report(
        model, s["X_test"], s["y_test"], feature_names=names, estimators=("permutation", "e_switch"), n_repeats=5
    )
    effects = [
        explain_feature(model, s["X_test"], f, feature_names=names, resolution=8, row_ids=s["test"])
        for f in ("x4", "x1", "x9")
    ]
    curves = effects_table(effects, max_curves=30)
    learner = learner_pd_pfi(
        GradientBoostingRegressor(n_estimators=40, max_depth=3),
        s["X_train"],
        s["y_train"],
        RefitDesign(n_refits=3, resolution=6, n_repeats=2),
        feature_names=names,
        pd_features=["x4"],
    )
    ids = {"dataset": "simulated", "model": "gradient_boosting"}
    return {
        "data": data,
        "reliance": with_ids(rel, **ids),
        "curves": with_ids(curves, **ids),
        "learner_pd": with_ids(learner.pd, **ids),
        "learner_pfi": with_ids(learner.pfi, **ids),
    }


def test_truth_table_from_the_pipeline_tables(pipeline_tables):
    t = pipeline_tables
    other = t["reliance"].assign(dataset="airfoil")  # rows of another dataset are ignored
    table = truth_table(
        "friedman1",
        data=t["data"],
        reliance=pd.concat([t["reliance"], other]),
        curves=t["curves"],
        learner_pd=t["learner_pd"],
        learner_pfi=t["learner_pfi"],
    )
    assert list(table.columns) == TRUTH_COLUMNS
    assert set(table["quantity"]) == set(QUANTITIES)
    assert (table["dataset"] == "simulated").all() and (table["family"] == "gradient_boosting").all()
    np.testing.assert_array_equal(table["error"], table["estimate"] - table["truth"])
    mr = model_reliance_truth("friedman1").set_index("feature")

    rel = table[table["quantity"] == "mr_ratio"]
    assert len(rel) == 2 * 10 and set(rel["estimator"]) == {"permutation", "e_switch"}
    np.testing.assert_array_equal(rel["truth"], mr.loc[rel["feature"], "mr_ratio"])
    src = t["reliance"].set_index(["estimator", "feature"])
    np.testing.assert_array_equal(rel["estimate"], src.loc[list(zip(rel["estimator"], rel["feature"])), "mr_ratio"])
    e0 = table[table["quantity"] == "e_orig"]
    assert len(e0) == 2 and (e0["truth"] == 1.0).all() and (e0["feature"] == "").all()
    assert (e0["estimate"] > 1.0).all()  # the fitted model's test MSE exceeds the noise variance

    pdr = table[table["quantity"] == "pd"]
    src_pd = t["curves"][t["curves"]["kind"] == "pd"]
    assert len(pdr) == len(src_pd)
    for feature, part in pdr.groupby("feature"):
        np.testing.assert_array_equal(
            part["truth"], partial_dependence_truth("friedman1", [feature], part["grid_value"].to_numpy())["pd"]
        )
    # the comparison is aligned: a decent fit is close to the truth for the strongest variable
    assert pdr[pdr["feature"] == "x4"]["error"].abs().mean() < 1.0
    ice = table[table["quantity"] == "ice"]
    X = t["data"][feature_names(10)].to_numpy()
    for _, r in ice.sample(20, random_state=0).iterrows():
        x = X[int(r["row"])].copy()
        x[int(r["feature"][1:]) - 1] = r["grid_value"]
        assert r["truth"] == get_dgp().f(x[None, :])[0]
    dice = table[table["quantity"] == "d_ice"]
    assert (dice.loc[dice["feature"] == "x4", "truth"] == 5.0).all()
    assert (dice.loc[dice["feature"] == "x9", "truth"] == 0.0).all()

    lpd = table[table["quantity"] == "learner_pd"]
    np.testing.assert_array_equal(lpd["ci_low"], t["learner_pd"]["ci_low"])
    lpf = table[table["quantity"] == "learner_mr_difference"]
    np.testing.assert_array_equal(lpf["ci_high"], t["learner_pfi"]["mr_difference_ci_high"])
    np.testing.assert_array_equal(lpf["truth"], mr.loc[lpf["feature"], "mr_difference"])
    assert table[["estimate", "truth"]].notna().all().all()


def test_truth_table_looks_rows_up_by_identifier_not_position():
    """ICE rows refer to data rows by identifier: a table in reversed (adversarial) order gets the same truth."""
    data = simulate(n=60, random_state=1)
    rows = np.arange(60)[::-1]
    curves = pd.DataFrame(
        {
            "feature": "x1",
            "grid_value": np.tile([-0.5, 0.5], 60),
            "kind": "ice",
            "row": np.repeat(rows, 2),
            "value": 0.0,
        }
    )
    table = truth_table(data=data, curves=curves)
    prepared = data.assign(row_id=np.arange(60))[["row_id", *data.columns]]  # the prepared table works too
    pd.testing.assert_frame_equal(truth_table(data=prepared, curves=curves), table)
    X = data[feature_names(10)].to_numpy()
    expected = ice_truth("friedman1", X[rows], "x1", [-0.5, 0.5]).ravel()
    np.testing.assert_array_equal(table["truth"], expected)
    assert (table["row"].to_numpy() == np.repeat(rows, 2)).all()


def test_truth_table_rejects_bad_tables():
    data = simulate(n=20, random_state=1)
    with pytest.raises(ValueError, match="at least one"):
        truth_table(data=data)
    with pytest.raises(ValueError, match="reliance lacks columns"):
        truth_table(reliance=pd.DataFrame({"feature": ["x1"], "mr_ratio": [1.0]}))
    ice = pd.DataFrame({"feature": ["x1"], "grid_value": [0.0], "kind": ["ice"], "row": [3], "value": [1.0]})
    with pytest.raises(ValueError, match="pass data"):
        truth_table(curves=ice)
    with pytest.raises(ValueError, match="outside the data"):
        truth_table(data=data, curves=ice.assign(row=20))
    with pytest.raises(ValueError, match="feature must be"):
        truth_table(curves=ice.assign(feature="age", kind="pd"))
    with pytest.raises(ValueError, match="not an input"):
        truth_table(data=data, curves=ice.assign(feature="x11"))
