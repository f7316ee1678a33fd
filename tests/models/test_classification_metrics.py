"""Specificity and F-beta against scikit-learn and the confusion matrix."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import confusion_matrix, fbeta_score, precision_score, recall_score

from xaipipe.models.classification_metrics import f_beta, specificity


@pytest.fixture(scope="module")
def labels():
    rng = np.random.default_rng(2)
    y = np.sort(rng.integers(0, 2, 300))  # sorted: row order must not matter
    pred = np.where(rng.random(300) < 0.8, y, 1 - y)
    return y, pred


def test_specificity_is_the_true_negative_rate(labels):
    y, pred = labels
    tn, fp, fn, tp = confusion_matrix(y, pred, labels=[0, 1]).ravel()
    assert specificity(y, pred) == tn / (tn + fp)
    assert specificity(y, pred) == recall_score(y, pred, pos_label=0)
    # with the classes swapped, specificity becomes the old recall (sensitivity)
    assert specificity(y, pred, pos_label=0) == recall_score(y, pred, pos_label=1)
    s = np.where(y == 1, "M", "B"), np.where(pred == 1, "M", "B")
    assert specificity(*s, pos_label="M") == specificity(y, pred)


@pytest.mark.parametrize("beta", [0.5, 1.0, 2.0, 3.7])
def test_f_beta_matches_sklearn_and_the_formula(labels, beta):
    y, pred = labels
    assert f_beta(y, pred, beta) == fbeta_score(y, pred, beta=beta)
    p, r = precision_score(y, pred), recall_score(y, pred)
    assert f_beta(y, pred, beta) == pytest.approx((1 + beta**2) * p * r / (beta**2 * p + r), rel=1e-12)


def test_f_beta_weighs_recall_for_large_beta():
    y = np.array([1, 1, 1, 1, 0, 0, 0, 0])
    pred = np.array([1, 1, 1, 1, 1, 1, 0, 0])  # recall 1, precision 2/3
    assert f_beta(y, pred, 2.0) > f_beta(y, pred, 1.0) > f_beta(y, pred, 0.5)


def test_undefined_ratios_and_bad_input():
    assert specificity([1, 1, 1], [1, 0, 1]) == 0.0  # no negatives: zero_division
    assert specificity([1, 1, 1], [1, 0, 1], zero_division=1.0) == 1.0
    assert specificity([0, 0, 1], [0, 0, 1]) == 1.0
    assert f_beta([0, 0], [0, 0], 1.0) == 0.0
    with pytest.raises(ValueError, match="beta"):
        f_beta([0, 1], [0, 1], 0)
    with pytest.raises(ValueError, match="binary"):
        specificity([0, 1, 2], [0, 1, 2])
    with pytest.raises(ValueError, match="equal length"):
        specificity([0, 1, 1], [0, 1])
    with pytest.raises(ValueError, match="pos_label"):
        f_beta([0, 1], [0, 1], 1.0, pos_label="M")
