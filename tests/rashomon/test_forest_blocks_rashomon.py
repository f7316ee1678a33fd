"""The Rashomon jobs with large forests in blocks of trees (issue 34 item 2): above
``large_data.forest_block_rows`` the member refits of ``rashomon`` / ``rashomon_refit`` /
``rashomon_bootstrap_shard`` are fitted ``forest_block_trees`` trees at a time into forest stores
and read one block at a time; every table is bitwise the one of the whole forests (here with the
threshold at 1 row and blocks of 3 trees, forests of 4..11 trees: blocks that end inside and at the
end of a prefix), for regression and binary classification."""

from __future__ import annotations

import dataclasses
import tempfile
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from xaipipe.config import BootstrapSettings, RashomonSettings
from xaipipe.models.cv import cross_validate_grid, summarize_cv
from xaipipe.models.forest_store import LazyTrees, forests_equal, iter_forest_blocks, load_forest
from xaipipe.rashomon.refit import fit_member_groups, member_store_dir

SEED = 7
BLOCKS = (1, 3)  # (forest_block_rows, forest_block_trees): every forest in blocks of 3 trees
GRIDS = {
    "regression": {
        "random_forest": {"n_estimators": [4, 7, 11], "max_depth": [3, None]},
        "extra_trees": {"n_estimators": [5, 9]},
        "linear_regression": {},
    },
    "classification": {
        "random_forest": {"n_estimators": [4, 7, 11], "max_depth": [3, None]},
        "extra_trees": {"n_estimators": [5, 9]},
        "decision_tree": {"max_depth": [2, 3]},
    },
}
NAMES = ["a", "b", "c", "d"]
TIME = ["compute_time_s"]  # wall seconds: the only columns that may differ


def _toy(task):
    rng = np.random.default_rng(11)
    n = 150
    X = rng.normal(size=(n, 4))
    f = 1.5 * X[:, 0] + X[:, 1] ** 2 - X[:, 2]
    y = (f + 0.5 * rng.normal(size=n) > 0.8).astype(int) if task == "classification" else f + 0.4 * rng.normal(size=n)
    Xtr, ytr, Xte, yte = X[:110], y[:110], X[110:], y[110:]
    folds = [(np.flatnonzero(np.arange(110) % 3 != k), np.flatnonzero(np.arange(110) % 3 == k)) for k in range(3)]
    parts = []
    for fam, grid in GRIDS[task].items():
        s = summarize_cv(cross_validate_grid(fam, task, grid, Xtr, ytr, folds, random_state=SEED), task)
        s.insert(0, "dataset", "toy")
        parts.append(s)
    data = SimpleNamespace(
        X_train=Xtr,
        y_train=ytr,
        X_test=Xte,
        y_test=yte,
        X_train_raw=Xtr,
        X_test_raw=Xte,
        imputer=None,
        features=NAMES,
        feature_groups=None,
        dataset="toy",
    )
    classification = task == "classification"
    settings = RashomonSettings(
        task=task,
        metric="log_loss" if classification else "rmse",
        seed=SEED,
        options={},
        loss="log_loss" if classification else "squared_error",
        epsilon_mode="relative",
        epsilon=0.5,
        epsilons=(0.0, 0.1, 0.5, 5.0),  # the largest ε: every configuration is a member
        scopes=("family", "cross_family"),
        estimators=("permutation", "e_switch", "e_divide"),
        n_repeats=2,
        e_switch_max_rows=25,
        figure_scope="cross_family",
        pd={"top_k": 2, "resolution": 5},
    )
    return data, settings, pd.concat(parts, ignore_index=True)


@pytest.fixture(scope="module", params=["regression", "classification"])
def toy(request):
    return _toy(request.param)


@pytest.fixture
def scratch(tmp_path, monkeypatch):
    """Python's temporary directory for the test: the scratch forest stores go there."""
    root = tmp_path / "tmp"
    root.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(root))
    return root


def _equal(a: pd.DataFrame, b: pd.DataFrame, name: str) -> None:
    assert len(a) > 0, name
    drop = [c for c in TIME if c in a.columns]
    pd.testing.assert_frame_equal(a.drop(columns=drop), b.drop(columns=drop), check_exact=True, obj=name)


