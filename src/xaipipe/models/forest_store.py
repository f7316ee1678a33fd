"""A fitted random forest stored in blocks of trees, readable one block at a time.

A model file written by :func:`save_forest` (or streamed by :class:`ForestBlockWriter`
while :func:`xaipipe.models.forest_blocks.fit_forest_blocks` fits the forest) holds
the forest without its trees (the *shell*: hyperparameters, ``classes_``,
``n_features_in_``, ...) and the trees in blocks of ``block_trees``, each block a
separately zlib-compressed pickle. So

* :func:`iter_forest_blocks` reads one block at a time (memory: one block, not the forest);
* :func:`predict_forest` predicts block by block, bitwise equal to the forest's
  ``predict`` / ``predict_proba`` with ``n_jobs=1`` (scikit-learn ``BaseForest.predict``:
  ``out += p_b`` in tree order, then ``out /= n_estimators``);
* :func:`load_forest` (and :func:`xaipipe.io.read_joblib`) rebuilds the whole forest,
  bitwise the fitted object (every tree array, every attribute);
* :func:`open_forest` gives the forest with a lazy ``estimators_`` (:class:`LazyTrees`)
  that reads one block at a time: scikit-learn's own ``predict`` / ``predict_proba``
  (``n_jobs=1``) iterate it in order, so a job that only predicts holds one block.

Layout (little-endian): ``MAGIC``, the blocks, the shell, a UTF-8 JSON index
(``{"format": 1, "n_estimators", "block_trees", "blocks": [[offset, length, n_trees],
...], "shell": [offset, length]}``), the index's length (8 bytes), ``END``. The
index sits at the end so that blocks can be written as they are fitted.
"""

from __future__ import annotations

import copy
import json
import os
import pickle
import struct
import zlib
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np

__all__ = [
    "ForestBlockWriter",
    "LazyTrees",
    "forests_equal",
    "is_forest_store",
    "open_forest",
    "iter_forest_blocks",
    "load_forest",
    "predict_forest",
    "predict_in_one_pass",
    "plans_predictions",
    "save_forest",
]

#: First bytes of a forest store (a joblib/pickle file never starts with them).
MAGIC = b"XAIPIPE-FOREST-BLOCKS\n"
#: Last bytes of a complete forest store.
END = b"\nEND-FOREST-BLOCKS"
_LEVEL = 3  # zlib level, as io.write_joblib's compress=3


def is_forest_store(path: str | os.PathLike) -> bool:
    """Whether ``path`` is a file written by :func:`save_forest` / :class:`ForestBlockWriter`."""
    try:
        with open(path, "rb") as fh:
            return fh.read(len(MAGIC)) == MAGIC
    except (FileNotFoundError, IsADirectoryError):
        return False


def _pack(obj) -> bytes:
    return zlib.compress(pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL), _LEVEL)


def _unpack(data: bytes):
    return pickle.loads(zlib.decompress(data))


