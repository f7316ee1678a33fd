"""Paired bootstrap tests, test error, reject option and the squared-terms OLS comparison,
against their definitions: exhaustive enumeration of the bootstrap on a small case, the
closed-form ideal bootstrap standard error, scikit-learn's metrics, coverage and size
on simulated data with a known truth, rows in adversarial (sorted) order."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm
from sklearn import metrics as skm

from xaipipe.models.comparison import (
    COMPARISON_COLUMNS,
    TEST_LOSS_COLUMNS,
    aligned_predictions,
    bootstrap_differences,
    bootstrap_error_rate,
    bootstrap_loss_difference,
    compare_families,
    comparison_tables,
    error_rate_summary,
    loss_summary,
    paired_bootstrap_test,
    predicted_vs_observed,
    read_test_predictions,
    regression_summary,
    reject_option_curve,
    reject_option_curves,
    resample_test_rows,
    row_losses,
)
from xaipipe.models.metrics import classification_metrics


def ideal_se(d):
    """Ideal (B -> infinity) bootstrap standard error of mean(d): plug-in sd / sqrt(n)."""
    d = np.asarray(d, dtype=float)
    return np.sqrt(np.sum((d - d.mean()) ** 2)) / len(d)


# ----------------------------------------------------------------------------- row losses
def test_row_losses_average_to_scikit_learn_metrics():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 200)
    p = rng.uniform(size=200)
    p[:5] = [0.0, 1.0, 0.0, 1.0, 0.5]  # exact 0/1 probabilities: clipped as scikit-learn clips
    y[:4] = [1, 0, 0, 1]
    yhat = (p > 0.5).astype(int)
    assert row_losses(y, yhat, "error_rate").mean() == pytest.approx(1 - skm.accuracy_score(y, yhat), abs=0)
    ll = row_losses(y, p, "log_loss").mean()
    assert ll == pytest.approx(skm.log_loss(y, np.column_stack([1 - p, p])), rel=1e-12)
    assert ll == pytest.approx(classification_metrics(y, p)["log_loss"], rel=1e-12)
    np.testing.assert_array_equal(row_losses(y, np.column_stack([1 - p, p]), "log_loss"), row_losses(y, p, "log_loss"))
    t = rng.normal(size=50)
    f = t + rng.normal(size=50)
    assert row_losses(t, f, "mse").mean() == pytest.approx(skm.mean_squared_error(t, f), rel=1e-12)
    assert row_losses(t, f, "mae").mean() == pytest.approx(skm.mean_absolute_error(t, f), rel=1e-12)


def test_row_losses_reject_bad_input():
    with pytest.raises(ValueError, match="unknown loss"):
        row_losses([1, 0], [1, 0], "accuracy")
    with pytest.raises(ValueError, match="differ in length"):
        row_losses([1.0, 2.0], [1.0], "mse")
    with pytest.raises(ValueError, match="outside"):
        row_losses([1, 0], [1.2, 0.1], "log_loss")
    with pytest.raises(ValueError, match="0/1"):
        row_losses([2, 0], [0.3, 0.1], "log_loss")
    with pytest.raises(ValueError, match="NaN"):
        row_losses([1.0, np.nan], [1.0, 2.0], "mse")


# ----------------------------------------------------------------------------- paired test
def test_identical_predictions_give_zero_difference_and_zero_se():
    loss = np.random.default_rng(0).exponential(size=40)
    res = paired_bootstrap_test(loss, loss, n_bootstrap=200).iloc[0]
    assert res["difference"] == 0 and res["se"] == 0 and res["z"] == 0 and res["p_value"] == 1
    assert res["ci_low"] == 0 and res["ci_high"] == 0
    # A constant non-zero difference: no bootstrap variation, the normal approximation degenerates.
    res = paired_bootstrap_test(np.full(40, 2.0), np.full(40, 1.5), n_bootstrap=200).iloc[0]
    assert res["difference"] == 0.5 and res["se"] == 0
    assert res["z"] == np.inf and res["p_value"] == 0 and res["ci_low"] == res["ci_high"] == 0.5
    # compare_families: two families with the same predictions.
    t = pd.DataFrame({"row": np.arange(40), "y_true": np.arange(40) % 2, "proba_1": 0.7, "y_pred": 1})
    out = compare_families({"random_forest": t, "xgboost": t}, n_bootstrap=50)
    assert (out["difference"] == 0).all() and (out["se"] == 0).all() and (out["p_value"] == 1).all()


def test_bootstrap_se_equals_exact_enumeration_of_all_resamples():
    """n = 4: all 4**4 = 256 ordered resamples are equally likely; their distribution is the
    exact (ideal) bootstrap distribution. Its sd equals the closed form, and a large-B
    estimate converges to it."""
    a = np.array([3.0, 0.5, 2.0, 7.5])
    b = np.array([2.0, 1.0, 2.5, 4.0])
    d = a - b
    exact = np.array([d[list(s)].mean() for s in itertools.product(range(4), repeat=4)])
    assert exact.size == 256
    assert exact.mean() == pytest.approx(d.mean(), rel=1e-12)
    se_exact = exact.std()  # the full distribution: population sd
    assert se_exact == pytest.approx(ideal_se(d), rel=1e-12)
    # by hand: d = (1, -0.5, -0.5, 3.5), mean 0.875, squared deviations sum to 10.6875
    assert se_exact == pytest.approx(np.sqrt(10.6875 / 4 / 4), rel=1e-12)
    B = 200_000
    res = paired_bootstrap_test(a, b, n_bootstrap=B, random_state=3).iloc[0]
    # Monte-Carlo relative sd of an sd estimate ~ 1/sqrt(2B) = 0.16 %; allow 1 %.
    assert res["se"] == pytest.approx(se_exact, rel=0.01)
    # Percentile endpoints are quantiles of the exact (discrete) law: P(X < q) <= level <= P(X <= q).
    for q, level in ((res["ci_low"], 0.025), (res["ci_high"], 0.975)):
        assert np.mean(exact < q - 1e-12) <= level + 0.005
        assert np.mean(exact <= q + 1e-12) >= level - 0.005


def test_z_and_p_value_are_consistent_and_antisymmetric():
    rng = np.random.default_rng(5)
    a = rng.gamma(2.0, size=120)
    b = a + rng.normal(0.15, 0.5, size=120)
    r = paired_bootstrap_test(a, b, n_bootstrap=800, random_state=11).iloc[0]
    draws = bootstrap_loss_difference(a, b, n_bootstrap=800, random_state=11)
    assert r["difference"] == pytest.approx(a.mean() - b.mean(), rel=1e-12)
    assert r["mean_a"] - r["mean_b"] == pytest.approx(r["difference"], rel=1e-12)
    assert r["se"] == pytest.approx(np.std(draws, ddof=1), rel=1e-12)
    assert r["z"] == pytest.approx(r["difference"] / r["se"], rel=1e-12)
    assert r["p_value"] == pytest.approx(2 * norm.sf(abs(r["z"])), rel=1e-12)
    lo, hi = np.quantile(draws, [0.025, 0.975])
    assert (r["ci_low"], r["ci_high"]) == (pytest.approx(lo), pytest.approx(hi))
    # Swapping the models negates the difference, z and interval; se and p are unchanged.
    s = paired_bootstrap_test(b, a, n_bootstrap=800, random_state=11).iloc[0]
    assert s["difference"] == pytest.approx(-r["difference"]) and s["z"] == pytest.approx(-r["z"])
    assert s["se"] == pytest.approx(r["se"]) and s["p_value"] == pytest.approx(r["p_value"])
    assert s["ci_low"] == pytest.approx(-r["ci_high"]) and s["ci_high"] == pytest.approx(-r["ci_low"])


def test_seeded_runs_are_identical_and_seeds_differ():
    rng = np.random.default_rng(2)
    a, b = rng.normal(size=60), rng.normal(size=60)
    r1 = paired_bootstrap_test(a, b, n_bootstrap=300, random_state=7)
    r2 = paired_bootstrap_test(a, b, n_bootstrap=300, random_state=7)
    pd.testing.assert_frame_equal(r1, r2)
    r3 = paired_bootstrap_test(a, b, n_bootstrap=300, random_state=8)
    assert r3["se"].iloc[0] != r1["se"].iloc[0]
    np.testing.assert_array_equal(
        resample_test_rows(60, 300, 7), np.random.default_rng(7).integers(0, 60, size=(300, 60))
    )


def test_pairing_matters_when_losses_are_correlated():
    """Two models whose row losses share a large row effect: the paired SE (resampling the
    same rows for both) is far below the SE of two independent bootstraps."""
    rng = np.random.default_rng(4)
    n = 150
    row_effect = rng.exponential(5.0, size=n)  # hard rows are hard for both models
    a = row_effect + rng.normal(0, 0.3, size=n)
    b = row_effect + 0.1 + rng.normal(0, 0.3, size=n)
    B = 4000
    paired = paired_bootstrap_test(a, b, n_bootstrap=B, random_state=0).iloc[0]["se"]
    ia = resample_test_rows(n, B, 1)
    ib = resample_test_rows(n, B, 2)
    unpaired = np.std(a[ia].mean(axis=1) - b[ib].mean(axis=1), ddof=1)
    assert paired == pytest.approx(ideal_se(a - b), rel=0.05)
    assert unpaired == pytest.approx(np.sqrt(ideal_se(a) ** 2 + ideal_se(b) ** 2), rel=0.05)
    assert paired < 0.15 * unpaired


def test_sorted_rows_do_not_bias_the_bootstrap():
    """Row order is adversarial in UCI files; the row bootstrap is exchangeable, so losses
    sorted by size give the ideal SE like shuffled ones."""
    rng = np.random.default_rng(9)
    d = np.sort(rng.standard_t(4, size=200))
    zeros = np.zeros_like(d)
    for order in (np.arange(200), rng.permutation(200)):
        se = paired_bootstrap_test(d[order], zeros, n_bootstrap=20_000, random_state=1).iloc[0]["se"]
        assert se == pytest.approx(ideal_se(d), rel=0.02)


def test_interval_coverage_and_test_size_on_simulated_losses():
    """Known truth: row differences with mean delta. The 95 % percentile interval covers
    delta in about 95 % of samples; with delta = 0 the two-sided test rejects in about 5 %."""
    rng = np.random.default_rng(123)
    reps, n, B = 300, 80, 400
    cover = 0
    reject = 0
    for r in range(reps):
        base = rng.gamma(2.0, 1.0, size=n)
        a = base + rng.normal(0.3, 1.0, size=n)  # E[a - b] = 0.3
        b = base + rng.normal(0.0, 1.0, size=n)
        res = paired_bootstrap_test(a, b, n_bootstrap=B, random_state=r).iloc[0]
        cover += res["ci_low"] <= 0.3 <= res["ci_high"]
        null = paired_bootstrap_test(
            base + rng.normal(size=n), base + rng.normal(size=n), n_bootstrap=B, random_state=r
        ).iloc[0]
        reject += null["p_value"] < 0.05
    # binomial sd of a coverage over 300 samples ~ 0.013
    assert 0.90 <= cover / reps <= 0.985
    assert 0.015 <= reject / reps <= 0.10


# ----------------------------------------------------------------------------- test error
def test_error_rate_summary_binomial_se_and_bootstrap():
    y = np.array([0] * 60 + [1] * 54)
    yhat = y.copy()
    yhat[[3, 17, 70, 80, 100]] ^= 1  # 5 errors of 114, the seed's QDA count
    s = error_rate_summary(y, yhat, n_bootstrap=20_000, random_state=0).iloc[0]
    assert s["n_test"] == 114 and s["n_errors"] == 5
    assert s["error_rate"] == pytest.approx(5 / 114, abs=0)
    assert s["se_binomial"] == pytest.approx(np.sqrt(5 / 114 * 109 / 114 / 114), rel=1e-12)
    assert s["se_binomial"] == pytest.approx(0.0191797, rel=1e-5)
    # For 0/1 losses the binomial se IS the ideal bootstrap se; the draws converge to it.
    assert s["se_binomial"] == pytest.approx(ideal_se((y != yhat).astype(float)), rel=1e-12)
    assert s["se_bootstrap"] == pytest.approx(s["se_binomial"], rel=0.02)
    draws = bootstrap_error_rate(y, yhat, n_bootstrap=20_000, random_state=0)
    assert list(draws.columns) == ["bootstrap", "error_rate"] and len(draws) == 20_000
    assert np.allclose(draws["error_rate"] * 114, np.round(draws["error_rate"] * 114))  # multiples of 1/n
    assert s["se_bootstrap"] == pytest.approx(draws["error_rate"].std(ddof=1), rel=1e-12)
    with pytest.raises(ValueError, match="n_bootstrap"):
        error_rate_summary(y, yhat, n_bootstrap=1)
    with pytest.raises(ValueError, match="confidence"):
        error_rate_summary(y, yhat, confidence=95)


# ----------------------------------------------------------------------------- all pairs
def _family_tables(rng, n=90):
    rows = np.sort(rng.choice(500, size=n, replace=False))
    y = rng.integers(0, 2, n)
    out = {}
    for name, noise in (("qda", 0.8), ("gaussian_nb", 1.2), ("random_forest", 0.5)):
        logit = (2 * y - 1) * 2.0 + rng.normal(0, 2 * noise, n)
        p = 1 / (1 + np.exp(-logit))
        out[name] = pd.DataFrame({"row": rows, "y_true": y, "proba_1": p, "y_pred": (p > 0.5).astype(int)})
    return out


def test_compare_families_equals_pairwise_tests_and_ignores_row_order(tmp_path):
    rng = np.random.default_rng(0)
    tables = _family_tables(rng)
    paths = {}
    for f, t in tables.items():
        paths[f] = tmp_path / f"{f}_predictions.csv"
        t.sample(frac=1.0, random_state=1).to_csv(paths[f], index=False)  # files in another row order
    long = read_test_predictions(paths)
    assert list(long.columns) == ["family", "row", "y_true", "proba_1", "y_pred"]
    out = compare_families(long, dataset="breast_cancer", n_bootstrap=500, random_state=4)
    assert list(out.columns) == COMPARISON_COLUMNS
    assert len(out) == 3 * 2  # 3 pairs x (error_rate, log_loss)
    assert set(zip(out.family_a, out.family_b)) == {
        ("gaussian_nb", "qda"),
        ("gaussian_nb", "random_forest"),
        ("qda", "random_forest"),
    }
    for _, r in out.iterrows():
        ta, tb = tables[r.family_a], tables[r.family_b]
        col = "proba_1" if r.loss == "log_loss" else "y_pred"
        ref = paired_bootstrap_test(
            row_losses(ta.y_true, ta[col], r.loss),
            row_losses(tb.y_true, tb[col], r.loss),
            n_bootstrap=500,
            random_state=4,
        ).iloc[0]
        for c in ("mean_a", "mean_b", "difference", "se", "z", "p_value", "ci_low", "ci_high"):
            assert r[c] == pytest.approx(ref[c], rel=1e-12, abs=1e-15), c
    # Same result from the in-memory tables in their original order, and with a family fewer
    # the remaining pair is unchanged (one set of resamples for every pair).
    pd.testing.assert_frame_equal(
        out, compare_families(tables, dataset="breast_cancer", n_bootstrap=500, random_state=4)
    )
    two = compare_families(
        {k: tables[k] for k in ("qda", "gaussian_nb")}, dataset="breast_cancer", n_bootstrap=500, random_state=4
    )
    pd.testing.assert_frame_equal(
        two.reset_index(drop=True),
        out[(out.family_a == "gaussian_nb") & (out.family_b == "qda")].reset_index(drop=True),
    )


def test_compare_families_regression_and_errors(tmp_path):
    rng = np.random.default_rng(3)
    y = rng.normal(size=50)
    reg = {
        f: pd.DataFrame({"row": np.arange(50), "y_true": y, "y_pred": y + rng.normal(0, s, 50)})
        for f, s in (("linear_regression", 1.0), ("xgboost", 0.5))
    }
    out = compare_families(reg, n_bootstrap=100)
    assert out["loss"].tolist() == ["mse", "mae"] and (out["dataset"] == "").all()
    with pytest.raises(ValueError, match="does not apply"):
        compare_families(reg, losses=["log_loss"])
    bad = dict(reg, knn=reg["xgboost"].assign(row=np.arange(1, 51)))
    with pytest.raises(ValueError, match="different test rows"):
        compare_families(bad)
    bad = dict(reg, knn=reg["xgboost"].assign(y_true=y + 1))
    with pytest.raises(ValueError, match="disagree on y_true"):
        compare_families(bad)
    with pytest.raises(ValueError, match="at least two"):
        compare_families({"xgboost": reg["xgboost"]})
    dup = dict(reg, knn=pd.concat([reg["xgboost"], reg["xgboost"].head(1)]))
    with pytest.raises(ValueError, match="duplicated"):
        compare_families(dup)
    mixed = dict(reg, qda=reg["xgboost"].assign(proba_1=0.5))
    with pytest.raises(ValueError, match="mix classification"):
        compare_families(mixed)
    long = pd.concat([reg["xgboost"].assign(family="a", dataset="d1"), reg["xgboost"].assign(family="b", dataset="d2")])
    with pytest.raises(ValueError, match="several datasets"):
        compare_families(long)
    (tmp_path / "x.csv").write_text("row,y_true\n1,2\n")
    with pytest.raises(ValueError, match=r"x\.csv.*y_pred"):
        read_test_predictions({"x": tmp_path / "x.csv"})
    with pytest.raises(FileNotFoundError, match="missing.csv"):
        read_test_predictions({"x": tmp_path / "missing.csv"})


def test_draws_and_test_loss_summary_are_those_of_the_table():
    """The stored-figure draws reproduce the table's se exactly; the per-family test loss
    equals error_rate_summary for the 0-1 loss and sklearn's metrics for the means; files
    in another row order (sorted by the label: adversarial) give the same numbers."""
    rng = np.random.default_rng(8)
    tables = _family_tables(rng)
    shuffled = {f: t.sort_values("y_true", kind="stable") for f, t in tables.items()}
    pairs, loss = comparison_tables(shuffled, dataset="bc", n_bootstrap=300, random_state=5)
    pd.testing.assert_frame_equal(pairs, compare_families(tables, dataset="bc", n_bootstrap=300, random_state=5))
    assert list(loss.columns) == TEST_LOSS_COLUMNS and len(loss) == 3 * 2
    pd.testing.assert_frame_equal(loss, loss_summary(tables, dataset="bc", n_bootstrap=300, random_state=5))
    draws = bootstrap_differences(
        shuffled,
        loss="log_loss",
        pairs=[("gaussian_nb", "qda"), ("qda", "random_forest")],
        n_bootstrap=300,
        random_state=5,
    )
    assert list(draws.columns) == ["family_a", "family_b", "loss", "bootstrap", "difference"] and len(draws) == 600
    for (fa, fb), d in draws.groupby(["family_a", "family_b"]):
        row = pairs[(pairs.family_a == fa) & (pairs.family_b == fb) & (pairs.loss == "log_loss")].iloc[0]
        assert np.std(d["difference"], ddof=1) == row["se"]
        assert np.quantile(d["difference"].to_numpy(), [(1 - 0.95) / 2])[0] == row["ci_low"]
    for f, t in tables.items():
        err = loss[(loss.family == f) & (loss.loss == "error_rate")].iloc[0]
        ref = error_rate_summary(t.y_true, t.y_pred, n_bootstrap=300, random_state=5).iloc[0]
        for c in ("n_test", "se_binomial", "se_bootstrap", "ci_low", "ci_high"):
            assert err[c] == ref[c], c
        assert err["mean"] == ref["error_rate"]
        assert err["mean"] == pytest.approx(1 - skm.accuracy_score(t.y_true, t.y_pred), abs=1e-15)
        ll = loss[(loss.family == f) & (loss.loss == "log_loss")].iloc[0]
        assert ll["mean"] == pytest.approx(skm.log_loss(t.y_true, t.proba_1), rel=1e-12)
        assert np.isnan(ll["se_binomial"])
        single = bootstrap_differences(tables, loss="error_rate", families=[f], n_bootstrap=300, random_state=5)
        assert np.std(single["value"], ddof=1) == err["se_bootstrap"]
    with pytest.raises(ValueError, match="exactly one"):
        bootstrap_differences(tables, loss="error_rate")
    with pytest.raises(ValueError, match="knn"):
        bootstrap_differences(tables, loss="error_rate", pairs=[("knn", "qda")])
    one_pairs, one_loss = comparison_tables({"qda": tables["qda"]}, n_bootstrap=50)
    assert one_pairs.empty and list(one_pairs.columns) == COMPARISON_COLUMNS and len(one_loss) == 2


def test_reject_option_curves_of_every_family():
    rng = np.random.default_rng(9)
    tables = _family_tables(rng)
    curves = reject_option_curves(tables, risks=[0.0, 0.2, 0.5])
    assert list(curves.columns[:2]) == ["dataset", "family"] and len(curves) == 3 * 3
    for f, t in tables.items():
        ref = reject_option_curve(t.y_true, t.proba_1, risks=[0.0, 0.2, 0.5])
        pd.testing.assert_frame_equal(
            curves[curves.family == f].drop(columns=["dataset", "family"]).reset_index(drop=True), ref
        )
    with pytest.raises(ValueError, match="proba_1"):
        reject_option_curves({"a": tables["qda"].drop(columns="proba_1")})


# ----------------------------------------------------------------------------- reject option
def test_reject_option_against_brute_force_and_monotone_rejections():
    rng = np.random.default_rng(6)
    P = rng.dirichlet([0.6, 0.6, 0.6], size=300)
    y = np.array([rng.choice(3, p=p) for p in P])
    risks = np.linspace(0, 1, 51)
    curve = reject_option_curve(y, P, risks=risks, classes=[0, 1, 2])
    for _, r in curve.iterrows():
        acc = [i for i in range(300) if P[i].max() > 1 - r.risk]
        assert r.n_accepted == len(acc) and r.n_rejected == 300 - len(acc)
        if acc:
            assert r.error_accepted == pytest.approx(np.mean([np.argmax(P[i]) != y[i] for i in acc]))
        else:
            assert np.isnan(r.error_accepted)
    assert (np.diff(curve["n_rejected"]) <= 0).all()  # fewer rejections as the risk grows
    assert curve["n_rejected"].iloc[0] == 300  # lambda = 0: everything to the null action
    last = curve.iloc[-1]
    assert last.n_rejected == 0 and last.error_accepted == pytest.approx(np.mean(P.argmax(1) != y))
    assert curve["rejected_share"].tolist() == pytest.approx((curve["n_rejected"] / 300).tolist())


def test_reject_option_error_need_not_increase_and_ties_are_rejected():
    # Row 0: confident and wrong; row 1: less confident and right. Raising the risk from 0.15
    # to 0.25 accepts row 1 and *lowers* the error of the accepted rows (1.0 -> 0.5): the seed's
    # "the error increases with the risk" is a tendency, not a property.
    y = np.array([0, 1])
    p1 = np.array([0.9, 0.8])
    c = reject_option_curve(y, p1, risks=[0.15, 0.25])
    assert c["error_accepted"].tolist() == [1.0, 0.5]
    # Strict inequality: a posterior equal to 1 - lambda is rejected (the seed's `>`).
    c = reject_option_curve(np.array([1]), np.array([0.75]), risks=[0.25, 0.2500001])
    assert c["n_rejected"].tolist() == [1, 0]
    with pytest.raises(ValueError, match="risks"):
        reject_option_curve(y, p1, risks=[1.5])
    with pytest.raises(ValueError, match="shape"):
        reject_option_curve(y, np.ones((3, 2)) / 2)


# ----------------------------------------------------------------------------- regression
def test_predicted_vs_observed_and_summary():
    rng = np.random.default_rng(8)
    y = rng.normal(10, 3, 70)
    f = y + rng.normal(0, 1, 70)
    pts = predicted_vs_observed(y, f, row=np.arange(100, 170))
    assert list(pts.columns) == ["row", "y_true", "y_pred", "residual"]
    np.testing.assert_allclose(pts["residual"], y - f)
    s = regression_summary(y, f).iloc[0]
    assert s["r2"] == pytest.approx(skm.r2_score(y, f), rel=1e-12)
    assert s["rmse"] == pytest.approx(np.sqrt(skm.mean_squared_error(y, f)), rel=1e-12)
    assert s["n_test"] == 70


def test_aligned_predictions_sorts_each_family_by_row_and_infers_the_task():
    rng = np.random.default_rng(5)
    y = rng.normal(size=20)
    order = rng.permutation(20)  # adversarial row order: each family's table shuffled differently
    reg = {
        "xgboost": pd.DataFrame({"row": order, "y_true": y[order], "y_pred": y[order] + 1}),
        "linear_regression": pd.DataFrame({"row": np.arange(20), "y_true": y, "y_pred": y}),
    }
    dataset, task, families, per, losses = aligned_predictions(reg)
    assert (dataset, task, families, losses) == ("", "regression", ["linear_regression", "xgboost"], ("mse", "mae"))
    for f in families:
        np.testing.assert_array_equal(per[f]["row"], np.arange(20))
        np.testing.assert_array_equal(per[f]["y_true"], y)
    np.testing.assert_array_equal(per["xgboost"]["y_pred"], y + 1)
    with pytest.raises(ValueError, match="lack column 'y_pred'"):
        aligned_predictions({"xgboost": reg["xgboost"].drop(columns="y_pred")})
