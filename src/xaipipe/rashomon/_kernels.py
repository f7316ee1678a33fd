"""Compiled (numba) tree-walk kernels of the model-reliance engine.

The engine (:mod:`xaipipe.rashomon.engine`) evaluates an ensemble on many
*switched* data sets: row ``q`` takes the columns of the permuted variable ``G``
from a donor row and every other column from its recipient row ``j``. Two facts
make most of that work unnecessary:

1. A node that does not test a column of ``G`` sends the switched row the same
   way as row ``j``. So the switched row follows row ``j``'s *original* path up
   to the first node on that path that tests a column of ``G`` (its *entry
   node*), and only the walk from there on can differ.
2. If row ``j``'s original path in a tree never tests ``G`` (no entry node), the
   switched row lands in the same leaf: its term is the stored term of row ``j``.

:func:`walk_original` records, for every (row, tree), the original leaf and the
entry node of the variable; :func:`accumulate` adds, tree by tree in the
ensemble's order, either the stored term or the term of the leaf reached by
resuming the walk at the entry node, and snapshots the running sum after the
requested prefixes.

Exactness (what scikit-learn does, reproduced operation by operation)
---------------------------------------------------------------------
* Split test: ``X[i, feature] <= threshold`` with ``X`` cast to float32 and a
  float64 threshold (``sklearn/tree/_tree.pyx`` ``_apply_dense`` and
  ``sklearn/ensemble/_gradient_boosting.pyx``
  ``_predict_regression_tree_inplace_fast_dense``): numba promotes the float32
  value to float64 exactly as C does. ``X`` must be finite (NaN routing is not
  replicated; the engine checks).
* Terms: the caller passes per-node tables of the exact float64 numbers the
  ensemble adds (gradient boosting: ``learning_rate * value``, the product the
  Cython loop forms; forests: the leaf's ``value`` row, i.e. ``tree.predict`` /
  ``tree.predict_proba``). The kernel only *adds* them, one tree at a time, in
  the ensemble's order (no fused multiply-add, no reassociation: numba compiles
  without fastmath), so the running sum is bitwise the one of
  ``staged_predict`` / the forest's ``out += p_t``.

Trees are flattened into one node array (children as global node indices, ``-1``
at leaves). Shapes use ``T`` trees, ``N`` nodes in all, ``n`` original rows,
``rows`` switched rows, ``p`` columns, ``W`` table width, ``D`` accumulator width,
``S`` snapshots.
"""

from __future__ import annotations

import numpy as np

try:  # numba ships with shap (a hard dependency); keep a clear error otherwise
    import numba
    from numba import njit, prange
except ImportError:  # pragma: no cover - exercised only without numba
    numba = None

__all__ = ["AVAILABLE", "FlatTrees", "flatten_trees", "walk_original", "accumulate", "thread_count"]

#: True when numba imports (the engine falls back to scikit-learn's loops otherwise).
AVAILABLE = numba is not None


class FlatTrees:
    """The trees of an ensemble as flat arrays, in the order their terms are added.

    Attributes
    ----------
    left, right : ndarray of int64, shape (N,)
        Global index of the children; ``-1`` at leaves.
    feature : ndarray of int64, shape (N,)
        Column tested at each internal node (``-2`` at leaves, as scikit-learn).
    threshold : ndarray of float64, shape (N,)
    table : ndarray of float64, shape (N, W)
        The term a tree adds when a row ends in that node.
    roots : ndarray of int64, shape (T,)
        Global index of each tree's root.
    column : ndarray of int64, shape (T,)
        First accumulator column the tree adds to (it adds ``table[leaf, :W]`` to
        ``acc[column : column + W]``).
    width : int
        ``D``, the accumulator width.
    """

    def __init__(self, left, right, feature, threshold, table, roots, column, width):
        self.left, self.right, self.feature = left, right, feature
        self.threshold, self.table, self.roots, self.column = threshold, table, roots, column
        self.width = int(width)

    @property
    def n_trees(self) -> int:
        return int(self.roots.shape[0])