class ForestBlockWriter:
    """Write a forest store block by block (a context manager).

    Parameters
    ----------
    path : path
        The file to write; removed again when the body raises or :meth:`finish` was not
        called. A rule writes to a temporary path of :func:`xaipipe.io.atomic_path` (as
        :func:`xaipipe.models.fitting.fit_best` does), so that ``results/`` never holds a
        partial store.
    block_trees : int >= 1
        Nominal trees per block (recorded; blocks may be shorter, never empty).

    Examples
    --------
    >>> with ForestBlockWriter(path, 100) as w:                      # doctest: +SKIP
    ...     for start, trees, shell in fit_forest_blocks(forest, X, y, 100):
    ...         w.add(trees)
    ...     w.finish(shell)
    """

    def __init__(self, path: str | os.PathLike, block_trees: int):
        if int(block_trees) < 1:
            raise ValueError(f"block_trees must be >= 1, got {block_trees!r}")
        self.path, self.block_trees = Path(path), int(block_trees)
        self._blocks: list[list[int]] = []
        self._done = False

    def __enter__(self):
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fh = open(self.path, "wb")
        self._fh.write(MAGIC)
        return self

    def add(self, trees) -> None:
        """Append a block of fitted trees (the next ones in forest order)."""
        trees = list(trees)
        if not trees or any(t is None for t in trees):
            raise ValueError("a forest block must hold at least one fitted tree")
        data = _pack(trees)
        self._blocks.append([self._fh.tell(), len(data), len(trees)])
        self._fh.write(data)

    def finish(self, shell) -> None:
        """Write the forest's shell and the index; ``shell.estimators_`` is not stored.

        ``shell`` is the fitted forest (or the warm-started shell of
        :func:`~xaipipe.models.forest_blocks.fit_forest_blocks`, whose ``warm_start``
        is stored as ``False`` and ``n_estimators`` as the number of trees written).
        """
        n = sum(b[2] for b in self._blocks)
        if not n:
            raise ValueError("a forest store needs at least one block of trees")
        bare = copy.copy(shell)  # shallow: the caller's forest keeps its trees
        bare.estimators_ = []  # the key stays in its place, so that the loaded forest pickles as the saved one
        bare.warm_start, bare.n_estimators = False, n
        data = _pack(bare)
        index = {
            "format": 1,
            "n_estimators": n,
            "block_trees": self.block_trees,
            "blocks": self._blocks,
            "shell": [self._fh.tell(), len(data)],
        }
        self._fh.write(data)
        raw = json.dumps(index).encode()
        self._fh.write(raw + struct.pack("<Q", len(raw)) + END)
        self._done = True

    def __exit__(self, exc_type, exc, tb):
        self._fh.close()
        if exc_type is not None or not self._done:
            self.path.unlink(missing_ok=True)
        if exc_type is None and not self._done:
            raise RuntimeError("ForestBlockWriter closed without finish(shell)")
        return False


def save_forest(path: str | os.PathLike, forest, block_trees: int) -> None:
    """Store a fitted scikit-learn forest in blocks of ``block_trees`` trees (written in place;
    removed again on an error).

    Parameters
    ----------
    path : path
    forest : fitted RandomForest* / ExtraTrees* model
    block_trees : int >= 1

    Raises
    ------
    ValueError
        ``block_trees < 1``; a forest without fitted trees.
    """
    trees = getattr(forest, "estimators_", None)
    if not trees:
        raise ValueError(f"{type(forest).__name__} has no fitted trees to store")
    with ForestBlockWriter(path, block_trees) as w:
        for a in range(0, len(trees), w.block_trees):
            w.add(trees[a : a + w.block_trees])
        w.finish(forest)


def _index(fh, path) -> dict:
    fh.seek(0, os.SEEK_END)
    size = fh.tell()
    tail = len(END) + 8
    if size < len(MAGIC) + tail:
        raise ValueError(f"{path}: not a complete forest store (file of {size} bytes)")
    fh.seek(size - tail)
    raw = fh.read(tail)
    if raw[8:] != END:
        raise ValueError(f"{path}: not a complete forest store (no end mark); rerun the fit rule")
    (length,) = struct.unpack("<Q", raw[:8])
    fh.seek(size - tail - length)
    return json.loads(fh.read(length))


def _shell(fh, index):
    offset, length = index["shell"]
    fh.seek(offset)
    return _unpack(fh.read(length))


def iter_forest_blocks(path: str | os.PathLike) -> Iterator[tuple[int, list]]:
    """The trees of a forest store one block at a time: ``(start, trees)``, in forest order.

    Only the yielded block is in memory (plus whatever the caller keeps).

    Raises
    ------
    ValueError
        ``path`` is not a complete forest store.
    """
    if not is_forest_store(path):
        raise ValueError(f"{path}: not a forest store (xaipipe.models.forest_store.save_forest)")
    with open(path, "rb") as fh:
        index = _index(fh, path)
        start = 0
        for offset, length, n in index["blocks"]:
            fh.seek(offset)
            trees = _unpack(fh.read(length))
            yield start, trees
            start += n
            del trees


