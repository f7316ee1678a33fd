"""Settings of the study steps, built and checked from the configuration in one place.

The workflow validates the configuration against its schema (``workflow/schemas/``: types,
ranges, defaults); what a schema cannot say -- one key against another, a family name against the
registry -- is checked here, with an error that names the config key and the fix. Each step's
settings are a frozen dataclass with ``from_config(config, task)`` (build and check) and
``to_params()`` (the plain, JSON-like dict a rule passes as ``params:``, which Snakemake's
``params`` rerun trigger compares). A new key of a step touches the schema, ``config/config.yaml``,
``config/README.md`` and the settings class.

Settings here: :class:`RashomonSettings` (rules ``rashomon``, ``rashomon_refit``,
``rashomon_bootstrap_shard``, ``abalone_study_mcr``). :func:`check_family` is the registry check
of a config key naming a model family.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["RashomonSettings", "check_family"]

#: Keys of the ``rashomon`` section that are not settings of the Rashomon step itself (the model
#: class, figures, sampling, split jobs, predictive multiplicity, the bootstrap and the Abalone
#: study have their own rules and keys).
_NOT_STEP_KEYS = ("bootstrap", "abalone_study", "families", "figure_quantity", "sample", "refit_jobs", "multiplicity")


def check_family(key: str, family: str, task: str | None = None) -> None:
    """A config key naming a model family: registered (and supporting ``task``), else a clear error.

    Raises
    ------
    ValueError
        Naming ``key``, the family and the registered families (or the tasks it supports).
    """
    from .models.families import FAMILIES, get_family

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


@dataclass(frozen=True)
class RashomonSettings:
    """Settings of the Rashomon step of one task (``config["rashomon"]`` and the keys it borrows).

    Attributes
    ----------
    task : {"regression", "classification"}
    metric : str
        CV loss that defines the sets (``selection.<task>``).
    seed : int
        ``seed``: estimators' ``random_state`` and the permutation seed.
    options : mapping
        ``estimator_options`` (family -> keyword arguments).
    loss : str
        MR loss: the first of ``explain.reliance.losses.<task>``.
    epsilon_mode, epsilon, epsilons, scopes, estimators, n_repeats, e_switch_max_rows, figure_scope, pd
        The keys of the ``rashomon`` section of those names (``config/README.md``).
    """

    task: str
    metric: str
    seed: int
    options: Mapping[str, Any]
    loss: str
    epsilon_mode: str
    epsilon: float
    epsilons: tuple[float, ...]
    scopes: tuple[str, ...]
    estimators: tuple[str, ...]
    n_repeats: int
    e_switch_max_rows: int | None
    figure_scope: str
    pd: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_config(cls, config: Mapping[str, Any], task: str) -> RashomonSettings:
        """Build and check the settings of ``task`` from a schema-validated configuration.

        Checks (each error names the config key): ``rashomon.epsilon`` is one of
        ``rashomon.epsilons``; the families of ``rashomon.refit_jobs``,
        ``rashomon.bootstrap.families`` and ``rashomon.sample.families.<task>`` are registered
        (the latter support their task); ``task`` is a task.

        Raises
        ------
        ValueError
            A check above fails.
        KeyError
            A key the schema's defaults always provide is missing (an unvalidated config).
        """
        if task not in ("regression", "classification"):
            raise ValueError(f"task must be 'regression' or 'classification', got {task!r}")
        r = config["rashomon"]
        if r["epsilon"] not in r["epsilons"]:
            raise ValueError(
                f"config key rashomon.epsilon ({r['epsilon']}) must be one of rashomon.epsilons {r['epsilons']}"
            )
        for family in r.get("refit_jobs", []):
            check_family("rashomon.refit_jobs", family)
        for family in r.get("bootstrap", {}).get("families", []):
            check_family("rashomon.bootstrap.families", family)
        for _task, specs in r.get("sample", {}).get("families", {}).items():
            for family in specs:
                check_family(f"rashomon.sample.families.{_task}.{family}", family, _task)
        return cls(
            task=task,
            metric=config["selection"][task],
            seed=config["seed"],
            options=config["estimator_options"],
            loss=config["explain"]["reliance"]["losses"][task][0],
            epsilon_mode=r["epsilon_mode"],
            epsilon=r["epsilon"],
            epsilons=tuple(r["epsilons"]),
            scopes=tuple(r["scopes"]),
            estimators=tuple(r["estimators"]),
            n_repeats=r["n_repeats"],
            e_switch_max_rows=r["e_switch_max_rows"],
            figure_scope=r["figure_scope"],
            pd=dict(r["pd"]),
        )

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> RashomonSettings:
        """The settings back from :meth:`to_params` (a rule's ``params.rashomon`` in its script)."""
        p = dict(params)
        for key in ("epsilons", "scopes", "estimators"):
            p[key] = tuple(p[key])
        return cls(**p)

    def to_params(self) -> dict[str, Any]:
        """The rule's ``params.rashomon``: a plain dict (lists, not tuples), the keys of today's
        rules (``task``, ``metric``, ``seed``, ``options``, ``loss``, then the ``rashomon`` keys)."""
        return {
            "task": self.task,
            "metric": self.metric,
            "seed": self.seed,
            "options": self.options,
            "loss": self.loss,
            "epsilon_mode": self.epsilon_mode,
            "epsilon": self.epsilon,
            "epsilons": list(self.epsilons),
            "scopes": list(self.scopes),
            "estimators": list(self.estimators),
            "n_repeats": self.n_repeats,
            "e_switch_max_rows": self.e_switch_max_rows,
            "figure_scope": self.figure_scope,
            "pd": dict(self.pd),
        }
