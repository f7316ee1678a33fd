"""Result tables of all datasets: test metrics from the fit / cv rules' records, the
best-configuration view and the confusion matrices in long form."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_breast_cancer, load_diabetes
from sklearn.metrics import confusion_matrix

from xaipipe.config import CVSettings
from xaipipe.models.fitting import fit_best
from xaipipe.report import tables as rt  # not imported by name: pytest would collect test_metric_tables


@pytest.fixture(scope="module")
def records():
    Xr, yr = load_diabetes(return_X_y=True)
    Xc, yc = load_breast_cancer(return_X_y=True)
    Xc = Xc[:, :6]
    out = []
    for dataset, task, family, params, (X, y) in [
        ("diabetes", "regression", "linear_regression", {}, (Xr, yr)),
        ("diabetes", "regression", "decision_tree", {"max_depth": 3}, (Xr, yr)),
        ("breast_cancer", "classification", "logistic_regression", {"C": 1.0}, (Xc, yc)),
        ("breast_cancer", "classification", "gaussian_nb", {}, (Xc, yc)),
    ]:
        n = int(0.8 * len(y))
        split = SimpleNamespace(X_train=X[:n], y_train=y[:n], X_test=X[n:], y_test=y[n:], dataset=dataset)
        split.test_rows = np.arange(n, len(y))
        settings = CVSettings(task=task, family=family, seed=0, beta=1.0)
        est, rec, pred = fit_best(split, settings, params)
        best = {
            "dataset": dataset,
            "family": family,
            "selection_metric": "rmse" if task == "regression" else "log_loss",
            "cv_mean": 1.0 + len(out),
            "cv_std": 0.1,
            "config_id": "default",
        }
        out.append((rec, best, pred))
    return out


def test_metric_tables_of_every_dataset(records):
    recs, bests, preds = zip(*records)
    per_dataset = [
        rt.test_metrics_table([r for r in recs if r["dataset"] == d], [b for b in bests if b["dataset"] == d])
        for d in ("diabetes", "breast_cancer")
    ]
    metrics, best, confusion = rt.test_metric_tables(per_dataset)
    pd.testing.assert_frame_equal(metrics, pd.concat(per_dataset, ignore_index=True))
    assert list(metrics.columns) == [
        "dataset",
        "task",
        "model",
        *rt.TEST_METRIC_COLUMNS,
        "selection_metric",
        "cv_mean",
        "cv_std",
        "config_id",
        "n_train",
        "n_test",
    ]
    for rec in recs:
        row = metrics[(metrics["dataset"] == rec["dataset"]) & (metrics["model"] == rec["model"])].iloc[0]
        for m in rt.TEST_METRIC_COLUMNS:
            if m in rec["metrics"]:
                assert row[m] == rec["metrics"][m]
            else:
                assert np.isnan(row[m])
    assert list(best.columns) == [
        "dataset",
        "task",
        "model",
        "selection_metric",
        "cv_mean",
        "cv_std",
        "config_id",
        "n_train",
        "n_test",
    ]
    assert best["cv_mean"].tolist() == [1.0, 2.0, 3.0, 4.0] and len(best) == 4
    # confusion matrices of the classifiers, long form, against scikit-learn
    assert list(confusion.columns) == ["dataset", "model", "true_class", "predicted_class", "count"]
    assert set(confusion["model"]) == {"logistic_regression", "gaussian_nb"} and len(confusion) == 8
    for rec, pred in zip(recs, preds):
        if rec["task"] != "classification":
            continue
        cm = confusion_matrix(pred["y_true"], pred["y_pred"], labels=[0, 1])
        part = confusion[confusion["model"] == rec["model"]]
        for _, r in part.iterrows():
            assert r["count"] == cm[r["true_class"], r["predicted_class"]]
        assert part["count"].sum() == rec["n_test"]
    assert confusion.equals(confusion.sort_values(["dataset", "model", "true_class", "predicted_class"]))
