"""The corpus of tables researchers bring (tests/workflow/corpus.py) through the whole workflow
in one run, in a plain git clone that imports its own ``src/``, as README "Your own data" says:
every result type for every table, one-hot groups as one variable, multiclass results per class
(against scikit-learn's metrics), missing values under each policy (each fit imputing from its own
training rows, against a scikit-learn ``Pipeline``), the SHAP check and LIME of a multiclass model,
the manifest of a clone, and the HTML report.

Cost (2 cores): one run of 7 datasets x 1-2 families on the small configuration's grids, ~10-14 min
(it replaces the separate multiclass and missing-value runs of earlier rounds; the two degenerate
tables of issue 52 add ~2 min).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import joblib
import numpy as np
import pandas as pd
import pytest
import yaml

from tests.conftest import REPO

from .conftest import copy_workflow
from .corpus import CORPUS_CONFIG, DATASETS, TABLES, write_corpus

pytestmark = pytest.mark.integration

#: every dataset's families, as its corpus entry lists them
FAMILIES = {d: tuple(e["families"]) for d, e in yaml.safe_load(CORPUS_CONFIG)["datasets"].items() if "families" in e}
MULTICLASS = ("three_class", "seven_class")
#: every dataset x family: these files and figures exist (the result types of the study)
PER_MODEL = ("model_reliance.csv", "pd_ice.csv", "pd_2d.csv", "shap_values.csv", "shap_importance.csv", "ale.csv")
PER_MODEL_FIGURES = ("model_reliance", "ice", "c_ice", "d_ice", "pd_2d", "shap_bar", "shap_beeswarm", "ale")
RASHOMON_FIGURES = ("member_reliance", "mcr_intervals", "pd_envelope", "multiplicity", "epsilon_sensitivity")


@pytest.fixture(scope="module")
def corpus_clone(tmp_path_factory, mirror_dir):
    """The corpus run in a git clone of the workflow (the tables and the config untracked) with its
    own ``src/`` on the path, as ``pip install -e .`` in a user's clone would have it."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    work = copy_workflow(tmp_path_factory.mktemp("corpus") / "repo")
    shutil.copyfile(REPO / ".gitignore", work / ".gitignore")
    for args in (["init", "-q"], ["add", "-A"], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "c"]):
        subprocess.run(["git", "-C", str(work), *args], check=True, capture_output=True)
    write_corpus(work / "data")
    (work / "corpus.yaml").write_text(CORPUS_CONFIG)
    env = {**os.environ, "PYTHONPATH": str(work / "src")}
    env.pop("XAIPIPE_TMPDIR", None)
    configs = ["config/config.yaml", "tests/configs/small.yaml", "tests/configs/tiny.yaml", "corpus.yaml"]
    args = [sys.executable, "-m", "snakemake", "--configfile", *configs, "--config", f"uci_mirror={mirror_dir}"]
    for extra in (["--cores", "2"], ["--report", "report.html"]):
        proc = subprocess.run([*args, *extra], cwd=work, capture_output=True, text=True, env=env, timeout=3000)
        assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-6000:]
    assert (work / "report.html").stat().st_size > 100_000
    return work


@pytest.fixture(scope="module")
def corpus_run(corpus_clone):
    return corpus_clone / "results" / "corpus"


