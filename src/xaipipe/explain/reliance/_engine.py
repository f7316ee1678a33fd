"""Fast model reliance of tree-ensemble prefixes: re-evaluate only the trees that
split on the permuted variable.

Why this is exact
-----------------
A scikit-learn gradient boosting model predicts, stage by stage
(``BaseGradientBoosting._staged_raw_predict`` and the Cython
``_predict_regression_tree_inplace_fast_dense`` in
``sklearn/ensemble/_gradient_boosting.pyx``)::

    raw = _raw_predict_init(X)                    # (n, K), the init estimator's link
    for t in range(T): for k in range(K):
        raw[:, k] += learning_rate * value_tk[leaf_tk(X)]
    output = raw.ravel()                          # regressors (staged_predict)
    output = loss.predict_proba(raw)              # classifiers (the inverse link)

with ``X`` cast to float32 and the split test ``x[feature] <= threshold``. A random
forest predicts ``(0 + p_1 + ... + p_k) / k`` with ``p_t`` the tree's ``predict`` or
``predict_proba``, accumulated in tree order (:mod:`xaipipe.models.prefix`).

A permuted (or switched) data set changes only the columns of the variable of
interest ``G``. A tree none of whose internal nodes tests a column of ``G`` sends
every hybrid row ``(x_G from donor i, x_rest from recipient j)`` to the same leaf
as the original row ``j``: its term is the stored term of row ``j``. Only the
trees that split on ``G`` are re-evaluated, on all repeats of ``G`` at once (one
``tree_.apply`` / ``predict`` call per tree and chunk). The terms are then added
in scikit-learn's order (same initial value, same products, same sequence of
additions), so every member's output, hence every loss and ``e_switch``, is
*bitwise* equal to the generic path
``model_reliance(model, ..., method="generic")`` with the same
permutations (``tests/explain/reliance/test_engine.py``). All prefixes ``k`` of one fit
come out of one pass over the trees (a snapshot of the running sum after tree
``k``).

Cost. The generic path evaluates every tree on every permuted data set; the
engine evaluates tree ``t`` only for the variables it splits on, and with the
compiled kernel (:mod:`xaipipe.explain.reliance._kernels`, numba) only from the first
node of the recipient row's original path that tests the variable (its *entry
node*; 23 % (depth 2) to 38 % (depth 5) of the paths touch it), so the tree work
falls by far more than ``G / mean(#variables split on per tree)``. One walk of the
original rows records the leaves and the entry node of every variable. Without
numba the engine runs the consecutive affected stages through scikit-learn's own
Cython loop (``predict_stages``). Measured with ``python benchmarks/run.py --quick
--cores 2`` (the 324-model grid of thesis 001 Table 4.1 with ``n_estimators``
10..90, 836 test rows, 10 columns, 20 permutations; every one of the 64 800
importances bitwise equal): ``permutation_importance`` per member 66.3 s, engine
1.95 s (34x); Rashomon sets of Airfoil / Abalone 36x / 34x. Before the kernel the
engine was 13.9x (Cython stages, 85 % of its time in the traversal).

Scope. The families whose registry entry declares ``engine`` (scikit-learn random
forests, extra trees and gradient boosting), dense finite ``X``, no ``Pipeline``
wrapper. :func:`~xaipipe.explain.reliance.model_reliance` uses it where it is the
faster exact path (:func:`engine_preferred`): ``permutation`` and ``e_switch``. For
``e_divide`` (one switched row per recipient) scikit-learn's ``tree.predict`` over
the stacked data set is faster. XGBoost and other families use the generic path
(:mod:`._generic` with :func:`xaipipe.models.prefix.member_predictor`: all XGBoost
prefixes from one pass of chained margins,
:func:`xaipipe.models.prefix.prefix_predictions`).

References
----------
Fisher, Rudin & Dominici (2019), JMLR 20(177), §3 (``e_orig``, ``e_switch``,
``e_divide``, model reliance). Friedman (2001), Ann. Statist. 29(5) (gradient
boosting). Breiman (2001), Mach. Learn. 45 (random forests, permutation
importance).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

import numpy as np

from ...models.families import family_of
from ...models.prefix import ensemble_kind, n_members

__all__ = [
    "supports_engine",
    "engine_preferred",
    "tree_terms",
    "ensemble_outputs",
    "engine_sums",
]

#: Memory (bytes) of the switched rows the compiled kernel takes in one call: the
#: ``max_rows_per_batch`` chunks of one variable are passed together up to this size
#: (their loss sums are still formed chunk by chunk), so that a recipient's rows of
#: all chunks share its per-tree work (``e_switch``: all ``n - 1`` donors at once).
KERNEL_BATCH_BYTES = 64 << 20


def supports_engine(model) -> bool:
    """True for a fitted model whose family declares engine support
    (:attr:`xaipipe.models.families.Family.engine`: scikit-learn random forests,
    extra trees and gradient boosting), not wrapped in a ``Pipeline``."""
    from sklearn.pipeline import Pipeline

    fam = family_of(model)
    return not isinstance(model, Pipeline) and fam is not None and fam.engine and fam.prefix in ("forest", "boosting")


def engine_preferred(model, estimator: str, n_repeats: int = 1) -> bool:
    """Whether the engine is the faster exact path for ``model`` and ``estimator``.

    True for ``"permutation"``, ``"e_switch"`` and ``"e_divide"`` with several
    halvings of random forests, extra trees and gradient boosting (many switched
    rows per recipient: rows that never meet the variable reuse the stored term,
    and a one-column variable's rows get their leaves from one interval search
    below the entry node, :mod:`xaipipe.explain.reliance._kernels`); False for
    ``"e_divide"`` with one halving (one switched row per recipient, where the
    engine's per-variable set-up costs more than scikit-learn's own
    ``tree.predict`` over the stacked data set). Measured on the fitted models of the full run, one
    thread (``python benchmarks/reliance_paths.py results/full``): Wine random
    forest (1 800 trees, 980 test rows, 10 variables) permutation (20 repeats)
    engine 13.9 s / generic 26.6 s, e_divide 10.6 s / 2.0 s, e_switch (400 rows)
    10.5 s / 137 s; Wine gradient boosting e_divide 0.17 s / 0.05 s; every
    dataset's forest and boosting model the same way round
    (``docs/performance.md``). Both paths give bitwise-equal results, so this only
    chooses speed.
    """
    return supports_engine(model) and (estimator != "e_divide" or n_repeats > 1)


def _require_engine(model) -> None:
    if not supports_engine(model):
        raise TypeError(
            f"{type(model).__name__} has no tree-engine support (a scikit-learn random forest, "
            "extra trees or gradient boosting model outside a Pipeline); use method='generic'"
        )


# ----------------------------------------------------------------------------- per-tree terms


def _stored(model) -> bool:
    """Whether ``model`` is a forest store opened lazily (:func:`xaipipe.models.forest_store.open_forest`)."""
    from ...models.forest_store import LazyTrees

    return isinstance(getattr(model, "estimators_", None), LazyTrees)


class _StoredRows:
    """The stages ``[tree]`` of the first ``n`` trees of a lazily opened forest store, read a block at a time."""

    def __init__(self, trees, n: int):
        self._trees, self._n = trees, int(n)

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [[t] for t in self._trees[slice(*i.indices(self._n))]]
        i = int(i) + self._n if int(i) < 0 else int(i)
        if not 0 <= i < self._n:
            raise IndexError(i)
        return [self._trees[i]]

    def __iter__(self):
        from itertools import islice

        return ([t] for t in islice(self._trees, self._n))

    def blocks(self) -> list[tuple[int, int]]:
        """``[start, stop)`` of the store's blocks within the first ``n`` trees."""
        starts = [int(v) for v in self._trees._starts]
        return [(a, min(b, self._n)) for a, b in zip(starts[:-1], starts[1:]) if a < self._n]


