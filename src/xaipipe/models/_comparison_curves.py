"""The reject-option curves (seed 003, Fig 3.1) and the regression views (Fig 3.4) of the test
predictions. Re-exported by :mod:`xaipipe.models.comparison`."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ._comparison_base import _same_length, _vector

__all__ = ["predicted_vs_observed", "regression_summary", "reject_option_curve"]


# ----------------------------------------------------------------------------- reject option
def reject_option_curve(y_true, proba, *, risks=None, classes=None) -> pd.DataFrame:
    """Share of rows given the null action, and the error on the rest, against the risk λ.

    Decision rule (seed 003 §2.6 and its Fig 3.1 code; Chow 1970): predict
    ``classes[argmax_k proba[:, k]]`` if ``max_k proba[:, k] > 1 - λ``, otherwise
    reject. ``λ`` is the cost of rejecting relative to a misclassification (cost 1).

    Parameters
    ----------
    y_true : array-like of shape (n,)
    proba : array-like of shape (n, K) or (n,)
        Posterior class probabilities (``predict_proba``), or the probability of
        class 1 of a binary problem (then ``classes`` defaults to ``[0, 1]``).
    risks : array-like, optional
        Values of ``λ`` in [0, 1]; default ``numpy.linspace(0, 1, 101)``.
    classes : array-like of shape (K,), optional
        Label of each probability column; default ``0..K-1``.

    Returns
    -------
    DataFrame
        One row per ``λ``: ``risk``, ``threshold`` (``1 - λ``), ``n_test``,
        ``n_rejected``, ``rejected_share``, ``n_accepted``, ``error_accepted`` (error
        rate of the accepted rows; NaN when none is accepted -- the seed plots 0).

    Raises
    ------
    ValueError
        Shapes that differ, probabilities outside [0, 1], risks outside [0, 1].
    """
    y = np.asarray(y_true)
    P = np.asarray(proba, dtype=float)
    if P.ndim == 1:
        P = np.column_stack([1.0 - P, P])
    if P.ndim != 2 or y.ndim != 1 or P.shape[0] != y.shape[0]:
        raise ValueError(f"shape mismatch: y_true {y.shape}, proba {np.shape(proba)}")
    if not np.all(np.isfinite(P)) or (P < 0).any() or (P > 1).any():
        raise ValueError("proba holds values outside [0, 1] or NaN")
    labels = np.arange(P.shape[1]) if classes is None else np.asarray(classes)
    if len(labels) != P.shape[1]:
        raise ValueError(f"{len(labels)} classes for {P.shape[1]} probability columns")
    lam = np.linspace(0.0, 1.0, 101) if risks is None else np.asarray(risks, dtype=float).ravel()
    if lam.size == 0 or (lam < 0).any() or (lam > 1).any():
        raise ValueError("risks must be values in [0, 1]")
    top = P.max(axis=1)
    wrong = labels[P.argmax(axis=1)] != y
    n = len(y)
    rows = []
    for r in lam:
        accepted = top > 1.0 - r
        k = int(accepted.sum())
        rows.append(
            {
                "risk": float(r),
                "threshold": float(1.0 - r),
                "n_test": n,
                "n_rejected": n - k,
                "rejected_share": (n - k) / n,
                "n_accepted": k,
                "error_accepted": float(wrong[accepted].mean()) if k else float("nan"),
            }
        )
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------------- regression
def predicted_vs_observed(y_true, y_pred, *, row=None) -> pd.DataFrame:
    """Points of the predicted-against-observed plot (seed 003, Fig 3.4).

    Returns
    -------
    DataFrame
        ``row`` (given, else 0..n-1), ``y_true``, ``y_pred``, ``residual``
        (``y_true - y_pred``), target units. The ideal model is the line ``y = x``.
    """
    y = _vector(y_true, "y_true")
    yhat = _vector(y_pred, "y_pred")
    n = _same_length(y_true=y, y_pred=yhat)
    rows = np.arange(n) if row is None else np.asarray(row)
    if len(rows) != n:
        raise ValueError(f"row has {len(rows)} entries for {n} predictions")
    return pd.DataFrame({"row": rows, "y_true": y, "y_pred": yhat, "residual": y - yhat})


def regression_summary(y_true, y_pred) -> pd.DataFrame:
    """One row: ``n_test``, ``r2``, ``rmse``, ``mse``, ``mae`` (scikit-learn's metrics,
    via :func:`xaipipe.models.metrics.regression_metrics`)."""
    from .metrics import regression_metrics

    y = _vector(y_true, "y_true")
    yhat = _vector(y_pred, "y_pred")
    n = _same_length(y_true=y, y_pred=yhat)
    m = regression_metrics(y, yhat)
    return pd.DataFrame([{"n_test": n, "r2": m["r2"], "rmse": m["rmse"], "mse": m["mse"], "mae": m["mae"]}])
