"""Grid cross-validation with shared prefixes against GridSearchCV (the naive oracle)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_breast_cancer, load_diabetes
from sklearn.model_selection import GridSearchCV, KFold, StratifiedKFold

from xaipipe.config import CVSettings
from xaipipe.models.cv import CVEngine, cross_validate_grid, select_best, summarize_cv
from xaipipe.models.families import make_estimator
from xaipipe.models.grid import expand_grid


def _folds(X, y, stratified):
    cls = StratifiedKFold if stratified else KFold
    return list(cls(3, shuffle=True, random_state=0).split(X, y))


def _cv_tables(
    family, task, grid, X, y, folds, *, selection, random_state, options=None, sample=None, dataset="", shards=None
):
    """The cv rule's call (:func:`cv_tables` on a split and CVSettings) as a (table, summary, best) tuple."""
    from types import SimpleNamespace

    from xaipipe.models.cv import CVResult, cv_tables

    data = SimpleNamespace(X_train_raw=X, y_train=y, folds=folds, imputer=None, dataset=dataset)
    settings = CVSettings(
        task=task,
        family=family,
        grid=grid,
        sample=sample,
        options=options or {},
        selection=selection,
        seed=random_state,
    )
    out = cv_tables(data, settings, shards=shards)
    frames = out.to_frames()
    assert isinstance(out, CVResult) and list(frames) == ["cv", "summary"] and frames["cv"] is out.table
    return out.table, out.summary, out.best


@pytest.mark.parametrize(
    "family,grid",
    [
        ("gradient_boosting", {"n_estimators": [5, 10, 20], "learning_rate": [0.1, 0.3]}),
        ("random_forest", {"n_estimators": [3, 6, 9]}),
        ("extra_trees", {"n_estimators": [3, 6, 9], "max_features": [0.5, 1.0]}),
        ("xgboost", {"n_estimators": [4, 8], "learning_rate": [0.3], "max_depth": [2, 4]}),
        ("decision_tree", {"max_depth": [2, 4], "min_samples_leaf": [1, 5]}),
    ],
)
def test_regression_cv_equals_gridsearchcv(family, grid):
    X, y = load_diabetes(return_X_y=True)
    X, y = X[:240], y[:240]
    folds = _folds(X, y, False)
    table = cross_validate_grid(family, "regression", grid, X, y, folds, random_state=5, n_jobs=1)
    summary = summarize_cv(table, "regression")
    est = make_estimator(family, "regression", {}, random_state=5, n_jobs=1)
    gs = GridSearchCV(
        est, [{k: list(v) for k, v in grid.items()}], cv=folds, scoring="neg_root_mean_squared_error", refit=False
    ).fit(X, y)
    ref = pd.DataFrame(gs.cv_results_["params"])
    ref["score"] = -gs.cv_results_["mean_test_score"]
    ref["std"] = gs.cv_results_["std_test_score"]
    for f in range(len(folds)):
        ref[f"fold{f}"] = -gs.cv_results_[f"split{f}_test_score"]
    configs = expand_grid(grid)
    assert len(summary) == len(configs) == len(ref)
    assert len(table) == len(configs) * len(folds)
    for i, cfg in enumerate(configs):
        mask = np.logical_and.reduce([ref[k] == v for k, v in cfg.items()])
        row = ref[mask].iloc[0]
        assert summary.loc[i, "rmse_mean"] == row["score"]  # bitwise
        assert summary.loc[i, "rmse_std"] == pytest.approx(row["std"], rel=1e-12)
        folds_ours = table[table["config_index"] == i].sort_values("fold")["rmse"].to_numpy()
        assert np.array_equal(folds_ours, row[[f"fold{f}" for f in range(len(folds))]].to_numpy(dtype=float))
    best = select_best(summary, "rmse")
    gs_best = dict(gs.cv_results_["params"][int(np.argmax(gs.cv_results_["mean_test_score"]))])
    assert {k: best[k] for k in grid} == pytest.approx(gs_best)


