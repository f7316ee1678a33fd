"""The twins (xaipipe.studies.twin, twin_truth, twin_audit, twin_table): a linear f* whose MR, PD, ALE
and SHAP truths are closed form, truths equal to brute force on tiny tables, the OLS interval hitting
its nominal level, the coverage table against a hand count, replicates that do not depend on the
sharding -- every table with its rows sorted by a feature (as the UCI files are)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from xaipipe.config import TwinSettings
from xaipipe.studies.twin import build_twin, linear_twin, twin_ale_truth, twin_mr_truth, twin_pd_truth, twin_shap_truth
from xaipipe.studies.twin_audit import _sanity_rows, audit_shard, replicate_rows
from xaipipe.studies.twin_table import coverage_phrase, twin_coverage, twin_coverage_tables
from xaipipe.studies.twin_truth import TwinDesign, TwinTruths, prepare_twin, reference_family, twin_truths

NAMES = ["a", "b", "c"]


def _table(n=60, seed=0, task="regression", sort=True):
    """Three numeric columns (b correlated with a), rows sorted by ``a`` (adversarial order)."""
    rng = np.random.default_rng(seed)
    a = rng.uniform(-1, 1, n)
    b = 0.6 * a + 0.4 * rng.uniform(-1, 1, n)
    c = rng.normal(size=n)
    X = np.column_stack([a, b, c])
    if sort:
        X = X[np.argsort(X[:, 0])]
    if task == "regression":
        y = 1.5 * X[:, 0] - 2.0 * X[:, 1] + 0.5 * X[:, 2] + 0.3 * rng.normal(size=n)
    else:
        y = (X[:, 0] - X[:, 2] + 0.5 * rng.normal(size=n) > 0).astype(int)
    k = int(0.8 * n)
    return SimpleNamespace(
        X_train=X[:k], X_test=X[k:], y_train=y[:k], y_test=y[k:], task=task, features=list(NAMES),
        feature_groups={}, classes=None, dataset="toy",
    )  # fmt: skip


def test_a_linear_twin_s_truths_are_closed_form():
    data = _table(n=80)
    twin = build_twin(data, "linear_regression", seed=0)
    X = twin.X
    beta = twin.f_star.coef_ if hasattr(twin.f_star, "coef_") else twin.f_star.steps[-1][1].coef_
    sigma2 = twin.noise_variance
    # MR: e_switch - e_orig = E[(b_j (x_j - x'_j))^2] = 2 b_j^2 Var(x_j) over the empirical rows (exact pairs)
    mr = twin_mr_truth(twin, losses=["squared_error"], max_pairs=10**6).set_index("feature")
    assert (mr["method"] == "exact").all()
    for j, f in enumerate(NAMES):
        d = 2 * beta[j] ** 2 * X[:, j].var()
        assert mr.loc[f, "mr_difference"] == pytest.approx(d, rel=1e-9)
        assert mr.loc[f, "mr_ratio"] == pytest.approx(1 + d / sigma2, rel=1e-9)
    # PD: b_j z + the mean of the rest
    grid = [-0.5, 0.0, 0.5]
    pdt = twin_pd_truth(twin, {"a": grid})
    rest = twin.f_star.predict(X).mean() - beta[0] * X[:, 0].mean()
    np.testing.assert_allclose(pdt["pd"], rest + beta[0] * np.array(grid), rtol=0, atol=1e-9)
    # ALE: its increments are b_j times the edges' increments
    edges = [-1.0, -0.5, 0.0, 0.5, 1.0]
    ale = twin_ale_truth(twin, {"a": edges})["ale"].to_numpy()
    np.testing.assert_allclose(np.diff(ale), beta[0] * np.diff(edges), rtol=0, atol=1e-9)
    # SHAP: Linear SHAP on a background of every row is b_j (x_j - mean x_j)
    shap = twin_shap_truth(twin).set_index("feature")["mean_abs_shap"]
    for j, f in enumerate(NAMES):
        assert shap[f] == pytest.approx(np.abs(beta[j] * (X[:, j] - X[:, j].mean())).mean(), rel=1e-6)


def test_mr_truth_equals_brute_force_on_a_tiny_table():
    data = _table(n=25, seed=3)
    twin = build_twin(data, "gradient_boosting", {"n_estimators": 20, "learning_rate": 0.1}, seed=0)
    mr = twin_mr_truth(twin, losses=["squared_error"]).set_index("feature")
    X, f = twin.X, twin.f_star.predict
    for j, name in enumerate(NAMES):
        total = 0.0
        for i in range(len(X)):
            for d in range(len(X)):
                z = X[i].copy()
                z[j] = X[d, j]
                total += (f(X[i : i + 1])[0] - f(z[None])[0]) ** 2 + twin.noise_variance
        assert mr.loc[name, "e_switch"] == pytest.approx(total / len(X) ** 2, rel=1e-10)
    # Monte Carlo on fewer pairs: within 4 of its own SEs
    mc = twin_mr_truth(twin, losses=["squared_error"], max_pairs=400, random_state=1).set_index("feature")
    assert (mc["method"] == "monte_carlo").all()
    assert (np.abs(mc["mr_difference"] - mr["mr_difference"]) <= 4 * mc["mr_difference_se"]).all()


def test_a_classification_twin_s_log_loss_is_the_exact_expectation_over_y():
    data = _table(n=20, seed=4, task="classification")
    twin = build_twin(data, "logistic_regression", {"C": 1.0}, seed=0)
    mr = twin_mr_truth(twin, losses=["log_loss", "zero_one"]).set_index(["loss", "feature"])
    P = twin.mean(twin.X)
    eps = np.finfo(float).eps
    for j, name in enumerate(NAMES):
        ll, zo = 0.0, 0.0
        for i in range(len(P)):
            for d in range(len(P)):
                z = twin.X[i].copy()
                z[j] = twin.X[d, j]
                q = twin.mean(z[None])[0]
                ll += -(P[i] * np.log(np.clip(q, eps, 1 - eps))).sum()
                zo += 1 - P[i][np.argmax(q)]
        assert mr.loc[("log_loss", name), "e_switch"] == pytest.approx(ll / len(P) ** 2, rel=1e-10)
        assert mr.loc[("zero_one", name), "e_switch"] == pytest.approx(zo / len(P) ** 2, rel=1e-10)
    # the planted labels follow p*: the share of ones at a row with p* = 0.8 is 0.8
    rng = np.random.default_rng(0)
    row = np.repeat(twin.X[:1], 20000, axis=0)
    y = twin.response(rng, row)
    assert y.mean() == pytest.approx(P[0, 1], abs=4 * np.sqrt(P[0, 1] * P[0, 0] / 20000))


def test_a_replicate_draws_rows_of_the_table_and_centred_noise():
    data = _table(n=50)
    twin = build_twin(data, "linear_regression", seed=0)
    assert abs(twin.noise.mean()) < 1e-12  # the residual pool is centred: f* is E[Y | X]
    X, y = twin.sample(np.random.default_rng(1), 5000)
    rows = {tuple(r) for r in twin.X}
    assert all(tuple(r) in rows for r in X[:200])
    assert np.mean(y - twin.mean(X)) == pytest.approx(0.0, abs=4 * np.sqrt(twin.noise_variance / 5000))


def test_ols_intervals_on_the_linear_twin_hit_their_nominal_level():
    """The sanity row: y = X b + e with e drawn from the OLS residuals (not Gaussian), rows sorted."""
    data = _table(n=120, seed=5)
    base = build_twin(data, "linear_regression", seed=0)
    sanity = linear_twin(base, data)
    design = SimpleNamespace(n=120)
    rows = [row for r in range(300) for row in _sanity_rows(r, sanity, design, 1000 + r)]
    table = pd.DataFrame(rows)
    covered = (table["ci_low"] <= table["claimed"]) & (table["claimed"] <= table["ci_high"])
    per_rep = covered.groupby(table["repetition"]).mean()
    se = per_rep.std(ddof=0) / np.sqrt(len(per_rep))
    assert abs(per_rep.mean() - 0.95) <= 3 * se + 0.005


def _design(**over) -> TwinDesign:
    base = dict(
        n=60,
        test_size=0.2,
        cv_folds=3,
        n_repetitions=4,
        seed=7,
        learners={"gradient_boosting": {"n_estimators": 10, "learning_rate": 0.1}},
        model=("gradient_boosting", {"n_estimators": 10, "learning_rate": 0.1}),
        learner={
            "n_refits": 3,
            "fraction": 0.632,
            "pfi_estimator": "permutation",
            "n_repeats": 2,
            "effects": [],
            "shap_max_rows": 20,
            "truth_fits": 3,
            "truth_eval_rows": 100,
            "grids": {"a": [-0.5, 0.0, 0.5]},
            "ale_edges": {},
            "pd_class_index": 1,
        },
        reliance={
            "estimators": ["permutation", "e_divide"],
            "losses": ["squared_error"],
            "n_repeats": 5,
            "e_switch_max_rows": None,
        },
        comparison={"n_bootstrap": 50, "confidence": 0.95},
        mcr=None,
        sanity=False,
    )
    return TwinDesign(**{**base, **over})


def test_replicates_do_not_depend_on_the_sharding():
    data = _table(n=60)
    twin = build_twin(data, "linear_regression", seed=0)
    bundle = SimpleNamespace(twin=twin, design=_design(), sanity=None)
    whole = audit_shard(bundle, 0, 1)
    parts = pd.concat([audit_shard(bundle, k, 2) for k in range(2)]).sort_values("repetition", kind="stable")
    pd.testing.assert_frame_equal(whole.reset_index(drop=True), parts.reset_index(drop=True))
    assert set(whole["kind"]) == {"learner", "mr", "test_loss"}
    # e_divide's estimate sits within a few of its (exact Monte-Carlo) SEs of the exact value it claims
    # (the permutation estimator's sd / sqrt(R) with R = 5 need not: the audit measures how often)
    mr = whole[(whole["kind"] == "mr") & (whole["estimator"] == "e_divide")]
    assert (np.abs(mr["estimate"] - mr["claimed"]) <= 6 * mr["se"] + 1e-12).all()


def test_the_coverage_table_against_a_hand_count():
    reps = pd.DataFrame(
        {
            "dataset": "toy",
            "repetition": [0, 0, 1, 1],
            "kind": "mr",
            "quantity": "mr_difference",
            "family": "f",
            "estimator": "permutation",
            "loss": "squared_error",
            "scope": "",
            "epsilon": np.nan,
            "feature": ["a", "b", "a", "b"],
            "grid_value": np.nan,
            "estimate": [0.0, 0.0, 0.0, 0.0],
            "se": [1.0, 1.0, 1.0, 1.0],
            "se_naive": np.nan,
            "df": np.inf,
            "ci_low": np.nan,
            "ci_high": np.nan,
            "level": np.nan,
            "claimed": [0.5, 3.0, 0.5, 0.5],
            "claimed_se": 0.0,
            "planted": np.nan,
            "planted_se": np.nan,
        }
    )
    cov = twin_coverage(reps, nominal=[0.95])
    row = cov[(cov["feature"] == "all") & (cov["target"] == "claimed")].iloc[0]
    # replicate 0 covers 1 of 2, replicate 1 covers 2 of 2: mean 0.75, SE sd([0.5, 1]) / sqrt(2)
    assert row["coverage"] == pytest.approx(0.75) and row["coverage_se"] == pytest.approx(0.25 / np.sqrt(2))
    assert row["mean_width"] == pytest.approx(2 * 1.959963984540054)
    assert coverage_phrase(cov, "toy", "mr", quantity="mr_difference") == (
        "covers 0.75 ± 0.18 of the truth on the twin of toy at nominal 0.95"
    )
    assert coverage_phrase(None, "toy", "mr") == "coverage not measured"
    assert coverage_phrase(cov, "other", "mr") == "coverage not measured"


def test_truths_join_the_replicates_and_the_learner_target_is_its_expectation():
    data = _table(n=60)
    twin = build_twin(data, "linear_regression", seed=0)
    design = _design(n_repetitions=2)
    bundle = SimpleNamespace(twin=twin, design=design, sanity=None)
    truths = twin_truths(bundle)
    assert isinstance(truths, TwinTruths)
    out = twin_coverage_tables([audit_shard(bundle, 0, 1)], truths.f_star, truths.learner, nominal=[0.9])
    learner = out.repetitions[out.repetitions["kind"] == "learner"]
    assert learner["claimed"].notna().all() and learner["planted"].notna().all()
    mr = out.repetitions[out.repetitions["kind"] == "mr"]
    assert mr["planted"].notna().all()
    assert set(out.coverage["target"]) == {"claimed", "planted"}


def test_the_twin_rule_picks_the_reference_and_caps_the_ensembles():
    best = {
        "linear_regression": {"cv_mean": 2.0, "params": {}},
        "gradient_boosting": {"cv_mean": 1.5, "params": {"n_estimators": 900, "learning_rate": 0.1}},
        "decision_tree": {"cv_mean": float("nan"), "params": {}},
    }
    assert reference_family(best) == "gradient_boosting"
    settings = TwinSettings(max_estimators=20, n_repetitions=3, mcr=False, sanity=True)
    bundle = prepare_twin(_table(n=60), settings, best, None)
    assert bundle.twin.family == "gradient_boosting" and bundle.twin.params["n_estimators"] == 20
    assert bundle.design.model == ("gradient_boosting", {"n_estimators": 20, "learning_rate": 0.1})
    assert list(bundle.design.learner["grids"]) == ["a", "b"] and bundle.sanity is not None
    assert TwinDesign.from_dict(bundle.design.to_dict()) == bundle.design
    with pytest.raises(ValueError, match="twins.f_star: 'knn' is not a family of dataset toy"):
        prepare_twin(_table(n=60), TwinSettings(f_star="knn", task="classification"), best, None)
    rows = replicate_rows(bundle.twin, bundle.design, 0, bundle.sanity)
    assert {"learner", "mr", "test_loss", "ols"} <= {r["kind"] for r in rows}


def test_captions_and_the_explorer_show_coverage_only_where_the_audit_ran():
    from xaipipe.report.explorer.page import with_notes
    from xaipipe.studies.twin_table import explorer_coverage_lines, learner_captions

    rows = []
    for target, cov in (("claimed", 0.93), ("planted", 0.61)):
        rows.append(
            {"dataset": "toy", "kind": "learner", "quantity": "pd", "family": "gradient_boosting", "estimator": "permutation",
             "loss": "squared_error", "scope": "", "epsilon": np.nan, "feature": "all", "interval": "corrected",
             "target": target, "nominal": 0.95, "coverage": cov, "coverage_se": 0.02, "mean_width": 1.0,
             "mean_error": 0.0, "truth_se_ratio": 0.01, "n_intervals": 100, "n_repetitions": 100}
        )  # fmt: skip
    table = pd.DataFrame(rows)
    assert learner_captions(None, "toy", "gradient_boosting") == {}
    caps = learner_captions(table, "toy", "gradient_boosting")
    assert caps["learner_pd"] == (
        "corrected 95 % interval: covers 0.93 ± 0.02 of the learner's expectation, 0.61 ± 0.02 of f*'s value (twin of toy)"
    )
    assert caps["learner_ale"] == "coverage on the twin of toy: not measured"
    lines = explorer_coverage_lines(table, "toy", epsilon=1.0)
    assert lines == [
        "learner-PD, corrected: covers 0.93 ± 0.02 of the learner's expectation on the twin of toy at nominal 0.95; of f*'s value: 0.61 ± 0.02"
    ]
    assert explorer_coverage_lines(None, "toy", epsilon=1.0) == []
    page = '<body>\n<div id="explorer"></div>\n</body>'
    shown = with_notes(page, {"toy": lines})
    assert (
        shown.count('id="twin-notes"') == 1
        and "0.93 ± 0.02" in shown
        and shown.endswith('<div id="explorer"></div>\n</body>')
    )


def test_the_calibrated_learner_interval_reaches_its_level_out_of_sample():
    """A corrected interval whose SE is half the estimator's spread covers ~0.74 at nominal 0.95
    (|N(0, 4)| < t_9 = 2.26); the interval calibrated on the twin (Loh 1987: estimate ± q se, q the
    twin's 0.95 quantile of |error| / se, taken from the other half of the replicates) covers 0.95
    within its Monte-Carlo SE, and q is 2 x 1.96."""
    from scipy import stats

    from xaipipe.studies.twin_table import calibrated_multiplier, learner_captions

    rng = np.random.default_rng(0)
    n_rep, n_grid = 400, 5
    rep = np.repeat(np.arange(n_rep), n_grid)
    se = rng.uniform(0.5, 1.5, rep.size)
    truth = np.tile(np.linspace(-1, 1, n_grid), n_rep)
    reps = pd.DataFrame(
        {
            "dataset": "toy", "repetition": rep, "kind": "learner", "quantity": "pd", "family": "gradient_boosting",
            "estimator": "", "loss": "", "scope": "", "epsilon": np.nan, "feature": "x",
            "grid_value": np.tile(np.arange(n_grid, dtype=float), n_rep),
            "estimate": truth + rng.normal(size=rep.size) * 2 * se, "se": se, "se_naive": se / 3, "df": 9.0,
            "ci_low": np.nan, "ci_high": np.nan, "level": np.nan, "claimed": truth, "claimed_se": 0.0,
            "planted": np.nan, "planted_se": np.nan,
        }
    )  # fmt: skip
    cov = twin_coverage(reps, nominal=[0.9, 0.95])
    at = cov[(cov.feature == "all") & (cov.target == "claimed") & np.isclose(cov.nominal, 0.95)].set_index("interval")
    expected = 2 * stats.norm.cdf(stats.t.ppf(0.975, 9) / 2) - 1  # 0.74
    assert abs(at.loc["corrected", "coverage"] - expected) < 3 * at.loc["corrected", "coverage_se"]
    assert abs(at.loc["calibrated", "coverage"] - 0.95) < 3 * at.loc["calibrated", "coverage_se"]
    assert at.loc["calibrated", "multiplier"] == pytest.approx(2 * 1.959964, rel=0.05)
    assert np.isnan(at.loc["corrected", "multiplier"])
    z = np.abs(reps["estimate"] - reps["claimed"]) / reps["se"]
    assert at.loc["calibrated", "multiplier"] == calibrated_multiplier(z, 0.95)
    # out of sample: each half's multiplier comes from the other half (an odd replicate from the even ones)
    odd = rep % 2 == 1
    q = np.where(odd, calibrated_multiplier(z[~odd], 0.95), calibrated_multiplier(z[odd], 0.95))
    per_rep = pd.Series(z <= q).groupby(rep).mean()
    assert at.loc["calibrated", "coverage"] == pytest.approx(per_rep.mean(), abs=1e-12)
    caption = learner_captions(cov, "toy", "gradient_boosting")["learner_pd"]
    q, c, s = at.loc["calibrated", ["multiplier", "coverage", "coverage_se"]]
    assert caption.endswith(f"; calibrated on the twin: estimate ± {q:.2f} se covers {c:.2f} ± {s:.2f} (out of sample)")


def test_the_mr_and_test_loss_intervals_are_calibrated_per_estimator_and_loss():
    """The repair of the MR and test-loss intervals (CALIBRATED_KINDS): each (estimator, loss) gets
    its own multiplier. A permutation MR under squared error whose SE is right keeps q ~ 1.96; under
    zero-one loss, whose SE is half the spread (the lattice of a 0-1 loss), q ~ 2 x 1.96, and both
    calibrated intervals cover 0.95 within MC error; the explorer line says so."""
    from xaipipe.studies.twin_table import CALIBRATED_KINDS, explorer_coverage_lines

    assert {"mr", "test_loss"} <= set(CALIBRATED_KINDS)
    rng = np.random.default_rng(1)
    n_rep, n_feat = 400, 4
    frames = []
    for kind, quantity, estimator, loss, spread, df in (
        ("mr", "mr_difference", "permutation", "squared_error", 1.0, np.inf),
        ("mr", "mr_difference", "permutation", "zero_one", 2.0, np.inf),
        ("test_loss", "test_loss", "", "squared_error", 3.0, np.inf),
    ):
        n_feat_k = n_feat if kind == "mr" else 1
        rep = np.repeat(np.arange(n_rep), n_feat_k)
        se = rng.uniform(0.5, 1.5, rep.size)
        truth = rng.normal(size=rep.size)
        est = truth + rng.normal(size=rep.size) * spread * se
        frames.append(
            pd.DataFrame(
                {
                    "dataset": "toy",
                    "repetition": rep,
                    "kind": kind,
                    "quantity": quantity,
                    "family": "xgboost",
                    "estimator": estimator,
                    "loss": loss,
                    "scope": "",
                    "epsilon": np.nan,
                    "feature": np.tile([f"x{j}" for j in range(n_feat_k)], n_rep),
                    "grid_value": np.nan,
                    "estimate": est,
                    "se": se,
                    "se_naive": np.nan,
                    "df": np.nan if not np.isfinite(df) else df,
                    "ci_low": est - 1.96 * se,
                    "ci_high": est + 1.96 * se,
                    "level": 0.95,
                    "claimed": truth,
                    "claimed_se": 0.0,
                    "planted": np.nan,
                    "planted_se": np.nan,
                }
            )  # fmt: skip
        )
    cov = twin_coverage(pd.concat(frames, ignore_index=True), nominal=[0.95])
    at = cov[(cov.feature == "all") & (cov.target == "claimed") & (cov.interval == "calibrated")]
    at = at.set_index(["kind", "loss"])
    for key, q_expected in (
        (("mr", "squared_error"), 1.96),
        (("mr", "zero_one"), 3.92),
        (("test_loss", "squared_error"), 5.88),
    ):
        row = at.loc[key]
        assert row["multiplier"] == pytest.approx(q_expected, rel=0.08), key
        assert abs(row["coverage"] - 0.95) < 3 * row["coverage_se"], key
    se_rows = cov[(cov.feature == "all") & (cov.interval == "se")].set_index(["kind", "loss"])
    assert se_rows.loc[("mr", "zero_one"), "coverage"] < 0.75  # what the repair repairs
    lines = explorer_coverage_lines(cov, "toy", epsilon=1.0)
    perm = next(line for line in lines if line.startswith("MR difference ± t SE, permutation"))
    q = at.loc[("mr", "squared_error"), "multiplier"]  # the first row: the explorer's MR line has no loss
    assert perm.endswith(
        f"calibrated on the twin: estimate ± {q:.2f} se covers {at.loc[('mr', 'squared_error'), 'coverage']:.2f} ± {at.loc[('mr', 'squared_error'), 'coverage_se']:.2f} (out of sample)"
    )
    loss_line = next(line for line in lines if line.startswith("test loss, bootstrap percentile"))
    assert "calibrated on the twin: estimate ± 5." in loss_line


def test_the_mr_figures_give_the_mr_intervals_coverage_on_the_twin():
    """reliance_captions: the MR figures' caption lines name the estimator, loss, quantile (t for
    permutation), the estimand and f*'s MR; the dependent-MR figure speaks of permutation whatever
    the ranking estimator; a family the audit did not explain names the audited one; the lines reach
    the figures' titles (plots.reliance.reliance_figures)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from xaipipe.plots.reliance import reliance_figures
    from xaipipe.studies.twin_table import reliance_captions

    rows = []
    for est, claimed, multiplier in (
        ("permutation", 0.95, np.nan),
        ("e_divide", 0.94, np.nan),
        ("e_divide", 0.95, 2.2),
    ):
        for target, cov in (("claimed", claimed), ("planted", 0.12)):
            interval = "calibrated" if np.isfinite(multiplier) else "se"
            if interval == "calibrated" and target == "planted":
                continue
            rows.append(
                {"dataset": "toy", "kind": "mr", "quantity": "mr_difference", "family": "xgboost", "estimator": est,
                 "loss": "squared_error", "scope": "", "epsilon": np.nan, "feature": "all", "interval": interval,
                 "target": target, "nominal": 0.95, "coverage": cov, "coverage_se": 0.01, "mean_width": 1.0,
                 "mean_error": 0.0, "truth_se_ratio": 0.0, "n_intervals": 100, "n_repetitions": 100,
                 "multiplier": multiplier}
            )  # fmt: skip
    table = pd.DataFrame(rows)
    assert (
        reliance_captions(None, "toy", "xgboost", estimator="e_divide", loss="squared_error", quantity="mr_difference")
        == {}
    )
    caps = reliance_captions(
        table, "toy", "xgboost", estimator="e_divide", loss="squared_error", quantity="mr_difference"
    )
    assert caps["model_reliance"] == (
        "± z SE (95 %, e_divide, squared_error): covers 0.94 ± 0.01 of the estimator's expectation, 0.12 ± 0.01 of "
        "f*'s MR (twin of toy, xgboost); calibrated on the twin: estimate ± 2.20 se covers 0.95 ± 0.01 (out of sample)"
    )
    assert caps["model_reliance_dependent"].startswith("± t SE (95 %, permutation, squared_error): covers 0.95 ± 0.01")
    other = reliance_captions(
        table, "toy", "random_forest", estimator="permutation", loss="squared_error", quantity="mr_difference"
    )
    assert other["model_reliance"].endswith("(measured on the twin of toy's xgboost)")
    assert (
        reliance_captions(table, "toy", "xgboost", estimator="permutation", loss="zero_one", quantity="mr_difference")[
            "model_reliance"
        ]
        == "coverage on the twin of toy: not measured (permutation, zero_one)"
    )
    mr = pd.DataFrame(
        {"feature": ["a", "b"], "estimator": "e_divide", "loss": "squared_error", "mr_difference": [0.5, 0.1],
         "mr_difference_se": [0.05, 0.02], "mr_ratio": [1.5, 1.1], "mr_ratio_se": [0.05, 0.02]}
    )  # fmt: skip
    gain = pd.DataFrame({"feature": ["a", "b"], "split_gain": [0.7, 0.3]})
    figs = reliance_figures(
        mr,
        gain,
        estimator="e_divide",
        loss="squared_error",
        quantity="mr_difference",
        title="toy / xgboost",
        coverage=caps,
    )
    try:
        import textwrap

        from xaipipe.plots._common import CAPTION_WIDTH

        shown = figs["model_reliance"].axes[0].get_title()
        head = "toy / xgboost: model reliance (e_divide, squared_error)"
        assert shown == head + "\n" + textwrap.fill(caps["model_reliance"], CAPTION_WIDTH, break_on_hyphens=False)
        assert max(len(line) for line in shown.splitlines()[1:]) <= CAPTION_WIDTH  # wrapped to the figure
        assert " ".join(shown.splitlines()[1:]) == caps["model_reliance"]  # every word kept
        split = figs["reliance_vs_split_gain"]._suptitle.get_text()
        assert " ".join(split.splitlines()[1:]) == caps["reliance_vs_split_gain"]
    finally:
        for fig in figs.values():
            plt.close(fig)


