"""Inputs of :mod:`xaipipe.explain.learner`: the data checks and the estimators of the refits
(:func:`estimator_factory`, re-exported by :mod:`xaipipe.explain.learner`)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from ...models.families import get_family, make_estimator
from ...validation import check_finite, check_matrix

__all__ = ["estimator_factory"]


# ----------------------------------------------------------------------------- validation


def _check_Xy(X, y, name: str = "X", allow_nan: bool = False) -> tuple[np.ndarray, np.ndarray, list[str] | None]:
    names = None
    if hasattr(X, "columns") and hasattr(X, "to_numpy"):
        names = [str(c) for c in X.columns]
        X = X.to_numpy()
    Xa = check_matrix(X, name, allow_nan=allow_nan, min_rows=2)
    ya = np.asarray(y)
    if ya.ndim != 1 or ya.shape[0] != Xa.shape[0]:
        raise ValueError(f"y for {name} must have shape ({Xa.shape[0]},), got {ya.shape}")
    if ya.dtype.kind not in "biuf":
        raise ValueError(f"y for {name} must be numeric (classes coded 0/1), got dtype {ya.dtype}")
    check_finite(ya, f"y for {name}")
    return Xa, ya, names


# ----------------------------------------------------------------------------- estimators


def _from_family(family, task, params, options, *, random_state):

    return make_estimator(family, task, params, random_state=random_state, n_jobs=1, options=options)


def estimator_factory(
    family: str, task: str, params: Mapping[str, Any] | None = None, *, options: Mapping[str, Any] | None = None
) -> Callable[..., Any]:
    """Picklable ``factory(random_state=int) -> unfitted estimator`` for one configuration.

    Wraps :func:`xaipipe.models.families.make_estimator` (single-threaded,
    ``n_jobs=1``) so that :func:`learner_refits` can build refit ``k`` with its
    own seed in a worker process.

    Raises
    ------
    KeyError, ValueError
        Unknown family or a task it does not support (checked now).
    """

    fam = get_family(family)
    if task not in fam.tasks:
        raise ValueError(f"model family {family!r} does not support task {task!r}")
    # the resolved Family, not its name: worker processes know only the built-in registry
    return functools.partial(_from_family, fam, task, dict(params or {}), dict(options or {}))


def _build(estimator, seed: int, reseed: bool):
    if hasattr(estimator, "fit"):
        from sklearn.base import clone

        est = clone(estimator)
        if reseed:
            keys = [k for k in est.get_params(deep=True) if k == "random_state" or k.endswith("__random_state")]
            if keys:
                est.set_params(**{k: seed for k in keys})
        return est
    if callable(estimator):
        est = estimator(random_state=seed)
        if not hasattr(est, "fit"):
            raise TypeError(f"the estimator factory returned {type(est).__name__}, which has no fit()")
        return est
    raise TypeError(
        f"estimator must be an unfitted scikit-learn estimator or a factory(random_state=) callable, got {type(estimator).__name__}"
    )
