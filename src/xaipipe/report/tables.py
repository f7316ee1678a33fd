"""Result tables: test metrics, best configurations, thesis comparison."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["test_metric_tables", "test_metrics_table", "thesis_comparison"]

#: Column order of ``tables/test_metrics.csv`` after ``dataset``, ``task``, ``model``.
TEST_METRIC_COLUMNS = (
    "rmse",
    "mae",
    "r2",
    "mse",
    "accuracy",
    "balanced_accuracy",
    "precision",
    "recall",
    "f1",
    "roc_auc",
    "log_loss",
    "brier",
    "error_rate",
    "tn",
    "fp",
    "fn",
    "tp",
    "specificity",
    "f_beta",
)


def test_metrics_table(records: Iterable[Mapping[str, Any]], best: Iterable[Mapping[str, Any]]) -> pd.DataFrame:
    """One row per dataset × model from the ``test/<family>.json`` and
    ``best/<family>.json`` records of the fit and cv rules.

    Columns: ``dataset``, ``task``, ``model``, :data:`TEST_METRIC_COLUMNS`
    (NaN where not defined for the task; ``tn``, ``fp``, ``fn``, ``tp`` are binary),
    ``selection_metric``, ``cv_mean``, ``cv_std``, ``config_id``, ``n_train``,
    ``n_test``; when a record holds a multiclass ``confusion_matrix``, a last column
    ``confusion_matrix`` with its ``K x K`` counts as JSON (rows: true class,
    columns: predicted class; the metrics are macro averages, see
    :func:`xaipipe.models.metrics.multiclass_metrics`).
    """
    import json

    best_by = {(b["dataset"], b["family"]): b for b in best}
    rows = []
    for r in records:
        b = best_by.get((r["dataset"], r["model"]), {})
        row = {"dataset": r["dataset"], "task": r["task"], "model": r["model"]}
        row.update({m: r["metrics"].get(m, np.nan) for m in TEST_METRIC_COLUMNS})
        row.update(
            {
                "selection_metric": b.get("selection_metric"),
                "cv_mean": b.get("cv_mean"),
                "cv_std": b.get("cv_std"),
                "config_id": b.get("config_id"),
                "n_train": r["n_train"],
                "n_test": r["n_test"],
            }
        )
        if "confusion_matrix" in r["metrics"]:  # multiclass only: binary tables keep their columns
            row["confusion_matrix"] = json.dumps(r["metrics"]["confusion_matrix"], separators=(",", ":"))
        rows.append(row)
    return pd.DataFrame.from_records(rows)


def thesis_comparison(metrics: pd.DataFrame, reference: Mapping[str, Any], tolerance: float = 0.15) -> pd.DataFrame:
    """Reproduced test metrics beside the published ones (long format).

    Parameters
    ----------
    metrics : DataFrame
        ``tables/test_metrics.csv``.
    reference : mapping
        ``config/reference.yaml`` (its ``test_metrics.rows``).
    tolerance : float, default=0.15
        Relative tolerance of the ``within_tolerance`` flag (for ``r2``: larger or
        within tolerance counts as reproduced; for errors: smaller or within).

    Returns
    -------
    DataFrame
        Columns ``table``, ``dataset``, ``model``, ``metric``, ``published``,
        ``reproduced``, ``difference`` (reproduced - published),
        ``relative_difference``, ``within_tolerance``, ``source``. Rows whose
        dataset/model was not run have NaN ``reproduced``.
    """
    source = " ".join(str(reference["test_metrics"]["source"]).split())
    index = metrics.set_index(["dataset", "model"])
    rows = []
    for ref in reference["test_metrics"]["rows"]:
        key = (ref["dataset"], ref["model"])
        for metric in ("rmse", "mae", "r2"):
            published = float(ref[metric])
            reproduced = float(index.loc[key, metric]) if key in index.index else np.nan
            diff = reproduced - published
            rel = diff / abs(published)
            better = reproduced >= published if metric == "r2" else reproduced <= published
            rows.append(
                {
                    "table": ref["table"],
                    "dataset": ref["dataset"],
                    "model": ref["model"],
                    "metric": metric,
                    "published": published,
                    "reproduced": reproduced,
                    "difference": diff,
                    "relative_difference": rel,
                    "within_tolerance": bool(np.isfinite(reproduced) and (better or abs(rel) <= tolerance)),
                    "source": source,
                }
            )
    return pd.DataFrame.from_records(rows)


def test_metric_tables(tables) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """The ``test_metrics`` rule: every dataset's test metrics, best configurations and confusion matrices.

    Parameters
    ----------
    tables : sequence of DataFrame
        The per-dataset ``test_metrics.csv`` tables (:func:`test_metrics_table`).

    Returns
    -------
    (metrics, best, confusion)
        The concatenated table; its best-configuration columns (``dataset``,
        ``task``, ``model``, ``selection_metric``, ``cv_mean``, ``cv_std``,
        ``config_id``, ``n_train``, ``n_test``); the confusion matrices of the
        classifiers in long form (``dataset``, ``model``, ``true_class``,
        ``predicted_class``, ``count``; class codes, ``0 .. K-1`` for a multiclass
        model, whose labels ``prepared.json`` records).
    """
    table = pd.concat(list(tables), ignore_index=True)
    best = table[
        ["dataset", "task", "model", "selection_metric", "cv_mean", "cv_std", "config_id", "n_train", "n_test"]
    ]
    clf = table[table["task"] == "classification"]
    multi = None
    if "confusion_matrix" in table.columns:  # multiclass models: the K x K matrix of their JSON column
        multi = clf[clf["confusion_matrix"].notna()]
        clf = clf[clf["confusion_matrix"].isna()]
    long = clf.melt(
        id_vars=["dataset", "model"], value_vars=["tn", "fp", "fn", "tp"], var_name="cell", value_name="count"
    )
    long["true_class"] = long["cell"].map({"tn": 0, "fp": 0, "fn": 1, "tp": 1})
    long["predicted_class"] = long["cell"].map({"tn": 0, "fp": 1, "fn": 0, "tp": 1})
    long["count"] = long["count"].astype(int)
    if multi is not None and len(multi):
        import json

        cells = [
            {"dataset": r.dataset, "model": r.model, "true_class": i, "predicted_class": j, "count": int(c)}
            for r in multi.itertuples()
            for i, counts in enumerate(json.loads(r.confusion_matrix))
            for j, c in enumerate(counts)
        ]
        long = pd.concat([long, pd.DataFrame(cells)], ignore_index=True)
    confusion = long[["dataset", "model", "true_class", "predicted_class", "count"]].sort_values(
        ["dataset", "model", "true_class", "predicted_class"]
    )
    return table, best, confusion
