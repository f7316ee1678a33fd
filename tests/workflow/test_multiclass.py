"""A user's own 3-class table through the whole workflow (issue 32, item 4): every result type, the report."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import make_classification
from sklearn.metrics import confusion_matrix, log_loss, roc_auc_score

from .conftest import copy_workflow, snakemake

pytestmark = pytest.mark.integration

#: one multiclass dataset (text labels coded in a chosen order, a text feature), three families, the
#: SHAP check and LIME pointed at it; tiny's regression dataset switched off, the seed-003 rerun too
MULTI_CONFIG = """\
version: multi
datasets:
  airfoil: {enabled: false}
  grades:
    source: {kind: file, path: data/grades.csv}
    task: classification
    target: grade
    categorical: [site]
    class_order: [low, mid, high]
    families: [logistic_regression, gradient_boosting, xgboost]
threads: {rashomon: 1}
rashomon: {epsilons: [0.0, 0.5], epsilon: 0.5, estimators: [permutation]}
comparison: {seed003: {enabled: false}}
explain:
  shap_check: {dataset: grades, family: xgboost}
  lime: {dataset: grades, family: xgboost}
"""

LABELS = ["low", "mid", "high"]


def grades_frame(n: int = 240, seed: int = 3) -> pd.DataFrame:
    """Three classes from ``make_classification`` (two informative features, one noise feature) and a
    text column ``site`` that shifts the odds of ``high``."""
    X, y = make_classification(
        n_samples=n,
        n_features=3,
        n_informative=2,
        n_redundant=0,
        n_classes=3,
        n_clusters_per_class=1,
        class_sep=1.0,
        flip_y=0.05,
        random_state=seed,
    )
    rng = np.random.default_rng(seed)
    site = rng.choice(["north", "south", "east"], size=n)
    flip = (site == "east") & (rng.uniform(size=n) < 0.3)
    y = np.where(flip, 2, y)
    return pd.DataFrame({"x1": X[:, 0], "x2": X[:, 1], "noise": X[:, 2], "site": site, "grade": np.asarray(LABELS)[y]})


@pytest.fixture(scope="module")
def multi_run(tmp_path_factory, mirror_dir):
    work = copy_workflow(tmp_path_factory.mktemp("multi") / "repo")
    (work / "data").mkdir()
    grades_frame().to_csv(work / "data" / "grades.csv", index=False)
    (work / "multi.yaml").write_text(MULTI_CONFIG)
    args = [
        "--configfile",
        "config/config.yaml",
        "tests/configs/small.yaml",
        "tests/configs/tiny.yaml",
        "multi.yaml",
        "--config",
        f"uci_mirror={mirror_dir}",
    ]
    snakemake(work, "--cores", "2", *args)
    snakemake(work, *args, "--report", "report.html")
    return work


def test_prepared_records_the_classes_and_the_metrics_are_sklearns(multi_run):
    res = multi_run / "results" / "multi"
    info = json.loads((res / "data" / "grades" / "prepared.json").read_text())
    assert info["classes"] == LABELS and info["n_classes"] == 3
    assert info["class_coding"] == {"low": 0, "mid": 1, "high": 2} and info["positive_class"] is None
    prepared = pd.read_csv(res / "data" / "grades" / "prepared.csv")
    raw = grades_frame()
    assert (np.asarray(LABELS)[prepared["grade"]] == raw["grade"].to_numpy()).all()

    metrics = pd.read_csv(res / "tables" / "test_metrics.csv").set_index("model")
    confusion = pd.read_csv(res / "tables" / "confusion_matrices.csv")
    for family in ("logistic_regression", "gradient_boosting", "xgboost"):
        pred = pd.read_csv(res / "models" / "grades" / "test" / f"{family}_predictions.csv")
        P = pred[["proba_0", "proba_1", "proba_2"]].to_numpy()
        y = pred["y_true"].to_numpy()
        assert metrics.loc[family, "log_loss"] == pytest.approx(log_loss(y, P, labels=[0, 1, 2]), rel=1e-12)
        assert metrics.loc[family, "roc_auc"] == pytest.approx(roc_auc_score(y, P, multi_class="ovr"), rel=1e-12)
        cells = confusion[confusion.model == family].pivot(
            index="true_class", columns="predicted_class", values="count"
        )
        np.testing.assert_array_equal(cells.to_numpy(), confusion_matrix(y, P.argmax(axis=1), labels=[0, 1, 2]))
    cv = pd.read_csv(res / "models" / "grades" / "cv" / "gradient_boosting.csv")
    assert cv["log_loss"].notna().all() and (cv["status"] == "ok").all()


def test_every_result_type_is_there(multi_run):
    res = multi_run / "results" / "multi"
    # model reliance on the multiclass losses, MCR on log loss
    mr = pd.read_csv(res / "tables" / "model_reliance.csv")
    assert set(mr["loss"]) == {"log_loss", "zero_one"} and set(mr["feature"]) == {"x1", "x2", "noise", "site"}
    mcr = pd.read_csv(res / "tables" / "mcr.csv")
    assert {"x1", "x2", "noise", "site"} <= set(mcr["feature"])
    tol = 1e-12 * mcr["mr_reference"].abs().max()
    assert (mcr["mcr_minus"] <= mcr["mr_reference"] + tol).all() and (
        mcr["mr_reference"] <= mcr["mcr_plus"] + tol
    ).all()
    # PD / ICE and SHAP per class
    for family in ("logistic_regression", "gradient_boosting", "xgboost"):
        curves = pd.read_csv(res / "explain" / "grades" / family / "pd_ice.csv")
        assert list(pd.unique(curves["class"])) == LABELS
        values = pd.read_csv(res / "explain" / "grades" / family / "shap_values.csv")
        assert list(pd.unique(values["class"])) == LABELS
        rows = pd.read_csv(res / "explain" / "grades" / family / "shap_rows.csv")
        assert rows["additivity_error"].abs().max() < 1e-5
    # the paired model comparison and the multinomial logit table
    pairs = pd.read_csv(res / "tables" / "model_comparison.csv")
    assert set(pairs["loss"]) == {"error_rate", "log_loss"} and len(pairs) == 6
    logit = pd.read_csv(res / "tables" / "logit_inference.csv")
    assert set(logit["class"]) == {"mid", "high"} and set(logit["base_class"]) == {"low"}
    assert set(logit.loc[logit.group == "site", "reference_level"]) == {"site_east"}
    # figures, the SHAP check and LIME of one class, the manifest and the report
    figures = res / "figures" / "grades"
    for family in ("logistic_regression", "gradient_boosting", "xgboost"):
        for name in ("model_reliance", "ice", "c_ice", "d_ice", "pd_2d", "shap_bar", "shap_beeswarm"):
            assert (figures / family / f"{name}.pdf").stat().st_size > 1000, (family, name)
    for name in ("roc", "precision_recall", "reject_option", "loss_difference", "error_bootstrap"):
        assert (figures / "comparison" / f"{name}.pdf").stat().st_size > 1000, name
    for name in ("member_reliance", "mcr_intervals", "rid", "pd_envelope"):
        assert (figures / "rashomon" / f"{name}.pdf").stat().st_size > 1000, name
    check = pd.read_csv(res / "explain" / "grades" / "xgboost" / "kernel_vs_tree_shap.csv")
    assert set(check["class"]) == {"low"}
    assert (res / "explain" / "grades" / "xgboost" / "lime_shap_summary.csv").is_file()
    assert (res / "manifest.json").is_file() and (multi_run / "report.html").stat().st_size > 10_000
