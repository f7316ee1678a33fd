"""SageSettings (rule sage): the explain.sage keys, their defaults, checks and the one params dict."""

from __future__ import annotations

import dataclasses
import json

import pytest
import yaml

from tests.config.conftest import SCHEMA as SCHEMA_PATH
from xaipipe.config import SageSettings

SCHEMA = yaml.safe_load(SCHEMA_PATH.read_text())


def test_every_key_is_a_field_with_the_schemas_default():
    section = SCHEMA["properties"]["explain"]["properties"]["sage"]["properties"]
    fields = {f.name: f for f in dataclasses.fields(SageSettings)}
    assert [n for n in fields if n not in ("seed", "losses")] == list(section)
    defaults = SageSettings()
    for key, spec in section.items():
        value = getattr(defaults, key)
        assert (list(value) if isinstance(value, tuple) else value) == spec["default"], key
    assert defaults.seed == SCHEMA["properties"]["seed"]["default"]


def test_from_config_round_trips_through_one_plain_dict(config):
    s = SageSettings.from_config(config)
    assert s == SageSettings()  # config/config.yaml holds the defaults
    params = s.to_params()
    assert json.loads(json.dumps(params)) == params
    assert SageSettings.from_params(params) == s
    assert s.loss("regression") == "squared_error" and s.loss("classification") == "log_loss"
    assert s.runs("xgboost") and not s.runs("random_forest")  # the forests are left out by default
    config["explain"]["sage"]["families"] = None
    assert SageSettings.from_config(config).runs("random_forest")
    config["explain"]["sage"]["families"] = ["xgboost"]
    s = SageSettings.from_config(config)
    assert s.families == ("xgboost",) and s.runs("xgboost") and not s.runs("random_forest")


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("threshold", 1.0, r"explain.sage.threshold must lie in \(0, 1\)"),
        ("batch_size", 0, r"explain.sage.batch_size \(0\) must be an integer of at least 1"),
        ("background_size", 0, r"explain.sage.background_size \(0\) must be an integer of at least 1 or null"),
        ("max_permutations", 64, r"explain.sage.max_permutations \(64\) must be at least explain.sage.batch_size"),
        ("families", ["xgb"], r"explain.sage.families: unknown model family 'xgb'"),
    ],
)
def test_checks_name_the_config_key(config, key, value, message):
    config["explain"]["sage"][key] = value
    with pytest.raises(ValueError, match=message):
        SageSettings.from_config(config)


def test_a_loss_sage_cannot_play_is_named(config):
    config["explain"]["reliance"]["losses"]["regression"] = ["absolute_error"]
    with pytest.raises(ValueError, match=r"explain.reliance.losses.regression"):
        SageSettings.from_config(config)
    with pytest.raises(ValueError, match="unknown field"):
        SageSettings.from_params({"treshold": 0.1})  # the one from_params of every settings class
