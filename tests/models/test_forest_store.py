"""Forests stored in blocks of trees: the reloaded forest is the saved one (pickle bytes and
every tree array), the blocks come back in order, and block-wise predictions are bitwise
scikit-learn's own ``predict`` / ``predict_proba`` (n_jobs=1)."""

from __future__ import annotations

import pickle
from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_diabetes, load_iris, make_classification

from xaipipe.config import AleSettings, CVSettings, HStatisticSettings, PdIceSettings, RelianceSettings, ShapSettings
from xaipipe.explain.pdp import ale_tables, h_statistic_table, pd_ice_tables
from xaipipe.explain.pdp._grid import DEFAULT_MAX_BATCH_ROWS
from xaipipe.explain.reliance import dependent_reliance_rows, reliance_tables
from xaipipe.explain.shapley import shap_tables
from xaipipe.io import read_joblib, write_joblib
from xaipipe.models.families import make_estimator
from xaipipe.models.fitting import fit_best
from xaipipe.models.forest_blocks import fit_forest_blocks
from xaipipe.models.forest_store import (
    ForestBlockWriter,
    forest_shell,
    forests_equal,
    is_forest_store,
    iter_forest_blocks,
    load_forest,
    predict_forest,
    save_forest,
)
from xaipipe.report.diff import file_difference


def _data(task):
    if task == "regression":
        X, y = load_diabetes(return_X_y=True)
        return X[:250], y[:250], X[250:]
    if task == "binary":
        X, y = make_classification(n_samples=300, n_features=8, n_informative=4, random_state=3)
        return X[:220], y[:220], X[220:]
    X, y = load_iris(return_X_y=True)
    order = np.random.default_rng(0).permutation(len(y))
    return X[order][:110], y[order][:110], X[order][110:]


def _same_forest(a, b):
    assert forests_equal(a, b)
    return True


def _kind(task):
    return "regression" if task == "regression" else "classification"


def _explain_steps(X_new, task, classes):
    """The ALE, PD / ICE and H² rule entries of a forest's test rows ``X_new`` (variables x0, x1, ...):
    ``(name, step)`` with ``step(model)`` the entry's tables; a multiclass model explains class 2."""
    names = [f"x{j}" for j in range(X_new.shape[1])]
    multi = {"figure_class": "2"} if task == "multiclass" else {}
    split = SimpleNamespace(
        X_test=X_new,
        features=names,
        feature_groups=None,
        test_rows=None,
        task="classification",
        classes=["0", "1", "2"] if multi else None,
    )
    curves_split = SimpleNamespace(**{**vars(split), "classes": classes})
    batch = {"seed": 0, "max_batch_rows": DEFAULT_MAX_BATCH_ROWS}
    ale = AleSettings(**batch, output="auto", n_bins=5, pair_bins=3, large_data=None, **multi)
    h2 = HStatisticSettings(**batch, output="auto", n_rows=15, n_rows_random_forest=15, n_bootstrap=3, **multi)
    pd_ice = PdIceSettings(
        task="classification",
        **{**batch, "max_batch_rows": 100_000},
        resolution=6,
        smooth=0,
        pair_resolution=4,
        classification_output="auto",
        large_data=None,
    )
    return [
        ("ale", lambda m: tuple(ale_tables(m, split, ale, ranking=names, pair=names[:2]))[:2]),
        ("pd_ice", lambda m: tuple(pd_ice_tables(m, curves_split, pd_ice, top=names[:2]))),
        ("h_statistic", lambda m: h_statistic_table(m, split, h2, top=names[:3])),
    ]


def _fitted(task, family="random_forest", n=17, labels=None):
    X, y, X_new = _data(task)
    if labels is not None:
        y = np.asarray(labels)[y]
    est = make_estimator(family, _kind(task), {"n_estimators": n}, random_state=4, n_jobs=1).fit(X, y)
    return est, X, y, X_new