def test_every_table_gets_every_result_type(corpus_run):
    metrics = pd.read_csv(corpus_run / "tables" / "test_metrics.csv")
    assert {(d, f) for d, fams in FAMILIES.items() for f in fams} == set(zip(metrics["dataset"], metrics["model"]))
    for d, fams in FAMILIES.items():
        assert (corpus_run / "figures" / d / "correlation.pdf").is_file()
        for f in fams:
            for name in PER_MODEL:
                if d == "one_feature" and name == "pd_2d.csv":  # no pair: the table has no row, its figure says so
                    continue
                assert len(pd.read_csv(corpus_run / "explain" / d / f / name)) > 0, (d, f, name)
            for name in PER_MODEL_FIGURES:
                assert (corpus_run / "figures" / d / f / f"{name}.pdf").stat().st_size > 1000, (d, f, name)
        # RID (rashomon.bootstrap) resamples the gradient-boosting members only (rashomon.bootstrap.families)
        for name in RASHOMON_FIGURES + (("rid",) if "gradient_boosting" in fams else ()):
            assert (corpus_run / "figures" / d / "rashomon" / f"{name}.pdf").stat().st_size > 1000, (d, name)
        assert (corpus_run / "rashomon" / d / "mcr_path.csv").is_file()
    mcr = pd.read_csv(corpus_run / "tables" / "mcr.csv")
    assert set(mcr["dataset"]) == set(DATASETS)
    manifest = json.loads((corpus_run / "manifest.json").read_text())
    assert set(manifest["datasets"]) == set(DATASETS)
    comparison = pd.read_csv(corpus_run / "tables" / "model_comparison.csv")
    # one family: no pair of families to compare (pairs.csv without rows; docs/own_data.md)
    assert set(comparison["dataset"]) == set(DATASETS) - {"one_feature"}
    assert pd.read_csv(corpus_run / "comparison" / "one_feature" / "pairs.csv").empty


def test_every_table_is_in_the_explorer(corpus_run):
    """The Rashomon explorer holds every table of the corpus like the theses' datasets: the page has
    its specification, every variable (a one-hot group as one, by level) has PD and ALE curves of
    the members, and coverage.csv its rates."""
    html = (corpus_run / "explorer" / "index.html").read_text(encoding="utf-8")
    coverage = pd.read_csv(corpus_run / "explorer" / "coverage.csv")
    assert set(coverage["dataset"]) == set(DATASETS)
    assert coverage["coverage_rate"].dropna().between(0, 1).all()
    for d in DATASETS:
        assert f'id="spec-{d}"' in html, d
        members = pd.read_csv(corpus_run / "rashomon" / d / "members.csv")
        effects = pd.read_csv(corpus_run / "rashomon" / d / "member_effects.csv", keep_default_na=False)
        assert set(effects["feature"]) == set(members["feature"]), d
        assert set(effects["kind"]) == {"pd", "ale"}, d


def test_wide_table_with_an_id_column_and_a_35_level_text_column(corpus_run):
    info = json.loads((corpus_run / "data" / "mixed_wide" / "prepared.json").read_text())
    assert "record_id" not in info["features"] and len(info["features"]) == 50 + 5 + 35
    assert len(info["feature_groups"]["city"]) == 35
    mr = pd.read_csv(corpus_run / "tables" / "model_reliance.csv")
    lin = mr[(mr.dataset == "mixed_wide") & (mr.model == "linear_regression") & (mr.estimator == "permutation")]
    lin = lin.set_index("feature")
    assert {"city", "region"} <= set(lin.index) and len(lin) == 52  # a group is one variable
    assert lin["mr_difference"].idxmax() == "x01"
    shap = pd.read_csv(corpus_run / "explain" / "mixed_wide" / "gradient_boosting" / "shap_importance.csv")
    assert "city" in set(shap["feature"]) and not shap["feature"].str.startswith("city_").any()


def test_rare_binary_logit_table_codes_the_group_against_its_reference_level(corpus_run):
    info = json.loads((corpus_run / "data" / "rare_binary" / "prepared.json").read_text())
    assert info["class_counts"] == {"0": 960, "1": 40} and info["positive_class"] == "yes"
    logit = pd.read_csv(corpus_run / "tables" / "logit_inference.csv", keep_default_na=False, na_values=[""])
    rare = logit[logit.dataset == "rare_binary"].set_index("term")
    assert "segment_s0" not in rare.index  # the reference level
    assert rare.loc["segment_s1", "reference_level"] == "segment_s0"
    assert rare["separation"].eq("none").all() and rare["identified"].all()
    assert rare.loc["segment_s1", "ci_low"] > 0  # s1 raises the odds of a positive
    split = json.loads((corpus_run / "data" / "rare_binary" / "split.json").read_text())
    y = pd.read_csv(corpus_run / "data" / "rare_binary" / "prepared.csv")["outcome"].to_numpy()
    assert y[split["test"]].sum() == 8  # stratified: 20 % of the 40 positives


