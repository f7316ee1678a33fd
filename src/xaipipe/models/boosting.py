"""Exact, faster leaf updates ("line search") of scikit-learn's gradient boosting.

After each stage's regression tree is grown on the negative gradient,
``GradientBoostingRegressor`` / ``GradientBoostingClassifier`` replace every leaf
value by the loss-specific optimum of Friedman (2001, *Greedy function
approximation*, Algorithm 1 step 5; Algorithms 3-5 for absolute error, Huber and
binomial deviance). scikit-learn (``sklearn.ensemble._gb._update_terminal_regions``)
does this with a Python loop over the leaves that calls ``np.nonzero``,
``_weighted_percentile`` and ``np.average`` once per leaf. For ``absolute_error`` and
``huber`` that loop costs as much as growing the tree (Abalone, depth 5: 300 stages
2.2 s with ``squared_error``, 3.6 s ``absolute_error``, 4.8 s ``huber``), which makes it
the largest single cost of the Table 4.1 study (:mod:`xaipipe.studies.abalone`).

:func:`update_terminal_regions` computes the same numbers with one stable sort of
the rows by leaf and per-leaf work on contiguous slices:

- ``absolute_error``: the leaf value is the weighted median of the residuals
  ``y - raw_prediction`` with unit weights, i.e. the order statistic of rank
  ``ceil(n / 2)`` (scikit-learn's ``inverted_cdf`` percentile), taken with
  ``np.partition``;
- ``huber``: that median plus the mean of the clipped deviations
  ``sign(d) * min(delta, |d|)`` (Friedman 2001, Algorithm 4), summed by ``np.sum``
  over the leaf's rows in row order, as ``np.average`` does;
- ``log_loss`` (binary): one Newton step ``sum(g) / sum(p (1 - p))`` (Friedman,
  Hastie & Tibshirani 2000), the same two row-ordered sums and scikit-learn's
  ``_safe_divide``.

The leaf values, and so every prediction, are bitwise those of scikit-learn
(``tests/models/test_boosting.py`` checks it on fitted ensembles). Everything else
(non-unit sample weights, ``subsample < 1``, multinomial, exponential and quantile
losses) goes to scikit-learn's own code unchanged, and with a scikit-learn release
other than :data:`VERIFIED_SKLEARN` nothing is replaced.

This replaces a private scikit-learn function, which this project otherwise leaves
alone; it is done because these leaf updates were the largest single cost of the
default study (``docs/performance.md``), the replacement is exact, and the tests
compare it with scikit-learn bit for bit on every supported loss.

Use :func:`fast_leaf_updates` (a context manager) or :func:`fit_estimator`; the
replacement is installed only inside the context, so code outside it, e.g. the
naive ``GridSearchCV`` baseline of ``benchmarks/run.py``, runs plain scikit-learn.
"""

from __future__ import annotations

import inspect
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np

__all__ = ["fast_leaf_updates", "fit_estimator", "update_terminal_regions"]

#: Parameters of ``sklearn.ensemble._gb._update_terminal_regions`` this module mirrors;
#: with another signature, or a scikit-learn release not in :data:`VERIFIED_SKLEARN`,
#: the context manager patches nothing (plain scikit-learn: slower, same results).
_SIGNATURE = (
    "loss",
    "tree",
    "X",
    "y",
    "neg_gradient",
    "raw_prediction",
    "sample_weight",
    "sample_mask",
    "learning_rate",
    "k",
)

#: scikit-learn releases (major.minor) whose ``_update_terminal_regions`` this module
#: was checked against, line by line and by ``tests/models/test_boosting.py``.
VERIFIED_SKLEARN = ("1.9",)

_lock = threading.Lock()
_depth = 0
_original = None


def _gb_module():
    from sklearn.ensemble import _gb

    return _gb


def _compatible(func) -> bool:
    import sklearn

    if ".".join(sklearn.__version__.split(".")[:2]) not in VERIFIED_SKLEARN:
        return False
    try:
        return tuple(inspect.signature(func).parameters) == _SIGNATURE
    except (TypeError, ValueError):
        return False


