"""Compiled (numba) tree-walk kernels of the model-reliance engine.

The engine (:mod:`xaipipe.explain.reliance._engine`) evaluates an ensemble on many
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

3. All switched rows of one recipient share every column but the variable's. For
   a one-column variable, the leaves that the walk from the entry node can reach
   as that column's value ``x`` varies are met on consecutive intervals
   ``(lo, hi]`` of ``x`` (a node testing the column splits the interval at its
   threshold, ``x <= threshold`` going left; any other node sends it the
   recipient's way). One left-first search below the entry node lists them in
   increasing ``x`` (3.6 on average in the Wine forest's fully grown trees), and
   the recipient's rows, sorted by donor value, take them as contiguous ranges:
   the *interval path*, used where a tree has too many thresholds on the column
   for a signature table (:func:`signatures`), the subtree below the entry node is
   at least :data:`PIECE_HEIGHT` high and the recipient has at least
   :data:`PIECE_ROWS` rows. The same search, over the bins of the column's
   thresholds instead of its values, fills a one-column signature table.

Trees are visited in blocks of at most :data:`BLOCK_NODES` nodes, every recipient
going through a block before the next, so that the nodes are read from cache (a
1 800-tree forest is ~360 MB of nodes). Neither the interval path nor the blocks
change the order of any row's additions.

Two modules: the walk and the signature kernels are here, the accumulation kernels (the
interval search, one block of trees, the loop over recipients and blocks) in
:mod:`xaipipe.explain.reliance._accumulate`. numba's on-disk cache is keyed by module, file and
line and is invalidated only by a change of the function's own file, so every kernel calls only
kernels of its own module (the accumulation calls the interval search and the block kernel, both
in ``_accumulate``): a change to either file recompiles all that depends on it.

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

__all__ = ["FlatTrees", "flatten_trees", "walk_original", "signatures", "accumulate", "thread_count"]

#: Subtrees up to this height are walked branch-free, all switched rows of one
#: recipient in lock step (every row takes exactly ``height`` steps); deeper ones
#: (fully grown forest trees) row by row with early exit at the leaf.
MAX_LOCKSTEP = 12

#: Trees whose thresholds on the variable's columns define at most this many
#: signatures (mixed-radix bins) get a leaf table per recipient (one walk per
#: signature instead of one per switched row).
MAX_SIGNATURES = 64

#: A recipient with at least this many switched rows of a one-column variable, in a
#: tree with too many thresholds for a signature table, gets its leaves from the
#: intervals of the column's value that reach each leaf (one search of the subtree
#: below the entry node; its rows, sorted by donor value, fall into contiguous
#: ranges) instead of one walk per row: ``e_switch`` of deep forests.
PIECE_ROWS = 8

#: ... and only below entry nodes whose subtree is at least this high (shallower
#: subtrees, e.g. all of a depth-5 gradient boosting model, are walked in lock step,
#: which is faster there).
PIECE_HEIGHT = 6

#: Trees are taken in blocks of at most this many nodes (a few MB of node arrays),
#: every recipient's rows going through one block before the next, so that a
#: block's nodes are read from cache rather than memory (deep forests: ~5 000 nodes
#: per tree, hundreds of MB in all).
BLOCK_NODES = 1 << 15

#: True when numba imports (the engine falls back to scikit-learn's loops otherwise).
AVAILABLE = numba is not None


def _heights_impl(left, right):
    N = left.shape[0]
    height = np.zeros(N, dtype=np.int64)
    for v in range(N - 1, -1, -1):  # children have larger indices than their parent
        if left[v] >= 0:
            height[v] = 1 + max(height[left[v]], height[right[v]])
    return height


def _heights(left, right, roots) -> np.ndarray:
    """Height of every node of flat trees (longest path down to a leaf)."""
    return (_heights_jit if AVAILABLE else _heights_impl)(left, right)


class FlatTrees:
    """The trees of an ensemble as flat arrays, in the order their terms are added.

    Attributes
    ----------
    left, right : ndarray of int64, shape (N,)
        Global index of the children; ``-1`` at leaves.
    child : ndarray of int64, shape (N, 2)
        ``[left, right]`` side by side.
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
    step : ndarray of int64, shape (2 N,)
        ``step[2 v + b]``: the child of node ``v`` for ``b = (x > threshold)``;
        a leaf's two entries are the leaf itself.
    step_feature : ndarray of int64, shape (N,)
        ``feature`` with 0 at leaves.
    height : ndarray of int64, shape (N,)
        Longest path (edges) from a node down to a leaf of its subtree.
    """

    def __init__(self, left, right, feature, threshold, table, roots, column, width):
        self.left, self.right, self.feature = left, right, feature
        self.child = np.ascontiguousarray(np.stack([left, right], axis=1))
        # Branch-free walking: leaves loop to themselves (both children = the leaf,
        # feature 0), so a walk of exactly `height[node]` steps from any node ends in
        # the leaf that scikit-learn's walk reaches.
        leaf = left < 0
        idx = np.arange(left.shape[0], dtype=np.int64)
        self.step = np.ascontiguousarray(
            np.stack([np.where(leaf, idx, left), np.where(leaf, idx, right)], axis=1).ravel()
        )
        self.step_feature = np.ascontiguousarray(np.where(leaf, 0, feature))
        self.height = _heights(left, right, roots)
        self.ends = np.ascontiguousarray(np.append(roots[1:], left.shape[0]).astype(np.int64))
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
    for tree, table in zip(trees, tables):
        if np.shape(table) != (tree.node_count, W):
            raise ValueError(f"table of shape {np.shape(table)}, expected {(tree.node_count, W)}")
    shift = np.repeat(offsets, sizes)
    cl = np.concatenate([t.children_left for t in trees]).astype(np.int64)
    cr = np.concatenate([t.children_right for t in trees]).astype(np.int64)
    left = np.where(cl < 0, -1, cl + shift)
    right = np.where(cr < 0, -1, cr + shift)
    feature = np.concatenate([t.feature for t in trees]).astype(np.int64)
    threshold = np.concatenate([t.threshold for t in trees]).astype(np.float64)
    table = np.concatenate([np.asarray(tb, dtype=np.float64) for tb in tables])
    cols = np.asarray(columns, dtype=np.int64)
    if cols.min() < 0 or cols.max() + W > width:
        raise ValueError(f"columns {cols.min()}..{cols.max()} with table width {W} exceed width {width}")
    return FlatTrees(
        np.ascontiguousarray(left),
        np.ascontiguousarray(right),
        np.ascontiguousarray(feature),
        np.ascontiguousarray(threshold),
        np.ascontiguousarray(table),
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

    def _walk_original_impl(left, right, feature, threshold, roots, group_ptr, group_ids, X, leaf, entry):
        # entry arrives filled with -1; only the first hit per variable is written
        n = X.shape[0]
        T = roots.shape[0]
        G = entry.shape[0]
        for i in prange(n):
            seen = np.zeros(max(G, 1), dtype=np.bool_)
            for t in range(T):
                for g in range(G):
                    seen[g] = False
                node = roots[t]
                while left[node] >= 0:
                    f = feature[node]
                    for a in range(group_ptr[f], group_ptr[f + 1]):
                        g = group_ids[a]
                        if not seen[g]:
                            seen[g] = True
                            entry[g, i, t] = node
                    if X[i, f] <= threshold[node]:
                        node = left[node]
                    else:
                        node = right[node]
                leaf[i, t] = node

    def _signatures_impl(left, feature, threshold, roots, ends, cols, X, limit):
        # Per tree: the sorted distinct thresholds tau_c of every column c of the
        # variable; a row's bin in c is #{tau_c < x} (x float32 -> float64, the
        # comparison of the tree walk), its signature the mixed-radix number of its
        # bins. Two rows with the same signature take the same branch at every node
        # of the tree that tests the variable. Trees with more than `limit`
        # signatures get nsig = 0 (their rows are walked directly).
        T = roots.shape[0]
        n = X.shape[0]
        N = left.shape[0]
        C = cols.shape[0]
        sig = np.zeros((T, n), dtype=np.int32)
        nsig = np.zeros(T, dtype=np.int64)
        rank = np.zeros(N, dtype=np.int64)
        radix = np.ones(N, dtype=np.int64)
        base = np.zeros(N, dtype=np.int64)
        for t in prange(T):
            r0 = roots[t]
            r1 = ends[t]
            total = 1
            for c in range(C):
                k = 0
                for v in range(r0, r1):
                    if left[v] >= 0 and feature[v] == cols[c]:
                        k += 1
                if k > 0:
                    thr = np.empty(k, dtype=np.float64)
                    k = 0
                    for v in range(r0, r1):
                        if left[v] >= 0 and feature[v] == cols[c]:
                            thr[k] = threshold[v]
                            k += 1
                    total *= np.unique(thr).shape[0] + 1
                if total > limit:
                    break
            if total > limit:
                continue
            nsig[t] = total
            mult = 1
            for c in range(C):
                f = cols[c]
                k = 0
                for v in range(r0, r1):
                    if left[v] >= 0 and feature[v] == f:
                        k += 1
                if k == 0:
                    continue
                thr = np.empty(k, dtype=np.float64)
                k = 0
                for v in range(r0, r1):
                    if left[v] >= 0 and feature[v] == f:
                        thr[k] = threshold[v]
                        k += 1
                tau = np.unique(thr)
                B = tau.shape[0]
                for v in range(r0, r1):
                    if left[v] >= 0 and feature[v] == f:
                        rank[v] = np.searchsorted(tau, threshold[v]) + 1
                        radix[v] = mult
                        base[v] = B + 1
                for i in range(n):
                    x = np.float64(X[i, f])
                    lo = 0
                    hi = B
                    while lo < hi:  # number of tau strictly below x
                        mid = (lo + hi) // 2
                        if tau[mid] < x:
                            lo = mid + 1
                        else:
                            hi = mid
                    sig[t, i] += lo * mult
                mult *= B + 1
        return sig, nsig, rank, radix, base

    from ._accumulate import _acc_parallel, _acc_serial, _variant

    _heights_jit = njit(cache=True, nogil=True)(_heights_impl)
    _walk_serial = njit(cache=True, nogil=True)(_variant(_walk_original_impl, "_serial"))
    _walk_parallel = njit(cache=True, nogil=True, parallel=True)(_variant(_walk_original_impl, "_parallel"))
    _sig_serial = njit(cache=True, nogil=True)(_variant(_signatures_impl, "_serial"))
    _sig_parallel = njit(cache=True, nogil=True, parallel=True)(_variant(_signatures_impl, "_parallel"))


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


def _tree_blocks(flat: FlatTrees, T: int, max_nodes: int) -> np.ndarray:
    """Consecutive trees grouped into blocks of at most ``max_nodes`` nodes (a tree
    larger than that is a block of its own): boundaries ``(B + 1,)``, 0 to ``T``."""
    key = ("blocks", int(T), int(max_nodes))
    cache = flat.__dict__.setdefault("_cache", {})
    if key in cache:
        return cache[key]
    sizes = (flat.ends - flat.roots)[:T]
    bounds, nodes = [0], 0
    for t in range(T):
        if nodes and nodes + sizes[t] > max_nodes:
            bounds.append(t)
            nodes = 0
        nodes += int(sizes[t])
    bounds.append(T)
    cache[key] = np.asarray(bounds, dtype=np.int64)
    return cache[key]


def _max_leaves(flat: FlatTrees) -> int:
    """Most leaves of any one tree (bound on the intervals of the interval path)."""
    cache = flat.__dict__.setdefault("_cache", {})
    if "max_leaves" not in cache:
        cache["max_leaves"] = int(np.add.reduceat((flat.left < 0).astype(np.int64), flat.roots).max())
    return cache["max_leaves"]


def _require():
    if not AVAILABLE:  # pragma: no cover
        raise ImportError("numba is required for the compiled kernels")


def _group_index(groups, p):
    """CSR lists column -> groups testing it (a column may belong to several groups)."""
    members = [[] for _ in range(p)]
    for g, cols in enumerate(groups):
        for c in np.asarray(cols, dtype=np.int64).ravel():
            if not 0 <= c < p:
                raise ValueError(f"group {g} has column {c} outside [0, {p})")
            members[int(c)].append(g)
    ptr = np.zeros(p + 1, dtype=np.int64)
    ptr[1:] = np.cumsum([len(m) for m in members])
    ids = np.array([g for m in members for g in m], dtype=np.int64)
    return ptr, ids


def walk_original(
    flat: FlatTrees, X32: np.ndarray, groups=(), n_trees: int | None = None, n_jobs: int | None = 1
) -> tuple[np.ndarray, np.ndarray]:
    """Original leaf of every (row, tree) and the entry node of every variable.

    Parameters
    ----------
    flat : FlatTrees
    X32 : ndarray of float32, shape (n, p), finite
    groups : sequence of sequences of int
        The variables' columns (``G`` variables; empty: leaves only).
    n_trees : int, optional
        Walk only the first trees (default all).
    n_jobs : int, optional
        Threads (rows in parallel; the result does not depend on it).

    Returns
    -------
    leaf : ndarray of int64, shape (n, T)
        Global index of the leaf of row ``i`` in tree ``t``.
    entry : ndarray of int32, shape (G, n, T)
        First node on that path testing a column of variable ``g``; ``-1`` if none.

    Raises
    ------
    ValueError
        A column index outside ``[0, p)``.
    """
    _require()
    T = flat.n_trees if n_trees is None else int(n_trees)
    X = np.ascontiguousarray(X32, dtype=np.float32)
    ptr, ids = _group_index(groups, X.shape[1])
    leaf = np.empty((X.shape[0], T), dtype=np.int64)
    entry = np.full((len(groups), X.shape[0], T), -1, dtype=np.int32)
    _call(
        _walk_serial,
        _walk_parallel,
        n_jobs,
        flat.left,
        flat.right,
        flat.feature,
        flat.threshold,
        flat.roots[:T],
        ptr,
        ids,
        X,
        leaf,
        entry,
    )
    return leaf, entry


class Signatures:
    """The bins of one variable in every tree (:func:`signatures`).

    Attributes
    ----------
    sig : ndarray of int32, shape (T, n)
        Signature of every original row (as a donor) in every tree.
    nsig : ndarray of int64, shape (T,)
        Number of signatures of each tree; 0 when above the limit (rows are then
        walked directly).
    rank, radix, base : ndarray of int64, shape (N,)
        At nodes testing a column of the variable: the 1-based rank of the
        threshold among the tree's distinct thresholds on that column, and the
        column's place value and base in the signature (``base = 0`` elsewhere).
    """

    def __init__(self, sig, nsig, rank, radix, base, single=False, column=-1):
        self.sig, self.nsig, self.rank, self.radix, self.base = sig, nsig, rank, radix, base
        #: one column: the signature is the bin itself (no mixed-radix division)
        self.single = bool(single)
        #: the column of a one-column variable (-1 otherwise)
        self.column = int(column)


def signatures(
    flat: FlatTrees,
    X32: np.ndarray,
    columns,
    n_trees: int | None = None,
    limit: int = MAX_SIGNATURES,
    n_jobs: int | None = 1,
) -> Signatures:
    """Per tree, the signature of every row in the variable's columns.

    For each tree and each column ``c`` of the variable, let ``tau_c`` be the
    sorted distinct thresholds of the tree's nodes testing ``c``. A row's bin in
    ``c`` is ``#{tau_c < x_c}`` (``x_c`` the float32 value promoted to float64, as
    in the tree walk), so ``x_c <= tau_c[r - 1]`` iff ``bin < r``; its signature is
    the mixed-radix number of its bins. Rows with equal signatures take the same
    branch at every node of the tree that tests the variable.

    Parameters
    ----------
    flat : FlatTrees
    X32 : ndarray of float32, shape (n, p), finite
    columns : sequence of int
        The variable's columns.
    n_trees : int, optional
        First trees only (default all).
    limit : int
        Trees with more signatures than this get ``nsig = 0``.
    n_jobs : int, optional
        Threads (trees in parallel).

    Returns
    -------
    Signatures

    Raises
    ------
    ValueError
        A column outside ``[0, p)`` or listed twice.
    """
    _require()
    X = np.ascontiguousarray(X32, dtype=np.float32)
    cols = np.asarray(columns, dtype=np.int64).ravel()
    if cols.size == 0 or cols.min() < 0 or cols.max() >= X.shape[1] or len(set(cols.tolist())) != cols.size:
        raise ValueError(f"columns must be distinct indices in [0, {X.shape[1]}), got {columns!r}")
    T = flat.n_trees if n_trees is None else int(n_trees)
    out = _call(
        _sig_serial,
        _sig_parallel,
        n_jobs,
        flat.left,
        flat.feature,
        flat.threshold,
        flat.roots[:T],
        flat.ends[:T],
        cols,
        X,
        int(limit),
    )
    if cols.size == 1:
        return Signatures(*out, single=True, column=int(cols[0]))
    return Signatures(*out)


def accumulate(
    flat: FlatTrees,
    snapshot: np.ndarray,
    entry: np.ndarray,
    term: np.ndarray,
    Xh: np.ndarray,
    recipients: np.ndarray,
    start: np.ndarray,
    n_snapshots: int,
    *,
    donors: np.ndarray | None = None,
    X32: np.ndarray | None = None,
    variable: Signatures | None = None,
    n_jobs: int | None = 1,
) -> np.ndarray:
    """Running ensemble sums of switched rows, snapshotted after chosen trees.

    Parameters
    ----------
    flat : FlatTrees
    snapshot : ndarray of int64, shape (T,)
        Snapshot slot written after tree ``t`` (``-1``: none); ``T`` trees are added.
    entry : ndarray of int, shape (n, T)
        :func:`walk_original` entries (of one variable) of the original rows.
    term : ndarray of float64, shape (n, T, W)
        Stored term of each original row in each tree (``table[leaf]``).
    Xh : ndarray of float32, shape (rows, p)
        Switched rows (the variable's columns from the donor, the rest from the
        recipient), finite.
    recipients : ndarray of int, shape (rows,)
        Original row of each switched row (index into ``entry`` / ``term``).
    start : ndarray of float64, shape (rows, D)
        Accumulator before the first tree (boosting: the init estimator's raw
        prediction; forests: zeros).
    n_snapshots : int
        ``S``.
    donors, X32, variable : optional, all three or none
        Donor row of each switched row (shape ``(rows,)``), the original rows
        (float32, shape ``(n, p)``) and the variable's :func:`signatures`: trees
        with fewer signatures than a recipient has switched rows then take the
        leaves from one walk per signature; for a one-column variable the other
        trees take them from the interval path (see the module docstring).
    n_jobs : int, optional
        Threads (recipients in parallel; every row's sum is sequential, so the
        result does not depend on it).

    Returns
    -------
    ndarray of float64, shape (S, rows, D)

    Raises
    ------
    ValueError
        Inconsistent shapes or a recipient / donor outside ``[0, n)``.
    """
    _require()
    n, T = entry.shape
    if snapshot.shape != (T,):
        raise ValueError(f"snapshot must have shape ({T},), got {snapshot.shape}")
    if term.shape[:2] != (n, T) or term.shape[2] != flat.table.shape[1]:
        raise ValueError(f"term must have shape ({n}, {T}, {flat.table.shape[1]}), got {term.shape}")
    recipients = np.asarray(recipients, dtype=np.int64)
    rows = Xh.shape[0]
    if recipients.shape != (rows,) or start.shape != (rows, flat.width):
        raise ValueError(f"recipients / start must have shapes ({rows},) / ({rows}, {flat.width})")
    if rows and (recipients.min() < 0 or recipients.max() >= n):
        raise ValueError(f"recipients must lie in [0, {n})")
    given = [donors is not None, X32 is not None, variable is not None]
    if any(given) and not all(given):
        raise ValueError("give donors, X32 and variable together")
    if variable is None:
        donors = np.zeros(rows, dtype=np.int64)
        X32 = np.zeros((n, Xh.shape[1]), dtype=np.float32)
        N = flat.left.shape[0]
        zero = np.zeros(N, dtype=np.int64)
        variable = Signatures(np.zeros((T, n), dtype=np.int32), np.zeros(T, dtype=np.int64), zero, zero + 1, zero)
    else:
        donors = np.asarray(donors, dtype=np.int64)
        if donors.shape != (rows,) or (rows and (donors.min() < 0 or donors.max() >= n)):
            raise ValueError(f"donors must have shape ({rows},) with values in [0, {n})")
        if X32.shape != (n, Xh.shape[1]) or variable.sig.shape != (T, n):
            raise ValueError("X32 / signatures do not match entry")
    counts = np.bincount(recipients, minlength=n)
    order = np.argsort(recipients, kind="stable")
    ptr = np.zeros(n + 1, dtype=np.int64)
    ptr[1:] = np.cumsum(counts)
    Xs = np.ascontiguousarray(np.asarray(Xh, dtype=np.float32)[order])
    out = np.empty((int(n_snapshots), rows, flat.width), dtype=np.float64)
    _call(
        _acc_serial,
        _acc_parallel,
        n_jobs,
        flat.child,
        flat.feature,
        flat.threshold,
        flat.step,
        flat.step_feature,
        flat.height,
        MAX_LOCKSTEP,
        flat.table,
        flat.column[:T],
        np.ascontiguousarray(snapshot, dtype=np.int64),
        np.ascontiguousarray(entry, dtype=np.int32),
        np.ascontiguousarray(term, dtype=np.float64),
        Xs,
        order,
        ptr,
        np.ascontiguousarray(np.asarray(start, dtype=np.float64)[order]),
        np.ascontiguousarray(X32, dtype=np.float32),
        np.ascontiguousarray(donors[order]),
        np.ascontiguousarray(variable.sig[:T]),
        np.ascontiguousarray(variable.nsig[:T]),
        variable.rank,
        variable.radix,
        variable.base,
        bool(variable.single),
        int(flat.height.max()),
        int(variable.column),
        _max_leaves(flat),
        int(PIECE_ROWS),
        int(PIECE_HEIGHT),
        _tree_blocks(flat, T, BLOCK_NODES),
        out,
    )
    return out