class _Ensemble:
    """The stages of a fitted ensemble and how their terms combine.

    A *stage* is one boosting iteration (its ``K`` trees) or one forest tree.
    """

    def __init__(self, model, n_trees: int):
        from sklearn.base import is_classifier

        _require_engine(model)
        self.model = model
        self.kind = ensemble_kind(model)
        self.classifier = bool(is_classifier(model))
        self.n_trees = int(n_trees)
        if self.kind == "boosting":
            self.stages = model.estimators_[: self.n_trees]
            self.K = self.stages.shape[1]
            self.lr = float(model.learning_rate)
            trees = [list(row) for row in self.stages]
        elif _stored(model):  # a forest store opened lazily: rows read one block at a time
            self.K = 1
            trees = _StoredRows(model.estimators_, self.n_trees)
        else:
            self.K = 1
            trees = [[tr] for tr in model.estimators_[: self.n_trees]]
        self.trees = trees
        self._used = None

    @property
    def used(self) -> list:
        """Per stage, the set of columns its trees split on (computed on first use)."""
        if self._used is None:
            self._used = []
            for row in self.trees:
                cols = set()
                for tr in row:
                    feature = tr.tree_.feature
                    cols.update(int(f) for f in np.unique(feature[feature >= 0]))
                self._used.append(frozenset(cols))
        return self._used

    def term(self, t: int, X32: np.ndarray) -> np.ndarray:
        """Term of stage ``t`` at the float32 rows ``X32``: ``(rows, K)`` (boosting:
        ``learning_rate * value`` of each tree's leaf, the product the Cython loop
        adds), ``(rows,)`` or ``(rows, n_classes)`` (forest ``predict`` /
        ``predict_proba``)."""
        if self.kind == "boosting":
            out = np.empty((X32.shape[0], self.K))
            for k, tree in enumerate(self.trees[t]):
                table = self.lr * tree.tree_.value[:, 0, 0]
                out[:, k] = table[tree.tree_.apply(X32)]
            return out
        tree = self.trees[t][0]
        if self.classifier:
            return tree.predict_proba(X32, check_input=False)
        return tree.predict(X32, check_input=False)

    def run(self, acc: np.ndarray, a: int, b: int, X32: np.ndarray) -> None:
        """Add stages ``a..b-1`` evaluated at ``X32`` to ``acc``, in order."""
        if self.kind == "boosting":
            from sklearn.ensemble._gradient_boosting import predict_stages

            # scikit-learn's own loop: out[i, k] += scale * value[leaf], stage by stage.
            predict_stages(self.stages[a:b], X32, self.lr, acc)
            return
        for t in range(a, b):
            acc += self.term(t, X32)

    def start(self, X32: np.ndarray) -> np.ndarray:
        """The accumulator before the first stage."""
        n = X32.shape[0]
        if self.kind == "boosting":
            return np.asarray(self.model._raw_predict_init(X32), dtype=np.float64)
        if self.classifier:
            return np.zeros((n, len(self.model.classes_)))
        return np.zeros(n)

    def output(self, acc: np.ndarray, b: int) -> np.ndarray:
        """Model output after ``b`` stages from the accumulator."""
        if self.kind == "boosting":
            if self.classifier:
                return self.model._loss.predict_proba(acc)
            return acc.ravel().copy()
        return acc / b

    # -- compiled kernel ---------------------------------------------------------------

    @property
    def width(self) -> int:
        """Accumulator width ``D``: ``K`` (boosting), ``n_classes`` (forest
        classifier) or 1 (forest regressor)."""
        if self.kind == "boosting":
            return self.K
        return len(self.model.classes_) if self.classifier else 1

    def flat(self, a: int = 0, b: int | None = None):
        """Stages ``a .. b - 1`` (default: the first ``n_trees``) as :class:`~xaipipe.explain.reliance._kernels.FlatTrees`
        (boosting: stage-major, tree ``(t, k)`` adds ``learning_rate * value`` to
        column ``k``; forests: tree ``t`` adds its ``predict`` / ``predict_proba``
        row)."""
        from ._kernels import flatten_trees

        trees, tables, columns = [], [], []
        for row in self.trees[a:b]:
            for k, est in enumerate(row):
                tree = est.tree_
                trees.append(tree)
                if self.kind == "boosting":
                    # the product the Cython loop forms: scale * value[node]
                    tables.append((self.lr * tree.value[:, 0, 0])[:, None])
                    columns.append(k)
                elif self.classifier:
                    # DecisionTreeClassifier.predict_proba: tree_.predict(X)[:, :n_classes]
                    tables.append(tree.value[:, 0, : len(self.model.classes_)])
                    columns.append(0)
                else:
                    # DecisionTreeRegressor.predict: tree_.predict(X)[:, 0]
                    tables.append(tree.value[:, 0, :1])
                    columns.append(0)
        return flatten_trees(trees, tables, columns, self.width)

    def snapshots(self, ks: Sequence[int]) -> tuple[np.ndarray, dict[int, int]]:
        """Snapshot slot after the last tree of each wanted prefix.

        Returns ``snapshot`` of shape ``(n_flat_trees,)`` (``-1``: none) and
        ``slot`` (prefix ``k`` -> slot index)."""
        per_stage = self.K if self.kind == "boosting" else 1
        snapshot = np.full(self.n_trees * per_stage, -1, dtype=np.int64)
        slot: dict[int, int] = {}
        for k in sorted(set(int(k) for k in ks)):
            slot[k] = len(slot)
            snapshot[k * per_stage - 1] = slot[k]
        return snapshot, slot

    def as_acc(self, block: np.ndarray) -> np.ndarray:
        """A kernel snapshot ``(rows, D)`` in the accumulator's own shape."""
        if self.kind == "forest" and not self.classifier:
            return block[:, 0]
        return block