def test_the_calibrated_multiplier_is_the_conformal_order_statistic():
    """calibrated_multiplier: the ceil((m + 1) level)-th smallest of m values, so a new exchangeable
    value falls below it with probability >= level (split conformal), where np.quantile on 50
    values falls short; too few values (m < 19 at 0.95) give inf, no finite value NaN."""
    from xaipipe.studies.twin_table import calibrated_multiplier

    z = np.arange(1.0, 51.0)  # m = 50: rank ceil(51 * 0.95) = 49
    assert calibrated_multiplier(z[::-1], 0.95) == 49.0
    assert calibrated_multiplier(np.r_[z, np.nan, np.inf], 0.95) == 49.0
    assert (
        calibrated_multiplier(np.arange(18.0), 0.95) == np.inf and calibrated_multiplier(np.arange(19.0), 0.95) == 18.0
    )
    assert np.isnan(calibrated_multiplier([np.nan], 0.95))
    rng = np.random.default_rng(3)
    trials = np.abs(rng.standard_normal((4000, 51)))
    conformal = np.mean([t[50] <= calibrated_multiplier(t[:50], 0.95) for t in trials])
    plain = np.mean([t[50] <= np.quantile(t[:50], 0.95) for t in trials])
    se = np.sqrt(0.95 * 0.05 / len(trials))
    assert conformal > 0.95 - 2 * se and abs(conformal - 49 / 51) < 4 * se
    assert plain < conformal