@pytest.mark.parametrize("task", ["regression", "binary", "multiclass"])
@pytest.mark.parametrize("block", [1, 5, 17, 40])
def test_saved_forest_loads_bitwise_and_predicts_blockwise(task, block, tmp_path):
    est, X, y, X_new = _fitted(task)
    path = tmp_path / "model.joblib"
    save_forest(path, est, block)
    assert is_forest_store(path)
    back = load_forest(path)
    assert _same_forest(back, est)  # the whole object, every tree and attribute
    assert _same_forest(read_joblib(path), est)  # what every rule's read_joblib gets
    starts = [(s, len(t)) for s, t in iter_forest_blocks(path)]
    assert starts == [(a, min(block, 17 - a)) for a in range(0, 17, block)]
    assert forest_shell(path).estimators_ == []
    if task == "regression":
        assert np.array_equal(predict_forest(path, X_new), est.predict(X_new))
    else:
        assert np.array_equal(predict_forest(path, X_new), est.predict_proba(X_new))
        assert np.array_equal(predict_forest(path, X_new, proba=False), est.predict(X_new))


def test_string_classes_and_extra_trees(tmp_path):
    est, X, y, X_new = _fitted("multiclass", family="extra_trees", labels=["a", "b", "c"])
    save_forest(tmp_path / "m.joblib", est, 4)
    assert _same_forest(load_forest(tmp_path / "m.joblib"), est)
    assert np.array_equal(predict_forest(tmp_path / "m.joblib", X_new, proba=False), est.predict(X_new))


@pytest.mark.parametrize("task", ["regression", "multiclass"])
def test_forest_fitted_in_blocks_streams_into_the_store(task, tmp_path):
    """The fit rule's path: fit_forest_blocks -> ForestBlockWriter, one block in memory; the
    stored model is bitwise the one-shot fit (the same object fit_best would save)."""
    est, X, y, X_new = _fitted(task)
    forest = make_estimator("random_forest", _kind(task), {"n_estimators": 17}, random_state=4, n_jobs=1)
    path = tmp_path / "model.joblib"
    with ForestBlockWriter(path, 6) as w:
        for block in fit_forest_blocks(forest, X, y, 6):
            w.add(block[1])  # (start, trees, shell)
        w.finish(block[2])
    assert _same_forest(load_forest(path), est)


def test_bad_stores_are_refused(tmp_path):
    est, *_ = _fitted("regression", n=3)
    with pytest.raises(ValueError, match="block_trees must be >= 1"):
        save_forest(tmp_path / "a.joblib", est, 0)
    with pytest.raises(RuntimeError, match="without finish"), ForestBlockWriter(tmp_path / "b.joblib", 2) as w:
        w.add(est.estimators_[:2])
    assert not (tmp_path / "b.joblib").exists()  # nothing half-written is left
    save_forest(tmp_path / "c.joblib", est, 2)
    data = (tmp_path / "c.joblib").read_bytes()
    (tmp_path / "d.joblib").write_bytes(data[:-5])
    with pytest.raises(ValueError, match="not a complete forest store"):
        load_forest(tmp_path / "d.joblib")
    write_joblib(tmp_path / "e.joblib", est)  # an ordinary model file is not a store
    assert not is_forest_store(tmp_path / "e.joblib")
    from xaipipe.io import open_model
    from xaipipe.models.forest_store import LazyTrees

    assert isinstance(open_model(tmp_path / "e.joblib").estimators_, list)  # an ordinary file: read whole
    assert isinstance(open_model(tmp_path / "c.joblib").estimators_, LazyTrees)
    with pytest.raises(ValueError, match="not a forest store"):
        next(iter_forest_blocks(tmp_path / "e.joblib"))
    reseeded = make_estimator("random_forest", "regression", {"n_estimators": 3}, random_state=5).fit(
        *_data("regression")[:2]
    )
    with pytest.raises(AssertionError):  # the oracle tells another forest apart
        _same_forest(load_forest(tmp_path / "c.joblib"), reseeded)
    # report diff: two stores of different forests differ; a store equals the pickled forest it holds
    other, *_ = _fitted("regression", n=4)
    save_forest(tmp_path / "f.joblib", other, 2)
    assert file_difference(tmp_path / "c.joblib", tmp_path / "f.joblib") == "forests differ"
    assert file_difference(tmp_path / "c.joblib", tmp_path / "c.joblib") == ""
    assert file_difference(tmp_path / "c.joblib", tmp_path / "e.joblib") == ""  # e: write_joblib of the same forest
    write_joblib(tmp_path / "g.joblib", other)
    assert file_difference(tmp_path / "c.joblib", tmp_path / "g.joblib") == "forests differ"
    # forests_equal tells apart a changed threshold, a changed attribute, another tree count
    changed = load_forest(tmp_path / "c.joblib")
    changed.estimators_[1].tree_.threshold[0] += 1e-12
    assert not forests_equal(changed, est)
    changed = load_forest(tmp_path / "c.joblib")
    changed.n_jobs = 3
    assert not forests_equal(changed, est)
    changed = load_forest(tmp_path / "c.joblib")
    changed.estimators_ = changed.estimators_[:2]
    assert not forests_equal(changed, est)


