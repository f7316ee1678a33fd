"""Schema checks of the configuration and the registry: one line per problem, defaults as Snakemake's."""

from __future__ import annotations

import copy
import json

import pytest
import yaml

from tests.conftest import REPO
from xaipipe.data.registry import RegistryError, load_registry
from xaipipe.schema import SchemaError, did_you_mean, schema_problems, validate_config

CONFIG_SCHEMA = REPO / "workflow" / "schemas" / "config.schema.yaml"
REGISTRY_SCHEMA = REPO / "workflow" / "schemas" / "datasets.schema.yaml"


def merged(*names: str) -> dict:
    """Config files merged as Snakemake merges --configfile files."""
    from snakemake.utils import update_config

    out: dict = {}
    for name in names:
        update_config(out, yaml.safe_load((REPO / name).read_text()))
    return out


@pytest.mark.parametrize(
    "files",
    [
        ("config/config.yaml",),
        ("config/config.yaml", "tests/configs/small.yaml"),
        ("config/config.yaml", "tests/configs/small.yaml", "tests/configs/tiny.yaml"),
        ("config/config.yaml", "tests/configs/coverage_tiny.yaml"),
    ],
)
def test_defaults_are_those_of_snakemake_validate(files):
    """The resolved configuration (and its key order, which the manifest records) is exactly the one
    snakemake.utils.validate gives."""
    from snakemake.utils import validate

    ours, theirs = merged(*files), merged(*files)
    del theirs["split"]  # a default filled in only from the schema: {} -> {test_size, cv_folds}
    del ours["split"]
    validate(theirs, str(CONFIG_SCHEMA))
    assert validate_config(ours, CONFIG_SCHEMA) is ours
    assert json.dumps(ours) == json.dumps(theirs)
    assert ours["split"] == {"test_size": 0.2, "cv_folds": 5}


def test_key_typo_is_one_line_with_a_suggestion():
    config = merged("config/config.yaml")
    config["datasets"]["mine"] = {"source": {"kind": "file", "path": "a.csv"}, "task": "regression", "targte": "y"}
    with pytest.raises(SchemaError) as info:
        validate_config(config, CONFIG_SCHEMA)
    assert str(info.value) == "datasets.mine: unknown key 'targte' (did you mean 'target'?)"
    assert info.value.problems == [str(info.value)]


def test_every_problem_gets_its_own_short_line():
    config = merged("config/config.yaml", "tests/configs/small.yaml")
    config["verson"] = "x"
    config["split"]["cv_folds"] = 1
    config["threads"]["cv"] = "many"
    config["datasets"]["airfoil"]["missing"] = "imputee"
    config["grids"]["regression"]["random_forest"]["n_estimators"] = []
    with pytest.raises(SchemaError) as info:
        validate_config(config, CONFIG_SCHEMA)
    lines = str(info.value).splitlines()
    assert lines == [
        "config: unknown key 'verson' (did you mean 'version'?)",
        "datasets.airfoil.missing: 'imputee' is not one of ['error', 'drop_rows', 'impute'] (did you mean 'impute'?)",
        "grids.regression.random_forest.n_estimators: must have at least 1 item(s), got []",
        "split.cv_folds: 1 is less than the minimum of 2",
        "threads.cv: expected an integer, got 'many'",
    ]
    # the jsonschema report (schema fragments, the instance) only on request
    with pytest.raises(SchemaError) as verbose:
        validate_config(merged("config/config.yaml") | {"verson": "x"}, CONFIG_SCHEMA, verbose=True)
    assert "Failed validating 'additionalProperties'" in str(verbose.value)
    assert "Failed validating" not in str(info.value)


def test_registry_entries_use_the_same_lines():
    registry = REPO / "config" / "datasets.yaml"
    base = {"task": "regression", "target": "y"}
    cases = {
        "datasets.mine.source: give 'path' or 'url' and 'sha256' (one alternative only)": {"kind": "file"},
        "datasets.mine.source: unknown key 'pth' (did you mean 'path'?)": {"kind": "file", "path": "a", "pth": "b"},
        "datasets.mine.source.kind: 'files' is not one of ['uci', 'sklearn', 'file', 'openml', 'simulated'] "
        "(did you mean 'file'?)": {"kind": "files", "path": "a"},
    }
    for line, source in cases.items():
        with pytest.raises(RegistryError) as info:
            load_registry(registry, {"mine": {**base, "source": source}}, schema=REGISTRY_SCHEMA)
        message = str(info.value)
        if "kind" in line and "not one of" in line:  # the source kind is checked before the schema
            assert "unknown source kind 'files'" in message
            continue
        assert message == f"dataset 'mine' (config key datasets.mine): {line}", message
    # and a schema document checked without defaults: the registry file itself is valid
    problems, _ = schema_problems(yaml.safe_load(registry.read_text()), yaml.safe_load(REGISTRY_SCHEMA.read_text()))
    assert problems == []


def test_did_you_mean():
    assert did_you_mean("targte", ["task", "target"]) == " (did you mean 'target'?)"
    assert did_you_mean("zzz", ["task", "target"]) == ""


def test_defaults_are_not_shared_between_calls():
    a, b = {"datasets": {"x": {}}}, {"datasets": {"x": {}}}
    schema = yaml.safe_load(CONFIG_SCHEMA.read_text())
    frozen = copy.deepcopy(schema)
    for config in (a, b):
        with pytest.raises(SchemaError):  # grids etc. are required: still, defaults were filled
            validate_config(config, schema)
    a["download"]["timeout_s"] = -1
    assert b["download"]["timeout_s"] == 60 and schema == frozen
