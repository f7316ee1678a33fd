"""RashomonSettings.from_config: the cross-key checks of the Rashomon step (each error names its
config key) and the params the rules pass, in milliseconds (no Snakemake)."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from xaipipe.schema import validate_config
from xaipipe.settings import RashomonSettings, check_family

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def default_config():
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    return validate_config(config, REPO / "workflow" / "schemas" / "config.schema.yaml") or config


@pytest.fixture
def config(default_config):
    return copy.deepcopy(default_config)


def test_the_params_are_the_rashomon_section_and_the_keys_it_borrows(config):
    s = RashomonSettings.from_config(config, "classification")
    p = s.to_params()
    assert p["metric"] == config["selection"]["classification"]
    assert p["loss"] == config["explain"]["reliance"]["losses"]["classification"][0]
    assert p["seed"] == config["seed"] and p["options"] == config["estimator_options"]
    for key in ("epsilon_mode", "epsilon", "epsilons", "scopes", "estimators", "n_repeats", "e_switch_max_rows"):
        assert p[key] == config["rashomon"][key]
    assert p["pd"] == config["rashomon"]["pd"]
    # JSON-like: lists, not tuples (Snakemake's params trigger compares them)
    assert all(not isinstance(v, tuple) for v in p.values())
    with pytest.raises(AttributeError):
        s.epsilon = 2.0  # frozen


def test_epsilon_must_be_one_of_the_epsilons(config):
    config["rashomon"]["epsilon"] = 0.25
    with pytest.raises(ValueError, match=r"config key rashomon.epsilon \(0.25\) must be one of rashomon.epsilons"):
        RashomonSettings.from_config(config, "regression")


@pytest.mark.parametrize(
    ("path", "key"),
    [
        (("refit_jobs",), "rashomon.refit_jobs"),
        (("bootstrap", "families"), "rashomon.bootstrap.families"),
    ],
)
def test_family_keys_name_registered_families(config, path, key):
    section = config["rashomon"]
    for part in path[:-1]:
        section = section[part]
    section[path[-1]] = ["random_forrest"]
    with pytest.raises(ValueError, match=f"config key {key}: unknown model family 'random_forrest'"):
        RashomonSettings.from_config(config, "regression")


def test_a_sampled_family_must_support_its_task(config):
    config["rashomon"]["sample"]["families"] = {"regression": {"logistic_regression": {"n": 3}}}
    with pytest.raises(
        ValueError, match="rashomon.sample.families.regression.logistic_regression: .* does not support"
    ):
        RashomonSettings.from_config(config, "regression")


def test_unknown_task_and_check_family():
    with pytest.raises(ValueError, match="task must be"):
        RashomonSettings.from_config({}, "ranking")
    check_family("grids.regression.random_forest", "random_forest", "regression")
    with pytest.raises(ValueError, match="config key x: unknown model family 'nope'"):
        check_family("x", "nope")


def test_params_round_trip(config):
    s = RashomonSettings.from_config(config, "regression")
    assert RashomonSettings.from_params(s.to_params()) == s