@pytest.mark.parametrize("task", ["regression", "binary", "multiclass"])
def test_fit_best_into_a_forest_store_equals_the_whole_fit(task, tmp_path):
    """The fit rule above large_data.forest_block_rows: the stored model, the test record and the
    test predictions are those of the plain fit_best (fit_time_s apart)."""
    X, y, X_test = _data(task)
    y_test = y[: len(X_test)]
    split = SimpleNamespace(X_train=X, y_train=y, X_test=X_test, y_test=y_test, test_rows=np.arange(len(X_test)))
    split.dataset = "d"
    settings = CVSettings(task=_kind(task), family="random_forest", seed=8, beta=1.0)
    params = {"n_estimators": 13, "max_features": 0.7}
    model, record, predictions = fit_best(split, settings, params, n_jobs=2)
    assert model.n_jobs == 1
    path = tmp_path / "model.joblib"
    none, record_b, predictions_b = fit_best(split, settings, params, n_jobs=2, forest_store=(path, 4))
    assert none is None and is_forest_store(path)
    assert _same_forest(load_forest(path), model)
    record.pop("fit_time_s"), record_b.pop("fit_time_s")
    assert pickle.dumps(record_b) == pickle.dumps(record)
    assert predictions_b.equals(predictions) and list(predictions_b.dtypes) == list(predictions.dtypes)
    # a family that cannot be stored in blocks ignores forest_store
    gb_settings = replace(settings, family="gradient_boosting")
    gb, *_ = fit_best(split, gb_settings, params, n_jobs=2, forest_store=(tmp_path / "gb.joblib", 4))
    assert gb is not None and not (tmp_path / "gb.joblib").exists()


