"""Specificity and the F-beta score (seed 004, "Métricas de evaluación").

Seed 004 lists, besides accuracy, precision, recall and F1 (already in
:mod:`xaipipe.models.metrics`), the *specificity* (true-negative rate)
``TNR = TN / (TN + FP) = 1 - FPR`` and the *F-beta score*
``F_beta = (1 + beta^2) precision recall / (beta^2 precision + recall)``
(van Rijsbergen 1979, "Information Retrieval", ch. 7; beta > 1 weighs recall
more, beta < 1 precision).  Both are computed by scikit-learn so that the numbers
are those a scikit-learn user gets: specificity is the recall of the *negative*
class, ``recall_score(y_true, y_pred, pos_label=negative)``, and F-beta is
``fbeta_score``.

Both take hard labels.  To match the other classification metrics of the
pipeline (:func:`xaipipe.models.metrics.classification_metrics`), derive them from
``predict_proba`` as ``argmax`` over the two columns (class 0 on ties) and use
``zero_division=0`` (the default here): an undefined ratio (no negatives for
specificity; no predicted and no actual positives for F-beta) is reported as 0.
"""

from __future__ import annotations

import numbers

import numpy as np

__all__ = ["specificity", "f_beta"]


def _binary_labels(y_true, y_pred, pos_label) -> tuple[np.ndarray, np.ndarray, object]:
    y_true = np.asarray(y_true)
    y_pred = np.asarray(y_pred)
    if y_true.ndim != 1 or y_pred.ndim != 1 or y_true.shape != y_pred.shape:
        raise ValueError(f"y_true and y_pred must be 1-D of equal length, got shapes {y_true.shape} and {y_pred.shape}")
    labels = np.unique(np.concatenate([y_true, y_pred]))
    if labels.size > 2:
        raise ValueError(f"binary labels expected, got {labels.size} distinct labels: {labels.tolist()}")
    if pos_label not in labels.tolist() and labels.size == 2:
        raise ValueError(f"pos_label={pos_label!r} is not one of the labels {labels.tolist()}")
    return y_true, y_pred, labels


def specificity(y_true, y_pred, *, pos_label=1, zero_division: float = 0.0) -> float:
    """Specificity (true-negative rate) ``TN / (TN + FP)`` (seed 004).

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,)
        True and predicted binary labels.
    pos_label : int or str, default=1
        The positive class; the other label is the negative class whose recall
        is returned.  With a single label present, the negative class is the
        other member of ``{0, 1}`` when the labels are 0/1.
    zero_division : float, default=0.0
        Returned when there are no negatives (``TN + FP = 0``), as scikit-learn's
        ``zero_division``.

    Returns
    -------
    float in [0, 1]
        Equals ``sklearn.metrics.recall_score(y_true, y_pred, pos_label=negative)``.

    Raises
    ------
    ValueError
        More than two labels, shapes differ, or ``pos_label`` is not a label.
    """
    from sklearn.metrics import recall_score

    y_true, y_pred, labels = _binary_labels(y_true, y_pred, pos_label)
    others = [v for v in labels.tolist() if v != pos_label]
    if others:
        negative = others[0]
    elif pos_label in (0, 1):
        negative = 1 - pos_label
    else:
        raise ValueError(f"cannot tell the negative class: only label {pos_label!r} occurs")
    return float(recall_score(y_true, y_pred, pos_label=negative, average="binary", zero_division=zero_division))


def f_beta(y_true, y_pred, beta: float, *, pos_label=1, zero_division: float = 0.0) -> float:
    """F-beta score of the positive class (seed 004; ``beta = 1`` gives F1).

    ``F_beta = (1 + beta^2) * precision * recall / (beta^2 * precision + recall)``.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,)
        True and predicted binary labels.
    beta : float > 0
        Weight of recall relative to precision.
    pos_label : int or str, default=1
    zero_division : float, default=0.0
        As scikit-learn's ``zero_division``.

    Returns
    -------
    float in [0, 1]
        Equals ``sklearn.metrics.fbeta_score(y_true, y_pred, beta=beta, pos_label=pos_label)``.

    Raises
    ------
    ValueError
        ``beta`` not a positive finite number, more than two labels, shapes differ.
    """
    from sklearn.metrics import fbeta_score

    if isinstance(beta, bool) or not isinstance(beta, numbers.Real) or not np.isfinite(beta) or beta <= 0:
        raise ValueError(f"beta must be a positive finite number, got {beta!r}")
    y_true, y_pred, _ = _binary_labels(y_true, y_pred, pos_label)
    return float(
        fbeta_score(
            y_true, y_pred, beta=float(beta), pos_label=pos_label, average="binary", zero_division=zero_division
        )
    )
