"""Every settings class of xaipipe.config: the constructor's defaults are the schema's, every key of a
step's config section is a field (or a documented key of the jobs / other rules), one
``to_params()`` / ``from_params(params)`` pair for all, and the package is a leaf."""

from __future__ import annotations

import dataclasses
import inspect

import pytest
import yaml

import xaipipe.config as config_package
from tests.config.conftest import SCHEMA
from tests.conftest import REPO
from xaipipe.config import (
    AleSettings,
    BootstrapSettings,
    CorrelatedSettings,
    CoverageSettings,
    CVSettings,
    HStatisticSettings,
    LargeDataSettings,
    LearnerEffectsSettings,
    LearnerSettings,
    LimeSettings,
    MemberEffectsSettings,
    PdIceSettings,
    PredictionIntervalSettings,
    RashomonSettings,
    RegionalSettings,
    RelianceSettings,
    SageSettings,
    ShapSettings,
    TreeFarmsSettings,
    TwinImportanceSettings,
    TwinSettings,
)
from xaipipe.config._base import Settings, plain
from xaipipe.schema import validate_config

CLASSES = [getattr(config_package, name) for name in config_package.__all__ if name.endswith("Settings")]
#: how each class is built from a configuration: the arguments after ``config`` (task, family)
BUILD = {
    CVSettings: ("task", "family"),
    RashomonSettings: ("task",),
    BootstrapSettings: ("task",),
    MemberEffectsSettings: ("task",),
    PredictionIntervalSettings: ("task",),
    RegionalSettings: (),
    TreeFarmsSettings: ("task",),
    LargeDataSettings: (),
    ShapSettings: ("family",),
    RelianceSettings: ("task",),
    PdIceSettings: ("task",),
    AleSettings: ("task",),
    HStatisticSettings: ("task", "family"),
    LimeSettings: (),
    LearnerSettings: ("task", "family"),
    LearnerEffectsSettings: (),
    SageSettings: (),
    CoverageSettings: (),
    CorrelatedSettings: (),
    TwinSettings: ("task",),
    TwinImportanceSettings: ("task",),
}
FAMILY = {"regression": "linear_regression", "classification": "logistic_regression"}


def _construct(cls, task: str):
    """The class's constructor with the task and family of :data:`BUILD` only (a bootstrap's task is
    its Rashomon settings')."""
    ids = {"task": task, "family": FAMILY[task]}
    if cls in (BootstrapSettings, MemberEffectsSettings, PredictionIntervalSettings, TreeFarmsSettings):
        return cls(rashomon=RashomonSettings(task=task))
    return cls(**{name: ids[name] for name in BUILD[cls]})


#: fields whose config key holds for one task only (the other task's value is not a config key)
ONE_TASK = {(CVSettings, "beta"): "classification", (AleSettings, "output"): "classification"}
ONE_TASK[(HStatisticSettings, "output")] = "classification"
#: fields built from several keys (a section with the keys of another filled in): checked whole below
COMPOSITE = {(CoverageSettings, "learner_config"), (CoverageSettings, "rashomon_config"), (LearnerSettings, "effects")}
COMPOSITE |= {
    (TwinSettings, "learner"),
    (TwinSettings, "mcr"),
    (TwinSettings, "losses"),
    (TwinSettings, "learner_families"),
    (TwinSettings, "comparison"),
    (TwinImportanceSettings, "sage"),
    (TwinImportanceSettings, "h2"),
}


@pytest.fixture(scope="module")
def schema_defaults():
    """A configuration of the schema's defaults only (one grid per task, no dataset)."""
    config = {"datasets": {"airfoil": {}}, "grids": {task: {family: {}} for task, family in FAMILY.items()}}
    return validate_config(config, SCHEMA) or config


def _lookup(config, key: str):
    """The value of a dotted config key (``[0]``: the list's first item); KeyError where absent."""
    first = key.endswith("[0]")
    value = config
    for part in key.removesuffix("[0]").split("."):
        value = value[part]
    return value[0] if first else value