def test_classification_cv_log_loss_equals_gridsearchcv():
    X, y = load_breast_cancer(return_X_y=True)
    folds = _folds(X, y, True)
    grid = {"n_estimators": [5, 15], "learning_rate": [0.1]}
    table = cross_validate_grid("gradient_boosting", "classification", grid, X, y, folds, random_state=2, n_jobs=2)
    summary = summarize_cv(table, "classification")
    est = make_estimator("gradient_boosting", "classification", {}, random_state=2)
    gs = GridSearchCV(est, grid, cv=folds, scoring="neg_log_loss", refit=False).fit(X, y)
    np.testing.assert_allclose(summary["log_loss_mean"], -gs.cv_results_["mean_test_score"], rtol=1e-12)
    gs_acc = GridSearchCV(est, grid, cv=folds, scoring="accuracy", refit=False).fit(X, y)
    np.testing.assert_array_equal(summary["accuracy_mean"], gs_acc.cv_results_["mean_test_score"])


def test_n_jobs_does_not_change_the_table():
    X, y = load_diabetes(return_X_y=True)
    folds = _folds(X[:200], y[:200], False)
    grid = {"n_estimators": [4, 8], "learning_rate": [0.1, 0.2]}
    a = cross_validate_grid("gradient_boosting", "regression", grid, X[:200], y[:200], folds, random_state=0, n_jobs=1)
    b = cross_validate_grid("gradient_boosting", "regression", grid, X[:200], y[:200], folds, random_state=0, n_jobs=2)
    cols = ["config_id", "fold", "rmse", "mae", "r2"]
    pd.testing.assert_frame_equal(a[cols], b[cols])


def test_rank_deficient_qda_is_recorded_as_failed():
    X, y = load_breast_cancer(return_X_y=True)
    folds = _folds(X, y, True)
    table = cross_validate_grid("qda", "classification", {"reg_param": [0.0, 0.01]}, X, y, folds, random_state=0)
    summary = summarize_cv(table, "classification")
    failed = table[table["reg_param"] == 0.0]
    assert (failed["status"] == "failed").all()
    assert failed["message"].str.contains("LinAlgError").all()
    assert failed["log_loss"].isna().all()
    assert summary.loc[0, "status"] == "failed" and np.isnan(summary.loc[0, "log_loss_mean"])
    assert select_best(summary, "log_loss")["reg_param"] == 0.01


def test_select_best_errors():
    summary = pd.DataFrame({"status": ["failed"], "rmse_mean": [np.nan], "r2_mean": [0.5]})
    with pytest.raises(ValueError, match="every configuration"):
        select_best(summary, "rmse")
    with pytest.raises(ValueError, match="not a loss"):
        select_best(summary, "r2")


@pytest.mark.parametrize("task", ["regression", "classification"])
def test_decision_tree_depth_sharing_is_exact_and_skips_fits(task, monkeypatch):
    """Every (config, fold) score equals a tree fitted alone; fits are shared where the check allows."""
    import xaipipe.models.fitting as fitting
    from xaipipe.models.metrics import evaluate
    from xaipipe.models.output import model_output

    if task == "regression":
        X, y = load_diabetes(return_X_y=True)
    else:
        X, y = load_breast_cancer(return_X_y=True)
    folds = _folds(X, y, task == "classification")
    grid = {"max_depth": [2, 6, 12, 40], "min_samples_split": [2, 5, 10], "min_samples_leaf": [1, 4]}
    calls = []
    real = fitting.make_estimator  # every CV fit goes through fit_group
    monkeypatch.setattr(fitting, "make_estimator", lambda *a, **k: calls.append(a[2]) or real(*a, **k))
    table = cross_validate_grid("decision_tree", task, grid, X, y, folds, random_state=3, n_jobs=1)
    configs = expand_grid(grid)
    assert len(table) == len(configs) * len(folds)
    assert len(calls) < len(configs) * len(folds)  # some fits were shared
    metric = "rmse" if task == "regression" else "log_loss"
    for i, cfg in enumerate(configs):
        for f, (tr, va) in enumerate(folds):
            alone = make_estimator("decision_tree", task, dict(cfg), random_state=3).fit(X[tr], y[tr])
            expected = evaluate(task, y[va], model_output(alone)(X[va]))[metric]
            got = table[(table["config_index"] == i) & (table["fold"] == f)][metric].item()
            assert got == expected, (cfg, f)


