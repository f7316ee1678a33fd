"""Exact shared-prefix evaluation of tree ensembles.

An ensemble fitted with ``n_estimators = K`` contains, as its first ``k`` members,
exactly the ensemble that would have been fitted with ``n_estimators = k`` (same
``random_state``, all other settings equal):

* **random forest** (scikit-learn): the per-tree seeds are drawn in sequence
  from ``random_state`` before any tree is fitted, and tree ``b`` depends only on
  its own seed, so trees ``1..k`` are the same. The forest's prediction is
  ``(0 + p_1 + ... + p_k) / k`` accumulated in tree order; we accumulate in the
  same order with ``n_jobs = 1`` semantics, so the result is bitwise equal to
  ``RandomForest*(n_estimators=k).predict`` / ``predict_proba`` (which, with
  ``n_jobs > 1``, adds trees in thread order and is not bitwise reproducible).
* **gradient boosting** (scikit-learn): stage ``b`` is fitted to the gradient
  of stages ``1..b-1`` only; ``staged_predict`` / ``staged_predict_proba`` give
  the predictions after each stage.
* **XGBoost**: boosting round ``b`` depends on rounds ``1..b-1`` only;
  ``predict(..., iteration_range=(0, k))`` uses the first ``k`` rounds. All
  prefixes come from one pass over the rounds: the margin after ``k1`` rounds is
  the ``base_margin`` of the segment ``iteration_range=(k1, k2)``; XGBoost's CPU
  predictor starts each row at its base margin and adds the rounds' leaf values
  one by one in float32, so the chained margin is bitwise the margin of
  ``(0, k2)`` (measured on the Wine Rashomon set: 280 s of ``iteration_range``
  calls from 0 became 22 s).

So all ``n_estimators`` values of one configuration come from one fit: the cost of
a grid over ``n_estimators`` drops from ``sum(ks)`` trees to ``max(ks)`` trees per
fold. ``tests/models/test_prefix.py`` proves the bitwise equality per family.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from itertools import islice

import numpy as np
from sklearn.base import BaseEstimator, is_classifier

from .families import family_of, final_estimator
from .output import model_output

__all__ = ["ensemble_kind", "n_members", "prefix_predictions", "member_predictor"]


def ensemble_kind(estimator: BaseEstimator) -> str | None:
    """The prefix kind of a fitted model's family: ``"forest"``, ``"boosting"``,
    ``"xgboost"`` or ``None`` (:attr:`xaipipe.models.families.Family.prefix`).

    ``None`` means the estimator has no ``n_estimators`` prefix structure (or is
    not a registered family).
    """
    fam = family_of(estimator)
    return None if fam is None else fam.prefix


def n_members(estimator: BaseEstimator) -> int:
    """Number of fitted members (trees / boosting rounds) of an ensemble.

    Raises
    ------
    TypeError
        The estimator is not an ensemble with a prefix kind.
    """
    kind = ensemble_kind(estimator)
    est = final_estimator(estimator)
    if kind == "forest":
        return len(est.estimators_)
    if kind == "boosting":
        return int(est.n_estimators_)
    if kind == "xgboost":
        return int(est.get_booster().num_boosted_rounds())
    raise TypeError(f"{type(est).__name__} is not a supported tree ensemble")


def _check_ks(ks: Sequence[int], available: int) -> list[int]:
    ks = [int(k) for k in ks]
    if not ks:
        raise ValueError("n_estimators list is empty")
    if any(k < 1 for k in ks):
        raise ValueError(f"n_estimators values must be >= 1, got {ks}")
    if max(ks) > available:
        raise ValueError(f"asked for a prefix of {max(ks)} members but the ensemble has only {available}")
    return ks


def prefix_predictions(estimator: BaseEstimator, X: np.ndarray, n_estimators: Sequence[int]) -> np.ndarray:
    """Predictions of every prefix ``k`` in ``n_estimators`` from one fitted ensemble.

    Parameters
    ----------
    estimator : fitted random forest, gradient boosting or XGBoost model
        Fitted with ``n_estimators >= max(n_estimators)``.
    X : ndarray of shape (n_samples, n_features)
    n_estimators : sequence of int
        Prefix sizes ``k`` (any order, duplicates allowed).

    Returns
    -------
    ndarray
        Shape ``(len(n_estimators), n_samples)`` for regressors (``predict``) and
        ``(len(n_estimators), n_samples, n_classes)`` for classifiers
        (``predict_proba``). Entry ``i`` is bitwise equal to the output of the
        same estimator refitted with ``n_estimators = n_estimators[i]``.

    Raises
    ------
    TypeError
        If ``estimator`` is not a supported ensemble.
    ValueError
        If a requested prefix is larger than the fitted ensemble or < 1.

    References
    ----------
    Scikit-learn: ``BaseForest.predict`` (accumulation ``out += p_b``, then
    ``/= n_estimators``), ``BaseGradientBoosting.staged_predict``.
    XGBoost: ``XGBModel.predict(iteration_range=...)``.
    """
    kind = ensemble_kind(estimator)
    if kind is None:
        raise TypeError(f"{type(final_estimator(estimator)).__name__} has no shared-prefix structure")
    ks = _check_ks(n_estimators, n_members(estimator))
    est = final_estimator(estimator)
    classifier = is_classifier(est)
    if kind == "forest":
        return _forest_prefix(est, X, ks, classifier)
    if kind == "boosting":
        return _boosting_prefix(est, X, ks, classifier)
    return _xgboost_prefix(est, X, ks, classifier)


class _ForestPrefixSums:
    """Running sum of a forest's tree predictions in tree order, as ``BaseForest.predict`` adds them
    (``acc += p_b``), with the mean ``acc / k`` kept at every requested prefix ``k`` of ``ks``:
    :func:`_forest_prefix` and :func:`xaipipe.models.forest_blocks.forest_block_prefix_predictions`."""

    def __init__(self, ks, classifier: bool):
        self.wanted: dict[int, list[int]] = {}
        for i, k in enumerate(ks):
            self.wanted.setdefault(k, []).append(i)
        self.n_out = len(ks)
        self.classifier = classifier
        self.out = self.acc = None

    def add(self, b: int, tree, Xv) -> None:
        """Add tree ``b`` (1-based position in the forest) on the validated rows ``Xv``."""
        p = tree.predict_proba(Xv, check_input=False) if self.classifier else tree.predict(Xv, check_input=False)
        if self.acc is None:
            self.acc = np.zeros_like(p, dtype=np.float64)
            self.out = np.empty((self.n_out,) + p.shape, dtype=np.float64)
        self.acc += p
        for i in self.wanted.get(b, ()):
            self.out[i] = self.acc / b


def _forest_prefix(est, X, ks, classifier):
    # Same validation as BaseForest.predict (float32 conversion for the trees).
    Xv = est._validate_X_predict(X)
    sums = _ForestPrefixSums(ks, classifier)
    # islice, not a slice: a forest store opened lazily (models.forest_store.open_forest) is then
    # read one block at a time
    for b, tree in enumerate(islice(est.estimators_, max(ks)), start=1):
        sums.add(b, tree, Xv)
    return sums.out


def _boosting_prefix(est, X, ks, classifier):
    staged = est.staged_predict_proba(X) if classifier else est.staged_predict(X)
    wanted: dict[int, list[int]] = {}
    for i, k in enumerate(ks):
        wanted.setdefault(k, []).append(i)
    out = None
    for b, p in enumerate(staged, start=1):
        if out is None:
            out = np.empty((len(ks),) + p.shape, dtype=np.float64)
        for i in wanted.get(b, ()):
            out[i] = p
        if b >= max(ks):
            break
    return out


def _xgboost_prefix(est, X, ks, classifier):
    # One pass over the trees: the margin after k1 trees is the base_margin of the
    # next segment (k1, k2]. XGBoost's CPU predictor starts every row at its
    # base_margin and adds the leaf values of the trees in the range one by one in
    # float32, so the chained margin is bitwise the margin of iteration_range=(0, k2)
    # (tests/models/test_prefix.py); classifiers apply the link to each chained margin
    # through predict_proba itself.
    order = sorted(set(ks))
    margin = None
    prev = 0
    by_k = {}
    for k in order:
        nxt = est.predict(X, output_margin=True, base_margin=margin, iteration_range=(prev, k))
        by_k[k] = est.predict_proba(X, base_margin=margin, iteration_range=(prev, k)) if classifier else nxt
        margin, prev = nxt, k
    first = by_k[order[0]]
    out = np.empty((len(ks),) + np.shape(first), dtype=np.float64)
    for i, k in enumerate(ks):
        out[i] = by_k[k]
    return out


#: Smallest row block :func:`member_predictor` gives a thread.
_MIN_BLOCK_ROWS = 512


def member_predictor(
    model, n_estimators: Sequence[int] | None = None, n_jobs: int | None = 1
) -> Callable[[np.ndarray], np.ndarray]:
    """Predict-many callable of a fitted model: the outputs of several members at once.

    Parameters
    ----------
    model : fitted estimator
    n_estimators : sequence of int, optional
        Ensemble prefixes to evaluate as members (:func:`prefix_predictions`);
        default: the model itself as the only member.
    n_jobs : int or None, default 1
        For tree ensembles: threads, each predicting one contiguous block of the
        rows (scikit-learn's tree traversal and XGBoost's predictor release the
        GIL). Every row's output is formed by the same sequence of operations
        whatever the block, so the result is bitwise independent of ``n_jobs``.
        ``None`` or ``-1``: all CPUs. Ignored for other models.

    Returns
    -------
    callable
        ``X -> (m, n)`` (``predict``) or ``(m, n, n_classes)`` (``predict_proba``),
        float64, members in the order of ``n_estimators``.
    """
    if n_estimators is None:
        output = model_output(model)

        def one(Z):
            return np.asarray(output(Z), dtype=np.float64)[None]
    else:
        ks = [int(k) for k in n_estimators]

        def one(Z):
            return prefix_predictions(model, Z, ks)

    threads = (os.cpu_count() or 1) if n_jobs in (None, -1) else int(n_jobs)
    if threads <= 1 or ensemble_kind(model) is None:
        return one

    def blocks(Z):
        n = len(Z)
        if n < 2 * _MIN_BLOCK_ROWS:
            return one(Z)
        k = min(threads, n // _MIN_BLOCK_ROWS)
        edges = np.linspace(0, n, k + 1).astype(int)
        with ThreadPoolExecutor(k) as pool:
            parts = list(pool.map(lambda ab: one(Z[ab[0] : ab[1]]), zip(edges[:-1], edges[1:])))
        return np.concatenate(parts, axis=1)

    return blocks