def _as_float32(model, X) -> np.ndarray:
    X = np.asarray(X)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D, got shape {X.shape}")
    if X.dtype.kind not in "biuf":
        raise ValueError(f"X must be numeric, got dtype {X.dtype}")
    n_in = getattr(model, "n_features_in_", X.shape[1])
    if X.shape[1] != n_in:
        raise ValueError(f"X has {X.shape[1]} columns but the model was fitted on {n_in}")
    X32 = np.ascontiguousarray(X, dtype=np.float32)
    if not np.isfinite(X32).all():
        raise ValueError("the engine needs finite X (NaN routing is not replicated)")
    return X32


def tree_terms(model, X, n_trees: int | None = None) -> np.ndarray:
    """The per-tree terms that the ensemble adds up, at every row of ``X``.

    Parameters
    ----------
    model : fitted random forest or gradient boosting (scikit-learn)
    X : array-like of shape (n, p)
    n_trees : int, optional
        First trees (stages) to evaluate; default all.

    Returns
    -------
    ndarray
        Gradient boosting: shape ``(T, n, K)``, ``learning_rate * value`` of the
        leaf of tree ``(t, k)`` (``K = 1`` for regression and binary
        classification). Random forest: ``(T, n)`` (regressor ``predict``) or
        ``(T, n, n_classes)`` (classifier ``predict_proba``).

    Raises
    ------
    TypeError
        Unsupported model. ``ValueError``: bad ``X`` or ``n_trees``.
    """
    _require_engine(model)
    total = n_members(model)
    ens = _Ensemble(model, total if n_trees is None else _check_trees(n_trees, total))
    X32 = _as_float32(model, X)
    out = np.stack([ens.term(t, X32) for t in range(ens.n_trees)])
    return out


