from __future__ import annotations

import pytest
from sklearn.model_selection import ParameterGrid

from xaipipe.models.grid import config_id, expand_grid, expand_values, prefix_groups


def test_inclusive_range():
    assert expand_values({"start": 100, "stop": 2000, "step": 100}) == list(range(100, 2001, 100))
    assert expand_values({"start": 0.1, "stop": 0.3, "step": 0.1}) == pytest.approx([0.1, 0.2, 0.3])
    with pytest.raises(ValueError, match="'n_estimators'.*empty"):
        expand_values([], name="n_estimators")
    with pytest.raises(ValueError, match="missing"):
        expand_values({"start": 1}, name="k")


def test_grid_is_the_parameter_grid_product():
    grid = {"max_depth": [10, 20, 30], "min_samples_split": [2, 5, 10], "min_samples_leaf": [1, 2, 4]}
    ours = expand_grid(grid)
    assert len(ours) == 27
    assert sorted(map(config_id, ours)) == sorted(map(config_id, ParameterGrid(grid)))
    assert ours[0] == {"max_depth": 10, "min_samples_split": 2, "min_samples_leaf": 1}
    assert expand_grid({}) == [{}] and config_id({}) == "default"


def test_prefix_groups_share_n_estimators():
    grid = {
        "n_estimators": {"start": 100, "stop": 2000, "step": 100},
        "learning_rate": [0.01, 0.1, 0.2],
        "max_depth": [3, 6],
    }
    configs = expand_grid(grid)
    groups = prefix_groups(configs)
    assert len(configs) == 120 and len(groups) == 6
    for base, ks in groups:
        assert "n_estimators" not in base and ks == list(range(100, 2001, 100))


def test_config_id_is_order_independent():
    assert config_id({"b": 1, "a": "x"}) == config_id({"a": "x", "b": 1}) == "a=x;b=1"


def test_depth_chains_merge_equivalent_min_samples_split_and_sort_depths():
    from xaipipe.models.grid import depth_chains

    configs = expand_grid({"max_depth": [10, None, 30], "min_samples_split": [2, 5, 10], "min_samples_leaf": [1, 4]})
    chains = depth_chains(configs)
    # (mss, msl) effective: (2,1) (5,1) (10,1) (8,4) (8,4) (10,4) -> 5 chains; (10,1) and (10,4) differ in msl
    assert len(chains) == 5
    assert sum(len(cfgs) for chain in chains for _, cfgs in chain) == len(configs)
    for chain in chains:
        depths = [d for d, _ in chain]
        assert depths == [float("inf"), 30.0, 10.0]
    merged = [cfgs for chain in chains for _, cfgs in chain if len(cfgs) > 1]
    assert len(merged) == 3  # msl=4 with mss 2 and 5, at each depth
    assert all({c["min_samples_split"] for c in cfgs} == {2, 5} for cfgs in merged)


def test_depth_chains_leave_fractional_parameters_alone():
    from xaipipe.models.grid import depth_chains

    chains = depth_chains(expand_grid({"min_samples_split": [0.1, 2], "min_samples_leaf": [1]}))
    assert len(chains) == 2
    # min_samples_split=1 is invalid in scikit-learn: never merged into a valid configuration
    assert len(depth_chains(expand_grid({"min_samples_split": [1, 2], "min_samples_leaf": [1]}))) == 2