@pytest.mark.parametrize("task", ["regression", "binary", "multiclass"])
def test_open_forest_reads_one_block_at_a_time_and_explains_bitwise(task, tmp_path):
    """open_forest: scikit-learn's own predict / predict_proba, TreeSHAP over sub-forests and the
    PD/ICE tables of the lazily read forest are bitwise those of the whole forest in memory."""
    from xaipipe.explain.shapley import ShapOptions, shap_values
    from xaipipe.models.forest_store import LazyTrees, open_forest

    est, X, y, X_new = _fitted(task, n=14)
    path = tmp_path / "model.joblib"
    save_forest(path, est, 4)
    lazy = open_forest(path)
    assert isinstance(lazy.estimators_, LazyTrees) and len(lazy.estimators_) == 14
    if task == "regression":
        assert np.array_equal(lazy.predict(X_new), est.predict(X_new))
    else:
        assert np.array_equal(lazy.predict_proba(X_new), est.predict_proba(X_new))
        assert np.array_equal(lazy.predict(X_new), est.predict(X_new))
    assert lazy.estimators_._cached[0] == 3  # the last block only, after a pass
    from xaipipe.models.prefix import prefix_predictions

    ks = [3, 14, 9]
    assert np.array_equal(prefix_predictions(lazy, X_new, ks), prefix_predictions(est, X_new, ks))
    trees = lazy.estimators_
    for i in (0, 5, 13, -1):
        ref = est.estimators_[i].tree_.__getstate__()["nodes"]
        assert trees[i].tree_.__getstate__()["nodes"].tobytes() == ref.tobytes()
    assert len(trees[2:9]) == 7
    with pytest.raises(IndexError):
        trees[14]
    assert pickle.loads(pickle.dumps(trees)).path == trees.path  # a worker process opens the same store
    k = 2 if task == "multiclass" else None
    a = shap_values(est, X_new[:12], options=ShapOptions(chunk_size=4), class_index=k)
    b = shap_values(lazy, X_new[:12], options=ShapOptions(chunk_size=4), class_index=k)
    assert np.array_equal(a.values, b.values) and np.array_equal(a.base_values, b.base_values)
    names = [f"x{j}" for j in range(X.shape[1])]
    classes = [str(c) for c in est.classes_] if task == "multiclass" else None
    split = SimpleNamespace(X_test=X_new, X_train=X, test_rows=np.arange(len(X_new)), features=names)
    split.feature_groups, split.classes, split.dataset = None, classes, "d"
    settings = ShapSettings(family="random_forest", seed=0, max_rows_random_forest=10, background_size=10)
    settings = replace(settings, large_data=None)
    got, ref = shap_tables(lazy, split, settings, n_jobs=2), shap_tables(est, split, settings, n_jobs=2)
    for name, frame in got.to_frames().items():
        pd.testing.assert_frame_equal(frame, ref.to_frames()[name], check_exact=True)
    for _, step in _explain_steps(X_new, task, classes):  # PD / ICE, ALE, H²
        got, ref = step(lazy), step(est)
        for g, r in zip(got if isinstance(got, tuple) else [got], ref if isinstance(ref, tuple) else [ref]):
            pd.testing.assert_frame_equal(g, r, check_exact=True)


def test_lazy_trees_under_threads(tmp_path):
    """member_predictor's row blocks in threads over one lazily opened store: every thread gets
    its own blocks right, so the result is bitwise the whole forest's."""
    from xaipipe.models.forest_store import open_forest
    from xaipipe.models.prefix import member_predictor

    X, y, _ = _data("regression")
    est = make_estimator("random_forest", "regression", {"n_estimators": 12}, random_state=1).fit(X, y)
    save_forest(tmp_path / "m.joblib", est, 2)
    Z = np.tile(X, (6, 1))  # 1 500 rows: three row blocks of >= 512 rows
    ref = member_predictor(est, [5, 12], n_jobs=1)(Z)
    got = member_predictor(open_forest(tmp_path / "m.joblib"), [5, 12], n_jobs=3)(Z)
    assert np.array_equal(got, ref)


