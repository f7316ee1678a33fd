"""Snakemake integration: a small-config run against the mirror, targets, lint, errors."""

from __future__ import annotations

import json
import re
import shutil

import numpy as np
import pandas as pd
import pytest
import yaml

from .conftest import copy_workflow, small_args, snakemake

pytestmark = pytest.mark.integration

RESULTS = "results/test"


def test_lint(workflow_copy, mirror_dir):
    proc = snakemake(workflow_copy, "--lint", *small_args(mirror_dir), check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Lints for" not in proc.stdout, proc.stdout


def test_small_run_outputs(small_run):
    res = small_run / RESULTS
    metrics = pd.read_csv(res / "tables" / "test_metrics.csv")
    assert list(metrics.columns[:6]) == ["dataset", "task", "model", "rmse", "mae", "r2"]
    small = yaml.safe_load((small_run / "tests" / "configs" / "small.yaml").read_text())
    expected = {
        ("airfoil", f)
        for f in ("linear_regression", "decision_tree", "random_forest", "gradient_boosting", "xgboost", "ebm")
    }
    expected |= {(d, f) for d, opts in small["datasets"].items() if "families" in opts for f in opts["families"]}
    assert set(zip(metrics["dataset"], metrics["model"])) == expected and len(metrics) == len(expected)
    reg = metrics[metrics.task == "regression"]
    assert reg["rmse"].notna().all() and reg["r2"].between(-1, 1).all()
    clf = metrics[metrics.task == "classification"]
    assert clf["roc_auc"].between(0.8, 1).all()
    assert (clf[["tn", "fp", "fn", "tp"]].sum(axis=1) == 114).all()

    comparison = pd.read_csv(res / "tables" / "thesis_comparison.csv")
    assert set(comparison["dataset"]) == {"airfoil", "concrete", "wine_quality"}
    ran = comparison["dataset"] == "airfoil"
    assert comparison.loc[ran, "reproduced"].notna().all() and comparison.loc[~ran, "reproduced"].isna().all()

    manifest = json.loads((res / "manifest.json").read_text())
    assert manifest["version"] == "test"
    assert len(manifest["config_sha256"]) == 64
    assert set(manifest["datasets"]) == {"airfoil", "abalone", "diabetes", "breast_cancer"}
    assert manifest["packages"]["scikit-learn"] and "dirty" in manifest["git"]
    assert manifest["datasets"]["abalone"]["raw"][0]["sha256"].startswith("de37cdcd")

    cv = pd.read_csv(res / "models" / "airfoil" / "cv" / "gradient_boosting.csv")
    assert {"config_id", "fold", "rmse", "fit_time_s", "n_estimators", "learning_rate"} <= set(cv.columns)
    assert len(cv[cv["origin"] == "grid"]) == 2 * 2 * 5  # the seed's grid; the sampled class adds draws
    assert set(cv["origin"]) == {"grid", "sample"}
    best = json.loads((res / "models" / "airfoil" / "best" / "gradient_boosting.json").read_text())
    assert best["params"]["n_estimators"] in (10, 20)
    assert (res / "models" / "airfoil" / "fitted" / "gradient_boosting.joblib").stat().st_size > 0
    assert (res / "figures" / "airfoil" / "correlation.png").stat().st_size > 0
    # airfoil's EBM explains itself (rule ebm_terms): one term per variable of the prepared table, ranked
    terms = pd.read_csv(res / "explain" / "airfoil" / "ebm" / "ebm_terms.csv")
    info = json.loads((res / "data" / "airfoil" / "prepared.json").read_text())
    assert sorted(terms["term"]) == sorted(info["features"])
    assert set(terms["rank"]) == set(range(1, len(info["features"]) + 1))
    assert (res / "figures" / "airfoil" / "ebm" / "ebm_terms.png").stat().st_size > 0
    ols = pd.read_csv(res / "tables" / "ols_inference.csv")
    assert ols["term"].tolist()[:3] == ["const", "AGE", "SEX"]
    qda = pd.read_csv(res / "models" / "breast_cancer" / "cv" / "qda.csv")
    assert (qda.loc[qda.reg_param == 0.0, "status"] == "failed").all()
    # no partial files, and logs for every job
    assert not list(small_run.glob("results/**/*.tmp*"))
    assert list((small_run / "logs" / "test").rglob("*.log"))


def test_rerun_has_nothing_to_do(small_run, mirror_dir):
    proc = snakemake(small_run, "-n", "--cores", "1", *small_args(mirror_dir))
    assert "Nothing to be done" in proc.stdout + proc.stderr


def test_profile_of_the_run(small_run, mirror_dir):
    target = "results/test/profile/slowest_rules.csv"
    proc = snakemake(small_run, "--cores", "1", target, *small_args(mirror_dir))
    ran = re.findall(r"^(?:local)?rule (\w+):", proc.stdout + proc.stderr, flags=re.M)
    assert ran == ["profile"]  # the study itself is up to date
    jobs = pd.read_csv(small_run / target)
    assert {"cv", "fit", "rashomon", "model_reliance", "shap"} <= set(jobs["rule"])
    # every job of the study is profiled, figures and tables included
    assert {
        "prepare",
        "shap_figures",
        "pd_figures",
        "reliance_figures",
        "thesis_figure",
        "thesis_table",
        "manifest",
    } <= set(jobs["rule"])
    assert (jobs["wall_s"].diff().dropna() <= 0).all() and (jobs["wall_s"] > 0).all()
    assert jobs.loc[jobs.rule == "cv", "wildcards"].str.contains("dataset=airfoil").any()
    totals = pd.read_csv(small_run / "results/test/profile/rule_totals.csv")
    assert totals["wall_s"].sum() == pytest.approx(jobs["wall_s"].sum())
    assert "| rule |" in (small_run / "results/test/profile/slowest_rules.md").read_text()


def _planned_jobs(output: str) -> list[str]:
    return re.findall(r"^rule (\w+):", output, flags=re.M)


def test_one_dataset_target_runs_only_its_jobs(workflow_copy, mirror_dir):
    target = f"{RESULTS}/models/abalone/test_metrics.csv"
    proc = snakemake(workflow_copy, "-n", "--cores", "1", target, *small_args(mirror_dir))
    out = proc.stdout
    wildcards = set(re.findall(r"wildcards: dataset=(\w+)", out))
    assert wildcards == {"abalone"}, wildcards
    assert "manifest" not in _planned_jobs(out)


@pytest.mark.parametrize(
    "table,rule,absent",
    [
        ("test_metrics", "test_metrics", ("thesis_comparison", "model_reliance", "rashomon")),
        ("model_reliance", "model_reliance_table", ("shap", "rashomon", "thesis_figure")),
        ("mcr", "mcr_table", ("shap", "pd_ice", "rashomon_bootstrap", "thesis_figure")),
        # the large-data policies' table needs only the splits (issue 34)
        ("large_data", "large_data_table", ("cv", "fit", "model_reliance", "shap", "rashomon")),
    ],
)
def test_table_target_alone(workflow_copy, mirror_dir, table, rule, absent):
    proc = snakemake(workflow_copy, "-n", "--cores", "1", f"{RESULTS}/tables/{table}.csv", *small_args(mirror_dir))
    jobs = _planned_jobs(proc.stdout)
    assert rule in jobs and "manifest" not in jobs
    assert not set(absent) & set(jobs), set(absent) & set(jobs)


def test_invalid_config_value_names_the_key(workflow_copy, mirror_dir, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("split:\n  test_size: 1.5\n")
    proc = snakemake(workflow_copy, "-n", "--cores", "1", *small_args(mirror_dir, configfiles=(bad,)), check=False)
    assert proc.returncode != 0
    err = proc.stdout + proc.stderr
    assert "test_size" in err and "1.5" in err


def test_unknown_dataset_is_rejected(workflow_copy, mirror_dir, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("datasets:\n  iris: {}\n")
    proc = snakemake(workflow_copy, "-n", "--cores", "1", *small_args(mirror_dir, configfiles=(bad,)), check=False)
    assert proc.returncode != 0
    assert "iris" in proc.stdout + proc.stderr


def test_corrupt_mirror_fails_naming_the_file(tmp_path, mirror_dir):
    work = copy_workflow(tmp_path / "repo")
    mirror = tmp_path / "mirror"
    shutil.copytree(mirror_dir, mirror)
    bad = mirror / "abalone" / "abalone.data"
    bad.chmod(0o644)
    bad.write_bytes(bad.read_bytes()[:1000])
    target = f"{RESULTS}/data/abalone/canonical.csv"
    proc = snakemake(
        work,
        "--cores",
        "1",
        target,
        "--configfile",
        "config/config.yaml",
        "tests/configs/small.yaml",
        "--config",
        f"uci_mirror={mirror}",
        check=False,
    )
    assert proc.returncode != 0
    log = (work / "logs" / "test" / "data" / "canonical" / "abalone.log").read_text()
    assert "checksum mismatch" in log and str(bad) in log
    assert not (work / target).exists()


def test_explain_outputs(small_run):
    res = small_run / RESULTS
    mr = pd.read_csv(res / "tables" / "model_reliance.csv")
    assert list(mr.columns[:6]) == ["dataset", "model", "feature", "estimator", "mr_ratio", "mr_difference"]
    assert {"mr_ratio_std", "mr_ratio_se", "mr_difference_se", "loss", "n_samples"} <= set(mr.columns)
    assert set(mr["estimator"]) == {
        "permutation",
        "e_divide",
        "e_switch",
        "conditional_permutation",
        "grouped_permutation",
    }
    assert set(mr.loc[mr.dataset == "breast_cancer", "loss"]) == {"log_loss", "zero_one"}
    aba = mr[(mr.dataset == "abalone") & (mr.model == "gradient_boosting")]
    assert "Sex" in set(aba["feature"]) and "Sex_M" not in set(aba["feature"])  # one-hot group = one variable
    lin = mr[(mr.dataset == "airfoil") & (mr.model == "linear_regression") & (mr.estimator == "e_switch")]
    assert (lin["algorithm"] == "linear_closed_form").all() and (lin["n_samples"] == 301).all()

    curves = pd.read_csv(
        res / "explain" / "airfoil" / "gradient_boosting" / "pd_ice.csv", keep_default_na=False, na_values=[""]
    )
    assert {"pd", "ice", "c_ice", "d_ice", "d_ice_sd"} <= set(curves["kind"])
    c_ice = curves[curves.kind == "c_ice"].groupby(["feature", "row"])["value"]
    assert (c_ice.apply(lambda v: v.abs().min()) == 0).all()  # zero at the anchor

    rows = pd.read_csv(res / "explain" / "breast_cancer" / "xgboost" / "shap_rows.csv")
    assert (rows["additivity_error"].abs() < 1e-4).all()
    inter = pd.read_csv(res / "explain" / "breast_cancer" / "xgboost" / "shap_interactions.csv")
    assert len(inter) == 25 * 30 * 30
    meta = json.loads((res / "explain" / "breast_cancer" / "gaussian_nb" / "shap_meta.json").read_text())
    assert meta["algorithm"] == "permutation" and meta["background_size"] == 20

    agreement = pd.read_csv(res / "tables" / "ranking_agreement.csv")
    assert {"dataset", "model", "measure_1", "measure_2", "spearman"} <= set(agreement.columns)
    tree = agreement[(agreement.model == "gradient_boosting") & (agreement.measure_2 == "split_gain")]
    assert tree["spearman"].notna().all()

    learner = pd.read_csv(res / "explain" / "airfoil" / "gradient_boosting" / "learner_pfi.csv")
    assert (learner["n_refits"] == 3).all()
    assert (
        (learner["mr_difference_ci_high"] - learner["mr_difference_ci_low"])
        >= (learner["mr_difference_ci_high_naive"] - learner["mr_difference_ci_low_naive"]) - 1e-12
    ).all()

    figs = res / "figures" / "airfoil" / "gradient_boosting"
    for name in (
        "model_reliance",
        "ice",
        "c_ice",
        "d_ice",
        "pd_2d",
        "shap_bar",
        "shap_beeswarm",
        "shap_waterfall_high",
        "learner_pd",
    ):
        assert (figs / f"{name}.pdf").stat().st_size > 1000 and (figs / f"{name}.png").stat().st_size > 1000


def test_dependent_features_and_interactions_outputs(small_run):
    """Issue 35: conditional / grouped MR rows after the marginal ones, ALE beside PD, H², the SHAP
    interaction summary; their tables and figures."""
    res = small_run / RESULTS
    mr = pd.read_csv(res / "tables" / "model_reliance.csv")
    marginal = ["permutation", "e_divide", "e_switch"]
    for (_, _), part in mr.groupby(["dataset", "model"], sort=False):
        new = ~part["estimator"].isin(marginal).to_numpy()
        assert new.any() and not new[: (~new).sum()].any()  # every new row after every marginal row
    lin = mr[(mr.dataset == "abalone") & (mr.model == "linear_regression")].set_index(["estimator", "feature"])
    # Abalone's weights predict each other: the conditional MR of the whole weight is far below the marginal
    cond, marg = lin.loc[("conditional_permutation", "Whole_weight")], lin.loc[("permutation", "Whole_weight")]
    assert cond["mr_difference"] < 0.5 * marg["mr_difference"]
    clusters = set(mr.loc[(mr.dataset == "abalone") & (mr.estimator == "grouped_permutation"), "feature"])
    assert any("Whole_weight+" in c or "+Whole_weight" in c for c in clusters) and "Sex" in clusters
    agreement = pd.read_csv(res / "tables" / "ranking_agreement.csv")
    for _, part in agreement.groupby("dataset", sort=False):  # per dataset, after all the other rows
        new = part["measure_2"].isin(["conditional_reliance", "grouped_reliance"]).to_numpy()
        assert new.any() and not new[: (~new).sum()].any()

    ale = pd.read_csv(
        res / "explain" / "airfoil" / "linear_regression" / "ale.csv", keep_default_na=False, na_values=[""]
    )
    assert set(ale["feature"]) == {
        "frequency",
        "chord-length",
        "free-stream-velocity",
        "suction-side-displacement-thickness",
    }
    assert np.abs(ale["pd_centred"] - ale["ale"]).max() < 1e-8  # a linear model: PD = ALE
    for _, part in ale.groupby("feature"):  # ... and the ALE is linear in the variable
        slope = np.polyfit(part["value"], part["ale"], 1)
        assert np.abs(np.polyval(slope, part["value"]) - part["ale"]).max() < 1e-8
        assert (part["n_rows"].iloc[1:] > 0).all() and part["n_rows"].sum() == 301
    ale2 = pd.read_csv(res / "explain" / "airfoil" / "linear_regression" / "ale_2d.csv")
    assert len(ale2) > 4 and ale2["ale"].abs().max() < 1e-8
    aba = pd.read_csv(
        res / "explain" / "abalone" / "gradient_boosting" / "ale.csv", keep_default_na=False, na_values=[""]
    )
    sex = aba[aba.feature == "Sex"]
    assert (
        (sex["kind"] == "categorical").all()
        and len(sex) == 3
        and sex["n_rows"].sum() == aba["n_rows"][aba.feature == "Length"].sum()
    )

    h = pd.read_csv(res / "tables" / "h_statistic.csv")
    assert {"kind", "feature", "h2", "h2_se", "n_rows", "n_bootstrap", "se_method"} <= set(h.columns)
    assert (h.loc[h.model == "linear_regression", "h2"].abs() < 1e-10).all()  # additive: no interaction
    assert (h["h2"] >= 0).all() and (h["h2_se"] >= 0).all()
    bc = h[h.dataset == "breast_cancer"]
    assert (bc["n_rows"] == 114).all()  # fewer test rows than n_rows: all of them
    pairs = pd.read_csv(res / "explain" / "breast_cancer" / "xgboost" / "shap_interaction_summary.csv")
    assert len(pairs) == 30 * 29 // 2 and pairs["rank"].tolist() == list(range(1, len(pairs) + 1))
    matrix = pd.read_csv(res / "explain" / "breast_cancer" / "xgboost" / "shap_interaction_matrix.csv")
    assert len(matrix) == 30 * 30 and (matrix["mean_abs_interaction"] >= 0).all()
    for d, f, kinds in (
        ("airfoil", "gradient_boosting", ("ale", "ale_2d", "h_statistic", "h_statistic_pairs")),
        ("abalone", "gradient_boosting", ("ale", "h_statistic")),
        ("breast_cancer", "xgboost", ("ale", "h_statistic", "shap_interaction_matrix", "shap_interaction_summary")),
    ):
        for kind in kinds:
            assert (res / "figures" / d / f / f"{kind}.png").stat().st_size > 1000, (d, f, kind)
    assert (res / "thesis" / "001_fig_4_3_ale.pdf").read_bytes().rstrip().endswith(b"%%EOF")


def test_member_predictions_and_multiplicity(small_run):
    """Issue 35: the members' test predictions, distinct functions and the default epsilon in sets / mcr /
    mcr_path, predictive multiplicity of every scope."""
    res = small_run / RESULTS
    for d, n_test in (("airfoil", 301), ("breast_cancer", 114)):
        rash = res / "rashomon" / d
        P = np.load(rash / "member_predictions.npy")
        index = pd.read_csv(rash / "member_predictions_index.csv")
        members = pd.read_csv(rash / "members.csv").drop_duplicates(["family", "config_id"])
        assert P.shape == (len(members), n_test) and P.dtype == np.float64
        assert index["config_id"].astype(str).tolist() == members["config_id"].astype(str).tolist()
        for name, size in (("sets", "size"), ("mcr", "n_members"), ("mcr_path", "n_members")):
            table = pd.read_csv(rash / f"{name}.csv")
            assert list(table.columns[-2:]) == ["n_distinct_functions", "is_default"], name
            finite = table[table["scope"] != "linear_exact"]
            assert (finite["n_distinct_functions"] <= finite[size]).all() and (
                finite["n_distinct_functions"] >= 1
            ).all()
            assert table["is_default"].any()
        sets = pd.read_csv(rash / "sets.csv")
        assert (sets["is_default"] == (sets["epsilon"] == 1.0)).all()
        multi = pd.read_csv(rash / "multiplicity.csv")
        assert set(multi["scope"]) == set(sets["scope"]) and multi["is_default"].sum() == multi["scope"].nunique()
        assert (multi["n_members"] == multi.merge(sets, on=["scope", "epsilon"])["size"]).all()
        assert (multi["mean_width"] >= 0).all() and (multi["max_width"] >= multi["mean_width"]).all()
        rows = pd.read_csv(rash / "multiplicity_rows.csv")
        assert len(rows) == n_test * multi["scope"].nunique() and (rows["min"] <= rows["max"]).all()
        assert (res / "figures" / d / "rashomon" / "multiplicity.png").stat().st_size > 1000
    bc = pd.read_csv(res / "rashomon" / "breast_cancer" / "multiplicity.csv")
    assert bc["ambiguity"].between(0, 1).all() and (bc["discrepancy"] <= bc["ambiguity"] + 1e-12).all()
    assert bc["mean_capacity"].between(1, 2).all()
    table = pd.read_csv(res / "tables" / "multiplicity.csv")
    assert {"airfoil", "abalone", "diabetes", "breast_cancer"} == set(table["dataset"])


def test_rashomon_prediction_intervals(small_run):
    """Issue 53: every regression dataset's Rashomon prediction intervals (each grid scope on the ε grid,
    the exact linear set on the grid and its path), their per-row table at the default ε and figure;
    none for the classification dataset."""
    res = small_run / RESULTS
    for d in ("airfoil", "abalone", "diabetes"):
        rash = res / "rashomon" / d
        t = pd.read_csv(rash / "prediction_intervals.csv")
        sets = pd.read_csv(rash / "sets.csv")
        assert set(t["scope"]) == set(sets["scope"]) | {"linear_exact"}
        grid = t[t["scope"] != "linear_exact"]
        assert (grid["n_members"].to_numpy() == grid.merge(sets, on=["scope", "epsilon"])["size"].to_numpy()).all()
        assert t["coverage"].between(0.8, 1.0).all() and (t["width"] > 0).all()
        path = t[(t["scope"] == "linear_exact") & t["epsilon"].isna()]
        assert len(path) == 41 and path["range_width"].is_monotonic_increasing
        rows = pd.read_csv(rash / "prediction_interval_rows.csv")
        assert set(rows["epsilon"]) == {1.0} and len(rows) == t["scope"].nunique() * rows["row"].nunique()
        assert ((rows["lower"] <= rows["range_min"]) & (rows["upper"] >= rows["range_max"])).all()
        assert (res / "figures" / d / "rashomon" / "prediction_intervals.png").stat().st_size > 1000
    assert not (res / "rashomon" / "breast_cancer" / "prediction_intervals.csv").exists()
    table = pd.read_csv(res / "tables" / "prediction_intervals.csv")
    assert set(table["dataset"]) == {"airfoil", "abalone", "diabetes"}


def test_regional_effects(small_run):
    """Issue 53: the regional PD of every gradient boosting model (explain.regional.families' default):
    every variable's heterogeneity, the regions of the split ones, a PD per region, the figure."""
    res = small_run / RESULTS
    for d in ("airfoil", "abalone", "breast_cancer"):
        base = res / "explain" / d / "gradient_boosting"
        heter = pd.read_csv(base / "regional_heterogeneity.csv")
        regions = pd.read_csv(base / "regional_effects.csv", keep_default_na=False, na_values=[""])
        curves = pd.read_csv(base / "regional_curves.csv")
        assert (heter["heterogeneity"] >= 0).all() and heter["split"].sum() <= 2
        split = set(heter.loc[heter["split"], "feature"])
        assert set(regions["feature"]) == split and set(curves["feature"]) == split
        first = regions[regions["level"] == 1]
        assert set(first["split_feature"]) <= set(heter["feature"]) and (first["weight"] > 0).all()
        assert regions["explained"].between(-1e-9, 1 + 1e-9).all()
        assert (res / "figures" / d / "gradient_boosting" / "regional_effects.png").stat().st_size > 1000
    assert not (res / "explain" / "diabetes" / "random_forest" / "regional_effects.csv").exists()
    table = pd.read_csv(res / "tables" / "regional_effects.csv")
    assert set(table["dataset"]) <= {"airfoil", "abalone", "breast_cancer"}


def test_treefarms_scope(small_run):
    """Issue 53: the exact sparse-tree Rashomon set of the binary classification dataset at each ε (a
    nested family of sets), its members' MR, the figure; none for the regression datasets."""
    res = small_run / RESULTS
    rash = res / "rashomon" / "breast_cancer"
    summary = pd.read_csv(rash / "treefarms.csv")
    assert list(summary["epsilon"]) == [0.0, 1.0, 2.0] and summary["n_trees"].is_monotonic_increasing
    assert (summary["n_distinct_functions"] <= summary["n_evaluated"]).all()
    mcr = pd.read_csv(rash / "treefarms_mcr.csv")
    assert (mcr["mcr_plus"] >= mcr["mcr_minus"]).all() and mcr["feature"].nunique() == 30
    members = pd.read_csv(rash / "treefarms_members.csv")
    assert members.groupby("epsilon")["tree"].nunique().to_dict() == dict(
        zip(summary["epsilon"], summary["n_evaluated"])
    )
    assert (res / "figures" / "breast_cancer" / "rashomon" / "treefarms.png").stat().st_size > 1000
    timbertrek = json.loads((rash / "treefarms_timbertrek.json").read_text())
    assert "trie" in timbertrek or "not exported" in timbertrek["note"]
    assert not (res / "rashomon" / "airfoil" / "treefarms.csv").exists()
    assert set(pd.read_csv(res / "tables" / "treefarms.csv")["dataset"]) == {"breast_cancer"}


def test_rashomon_outputs(small_run):
    res = small_run / RESULTS
    mcr = pd.read_csv(res / "tables" / "mcr.csv")
    assert list(mcr.columns[:8]) == [
        "dataset",
        "scope",
        "epsilon",
        "feature",
        "mcr_minus",
        "mcr_plus",
        "mr_reference",
        "n_members",
    ]
    assert {"airfoil", "abalone", "diabetes", "breast_cancer"} == set(mcr["dataset"])
    assert "cross_family" in set(mcr["scope"]) and "gradient_boosting" in set(mcr["scope"])
    ok = mcr.dropna(subset=["mr_reference"])
    assert ((ok["mcr_minus"] <= ok["mr_reference"] + 1e-12) & (ok["mr_reference"] <= ok["mcr_plus"] + 1e-12)).all()
    finite = mcr[mcr["scope"] != "linear_exact"]  # linear_exact is a continuum of models: no member count
    assert (finite["n_members"] >= 1).all()
    assert mcr.loc[mcr["scope"] == "linear_exact", "n_members"].isna().all()
    members = pd.read_csv(res / "rashomon" / "airfoil" / "members.csv")
    assert {"family", "config_id", "cv_loss", "mr_ratio"} <= set(members.columns)
    sets = pd.read_csv(res / "rashomon" / "airfoil" / "sets.csv")
    assert {"scope", "epsilon", "size", "ratio"} <= set(sets.columns)
    grow = sets[sets.scope == "cross_family"].sort_values("epsilon")["size"].to_numpy()
    assert (grow[1:] >= grow[:-1]).all()
    study = pd.read_csv(res / "rashomon" / "abalone_study" / "cv_summary.csv")
    assert len(study) == 4 and {"n_estimators", "learning_rate", "max_depth", "loss", "rmse_mean", "rmse_std"} <= set(
        study.columns
    )
    # Table 4.1 lists the 15 best configurations, or the whole grid when it is smaller
    table = pd.read_csv(res / "rashomon" / "abalone_study" / "table_4_1.csv")
    assert len(table) == min(15, len(study)) and table["rank"].tolist() == list(range(1, len(table) + 1))
    rid = pd.read_csv(res / "rashomon" / "airfoil" / "rid_summary.csv")
    assert {"feature", "mean", "prob_reliance"} <= set(rid.columns)
    for name in ("member_reliance", "rank_heatmap", "mcr_intervals", "epsilon_sensitivity", "pd_envelope", "rid"):
        assert (res / "figures" / "airfoil" / "rashomon" / f"{name}.png").stat().st_size > 1000
    assert (res / "figures" / "abalone_study" / "member_reliance.pdf").stat().st_size > 1000


def test_comparison_and_seed_outputs(small_run):
    """Issue 24's outputs in the default target: model comparison (every pair, the table's
    numbers in the bootstrap's own terms), test losses, seed-003 rerun, logistic table,
    KernelSHAP / LIME checks, force plots as thesis 000 Figs 4.3-4.5, the interactive HTML."""
    res = small_run / RESULTS
    pairs = pd.read_csv(res / "tables" / "model_comparison.csv")
    small = yaml.safe_load((small_run / "tests" / "configs" / "small.yaml").read_text())
    fams = small["datasets"]["breast_cancer"]["families"]
    bc = pairs[pairs.dataset == "breast_cancer"]
    assert len(bc) == len(fams) * (len(fams) - 1) // 2 * 2 and set(bc.loss) == {"error_rate", "log_loss"}
    assert (pairs["n_bootstrap"] == 200).all()
    assert np.allclose(pairs["difference"], pairs["mean_a"] - pairs["mean_b"], rtol=0, atol=1e-12)
    spread = pairs["se"] > 0  # identical losses on every test row: se = 0, z undefined
    assert np.allclose(pairs.loc[spread, "z"], (pairs["difference"] / pairs["se"])[spread], rtol=1e-12)
    loss = pd.read_csv(res / "tables" / "test_loss.csv")
    err = loss[loss.loss == "error_rate"]
    assert np.allclose(err["se_binomial"], np.sqrt(err["mean"] * (1 - err["mean"]) / err["n_test"]), rtol=1e-12)
    metrics = pd.read_csv(res / "tables" / "test_metrics.csv")
    acc = metrics[metrics.dataset == "breast_cancer"].set_index("model")["accuracy"]
    assert np.allclose(err.set_index("family")["mean"].reindex(acc.index), 1 - acc, atol=1e-12)
    for d, kinds in (
        ("breast_cancer", ("reject_option", "error_bootstrap", "loss_difference", "roc", "precision_recall")),
        ("airfoil", ("loss_difference", "predicted_vs_observed")),
    ):
        for kind in kinds:
            assert (res / "figures" / d / "comparison" / f"{kind}.png").stat().st_size > 1000
    seed003 = pd.read_csv(res / "studies" / "seed003" / "seed003_comparison.csv")
    assert {"seed", "ours", "agrees"} <= set(seed003.columns) and seed003["ours"].notna().any()
    squared = pd.read_csv(res / "tables" / "squared_terms.csv")
    assert set(squared["dataset"]) == {"diabetes"} and list(squared["loss"]) == ["mse", "mae"]
    logit = pd.read_csv(res / "tables" / "logit_inference.csv")
    assert logit["term"].iloc[0] == "const" and "odds_ratio" in logit.columns
    xgb = res / "explain" / "breast_cancer" / "xgboost"
    check = pd.read_csv(xgb / "kernel_vs_tree_shap.csv")
    assert check["n_samples"].tolist() == [256, 512] and (check["max_abs_difference"] >= 0).all()
    lime = pd.read_csv(xgb / "lime_shap_summary.csv")
    assert (lime["shap_local_accuracy_gap"] < 1e-5).all() and len(lime) >= 4
    html = (xgb / "shap_force.html").read_text()
    assert "<script" in html and "<script src" not in html
    thesis = res / "thesis"
    for name in ("000_fig_4_1", "000_fig_4_2", "000_fig_4_3", "000_fig_4_4", "000_fig_4_5", "000_fig_4_3_waterfall"):
        assert (thesis / f"{name}.png").stat().st_size > 1000


def test_thesis_figures_and_tables(small_run, mirror_dir, tmp_path):
    thesis = small_run / RESULTS / "thesis"
    for name in (
        "001_fig_4_1",
        "001_fig_4_3",
        "001_fig_5_1",
        "001_fig_5_2",
        "001_fig_5_3",
        "000_fig_4_3",
        "000_fig_4_8",
    ):
        assert (thesis / f"{name}.pdf").read_bytes().rstrip().endswith(b"%%EOF")
        assert (thesis / f"{name}.png").stat().st_size > 1000
    tex = (thesis / "001_table_5_2.tex").read_text()
    assert "\\toprule" in tex and "Random Forest" in tex and "1.8258" in tex
    study = pd.read_csv(small_run / RESULTS / "rashomon" / "abalone_study" / "cv_summary.csv")
    assert len(pd.read_csv(thesis / "001_table_4_1.csv")) == min(15, len(study))
    # concrete / wine are disabled in the small config: their thesis outputs are not planned
    assert not (thesis / "001_fig_5_4.pdf").exists()
    # changing only the style re-renders figures, nothing is refitted or recomputed
    style = tmp_path / "style.mplstyle"
    style.write_text((small_run / "src" / "xaipipe" / "plots" / "thesis.mplstyle").read_text() + "font.size: 11\n")
    override = tmp_path / "style.yaml"
    override.write_text(f"report: {{style: {style}}}\n")
    proc = snakemake(small_run, "-n", "--cores", "1", "figures", *small_args(mirror_dir, configfiles=(override,)))
    jobs = set(_planned_jobs(proc.stdout))
    assert "thesis_figure" in jobs and "figures" in jobs
    assert not jobs & {"cv", "fit", "model_reliance", "pd_ice", "shap", "rashomon", "learner", "abalone_study"}


def test_offline_html_report(small_run, mirror_dir, tmp_path):
    out = tmp_path / "report.html"
    proc = snakemake(small_run, "--report", str(out), *small_args(mirror_dir))
    # no caption (nor the front page) makes docutils log an error or a warning (issue 43: lime.rst did)
    log = proc.stdout + proc.stderr
    assert not [
        line for line in log.splitlines() if any(f"({level}/" in line for level in ("WARNING", "ERROR", "SEVERE"))
    ]
    html = out.read_text(errors="replace")
    assert out.stat().st_size > 100_000
    assert "model_reliance.png" in html and "001_fig_5_2" in html
    assert 'src="http' not in html and "<link" not in html  # self-contained: no external scripts or styles
    # one category per concept: no "seed 003" or "simulation" category; the thesis' documents as subcategories
    assert '"seed 003"' not in html and "001: tree ensembles (Cargnel 2025)" in html
