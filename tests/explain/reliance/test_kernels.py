"""The compiled tree-walk kernels against scikit-learn's own traversal.

Oracles: ``Tree.apply`` (leaves), ``Tree.decision_path`` (the first node on a row's
path that tests the variable), ``staged_predict`` / ``_staged_raw_predict`` and the
forest's tree-by-tree sum (running sums), and a brute-force re-evaluation of every
tree on the switched rows.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.ensemble import (
    ExtraTreesRegressor,
    GradientBoostingClassifier,
    GradientBoostingRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)

from xaipipe.explain.reliance import _kernels
from xaipipe.explain.reliance._engine import _Ensemble
from xaipipe.explain.reliance._kernels import accumulate, flatten_trees, signatures, thread_count, walk_original
from xaipipe.models.prefix import prefix_predictions

pytestmark = pytest.mark.skipif(not _kernels.AVAILABLE, reason="numba not installed")

N, P = 60, 5


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(N, P))
    X[:, 4] = rng.integers(0, 3, N)
    y = X[:, 0] - X[:, 1] ** 2 + 0.5 * X[:, 4] + 0.2 * rng.normal(size=N)
    y3 = np.digitize(y, np.quantile(y, [1 / 3, 2 / 3]))
    return X, y, (y > np.median(y)).astype(int), y3


def _models(data):
    X, y, yb, y3 = data
    return {
        "gb_reg": GradientBoostingRegressor(n_estimators=15, max_depth=3, random_state=0).fit(X, y),
        "gb_bin": GradientBoostingClassifier(n_estimators=10, max_depth=2, random_state=0).fit(X, yb),
        "gb_multi": GradientBoostingClassifier(n_estimators=8, max_depth=2, random_state=0).fit(X, y3),
        "rf_reg": RandomForestRegressor(n_estimators=7, random_state=0).fit(X, y),
        "rf_multi": RandomForestClassifier(n_estimators=6, random_state=0).fit(X, y3),
        "et_reg": ExtraTreesRegressor(n_estimators=5, max_depth=4, random_state=0).fit(X, y),
    }


MODEL_NAMES = ["gb_reg", "gb_bin", "gb_multi", "rf_reg", "rf_multi", "et_reg"]


@pytest.fixture(scope="module")
def models(data):
    return _models(data)


def _sk_trees(model):
    """The fitted DecisionTree* objects in the order the kernel flattens them."""
    if hasattr(model, "estimators_") and np.ndim(model.estimators_) == 2:
        return [est for row in model.estimators_ for est in row]
    return list(model.estimators_)


GROUPS = [[1, 4], [0], [1], [2, 3]]  # column 1 in two variables


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_walk_original_matches_apply_and_decision_path(name, models, data):
    model = models[name]
    X32 = data[0].astype(np.float32)
    ens = _Ensemble(model, len(model.estimators_))
    flat = ens.flat()
    leaf, entry = walk_original(flat, X32, GROUPS)
    assert leaf.shape == (N, flat.n_trees) and entry.shape == (len(GROUPS), N, flat.n_trees)
    for t, est in enumerate(_sk_trees(model)):
        off = flat.roots[t]
        np.testing.assert_array_equal(leaf[:, t] - off, est.tree_.apply(X32))
        path = est.tree_.decision_path(X32).tocsr()
        feat = est.tree_.feature
        for i in range(N):
            nodes = np.sort(path.indices[path.indptr[i] : path.indptr[i + 1]])  # root first
            for g, cols in enumerate(GROUPS):
                hits = [v for v in nodes if feat[v] >= 0 and feat[v] in cols]
                assert entry[g, i, t] == (hits[0] + off if hits else -1)
    leaf0, none = walk_original(flat, X32)
    assert none.shape == (0, N, flat.n_trees)
    np.testing.assert_array_equal(leaf0, leaf)
    leaf2, entry2 = walk_original(flat, X32, GROUPS, n_jobs=2)
    np.testing.assert_array_equal(leaf2, leaf)
    np.testing.assert_array_equal(entry2, entry)


def test_float32_split_test_is_scikit_learns():
    """Values whose float64 lies above a threshold but whose float32 cast does not."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=400)
    y = (x > 0.1).astype(float) + 0.01 * rng.normal(size=400)
    model = GradientBoostingRegressor(n_estimators=3, max_depth=1, random_state=0).fit(x[:, None], y)
    thr = np.array([est.tree_.threshold[0] for est in model.estimators_[:, 0]])
    probes = []
    for t in thr:
        below32 = np.float32(t)
        probes += [
            t,
            np.nextafter(t, np.inf),
            np.nextafter(t, -np.inf),
            float(below32),
            float(np.nextafter(below32, np.float32(np.inf))),
            float(np.nextafter(below32, np.float32(-np.inf))),
        ]
    Xp = np.asarray(probes)[:, None]
    X32 = Xp.astype(np.float32)
    ens = _Ensemble(model, 3)
    flat = ens.flat()
    leaf, _ = walk_original(flat, X32)
    for t, est in enumerate(model.estimators_[:, 0]):
        np.testing.assert_array_equal(leaf[:, t] - flat.roots[t], est.tree_.apply(X32))
    # and the running sums equal staged_predict on the float64 input
    term = flat.table[leaf]
    snap, slot = ens.snapshots([1, 2, 3])
    start = model._raw_predict_init(X32).reshape(len(Xp), 1)
    out = accumulate(flat, snap, np.full(leaf.shape, -1), term, X32, np.arange(len(Xp)), start, len(slot))
    for k, p in enumerate(model.staged_predict(Xp), start=1):
        np.testing.assert_array_equal(out[slot[k], :, 0], p)


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_running_sums_equal_scikit_learn(name, models, data):
    model = models[name]
    X = data[0]
    X32 = X.astype(np.float32)
    T = len(model.estimators_)
    ks = list(range(1, T + 1))
    ens = _Ensemble(model, T)
    flat = ens.flat()
    snap, slot = ens.snapshots(ks)
    leaf, _ = walk_original(flat, X32)
    term = flat.table[leaf]
    start = np.asarray(ens.start(X32), dtype=np.float64).reshape(N, -1)
    out = accumulate(flat, snap, np.full(leaf.shape, -1), term, X32, np.arange(N), start, len(slot))
    assert out.shape == (T, N, ens.width)
    if name.startswith("gb"):
        for k, raw in enumerate(model._staged_raw_predict(X32), start=1):
            np.testing.assert_array_equal(out[slot[k]], raw)
    else:
        ref = prefix_predictions(model, X, ks)
        for k in ks:
            np.testing.assert_array_equal(ens.output(ens.as_acc(out[slot[k]]), k), ref[k - 1])