def test_member_refits_in_blocks_are_the_whole_forests_read_lazily(toy, tmp_path):
    data, settings, summary = toy
    members = summary[["family", "config_id"]]
    kw = dict(random_state=SEED, options={})
    whole = fit_member_groups(members, settings.task, data.X_train, data.y_train, **kw)
    lazy = fit_member_groups(
        members, settings.task, data.X_train, data.y_train, forest_blocks=BLOCKS, store_dir=tmp_path, **kw
    )
    assert [(g.family, g.config_ids, g.n_estimators) for g in whole] == [
        (g.family, g.config_ids, g.n_estimators) for g in lazy
    ]
    n_forests = 0
    for w, g in zip(whole, lazy):
        if g.family in ("random_forest", "extra_trees"):
            n_forests += 1
            assert isinstance(g.model.estimators_, LazyTrees)  # one block in memory
            path = g.model.estimators_.path
            assert [len(trees) for _, trees in iter_forest_blocks(path)][0] == 3
            assert forests_equal(load_forest(path), w.model)  # bitwise the whole fit's trees
        else:
            assert type(g.model) is type(w.model) and not isinstance(getattr(g.model, "estimators_", None), LazyTrees)
    assert n_forests == 3  # random forest: 2 prefix groups; extra trees: 1
    # worker processes write the stores; the lazily opened forests come back as their paths
    par = fit_member_groups(
        members,
        settings.task,
        data.X_train,
        data.y_train,
        forest_blocks=BLOCKS,
        store_dir=tmp_path / "p",
        n_jobs=2,
        **kw,
    )
    for w, g in zip(whole, par):
        if isinstance(getattr(g.model, "estimators_", None), LazyTrees):
            assert forests_equal(load_forest(g.model.estimators_.path), w.model)
    with pytest.raises(ValueError, match="store_dir is None"):
        fit_member_groups(members, settings.task, data.X_train, data.y_train, forest_blocks=BLOCKS, **kw)


def test_member_store_dir_only_above_the_threshold(scratch):
    with member_store_dir(None, 10**6) as d:
        assert d is None
    with member_store_dir((200, 3), 199) as d:
        assert d is None
    with member_store_dir((200, 3), 200) as d:
        assert d.is_dir() and d.parent == scratch
    assert not d.exists()


def test_rashomon_job_in_blocks_is_bitwise_the_whole_forest_job(toy, scratch, monkeypatch):
    from xaipipe.models import forest_store
    from xaipipe.rashomon.study import mcr_study

    data, settings, summary = toy
    whole = mcr_study(data, settings, summary)
    opened = []
    real = forest_store.open_forest
    monkeypatch.setattr(forest_store, "open_forest", lambda path: opened.append(path) or real(path))
    blocks = mcr_study(data, settings, summary, forest_blocks=BLOCKS)
    assert len(opened) == 3  # the forest groups went through stores
    assert not any(scratch.iterdir())  # the scratch stores are removed
    assert blocks.n_groups == whole.n_groups
    for name, frame in whole.to_frames().items():
        if name != "linear_exact":
            _equal(frame, blocks.to_frames()[name], name)
    assert whole.predictions.tobytes() == blocks.predictions.tobytes()
    # below the threshold nothing changes (no store)
    opened.clear()
    mcr_study(data, settings, summary, forest_blocks=(len(data.y_train) + 1, 3))
    assert opened == []


def test_rashomon_refit_job_in_blocks_is_bitwise_the_whole_forest_job(toy, scratch):
    from xaipipe.rashomon.study import mcr_study, rashomon_refit

    data, settings, summary = toy
    fams = ["random_forest", "extra_trees"]
    whole = rashomon_refit(data, settings, summary, families=fams)
    blocks = rashomon_refit(data, settings, summary, families=fams, forest_blocks=BLOCKS)
    assert not any(scratch.iterdir())
    assert blocks.n_groups == whole.n_groups == 3
    _equal(whole.reliance, blocks.reliance, "reliance")
    _equal(whole.curves, blocks.curves, "curves")
    pd.testing.assert_frame_equal(whole.predictions[0], blocks.predictions[0], check_exact=True)
    assert whole.predictions[1].tobytes() == blocks.predictions[1].tobytes()
    # the combining job (the remaining family fitted there, also with blocks) gives the one-job tables
    one = mcr_study(data, settings, summary)
    split = mcr_study(data, settings, summary, refits=[blocks], forest_blocks=BLOCKS)
    for name in ("sets", "members", "mcr", "path", "envelope", "curves"):
        _equal(one.to_frames()[name], split.to_frames()[name], name)


def test_bootstrap_shard_in_blocks_is_bitwise_the_whole_forest_shard(toy, scratch):
    from xaipipe.rashomon.bootstrap import bootstrap_shard

    data, settings, _ = toy
    rashomon = dataclasses.replace(settings, epsilon_mode="absolute", epsilon=0.05)
    boot = BootstrapSettings(
        rashomon=rashomon,
        n_bootstrap=2,
        mr_data="oob",
        estimator="permutation",
        n_repeats=2,
        confidence=0.9,
        families=("random_forest", "extra_trees"),
        n_shards=1,
    )
    grids = {f: GRIDS[settings.task][f] for f in boot.families}
    whole = bootstrap_shard(data, boot, None, grids=grids)
    blocks = bootstrap_shard(data, boot, None, grids=grids, forest_blocks=BLOCKS)
    assert not any(scratch.iterdir())
    for name, frame in whole.to_frames().items():
        _equal(frame, blocks.to_frames()[name], name)
    assert whole.reliance["bootstrap"].nunique() == 2