@pytest.mark.parametrize("dataset, k", [("three_class", 3), ("seven_class", 7)])
def test_multiclass_tables_are_per_class(corpus_run, dataset, k):
    info = json.loads((corpus_run / "data" / dataset / "prepared.json").read_text())
    assert info["n_classes"] == k and len(info["classes"]) == k
    for f in FAMILIES[dataset]:
        pd_ice = pd.read_csv(corpus_run / "explain" / dataset / f / "pd_ice.csv")
        assert pd_ice["class"].astype(str).nunique() == k
        shap = pd.read_csv(corpus_run / "explain" / dataset / f / "shap_values.csv")
        assert shap["class"].astype(str).nunique() == k
    confusion = pd.read_csv(corpus_run / "tables" / "confusion_matrices.csv")
    assert len(confusion[confusion.dataset == dataset]) == k * k * len(FAMILIES[dataset])
    logit = pd.read_csv(corpus_run / "tables" / "logit_inference.csv", keep_default_na=False, na_values=[""])
    table = logit[logit.dataset == dataset]
    assert table["class"].astype(str).nunique() == k - 1  # every class against the base class
    assert (table["base_class"].astype(str) == str(info["classes"][0])).all()
    if dataset == "three_class":  # the text column coded against one reference level, named in the table
        (reference,) = set(table.loc[table.group == "site", "reference_level"])
        assert reference.startswith("site_") and reference not in set(table["term"])


def test_missing_values_under_each_policy(corpus_run):
    dropped = json.loads((corpus_run / "data" / "seven_class" / "prepared.json").read_text())
    assert dropped["missing"]["policy"] == "drop_rows" and dropped["missing"]["rows_dropped"] == 25
    assert dropped["n_rows"] == 840 - 25
    for d in ("three_class", "missing_reg"):
        info = json.loads((corpus_run / "data" / d / "prepared.json").read_text())
        assert info["missing"]["policy"] == "impute" and info["missing"]["rows_imputed"] > 0
        prepared = pd.read_csv(corpus_run / "data" / d / "prepared.csv")
        assert prepared[info["features"]].isna().any().any()  # imputed inside every fit, not before
        for f in FAMILIES[d]:
            shap = pd.read_csv(corpus_run / "explain" / d / f / "shap_values.csv")
            assert np.isfinite(shap["shap_value"]).all()
    metrics = pd.read_csv(corpus_run / "tables" / "test_metrics.csv").set_index(["dataset", "model"])
    # the imputed regression still finds its signal (y = 2 p + q + 1.5 [kind = k2] + noise)
    assert metrics.loc[("missing_reg", "linear_regression"), "r2"] > 0.6


def test_class_order_codes_the_classes_and_the_metrics_are_sklearns(corpus_run):
    """``class_order`` fixes the codes; the test metrics and confusion matrices of a multiclass model
    equal scikit-learn's on the saved test predictions; the CV scored every fold."""
    from sklearn.metrics import confusion_matrix, log_loss, roc_auc_score

    labels = ["virginica", "setosa", "versicolor"]
    res = corpus_run
    info = json.loads((res / "data" / "three_class" / "prepared.json").read_text())
    assert info["classes"] == labels and info["class_coding"] == {c: k for k, c in enumerate(labels)}
    assert info["positive_class"] is None
    prepared = pd.read_csv(res / "data" / "three_class" / "prepared.csv")
    assert (np.asarray(labels)[prepared["species"]] == TABLES["three_class"]()["species"].to_numpy()).all()
    metrics = pd.read_csv(res / "tables" / "test_metrics.csv").set_index(["dataset", "model"])
    confusion = pd.read_csv(res / "tables" / "confusion_matrices.csv")
    for family in FAMILIES["three_class"]:
        pred = pd.read_csv(res / "models" / "three_class" / "test" / f"{family}_predictions.csv")
        P = pred[["proba_0", "proba_1", "proba_2"]].to_numpy()
        y = pred["y_true"].to_numpy()
        row = metrics.loc[("three_class", family)]
        assert row["log_loss"] == pytest.approx(log_loss(y, P, labels=[0, 1, 2]), rel=1e-12)
        assert row["roc_auc"] == pytest.approx(roc_auc_score(y, P, multi_class="ovr"), rel=1e-12)
        mine = confusion[(confusion.dataset == "three_class") & (confusion.model == family)]
        cells = mine.pivot(index="true_class", columns="predicted_class", values="count")
        np.testing.assert_array_equal(cells.to_numpy(), confusion_matrix(y, P.argmax(axis=1), labels=[0, 1, 2]))
        cv = pd.read_csv(res / "models" / "three_class" / "cv" / f"{family}.csv")
        assert cv["log_loss"].notna().all() and (cv["status"] == "ok").all()


