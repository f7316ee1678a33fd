"""RashomonSettings.from_config: the cross-key checks of the Rashomon step (each error names its
config key) and the params the rules pass, in milliseconds (no Snakemake)."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from xaipipe.schema import validate_config
from xaipipe.settings import LARGE_DATA_POLICIES, LargeDataSettings, RashomonSettings, check_family

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


def test_large_data_defaults_leave_the_thesis_datasets_alone(config):
    """Default: min_rows 10 000 test rows; the thesis datasets (at most 1 300 test rows: Wine's
    4 898 x 0.2 rounded up is 980, Abalone's 836, the 6 497-row red + white table's 1 300) are below."""
    s = LargeDataSettings.from_config(config)
    assert (s.min_rows, s.reliance_rows, s.shap_rows, s.pd_rows) == (10000, 2000, 1000, 2000)
    for n in (1, 980, 1300, 10000):
        assert not s.applies(n) and all(s.rows(policy, n) is None for policy in LARGE_DATA_POLICIES)
        rows = s.table_rows(n)
        assert [r["policy"] for r in rows] == list(LARGE_DATA_POLICIES)
        assert all(not r["applied"] and r["rows_used"] == n and r["error_reported"] == "" for r in rows)
    assert s.applies(10001) and s.rows("reliance", 10001) == 2000 == s.rows("reliance", 100_000)
    assert s.rows("shap", 10001) == 1000 and s.rows("pd", 10001) == 2000
    (row,) = [r for r in s.table_rows(20000) if r["policy"] == "reliance"]
    assert row["applied"] and row["rows_used"] == 2000 and row["config_key"] == "large_data.reliance_rows"
    assert row["min_rows"] == 10000 and row["n_rows"] == 20000 and "mr_*_se" in row["error_reported"]


def test_large_data_params_round_trip_and_a_null_policy_is_off(config):
    config["large_data"]["reliance_rows"] = None
    s = LargeDataSettings.from_config(config)
    p = s.to_params()
    assert p == {"min_rows": 10000, "reliance_rows": None, "shap_rows": 1000, "pd_rows": 2000}
    assert LargeDataSettings.from_params(p) == s
    assert s.rows("reliance", 10**6) is None and s.rows("shap", 10**6) == 1000
    with pytest.raises(ValueError, match="unknown large-data policy 'shapp'"):
        s.rows("shapp", 10)


@pytest.mark.parametrize("key", ["reliance_rows", "shap_rows", "pd_rows"])
def test_large_data_rows_must_not_exceed_min_rows(config, key):
    config["large_data"][key] = 20000
    with pytest.raises(
        ValueError, match=rf"config key large_data.{key} \(20000\) must be at most large_data.min_rows \(10000\)"
    ):
        LargeDataSettings.from_config(config)


def test_large_data_schema_rejects_unknown_keys_and_small_values(default_config):
    from xaipipe.schema import validate_config

    for section, message in (({"min_row": 5}, "min_row"), ({"reliance_rows": 1}, "reliance_rows")):
        bad = copy.deepcopy(default_config)
        bad["large_data"] = section
        with pytest.raises(Exception, match=message):
            validate_config(bad, REPO / "workflow" / "schemas" / "config.schema.yaml")


def test_large_data_table_of_a_dataset(config):
    """explain/<dataset>/large_data.csv: the dataset, then one row per policy."""
    config["large_data"].update(min_rows=100, reliance_rows=100, shap_rows=None, pd_rows=80)
    frame = LargeDataSettings.from_config(config).table("mine", 150)
    assert list(frame.columns[:3]) == ["dataset", "policy", "config_key"]
    assert frame["policy"].tolist() == list(LARGE_DATA_POLICIES) and (frame["dataset"] == "mine").all()
    assert frame.set_index("policy")["applied"].to_dict() == {"reliance": True, "shap": False, "pd": True}
    assert frame.set_index("policy")["rows_used"].to_dict() == {"reliance": 100, "shap": 150, "pd": 80}
