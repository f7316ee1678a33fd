"""The Table 4.1 study: target transformations, the affine-equivariance claim
(z-scoring rescales RMSE without refitting), the ranked table and the comparison
with the published top 15."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scipy import stats
from sklearn.ensemble import GradientBoostingRegressor
from sklearn.metrics import root_mean_squared_error

from xaipipe.studies.abalone import (
    AFFINE_TRANSFORMS,
    THESIS_GRID,
    TRANSFORMS,
    affine_rmse,
    compare_with_published,
    load_abalone,
    load_published,
    ranking_pattern,
    table_4_1,
    thesis_study,
    transform_target,
)

REFERENCE = Path(__file__).resolve().parents[3] / "shared" / "reference" / "thesis_abalone_rashomon_top15.csv"


def _rings(n=200, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y = np.clip(np.round(10 + 2.5 * X[:, 0] + X[:, 1] ** 2 + 1.5 * rng.normal(size=n)), 1, 29)
    return X, y


def test_grid_has_324_models():
    from xaipipe.models.grid import expand_grid, prefix_groups

    configs = expand_grid(THESIS_GRID)
    assert len(configs) == 324
    assert len(prefix_groups(configs)) == 36  # 36 fits per fold thanks to shared prefixes


@pytest.mark.parametrize("name", TRANSFORMS)
def test_transformations_against_numpy(name):
    _, y = _rings()
    train = y[:150]
    out, params = transform_target(y, name, reference=train, divisor=4.0)
    expected = {
        "none": y,
        "zscore": (y - train.mean()) / train.std(),
        "minmax": (y - train.min()) / (train.max() - train.min()),
        "divide": y / 4.0,
        "log": np.log(y),
        "log1p": np.log1p(y),
        "sqrt": np.sqrt(y),
        "boxcox": stats.boxcox(y, lmbda=stats.boxcox(train)[1]),
        "log_zscore": (np.log(y) - np.log(train).mean()) / np.log(train).std(),
        "boxcox_zscore": None,
    }[name]
    if expected is not None:
        np.testing.assert_allclose(out, expected, rtol=1e-12, atol=1e-12)
    assert params["affine"] == (name in AFFINE_TRANSFORMS)
    if params["affine"]:
        np.testing.assert_allclose(out, params["scale"] * y + params["shift"], rtol=1e-12, atol=1e-12)
    if name == "boxcox_zscore":
        assert abs(out[:150].mean()) < 1e-10 and out[:150].std() == pytest.approx(1.0)


def test_transformation_errors():
    with pytest.raises(ValueError, match="unknown"):
        transform_target([1.0, 2.0], "exp")
    with pytest.raises(ValueError, match="positive"):
        transform_target([0.0, 2.0], "log")
    with pytest.raises(ValueError, match="divisor"):
        transform_target([1.0, 2.0], "divide")
    with pytest.raises(ValueError, match="constant"):
        transform_target([3.0, 3.0], "zscore")


@pytest.mark.parametrize("loss", ["squared_error", "absolute_error", "huber"])
def test_affine_target_rescales_gbm_predictions(loss):
    """The claim behind 'z-scoring needs no refit': with y' = a y + b every
    prediction is a f(x) + b, so the RMSE is a times the raw RMSE (exact up to
    floating-point tie-breaks of the split search, none in this case)."""
    X, y = _rings()
    yz, p = transform_target(y, "zscore")
    raw = GradientBoostingRegressor(n_estimators=40, max_depth=3, loss=loss, random_state=0).fit(X[:150], y[:150])
    std = GradientBoostingRegressor(n_estimators=40, max_depth=3, loss=loss, random_state=0).fit(X[:150], yz[:150])
    pred_raw, pred_std = raw.predict(X[150:]), std.predict(X[150:])
    np.testing.assert_allclose(pred_std, p["scale"] * pred_raw + p["shift"], rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(
        root_mean_squared_error(yz[150:], pred_std), p["scale"] * root_mean_squared_error(y[150:], pred_raw), rtol=1e-9
    )
    # whereas log is not affine: the prediction is not a function of the raw one
    lg = GradientBoostingRegressor(n_estimators=40, max_depth=3, loss=loss, random_state=0).fit(
        X[:150], np.log(y[:150])
    )
    assert not np.allclose(np.exp(lg.predict(X[150:])), pred_raw, rtol=1e-3)


@pytest.fixture(scope="module")
def small_study():
    X, y = _rings(120, seed=3)
    # continuous responses: with integer rings the split search meets exact ties
    # whose floating-point tie-break can differ after rescaling (see the module doc)
    y = y + np.random.default_rng(4).uniform(-0.5, 0.5, y.size)
    folds = [(np.flatnonzero(np.arange(120) % 3 != k), np.flatnonzero(np.arange(120) % 3 == k)) for k in range(3)]
    grid = {"n_estimators": [5, 10], "learning_rate": [0.1], "max_depth": [1, 2], "loss": ["squared_error", "huber"]}
    raw = thesis_study(X, y, folds, grid, random_state=0)
    z = thesis_study(X, y, folds, grid, transform="zscore", random_state=0)
    return X, y, folds, grid, raw, z


def test_study_table_is_ranked_cv(small_study):
    from xaipipe.models.cv import cross_validate_grid, summarize_cv

    X, y, folds, grid, raw, _ = small_study
    assert len(raw) == 8 and raw["rank"].tolist() == list(range(1, 9))
    assert np.all(np.diff(raw["rmse_mean"]) >= 0)
    ref = summarize_cv(
        cross_validate_grid("gradient_boosting", "regression", grid, X, y, folds, random_state=0), "regression"
    ).set_index("config_id")
    np.testing.assert_array_equal(raw["rmse_mean"], ref.loc[raw["config_id"], "rmse_mean"])
    assert {"n_estimators", "learning_rate", "max_depth", "loss", "rmse_std", "transform"} <= set(raw.columns)


def test_zscore_study_equals_rescaled_raw_study(small_study):
    _, y, _, _, raw, z = small_study
    scale = transform_target(y, "zscore")[1]["scale"]
    scaled = affine_rmse(raw, scale, "zscore").set_index("config_id")
    z = z.set_index("config_id")
    np.testing.assert_allclose(z["rmse_mean"], scaled.loc[z.index, "rmse_mean"], rtol=1e-9)
    np.testing.assert_allclose(z["rmse_std"], scaled.loc[z.index, "rmse_std"], rtol=1e-7, atol=1e-12)
    assert z.index.tolist() == raw["config_id"].tolist()  # same ranking
    with pytest.raises(ValueError):
        affine_rmse(raw, -1.0, "x")


def test_compare_with_published(small_study):
    raw = small_study[4]
    pub = raw.iloc[[1, 0, 3]].rename(columns={"rmse_mean": "cv_rmse"}).copy()
    pub["rank"] = [1, 2, 3]
    pub["cv_rmse"] = [0.5, 0.6, 0.7]
    cmp = compare_with_published(raw, pub, top=4)
    assert cmp["rank"].tolist() == [1, 2, 3, 4]
    assert cmp["pub_config_our_rank"].tolist()[:3] == [2, 1, 4]
    assert cmp["same_config"].tolist() == [False, False, False, False]
    np.testing.assert_array_equal(cmp["pub_config_our_rmse"][:3], raw["rmse_mean"].iloc[[1, 0, 3]])
    pat = ranking_pattern(raw, top=4)
    assert np.allclose(pat.groupby("hyperparameter")["share"].sum(), 1.0)


def test_published_table_is_gradient_boosting_depth_two():
    if not REFERENCE.is_file():
        pytest.skip(f"{REFERENCE} not found")
    pub = load_published(REFERENCE)
    assert len(pub) == 15 and (pub["max_depth"] == 2).all()
    assert pub["cv_rmse"].is_monotonic_increasing
    pat = ranking_pattern(pub.rename(columns={"cv_rmse": "rmse_mean"}), top=15)
    share = pat.set_index(["hyperparameter", "value"])["share"]
    assert share[("learning_rate", 0.1)] == pytest.approx(13 / 15)


def test_load_abalone_split(mirror, repo):
    d = load_abalone(repo / "config" / "datasets.yaml", mirror)
    assert d["X_train"].shape == (3341, 10) and d["X_test"].shape == (836, 10)
    assert d["feature_groups"] == {"Sex": ["Sex_F", "Sex_I", "Sex_M"]}
    assert len(d["folds"]) == 5 and sum(len(v) for _, v in d["folds"]) == 3341
    assert d["y_train"].min() >= 1 and d["y_train"].max() <= 29


def test_table_4_1_wraps_the_study_and_the_comparison(small_study):
    import pandas as pd

    from xaipipe.rashomon.sets import rashomon_set

    X, y, folds, grid, raw, _ = small_study
    published = raw.iloc[[2, 0, 1]][["n_estimators", "learning_rate", "max_depth", "loss"]].copy()
    published.insert(0, "rank", [1, 2, 3])
    published.insert(1, "cv_rmse", [1.5, 1.6, 1.7])
    summary, comparison, pattern = table_4_1(
        X, y, folds, published.to_dict("records"), grid=grid, random_state=0, dataset="abalone_study"
    )
    assert list(summary.columns[:2]) == ["dataset", "family"]
    assert (summary["dataset"] == "abalone_study").all() and (summary["family"] == "gradient_boosting").all()
    cols = [c for c in raw.columns if c != "fit_time_s"]
    pd.testing.assert_frame_equal(summary[cols], raw[cols])
    assert (summary["status"] == "ok").all()
    pd.testing.assert_frame_equal(comparison, compare_with_published(raw, published))
    assert comparison["pub_config_our_rank"].tolist()[:3] == [3, 1, 2]
    ours = pattern[pattern["source"] == "reproduced"].drop(columns="source").reset_index(drop=True)
    theirs = pattern[pattern["source"] == "published"].drop(columns="source").reset_index(drop=True)
    pd.testing.assert_frame_equal(ours, ranking_pattern(raw))
    pd.testing.assert_frame_equal(theirs, ranking_pattern(published.rename(columns={"cv_rmse": "rmse_mean"})))
    # the summary is a CV summary the Rashomon step reads as one model class
    rs = rashomon_set(summary, metric="rmse", epsilon=0.0)
    assert rs.reference["config_id"] == raw["config_id"].iloc[0] and rs.scope == "gradient_boosting"


@pytest.mark.parametrize("n_shards", [1, 3, 4])
def test_sharded_study_equals_table_4_1_byte_for_byte(small_study, n_shards, tmp_path):
    """The split CV (shards in any order, through CSV files as in the workflow) writes the unsplit tables' bytes."""
    from xaipipe.io import read_csv, write_csv
    from xaipipe.studies.abalone import study_cv_shard, table_4_1_from_shards

    X, y, folds, grid, raw, _ = small_study
    published = raw.iloc[[2, 0, 1]][["n_estimators", "learning_rate", "max_depth", "loss"]].copy()
    published.insert(0, "rank", [1, 2, 3])
    published.insert(1, "cv_rmse", [1.5, 1.6, 1.7])
    rows = published.to_dict("records")
    whole = table_4_1(X, y, folds, rows, grid=grid, random_state=0)
    paths = []
    for k in reversed(range(n_shards)):
        part = study_cv_shard(X, y, folds, grid, shard=k, n_shards=n_shards, random_state=0)
        assert len(part) > 0 and (part["prefix_group"] % n_shards == k).all()
        paths.append(tmp_path / f"cv_{k}.csv")
        write_csv(paths[-1], part)
    split = table_4_1_from_shards([read_csv(p) for p in paths], rows, grid=grid)
    for a, b, name in zip(whole, split, ("summary", "comparison", "pattern")):
        a, b = (t.assign(fit_time_s=0.0) if "fit_time_s" in t else t for t in (a, b))
        write_csv(tmp_path / f"a_{name}.csv", a)
        write_csv(tmp_path / f"b_{name}.csv", b)
        assert (tmp_path / f"a_{name}.csv").read_bytes() == (tmp_path / f"b_{name}.csv").read_bytes(), name