def flatten_trees(trees, tables, columns, width: int) -> FlatTrees:
    """Flatten fitted scikit-learn ``Tree`` objects.

    Parameters
    ----------
    trees : sequence of ``sklearn.tree._tree.Tree`` (``estimator.tree_``)
        In the order their terms are added (stage-major for gradient boosting).
    tables : sequence of ndarray of float64, each of shape (node_count, W)
        Per-node term of each tree (same ``W`` for all).
    columns : sequence of int
        Accumulator column of each tree.
    width : int
        Accumulator width ``D`` (``columns[t] + W <= D``).

    Returns
    -------
    FlatTrees

    Raises
    ------
    ValueError
        Mismatched lengths or table shapes.
    """
    if not (len(trees) == len(tables) == len(columns)) or not len(trees):
        raise ValueError("trees, tables and columns must be non-empty and of equal length")
    sizes = np.array([t.node_count for t in trees], dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    W = np.asarray(tables[0]).shape[1]
    left, right, feat, thr, tab = [], [], [], [], []
    for tree, table, off in zip(trees, tables, offsets):
        tb = np.asarray(table, dtype=np.float64)
        if tb.shape != (tree.node_count, W):
            raise ValueError(f"table of shape {tb.shape}, expected {(tree.node_count, W)}")
        cl = np.asarray(tree.children_left, dtype=np.int64)
        cr = np.asarray(tree.children_right, dtype=np.int64)
        left.append(np.where(cl < 0, -1, cl + off))
        right.append(np.where(cr < 0, -1, cr + off))
        feat.append(np.asarray(tree.feature, dtype=np.int64))
        thr.append(np.asarray(tree.threshold, dtype=np.float64))
        tab.append(tb)
    cols = np.asarray(columns, dtype=np.int64)
    if cols.min() < 0 or cols.max() + W > width:
        raise ValueError(f"columns {cols.min()}..{cols.max()} with table width {W} exceed width {width}")
    return FlatTrees(
        np.ascontiguousarray(np.concatenate(left)),
        np.ascontiguousarray(np.concatenate(right)),
        np.ascontiguousarray(np.concatenate(feat)),
        np.ascontiguousarray(np.concatenate(thr)),
        np.ascontiguousarray(np.concatenate(tab)),
        offsets,
        cols,
        width,
    )


def thread_count(n_jobs: int | None) -> int:
    """Threads for a kernel call: ``None``/``1`` -> 1, ``-1`` -> all numba threads,
    else ``min(n_jobs, numba's maximum)``."""
    if not AVAILABLE or n_jobs is None:
        return 1
    top = int(numba.config.NUMBA_NUM_THREADS)
    n = top if int(n_jobs) < 0 else int(n_jobs)
    return max(1, min(n, top))


if AVAILABLE:

    def _walk_original_impl(left, right, feature, threshold, roots, in_group, X):
        n = X.shape[0]
        T = roots.shape[0]
        leaf = np.empty((n, T), dtype=np.int64)
        entry = np.empty((n, T), dtype=np.int64)
        for i in prange(n):
            for t in range(T):
                node = roots[t]
                first = -1
                while left[node] >= 0:
                    f = feature[node]
                    if first < 0 and in_group[f]:
                        first = node
                    if X[i, f] <= threshold[node]:
                        node = left[node]
                    else:
                        node = right[node]
                leaf[i, t] = node
                entry[i, t] = first
        return leaf, entry

    def _accumulate_impl(left, right, feature, threshold, table, column, snapshot,
                         entry, term, Xh, recipients, start, out):
        rows = Xh.shape[0]
        T = entry.shape[1]
        W = table.shape[1]
        D = start.shape[1]
        for q in prange(rows):
            j = recipients[q]
            acc = np.empty(D, dtype=np.float64)
            for d in range(D):
                acc[d] = start[q, d]
            for t in range(T):
                node = entry[j, t]
                c = column[t]
                if node < 0:
                    for w in range(W):
                        acc[c + w] += term[j, t, w]
                else:
                    while left[node] >= 0:
                        if Xh[q, feature[node]] <= threshold[node]:
                            node = left[node]
                        else:
                            node = right[node]
                    for w in range(W):
                        acc[c + w] += table[node, w]
                s = snapshot[t]
                if s >= 0:
                    for d in range(D):
                        out[s, q, d] = acc[d]

    _walk_serial = njit(cache=True, nogil=True)(_walk_original_impl)
    _walk_parallel = njit(cache=True, nogil=True, parallel=True)(_walk_original_impl)
    _acc_serial = njit(cache=True, nogil=True)(_accumulate_impl)
    _acc_parallel = njit(cache=True, nogil=True, parallel=True)(_accumulate_impl)


def _call(serial, parallel, n_jobs, *args):
    threads = thread_count(n_jobs)
    if threads == 1:
        return serial(*args)
    previous = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        return parallel(*args)
    finally:
        numba.set_num_threads(previous)


def _require():
    if not AVAILABLE:  # pragma: no cover
        raise ImportError("numba is required for the compiled kernels")


def walk_original(flat: FlatTrees, X32: np.ndarray, in_group: np.ndarray, n_trees: int | None = None,
                  n_jobs: int | None = 1) -> tuple[np.ndarray, np.ndarray]:
    """Original leaf and entry node of every (row, tree).

    Parameters
    ----------
    flat : FlatTrees
    X32 : ndarray of float32, shape (n, p), C-contiguous, finite
    in_group : ndarray of bool, shape (p,)
        Columns of the variable ``G`` (all False: entries are all ``-1``).
    n_trees : int, optional
        Walk only the first trees (default all).
    n_jobs : int, optional
        Threads (rows in parallel; the result does not depend on it).

    Returns
    -------
    leaf : ndarray of int64, shape (n, T)
        Global index of the leaf of row ``i`` in tree ``t``.
    entry : ndarray of int64, shape (n, T)
        First node on that path testing a column of ``G``; ``-1`` if none.
    """
    _require()
    T = flat.n_trees if n_trees is None else int(n_trees)
    X = np.ascontiguousarray(X32, dtype=np.float32)
    mask = np.ascontiguousarray(in_group, dtype=np.bool_)
    if mask.shape != (X.shape[1],):
        raise ValueError(f"in_group must have shape ({X.shape[1]},), got {mask.shape}")
    return _call(_walk_serial, _walk_parallel, n_jobs, flat.left, flat.right, flat.feature,
                 flat.threshold, flat.roots[:T], mask, X)


def accumulate(flat: FlatTrees, snapshot: np.ndarray, entry: np.ndarray, term: np.ndarray,
               Xh: np.ndarray, recipients: np.ndarray, start: np.ndarray, n_snapshots: int,
               n_jobs: int | None = 1) -> np.ndarray:
    """Running ensemble sums of switched rows, snapshotted after chosen trees.

    Parameters
    ----------
    flat : FlatTrees
    snapshot : ndarray of int64, shape (T,)
        Snapshot slot written after tree ``t`` (``-1``: none); ``T`` trees are added.
    entry : ndarray of int64, shape (n, T)
        :func:`walk_original` entries of the recipients' original rows.
    term : ndarray of float64, shape (n, T, W)
        Stored term of each original row in each tree (``table[leaf]``).
    Xh : ndarray of float32, shape (rows, p)
        Switched rows (the variable's columns from the donor, the rest from the
        recipient), finite.
    recipients : ndarray of int64, shape (rows,)
        Original row of each switched row (index into ``entry`` / ``term``).
    start : ndarray of float64, shape (rows, D)
        Accumulator before the first tree (boosting: the init estimator's raw
        prediction; forests: zeros).
    n_snapshots : int
        ``S``.
    n_jobs : int, optional
        Threads (rows in parallel; every row's sum is sequential, so the result
        does not depend on it).

    Returns
    -------
    ndarray of float64, shape (S, rows, D)
    """
    _require()
    T = entry.shape[1]
    if snapshot.shape != (T,):
        raise ValueError(f"snapshot must have shape ({T},), got {snapshot.shape}")
    rows = Xh.shape[0]
    out = np.empty((int(n_snapshots), rows, flat.width), dtype=np.float64)
    _call(_acc_serial, _acc_parallel, n_jobs, flat.left, flat.right, flat.feature, flat.threshold,
          flat.table, flat.column[:T], np.ascontiguousarray(snapshot, dtype=np.int64),
          np.ascontiguousarray(entry, dtype=np.int64), np.ascontiguousarray(term, dtype=np.float64),
          np.ascontiguousarray(Xh, dtype=np.float32), np.ascontiguousarray(recipients, dtype=np.int64),
          np.ascontiguousarray(start, dtype=np.float64), out)
    return out
