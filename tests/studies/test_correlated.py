"""xaipipe.studies.correlated: the correlated variant of a simulated data set; its conditional samplers
against their closed forms, the Monte-Carlo truth against analytic MR of known models, and the table."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from xaipipe.config import CorrelatedSettings
from xaipipe.data.simulated import get_dgp
from xaipipe.studies.correlated import _replace, _truth, correlated_sample, correlated_truth_table
from xaipipe.studies.simulation import TRUTH_COLUMNS

TAU = 0.1


def test_correlated_sample_couples_x2_to_x1_only():
    X = correlated_sample("friedman1", np.random.default_rng(0), 50_000, 5, TAU)
    r = np.corrcoef(X, rowvar=False)
    # r(x1, x2) = sd(x1) / sqrt(var(x1) + tau^2) with var(x1) = 1/3
    assert r[0, 1] == pytest.approx(np.sqrt((1 / 3) / (1 / 3 + TAU**2)), abs=2e-3)
    off = np.abs(r - np.diag(np.diag(r)))
    off[0, 1] = off[1, 0] = 0
    assert off.max() < 0.02
    assert np.std(X[:, 1] - X[:, 0]) == pytest.approx(TAU, rel=0.02)
    with pytest.raises(ValueError, match="coupling_sd"):
        correlated_sample("friedman1", np.random.default_rng(0), 5, 5, 0.0)


def test_conditional_samplers_match_their_closed_forms():
    model = get_dgp("friedman1")
    rng = np.random.default_rng(1)
    n = 40_000
    X = correlated_sample(model, rng, n, 5, TAU)
    # x2 | x1 ~ N(x1, tau^2)
    Z = _replace(model, X, [1], "conditional", rng, TAU)
    resid = Z[:, 1] - X[:, 0]
    assert stats.kstest(resid / TAU, "norm").pvalue > 1e-3
    # x1 | x2: N(x2, tau^2) truncated to [-1, 1]: the probability integral transform with that
    # distribution's CDF is uniform (near the edges the truncation matters)
    Z = _replace(model, X, [0], "conditional", rng, TAU)
    assert Z[:, 0].min() >= -1 and Z[:, 0].max() <= 1
    a, b = (-1 - X[:, 1]) / TAU, (1 - X[:, 1]) / TAU
    u = stats.truncnorm.cdf(Z[:, 0], a, b, loc=X[:, 1], scale=TAU)
    assert stats.kstest(u, "uniform").pvalue > 1e-3
    edge = np.abs(X[:, 1]) > 0.95
    assert edge.sum() > 500 and stats.kstest(u[edge], "uniform").pvalue > 1e-3
    # ... and an untruncated normal would not be: its PIT at the edge rows is far from uniform
    assert stats.kstest(stats.norm.cdf(Z[edge, 0], loc=X[edge, 1], scale=TAU), "uniform").pvalue < 1e-6
    # a variable independent of the rest: its marginal; the other columns untouched
    Z = _replace(model, X, [3], "conditional", rng, TAU)
    np.testing.assert_array_equal(np.delete(Z, 3, axis=1), np.delete(X, 3, axis=1))
    assert stats.kstest(Z[:, 3], "uniform", args=(-1, 2)).pvalue > 1e-3


def test_monte_carlo_truth_against_analytic_mr_of_a_linear_model():
    # f* = f_hat = c * x2 (no model error): D_marginal(x2) = 2 c^2 Var(x2) = 2 c^2 (1/3 + tau^2),
    # D_conditional(x2) = c^2 E[(x2 - x2~)^2 | x1] = 2 c^2 tau^2
    model = get_dgp("friedman1")
    rng = np.random.default_rng(2)
    c = 3.0
    X = correlated_sample(model, rng, 200_000, 5, TAU)

    def fhat(A):
        return c * A[:, 1]

    f_star = fhat(X)
    resid2 = np.zeros(len(X))
    t_m, s_m = _truth(model, fhat, X, f_star, resid2, [1], "marginal", rng, TAU)
    t_c, s_c = _truth(model, fhat, X, f_star, resid2, [1], "conditional", rng, TAU)
    assert t_m == pytest.approx(2 * c**2 * (1 / 3 + TAU**2), abs=4 * s_m)
    assert t_c == pytest.approx(2 * c**2 * TAU**2, abs=4 * s_c)
    # the joint marginal of (x1, x2) for a model of x2 alone is its marginal
    t_g, s_g = _truth(model, fhat, X, f_star, resid2, [0, 1], "marginal", rng, TAU)
    assert t_g == pytest.approx(2 * c**2 * (1 / 3 + TAU**2), abs=4 * s_g)


@pytest.fixture(scope="module")
def table():
    settings = CorrelatedSettings(seed=3, n_repeats=10, n=1500, n_mc=4000)
    return correlated_truth_table(
        {"dgp": "friedman1", "p": 6, "noise_sd": 1.0},
        settings,
        dataset="sim",
        best_params={"linear_regression": {}, "gradient_boosting": {"n_estimators": 100, "learning_rate": 0.1}},
    )


def test_correlated_truth_table_rows(table):
    assert list(table.columns) == TRUTH_COLUMNS
    assert (table["dataset"] == "sim_correlated").all() and (table["source"] == "correlated_variant").all()
    lr = table[table.family == "linear_regression"]
    assert lr[lr.quantity == "e_orig"].shape[0] == 1
    per_feature = lr[lr.feature.isin([f"x{j}" for j in range(1, 7)])]
    assert len(per_feature) == 6 * 3
    assert set(zip(per_feature.quantity, per_feature.estimator)) == {
        ("mr_difference", "permutation"),
        ("conditional_mr_difference", "conditional_permutation"),
        ("conditional_mr_difference", "permutation"),
    }
    grouped = table[table.estimator == "grouped_permutation"]
    assert set(grouped["feature"]) == {"x1+x2"} and len(grouped) == 2  # one cluster, two families
    np.testing.assert_allclose(table["error"], table["estimate"] - table["truth"])
    assert (table["truth_se"] >= 0).all()


def test_conditional_estimate_is_near_the_conditional_truth_where_the_marginal_is_not(table):
    for family in ("linear_regression", "gradient_boosting"):
        part = table[(table.family == family) & (table.quantity == "conditional_mr_difference")]
        for feature in ("x1", "x2"):
            rows = part[part.feature == feature].set_index("estimator")
            truth = rows.loc["conditional_permutation", "truth"]
            cond = rows.loc["conditional_permutation", "estimate"]
            marg = rows.loc["permutation", "estimate"]
            if max(abs(marg - truth), abs(cond - truth)) < 0.2:
                continue  # the model barely uses this one of the pair: both are near 0
            assert abs(cond - truth) < 0.25 * abs(marg - truth), (family, feature)
    # the marginal estimate is near its own (marginal) truth for an independent variable of the model
    gb = table[(table.family == "gradient_boosting") & (table.quantity == "mr_difference") & (table.feature == "x4")]
    assert gb["estimate"].iloc[0] == pytest.approx(gb["truth"].iloc[0], rel=0.25)
