"""The user's feature groups (``datasets.<d>.groups``, issue 45 item 3): registry and preparation
checks with errors that name the dataset, the group and the column; ``prepared.json``'s
``user_groups``; the groups every importance step plays as one variable; the columns the PD-type
steps see in their place."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from xaipipe.data.preparation import prepare_table, resolve_user_groups
from xaipipe.data.prepare import PreparedData, expand_user_groups, variable_groups
from xaipipe.data.registry import RegistryError, preparation_options, validate_entry


def _canonical(n: int = 60, seed: int = 0):
    rng = np.random.default_rng(seed)
    z = rng.normal(size=n)
    frame = pd.DataFrame(
        {
            "s1": z + 0.1 * rng.normal(size=n),
            "s2": z + 0.1 * rng.normal(size=n),
            "s3": z + 0.1 * rng.normal(size=n),
            "region": rng.choice(["east", "north", "south"], size=n),
            "elev": rng.uniform(size=n),
            "x": rng.normal(size=n),
        }
    )
    frame["y"] = 2 * z + (frame["region"] == "north") + rng.normal(size=n)
    sidecar = {
        "dataset": "plots",
        "task": "regression",
        "target": "y",
        "feature_columns": ["s1", "s2", "s3", "region", "elev", "x"],
        "categorical_columns": ["region"],
    }
    return frame.sort_values("y").reset_index(drop=True), sidecar  # sorted by the response


def test_groups_are_recorded_in_column_order_and_a_categorical_stands_for_its_levels():
    frame, sidecar = _canonical()
    groups = {"soil": ["s3", "s1", "s2"], "place": ["region", "elev"]}
    prepared, info, _ = prepare_table(frame, sidecar, {"groups": groups})
    assert info["feature_groups"] == {"region": ["region_east", "region_north", "region_south"]}
    assert info["user_groups"] == {
        "soil": ["s1", "s2", "s3"],
        "place": ["region_east", "region_north", "region_south", "elev"],
    }
    # listing every level column is the same as naming the categorical
    levels = {"soil": ["s1", "s2", "s3"], "place": ["elev", "region_north", "region_south", "region_east"]}
    assert prepare_table(frame, sidecar, {"groups": levels})[1]["user_groups"] == info["user_groups"]
    # without groups prepared.json has no user_groups key (the thesis datasets' files unchanged)
    assert "user_groups" not in prepare_table(frame, sidecar, {})[1]


@pytest.mark.parametrize(
    ("groups", "options", "pattern"),
    [
        ({"soil": ["s1", "s4"]}, {}, r"'plots': datasets.plots.groups.soil lists unknown column 's4'"),
        ({"soil": ["s1", "x"]}, {"drop": ["x"]}, r"groups.soil lists column 'x', which datasets.plots.drop removes"),
        (
            {"a": ["s1", "s2"], "b": ["s2", "s3"]},
            {},
            r"column 's2' is in two groups, datasets.plots.groups.a and datasets.plots.groups.b",
        ),
        (
            {"a": ["region_north", "elev"]},
            {},
            r"groups.a splits the one-hot group of categorical 'region': it holds \['region_north'\] but not "
            r"\['region_east', 'region_south'\]",
        ),
        ({"a": ["region", "x"], "b": ["region_east"]}, {}, r"'region_east' is in two groups"),
        ({"elev": ["s1", "s2"]}, {}, r"groups.elev: the group name 'elev' is a column name"),
        ({"region": ["s1", "s2"]}, {}, r"groups.region: the group name 'region' is a categorical name"),
        ({"g": ["y"]}, {}, r"groups.g lists the target 'y'"),
        ({"g": []}, {}, r"groups.g is empty"),
    ],
)
def test_bad_groups_name_the_dataset_group_and_column(groups, options, pattern):
    frame, sidecar = _canonical()
    with pytest.raises(ValueError, match=pattern):
        prepare_table(frame, sidecar, {**options, "groups": groups})


def test_registry_checks_and_options():
    entry = {
        "task": "regression",
        "target": "y",
        "source": {"kind": "file", "path": "data/p.csv"},
        "columns": {"id": ["rid"], "features": ["s1", "s2", "region"]},
        "categorical": ["region"],
    }
    ok = validate_entry("plots", {**entry, "groups": {"soil": ["s1", "s2"]}})
    assert ok.groups == {"soil": ("s1", "s2")}
    assert preparation_options(ok, {}) == {"drop": [], "groups": {"soil": ["s1", "s2"]}}
    assert "groups" not in preparation_options(validate_entry("plots", entry), {})  # the thesis params unchanged
    assert ok.to_mapping()["groups"] == {"soil": ["s1", "s2"]} and "groups" not in ok.to_mapping(preparation=False)
    for groups, pattern in [
        ({"a": ["s1"], "b": ["s1", "s2"]}, r"column 's1' of dataset 'plots' is in two groups"),
        ({"s1": ["s2"]}, r"datasets.plots.groups.s1: the group name 's1' is a column name"),
        ({"g": ["rid"]}, r"groups.g lists 'rid', an id or other column"),
        ({"g": ["y"]}, r"groups.g lists the target 'y'"),
        ({"g": []}, r"datasets.plots"),  # the schema: at least one column
        ({"a+b": ["s1"]}, r"datasets.plots"),  # the schema: '+' names the correlation clusters
    ]:
        with pytest.raises(RegistryError, match=pattern):
            validate_entry("plots", {**entry, "groups": groups})


def test_variable_groups_merge_user_and_one_hot_groups():
    one_hot = {"region": ["region_east", "region_north"], "kind": ["kind_a", "kind_b"]}
    user = {"place": ["region_east", "region_north", "elev"]}
    assert variable_groups(one_hot, user) == {"kind": ["kind_a", "kind_b"], **user}
    assert variable_groups(one_hot, None) == one_hot
    data = PreparedData(
        X_train=np.zeros((2, 5)), X_test=np.zeros((2, 5)), y_train=np.zeros(2), y_test=np.zeros(2), folds=[],
        features=["region_east", "region_north", "elev", "kind_a", "kind_b"], feature_groups=one_hot,
        task="regression", target="y", dataset="d", train_rows=np.arange(2), test_rows=np.arange(2),
    )  # fmt: skip
    assert data.variable_groups is data.feature_groups  # no user groups: the one-hot groups themselves
    data.user_groups = user
    assert data.variable_groups == {"kind": ["kind_a", "kind_b"], **user}


def test_expand_user_groups_gives_the_pd_variables_at_the_groups_place():
    table = pd.DataFrame(
        {"feature": ["x", "place", "soil"], "mr_difference": [0.5, 2.0, 1.0], "estimator": "permutation"}
    )
    user = {"place": ["region_east", "region_north", "elev"], "soil": ["s1", "s2"]}
    one_hot = {"region": ["region_east", "region_north"]}
    out = expand_user_groups(table, one_hot, user)
    assert out["feature"].tolist() == ["x", "region", "elev", "s1", "s2"]
    assert out["mr_difference"].tolist() == [0.5, 2.0, 2.0, 1.0, 1.0]
    assert list(out.columns) == list(table.columns)
    assert expand_user_groups(table, one_hot, {}) is table


def test_resolve_user_groups_directly():
    out = resolve_user_groups(
        {"g": ["c", "a"]}, dataset="d", features=["a", "b", "c"], one_hot={}, dropped=[], target="y"
    )
    assert out == {"g": ["a", "c"]}
