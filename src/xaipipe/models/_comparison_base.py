"""What every comparison of :mod:`xaipipe.models.comparison` reads: checked vectors and the
per-row losses of the test predictions (:func:`row_losses`, :func:`class_probabilities`).
Re-exported by :mod:`xaipipe.models.comparison`."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..losses import canonical_loss
from ..validation import check_finite

__all__ = ["class_probabilities", "row_losses"]


# ----------------------------------------------------------------------------- validation
def _vector(x, name: str, dtype=float) -> np.ndarray:
    arr = np.asarray(x, dtype=dtype)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} is empty")
    if dtype is float:
        check_finite(arr, name)
    return arr


def _same_length(**arrays: np.ndarray) -> int:
    lengths = {k: len(v) for k, v in arrays.items()}
    if len(set(lengths.values())) != 1:
        raise ValueError(f"arrays differ in length: {lengths}")
    return next(iter(lengths.values()))


def _check_bootstrap(n_bootstrap: int, confidence: float | None = None) -> None:
    if isinstance(n_bootstrap, bool) or not isinstance(n_bootstrap, (int, np.integer)) or n_bootstrap < 2:
        raise ValueError(f"n_bootstrap must be an integer >= 2, got {n_bootstrap!r}")
    if confidence is not None and not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence!r}")


# ----------------------------------------------------------------------------- row losses
def row_losses(y_true, prediction, loss: str) -> np.ndarray:
    """Loss of each test row (their mean is the test loss).

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Observed targets; for classification, labels in {0, 1} for ``log_loss``
        (``0 .. K-1`` with ``K > 2`` probability columns).
    prediction : array-like
        ``error_rate``: predicted labels, shape (n,). ``log_loss``: probability of
        class 1, shape (n,), or ``predict_proba`` output, shape (n, 2); a multiclass
        model's ``predict_proba``, shape (n, K), gives ``-log clip(p_i(y_i))``.
        ``mse`` / ``mae``: predicted values, shape (n,).
    loss : {"error_rate", "log_loss", "mse", "mae"}
        Or the canonical names ``zero_one``, ``squared_error``, ``absolute_error``
        (:mod:`xaipipe.losses`).

    Returns
    -------
    ndarray of shape (n,)
        Units: 0/1 (``error_rate``), nats (``log_loss``), squared target units
        (``mse``), target units (``mae``). ``row_losses(...).mean()`` equals
        :func:`sklearn.metrics.log_loss` / ``mean_squared_error`` /
        ``mean_absolute_error`` / ``1 - accuracy_score``.

    Raises
    ------
    ValueError
        Unknown ``loss``, shapes that differ, NaN, probabilities outside [0, 1] or
        labels other than 0/1 for ``log_loss``.
    """
    kind = canonical_loss(loss)
    if kind == "zero_one":
        y = np.asarray(y_true)
        yhat = np.asarray(prediction)
        if y.ndim != 1 or yhat.ndim != 1:
            raise ValueError(f"error_rate needs 1-d labels, got shapes {y.shape} and {yhat.shape}")
        _same_length(y_true=y, y_pred=yhat)
        return (y != yhat).astype(float)
    if kind == "log_loss":
        y = _vector(y_true, "y_true")
        p = np.asarray(prediction, dtype=float)
        if p.ndim == 2 and p.shape[1] > 2:
            return _multiclass_log_loss(y, p)
        if p.ndim == 2:
            if p.shape[1] != 2:
                raise ValueError(f"log_loss needs the probability of class 1 or 2 columns, got shape {p.shape}")
            p = p[:, 1]
        p = _vector(p, "proba_1")
        _same_length(y_true=y, proba_1=p)
        if not np.isin(y, (0.0, 1.0)).all():
            raise ValueError("log_loss needs labels coded 0/1 in y_true")
        if (p < 0).any() or (p > 1).any():
            raise ValueError("proba_1 holds values outside [0, 1]")
        eps = np.finfo(float).eps
        p_true = np.where(y == 1, p, 1.0 - p)
        return -np.log(np.clip(p_true, eps, 1.0 - eps))
    y = _vector(y_true, "y_true")
    yhat = _vector(prediction, "y_pred")
    _same_length(y_true=y, y_pred=yhat)
    return (y - yhat) ** 2 if kind == "squared_error" else np.abs(y - yhat)


def _multiclass_log_loss(y: np.ndarray, P: np.ndarray) -> np.ndarray:
    """Row losses ``-log clip(P[i, y_i])`` of ``K > 2`` classes (``sklearn.metrics.log_loss``'s clipping)."""
    _same_length(y_true=y, proba=P[:, 0])
    K = P.shape[1]
    labels = y.astype(np.int64)
    if not np.array_equal(labels, y) or labels.min() < 0 or labels.max() >= K:
        raise ValueError(f"log_loss of {K} classes needs labels 0..{K - 1} in y_true")
    if not np.isfinite(P).all() or (P < 0).any() or (P > 1).any():
        raise ValueError("class probabilities hold values outside [0, 1] or NaN")
    eps = np.finfo(float).eps
    return -np.log(np.clip(P[np.arange(len(labels)), labels], eps, 1.0 - eps))


def class_probabilities(frame: pd.DataFrame) -> np.ndarray | None:
    """The ``(n, K)`` probabilities ``proba_0 .. proba_{K-1}`` of a multiclass model's test
    predictions (``fit`` rule), or None for a binary classifier (``proba_1`` only) or a regressor."""
    if "proba_0" not in frame.columns:
        return None
    K = 0
    while f"proba_{K}" in frame.columns:
        K += 1
    return frame[[f"proba_{k}" for k in range(K)]].to_numpy(dtype=float)
