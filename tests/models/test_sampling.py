"""Random search of the model class: seeded draws from documented distributions, CV with the grid."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from xaipipe.models.cv import cross_validate_grid, select_best, summarize_cv
from xaipipe.models.grid import config_id, expand_grid
from xaipipe.models.sampling import distribution, sample_configurations

SPEC = {
    "n_iter": 6,
    "distributions": {
        "learning_rate": {"loguniform": [0.01, 0.3]},
        "max_depth": {"randint": [2, 4]},
        "subsample": {"uniform": [0.5, 1.0]},
    },
    "grid": {"n_estimators": [5, 10]},
}


def test_draws_are_seeded_within_bounds_and_crossed_with_the_grid():
    a = sample_configurations(SPEC, random_state=3)
    b = sample_configurations(SPEC, random_state=3)
    c = sample_configurations(SPEC, random_state=4)
    assert a == b and a != c and len(a) == 12
    for cfg in a:
        assert 0.01 <= cfg["learning_rate"] <= 0.3 and cfg["max_depth"] in (2, 3, 4) and 0.5 <= cfg["subsample"] <= 1.0
        assert cfg["n_estimators"] in (5, 10) and isinstance(cfg["max_depth"], int)
    # every draw appears with every n_estimators (one prefix group per draw)
    assert len({config_id({k: v for k, v in c.items() if k != "n_estimators"}) for c in a}) == 6


def test_distributions_are_scipy_ones():
    assert isinstance(distribution({"loguniform": [1e-3, 1.0]}), type(stats.loguniform(1e-3, 1.0)))
    d = distribution({"randint": [2, 5]})
    assert tuple(d.support()) == (2, 5)  # scipy randint(low, high) draws low..high-1: 2..5 inclusive
    assert distribution({"choice": ["a", "b"]}) == ["a", "b"] and distribution(3) == [3]
    with pytest.raises(ValueError, match="max_depth"):
        distribution({"randint": [5, 2]}, "max_depth")
    with pytest.raises(ValueError, match="gamma"):
        distribution({"normal": [0, 1]}, "gamma")


def test_grid_configurations_are_not_drawn_twice():
    spec = {"n_iter": 5, "distributions": {"C": {"choice": [0.1, 1.0]}}}
    drawn = sample_configurations(spec, random_state=0, exclude=[{"C": 0.1}])
    assert {c["C"] for c in drawn} <= {1.0} and len(drawn) == 1


def test_sampled_configurations_are_cross_validated_with_the_grid_and_never_selected():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 3))
    y = X[:, 0] + rng.normal(scale=0.5, size=120)
    folds = [(np.flatnonzero(np.arange(120) % 3 != k), np.flatnonzero(np.arange(120) % 3 == k)) for k in range(3)]
    grid = {"n_estimators": [5, 10], "learning_rate": [0.1]}
    spec = {
        "n_iter": 3,
        "distributions": {"learning_rate": {"loguniform": [0.05, 0.5]}, "max_depth": {"randint": [1, 3]}},
        "grid": {"n_estimators": [5, 10]},
    }
    table = cross_validate_grid("gradient_boosting", "regression", grid, X, y, folds, random_state=0, sample=spec)
    assert list(table["origin"].unique()) == ["grid", "sample"]
    n_grid = len(expand_grid(grid))
    assert (table[table["origin"] == "grid"]["config_index"] < n_grid).all()
    alone = cross_validate_grid("gradient_boosting", "regression", grid, X, y, folds, random_state=0)
    np.testing.assert_array_equal(table[table["origin"] == "grid"]["rmse"].to_numpy(), alone["rmse"].to_numpy())
    summary = summarize_cv(table, "regression")
    assert "origin" in summary and summary["origin"].tolist()[:n_grid] == ["grid"] * n_grid
    # even a sampled configuration better than every grid one is not the best configuration
    boosted = summary.copy()
    boosted.loc[boosted["origin"] == "sample", "rmse_mean"] = 0.0
    assert select_best(boosted, "rmse")["origin"] == "grid"
    only_sampled = cross_validate_grid(
        "ridge",
        "regression",
        None,
        X,
        y,
        folds,
        random_state=0,
        sample={"n_iter": 4, "distributions": {"alpha": {"loguniform": [0.01, 10.0]}}},
    )
    assert (only_sampled["origin"] == "sample").all() and only_sampled["config_id"].nunique() == 4


def test_replicates_repeat_every_draw_over_random_state_and_keep_the_draws():
    base = sample_configurations(SPEC, random_state=3)
    assert sample_configurations({**SPEC, "replicates": 1}, random_state=3) == base
    rep = sample_configurations({**SPEC, "replicates": 3}, random_state=3)
    assert len(rep) == 3 * len(base)
    hyper = lambda c: config_id({k: v for k, v in c.items() if k != "random_state"})  # noqa: E731
    # the first copy of each draw is the draw itself; the replicates follow it, crossed with the grid
    assert [c for c in rep if "random_state" not in c] == base
    for i in range(0, len(rep), 6):
        block = rep[i : i + 6]
        assert len({hyper(c) for c in block}) == 2  # one draw x n_estimators (5, 10)
        seeds = [c.get("random_state") for c in block]
        assert len(set(seeds)) == 3 and all(isinstance(s, int) for s in seeds if s is not None)
    assert rep == sample_configurations({**SPEC, "replicates": 3}, random_state=3)
    # raising R keeps the replicates already drawn
    assert [c for i, c in enumerate(rep) if i % 6 < 4] == sample_configurations(
        {**SPEC, "replicates": 2}, random_state=3
    )
    # a drawn random_state is the first replicate's
    drawn = {**SPEC, "distributions": {**SPEC["distributions"], "random_state": {"randint": [0, 999]}}, "replicates": 2}
    out = sample_configurations(drawn, random_state=5)
    firsts = sample_configurations({**drawn, "replicates": 1}, random_state=5)
    assert [c for i, c in enumerate(out) if (i // 2) % 2 == 0] == firsts
    with pytest.raises(ValueError, match="replicates must be an integer >= 1"):
        sample_configurations({**SPEC, "replicates": 0}, random_state=0)
    with pytest.raises(ValueError, match="random_state"):
        sample_configurations({**SPEC, "replicates": 2, "grid": {"random_state": [1, 2]}}, random_state=0)
