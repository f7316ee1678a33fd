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


def test_regression_metrics_bitwise_equal_to_sklearn():
    """rmse = sqrt(mse) and the skipped parameter validation give sklearn's numbers bitwise."""
    from sklearn import metrics as skm

    for seed in range(300):
        rng = np.random.default_rng(seed)
        n = int(rng.integers(2, 3000))
        y = rng.normal(size=n) * rng.uniform(0.01, 1000)
        pred = y + rng.normal(size=n) * rng.uniform(1e-4, 100)
        m = regression_metrics(y, pred)
        assert m["mse"] == skm.mean_squared_error(y, pred)
        assert m["rmse"] == skm.root_mean_squared_error(y, pred)
        assert m["mae"] == skm.mean_absolute_error(y, pred)
        assert m["r2"] == skm.r2_score(y, pred)


@pytest.mark.filterwarnings("ignore:y_pred contains classes not in y_true")
@pytest.mark.parametrize("case", ["random", "one_class_true", "no_positive_predicted", "perfect"])
def test_classification_metrics_equal_to_sklearn_one_call_per_metric(case):
    """One precision_recall_fscore_support call gives what precision/recall/f1_score give."""
    from sklearn import metrics as skm

    rng = np.random.default_rng(7)
    for _ in range(40):
        n = int(rng.integers(5, 400))
        y = (rng.random(n) < 0.4).astype(int)
        p1 = rng.random(n)
        if case == "one_class_true":
            y[:] = 0
        elif case == "no_positive_predicted":
            p1 = p1 * 0.5
        elif case == "perfect":
            p1 = np.where(y == 1, 0.9, 0.1)
        y_hat = np.column_stack([1 - p1, p1]).argmax(axis=1)
        m = classification_metrics(y, np.column_stack([1 - p1, p1]))
        assert m["precision"] == skm.precision_score(y, y_hat, zero_division=0)
        assert m["recall"] == skm.recall_score(y, y_hat, zero_division=0)
        assert m["f1"] == skm.f1_score(y, y_hat, zero_division=0)
        assert m["balanced_accuracy"] == skm.balanced_accuracy_score(y, y_hat)
        assert m["log_loss"] == skm.log_loss(y, np.column_stack([1 - p1, p1]), labels=[0, 1])


def test_metrics_still_reject_bad_input():
    """Skipping parameter validation keeps scikit-learn's checks of the arrays."""
    with pytest.raises(ValueError):
        regression_metrics([1.0, 2.0, 3.0], [1.0, 2.0])
    with pytest.raises(ValueError):
        regression_metrics([1.0, 2.0, np.nan], [1.0, 2.0, 3.0])
    with pytest.raises(ValueError):
        classification_metrics(np.array([0, 1, 1]), np.array([[0.5, 0.5], [0.2, 0.8]]))


@pytest.mark.filterwarnings("ignore:y_pred contains classes not in y_true")
@pytest.mark.filterwarnings("ignore:A single label was found")
@pytest.mark.parametrize("case", ["random", "one_class_true", "no_positive_predicted", "perfect", "all_positive"])
@pytest.mark.parametrize("beta", [0.5, 1.0, 2.0, 3.7])
def test_specificity_and_f_beta_equal_to_sklearn_bitwise(case, beta):
    """Seed 004's metrics from the confusion counts equal scikit-learn's recall of class 0
    and fbeta_score exactly (also where a ratio is undefined: zero_division=0), and the
    module's own specificity / f_beta."""
    from sklearn import metrics as skm

    from xaipipe.models.classification_metrics import f_beta, specificity

    rng = np.random.default_rng(11)
    for _ in range(8):
        n = int(rng.integers(5, 400))
        y = np.sort((rng.random(n) < 0.4).astype(int))  # sorted: row order must not matter
        p1 = rng.random(n)
        if case == "one_class_true":
            y[:] = 1  # no negatives: specificity undefined
        elif case == "no_positive_predicted":
            p1 = p1 * 0.5
        elif case == "perfect":
            p1 = np.where(y == 1, 0.9, 0.1)
        elif case == "all_positive":
            y[:] = 0
            p1 = p1 * 0.4  # no positive at all: F-beta undefined
        y_hat = np.column_stack([1 - p1, p1]).argmax(axis=1)
        m = classification_metrics(y, np.column_stack([1 - p1, p1]), beta=beta)
        assert m["specificity"] == skm.recall_score(y, y_hat, pos_label=0, labels=[0, 1], zero_division=0)
        assert m["f_beta"] == skm.fbeta_score(y, y_hat, beta=beta, labels=[0, 1], zero_division=0)
        if len(np.unique(np.concatenate([y, y_hat]))) == 2:
            assert m["specificity"] == specificity(y, y_hat) and m["f_beta"] == f_beta(y, y_hat, beta)
        if beta == 1.0:
            assert m["f_beta"] == m["f1"]


def test_f_beta_by_hand_and_bad_beta():
    y = np.array([1, 1, 1, 1, 0, 0, 0, 0, 0, 0])
    y_hat = np.array([1, 1, 0, 0, 1, 0, 0, 0, 0, 0])  # tp 2, fn 2, fp 1, tn 5
    m = evaluate("classification", y, np.column_stack([1 - y_hat, y_hat]).astype(float), beta=2.0)
    assert m["specificity"] == 5 / 6
    assert m["f_beta"] == pytest.approx(5 * 2 / (5 * 2 + 4 * 2 + 1))  # (1+b²)tp / ((1+b²)tp + b² fn + fp)
    for bad in (0.0, -1.0, float("inf"), float("nan"), True, "2"):
        with pytest.raises(ValueError, match="beta"):
            classification_metrics(y, np.column_stack([1 - y_hat, y_hat]).astype(float), beta=bad)


def test_existing_classification_metrics_unchanged_by_the_new_ones():
    """Adding specificity / f_beta leaves every other value as before (same calls)."""
    rng = np.random.default_rng(3)
    y = (rng.random(200) < 0.3).astype(int)
    p1 = rng.random(200)
    a = classification_metrics(y, np.column_stack([1 - p1, p1]), beta=1.0)
    b = classification_metrics(y, np.column_stack([1 - p1, p1]), beta=2.0)
    assert {k: v for k, v in a.items() if k != "f_beta"} == {k: v for k, v in b.items() if k != "f_beta"}
    assert list(a)[-2:] == ["specificity", "f_beta"]