def test_every_settings_class_is_known_here():
    assert sorted(c.__name__ for c in CLASSES) == sorted(c.__name__ for c in BUILD)
    assert all(issubclass(c, Settings) and dataclasses.is_dataclass(c) for c in CLASSES)


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
@pytest.mark.parametrize("task", ["regression", "classification"])
def test_the_constructor_s_defaults_are_the_schema_s(schema_defaults, cls, task):
    """``Cls(task=..., family=...)`` (every other field its default) equals ``Cls.from_config`` of
    a configuration of the schema's defaults: ``RashomonSettings(epsilon=0.5)`` is the schema's
    Rashomon step with one key changed, like a scikit-learn constructor."""
    ids = {"task": task, "family": FAMILY[task]}
    built = cls.from_config(schema_defaults, *[ids[name] for name in BUILD[cls]])
    assert _construct(cls, task) == built
    assert cls.from_params(built.to_params()) == built


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_each_field_s_default_is_the_default_of_its_config_key(schema_defaults, cls):
    """Field by field: ``SECTION.<field>`` or the key ``KEYS`` names (``{task}``, ``{family}``: the
    instance's; ``[0]``: the first item) holds the field's default in the schema."""
    checked = 0
    for task in ("regression", "classification"):
        instance = _construct(cls, task)
        for f in dataclasses.fields(cls):
            key = cls.KEYS.get(f.name, f"{cls.SECTION}.{f.name}")
            if key is None or (cls, f.name) in COMPOSITE or ONE_TASK.get((cls, f.name), task) != task:
                continue
            key = key.format(task=getattr(instance, "task", task), family=getattr(instance, "family", None))
            value = getattr(instance, f.name)
            try:
                expected = _lookup(schema_defaults, key)
            except KeyError:  # a family's own key (grid, sample, options, algorithm) absent: no value
                assert "{family}" in cls.KEYS[f.name], key
                assert value in (None, {}, f.default), (cls.__name__, f.name, value)
                continue
            if isinstance(value, Settings):  # nested: its fields that are keys of the section
                value = {k: v for k, v in value.to_params().items() if k in expected}
                expected = {k: expected[k] for k in value}
            assert plain(value) == expected, (cls.__name__, f.name, key)
            checked += 1
    assert checked >= 2


def _schema_section(dotted: str) -> dict:
    node = yaml.safe_load(SCHEMA.read_text())
    for part in dotted.split("."):
        node = node["properties"][part]
    return node["properties"]


@pytest.mark.parametrize("cls", [c for c in CLASSES if c.SECTION], ids=lambda c: c.__name__)
def test_every_key_of_a_step_s_section_is_a_field_or_a_job_key(cls):
    """A step's config section is split without remainder: each key is a field of the settings (read
    by its name, or through ``KEYS``) or one of the class's ``JOB_KEYS`` (keys that choose jobs or
    belong to other rules); so a new key of the step is one field, the schema, config/config.yaml
    and config/README.md."""
    section = _schema_section(cls.SECTION)
    names = {f.name for f in dataclasses.fields(cls)}
    by_name = [name for name in cls.section_fields()]
    through_keys = {
        key.removeprefix(cls.SECTION + ".").split(".")[0].removesuffix("[0]")
        for key in cls.KEYS.values()
        if key and key.startswith(cls.SECTION + ".")
    }
    assert set(by_name) <= set(section), f"{cls.__name__}: fields that are no key of {cls.SECTION}"
    assert sorted(set(by_name) | through_keys | set(cls.JOB_KEYS)) == sorted(section)
    assert not set(cls.JOB_KEYS) & names
    assert all("default" in section[key] for key in by_name)
    readme = (REPO / "config" / "README.md").read_text()
    missing = [key for key in by_name if f"{cls.SECTION}.{key}" not in readme and f"`{key}`" not in readme]
    assert not missing, f"config/README.md does not name {cls.SECTION} keys {missing}"


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_one_params_pair_with_the_same_signature_for_every_class(cls):
    assert list(inspect.signature(cls.from_params).parameters) == ["params"]
    assert list(inspect.signature(cls.to_params).parameters) == ["self"]
    assert list(inspect.signature(cls.from_config).parameters)[0] == "config"
    assert cls.from_params.__func__ is Settings.from_params.__func__  # one implementation
    assert cls.to_params is Settings.to_params


def test_a_scikit_learn_like_constructor():
    s = RashomonSettings(epsilon=0.5)
    assert s.epsilon == 0.5 and s.metric == "rmse" and s.loss == "squared_error" and s.epsilons == (0.0, 0.5, 1.0, 2.0)
    c = RashomonSettings(task="classification")
    assert (c.metric, c.loss) == ("log_loss", "log_loss")
    assert RelianceSettings(n_repeats=3).losses == ("squared_error",)
    assert RelianceSettings(task="classification").losses == ("log_loss", "zero_one")
    assert CVSettings(task="classification").beta == 2.0 and CVSettings().beta is None
    assert BootstrapSettings(n_bootstrap=3).rashomon == RashomonSettings()