@pytest.mark.parametrize("path", ["lockstep", "row_by_row", "signatures_1col", "signatures_2col", "intervals_1col"])
@pytest.mark.parametrize("name", MODEL_NAMES)
def test_switched_rows_equal_brute_force(name, path, models, data, monkeypatch):
    """Resuming at the entry node (lock step or row by row) or reading the leaf from
    a per-signature table = walking the whole switched row from the root."""
    model = models[name]
    X32 = data[0].astype(np.float32)
    rng = np.random.default_rng(1)
    cols = [1] if path.endswith("_1col") else [1, 4]
    R = 40  # switched rows per recipient: more than the signatures of many trees
    recip = np.tile(np.arange(N), R)
    donors = np.concatenate([rng.permutation(N) for _ in range(R)])
    Xh = X32[recip]
    Xh[:, cols] = X32[np.ix_(donors, cols)]
    ens = _Ensemble(model, len(model.estimators_))
    flat = ens.flat()
    leaf, entries = walk_original(flat, X32, [cols])
    entry = entries[0]
    term = flat.table[leaf]
    ks = [1, 3, len(model.estimators_)]
    snap, slot = ens.snapshots(ks)
    start = np.asarray(ens.start(Xh), dtype=np.float64).reshape(len(recip), -1)
    kw = {}
    if path.startswith("signatures"):
        variable = signatures(flat, X32, cols)
        used = (variable.nsig > 0) & (variable.nsig < R)
        assert used.any()  # the table path is exercised
        kw = dict(donors=donors, X32=X32, variable=variable)
    if path == "intervals_1col":
        # no signature table anywhere (limit 0), no minimum height (PIECE_HEIGHT 0): every
        # affected tree takes the interval path (one column, R >= PIECE_ROWS rows per
        # recipient)
        monkeypatch.setattr(_kernels, "PIECE_HEIGHT", 0)
        variable = signatures(flat, X32, cols, limit=0)
        assert (variable.nsig == 0).all() and variable.single and R >= _kernels.PIECE_ROWS
        assert (entry >= 0).any()
        kw = dict(donors=donors, X32=X32, variable=variable)
    if path == "row_by_row":
        monkeypatch.setattr(_kernels, "MAX_LOCKSTEP", 0)
    out = accumulate(flat, snap, entry, term, Xh, recip, start, len(slot), **kw)
    out2 = accumulate(flat, snap, entry, term, Xh, recip, start, len(slot), n_jobs=2, **kw)
    np.testing.assert_array_equal(out, out2)
    # brute force: every tree on every switched row, added in order
    acc = start.copy()
    assert ens.kind == ("boosting" if name.startswith("gb") else "forest")
    per_stage = ens.K if ens.kind == "boosting" else 1
    for t, est in enumerate(_sk_trees(model)):
        leaves = est.tree_.apply(Xh) + flat.roots[t]
        c = flat.column[t]
        acc[:, c : c + flat.table.shape[1]] += flat.table[leaves]
        if (t + 1) % per_stage == 0 and (t + 1) // per_stage in slot:
            np.testing.assert_array_equal(out[slot[(t + 1) // per_stage]], acc)


@pytest.mark.parametrize("cols", [[0], [1, 4], [4, 1, 2]])
@pytest.mark.parametrize("name", MODEL_NAMES)
def test_signatures_reproduce_every_threshold_test(name, cols, models, data):
    """At every node testing the variable: (x <= threshold) == (bin < rank), with
    the comparison done by numpy on the float32 values promoted to float64."""
    model = models[name]
    X32 = data[0].astype(np.float32)
    flat = _Ensemble(model, len(model.estimators_)).flat()
    var = signatures(flat, X32, cols, limit=10**6)
    capped = signatures(flat, X32, cols, limit=3)
    assert ((capped.nsig == 0) | (capped.nsig <= 3)).all()
    for t in range(flat.n_trees):
        nodes = np.arange(flat.roots[t], flat.ends[t])
        tested = nodes[(flat.left[nodes] >= 0) & np.isin(flat.feature[nodes], cols)]
        expected = 1
        for c in cols:
            expected *= len(np.unique(flat.threshold[tested][flat.feature[tested] == c])) + 1
        assert var.nsig[t] == expected
        assert (capped.nsig[t] == expected) == (expected <= 3)
        for v in tested:
            f = flat.feature[v]
            goes_left = X32[:, f].astype(np.float64) <= flat.threshold[v]
            bins = (var.sig[t] // var.radix[v]) % var.base[v]
            np.testing.assert_array_equal(bins < var.rank[v], goes_left)
    with pytest.raises(ValueError, match="distinct"):
        signatures(flat, X32, [1, 1])


def test_kernel_validation(models, data):
    model = models["gb_reg"]
    est = model.estimators_[0, 0]
    with pytest.raises(ValueError, match="equal length"):
        flatten_trees([est.tree_], [], [0], 1)
    with pytest.raises(ValueError, match="table of shape"):
        flatten_trees([est.tree_], [np.zeros((1, 1))], [0], 1)
    with pytest.raises(ValueError, match="exceed width"):
        flatten_trees([est.tree_], [np.zeros((est.tree_.node_count, 1))], [1], 1)
    flat = _Ensemble(model, 2).flat()
    X32 = data[0].astype(np.float32)
    with pytest.raises(ValueError, match="outside"):
        walk_original(flat, X32, [[P]])
    leaf, _ = walk_original(flat, X32)
    entry = np.full(leaf.shape, -1, dtype=np.int32)
    term = flat.table[leaf]
    snap = np.full(leaf.shape[1], -1, dtype=np.int64)
    with pytest.raises(ValueError, match="snapshot"):
        accumulate(flat, snap[:1], entry, term, X32, np.arange(N), np.zeros((N, 1)), 1)
    with pytest.raises(ValueError, match="term"):
        accumulate(flat, snap, entry, term[:, :1], X32, np.arange(N), np.zeros((N, 1)), 1)
    with pytest.raises(ValueError, match="recipients"):
        accumulate(flat, snap, entry, term, X32, np.arange(N) + 1, np.zeros((N, 1)), 1)
    with pytest.raises(ValueError, match="shapes"):
        accumulate(flat, snap, entry, term, X32, np.arange(N), np.zeros((N, 2)), 1)
    with pytest.raises(ValueError, match="together"):
        accumulate(flat, snap, entry, term, X32, np.arange(N), np.zeros((N, 1)), 1, donors=np.arange(N))
    var = signatures(flat, X32, [0])
    with pytest.raises(ValueError, match="donors"):
        accumulate(
            flat,
            snap,
            entry,
            term,
            X32,
            np.arange(N),
            np.zeros((N, 1)),
            1,
            donors=np.arange(N) + 1,
            X32=X32,
            variable=var,
        )
    assert thread_count(None) == 1 and thread_count(1) == 1
    assert 1 <= thread_count(-1) == thread_count(10**6)


def test_serial_and_parallel_kernels_have_their_own_cache_entries():
    # numba names a function's on-disk cache after its qualified name: a shared name made the
    # parallel dispatcher load the serial machine code (n_jobs had no effect) and vice versa
    K = _kernels
    if not K.AVAILABLE:
        pytest.skip("numba not installed")
    for serial, parallel in (
        (K._walk_serial, K._walk_parallel),
        (K._sig_serial, K._sig_parallel),
        (K._acc_serial, K._acc_parallel),
    ):
        assert serial.py_func.__qualname__ != parallel.py_func.__qualname__
        assert serial.py_func.__code__ is parallel.py_func.__code__  # the same kernel source
        assert parallel.targetoptions.get("parallel") and not serial.targetoptions.get("parallel")
