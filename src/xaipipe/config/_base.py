"""What every settings class shares: the params round trip, the value conversions and the checks.

Each settings class is a frozen dataclass with :class:`Settings` as a base: every field has the
default of the config key it reads (``workflow/schemas/config.schema.yaml``; ``tests/config``
checks they agree), ``to_params()`` is the plain, JSON-like dict a rule passes as its one
``settings`` param (lists, not tuples; a nested settings class as a nested dict), and
``from_params(params)`` rebuilds the object from it in the rule's script. ``SECTION`` names the
config section whose keys are fields of the same name; ``KEYS`` names the config key of every other
field (``{task}`` and ``{family}`` stand for the field's value; None: not a config key);
``JOB_KEYS`` lists the keys of ``SECTION`` that choose jobs or belong to other rules, not fields.

This module imports the families registry and nothing else of the package: the settings are a leaf
of the import graph (``tests/test_imports.py``), so a rule's code hash
(:mod:`xaipipe.report.code_version`) does not follow a settings class into the steps.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields
from typing import Any, ClassVar

from ..models.families import FAMILIES, get_family

__all__ = [
    "TASKS",
    "Settings",
    "check_family",
    "check_int",
    "check_percentiles",
    "check_task",
    "first_loss",
    "frozen",
    "plain",
]

TASKS = ("regression", "classification")

# -- schema defaults of the keys that several settings classes read (workflow/schemas/config.schema.yaml) --
#: ``seed``
SEED = 20250223
#: ``selection.<task>``: the CV loss that picks the best configuration and defines the Rashomon sets.
SELECTION = {"regression": "rmse", "classification": "log_loss"}
#: ``explain.reliance.losses.<task>``: the MR losses; the first ranks the variables.
LOSSES = {"regression": ("squared_error",), "classification": ("log_loss", "zero_one")}
#: ``explain.reliance.ranking``: the MR that ranks the variables of the PD / ICE, ALE, H² and learner steps.
RANKING = {"estimator": "permutation", "quantity": "mr_difference"}
#: ``explain.reliance.dependent``: the MR estimators under dependent features and their options.
DEPENDENT = {
    "estimators": ["conditional_permutation", "grouped_permutation"],
    "max_depth": 5,
    "min_samples_leaf": 0.02,
    "correlation_threshold": 0.9,
    "linkage": "single",
}


def first_loss(task: str) -> str:
    """The default MR loss of ``task``: the first of ``explain.reliance.losses.<task>``'s default."""
    return LOSSES[task][0]


def _convert(value: Any, sequence: type, to: type) -> Any:
    """``value`` with a ``sequence`` turned into ``to`` and a mapping copied into a dict."""
    if isinstance(value, sequence):
        return to(value)
    if isinstance(value, Mapping):
        return dict(value)
    return value


def frozen(value: Any) -> Any:
    """A config value as a settings field: lists as tuples, mappings copied."""
    return _convert(value, list, tuple)


def plain(value: Any) -> Any:
    """A settings field as a rule parameter: tuples as lists, mappings copied, settings as dicts."""
    if isinstance(value, Settings):
        return value.to_params()
    return _convert(value, tuple, list)


def check_task(task: str) -> None:
    """``task`` is ``"regression"`` or ``"classification"``, else a ``ValueError``."""
    if task not in TASKS:
        raise ValueError(f"task must be 'regression' or 'classification', got {task!r}")


def check_family(key: str, family: str, task: str | None = None) -> None:
    """A config key naming a model family: registered (and supporting ``task``), else a clear error.

    Raises
    ------
    ValueError
        Naming ``key``, the family and the registered families (or the tasks it supports).
    """
    if family not in FAMILIES:
        raise ValueError(
            f"config key {key}: unknown model family {family!r}; registered families: {sorted(FAMILIES)} "
            "(add one in src/xaipipe/models/families.py or in the config section `families`)"
        )
    if task is not None and task not in get_family(family).tasks:
        raise ValueError(
            f"config key {key}: model family {family!r} does not support {task} "
            f"(it supports {sorted(get_family(family).tasks)})"
        )