@contextmanager
def fast_leaf_updates() -> Iterator[bool]:
    """Use :func:`update_terminal_regions` for every gradient boosting fit in the block.

    Re-entrant and thread-safe (a counter: the first entry installs, the last exit
    restores scikit-learn's function).

    Yields
    ------
    bool
        True when the replacement is installed, False when this scikit-learn is
        not a :data:`VERIFIED_SKLEARN` release or its private
        ``_update_terminal_regions`` has another signature (the block then runs
        plain scikit-learn).
    """
    global _depth, _original
    gb = _gb_module()
    with _lock:
        if _depth == 0:
            current = getattr(gb, "_update_terminal_regions", None)
            if current is None or not _compatible(current):
                installed = False
            else:
                _original = current
                gb._update_terminal_regions = update_terminal_regions
                installed = True
        else:
            installed = gb._update_terminal_regions is update_terminal_regions
        _depth += 1
    try:
        yield installed
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _original is not None:
                gb._update_terminal_regions = _original
                _original = None


def validate_parameters(estimator) -> None:
    """Check the hyperparameters of ``estimator`` and of every estimator nested in it.

    Runs scikit-learn's own parameter validation (what ``fit`` does first) on
    ``estimator`` and on each estimator among its ``get_params(deep=True)`` values
    (a ``Pipeline``'s steps, a boosting ``init``). Objects without scikit-learn's
    validation (XGBoost, which has no ``_parameter_constraints``, NumPy arrays,
    strings) are skipped.

    Raises
    ------
    sklearn.utils._param_validation.InvalidParameterError
        (a ``ValueError`` and ``TypeError``) naming the estimator class and the
        parameter, e.g. ``learning_rate`` outside ``(0, inf)``.
    """
    nested = estimator.get_params(deep=True).values() if hasattr(estimator, "get_params") else ()
    for obj in (estimator, *nested):
        # XGBoost's wrappers inherit _validate_params from scikit-learn's BaseEstimator
        # but declare no _parameter_constraints: only estimators that declare them
        # are checked (as their fit would)
        if isinstance(obj, type) or not isinstance(getattr(obj, "_parameter_constraints", None), dict):
            continue
        obj._validate_params()


def fit_estimator(estimator, X, y):
    """``estimator.fit(X, y)``, exact and with less per-stage overhead; returns the estimator.

    Any estimator works; the fitted model is bitwise the one ``estimator.fit(X, y)``
    gives. Two things make scikit-learn's gradient boosting (also inside a
    ``Pipeline``) cheaper:

    - :func:`fast_leaf_updates` (exact vectorised leaf values, see the module);
    - the hyperparameters are validated once, by :func:`validate_parameters`,
      and the fit then runs under scikit-learn's public
      ``config_context(skip_parameter_validation=True)``. Gradient boosting calls
      ``DecisionTreeRegressor.fit`` once per stage and tree, and each call
      re-validated parameters that the ensemble fixes (3.1-3.7 % of a fit of 900
      depth-2/3/5 stages on Abalone, ``benchmarks/boosting_fit.py``). Input data
      are still validated as usual.

    Raises
    ------
    ValueError
        Invalid hyperparameters (from :func:`validate_parameters`), before any fitting.
    """
    import sklearn

    validate_parameters(estimator)
    with fast_leaf_updates(), sklearn.config_context(skip_parameter_validation=True):
        return estimator.fit(X, y)


def _kind(loss) -> str | None:
    from sklearn._loss.loss import AbsoluteError, HalfBinomialLoss, HuberLoss

    kind = type(loss)
    if kind is AbsoluteError:
        return "absolute_error"
    if kind is HuberLoss:
        return "huber"
    if kind is HalfBinomialLoss:
        return "log_loss"
    return None


