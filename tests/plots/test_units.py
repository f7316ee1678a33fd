"""Units on the figures' axes: the dataset's target_unit after the explained output, ε after its rule."""

from __future__ import annotations

import pytest

from xaipipe.plots.units import EPSILON_UNITS, epsilon_label, with_unit


@pytest.mark.parametrize(
    ("label", "output", "unit", "inner", "expected"),
    [
        ("prediction", "predict", "MPa", False, "prediction (MPa)"),
        ("prediction", "prediction", "dB", True, "prediction, dB"),
        ("predicted probability of class 1", "proba", "malignant", False, "predicted probability of malignant"),
        ("log-odds of class 1", "log_odds", "malignant", True, "log-odds of malignant"),
        # no unit, or one class of a multiclass model: unchanged
        ("prediction", "predict", None, False, "prediction"),
        ("prediction", "predict", "", False, "prediction"),
        ("probability of class 2", "probability", "malignant", False, "probability of class 2"),
        ("margin", "margin", "malignant", False, "margin"),
    ],
)
def test_with_unit(label, output, unit, inner, expected):
    assert with_unit(label, output, unit, inner=inner) == expected


def test_epsilon_label_names_the_rule_and_the_metric():
    assert epsilon_label("se", "rmse") == "ε (multiples of the SE of the reference's CV rmse)"
    assert epsilon_label("relative", "log_loss") == "ε (fraction of the reference's CV log_loss)"
    assert epsilon_label("absolute") == "ε (CV loss units)"
    assert epsilon_label(None) == "ε"
    assert set(EPSILON_UNITS) == {"se", "relative", "absolute"}  # the schema's epsilon_mode values
    with pytest.raises(ValueError, match="epsilon_mode"):
        epsilon_label("sd")


def test_epsilon_modes_are_those_of_the_config_schema():
    from pathlib import Path

    import yaml

    schema = yaml.safe_load((Path(__file__).parents[2] / "workflow" / "schemas" / "config.schema.yaml").read_text())
    mode = schema["properties"]["rashomon"]["properties"]["epsilon_mode"]
    assert set(mode["enum"]) == set(EPSILON_UNITS)