def test_cv_tables_wraps_cross_validation_summary_and_selection():
    X, y = load_diabetes(return_X_y=True)
    X, y = X[:150], y[:150]
    folds = _folds(X, y, False)
    grid = {"n_estimators": [3, 6], "max_depth": [1, 2], "loss": ["squared_error", "huber"]}
    table, summary, best = _cv_tables(
        "gradient_boosting",
        "regression",
        grid,
        X,
        y,
        folds,
        selection="mae",
        random_state=1,
        options={"subsample": 0.8},
        dataset="diabetes",
    )
    ref = cross_validate_grid(
        "gradient_boosting", "regression", grid, X, y, folds, random_state=1, options={"subsample": 0.8}
    )
    timing = ["fit_time_s", "predict_time_s"]
    assert table.columns[0] == "dataset" and (table["dataset"] == "diabetes").all()
    pd.testing.assert_frame_equal(table.drop(columns=["dataset"] + timing), ref.drop(columns=timing))
    ref_summary = summarize_cv(ref, "regression")
    assert summary.columns[0] == "dataset"
    cols = [c for c in ref_summary.columns if "time" not in c]
    pd.testing.assert_frame_equal(summary[cols], ref_summary[cols])
    chosen = select_best(ref_summary, "mae")
    params = expand_grid(grid)[int(chosen["config_index"])]
    assert best["params"] == params and type(best["params"]["n_estimators"]) is int
    assert best["config_id"] == chosen["config_id"] and best["cv_mean"] == chosen["mae_mean"]
    assert best["cv_std"] == chosen["mae_std"] and best["selection_metric"] == "mae"
    assert {
        k: best[k] for k in ("dataset", "task", "family", "n_configs", "n_failed", "failed_configs", "seed", "options")
    } == {
        "dataset": "diabetes",
        "task": "regression",
        "family": "gradient_boosting",
        "n_configs": 8,
        "n_failed": 0,
        "failed_configs": [],
        "seed": 1,
        "options": {"subsample": 0.8},
    }
    # a failed configuration is recorded; the best is chosen among the others
    Xc, yc = load_breast_cancer(return_X_y=True)
    _, summary, best = _cv_tables(
        "qda",
        "classification",
        {"reg_param": [0.0, 0.3]},
        Xc,
        yc,
        _folds(Xc, yc, True),
        selection="log_loss",
        random_state=0,
    )
    assert best["failed_configs"] == ["reg_param=0.0"] and best["n_failed"] == 1
    assert best["params"] == {"reg_param": 0.3} and (summary["dataset"] == "").all()
    with pytest.raises(ValueError, match="not a loss"):
        _cv_tables(
            "qda",
            "classification",
            {"reg_param": [0.3]},
            Xc,
            yc,
            _folds(Xc, yc, True),
            selection="accuracy",
            random_state=0,
        )


def test_classification_cv_specificity_and_f_beta_equal_gridsearchcv():
    """Seed 004's metrics in the CV table (beta from config) equal GridSearchCV with
    scikit-learn's scorers, and adding them changes no other column."""
    from sklearn.metrics import fbeta_score, make_scorer, recall_score

    X, y = load_breast_cancer(return_X_y=True)
    X, y = X[:300], y[:300]
    folds = _folds(X, y, True)
    grid = {"C": [0.01, 1.0]}
    table = cross_validate_grid("logistic_regression", "classification", grid, X, y, folds, random_state=0, beta=2.0)
    summary = summarize_cv(table, "classification")
    assert list(table.columns[table.columns.get_loc("roc_auc") + 1 :][:2]) == ["specificity", "f_beta"]
    assert {"specificity_mean", "specificity_std", "f_beta_mean", "f_beta_std"} <= set(summary.columns)
    est = make_estimator("logistic_regression", "classification", {}, random_state=0)
    scoring = {"spec": make_scorer(recall_score, pos_label=0), "f2": make_scorer(fbeta_score, beta=2.0)}
    gs = GridSearchCV(est, {"model__C": grid["C"]}, cv=folds, scoring=scoring, refit=False).fit(X, y)
    for f in range(len(folds)):
        ours = table[table.fold == f].sort_values("config_index")
        np.testing.assert_array_equal(ours["specificity"], gs.cv_results_[f"split{f}_test_spec"])
        np.testing.assert_array_equal(ours["f_beta"], gs.cv_results_[f"split{f}_test_f2"])
    np.testing.assert_allclose(summary["f_beta_mean"], gs.cv_results_["mean_test_f2"], rtol=1e-14)
    plain = cross_validate_grid("logistic_regression", "classification", grid, X, y, folds, random_state=0)
    keep = [c for c in plain.columns if c not in ("f_beta", "fit_time_s", "predict_time_s")]
    pd.testing.assert_frame_equal(table[keep], plain[keep])
    assert (plain["f_beta"] == plain["f1"]).all()  # beta defaults to 1