def test_the_ebm_bars_are_audited_against_its_expectation_and_f_star_s_pd():
    """The ebm kind: interpret's bar (PD ± 1 SD of the bags) per replicate; its claimed truth the
    leave-one-out mean over the other replicates; its planted truth f*'s PD (linear: closed form)."""
    pytest.importorskip("interpret")
    from xaipipe.studies.twin_table import ONE_SD_LEVEL, ebm_caption

    data = _table(n=80)
    twin = build_twin(data, "linear_regression", seed=0)
    options = {"ebm": {"interactions": 0, "outer_bags": 3, "max_rounds": 200}}
    design = _design(n_repetitions=4, learners={}, glassbox={"ebm": {"learning_rate": 0.04}}, options=options)
    bundle = SimpleNamespace(twin=twin, design=design, sanity=None)
    shard = audit_shard(bundle, 0, 1)
    ebm = shard[shard["kind"] == "ebm"]
    assert len(ebm) == 4 * 3 and set(ebm["quantity"]) == {"pd"} and set(ebm["family"]) == {"ebm"}
    np.testing.assert_allclose(ebm["ci_low"], ebm["estimate"] - ebm["se_naive"])
    np.testing.assert_allclose(ebm["ci_high"], ebm["estimate"] + ebm["se_naive"])
    # the subsampling correction of bags of 85 % of the rows: sqrt(0.85 / 0.15)
    np.testing.assert_allclose(ebm["se"], ebm["se_naive"] * np.sqrt(0.85 / 0.15))
    assert np.allclose(ebm["level"], ONE_SD_LEVEL) and (ebm["se"] > 0).all()
    truths = twin_truths(bundle)
    out = twin_coverage_tables([shard], truths.f_star, None, nominal=[0.95])
    reps = out.repetitions[out.repetitions["kind"] == "ebm"]
    for (_, z), part in reps.groupby(["feature", "grid_value"]):
        est = part["estimate"].to_numpy()
        loo = (est.sum() - est) / (len(est) - 1)
        np.testing.assert_allclose(part["claimed"], loo)
        others = [np.delete(est, i) for i in range(len(est))]
        np.testing.assert_allclose(part["claimed_se"], [np.std(o, ddof=1) / np.sqrt(len(o)) for o in others])
        # f*'s PD of a linear model: intercept + coefficient * z + the others' population means
        assert part["planted"].nunique() == 1
        assert part["planted"].iloc[0] == pytest.approx(twin_pd_truth(twin, {"a": [z]})["pd"].iloc[0])
    cov = out.coverage[out.coverage["kind"] == "ebm"]
    assert set(cov["interval"]) == {"corrected", "naive", "reported"} and set(cov["target"]) == {"claimed", "planted"}
    reported = cov[(cov["interval"] == "reported") & (cov["feature"] == "all")]
    assert np.allclose(reported["nominal"], ONE_SD_LEVEL)
    line = ebm_caption(out.coverage, "toy", "ebm")
    assert line.startswith("± 1 SD bar (nominal 0.68 if read as a normal interval): covers ")
    assert "of the EBM's expectation" in line and "of f*'s PD (twin of toy)" in line
    assert ebm_caption(None, "toy", "ebm") is None
    assert ebm_caption(out.coverage, "other", "ebm").endswith("not measured")


def test_the_twin_rule_audits_a_regression_dataset_s_ebm_only():
    pytest.importorskip("interpret")
    best = {
        "linear_regression": {"cv_mean": 2.0, "params": {}},
        "ebm": {"cv_mean": 2.5, "params": {"learning_rate": 0.04, "max_leaves": 2}},
    }
    settings = TwinSettings(n_repetitions=3, mcr=False, sanity=False)
    bundle = prepare_twin(_table(n=60), settings, best, None)
    assert bundle.design.glassbox == {"ebm": {"learning_rate": 0.04, "max_leaves": 2}}
    assert TwinDesign.from_dict(bundle.design.to_dict()) == bundle.design
    best_c = {"logistic_regression": {"cv_mean": 0.5, "params": {}}, "ebm": best["ebm"]}
    settings_c = TwinSettings(n_repetitions=3, mcr=False, sanity=False, task="classification")
    assert prepare_twin(_table(n=60, task="classification"), settings_c, best_c, None).design.glassbox == {}
