"""Evaluation metrics for cross-validation and the held-out test set.

All metrics are scikit-learn's (:mod:`sklearn.metrics`), so that the numbers are
exactly those a ``GridSearchCV`` user would get. Column names are lower case:

Regression: ``mse``, ``rmse``, ``mae``, ``r2``.
Classification (binary, positive class coded 1): ``log_loss``, ``error_rate``
(0-1 loss), ``brier``, ``accuracy``, ``balanced_accuracy``, ``precision``,
``recall``, ``f1``, ``roc_auc``, ``specificity`` (true-negative rate) and
``f_beta`` (seed 004; ``beta`` from the config key ``metrics.beta``); confusion
matrix entries ``tn``, ``fp``, ``fn``, ``tp``.

Multiclass classification (``K > 2`` classes coded ``0 .. K-1``; the columns of
``predict_proba`` in that order) fills the same columns (:func:`multiclass_metrics`):
``log_loss`` (multinomial, ``-log p(y)``), ``error_rate`` (argmax label), ``brier``
(the multiclass Brier score ``mean_i sum_k (p_ik - 1[y_i = k])²``, range [0, 2], as
``brier_score_loss`` for more than two classes), ``accuracy``, ``balanced_accuracy``;
``precision``, ``recall``, ``f1``, ``specificity`` and ``f_beta`` are *macro*
averages over the classes (each class against the rest), ``roc_auc`` the macro
one-vs-rest AUC (``roc_auc_score(multi_class="ovr")``); the confusion matrix is
the ``K x K`` list ``confusion_matrix`` (rows: true class, columns: predicted).

These functions run once per configuration × fold of every grid (thousands of
calls per run), so they make as few scikit-learn calls as give the same numbers:
``rmse`` is ``sqrt(mse)`` (bitwise what ``root_mean_squared_error`` returns for
one output), precision, recall and F1 come from one
``precision_recall_fscore_support`` call, ``specificity`` and ``f_beta`` come from
the confusion counts by scikit-learn's own formulas (``recall_score(pos_label=0)``
and ``fbeta_score``, equal bitwise: ``tests/models/test_metrics.py``), and the calls run under
``sklearn.config_context(skip_parameter_validation=True)`` (only the type
checks of the fixed arguments are skipped; scikit-learn still checks the arrays'
shapes and values).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import sklearn
from sklearn import metrics as skm

__all__ = [
    "REGRESSION_METRICS",
    "CLASSIFICATION_METRICS",
    "LOWER_IS_BETTER",
    "regression_metrics",
    "classification_metrics",
    "multiclass_metrics",
    "evaluate",
]

REGRESSION_METRICS = ("mse", "rmse", "mae", "r2")
CLASSIFICATION_METRICS = (
    "log_loss",
    "error_rate",
    "brier",
    "accuracy",
    "balanced_accuracy",
    "precision",
    "recall",
    "f1",
    "roc_auc",
    "specificity",
    "f_beta",
)
#: Metrics usable as the model-selection (and Rashomon) loss.
LOWER_IS_BETTER = frozenset({"mse", "rmse", "mae", "log_loss", "error_rate", "brier"})


def regression_metrics(y_true: np.ndarray, y_pred: np.ndarray) -> dict[str, float]:
    """MSE, RMSE, MAE and R² of ``y_pred`` (shape ``(n,)``) against ``y_true``.

    Units: those of the target (squared for ``mse``); ``r2`` is unitless.

    Raises
    ------
    ValueError
        If the two arrays differ in length or hold NaN or infinity (scikit-learn's
        checks).
    """
    y_true = np.asarray(y_true, dtype=float)
    y_pred = np.asarray(y_pred, dtype=float)
    with sklearn.config_context(skip_parameter_validation=True):
        mse = float(skm.mean_squared_error(y_true, y_pred))
        return {
            "mse": mse,
            "rmse": math.sqrt(mse),
            "mae": float(skm.mean_absolute_error(y_true, y_pred)),
            "r2": float(skm.r2_score(y_true, y_pred)),
        }


def _specificity_f_beta(y_true: np.ndarray, y_hat: np.ndarray, beta: float) -> tuple[float, float]:
    """``TN / (TN + FP)`` and ``F_beta`` of class 1 from the confusion counts, with
    scikit-learn's operations (``_prf_divide``: 0 where the denominator is 0), so that
    they equal ``recall_score(pos_label=0, zero_division=0)`` and
    ``fbeta_score(beta=beta, zero_division=0)`` bitwise."""
    pos_true = y_true == 1
    pos_hat = y_hat == 1
    tp = np.count_nonzero(pos_true & pos_hat)
    fp = np.count_nonzero(~pos_true & pos_hat)
    fn = np.count_nonzero(pos_true & ~pos_hat)
    tn = y_true.size - tp - fp - fn
    negatives = tn + fp
    spec = float(np.float64(tn) / np.float64(negatives)) if negatives else 0.0
    beta2 = float(beta) ** 2
    numerator = (1 + beta2) * np.float64(tp)
    denominator = beta2 * np.float64(tp + fn) + np.float64(tp + fp)
    fb = float(numerator / denominator) if denominator else 0.0
    return spec, fb


def classification_metrics(
    y_true: np.ndarray, proba: np.ndarray, *, confusion: bool = False, beta: float = 1.0
) -> dict[str, float]:
    """Binary classification metrics from predicted class probabilities.

    Parameters
    ----------
    y_true : ndarray of shape (n,)
        Labels in {0, 1}.
    proba : ndarray of shape (n, 2) or (n,)
        ``predict_proba`` output, or the probability of class 1.
    confusion : bool, default=False
        Also return the confusion-matrix counts ``tn, fp, fn, tp``.
    beta : float > 0, default=1.0
        ``beta`` of ``f_beta`` (seed 004; van Rijsbergen 1979): ``(1 + beta²) P R /
        (beta² P + R)``; 1 gives F1. ``specificity`` is ``TN / (TN + FP)``.
        Both are 0 where undefined (``zero_division=0``, as the other metrics).

    Raises
    ------
    ValueError
        If ``proba`` has one column, ``y_true`` and ``proba`` differ
        in length (scikit-learn's checks), or ``beta`` is not a positive finite number.

    Notes
    -----
    Hard labels are ``argmax`` of the probabilities (class 0 on ties), which is
    what scikit-learn's probabilistic classifiers return from ``predict``.
    ``roc_auc`` is NaN when ``y_true`` holds a single class. ``proba`` with more
    than two columns is a multiclass problem: :func:`multiclass_metrics`.
    """
    if isinstance(beta, bool) or not isinstance(beta, (int, float, np.floating)) or not 0 < beta < np.inf:
        raise ValueError(f"beta must be a positive finite number, got {beta!r}")
    y_true = np.asarray(y_true).astype(int)
    proba = np.asarray(proba, dtype=float)
    if proba.ndim == 2 and proba.shape[1] > 2:
        return multiclass_metrics(y_true, proba, confusion=confusion, beta=beta)
    if proba.ndim == 2:
        if proba.shape[1] != 2:
            raise ValueError(f"binary metrics need 2 probability columns, got {proba.shape[1]}")
        p1 = proba[:, 1]
        y_hat = np.argmax(proba, axis=1)
    else:
        p1 = proba
        y_hat = (p1 > 0.5).astype(int)
    with sklearn.config_context(skip_parameter_validation=True):
        precision, recall, f1, _ = skm.precision_recall_fscore_support(y_true, y_hat, average="binary", zero_division=0)
        out = {
            "log_loss": float(skm.log_loss(y_true, np.column_stack([1 - p1, p1]), labels=[0, 1])),
            "error_rate": float(np.mean(y_hat != y_true)),
            "brier": float(skm.brier_score_loss(y_true, p1, pos_label=1)),
            "accuracy": float(skm.accuracy_score(y_true, y_hat)),
            "balanced_accuracy": float(skm.balanced_accuracy_score(y_true, y_hat)),
            "precision": float(precision),
            "recall": float(recall),
            "f1": float(f1),
            "roc_auc": float(skm.roc_auc_score(y_true, p1)) if len(np.unique(y_true)) == 2 else float("nan"),
        }
        out["specificity"], out["f_beta"] = _specificity_f_beta(y_true, y_hat, beta)
        if confusion:
            tn, fp, fn, tp = skm.confusion_matrix(y_true, y_hat, labels=[0, 1]).ravel()
            out.update({"tn": int(tn), "fp": int(fp), "fn": int(fn), "tp": int(tp)})
    return out


def multiclass_metrics(
    y_true: np.ndarray, proba: np.ndarray, *, confusion: bool = False, beta: float = 1.0
) -> dict[str, float]:
    """Classification metrics of ``K > 2`` classes from predicted class probabilities.

    Parameters
    ----------
    y_true : ndarray of shape (n,)
        Labels in ``0 .. K-1``.
    proba : ndarray of shape (n, K)
        ``predict_proba`` output, column ``k`` the probability of class ``k``.
    confusion : bool, default=False
        Also return ``confusion_matrix``: the ``K x K`` counts as nested lists
        (``sklearn.metrics.confusion_matrix(labels=range(K))``; row = true class,
        column = predicted class).
    beta : float > 0, default=1.0
        ``beta`` of the macro-averaged ``f_beta``.

    Returns
    -------
    dict
        The keys of :data:`CLASSIFICATION_METRICS` (module docstring: the
        multinomial log loss, the argmax error, the multiclass Brier score in [0, 2],
        macro averages of the per-class precision, recall, F1, specificity and
        F-beta with ``zero_division=0``, the macro one-vs-rest ROC AUC, NaN unless
        every class occurs in ``y_true``).

    Raises
    ------
    ValueError
        ``proba`` not of shape ``(n, K)`` with ``K > 2``, labels outside ``0 .. K-1``,
        or ``beta`` not a positive finite number.
    """
    if isinstance(beta, bool) or not isinstance(beta, (int, float, np.floating)) or not 0 < beta < np.inf:
        raise ValueError(f"beta must be a positive finite number, got {beta!r}")
    y_true = np.asarray(y_true).astype(int)
    proba = np.asarray(proba, dtype=float)
    if proba.ndim != 2 or proba.shape[1] < 3:
        raise ValueError(f"multiclass metrics need probabilities of shape (n, K > 2), got {proba.shape}")
    K = proba.shape[1]
    labels = np.arange(K)
    if y_true.size and (y_true.min() < 0 or y_true.max() >= K):
        raise ValueError(f"labels must lie in 0..{K - 1} for {K} probability columns, got {np.unique(y_true)}")
    y_hat = np.argmax(proba, axis=1)
    with sklearn.config_context(skip_parameter_validation=True), warnings.catch_warnings():
        # XGBoost's float32 probabilities sum to 1 within float32 rounding, not within
        # log_loss's float64 check (a warning only: log_loss does not renormalise)
        warnings.filterwarnings("ignore", message="The y_prob values do not sum to one", category=UserWarning)
        precision, recall, f1, _ = skm.precision_recall_fscore_support(
            y_true, y_hat, labels=labels, average="macro", zero_division=0
        )
        cm = skm.confusion_matrix(y_true, y_hat, labels=labels)
        fp = cm.sum(axis=0) - np.diag(cm)
        tn = cm.sum() - cm.sum(axis=0) - cm.sum(axis=1) + np.diag(cm)
        negatives = tn + fp
        spec = np.divide(tn, negatives, out=np.zeros(K), where=negatives > 0)
        out = {
            "log_loss": float(skm.log_loss(y_true, proba, labels=labels)),
            "error_rate": float(np.mean(y_hat != y_true)),
            "brier": float(skm.brier_score_loss(y_true, proba, labels=labels)),
            "accuracy": float(skm.accuracy_score(y_true, y_hat)),
            "balanced_accuracy": float(skm.balanced_accuracy_score(y_true, y_hat)),
            "precision": float(precision),
            "recall": float(recall),
            "f1": float(f1),
            "roc_auc": (
                float(skm.roc_auc_score(y_true, proba, multi_class="ovr", average="macro", labels=labels))
                if np.unique(y_true).size == K
                else float("nan")
            ),
            "specificity": float(np.mean(spec)),
            "f_beta": float(
                skm.fbeta_score(y_true, y_hat, beta=float(beta), labels=labels, average="macro", zero_division=0)
            ),
        }
    if confusion:
        out["confusion_matrix"] = cm.astype(int).tolist()
    return out


def evaluate(task: str, y_true: np.ndarray, output: np.ndarray, *, confusion: bool = False, beta: float = 1.0) -> dict:
    """Dispatch to :func:`regression_metrics` or :func:`classification_metrics`.

    ``output`` is ``predict`` (regression) or ``predict_proba`` (classification);
    ``beta`` is the F-beta weight (classification only).
    """
    if task == "regression":
        return regression_metrics(y_true, output)
    if task == "classification":
        return classification_metrics(y_true, output, confusion=confusion, beta=beta)
    raise ValueError(f"unknown task {task!r}; expected 'regression' or 'classification'")