@pytest.mark.parametrize(
    "family,grid",
    [
        ("gradient_boosting", {"n_estimators": [4, 8], "learning_rate": [0.1, 0.2], "max_depth": [2, 3]}),
        ("decision_tree", {"max_depth": [2, 6], "min_samples_split": [2, 5]}),
        ("ridge", {"alpha": [0.1, 1.0, 10.0]}),
    ],
)
def test_shards_concatenate_to_the_whole_table(family, grid):
    """Shards hold disjoint fit units, all folds each, and together the unsharded table exactly."""
    from xaipipe.models.cv import n_fit_units

    X, y = load_diabetes(return_X_y=True)
    folds = _folds(X[:150], y[:150], False)
    whole = cross_validate_grid(family, "regression", grid, X[:150], y[:150], folds, random_state=0)
    n = n_fit_units(family, grid)
    assert n == {"gradient_boosting": 4, "decision_tree": 2, "ridge": 3}[family]
    parts = [
        cross_validate_grid(
            family, "regression", grid, X[:150], y[:150], folds, random_state=0, engine=CVEngine(shard=(k, n))
        )
        for k in range(n)
    ]
    assert all(len(p) > 0 and len(p) % len(folds) == 0 for p in parts)
    assert not set.intersection(*(set(p["config_id"]) for p in parts))
    joined = pd.concat(parts).sort_values(["config_index", "fold"], kind="stable").reset_index(drop=True)
    cols = [c for c in whole.columns if c not in ("fit_time_s", "predict_time_s")]
    pd.testing.assert_frame_equal(joined[cols], whole[cols])
    with pytest.raises(ValueError, match="0 <= index < n_shards"):
        cross_validate_grid(
            family, "regression", grid, X[:150], y[:150], folds, random_state=0, engine=CVEngine(shard=(n, n))
        )


@pytest.mark.parametrize("n_shards", [2, 3])
def test_shards_past_the_fit_units_split_the_folds(n_shards):
    """A random forest's n_estimators grid is one prefix group (one fit per fold): more shards than
    units deal (unit, fold) pairs, each fitted as unsplit, and the shards together give the unsharded
    table row for row (the metrics bitwise). More shards than units x folds is refused."""
    X, y = load_diabetes(return_X_y=True)
    X, y = X[:120], y[:120]
    folds = _folds(X, y, False)
    grid = {"n_estimators": [3, 6, 9]}
    blocks = (50, 4)  # the block path too: 96 training rows >= 50
    whole = cross_validate_grid(
        "random_forest", "regression", grid, X, y, folds, random_state=4, engine=CVEngine(forest_blocks=blocks)
    )
    parts = [
        cross_validate_grid(
            "random_forest",
            "regression",
            grid,
            X,
            y,
            folds,
            random_state=4,
            engine=CVEngine(shard=(k, n_shards), forest_blocks=blocks),
        )
        for k in range(n_shards)
    ]
    folds_of = [set(p["fold"]) for p in parts]
    assert all(folds_of) and not set.intersection(*folds_of)  # each fold in exactly one shard
    assert sorted(f for fs in folds_of for f in fs) == list(range(len(folds)))
    assert all(len(p) == 3 * len(set(p["fold"])) for p in parts)  # every configuration of its folds
    joined = pd.concat(parts).sort_values(["config_index", "fold"], kind="stable").reset_index(drop=True)
    cols = [c for c in whole.columns if c not in ("fit_time_s", "predict_time_s")]
    pd.testing.assert_frame_equal(joined[cols], whole[cols], check_exact=True)
    with pytest.raises(ValueError, match="more than its 1 fit unit"):
        cross_validate_grid(
            "random_forest", "regression", grid, X, y, folds, random_state=4, engine=CVEngine(shard=(0, 4))
        )