def forest_shell(path: str | os.PathLike):
    """The stored forest without its trees (``estimators_ == []``), e.g. for ``classes_``."""
    with open(path, "rb") as fh:
        return _shell(fh, _index(fh, path))


class LazyTrees(Sequence):
    """The trees of a forest store as a read-only sequence that keeps one block in memory.

    ``trees[i]`` and iteration read the block holding the tree (and keep it until another
    block is read); a slice is a list of the trees (reading each block it spans). Pickles
    as its (absolute) path, so a worker process opens the same store. Threads iterating at
    once get the right trees but each reads the blocks it needs (and may hold one).
    """

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path).resolve()
        with open(self.path, "rb") as fh:
            index = _index(fh, self.path)
        self._blocks = [(int(o), int(length)) for o, length, _ in index["blocks"]]
        sizes = [int(n) for *_, n in index["blocks"]]
        self._starts = np.concatenate([[0], np.cumsum(sizes)]).astype(int)
        self._cached: tuple[int, list] | None = None

    def __reduce__(self):
        return (type(self), (str(self.path),))

    def __len__(self) -> int:
        return int(self._starts[-1])

    def _block(self, b: int) -> list:
        cached = self._cached  # one read of the attribute: threads may replace it meanwhile
        if cached is not None and cached[0] == b:
            return cached[1]
        self._cached = None  # drop the old block before reading the next
        offset, length = self._blocks[b]
        with open(self.path, "rb") as fh:
            fh.seek(offset)
            trees = _unpack(fh.read(length))
        self._cached = (b, trees)
        return trees

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        n = len(self)
        i = int(i) + n if int(i) < 0 else int(i)
        if not 0 <= i < n:
            raise IndexError(f"tree {i} of a forest of {n}")
        b = int(np.searchsorted(self._starts, i, side="right")) - 1
        return self._block(b)[i - self._starts[b]]

    def __iter__(self):
        for b in range(len(self._blocks)):
            yield from self._block(b)


def open_forest(path: str | os.PathLike):
    """The stored forest with ``estimators_`` a :class:`LazyTrees` (one block in memory).

    Its ``predict`` / ``predict_proba`` (keep ``n_jobs=1``) are bitwise those of the whole
    forest; anything that slices or lists all trees reads them all.
    """
    shell = forest_shell(path)
    shell.estimators_ = LazyTrees(path)
    return shell


def load_forest(path: str | os.PathLike):
    """The whole stored forest, bitwise the forest that was saved (or fitted in blocks).

    Raises
    ------
    ValueError
        ``path`` is not a complete forest store.
    """
    shell = forest_shell(path)
    trees = []
    for _, block in iter_forest_blocks(path):
        trees.extend(block)
    shell.estimators_ = trees
    return shell


def forests_equal(a, b) -> bool:
    """Whether two fitted forests are bitwise the same model.

    Same class, attributes in the same order each pickling to the same bytes, and trees of the
    same class whose attributes pickle alike and whose node arrays (``tree_.__getstate__()``:
    nodes, values, depth, node count) are bitwise equal field by field (a node record's
    padding bytes are not compared: they are whatever memory held, and differ between a
    forest and its joblib round trip). A forest loaded from a store and the
    one that was saved are equal though their pickles differ: trees unpickled block by block
    do not share the small objects (numpy dtypes) that trees pickled together share.
    """

    def same(x, y) -> bool:
        return pickle.dumps(x, protocol=pickle.HIGHEST_PROTOCOL) == pickle.dumps(y, protocol=pickle.HIGHEST_PROTOCOL)

    if type(a) is not type(b) or list(vars(a)) != list(vars(b)):
        return False
    if not all(same(vars(a)[k], vars(b)[k]) for k in vars(a) if k != "estimators_"):
        return False
    ta, tb = list(a.estimators_), list(b.estimators_)
    if len(ta) != len(tb):
        return False
    for x, y in zip(ta, tb):
        if type(x) is not type(y) or list(vars(x)) != list(vars(y)):
            return False
        if not all(same(vars(x)[k], vars(y)[k]) for k in vars(x) if k != "tree_"):
            return False
        sx, sy = x.tree_.__getstate__(), y.tree_.__getstate__()
        if sx.keys() != sy.keys():
            return False
        for k in sx:
            u, v = np.asarray(sx[k]), np.asarray(sy[k])
            if u.dtype != v.dtype or u.shape != v.shape:
                return False
            # field by field: the node records' padding bytes (after missing_go_to_left) are not data
            for name in u.dtype.names or (None,):
                if (u if name is None else u[name]).tobytes() != (v if name is None else v[name]).tobytes():
                    return False
    return True