def check_int(key: str, value: Any, minimum: int, *, null: bool = False) -> None:
    """A config value that must be an integer of at least ``minimum`` (or None where ``null``);
    else a ``ValueError`` naming ``key`` (the schema's check, repeated for settings built without
    it, e.g. in a notebook)."""
    if value is None and null:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(
            f"config key {key} ({value!r}) must be an integer of at least {minimum}" + (" or null" if null else "")
        )


def check_percentiles(key: str, percentiles: Any) -> None:
    """A PD grid's percentile range ``[lo, hi]`` with ``lo < hi``, else a ``ValueError`` naming ``key``."""
    lo, hi = (float(v) for v in percentiles)
    if not lo < hi:
        raise ValueError(
            f"config key {key} ({list(percentiles)}): the first must be below the second (the PD grid's range, "
            "e.g. [0.0, 1.0] or [0.05, 0.95])"
        )


class Settings:
    """Base of the settings classes: one ``to_params()`` / ``from_params(params)`` pair for all.

    Class attributes (read by the round trip and by ``tests/config``):

    ``SECTION``
        The config section (dotted) whose keys are the fields of the same name.
    ``KEYS``
        Field -> the config key it reads where that is not ``SECTION.<field>`` (``{task}`` /
        ``{family}``: the field's value; ``[0]``: the list's first item); None: not a config key.
    ``JOB_KEYS``
        Keys of ``SECTION`` that are no field: they choose the jobs or belong to other rules.
    ``NESTED``
        Field -> the settings class of its value (None allowed), passed as a nested dict.
    """

    SECTION: ClassVar[str] = ""
    KEYS: ClassVar[Mapping[str, str | None]] = {}
    JOB_KEYS: ClassVar[tuple[str, ...]] = ()
    NESTED: ClassVar[Mapping[str, type]] = {}

    def to_params(self) -> dict[str, Any]:
        """The rule's ``settings`` param: every field in order, as plain JSON-like values (lists, not
        tuples; a nested settings object as its own ``to_params()``), so that Snakemake's
        ``params`` rerun trigger compares values, not objects."""
        return {f.name: plain(getattr(self, f.name)) for f in fields(self)}

    @classmethod
    def from_params(cls, params: Mapping[str, Any]):
        """The settings back from :meth:`to_params` (the rule's ``params.settings`` in its script;
        a missing field takes its default).

        Raises
        ------
        ValueError
            ``params`` holds a key that is no field, or a value the class's checks reject.
        """
        names = [f.name for f in fields(cls)]
        unknown = [key for key in params if key not in names]
        if unknown:
            raise ValueError(f"{cls.__name__}.from_params: unknown field(s) {unknown}; fields: {names}")
        values = {}
        for key, value in params.items():
            nested = cls.NESTED.get(key)
            values[key] = nested.from_params(value) if nested is not None and value is not None else frozen(value)
        return cls(**values)

    @classmethod
    def section_fields(cls) -> list[str]:
        """The fields read as ``SECTION.<field>`` (every field not in ``KEYS``)."""
        return [f.name for f in fields(cls) if f.name not in cls.KEYS]

    def _resolve_task_loss(self) -> None:
        """Check ``task`` (:func:`check_task`) and, where ``loss`` is None, set it to the task's
        first MR loss (``explain.reliance.losses.<task>[0]``'s default)."""
        check_task(self.task)
        if self.loss is None:
            self._resolve(loss=first_loss(self.task))

    def _resolve(self, **values: Any) -> None:
        """Set fields of a frozen instance in ``__post_init__`` (defaults that depend on ``task``)."""
        for key, value in values.items():
            object.__setattr__(self, key, value)
