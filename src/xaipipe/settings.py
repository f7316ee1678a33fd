"""Settings of the study steps, built and checked from the configuration in one place.

The workflow validates the configuration against its schema (``workflow/schemas/``: types,
ranges, defaults); what a schema cannot say -- one key against another, a family name against the
registry -- is checked here, with an error that names the config key and the fix. Each step's
settings are a frozen dataclass with ``from_config(config, task)`` (build and check) and
``to_params()`` (the plain, JSON-like dict a rule passes as ``params:``, which Snakemake's
``params`` rerun trigger compares). A new key of a step touches the schema, ``config/config.yaml``,
``config/README.md`` and the settings class.

Settings here: :class:`RashomonSettings` (rules ``rashomon``, ``rashomon_refit``,
``rashomon_bootstrap_shard``, ``abalone_study_mcr``); :class:`LargeDataSettings` (the large-data
policies of section ``large_data``: which apply to a dataset of ``n`` test rows, and the rows they
use). :func:`check_family` is the registry check of a config key naming a model family.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["LARGE_DATA_POLICIES", "LargeDataSettings", "RashomonSettings", "check_family"]

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


#: The large-data policies: name -> (config key under ``large_data``, what is subsampled, the
#: Monte-Carlo error reported where it applies). Order of the ``large_data.csv`` table.
LARGE_DATA_POLICIES: dict[str, tuple[str, str, str]] = {
    "reliance": (
        "reliance_rows",
        "test rows of each repeat of permutation / e_divide / grouped_permutation MR (rule model_reliance)",
        "model_reliance.csv: mr_*_se over the repeats, each on a fresh subsample (subsample + permutation error); "
        "e_switch rows: mr_*_se of their e_switch_max_rows subsample",
    ),
    "shap": (
        "shap_rows",
        "test rows explained by SHAP, every family (rule shap)",
        "shap_importance.csv: mean_abs_shap_se, mean_shap_se (sampling SE with finite-population correction)",
    ),
    "pd": (
        "pd_rows",
        "test rows averaged by the PD / ICE curves and the 2-D PD (rule pd_ice) and by the PD beside the ALE (rule ale)",
        "pd_ice.csv: rows of kind pd_se, the SE of the PD at each grid point; ale.csv: columns pd_se, pd_rows "
        "(finite-population correction)",
    ),
}


@dataclass(frozen=True)
class LargeDataSettings:
    """The large-data policies (config section ``large_data``; ``docs/performance.md``).

    Each policy replaces work that grows with the number of test rows ``n`` by the same estimate on a
    seeded random subsample of rows, and reports the Monte-Carlo error that adds. It applies to a
    dataset whose *test split* has more than ``min_rows`` rows (the rows the explanations run on) and
    whose own key is not null; at or below ``min_rows`` nothing changes (the thesis datasets have at
    most 1 300 test rows).

    Attributes
    ----------
    min_rows : int
        ``large_data.min_rows``: the policies apply when ``n > min_rows``.
    reliance_rows : int or None
        ``large_data.reliance_rows``: rows of each repeat of ``permutation`` / ``e_divide`` MR
        (:func:`xaipipe.explain.reliance.model_reliance`, ``subsample_rows=``); None: off.
    shap_rows : int or None
        ``large_data.shap_rows``: test rows explained by SHAP, every family
        (:func:`xaipipe.explain.shapley.shap_tables`, ``large_data_rows=``); None: off.
    pd_rows : int or None
        ``large_data.pd_rows``: test rows averaged by the PD / ICE / 2-D PD of the ``pd_ice`` rule
        (:func:`xaipipe.explain.pdp.pd_ice_tables`, ``large_data_rows=``) and by the PD beside the
        ALE of the ``ale`` rule (:func:`xaipipe.explain.dependence.ale_tables`); None: off.
    """

    min_rows: int
    reliance_rows: int | None
    shap_rows: int | None
    pd_rows: int | None

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> LargeDataSettings:
        """Build and check the settings from a schema-validated configuration.

        Checks: every policy's rows are at most ``large_data.min_rows`` (else a dataset just above
        the threshold would not be subsampled although the policy is said to apply).

        Raises
        ------
        ValueError
            Naming the config key, its value and the fix.
        KeyError
            ``large_data`` or one of its keys is missing (an unvalidated config).
        """
        section = config["large_data"]
        min_rows = int(section["min_rows"])
        values = {}
        for key, _what, _error in LARGE_DATA_POLICIES.values():
            rows = section[key]
            if rows is not None and int(rows) > min_rows:
                raise ValueError(
                    f"config key large_data.{key} ({rows}) must be at most large_data.min_rows ({min_rows}): "
                    f"lower large_data.{key}, raise large_data.min_rows, or set large_data.{key}: null to switch "
                    "the policy off"
                )
            values[key] = None if rows is None else int(rows)
        return cls(min_rows=min_rows, **values)

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> LargeDataSettings:
        """The settings back from :meth:`to_params` (a rule's ``params.large_data`` in its script)."""
        return cls(**dict(params))

    def to_params(self) -> dict[str, Any]:
        """The rule's ``params.large_data``: ``min_rows`` and one key per policy (plain ints / None)."""
        return {"min_rows": self.min_rows, **{key: getattr(self, key) for key, _, _ in LARGE_DATA_POLICIES.values()}}

    def applies(self, n_rows: int) -> bool:
        """True where the dataset is large: ``n_rows > min_rows`` (``n_rows``: its test rows)."""
        return int(n_rows) > self.min_rows

    def rows(self, policy: str, n_rows: int) -> int | None:
        """Rows the policy ``policy`` uses on a dataset of ``n_rows`` test rows; None: it does not apply.

        Raises
        ------
        ValueError
            ``policy`` is not one of :data:`LARGE_DATA_POLICIES`.
        """
        if policy not in LARGE_DATA_POLICIES:
            raise ValueError(f"unknown large-data policy {policy!r}; choose one of {list(LARGE_DATA_POLICIES)}")
        cap = getattr(self, LARGE_DATA_POLICIES[policy][0])
        if cap is None or not self.applies(n_rows):
            return None
        return cap

    def table(self, dataset: str, n_rows: int):
        """``explain/<dataset>/large_data.csv`` (rule ``large_data``): ``dataset`` then
        :meth:`table_rows`, one row per policy (a pandas DataFrame)."""
        import pandas as pd

        frame = pd.DataFrame(self.table_rows(n_rows))
        frame.insert(0, "dataset", dataset)
        return frame

    def table_rows(self, n_rows: int) -> list[dict[str, Any]]:
        """One row per policy for ``large_data.csv``: ``policy``, ``config_key``, ``min_rows``,
        ``n_rows`` (test rows), ``applied``, ``rows_used`` (``n_rows`` where not applied), ``work``
        (what is subsampled) and ``error_reported`` (where the Monte-Carlo error appears)."""
        out = []
        for name, (key, what, error) in LARGE_DATA_POLICIES.items():
            used = self.rows(name, n_rows)
            out.append(
                {
                    "policy": name,
                    "config_key": f"large_data.{key}",
                    "min_rows": self.min_rows,
                    "cap": getattr(self, key),
                    "n_rows": int(n_rows),
                    "applied": used is not None,
                    "rows_used": int(n_rows) if used is None else used,
                    "work": what,
                    "error_reported": error if used is not None else "",
                }
            )
        return out