@pytest.mark.parametrize("task", ["regression", "binary", "multiclass"])
def test_model_reliance_rule_of_an_opened_store_equals_the_whole_forest(task, tmp_path):
    """The model_reliance rule's functions on a lazily opened store (the MR engine walks the
    store's blocks outermost): MR table (all three estimators), split gain and the dependent-
    feature rows bitwise those of the whole forest (times apart)."""
    from xaipipe.models.forest_store import open_forest

    est, X, y, X_new = _fitted(task, n=9)
    X_new, y_new = X[:80], y[:80]  # rows with their responses (training rows: equality is the point)
    save_forest(tmp_path / "m.joblib", est, 4)
    lazy = open_forest(tmp_path / "m.joblib")
    names = [f"x{j}" for j in range(X.shape[1])]
    losses = ["squared_error"] if task == "regression" else ["log_loss", "zero_one"]
    split = SimpleNamespace(X_test=X_new, y_test=y_new, X_train=X, features=names, feature_groups=None, dataset="d")
    settings = RelianceSettings(seed=2, n_repeats=3, e_switch_max_rows=30, losses=tuple(losses), large_data=None)
    got = reliance_tables(lazy, split, settings, family="random_forest")
    ref = reliance_tables(est, split, settings, family="random_forest")
    for g, r in zip(got, ref):
        timing = [c for c in r.columns if c.endswith("_s") or "time" in c]
        pd.testing.assert_frame_equal(g.drop(columns=timing), r.drop(columns=timing), check_exact=True)
    dependent = {"estimators": ["conditional_permutation", "grouped_permutation"], "max_depth": 3}
    dependent.update(min_samples_leaf=0.05, correlation_threshold=0.3, linkage="single")
    settings = replace(settings, seed=1, estimators=(), n_repeats=2, e_switch_max_rows=None, dependent=dependent)
    got, ref = (
        dependent_reliance_rows(lazy, split, settings, family="random_forest"),
        dependent_reliance_rows(est, split, settings, family="random_forest"),
    )
    timing = [c for c in ref.columns if c.endswith("_s") or "time" in c]
    pd.testing.assert_frame_equal(got.drop(columns=timing), ref.drop(columns=timing), check_exact=True)


@pytest.mark.parametrize("task", ["regression", "binary", "multiclass"])
def test_large_data_reliance_subsample_of_an_opened_store_equals_the_whole_forest(task, tmp_path):
    """Both large-data paths together: the MR subsample policy (``large_data.reliance_rows``: each
    repeat on its own subsample, predictions through the generic path, not the tree engine) on a
    lazily opened forest store gives the whole forest's numbers bitwise, its predict calls answered
    from one pass over the store (predict_in_one_pass), with one thread or two."""
    from xaipipe.explain.reliance import RelianceOptions, model_reliance
    from xaipipe.models import forest_store
    from xaipipe.models.forest_store import open_forest

    est, X, y, _ = _fitted(task, n=9)
    save_forest(tmp_path / "m.joblib", est, 4)  # 3 blocks
    lazy = open_forest(tmp_path / "m.joblib")
    loss = "squared_error" if task == "regression" else "log_loss"
    reads, unpack = {"n": 0}, forest_store._unpack

    def counting(data):
        reads["n"] += 1
        return unpack(data)

    for estimator, n_jobs in (("permutation", 1), ("e_divide", 1), ("permutation", 2)):
        kw = {"estimator": estimator, "loss": loss, "n_repeats": 3, "random_state": 5}
        kw["options"] = RelianceOptions(subsample_rows=40, max_rows_per_batch=50)  # many predict calls
        forest_store._unpack, reads["n"] = counting, 0
        try:
            got = model_reliance(lazy, X, y, n_jobs=n_jobs, **kw)
        finally:
            forest_store._unpack = unpack
        assert reads["n"] <= 3 + 1, reads["n"]
        ref = model_reliance(est, X, y, **kw)
        frames = [x.to_frame() if hasattr(x, "to_frame") else x for x in (got, ref)]
        pd.testing.assert_frame_equal(frames[0], frames[1], check_exact=True)
        assert len(frames[1]) == X.shape[1]


@pytest.mark.parametrize("task", ["regression", "binary"])
def test_lime_of_an_opened_store_equals_the_whole_forest(task, tmp_path):
    """LIME predicts each explained row's samples in one call: the opened store gives the
    whole forest's explanations."""
    from xaipipe.explain.lime import lime_explanations
    from xaipipe.models.forest_store import open_forest

    est, X, y, X_new = _fitted(task, n=6)
    save_forest(tmp_path / "m.joblib", est, 4)
    lazy = open_forest(tmp_path / "m.joblib")
    kw = {"rows": [0, 4], "num_samples": 300, "random_state": 5}
    got, ref = lime_explanations(lazy, X_new, X, **kw), lime_explanations(est, X_new, X, **kw)
    assert pickle.dumps(got) == pickle.dumps(ref)


