"""The logit table's separation and rare-level risk, found before any fit (issue 43 item 2): the check
agrees with the tables the logit rule writes, names the level, and words the remedies."""

from __future__ import annotations

import numpy as np
import pytest

from xaipipe.models.families import make_estimator
from xaipipe.models.logit import logit_inference
from xaipipe.models.mnlogit import mnlogit_inference
from xaipipe.models.separation_check import RARE_LEVEL_ROWS, logit_risks

LEVELS = ["east", "north", "south", "west"]


def survey(n=240, seed=0, rare_rows=3, rare_class=1, classes=2):
    """x numeric, region with a rare level 'west' of ``rare_rows`` rows, all of ``rare_class``."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    region = rng.choice(LEVELS[:3], size=n)
    region[:rare_rows] = "west"
    if classes == 2:
        y = (rng.random(n) < 1 / (1 + np.exp(-x))).astype(int)
    else:
        y = rng.integers(0, classes, size=n)
    y[:rare_rows] = rare_class
    X = np.column_stack([x] + [(region == lv).astype(float) for lv in LEVELS])
    names = ["x"] + [f"region_{lv}" for lv in LEVELS]
    return X, y, names, {"region": names[1:]}


def test_a_rare_single_class_level_is_named_with_its_remedies():
    X, y, names, groups = survey()
    risks = logit_risks(X, y, names, dataset="survey", feature_groups=groups, classes=["no", "yes"])
    assert risks["separation"] == "quasi-complete" and risks["not_identified"] == ["region_west"]
    [line] = risks["warnings"]
    assert line.startswith("dataset 'survey': the logit table (logit_inference.csv): quasi-complete separation")
    assert "level 'west' of 'region' (3 training rows, all class 'yes')" in line
    assert "merge the level(s) into another level of 'region'" in line and "datasets.survey.drop: [region]" in line
    assert "penalized_coefficient" in line and "labelled penalized" in line
    # the table the logit rule writes agrees: every unpenalised number NaN, the same term diverging
    model = make_estimator("logistic_regression", "classification", {"C": 1.0}, random_state=0).fit(X, y)
    table = logit_inference(X, y, names, feature_groups=groups, penalized_model=model)
    assert table["separation"].eq("quasi-complete").all() and table["coefficient"].isna().all()
    assert table.loc[~table["identified"], "term"].tolist() == risks["not_identified"]
    assert table["penalized_coefficient"].notna().all()  # the remedy the line points to is there
    # the remedies work: dropping the column, or merging the level into another
    keep = [0]
    assert logit_risks(X[:, keep], y, ["x"], dataset="survey")["warnings"] == []
    merged = X.copy()
    merged[:, 3] += merged[:, 4]  # west -> south
    merged_names, merged_groups = names[:4], {"region": names[1:4]}
    assert logit_risks(merged[:, :4], y, merged_names, dataset="survey", feature_groups=merged_groups)["warnings"] == []


def test_multiclass_and_the_remedy_without_the_penalised_family():
    X, y, names, groups = survey(n=300, classes=3, rare_class=2)
    risks = logit_risks(X, y, names, dataset="survey", feature_groups=groups, classes=["a", "b", "c"], penalized=False)
    table = mnlogit_inference(X, y, names, feature_groups=groups, classes=["a", "b", "c"])
    assert risks["separation"] == table["separation"].iloc[0] == "quasi-complete"
    assert set(table.loc[~table["identified"], "term"]) == set(risks["not_identified"]) == {"region_west"}
    [line] = risks["warnings"]
    assert "all class 'c'" in line and "add logistic_regression to datasets.survey.families" in line


def test_a_rare_mixed_level_is_a_risk_not_a_separation():
    X, y, names, groups = survey(rare_rows=RARE_LEVEL_ROWS - 1)
    y[0] = 0  # the rare level holds both classes
    risks = logit_risks(X, y, names, dataset="survey", feature_groups=groups, classes=["no", "yes"])
    assert risks["separation"] == "none" and risks["not_identified"] == []
    [line] = risks["warnings"]
    assert line.startswith("dataset 'survey': column 'region': level 'west' is rare (4 training rows, classes")
    assert [lv["level"] for lv in risks["rare_levels"]] == ["west"]
    assert {lv["level"]: lv["rows"] for lv in risks["levels"]}["west"] == 4


@pytest.mark.parametrize("separated", [False, True])
def test_numeric_separation_names_the_terms(separated):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(120, 3))
    y = (X[:, 0] > 0).astype(int) if separated else rng.integers(0, 2, size=120)
    risks = logit_risks(X, y, ["a", "b", "c"], dataset="d")
    assert (risks["separation"] == "complete") is separated
    assert bool(risks["warnings"]) is separated
    if separated:
        assert "cause: the terms 'a'" in risks["warnings"][0] and "datasets.d.drop" in risks["warnings"][0]