def test_multiclass_reliance_mcr_comparison_and_explanations(corpus_run):
    res = corpus_run
    mr = pd.read_csv(res / "tables" / "model_reliance.csv")
    mcr = pd.read_csv(res / "tables" / "mcr.csv")
    pairs = pd.read_csv(res / "tables" / "model_comparison.csv")
    for d in MULTICLASS:
        assert set(mr.loc[mr.dataset == d, "loss"]) == {"log_loss", "zero_one"}, d
        m = mcr[mcr.dataset == d]
        tol = 1e-12 * m["mr_reference"].abs().max()
        assert (m["mcr_minus"] <= m["mr_reference"] + tol).all() and (m["mr_reference"] <= m["mcr_plus"] + tol).all()
        assert set(pairs.loc[pairs.dataset == d, "loss"]) == {"error_rate", "log_loss"}, d
        for f in FAMILIES[d]:
            rows = pd.read_csv(res / "explain" / d / f / "shap_rows.csv")
            assert rows["additivity_error"].abs().max() < 1e-5, (d, f)
        for name in ("roc", "precision_recall", "reject_option", "loss_difference", "error_bootstrap"):
            assert (res / "figures" / d / "comparison" / f"{name}.pdf").stat().st_size > 1000, (d, name)
    # the SHAP interaction values of a multiclass XGBoost model: one summary per class
    classes = json.loads((res / "data" / "seven_class" / "prepared.json").read_text())["classes"]
    inter = pd.read_csv(res / "explain" / "seven_class" / "xgboost" / "shap_interaction_summary.csv")
    assert list(pd.unique(inter["class"].astype(str))) == [str(c) for c in classes]
    # the SHAP check and LIME of one class (explain.figure_class: the first) of that model
    check = pd.read_csv(res / "explain" / "seven_class" / "xgboost" / "kernel_vs_tree_shap.csv")
    assert set(check["class"].astype(str)) == {str(classes[0])}
    assert len(pd.read_csv(res / "explain" / "seven_class" / "xgboost" / "lime_shap_summary.csv")) > 0


def test_every_fit_imputes_from_its_own_training_rows(corpus_run):
    """The CV table equals scikit-learn's cross_validate of Pipeline(imputer, model) on the same folds
    (the imputer refitted on each fold's training rows), and the saved model's test predictions are
    those of the model on the test rows imputed with the training split's fill values."""
    from sklearn.base import clone
    from sklearn.linear_model import LinearRegression
    from sklearn.model_selection import cross_validate
    from sklearn.pipeline import Pipeline

    from xaipipe.data.impute import make_imputer
    from xaipipe.data.prepare import load_prepared

    d = corpus_run / "data" / "missing_reg"
    data = load_prepared(d / "prepared.csv", d / "prepared.json", d / "split.json")
    assert np.isnan(data.X_train_raw).any() and not np.isnan(data.X_test).any()
    pipe = Pipeline([("impute", make_imputer(data.features, data.feature_groups)), ("model", LinearRegression())])
    oracle = cross_validate(pipe, data.X_train_raw, data.y_train, cv=data.folds, scoring="neg_root_mean_squared_error")
    cv = pd.read_csv(corpus_run / "models" / "missing_reg" / "cv" / "linear_regression.csv")
    np.testing.assert_allclose(cv.sort_values("fold")["rmse"], -oracle["test_score"], rtol=1e-10)
    model = joblib.load(corpus_run / "models" / "missing_reg" / "fitted" / "linear_regression.joblib")
    fitted = clone(pipe).fit(data.X_train_raw, data.y_train)
    np.testing.assert_allclose(model.predict(data.X_test), fitted.predict(data.X_test_raw), rtol=1e-10)