def predict_forest(path: str | os.PathLike, X, *, proba: bool | None = None) -> np.ndarray:
    """``predict`` (regression) or ``predict_proba`` (classification) of a stored forest, one block in memory.

    Parameters
    ----------
    path : path
        A forest store.
    X : array-like of shape (n_samples, n_features)
    proba : bool, optional
        Classifiers: True (default) gives ``predict_proba``, False ``predict`` (the class of
        the largest probability, as scikit-learn). Ignored for regressors.

    Returns
    -------
    ndarray
        ``(n_samples,)`` or ``(n_samples, n_classes)``, bitwise equal to the whole
        forest's ``predict`` / ``predict_proba`` with ``n_jobs=1`` (float64; scikit-learn
        ``BaseForest.predict``: ``out += p_b`` in tree order, ``out /= n_estimators``).
    """
    from sklearn.base import is_classifier

    shell = forest_shell(path)
    classifier = is_classifier(shell)
    acc = None
    Xv = None
    for _, trees in iter_forest_blocks(path):
        if Xv is None:  # BaseForest._validate_X_predict, with the first tree as its estimators_[0]
            shell.estimators_ = trees[:1]
            Xv = shell._validate_X_predict(X)
            shell.estimators_ = []
        for tree in trees:
            p = tree.predict_proba(Xv, check_input=False) if classifier else tree.predict(Xv, check_input=False)
            if acc is None:
                acc = np.zeros_like(p, dtype=np.float64)
            acc += p
    acc /= shell.n_estimators
    if classifier and proba is False:
        return shell.classes_.take(np.argmax(acc, axis=1), axis=0)
    return acc


def plans_predictions(model) -> bool:
    """Whether :func:`predict_in_one_pass` plans ``model``'s predictions: a single-output forest
    store opened by :func:`open_forest` that is not already a planned copy (a function that plans
    itself calls :func:`predict_in_one_pass` only where this is true)."""
    return (
        isinstance(getattr(model, "estimators_", None), LazyTrees)
        and getattr(model, "n_outputs_", 1) == 1
        and not getattr(type(model), "_xaipipe_planned", False)
    )


class _Call:
    __slots__ = ("X", "output")

    def __init__(self, X: np.ndarray):
        self.X, self.output = X, None


