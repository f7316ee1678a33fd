"""The tree engine (``model_reliance(..., method="engine")``, and its scikit-learn-loop
reference ``engine_sums(..., kernel=False)``) equals the generic predict-many path
(``method="generic"``) bitwise, and both equal the per-member computation with
separately fitted models; it re-evaluates fewer trees."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone, is_classifier
from sklearn.ensemble import (
    ExtraTreesClassifier,
    ExtraTreesRegressor,
    GradientBoostingClassifier,
    GradientBoostingRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)

from xaipipe.explain.reliance import RelianceOptions, _kernels, model_reliance, random_permutations
from xaipipe.explain.reliance import _engine as engine
from xaipipe.explain.reliance._base import (
    DEFAULT_MAX_ROWS,
    check_X,
    check_y,
    divisor,
    resolve_features,
    resolve_permutations,
    switch_designs,
)
from xaipipe.explain.reliance._engine import engine_sums, ensemble_outputs, supports_engine, tree_terms
from xaipipe.losses import resolve_loss
from xaipipe.models.families import FAMILIES
from xaipipe.models.prefix import member_predictor, prefix_predictions

N, P = 48, 5
FEATURES = {"a": [0], "b": [1], "cd": [2, 3], "e": [4]}


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(N, P))
    X[:, 3] = rng.integers(0, 2, N)  # a 0/1 column grouped with column 2
    y = X[:, 0] + np.sin(2 * X[:, 1]) + 0.5 * X[:, 3] + 0.3 * rng.normal(size=N)
    return X, y, (y > np.median(y)).astype(int)


MODELS = {
    "gb_squared": (GradientBoostingRegressor(n_estimators=12, max_depth=2, random_state=0), "squared_error"),
    "gb_huber_sub": (
        GradientBoostingRegressor(n_estimators=12, max_depth=3, loss="huber", subsample=0.7, random_state=1),
        "squared_error",
    ),
    "gb_absolute": (
        GradientBoostingRegressor(n_estimators=12, max_depth=1, loss="absolute_error", random_state=2),
        "squared_error",
    ),
    "gb_classifier": (GradientBoostingClassifier(n_estimators=12, max_depth=2, random_state=0), "log_loss"),
    "gb_classifier_01": (GradientBoostingClassifier(n_estimators=12, max_depth=2, random_state=0), "zero_one"),
    "rf_regressor": (RandomForestRegressor(n_estimators=10, max_depth=3, random_state=0), "squared_error"),
    "rf_classifier": (RandomForestClassifier(n_estimators=10, max_depth=3, random_state=0), "log_loss"),
    "et_regressor": (ExtraTreesRegressor(n_estimators=10, max_depth=4, random_state=0), "squared_error"),
    "et_classifier": (ExtraTreesClassifier(n_estimators=10, max_depth=4, random_state=0), "zero_one"),
}


def _fit(name, data):
    X, yr, yc = data
    est, loss = MODELS[name]
    y = yc if "classifier" in name else yr
    return clone(est).fit(X, y), X, y, loss


def _ks(model):
    top = len(model.estimators_)
    return [3, top, 1, 7, 3]  # any order, duplicates allowed


def _engine_arrays(
    model,
    X,
    y,
    *,
    kernel,
    features=None,
    estimator="permutation",
    loss=None,
    n_repeats=None,
    random_state=None,
    n_estimators=None,
    n_jobs=1,
    options=None,
):
    """``(e_orig, e_switch)`` of ``engine_sums(..., kernel=kernel)``, its inputs validated and
    built as ``model_reliance`` builds them (``_model_reliance.py``)."""
    Xv, names = check_X(X)
    n = Xv.shape[0]
    yv = check_y(y, n)
    cols = list(resolve_features(features, Xv.shape[1], names).values())
    if loss is None:
        loss = "log_loss" if is_classifier(model) else "squared_error"
    loss_name, loss_fn = resolve_loss(loss)
    options = RelianceOptions() if options is None else options
    permutations, max_rows_per_batch = options.permutations, options.max_rows_per_batch
    perms, _, _ = resolve_permutations(estimator, permutations, n_repeats, n, len(cols), random_state)
    designs = switch_designs(estimator, n, len(cols), permutations=perms, max_rows_per_batch=max_rows_per_batch)
    e_orig, sums = engine_sums(
        model,
        Xv,
        yv,
        n_estimators=n_estimators,
        cols=cols,
        loss_fn=loss_fn,
        loss_name=loss_name,
        designs=designs,
        max_rows=max_rows_per_batch,
        n_jobs=n_jobs,
        kernel=kernel,
    )
    return e_orig, sums / divisor(estimator, n)


@pytest.mark.parametrize("name", list(MODELS))
def test_forward_pass_equals_prefix_predictions(name, data):
    model, X, _, _ = _fit(name, data)
    ks = _ks(model)
    np.testing.assert_array_equal(ensemble_outputs(model, X, ks), prefix_predictions(model, X, ks))
    terms = tree_terms(model, X)
    assert terms.shape[:2] == (len(model.estimators_), N)


@pytest.mark.parametrize("kernel", [True, False], ids=["kernel", "sklearn_loop"])
@pytest.mark.parametrize("estimator", ["permutation", "e_divide", "e_switch"])
@pytest.mark.parametrize("name", list(MODELS))
def test_engine_equals_generic_path_bitwise(name, estimator, kernel, data):
    if kernel and not _kernels.AVAILABLE:
        pytest.skip("numba not installed")
    model, X, y, loss = _fit(name, data)
    ks = _ks(model)
    perms = random_permutations(N, 3, len(FEATURES), 5) if estimator == "permutation" else None
    options = RelianceOptions(max_rows_per_batch=300, permutations=perms)
    kw = dict(features=FEATURES, estimator=estimator, loss=loss, random_state=0, options=options)
    e_orig, e_switch = _engine_arrays(model, X, y, n_estimators=ks, kernel=kernel, **kw)
    slow = model_reliance(model, X, y, n_estimators=ks, method="generic", **kw)
    assert slow.method == "generic" and slow.features == list(FEATURES)
    np.testing.assert_array_equal(e_orig, slow.e_orig)
    np.testing.assert_array_equal(e_switch, slow.e_switch)
    # members with the same prefix give the same numbers
    np.testing.assert_array_equal(e_switch[0], e_switch[4])
    # the predict-many callable of the same members is the generic path
    callable_ = model_reliance(member_predictor(model, ks), X, y, **kw)
    np.testing.assert_array_equal(callable_.e_switch, slow.e_switch)
    if kernel:  # model_reliance's engine is the compiled kernel
        fast = model_reliance(model, X, y, n_estimators=ks, method="engine", **kw)
        assert fast.method == "engine" and fast.features == slow.features
        assert fast.algorithm == slow.algorithm and fast.loss == slow.loss and fast.n_estimators == ks
        np.testing.assert_array_equal(fast.e_orig, slow.e_orig)
        np.testing.assert_array_equal(fast.e_switch, slow.e_switch)


@pytest.mark.parametrize("name", ["gb_squared", "gb_classifier", "rf_regressor", "rf_classifier", "et_regressor"])
def test_engine_equals_separately_fitted_members(name, data):
    """Oracle: each prefix refitted on its own with n_estimators=k, MR computed per model."""
    model, X, y, loss = _fit(name, data)
    ks = [2, 5, len(model.estimators_)]
    perms = random_permutations(N, 4, len(FEATURES), 11)
    fast = model_reliance(
        model,
        X,
        y,
        n_estimators=ks,
        features=FEATURES,
        loss=loss,
        options=RelianceOptions(permutations=perms),
        method="engine",
    )
    for i, k in enumerate(ks):
        single = clone(model).set_params(n_estimators=k).fit(X, data[2] if "classifier" in name else data[1])
        ref = model_reliance(
            single, X, y, features=FEATURES, loss=loss, options=RelianceOptions(permutations=perms), method="generic"
        )
        # prefixes are bitwise equal to refitted models (xaipipe.models.prefix), so is MR
        np.testing.assert_array_equal(fast.e_orig[i], ref.e_orig[0])
        np.testing.assert_array_equal(fast.e_switch[i], ref.e_switch[0])


def test_default_permutations_match_generic_and_are_seeded(data):
    model, X, y, loss = _fit("gb_squared", data)
    a = model_reliance(model, X, y, features=FEATURES, n_repeats=4, random_state=3, method="engine")
    b = model_reliance(model, X, y, features=FEATURES, n_repeats=4, random_state=3, method="generic")
    np.testing.assert_array_equal(a.e_switch, b.e_switch)
    c = model_reliance(model, X, y, features=FEATURES, n_repeats=4, random_state=4, method="engine")
    assert not np.array_equal(a.e_switch, c.e_switch)
    assert a.e_switch.shape == (1, len(FEATURES), 4) and a.algorithm == "random_permutations"


def test_engine_skips_trees_that_do_not_split_on_the_variable(data, monkeypatch):
    """Rows passed to scikit-learn's stage loop (``kernel=False``): the engine
    re-evaluates only stages that split on the permuted variable, the generic path
    all stages on all rows. (The compiled kernel's skipping is tested in
    ``test_kernels.py`` against ``decision_path``.)"""
    from sklearn.ensemble import _gradient_boosting

    model, X, y, _ = _fit("gb_squared", data)
    used = [set(t.tree_.feature[t.tree_.feature >= 0]) for t in model.estimators_[:, 0]]
    R = 3
    perms = random_permutations(N, R, len(FEATURES), 0)
    calls = []
    real = _gradient_boosting.predict_stages

    def counting(estimators, X_, scale, out):
        calls.append(len(estimators) * X_.shape[0])
        return real(estimators, X_, scale, out)

    monkeypatch.setattr(_gradient_boosting, "predict_stages", counting)
    _engine_arrays(model, X, y, features=FEATURES, options=RelianceOptions(permutations=perms), kernel=False)
    expected = sum(R * N for cols in FEATURES.values() for u in used if u & set(cols))
    assert sum(calls) == expected
    assert expected < len(used) * len(FEATURES) * R * N  # something was skipped


def test_designs():
    perms = random_permutations(6, 2, 1, 0)
    d = switch_designs("permutation", 6, 1, permutations=perms)[0]
    assert [r for r, _, _ in d] == [0, 1] and np.array_equal(d[1][2], perms[0, 1])
    # e_divide: halving r of a group swaps the first half of perms[g, r] with the second
    halves = random_permutations(7, 2, 1, 0)
    d = switch_designs("e_divide", 7, 1, permutations=halves)[0]
    assert [r for r, _, _ in d] == [0, 1]
    for r, recip, donors in d:
        p = halves[0, r]
        assert recip.tolist() == p[:6].tolist() and donors.tolist() == p[3:6].tolist() + p[:3].tolist()
    chunks = switch_designs("e_switch", 5, 1, max_rows_per_batch=8)[0]
    pairs = {(int(j), int(i)) for _, rc, dn in chunks for j, i in zip(rc, dn)}
    assert pairs == {(j, i) for j in range(5) for i in range(5) if i != j}
    assert sum(len(rc) for _, rc, _ in chunks) == 20


def test_validation(data):
    from sklearn.linear_model import LinearRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    model, X, y, _ = _fit("gb_squared", data)
    assert supports_engine(model)
    lin = LinearRegression().fit(X, y)
    assert not supports_engine(lin)
    assert not supports_engine(make_pipeline(StandardScaler(), clone(model)).fit(X, y))
    with pytest.raises(TypeError, match="no tree-engine support"):
        model_reliance(lin, X, y, method="engine")
    with pytest.raises(TypeError, match="random forest"):
        engine_sums(
            lin,
            X,
            y,
            n_estimators=None,
            cols=[np.array([0])],
            loss_fn=None,
            loss_name="",
            designs=[],
            max_rows=DEFAULT_MAX_ROWS,
        )
    with pytest.raises(ValueError, match=r"\[1, 12\]"):
        model_reliance(model, X, y, n_estimators=[13], method="engine")
    with pytest.raises(ValueError, match="empty"):
        model_reliance(model, X, y, n_estimators=[], method="engine")
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError, match="finite"):
        model_reliance(model, Xn, y, method="engine")
    with pytest.raises(ValueError, match="columns"):
        model_reliance(model, X[:, :3], y, method="engine")
    with pytest.raises(ValueError, match="permutation of range"):
        model_reliance(model, X, y, options=RelianceOptions(permutations=np.zeros((2, N), dtype=int)), method="engine")
    with pytest.raises(ValueError, match="apply to"):
        model_reliance(model, X, y, estimator="e_switch", n_repeats=3, method="engine")
    with pytest.raises(ValueError, match="unknown estimator"):
        model_reliance(model, X, y, estimator="exact", method="engine")
    with pytest.raises(ValueError, match="max_rows_per_batch"):
        model_reliance(model, X, y, options=RelianceOptions(max_rows_per_batch=0), method="engine")
    with pytest.raises(ValueError, match="n_trees"):
        tree_terms(model, X, n_trees=0)
    # engine support is a registry capability (Family.engine), not a list of classes
    assert [f.name for f in FAMILIES.values() if f.engine] == ["random_forest", "extra_trees", "gradient_boosting"]
    assert all(
        supports_engine(clone(est).fit(X, data[2] if "classifier" in n else y)) for n, (est, _) in MODELS.items()
    )


@pytest.mark.parametrize("estimator", ["permutation", "e_switch"])
@pytest.mark.parametrize("kind", ["regressor", "classifier"])
def test_interval_path_of_deep_forests_equals_generic_path(kind, estimator, monkeypatch):
    """Fully grown forests with no signature table (limit 0) and no minimum height: every
    affected tree of a one-column variable takes the interval path (rows sorted by donor value, one
    search below the entry node); equal to the generic path bitwise, in tree blocks
    of one tree or of all trees."""
    if not _kernels.AVAILABLE:
        pytest.skip("numba not installed")
    rng = np.random.default_rng(5)
    n = 90
    X = rng.normal(size=(n, 4))
    X[:, 3] = np.round(X[:, 3], 1)  # ties among donor values
    y = X[:, 0] + X[:, 1] * X[:, 2] + 0.3 * rng.normal(size=n)
    if kind == "classifier":
        model = RandomForestClassifier(n_estimators=9, random_state=0).fit(X, (y > 0).astype(int))
        target, loss = (y > 0).astype(int), "log_loss"
    else:
        model = RandomForestRegressor(n_estimators=9, random_state=0).fit(X, y)
        target, loss = y, "squared_error"
    assert model.estimators_[0].get_depth() > 5
    original = _kernels.signatures
    monkeypatch.setattr(_kernels, "signatures", lambda *a, **k: original(*a, **{**k, "limit": 0}))
    monkeypatch.setattr(_kernels, "PIECE_HEIGHT", 0)  # below every entry node
    kw = dict(estimator=estimator, loss=loss, features={"a": [0], "b": [1], "c": [2], "d": [3]})
    if estimator == "permutation":  # 12 rows per recipient >= PIECE_ROWS
        kw["options"] = RelianceOptions(permutations=random_permutations(n, 12, 4, 0))
    ks = [2, 9, 5]
    ref = model_reliance(model, X, target, n_estimators=ks, method="generic", **kw)
    for block_nodes in (1, 1 << 30):
        monkeypatch.setattr(_kernels, "BLOCK_NODES", block_nodes)
        got = model_reliance(model, X, target, n_estimators=ks, n_jobs=2, method="engine", **kw)
        np.testing.assert_array_equal(got.e_orig, ref.e_orig)
        np.testing.assert_array_equal(got.e_switch, ref.e_switch)


def test_engine_preferred():
    from sklearn.tree import DecisionTreeRegressor

    X = np.arange(20.0).reshape(10, 2)
    y = X[:, 0]
    rf = RandomForestRegressor(n_estimators=2, random_state=0).fit(X, y)
    et = ExtraTreesRegressor(n_estimators=2, random_state=0).fit(X, y)
    gb = GradientBoostingRegressor(n_estimators=2).fit(X, y)
    for model in (rf, et, gb):
        assert engine.engine_preferred(model, "permutation")
        assert engine.engine_preferred(model, "e_switch")
        assert not engine.engine_preferred(model, "e_divide")
    assert not engine.engine_preferred(DecisionTreeRegressor().fit(X, y), "permutation")


@pytest.mark.parametrize("estimator", ["permutation", "e_switch", "e_divide"])
@pytest.mark.parametrize("kind", ["regressor", "binary", "multiclass"])
def test_forest_store_blocks_equal_the_whole_forest(kind, estimator, tmp_path):
    """A forest store opened lazily (xaipipe.models.forest_store.open_forest): the kernel walks the
    store's blocks of trees outermost, carrying every switched row's running sum from block to
    block; e_orig and e_switch of every prefix member are bitwise the generic path's on the whole
    forest, for blocks of 1, 4 and all trees."""
    if not _kernels.AVAILABLE:
        pytest.skip("numba not installed")
    from xaipipe.models.forest_store import open_forest, save_forest

    rng = np.random.default_rng(3)
    n = 70
    X = rng.normal(size=(n, 4))
    y = X[:, 0] + X[:, 1] * X[:, 2] + 0.3 * rng.normal(size=n)
    if kind == "regressor":
        model, target, loss = RandomForestRegressor(n_estimators=11, random_state=0), y, "squared_error"
    else:
        target = (y > 0).astype(int) if kind == "binary" else np.digitize(y, [-0.5, 0.5])
        model, loss = RandomForestClassifier(n_estimators=11, random_state=0), "log_loss"
    model.fit(X, target)
    kw = dict(estimator=estimator, loss=loss, features={"a": [0], "bc": [1, 2], "d": [3]}, random_state=0)
    perms = random_permutations(n, 4, 3, 0) if estimator == "permutation" else None
    # several batches per variable (the generic path's partial sums)
    kw["options"] = RelianceOptions(max_rows_per_batch=100, permutations=perms)
    ks = [2, 11, 5, 9, 2]
    ref = model_reliance(model, X, target, n_estimators=ks, method="generic", **kw)
    for block in (1, 4, 11):
        save_forest(tmp_path / f"m{block}.joblib", model, block)
        lazy = open_forest(tmp_path / f"m{block}.joblib")
        got = model_reliance(lazy, X, target, n_estimators=ks, method="engine", **kw)
        np.testing.assert_array_equal(got.e_orig, ref.e_orig)
        np.testing.assert_array_equal(got.e_switch, ref.e_switch)
        e_orig, e_switch = _engine_arrays(lazy, X, target, n_estimators=[3, 7], kernel=True, **kw)
        e_orig_w, e_switch_w = _engine_arrays(model, X, target, n_estimators=[3, 7], kernel=True, **kw)
        np.testing.assert_array_equal(e_orig, e_orig_w)
        np.testing.assert_array_equal(e_switch, e_switch_w)