def test_sharded_study_errors(small_study):
    from xaipipe.studies.abalone import study_cv_shard, table_4_1_from_shards

    X, y, folds, grid, _, _ = small_study
    with pytest.raises(ValueError, match="more than the grid's 4 prefix groups"):
        study_cv_shard(X, y, folds, grid, shard=0, n_shards=5)
    with pytest.raises(ValueError, match="0 <= index < n_shards"):
        study_cv_shard(X, y, folds, grid, shard=2, n_shards=2)
    part = study_cv_shard(X, y, folds, grid, shard=0, n_shards=2, random_state=0)
    with pytest.raises(ValueError, match="do not cover the grid once"):
        table_4_1_from_shards([part], [], grid=grid)
    with pytest.raises(ValueError, match="do not cover the grid once"):
        table_4_1_from_shards([part, part], [], grid=grid)
    last = study_cv_shard(X, y, folds, grid, shard=1, n_shards=2, random_state=0)
    rows = [{"rank": 1, "cv_rmse": 1.5, "n_estimators": 5, "learning_rate": 0.1, "max_depth": 1, "loss": "huber"}]
    assert table_4_1_from_shards([part, last], rows, grid=grid)[0]["rank"].tolist() == list(range(1, 9))
    with pytest.raises(ValueError, match="do not cover the grid once"):
        table_4_1_from_shards([part, last], [], grid=dict(grid, max_depth=[1, 2, 3]))
    with pytest.raises(ValueError, match="no shards"):
        table_4_1_from_shards([], [], grid=grid)
