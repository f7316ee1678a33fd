from __future__ import annotations

import numpy as np
import pytest

from xaipipe.models.metrics import classification_metrics, evaluate, regression_metrics


def test_regression_metrics_by_hand():
    m = regression_metrics([1.0, 2.0, 3.0], [1.0, 2.0, 5.0])
    assert m["mse"] == pytest.approx(4 / 3) and m["rmse"] == pytest.approx(np.sqrt(4 / 3))
    assert m["mae"] == pytest.approx(2 / 3) and m["r2"] == pytest.approx(1 - 4 / 2)


def test_classification_metrics_by_hand():
    y = np.array([0, 0, 1, 1])
    p1 = np.array([0.2, 0.6, 0.7, 0.4])
    m = classification_metrics(y, np.column_stack([1 - p1, p1]), confusion=True)
    assert (m["tn"], m["fp"], m["fn"], m["tp"]) == (1, 1, 1, 1)
    assert m["accuracy"] == 0.5 and m["error_rate"] == 0.5
    expected = -np.mean(np.log([0.8, 0.4, 0.7, 0.4]))
    assert m["log_loss"] == pytest.approx(expected)
    assert m["roc_auc"] == pytest.approx(0.75)
    assert m["brier"] == pytest.approx(np.mean((p1 - y) ** 2))


def test_evaluate_rejects_unknown_task():
    with pytest.raises(ValueError, match="unknown task"):
        evaluate("ranking", [1], [1])