def _check_trees(n_trees, total) -> int:
    if isinstance(n_trees, (bool, np.bool_)) or not isinstance(n_trees, (int, np.integer)):
        raise ValueError(f"n_trees must be an int, got {n_trees!r}")
    if not 1 <= int(n_trees) <= total:
        raise ValueError(f"n_trees must be in [1, {total}], got {n_trees}")
    return int(n_trees)


def _check_ks(n_estimators, total) -> list[int]:
    if n_estimators is None:
        return [total]
    ks = [int(k) for k in n_estimators]
    if not ks:
        raise ValueError("n_estimators list is empty")
    if min(ks) < 1 or max(ks) > total:
        raise ValueError(f"n_estimators values must be in [1, {total}], got {ks}")
    return ks


def ensemble_outputs(model, X, n_estimators: Sequence[int] | None = None) -> np.ndarray:
    """Outputs of every prefix ``k`` from per-tree terms (the engine's forward pass).

    Equal (bitwise) to :func:`xaipipe.models.prefix.prefix_predictions`.

    Returns
    -------
    ndarray
        ``(m, n)`` (regression) or ``(m, n, n_classes)`` (``predict_proba``).
    """
    _require_engine(model)
    ks = _check_ks(n_estimators, n_members(model))
    ens = _Ensemble(model, max(ks))
    X32 = _as_float32(model, X)
    out: list = [None] * len(ks)
    wanted = _wanted(ks)
    acc = ens.start(X32)
    for t in range(ens.n_trees):
        acc += ens.term(t, X32)
        for i in wanted.get(t + 1, ()):
            out[i] = ens.output(acc, t + 1)
    return np.stack(out)


