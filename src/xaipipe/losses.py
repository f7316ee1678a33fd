"""The losses of the pipeline: one registry, one name per loss, the other spellings as aliases.

Canonical names (scikit-learn's terms): ``squared_error``, ``absolute_error`` (regression),
``log_loss`` and ``zero_one`` (classification). Aliases: ``mse`` = ``squared_error``,
``mae`` = ``absolute_error``, ``error_rate`` = ``zero_one``. A loss given under an alias
(config, a function's ``loss=``) means the canonical loss; the published tables keep the
strings they always wrote (``model_reliance.csv``'s ``loss`` column says ``squared_error`` /
``zero_one``; ``test_loss.csv`` and ``model_comparison.csv`` say ``mse`` / ``mae`` /
``error_rate``, the names of the metrics of :mod:`xaipipe.models.metrics`), see
``docs/layout.md`` ("Vocabulary").

The per-sample losses of ``m`` models at once (:func:`squared_error`, :func:`log_loss`,
:func:`zero_one`; output of shape ``(m, n)`` or ``(m, n, K)``) are those of model reliance
(:mod:`xaipipe.explain.reliance`, Fisher, Rudin & Dominici 2019, §3); the row losses of one
model's predictions are :func:`xaipipe.models.comparison.row_losses`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = [
    "LOSSES",
    "LOSS_ALIASES",
    "LOSS_TASKS",
    "canonical_loss",
    "default_loss",
    "log_loss",
    "resolve_loss",
    "squared_error",
    "zero_one",
]

#: Canonical loss name -> the task it applies to.
LOSS_TASKS = {
    "squared_error": "regression",
    "absolute_error": "regression",
    "log_loss": "classification",
    "zero_one": "classification",
}

#: Other spellings of a loss -> its canonical name (the metric names of ``models.metrics`` and
#: the comparison tables).
LOSS_ALIASES = {"mse": "squared_error", "mae": "absolute_error", "error_rate": "zero_one"}


def canonical_loss(name: str) -> str:
    """The canonical name of a loss given by its name or an alias.

    Raises
    ------
    ValueError
        If ``name`` is neither a canonical name nor an alias.
    """
    if isinstance(name, str):
        if name in LOSS_TASKS:
            return name
        if name in LOSS_ALIASES:
            return LOSS_ALIASES[name]
    raise ValueError(f"unknown loss {name!r}; choose one of {sorted(LOSS_TASKS)} (aliases {sorted(LOSS_ALIASES)})")


# task -> the default loss of model reliance when none is given
_DEFAULT_LOSSES = {"regression": "squared_error", "classification": "log_loss"}


def default_loss(task: str) -> str:
    """The default model-reliance loss of a task.

    Parameters
    ----------
    task : {"regression", "classification"}
        The prediction task.

    Returns
    -------
    str
        ``"squared_error"`` for regression, ``"log_loss"`` for classification (canonical
        names of :data:`LOSSES`).

    Raises
    ------
    ValueError
        If ``task`` is neither ``"regression"`` nor ``"classification"``.
    """
    try:
        return _DEFAULT_LOSSES[task]
    except (KeyError, TypeError):
        raise ValueError(f"unknown task {task!r}; expected 'regression' or 'classification'") from None


def _as_member_output(output: Any, n: int, name: str) -> np.ndarray:
    out = np.asarray(output)
    if out.ndim not in (2, 3) or out.shape[1] != n:
        raise ValueError(
            f"{name}: model output must have shape (n_members, {n}) or (n_members, {n}, n_classes); got {out.shape}"
        )
    if not np.issubdtype(out.dtype, np.number) or np.issubdtype(out.dtype, np.complexfloating):
        raise ValueError(f"{name}: model output must be real numbers, got dtype {out.dtype}")
    return out


def _binary_labels(y: np.ndarray, name: str) -> np.ndarray:
    yy = np.asarray(y)
    if yy.ndim != 1:
        raise ValueError(f"{name}: y must be 1-D, got shape {yy.shape}")
    ok = np.isin(yy, (0, 1))
    if not ok.all():
        bad = np.unique(yy[~ok])[:5]
        raise ValueError(f"{name}: binary classification needs labels 0/1; found {bad.tolist()}")
    return yy.astype(bool)


def _class1_probability(out: np.ndarray, name: str) -> np.ndarray:
    """Probability of class 1 from (m, n) or (m, n, 2) output, as a float array."""
    if out.ndim == 3:
        if out.shape[2] != 2:
            raise ValueError(f"{name}: only binary classification is supported; output has {out.shape[2]} classes")
        p = out[..., 1]
    else:
        p = out
    if not np.issubdtype(p.dtype, np.floating):
        p = p.astype(np.float64)
    if p.size and (np.nanmax(p) > 1 or np.nanmin(p) < 0):
        raise ValueError(f"{name}: probabilities must lie in [0, 1]; got range [{np.nanmin(p)}, {np.nanmax(p)}]")
    return p


def _multiclass_output(output: Any) -> np.ndarray | None:
    """``output`` as an array when it holds more than two class probabilities ``(m, n, K > 2)``, else None."""
    out = np.asarray(output)
    return out if out.ndim == 3 and out.shape[2] > 2 else None


def _class_probability(y: np.ndarray, out: np.ndarray, name: str) -> tuple[np.ndarray, np.ndarray]:
    """Labels ``0 .. K-1`` and the checked float probabilities ``(m, n, K)`` of a multiclass output."""
    yy = np.asarray(y)
    if yy.ndim != 1:
        raise ValueError(f"{name}: y must be 1-D, got shape {yy.shape}")
    out = _as_member_output(out, yy.shape[0], name)
    K = out.shape[2]
    labels = yy.astype(np.int64) if np.issubdtype(yy.dtype, np.number) else None
    if labels is None or not np.array_equal(labels, yy) or (labels.size and (labels.min() < 0 or labels.max() >= K)):
        bad = np.unique(yy)[:5]
        raise ValueError(f"{name}: {K}-class classification needs labels 0..{K - 1}; found {bad.tolist()}")
    p = out if np.issubdtype(out.dtype, np.floating) else out.astype(np.float64)
    if p.size and (np.nanmax(p) > 1 or np.nanmin(p) < 0):
        raise ValueError(f"{name}: probabilities must lie in [0, 1]; got range [{np.nanmin(p)}, {np.nanmax(p)}]")
    return labels, p


def squared_error(y: np.ndarray, output: np.ndarray) -> np.ndarray:
    """Per-sample squared error ``(y_i - f(x_i))²`` for ``m`` models at once.

    Parameters
    ----------
    y : ndarray of shape (n,)
        Responses (target units).
    output : ndarray of shape (m, n)
        Predictions of ``m`` regression models.

    Returns
    -------
    ndarray of shape (m, n)
        Squared errors (target units squared); the mean over samples equals
        ``sklearn.metrics.mean_squared_error``.

    Raises
    ------
    ValueError
        If ``output`` is not ``(m, n)``.
    """
    y = np.asarray(y)
    out = _as_member_output(output, y.shape[0], "squared_error")
    if out.ndim != 2:
        raise ValueError(f"squared_error: output must have shape (n_members, n), got {out.shape}")
    return (y - out) ** 2


def log_loss(y: np.ndarray, output: np.ndarray) -> np.ndarray:
    """Per-sample log loss (natural log) for ``m`` models at once.

    Binary: ``-log(clip(p_i))`` if ``y_i = 1`` and ``-log(clip(1 - p_i))`` if ``y_i = 0``, with
    ``p_i`` the probability of class 1 and ``clip`` to ``[eps, 1 - eps]``, ``eps`` the
    machine epsilon of the probabilities' dtype (as ``sklearn.metrics.log_loss``).
    Multiclass (``K > 2`` probability columns): ``-log(clip(p_i(y_i)))``, the
    multinomial log loss, again clipped as ``sklearn.metrics.log_loss`` clips.

    Parameters
    ----------
    y : ndarray of shape (n,)
        Labels in {0, 1}; ``0 .. K-1`` for ``K`` classes.
    output : ndarray of shape (m, n), (m, n, 2) or (m, n, K)
        Probability of class 1, or ``predict_proba`` output (binary: column 1 is used).

    Returns
    -------
    ndarray of shape (m, n)
        Losses in nats.

    Raises
    ------
    ValueError
        If labels are not 0/1, the output has more than two classes, or a
        probability lies outside ``[0, 1]``.
    """
    multi = _multiclass_output(output)
    if multi is not None:
        labels, P = _class_probability(y, multi, "log_loss")
        eps = np.finfo(P.dtype).eps
        q = np.take_along_axis(P, labels[None, :, None], axis=2)[..., 0]
        return -np.log(np.clip(q, eps, 1 - eps))
    yb = _binary_labels(y, "log_loss")
    p = _class1_probability(_as_member_output(output, yb.shape[0], "log_loss"), "log_loss")
    eps = np.finfo(p.dtype).eps
    q = np.where(yb, p, 1 - p)
    return -np.log(np.clip(q, eps, 1 - eps))


def zero_one(y: np.ndarray, output: np.ndarray) -> np.ndarray:
    """Per-sample zero-one loss of the hard label for ``m`` models at once.

    The hard label is the ``argmax`` of the class probabilities, the lowest class on
    ties (for ``(m, n)`` input: 1 iff ``p > 1 - p``), as ``predict`` of scikit-learn's
    probabilistic classifiers.

    Parameters
    ----------
    y : ndarray of shape (n,)
        Labels in {0, 1}; ``0 .. K-1`` for ``K`` classes.
    output : ndarray of shape (m, n), (m, n, 2) or (m, n, K)
        Probability of class 1, or ``predict_proba`` output.

    Returns
    -------
    ndarray of shape (m, n)
        1.0 where the hard label differs from ``y``, else 0.0.

    Raises
    ------
    ValueError
        As :func:`log_loss`.
    """
    multi = _multiclass_output(output)
    if multi is not None:
        labels, P = _class_probability(y, multi, "zero_one")
        return (np.argmax(P, axis=2) != labels[None, :]).astype(np.float64)
    yb = _binary_labels(y, "zero_one")
    out = _as_member_output(output, yb.shape[0], "zero_one")
    if out.ndim == 3:
        _class1_probability(out, "zero_one")  # validates 2 classes and range
        label = out[..., 1] > out[..., 0]
    else:
        p = _class1_probability(out, "zero_one")
        label = p > 1 - p
    return (label != yb).astype(np.float64)


#: Loss name -> per-sample loss function ``loss(y, output) -> (m, n)`` (the losses of model
#: reliance; ``absolute_error`` has none there).
LOSSES: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "squared_error": squared_error,
    "log_loss": log_loss,
    "zero_one": zero_one,
}


def resolve_loss(loss) -> tuple[str, Callable]:
    """The name and per-sample function of a model-reliance loss.

    Parameters
    ----------
    loss : str or callable
        A name of :data:`LOSSES` or an alias of one (:data:`LOSS_ALIASES`), or a function
        ``loss(y, output) -> (m, n)``.

    Returns
    -------
    (name, function)
        The canonical name (a callable's ``__name__``, ``"custom"`` without one) and the function.

    Raises
    ------
    ValueError
        If ``loss`` is not a known name or a callable.
    """
    if callable(loss):
        return getattr(loss, "__name__", "custom"), loss
    name = LOSS_ALIASES.get(loss, loss) if isinstance(loss, str) else loss
    try:
        return name, LOSSES[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown loss {loss!r}; choose one of {sorted(LOSSES)} or pass a callable") from None
