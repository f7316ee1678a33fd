"""Random forests fitted and evaluated a block of trees at a time (memory that does not grow with the forest).

A fully grown tree on ``n`` rows has O(n) nodes (about 70 bytes each), so a forest of
2 000 such trees holds O(2 000 n) bytes: ~1.5 GB at 8 000 rows, ~18 GB at 100 000
(docs/performance.md, "Peak RSS"). A job that needs only the *predictions* of a forest's
prefixes (the CV of ``n_estimators``) does not need the trees afterwards: it can fit
``block_trees`` trees, add their predictions, drop them and fit the next block.

Exactness. scikit-learn's ``BaseForest.fit`` draws the seed of every tree in
sequence from ``check_random_state(random_state)``; with ``warm_start=True`` and
``len(estimators_) = m`` trees already present it first draws (and discards)
``randint(MAX_INT, size=m)``, the seeds of those ``m`` trees, so the new trees get the
seeds they would have had in a one-shot fit; tree ``b`` depends only on its seed
(bootstrap rows, feature draws) and on the data. Only ``len(estimators_)`` is read,
so the trees already used can be replaced by ``None`` placeholders. Hence the trees
of :func:`fit_forest_blocks` are bitwise those of ``forest.fit`` (an integer
``random_state`` is required: a ``RandomState`` instance would not restart;
``tests/models/test_forest_blocks.py`` compares the tree arrays), and the prefix
predictions of :func:`forest_block_prefix_predictions`, accumulated in tree order
with the arithmetic of :func:`xaipipe.models.prefix.prefix_predictions`, are
bitwise equal to it.

Not supported (raise ``ValueError``): ``oob_score=True`` (needs every tree at the end),
``warm_start=True`` set by the user, a ``random_state`` that is not an integer.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Iterator, Sequence

import numpy as np
from sklearn.base import clone, is_classifier

from .families import family_of

__all__ = ["forest_block_setting", "supports_forest_blocks", "fit_forest_blocks", "forest_block_prefix_predictions"]


def forest_block_setting(large_data) -> tuple[int, int] | None:
    """The ``forest_blocks`` argument of :func:`xaipipe.models.cv.cross_validate_grid` from the
    config section ``large_data``: ``(forest_block_rows, forest_block_trees)``, or None when
    ``forest_block_rows`` is null (or the section is absent: every forest is fitted whole).

    Raises
    ------
    ValueError
        ``forest_block_trees`` (or ``forest_block_rows``) below 1.
    """
    large_data = large_data or {}
    rows = large_data.get("forest_block_rows")
    if rows is None:
        return None
    trees = large_data.get("forest_block_trees", 100)
    if int(rows) < 1 or trees is None or int(trees) < 1:
        raise ValueError(
            f"config large_data: forest_block_rows ({rows!r}) and forest_block_trees ({trees!r}) must be integers "
            ">= 1 (forest_block_rows: null turns the blocks off)"
        )
    return int(rows), int(trees)


def supports_forest_blocks(estimator) -> bool:
    """Whether :func:`fit_forest_blocks` can fit ``estimator`` (an unfitted model).

    True for a bare scikit-learn forest of a family with prefix kind ``"forest"``
    (:attr:`xaipipe.models.families.Family.prefix`: random forest, extra trees) with an
    integer ``random_state``, ``oob_score=False`` and ``warm_start=False``; False for a
    ``Pipeline`` or any other model.
    """
    fam = family_of(estimator)
    if fam is None or fam.prefix != "forest" or not hasattr(estimator, "warm_start"):
        return False  # not a forest family, or a Pipeline around a forest
    params = estimator.get_params(deep=False)
    return (
        isinstance(params.get("random_state"), (int, np.integer))
        and not params.get("oob_score")
        and not params.get("warm_start")
    )


def _check(forest, block_trees: int) -> int:
    if not supports_forest_blocks(forest):
        p = forest.get_params(deep=False) if hasattr(forest, "get_params") else {}
        raise ValueError(
            f"{type(forest).__name__} cannot be fitted in blocks of trees: it needs a bare scikit-learn forest with "
            f"an integer random_state (got {p.get('random_state')!r}), oob_score=False (got {p.get('oob_score')!r}) "
            f"and warm_start=False (got {p.get('warm_start')!r}); fit it whole instead"
        )
    block = int(block_trees)
    if block < 1:
        raise ValueError(f"block_trees must be >= 1, got {block_trees!r}")
    return block


def fit_forest_blocks(forest, X, y, block_trees: int) -> Iterator[tuple[int, list, object]]:
    """Fit ``forest`` (unfitted, not modified) ``block_trees`` trees at a time, keeping one block in memory.

    Parameters
    ----------
    forest : unfitted scikit-learn random forest or extra-trees model
        With ``n_estimators = K`` and an integer ``random_state``
        (:func:`supports_forest_blocks`).
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    block_trees : int >= 1
        Trees per block; the last block holds ``K mod block_trees`` trees when that is not 0.

    Yields
    ------
    (start, trees, shell)
        ``trees`` are the fitted trees ``start .. start + len(trees) - 1`` (0-based) of
        ``forest.fit(X, y)``, bitwise equal to them; ``shell`` is the warm-started copy of
        the forest (fitted attributes such as ``classes_``, ``n_features_in_``; its
        ``estimators_`` holds ``None`` for the trees of earlier blocks and this block's
        trees). After the generator resumes, the block's trees are dropped from the
        shell (a caller that keeps them, e.g. to store them, keeps the only reference).

    Raises
    ------
    ValueError
        ``forest`` unsupported (:func:`supports_forest_blocks`) or ``block_trees < 1``.

    References
    ----------
    scikit-learn ``BaseForest.fit`` (``warm_start``: ``random_state.randint(MAX_INT,
    size=len(self.estimators_))`` skips the seeds of the trees already fitted).
    """
    block = _check(forest, block_trees)
    total = int(forest.get_params()["n_estimators"])
    shell = clone(forest).set_params(warm_start=True)
    for start in range(0, total, block):
        stop = min(start + block, total)
        shell.set_params(n_estimators=stop)
        with warnings.catch_warnings():
            # class_weight presets warn under warm_start; here the data are the same in every block
            warnings.filterwarnings("ignore", message=".*not recommended for warm_start.*")
            shell.fit(X, y)
        trees = shell.estimators_[start:stop]
        yield start, trees, shell
        shell.estimators_[start:stop] = [None] * (stop - start)
        del trees


def forest_block_prefix_predictions(
    forest, X_fit, y_fit, X, n_estimators: Sequence[int], block_trees: int
) -> tuple[np.ndarray, float, float]:
    """Fit ``forest`` in blocks and return the predictions of its prefixes on ``X``.

    The result equals (bitwise) ``prefix_predictions(forest.fit(X_fit, y_fit), X,
    n_estimators)`` (:func:`xaipipe.models.prefix.prefix_predictions`), but at most
    ``block_trees`` trees are in memory at once.

    Parameters
    ----------
    forest : unfitted random forest / extra trees (:func:`supports_forest_blocks`)
        Its ``n_estimators`` is replaced by ``max(n_estimators)``.
    X_fit, y_fit : training rows, shapes (n_fit, p) and (n_fit,)
    X : array-like of shape (n_samples, p)
        Rows to predict.
    n_estimators : sequence of int
        Prefix sizes ``k`` (any order, duplicates allowed), each >= 1.
    block_trees : int >= 1

    Returns
    -------
    (predictions, fit_time_s, predict_time_s)
        ``predictions`` of shape ``(len(n_estimators), n_samples)`` (regression,
        ``predict``) or ``(len(n_estimators), n_samples, n_classes)`` (classification,
        ``predict_proba``), float64; wall seconds of the fits and of the predictions.

    Raises
    ------
    ValueError
        An unsupported forest, ``block_trees < 1``, a prefix size < 1 or an empty list.
    """
    from .prefix import _check_ks, _ForestPrefixSums

    ks = _check_ks(n_estimators, max(int(k) for k in n_estimators) if len(n_estimators) else 1)
    forest = clone(forest).set_params(n_estimators=max(ks))
    sums = _ForestPrefixSums(ks, is_classifier(forest))
    Xv = None
    fit_time = predict_time = 0.0
    t0 = time.perf_counter()
    for start, trees, shell in fit_forest_blocks(forest, X_fit, y_fit, block_trees):
        t1 = time.perf_counter()
        fit_time += t1 - t0
        if Xv is None:  # same validation as BaseForest.predict (float32 for the trees)
            Xv = shell._validate_X_predict(X)
        for b, tree in enumerate(trees, start=start + 1):
            sums.add(b, tree, Xv)
        del trees  # the generator drops the block from the shell when it resumes
        t0 = time.perf_counter()
        predict_time += t0 - t1
    return sums.out, fit_time, predict_time