@pytest.mark.parametrize("task", ["regression", "binary", "multiclass"])
def test_predict_in_one_pass_reads_the_store_once_and_answers_bitwise(task, tmp_path, monkeypatch):
    """predict_in_one_pass: the explanation tables' many predict calls on a store (ALE, PD / ICE,
    H-statistic) are answered from one pass over its blocks, each bitwise the whole forest's answer
    (the tables of the whole forest, exactly); rows that depend on earlier outputs, and a dry run
    that fails on its placeholders, still get the forest's own answers."""
    from xaipipe.models import forest_store
    from xaipipe.models.forest_store import open_forest, plans_predictions, predict_in_one_pass

    est, X, y, X_new = _fitted(task, n=14)
    path = tmp_path / "model.joblib"
    save_forest(path, est, 4)  # 4 blocks
    reads = {"n": 0}
    unpack = forest_store._unpack

    def counting(data):
        reads["n"] += 1
        return unpack(data)

    monkeypatch.setattr(forest_store, "_unpack", counting)
    lazy = open_forest(path)
    assert plans_predictions(lazy) and not plans_predictions(est)
    classes = [str(c) for c in est.classes_] if task == "multiclass" else None
    for name, step in _explain_steps(X_new, task, classes):
        reads["n"] = 0
        got = step(lazy)
        assert reads["n"] <= 4 + 1, (name, reads["n"])  # one pass (+ block 0 for validation)
        ref = step(est)
        for g, r in zip(got if isinstance(got, tuple) else [got], ref if isinstance(ref, tuple) else [ref]):
            if isinstance(g, pd.DataFrame):
                pd.testing.assert_frame_equal(g, r, check_exact=True)
    method = "predict" if task == "regression" else "predict_proba"

    def dependent(model):  # the second call's rows depend on the first call's output
        first = getattr(model, method)(X_new)
        shift = np.asarray(first).reshape(len(X_new), -1)[:, :1]
        return first, getattr(model, method)(X_new + shift), getattr(model, method)(X_new[:5])

    for a, b in zip(predict_in_one_pass(lazy, dependent), dependent(est)):
        assert np.array_equal(a, b)

    def fragile(model):  # fails on the placeholders only
        out = getattr(model, method)(X_new)
        if np.ptp(np.asarray(out)) == 0:
            raise FloatingPointError("constant output")
        return out, getattr(model, method)(X_new[::2])

    for a, b in zip(predict_in_one_pass(lazy, fragile), fragile(est)):
        assert np.array_equal(a, b)


def test_predict_in_one_pass_with_a_reused_buffer_a_row_budget_and_missing_values(tmp_path):
    """A run that refills one input buffer between calls, a plan cut short by its row budget, and
    inputs with NaN (a forest fitted with missing values): every answer is still the forest's own."""
    from sklearn.ensemble import RandomForestRegressor

    from xaipipe.models.forest_store import open_forest, predict_in_one_pass

    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    X[rng.random(X.shape) < 0.1] = np.nan
    y = np.nan_to_num(X[:, 0]) + rng.normal(size=200)
    est = RandomForestRegressor(n_estimators=9, random_state=0).fit(X, y)
    save_forest(tmp_path / "m.joblib", est, 4)
    lazy = open_forest(tmp_path / "m.joblib")

    def refill(model):
        buf = np.empty((50, 3), dtype=np.float32)
        out = []
        for k in range(4):
            buf[:] = X[50 * k : 50 * (k + 1)]
            out.append(model.predict(buf))
        return out

    for a, b in zip(predict_in_one_pass(lazy, refill), refill(est)):
        assert np.array_equal(a, b)

    def sizes(model):
        return [model.predict(X[:n]) for n in (30, 120, 10, 60)]

    for budget in (1_000, 100, 5):
        for a, b in zip(predict_in_one_pass(lazy, sizes, max_rows=budget), sizes(est)):
            assert np.array_equal(a, b)