def update_terminal_regions(
    loss, tree, X, y, neg_gradient, raw_prediction, sample_weight, sample_mask, learning_rate=0.1, k=0
):
    """Drop-in for scikit-learn's ``_update_terminal_regions``: same leaf values, fewer calls.

    Parameters
    ----------
    loss : sklearn._loss.loss.BaseLoss
        The ensemble's loss (``AbsoluteError``, ``HuberLoss`` with ``closs.delta`` set
        for this stage, ``HalfBinomialLoss``; others go to scikit-learn).
    tree : sklearn.tree._tree.Tree
        This stage's tree; its leaf values are overwritten in place.
    X : ndarray or sparse matrix of shape (n_samples, n_features)
        Training rows.
    y : ndarray of shape (n_samples,)
        Training target (0/1 for ``log_loss``).
    neg_gradient : ndarray of shape (n_samples,)
        Negative gradient of this stage.
    raw_prediction : ndarray of shape (n_samples, n_trees_per_iteration)
        Raw predictions before this stage; column ``k`` is updated in place by
        ``learning_rate * leaf value``.
    sample_weight : ndarray of shape (n_samples,)
    sample_mask : ndarray of bool, shape (n_samples,)
        In-bag rows (all True without ``subsample``).
    learning_rate : float
    k : int
        Column of ``raw_prediction`` (the tree's class).

    Notes
    -----
    The fast path needs unit sample weights, every row in the bag and no empty
    leaf; otherwise the call is scikit-learn's. Sources: Friedman (2001),
    Algorithms 3 (LAD), 4 (M-regression / Huber) and 5 (two-class logistic);
    scikit-learn 1.9 ``sklearn/ensemble/_gb.py`` for the order of operations.
    """
    from sklearn.tree._tree import TREE_LEAF

    kind = _kind(loss)
    if kind is None or _original is None or not np.all(sample_mask) or not np.all(sample_weight == 1.0):
        return _call_original(
            loss, tree, X, y, neg_gradient, raw_prediction, sample_weight, sample_mask, learning_rate, k
        )
    terminal_regions = tree.apply(X)
    leaves = np.flatnonzero(tree.children_left == TREE_LEAF)
    counts = np.bincount(terminal_regions, minlength=tree.node_count)[leaves]
    if counts.min() == 0:
        return _call_original(
            loss, tree, X, y, neg_gradient, raw_prediction, sample_weight, sample_mask, learning_rate, k
        )
    # Rows grouped by leaf (leaves ascending, as np.nonzero over the leaves visits
    # them), ascending row order inside each leaf (stable sort), as np.nonzero gives.
    order = np.argsort(terminal_regions, kind="stable")
    ends = np.cumsum(counts)
    starts = ends - counts
    values = np.empty(len(leaves), dtype=np.float64)
    if kind == "log_loss":
        from sklearn.ensemble._gb import _safe_divide

        neg_g = neg_gradient.take(order, axis=0)
        prob = y.take(order, axis=0) - neg_g
        hessian = prob * (1 - prob)
        for j, (s, e) in enumerate(zip(starts.tolist(), ends.tolist())):
            n = float(e - s)
            values[j] = _safe_divide(neg_g[s:e].sum() / n, hessian[s:e].sum() / n)
    else:
        residual = y.take(order, axis=0) - raw_prediction[order, k]
        medians = np.empty(len(leaves), dtype=np.float64)
        for j, (s, e) in enumerate(zip(starts.tolist(), ends.tolist())):
            rank = (e - s + 1) // 2 - 1  # inverted CDF at 50 %: the ceil(n/2)-th smallest
            medians[j] = np.partition(residual[s:e], rank)[rank]
        if kind == "absolute_error":
            values = medians
        else:
            diff = residual - np.repeat(medians, counts)
            term = np.sign(diff) * np.minimum(loss.closs.delta, np.abs(diff))
            for j, (s, e) in enumerate(zip(starts.tolist(), ends.tolist())):
                values[j] = medians[j] + term[s:e].sum() / float(e - s)
    tree.value[leaves, 0, 0] = values
    raw_prediction[:, k] += learning_rate * tree.value[:, 0, 0].take(terminal_regions, axis=0)


def _call_original(*args):
    original = _original if _original is not None else _gb_module()._update_terminal_regions
    if original is update_terminal_regions:  # pragma: no cover - defensive
        raise RuntimeError("scikit-learn's _update_terminal_regions is not available")
    return original(*args)