def predict_in_one_pass(model, run, *, max_rows: int = 2_000_000):
    """``run(model)``, with the predictions of a lazily opened forest store made in one pass over
    its blocks instead of one pass per ``predict`` / ``predict_proba`` call.

    A job that explains a stored forest (ALE, PD / ICE, H-statistic) calls the model many times;
    each call reads and decompresses every block of trees again (:class:`LazyTrees`), which at
    64 000 training rows costs more than the predictions. Here ``run`` runs twice:

    1. a *dry run* on a copy of the forest whose ``predict`` (regressors) / ``predict_proba``
       (classifiers) records the validated rows of each call (float32, as the forest sees them)
       and answers with a placeholder (zeros; uniform probabilities); its result is discarded;
    2. one pass over the blocks: each tree predicts all recorded rows in one call, added to each
       row's running sum in tree order, then divided by the number of trees: per row the same
       additions as scikit-learn's ``BaseForest.predict`` / ``predict_proba`` (``n_jobs=1``), so
       bitwise the forest's output on each call's rows;
    3. the *replay*: ``run`` on a copy that answers call ``i`` with step 2's output for it, after
       checking that its rows are bitwise those recorded. A call that differs (rows that depend on
       earlier outputs) or goes past the plan is answered by the forest itself.

    The result is therefore ``run(model)``'s, bitwise. ``run`` must be a deterministic function
    of the model's outputs (it is called twice); what it does besides predicting is done twice.

    Parameters
    ----------
    model : fitted forest or any model
        Planned only if it is a single-output forest store opened by :func:`open_forest`;
        anything else: ``run(model)``.
    run : callable
        ``run(model) -> result``.
    max_rows : int, default 2 000 000
        Most rows recorded (memory: ``4 p`` bytes per row, plus the outputs); later calls are
        answered by the forest.

    Returns
    -------
    The value of ``run``.

    Raises
    ------
    Whatever ``run(model)`` raises (a dry run that raises is abandoned and ``run(model)`` runs).
    """
    import warnings

    from sklearn.base import is_classifier

    if not plans_predictions(model):
        return run(model)
    estimators = model.estimators_
    classifier = is_classifier(model)
    name = "predict_proba" if classifier else "predict"
    base = type(model)
    calls: list[_Call] = []
    budget = {"rows": int(max_rows)}

    def record(self, X):
        Xv = model._validate_X_predict(X)
        if Xv.shape[0] <= budget["rows"]:
            budget["rows"] -= Xv.shape[0]
            calls.append(_Call(np.array(Xv, copy=True)))  # a copy: the caller may refill X
        else:
            budget["rows"] = 0  # the plan ends here: later calls are the forest's
        if classifier:
            return np.full((Xv.shape[0], int(model.n_classes_)), 1.0 / int(model.n_classes_))
        return np.zeros(Xv.shape[0])

    dry = copy.copy(model)
    dry.__class__ = type(f"Recording{base.__name__}", (base,), {name: record, "_xaipipe_planned": True})
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            run(dry)
    except Exception:  # noqa: BLE001 -- the plan is an optimisation: run as is
        return run(model)
    if not calls:
        return run(model)
    _predict_calls(estimators, calls, classifier)

    position = {"i": 0}

    def replay(self, X):
        i = position["i"]
        position["i"] += 1
        Xv = model._validate_X_predict(X)
        if i < len(calls) and calls[i].X.shape == Xv.shape and np.array_equal(calls[i].X, Xv, equal_nan=True):
            out, calls[i] = calls[i].output, None  # each planned output is handed out once
            return out
        position["i"] = len(calls) + 1  # off the plan: the forest answers from here on
        return getattr(base, name)(self, X)

    planned = copy.copy(model)
    planned.__class__ = type(f"Planned{base.__name__}", (base,), {name: replay, "_xaipipe_planned": True})
    return run(planned)


def _predict_calls(trees, calls: list[_Call], classifier: bool) -> None:
    """Each call's forest output (``predict`` / ``predict_proba``) into ``call.output``: one pass
    over ``trees``, every tree on all calls' rows at once, summed per row in tree order."""
    X = np.concatenate([c.X for c in calls]) if len(calls) > 1 else calls[0].X
    acc = None
    count = 0
    for tree in trees:
        p = tree.predict_proba(X, check_input=False) if classifier else tree.predict(X, check_input=False)
        if acc is None:
            acc = np.zeros(p.shape, dtype=np.float64)
        acc += p
        count += 1
    acc /= count
    start = 0
    for c in calls:
        stop = start + c.X.shape[0]
        c.output = acc[start:stop].copy()
        start = stop