def test_cv_tables_from_shards_equals_the_unsplit_rule(tmp_path):
    """cv_tables(shards=) gives the unsplit tables, dtypes and CSV bytes included, for a family whose
    grid and random search set different hyperparameters (columns with missing values, shards whose
    own rows hold only integers there), shards passed in reverse order and pickled."""
    import joblib

    from xaipipe.io import write_csv
    from xaipipe.models.cv import combine_cv_shards, cv_shard_table, n_fit_units

    X, y = load_diabetes(return_X_y=True)
    X, y = X[:150], y[:150]
    folds = _folds(X, y, False)
    grid = {"max_depth": [2, 4], "min_samples_split": [2, 8]}
    sample = {"n_iter": 4, "distributions": {"max_depth": {"randint": [2, 6]}, "max_features": {"choice": [1.0, 0.5]}}}
    kw = {"selection": "rmse", "random_state": 3, "sample": sample, "dataset": "diabetes"}
    whole = _cv_tables("decision_tree", "regression", grid, X, y, folds, **kw)
    data = SimpleNamespace(X_train_raw=X, y_train=y, folds=folds, imputer=None, dataset="diabetes")
    settings = CVSettings(
        task="regression", family="decision_tree", grid=grid, sample=sample, options={}, selection="rmse", seed=3
    )
    n = n_fit_units("decision_tree", grid, sample=sample, random_state=3)
    assert n >= 3
    paths = []
    for k in reversed(range(n)):
        part = cv_shard_table(data, settings, (k, n))  # the cv_shard rule
        paths.append(tmp_path / f"shard_{k}.joblib")
        joblib.dump(part, paths[-1])
    split = _cv_tables(
        "decision_tree", "regression", grid, None, None, folds, shards=[joblib.load(p) for p in paths], **kw
    )
    times = ["fit_time_s", "predict_time_s"]
    pd.testing.assert_frame_equal(split[0].drop(columns=times), whole[0].drop(columns=times))
    assert split[2] == whole[2]
    for i, name in enumerate(("table", "summary")):
        a, b = (t.drop(columns=[c for c in times if c in t]) for t in (whole[i], split[i]))
        write_csv(tmp_path / f"{name}_whole.csv", a)
        write_csv(tmp_path / f"{name}_split.csv", b)
        assert (tmp_path / f"{name}_whole.csv").read_bytes() == (tmp_path / f"{name}_split.csv").read_bytes()
    # a missing or repeated shard is named, not silently summarised
    parts = [joblib.load(p) for p in paths]
    with pytest.raises(ValueError, match="missing"):
        combine_cv_shards(
            parts[1:], family="decision_tree", grid=grid, sample=sample, random_state=3, n_folds=len(folds)
        )
    with pytest.raises(ValueError, match="repeated"):
        combine_cv_shards(
            parts + parts[:1], family="decision_tree", grid=grid, sample=sample, random_state=3, n_folds=len(folds)
        )
    with pytest.raises(ValueError, match="another family|hold rows of"):
        combine_cv_shards(parts, family="random_forest", grid={"n_estimators": [3]})