def test_manifest_of_a_plain_clone(corpus_clone):
    manifest = json.loads((corpus_clone / "results" / "corpus" / "manifest.json").read_text())
    head = subprocess.run(["git", "-C", str(corpus_clone), "rev-parse", "HEAD"], capture_output=True, text=True)
    assert manifest["git"]["commit"] == head.stdout.strip()
    assert manifest["git"]["dirty"] is False and manifest["git"]["changed"] == []
    assert {f"data/{d}.csv" for d in DATASETS} | {"corpus.yaml"} <= set(manifest["git"]["untracked"])
    assert manifest["xaipipe"] == {"path": str((corpus_clone / "src" / "xaipipe").resolve()), "from_checkout": True}


def test_degenerate_tables_run_to_the_end(corpus_run):
    """One feature with one family and a one-member Rashomon set, and two features: every rule of the
    default target produced its output (the manifest lists them), and what is not defined says so."""
    manifest = json.loads((corpus_run / "manifest.json").read_text())
    assert {"one_feature", "two_features"} <= set(manifest["datasets"])
    members = pd.read_csv(corpus_run / "rashomon" / "one_feature" / "members.csv")
    lin = members[members.family == "linear_regression"]  # the family's set: one member (sampled families beside)
    assert lin[["family", "config_id"]].drop_duplicates().shape[0] == 1 and set(members["feature"]) == {"dose"}
    sets = pd.read_csv(corpus_run / "tables" / "mcr.csv")
    one_member = sets[(sets.dataset == "one_feature") & (sets.scope == "linear_regression")]
    assert len(one_member) and (one_member["n_members"] == 1).all()
    assert (one_member["mcr_minus"] == one_member["mcr_plus"]).all()  # MCR of one member is its MR
    summary = pd.read_csv(corpus_run / "rashomon" / "one_feature" / "consensus_summary.csv")
    assert (summary["n_features"] == 1).all() and (summary["n_pairs"] == 0).all()
    assert pd.read_csv(corpus_run / "rashomon" / "one_feature" / "consensus.csv").empty
    assert (corpus_run / "figures" / "one_feature" / "rashomon" / "consensus_hasse.pdf").stat().st_size > 1000
    mcr = pd.read_csv(corpus_run / "tables" / "mcr.csv")
    one = mcr[(mcr.dataset == "one_feature") & (mcr.feature == "dose")]
    assert len(one) and (one["mcr_minus"] <= one["mcr_plus"]).all()
    two = pd.read_csv(corpus_run / "explain" / "two_features" / "gradient_boosting" / "pd_2d.csv")
    assert len(two) and set(two[["feature_1", "feature_2"]].iloc[0]) == {"a", "b"}


def test_an_ebm_explains_itself_on_tables_with_missing_values_and_classes(corpus_run):
    """The EBM family on two corpus tables (imputed missing values, a text column, three classes):
    its terms rule ran, one shape per class of the multiclass EBM, the figure drawn."""
    terms = pd.read_csv(corpus_run / "tables" / "ebm_terms.csv")
    assert set(terms["dataset"]) == {"missing_reg", "three_class"} and set(terms["model"]) == {"ebm"}
    for d in ("missing_reg", "three_class"):
        shapes = pd.read_csv(corpus_run / "explain" / d / "ebm" / "ebm_shapes.csv", keep_default_na=False)
        info = json.loads((corpus_run / "data" / d / "prepared.json").read_text())
        assert set(shapes["feature"]) <= set(info["features"]) and (shapes["sd"].astype(float) >= 0).all()
        assert (corpus_run / "figures" / d / "ebm" / "ebm_terms.pdf").stat().st_size > 1000
    three = pd.read_csv(corpus_run / "explain" / "three_class" / "ebm" / "ebm_shapes.csv", keep_default_na=False)
    assert three["class"].astype(str).nunique() == 3 and set(three["output"]) == {"log_odds"}
