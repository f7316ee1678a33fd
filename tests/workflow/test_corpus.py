"""The corpus of tables researchers bring (tests/workflow/corpus.py) through the whole workflow
in one run, as README "Your own data" says: every result type for every table, one-hot groups as
one variable, multiclass results per class, missing values under each policy, and the HTML
report."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from .conftest import copy_workflow, snakemake
from .corpus import CORPUS_CONFIG, DATASETS, write_corpus

pytestmark = pytest.mark.integration

FAMILIES = {
    "mixed_wide": ("linear_regression", "gradient_boosting"),
    "rare_binary": ("logistic_regression", "gradient_boosting"),
    "three_class": ("logistic_regression", "gradient_boosting"),
    "seven_class": ("logistic_regression", "xgboost"),
    "missing_reg": ("linear_regression", "gradient_boosting"),
}
#: every dataset x family: these files and figures exist (the result types of the study)
PER_MODEL = ("model_reliance.csv", "pd_ice.csv", "pd_2d.csv", "shap_values.csv", "shap_importance.csv")
PER_MODEL_FIGURES = ("model_reliance", "ice", "c_ice", "pd_2d", "shap_bar", "shap_beeswarm")


@pytest.fixture(scope="module")
def corpus_run(tmp_path_factory, mirror_dir):
    work = copy_workflow(tmp_path_factory.mktemp("corpus") / "repo")
    write_corpus(work / "data")
    (work / "corpus.yaml").write_text(CORPUS_CONFIG)
    configs = ["config/config.yaml", "tests/configs/small.yaml", "tests/configs/tiny.yaml", "corpus.yaml"]
    snakemake(work, "--cores", "2", "--configfile", *configs, "--config", f"uci_mirror={mirror_dir}", timeout=3000)
    report = snakemake(
        work, "--report", "report.html", "--configfile", *configs, "--config", f"uci_mirror={mirror_dir}"
    )
    assert report.returncode == 0 and (work / "report.html").stat().st_size > 100_000
    return work / "results" / "corpus"


def test_every_table_gets_every_result_type(corpus_run):
    metrics = pd.read_csv(corpus_run / "tables" / "test_metrics.csv")
    assert {(d, f) for d, fams in FAMILIES.items() for f in fams} == set(zip(metrics["dataset"], metrics["model"]))
    for d, fams in FAMILIES.items():
        assert (corpus_run / "figures" / d / "correlation.pdf").is_file()
        for f in fams:
            for name in PER_MODEL:
                assert len(pd.read_csv(corpus_run / "explain" / d / f / name)) > 0, (d, f, name)
            for name in PER_MODEL_FIGURES:
                assert (corpus_run / "figures" / d / f / f"{name}.pdf").stat().st_size > 1000, (d, f, name)
        assert (corpus_run / "figures" / d / "rashomon" / "member_reliance.pdf").stat().st_size > 1000
        assert (corpus_run / "rashomon" / d / "mcr_path.csv").is_file()
    mcr = pd.read_csv(corpus_run / "tables" / "mcr.csv")
    assert set(mcr["dataset"]) == set(DATASETS)
    manifest = json.loads((corpus_run / "manifest.json").read_text())
    assert set(manifest["datasets"]) == set(DATASETS)
    comparison = pd.read_csv(corpus_run / "tables" / "model_comparison.csv")
    assert set(comparison["dataset"]) == set(DATASETS)


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