@pytest.mark.parametrize(
    "family,grid",
    [
        ("gradient_boosting", {"n_estimators": [5, 10], "learning_rate": [0.1]}),
        ("random_forest", {"n_estimators": [3, 6]}),
        ("xgboost", {"n_estimators": [4, 8], "learning_rate": [0.3], "max_depth": [2]}),
        ("decision_tree", {"max_depth": [2, 4], "min_samples_leaf": [1]}),
        ("linear_regression", {}),
    ],
)
def test_missing_values_are_imputed_inside_every_fold(family, grid):
    """No leakage: the CV with an imputer equals GridSearchCV of Pipeline(SimpleImputer(median), model),
    which fits the imputer on each fold's training rows only; imputing all rows first gives other numbers."""
    from sklearn.impute import SimpleImputer
    from sklearn.pipeline import Pipeline

    from xaipipe.data.impute import MissingValueImputer

    X, y = load_diabetes(return_X_y=True)
    X, y = X[:240].copy(), y[:240]
    rng = np.random.default_rng(1)
    X[rng.random(X.shape) < 0.15] = np.nan
    folds = _folds(X, y, False)
    table = cross_validate_grid(
        family,
        "regression",
        grid,
        X,
        y,
        folds,
        random_state=5,
        n_jobs=1,
        engine=CVEngine(imputer=MissingValueImputer()),
    )
    assert (table["status"] == "ok").all()
    pipe = Pipeline(
        [
            ("impute", SimpleImputer(strategy="median")),
            ("model", make_estimator(family, "regression", {}, random_state=5)),
        ]
    )
    gs = GridSearchCV(
        pipe,
        [{f"model__{k}": list(v) for k, v in grid.items()}],
        cv=folds,
        scoring="neg_root_mean_squared_error",
        refit=False,
    ).fit(X, y)
    for i, params in enumerate(gs.cv_results_["params"]):
        mine = table[table["config_id"] == table["config_id"].unique()[i]].sort_values("fold")
        assert expand_grid(grid)[i] == {k.removeprefix("model__"): v for k, v in params.items()}
        for f in range(3):
            assert mine["rmse"].iloc[f] == pytest.approx(-gs.cv_results_[f"split{f}_test_score"][i], rel=1e-12)
    # leaking the other folds' values into the fill values changes the numbers
    leaked = cross_validate_grid(
        family, "regression", grid, SimpleImputer(strategy="median").fit_transform(X), y, folds, random_state=5
    )
    assert not np.allclose(leaked["rmse"], table["rmse"])


@pytest.mark.parametrize("task", ["regression", "binary", "multiclass"])
@pytest.mark.parametrize(
    "family,grid",
    [
        ("random_forest", {"n_estimators": [3, 6, 10], "max_features": [0.5, 1.0]}),
        ("extra_trees", {"n_estimators": [2, 9]}),
    ],
)
def test_forest_blocks_leave_the_cv_table_bitwise_equal(family, grid, task, monkeypatch):
    """large_data.forest_block_rows / forest_block_trees: forests fitted on at least that many
    rows are fitted in blocks of trees (bitwise the same metrics); smaller folds stay whole."""
    import xaipipe.models.cv as cv_module

    if task == "regression":
        X, y = load_diabetes(return_X_y=True)
        X, y = X[:200], y[:200]
    else:
        X, y = load_breast_cancer(return_X_y=True)
        X, y = X[:210], y[:210]
        if task == "multiclass":
            y = np.digitize(X[:, 0], np.quantile(X[:, 0], [1 / 3, 2 / 3]))  # 3 classes
    kind = "regression" if task == "regression" else "classification"
    folds = _folds(X, y, kind == "classification")
    plain = cross_validate_grid(family, kind, grid, X, y, folds, random_state=3)
    calls = []
    real = cv_module.forest_block_prefix_predictions
    monkeypatch.setattr(
        cv_module,
        "forest_block_prefix_predictions",
        lambda *a, **k: calls.append(a[-1]) or real(*a, **k),
    )
    blocked = cross_validate_grid(
        family, kind, grid, X, y, folds, random_state=3, engine=CVEngine(forest_blocks=(1, 4))
    )
    n_groups = len(plain["prefix_group"].unique())
    assert calls == [4] * (n_groups * len(folds))  # every fit went through the blocks
    timing = ["fit_time_s", "predict_time_s"]
    pd.testing.assert_frame_equal(blocked.drop(columns=timing), plain.drop(columns=timing), check_exact=True)
    assert (blocked[timing] > 0).all().all()
    calls.clear()
    above = cross_validate_grid(
        family, kind, grid, X, y, folds, random_state=3, engine=CVEngine(forest_blocks=(len(X), 4))
    )  # no fold has that many training rows: all whole
    assert calls == []
    pd.testing.assert_frame_equal(above.drop(columns=timing), plain.drop(columns=timing), check_exact=True)


def test_forest_block_setting():
    from xaipipe.models.forest_blocks import forest_block_setting

    assert forest_block_setting(None) is None
    assert forest_block_setting({"forest_block_rows": None, "forest_block_trees": 100}) is None
    assert forest_block_setting({"forest_block_rows": 10000, "forest_block_trees": 50}) == (10000, 50)
    with pytest.raises(ValueError, match="forest_block_trees"):
        forest_block_setting({"forest_block_rows": 10, "forest_block_trees": 0})