def _wanted(ks: Sequence[int]) -> dict[int, list[int]]:
    wanted: dict[int, list[int]] = {}
    for i, k in enumerate(ks):
        wanted.setdefault(int(k), []).append(i)
    return wanted


# ----------------------------------------------------------------------------- reliance


def engine_sums(
    model,
    Xv,
    yv,
    *,
    n_estimators,
    cols,
    loss_fn,
    loss_name,
    designs,
    max_rows: int,
    n_jobs: int | None = 1,
    kernel: bool | None = None,
    pairs=None,
):
    """``e_orig`` ``(m,)`` and the switched loss sums ``(m, G, R)`` of every prefix member.

    Same sums as the generic path
    (:func:`~xaipipe.explain.reliance._generic.generic_sums` with
    :func:`~xaipipe.models.prefix.member_predictor`), bitwise, computed by
    re-evaluating only the trees that split on the permuted variable (module
    docstring). Inputs are validated by
    :func:`~xaipipe.explain.reliance.model_reliance`.

    Parameters
    ----------
    model : fitted model with engine support (:func:`supports_engine`)
    Xv : ndarray of shape (n, p)
    yv : ndarray of shape (n,)
    n_estimators : sequence of int or None
        Prefixes evaluated as members (default: the whole model).
    cols : list of column-index arrays (the variables)
    loss_fn, loss_name : the per-sample loss
    designs : per variable, ``(repeat, recipients, donors)`` triples
    max_rows : int
        ``max_rows_per_batch``: the generic path's predict batches, whose partial
        sums the engine reproduces.
    n_jobs : int or None, default 1
        Threads of the compiled kernel (switched rows in parallel; ``-1``: all of
        numba's threads). Every row's sum is formed sequentially, so the result does
        not depend on it.
    kernel : bool, optional
        ``True``: the compiled kernel (:mod:`._kernels`; resumes each row's walk at
        the first node of its original path that tests the variable); ``False``:
        scikit-learn's Cython loop over the affected trees (the pre-kernel engine,
        kept as a reference and a fallback); default: the kernel when numba imports.
    pairs : :class:`._subsample.PairSums`, optional
        Receives every loss the sums are formed from, by recipient and donor row, and the
        unchanged rows' losses (the ``e_switch`` subsample's SE); the sums do not change.

    Raises
    ------
    TypeError
        ``model`` is not supported. ``ValueError``: ``n_estimators`` outside
        ``[1, n_trees]``, non-finite ``X``, or ``X`` with the wrong number of columns.
    """
    _require_engine(model)
    ks = _check_ks(n_estimators, n_members(model))
    ens = _Ensemble(model, max(ks))
    X32 = _as_float32(model, Xv)
    from . import _kernels

    if kernel is None:
        kernel = _kernels.AVAILABLE
    if kernel and isinstance(ens.trees, _StoredRows):  # a forest store: one block of trees at a time
        return _kernel_sums_blocks(ens, ks, X32, yv, cols, loss_fn, loss_name, designs, int(max_rows), n_jobs, pairs)
    if kernel:
        return _kernel_sums(ens, ks, X32, yv, cols, loss_fn, loss_name, designs, int(max_rows), n_jobs, pairs)
    return _sklearn_sums(ens, ks, X32, yv, cols, loss_fn, loss_name, designs, int(max_rows), pairs)


def _switched_rows(chunk, X32, yv, cg):
    """The switched data sets of one chunk of designs, stacked: recipients ``(rows,)``,
    donors ``(rows,)``, rows ``Xh`` (recipient's columns, donor's columns ``cg``),
    their responses ``yh`` and each design's ``(start, stop)`` in the stack."""
    recip = np.concatenate([c[1] for c in chunk])
    donors = np.concatenate([c[2] for c in chunk])
    Xh = X32[recip]
    Xh[:, cg] = X32[np.ix_(donors, cg)]
    bounds, start = [], 0
    for _, rc, _ in chunk:
        bounds.append((start, start + len(rc)))
        start += len(rc)
    return recip, donors, Xh, yv[recip], bounds


def _kernel_sums(ens, ks, X32, yv, cols, loss_fn, loss_name, designs, max_rows, n_jobs, pairs=None):
    """e_orig ``(m,)`` and the per-data-set loss sums ``(m, G, R)`` with the compiled kernel."""
    from ._kernels import accumulate, signatures, walk_original

    n, p = X32.shape
    m, G = len(ks), len(cols)
    R = 1 + max((r for dg in designs for r, _, _ in dg), default=0)
    flat = ens.flat()
    Tf = flat.n_trees
    snapshot, slot = ens.snapshots(ks)
    S = len(slot)
    members = {k: [i for i, kk in enumerate(ks) if kk == k] for k in slot}
    # one walk of every original row: its leaves and, per variable, the first node of
    # its path that tests the variable (where a switched row's walk can diverge)
    leaf, entries = walk_original(flat, X32, cols, n_jobs=n_jobs)
    term = flat.table[leaf]  # (n, Tf, W): the stored term of every row in every tree
    del leaf
    everyone = np.arange(n)

    def start_of(Xb):
        return np.ascontiguousarray(np.asarray(ens.start(Xb), dtype=np.float64).reshape(Xb.shape[0], -1))

    # e_orig: the original rows (no entry node anywhere: every term is the stored one)
    none = np.full((n, Tf), -1, dtype=np.int32)
    out = accumulate(flat, snapshot, none, term, X32, everyone, start_of(X32), S, n_jobs=n_jobs)
    del none
    e_orig = np.empty(m)
    _set_e_orig(e_orig, out, slot, members, ens, yv, loss_fn, loss_name, pairs)

    sums = np.zeros((m, G, R))
    for g, cg in enumerate(cols):
        entry = entries[g]
        variable = signatures(flat, X32, cg, n_jobs=n_jobs)
        # One kernel call per batch of chunks (the loss sums are still formed chunk by
        # chunk, as the generic path forms them): a recipient's switched rows of all
        # chunks side by side, so its per-tree work (the interval search) is done once.
        row_bytes = 4 * p + 8 * S * ens.width + 64
        for chunks in _chunks(
            _chunks(designs[g], max_rows), max(max_rows, KERNEL_BATCH_BYTES // row_bytes), size=_chunk_rows
        ):
            recip, donors, Xh, yh, bounds = _switched_rows([d for c in chunks for d in c], X32, yv, cg)
            out = accumulate(
                flat,
                snapshot,
                entry,
                term,
                Xh,
                recip,
                start_of(Xh),
                S,
                donors=donors,
                X32=X32,
                variable=variable,
                n_jobs=n_jobs,
            )
            _add_batch_losses(
                sums, g, chunks, bounds, yh, out, slot, members, ens, (loss_fn, loss_name), pairs, (recip, donors)
            )
    return e_orig, sums


def _set_e_orig(e_orig, out, slots, members, ens, yv, loss_fn, loss_name, pairs=None) -> None:
    """``e_orig[i]`` of the members of each snapshot in ``slots`` from the original rows' sums ``out``
    (and their rows' losses into ``pairs``, a :class:`._subsample.PairSums`, if given)."""
    n = len(yv)
    for k, s in slots.items():
        rows = None if pairs is None else partial(pairs.add_unchanged, members[k])
        value = _loss_sums(loss_fn, loss_name, yv, ens.output(ens.as_acc(out[s]), k), [(0, n)], rows)[0] / n
        for i in members[k]:
            e_orig[i] = value


def _add_batch_losses(sums, g, chunks, bounds, yh, out, slots, members, ens, loss, pairs=None, switched=None) -> None:
    """Add one batch's switched-data-set loss sums to ``sums[i, g, r]``, chunk by chunk (the loss sums
    formed per chunk, as the generic path forms them), for the members ``members[k]`` of each snapshot
    ``k`` in ``slots`` (``k`` -> slot of ``out``, the accumulated sums of the batch's rows); ``loss``
    is ``(loss_fn, loss_name)``; with ``pairs`` (a :class:`._subsample.PairSums`), the rows' losses by
    recipient and donor, ``switched = (recip, donors)`` (the batch's, from :func:`_switched_rows`),
    too."""
    loss_fn, loss_name = loss
    recip, donors = (None, None) if switched is None else switched
    first = 0
    for chunk in chunks:
        # the chunk's rows of the batch and its data sets' bounds within them
        own = bounds[first : first + len(chunk)]
        a, b = own[0][0], own[-1][1]
        local = [(lo - a, hi - a) for lo, hi in own]
        for k, s in slots.items():
            rows = None if pairs is None else partial(pairs.add, members[k], g, recip[a:b], donors[a:b])
            part = _loss_sums(loss_fn, loss_name, yh[a:b], ens.output(ens.as_acc(out[s, a:b]), k), local, rows)
            for i in members[k]:
                for (r, _, _), v in zip(chunk, part):
                    sums[i, g, r] += v
        first += len(chunk)


def _kernel_sums_blocks(ens, ks, X32, yv, cols, loss_fn, loss_name, designs, max_rows, n_jobs, pairs=None):
    """:func:`_kernel_sums` of a lazily opened forest store, the store's blocks of trees outermost.

    Per block: its trees flattened, the original rows walked, then every batch of switched rows
    of every variable accumulated through the block's trees starting from the batch's running
    sum after the previous block (the kernel's ``start``), which is carried to the next block.
    Every row's sum is therefore formed by the same additions in the same order as in one pass
    over all trees, the batches and the loss sums of each member (formed in the block holding
    its last tree) are those of :func:`_kernel_sums`: the results are bitwise equal. Memory: one
    block's trees and flat arrays, plus the running sums of all switched rows.
    """
    from ._kernels import accumulate, signatures, walk_original

    n, p = X32.shape
    m, G = len(ks), len(cols)
    R = 1 + max((r for dg in designs for r, _, _ in dg), default=0)
    snapshot, slot = ens.snapshots(ks)
    S = len(slot)
    members = {k: [i for i, kk in enumerate(ks) if kk == k] for k in slot}
    everyone = np.arange(n)
    row_bytes = 4 * p + 8 * S * ens.width + 64  # the batches of _kernel_sums
    batches = [
        list(_chunks(_chunks(designs[g], max_rows), max(max_rows, KERNEL_BATCH_BYTES // row_bytes), size=_chunk_rows))
        for g in range(G)
    ]

    def start_of(Xb):
        return np.ascontiguousarray(np.asarray(ens.start(Xb), dtype=np.float64).reshape(Xb.shape[0], -1))

    e_orig = np.empty(m)
    sums = np.zeros((m, G, R))
    carry_orig = start_of(X32)
    carry: list[list] = [[None] * len(batches[g]) for g in range(G)]
    for a, b in ens.trees.blocks():
        flat = ens.flat(a, b)
        snap = np.array(snapshot[a:b], dtype=np.int64)
        if snap[-1] < 0:  # one more slot: the running sum after the block's last tree
            snap[-1], end, n_slots = S, S, S + 1
        else:
            end, n_slots = int(snap[-1]), S
        here = {k: s for k, s in slot.items() if a < k <= b}  # members whose last tree is in the block
        leaf, entries = walk_original(flat, X32, cols, n_jobs=n_jobs)
        term = flat.table[leaf]
        del leaf
        none = np.full((n, b - a), -1, dtype=np.int32)
        out = accumulate(flat, snap, none, term, X32, everyone, carry_orig, n_slots, n_jobs=n_jobs)
        _set_e_orig(e_orig, out, here, members, ens, yv, loss_fn, loss_name, pairs)
        carry_orig = np.ascontiguousarray(out[end])
        for g, cg in enumerate(cols):
            variable = signatures(flat, X32, cg, n_jobs=n_jobs)
            for q, chunks in enumerate(batches[g]):
                recip, donors, Xh, yh, bounds = _switched_rows([d for c in chunks for d in c], X32, yv, cg)
                start = start_of(Xh) if carry[g][q] is None else carry[g][q]
                out = accumulate(
                    flat,
                    snap,
                    entries[g],
                    term,
                    Xh,
                    recip,
                    start,
                    n_slots,
                    donors=donors,
                    X32=X32,
                    variable=variable,
                    n_jobs=n_jobs,
                )
                _add_batch_losses(
                    sums, g, chunks, bounds, yh, out, here, members, ens, (loss_fn, loss_name), pairs, (recip, donors)
                )
                carry[g][q] = np.ascontiguousarray(out[end])
        del flat, term, entries
    return e_orig, sums


def _chunk_rows(chunk) -> int:
    return sum(len(rc) for _, rc, _ in chunk)


def _sklearn_sums(ens, ks, X32, yv, cols, loss_fn, loss_name, designs, max_rows, pairs=None):
    """e_orig and loss sums with scikit-learn's loops over the affected stages only."""
    n = X32.shape[0]
    m, G = len(ks), len(cols)
    R = 1 + max((r for dg in designs for r, _, _ in dg), default=0)
    wanted = _wanted(ks)
    max_rows_per_batch = max_rows
    # Terms of every stage on the original rows, and e_orig.
    terms = []
    e_orig = np.empty(m)
    acc = ens.start(X32)
    for t in range(ens.n_trees):
        terms.append(ens.term(t, X32))
        acc += terms[t]
        for i in wanted.get(t + 1, ()):
            out = ens.output(acc, t + 1)
            rows = None if pairs is None else partial(pairs.add_unchanged, [i])
            e_orig[i] = _loss_sums(loss_fn, loss_name, yv, out, [(0, n)], rows)[0] / n

    sums = np.zeros((m, G, R))
    for g, cg in enumerate(cols):
        cset = frozenset(int(c) for c in cg)
        affected = [bool(u & cset) for u in ens.used]
        for chunk in _chunks(designs[g], int(max_rows_per_batch)):
            recip, donors, Xh, yh, bounds = _switched_rows(chunk, X32, yv, cg)
            tiled = _tiling(chunk, n)
            acc = ens.start(Xh)
            view = acc.reshape((tiled, n) + acc.shape[1:]) if tiled is not None else None
            t = 0
            while t < ens.n_trees:
                if affected[t]:
                    # a run of stages that split on the group: scikit-learn's loop
                    b = t + 1
                    while b < ens.n_trees and affected[b] and b not in wanted:
                        b += 1
                    ens.run(acc, t, b, Xh)
                else:
                    # same leaf as the recipient row: reuse its stored term
                    if view is not None:  # rows are `tiled` copies of 0..n-1
                        view += terms[t]
                    else:
                        acc += terms[t][recip]
                    b = t + 1
                for i in wanted.get(b, ()):
                    rows = None if pairs is None else partial(pairs.add, [i], g, recip, donors)
                    s = _loss_sums(loss_fn, loss_name, yh, ens.output(acc, b), bounds, rows)
                    for (r, _, _), v in zip(chunk, s):
                        sums[i, g, r] += v
                t = b
    return e_orig, sums


def _chunks(items, max_rows, size=None):
    """Consecutive items stacked up to ``max_rows`` rows (a single item is never
    split). Items are data sets ``(repeat, recipients, donors)`` of one group
    (``size`` default: their rows) or chunks of them (``size=_chunk_rows``)."""
    size = size or (lambda item: len(item[1]))
    batch, rows = [], 0
    for item in items:
        n = size(item)
        if batch and rows + n > max_rows:
            yield batch
            batch, rows = [], 0
        batch.append(item)
        rows += n
    if batch:
        yield batch


def _tiling(chunk, n) -> int | None:
    """Number of copies if the chunk's recipients are ``0..n-1`` repeated, else None."""
    everyone = np.arange(n)
    for _, rc, _ in chunk:
        if len(rc) != n or not np.array_equal(rc, everyone):
            return None
    return len(chunk)


def _loss_sums(loss_fn, name, y, out, bounds, rows=None) -> list[float]:
    """Per-data-set loss sums of one member's output, as the generic path forms them
    (``losses[:, a:b].sum(axis=1)`` of the loss of the stacked rows); ``rows``, if given, is
    called with the rows' losses, shape ``(len(y),)`` (a :class:`._subsample.PairSums` hook)."""
    losses = np.asarray(loss_fn(y, out[None]), dtype=np.float64)
    if losses.shape != (1, len(y)):
        raise ValueError(f"loss {name!r} returned shape {losses.shape}, expected {(1, len(y))}")
    if rows is not None:
        rows(losses[0])
    return [float(losses[:, a:b].sum(axis=1)[0]) for a, b in bounds]
