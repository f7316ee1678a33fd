"""Settings of the coverage audit on the twins (config section ``twins``; rules ``twin``,
``twin_truth``, ``twin_shard``, ``twin_coverage``): :class:`TwinSettings`."""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ._base import LOSSES, RANKING, SEED, SELECTION, Settings, check_family, check_int, check_task
from .dependence import HStatisticSettings
from .sage import SageSettings

__all__ = [
    "TWIN_LEARNER",
    "TWIN_MCR",
    "TWIN_TRUTH",
    "F_STAR_CHOICES",
    "TwinImportanceSettings",
    "TwinSettings",
    "default_mcr",
]

#: ``twins.f_star`` values besides a family name (``xaipipe.studies.twin.F_STAR_KINDS``).
F_STAR_CHOICES = ("reference", "linear", "dgp")
#: ``twins.learner``' defaults besides ``families`` (null keys take ``explain.learner``'s values).
TWIN_LEARNER: dict[str, Any] = {
    # explain.learner's defaults (the schema's): null twins.learner keys take explain.learner's values
    "n_refits": 10,
    "fraction": 0.632,
    "pfi_estimator": "permutation",
    "n_repeats": 5,
    "resolution": 10,
    "ale_bins": 10,
    "effects": ["shap", "ale"],
    "shap_max_rows": 200,
    "truth_fits": 100,
    "truth_eval_rows": 2000,
    "params": {},
}
#: ``twins.mcr``' defaults: the model class of each task (a CV grid per family) and the ε rule.
TWIN_MCR: dict[str, Any] = {
    "enabled": True,
    "families": {
        "regression": {
            "linear_regression": {},
            "decision_tree": {"max_depth": [3, 5, 8], "min_samples_leaf": [1, 5, 20]},
            "gradient_boosting": {"n_estimators": [50, 100, 150], "learning_rate": [0.1], "max_depth": [2, 3]},
        },
        "classification": {
            "logistic_regression": {"C": [0.01, 0.1, 1.0, 10.0]},
            "decision_tree": {"max_depth": [3, 5, 8], "min_samples_leaf": [1, 5, 20]},
            "gradient_boosting": {"n_estimators": [50, 100, 150], "learning_rate": [0.1], "max_depth": [2, 3]},
        },
    },
    # rashomon's defaults (the schema's): null twins.mcr keys take rashomon's values
    "epsilon_mode": "se",
    "epsilons": [0.0, 0.5, 1.0, 2.0],
    "scopes": ["family", "cross_family", "linear_exact"],
    "estimator": "permutation",
    "n_repeats": 20,
    "population_rows": 2000,
}
#: ``twins.truth``' defaults: the Monte-Carlo size of f*'s MR and SHAP truths.
TWIN_TRUTH: dict[str, Any] = {"max_pairs": 250_000, "shap_max_rows": 2000}


def default_mcr(task: str) -> dict[str, Any]:
    """``twins.mcr`` of the schema's defaults for ``task``: its model class, the ε rule, the metric."""
    out = {k: copy.deepcopy(v) for k, v in TWIN_MCR.items() if k != "enabled"}
    out["families"] = copy.deepcopy(TWIN_MCR["families"][task])
    out["metric"] = SELECTION[task]
    return out


@dataclass(frozen=True)
class TwinSettings(Settings):
    """Settings of one dataset's twin audit (``config["twins"]`` with the study's keys it reuses).

    Attributes
    ----------
    task : str
        The dataset's task.
    f_star : str, default "reference"
        ``twins.f_star``: the planted function (``reference``: the cross-family set's reference
        model; a family: its chosen configuration; ``linear``: OLS / logistic regression; ``dgp``: a
        simulated table's DGP, with ``dgp``).
    dgp : mapping or None
        A simulated table's source (``dgp``, ``noise_sd``): the ``dgp`` f*; None otherwise.
    n_repetitions : int, default 100
        ``twins.n_repetitions``: replicates R.
    max_estimators : int or None, default 100
        ``twins.max_estimators``: f*'s and the audited configurations' ``n_estimators`` at most this (cost).
    nominal : tuple of float
        ``twins.nominal``: levels of the coverage table.
    sanity : bool, default True
        ``twins.sanity``: the OLS / logit coefficient rows on the linear twin.
    learner : mapping
        ``twins.learner`` without ``families``, with ``explain.learner``'s ``n_refits``,
        ``fraction``, ``pfi_estimator``, ``n_repeats`` where null.
    learner_families : tuple of str
        ``twins.learner.families``, or ``explain.learner.families`` where null.
    mcr : mapping or False
        ``twins.mcr`` with the task's model class only (``families``: ``twins.mcr.families.<task>``; ``metric`` the task's ``selection``; ``epsilon_mode`` / ``epsilons`` from
        ``rashomon`` where null; default :func:`default_mcr` of the task); False when ``twins.mcr.enabled`` is false.
    truth : mapping
        ``twins.truth``.
    test_size, cv_folds, seed, options, top_k, grid_kind, percentiles, ranking, estimators, losses,
    n_repeats, e_switch_max_rows, comparison
        The study's keys of the same steps (``split``, ``seed``, ``estimator_options``,
        ``explain.pd.top_k``, ``explain.learner.grid`` / ``percentiles``,
        ``explain.reliance.ranking`` / ``estimators`` / ``losses.<task>`` / ``n_repeats`` /
        ``e_switch_max_rows``, ``comparison.n_bootstrap`` / ``confidence``): the audit's
        replicates run the pipeline's own settings.
    """

    task: str = "regression"
    f_star: str = "reference"
    dgp: Mapping[str, Any] | None = None
    n_repetitions: int = 100
    max_estimators: int | None = 100
    nominal: Any = (0.5, 0.8, 0.9, 0.95, 0.99)
    sanity: bool = True
    learner: Mapping[str, Any] = field(default_factory=lambda: copy.deepcopy(TWIN_LEARNER))
    learner_families: tuple = ("gradient_boosting",)
    mcr: Any = None
    truth: Mapping[str, Any] = field(default_factory=lambda: copy.deepcopy(TWIN_TRUTH))
    test_size: float = 0.2
    cv_folds: int = 5
    seed: int = SEED
    options: Mapping[str, Any] = field(default_factory=dict)
    top_k: int = 2
    grid_kind: str = "uniform"
    percentiles: tuple = (0.0, 1.0)
    ranking: Mapping[str, Any] = field(default_factory=lambda: dict(RANKING))
    estimators: tuple = ("permutation", "e_divide", "e_switch")
    losses: tuple | None = None
    n_repeats: int = 20
    e_switch_max_rows: int | None = 400
    comparison: Mapping[str, Any] = field(default_factory=lambda: {"n_bootstrap": 1000, "confidence": 0.95})

    SECTION = "twins"
    KEYS = {
        "task": None,
        "dgp": None,
        "learner": "twins.learner",
        "learner_families": "twins.learner.families",
        "mcr": "twins.mcr",
        "test_size": "split.test_size",
        "cv_folds": "split.cv_folds",
        "seed": "seed",
        "options": "estimator_options",
        "top_k": "explain.pd.top_k",
        "grid_kind": "explain.learner.grid",
        "percentiles": "explain.learner.percentiles",
        "ranking": "explain.reliance.ranking",
        "estimators": "explain.reliance.estimators",
        "losses": "explain.reliance.losses.{task}",
        "n_repeats": "explain.reliance.n_repeats",
        "e_switch_max_rows": "explain.reliance.e_switch_max_rows",
        "comparison": "comparison",
    }
    #: ``twins.datasets`` and ``twins.n_shards`` choose the jobs, ``twins.threads`` their threads.
    JOB_KEYS = ("datasets", "n_shards", "threads", "importance")

    def __post_init__(self):
        check_task(self.task)
        if self.losses is None:  # the task's MR losses (explain.reliance.losses.<task>)
            object.__setattr__(self, "losses", tuple(LOSSES[self.task]))
        if self.mcr is None:  # the task's model class and the default ε rule
            object.__setattr__(self, "mcr", default_mcr(self.task))
        check_int("twins.n_repetitions", self.n_repetitions, 2)
        check_int("twins.max_estimators", self.max_estimators, 1, null=True)
        check_int("twins.learner.truth_fits", self.learner["truth_fits"], 2)
        if self.f_star not in F_STAR_CHOICES:
            check_family("twins.f_star", self.f_star, self.task)

    @classmethod
    def from_config(cls, config: Mapping[str, Any], task: str, dgp: Mapping[str, Any] | None = None) -> TwinSettings:
        """Build and check one dataset's settings from a schema-validated configuration.

        Parameters
        ----------
        config : mapping
        task : str
            The dataset's task.
        dgp : mapping, optional
            A simulated dataset's source (``dgp``, ``noise_sd``).

        Raises
        ------
        ValueError
            ``twins.f_star`` neither a choice of :data:`F_STAR_CHOICES` nor a family of the task;
            ``dgp`` without a simulated source; a family of ``twins.mcr.families.<task>`` or
            ``twins.learner.families`` that is not a registered family of the task.
        """
        tw, explain, rashomon = config["twins"], config["explain"], config["rashomon"]
        learner = dict(tw["learner"])
        families = learner.pop("families")
        for key in ("n_refits", "fraction", "pfi_estimator", "n_repeats"):
            if learner.get(key) is None:
                learner[key] = explain["learner"][key]
        families = tuple(explain["learner"]["families"] if families is None else families)
        for family in families:
            check_family("twins.learner.families", family, task)
        mcr = False
        if tw["mcr"]["enabled"]:
            mcr = {k: v for k, v in tw["mcr"].items() if k != "enabled"}
            for key in ("epsilon_mode", "epsilons"):
                if mcr.get(key) is None:
                    mcr[key] = rashomon[key]
            mcr["metric"] = config.get("selection", SELECTION)[task]
            mcr["families"] = dict(mcr["families"].get(task) or {})
            for family in mcr["families"]:
                check_family(f"twins.mcr.families.{task}", family, task)
        if tw["f_star"] == "dgp" and dgp is None:
            raise ValueError(
                "config key twins.f_star: 'dgp' plants a simulated dataset's DGP; this dataset is not simulated"
            )
        reliance = explain["reliance"]
        return cls(
            task=task,
            f_star=tw["f_star"],
            dgp=dict(dgp) if dgp is not None and tw["f_star"] == "dgp" else None,
            n_repetitions=tw["n_repetitions"],
            max_estimators=tw["max_estimators"],
            nominal=tuple(tw["nominal"]),
            sanity=tw["sanity"],
            learner=learner,
            learner_families=families,
            mcr=mcr,
            truth=dict(tw["truth"]),
            test_size=config["split"]["test_size"],
            cv_folds=config["split"]["cv_folds"],
            seed=config["seed"],
            options=config["estimator_options"],
            top_k=explain["pd"]["top_k"],
            grid_kind=explain["learner"]["grid"],
            percentiles=tuple(explain["learner"]["percentiles"]),
            ranking=dict(reliance["ranking"]),
            estimators=tuple(reliance["estimators"]),
            losses=tuple(reliance["losses"][task]),
            n_repeats=reliance["n_repeats"],
            e_switch_max_rows=reliance["e_switch_max_rows"],
            comparison={k: config["comparison"][k] for k in ("n_bootstrap", "confidence")},
        )


@dataclass(frozen=True)
class TwinImportanceSettings(Settings):
    """Settings of the SAGE and H² audit on a twin (config section ``twins.importance``; rules
    ``twin_importance_truth`` and ``twin_importance_shard``; :mod:`xaipipe.studies.twin_importance`).

    The study's own SAGE and H² settings travel with it (fields ``sage``, ``h2``): the replicates
    run the ``sage`` and ``h_statistic`` rules' functions with them.

    Attributes
    ----------
    task : str
        The dataset's task.
    sage_enabled, h2_enabled : bool, default True
        ``twins.importance.sage`` / ``.h2``: audit ``sage_se`` / the H² bootstrap SEs.
    exact_max_evaluations : int, default 20 000 000
        ``twins.importance.exact_max_evaluations``: a SAGE truth is computed exactly (every
        coalition) when ``2^d * rows * background`` model rows are at most this; else by the
        sampler ``truth_factor`` times longer.
    truth_factor : int, default 16
        ``twins.importance.truth_factor``: the long sampler's convergence threshold is the study's
        over ``sqrt(truth_factor)`` (its SE about ``1/sqrt(truth_factor)`` of the study's), its cap
        ``truth_factor`` times the study's ``max_permutations``.
    truth_rows : int, default 1600
        ``twins.importance.truth_rows``: population rows of the H² truths and of f*'s planted SAGE:
        every row where the twin has at most this many (the H² truths then exact), else one seeded
        sample. An H² truth costs ``(top_k + pairs) * truth_rows**2`` model rows per replicate.
    truth_background : int, default 128
        ``twins.importance.truth_background``: population rows averaged over in f*'s planted SAGE.
    truth_bootstrap : int, default 20
        ``twins.importance.truth_bootstrap``: bootstrap resamples of an H² truth's own SE.
    label_copies : int, default 4
        ``twins.importance.label_copies``: classification, labels drawn from p* per truth row for
        f*'s planted SAGE.
    sage : SageSettings
        ``explain.sage`` (:meth:`xaipipe.config.SageSettings.from_config`).
    h2 : HStatisticSettings
        ``explain.interactions`` of the task (its ``family`` set to the explained model's at run time).

    Raises
    ------
    ValueError
        A count below its minimum (each error names the config key).
    """

    task: str = "regression"
    sage_enabled: bool = True
    h2_enabled: bool = True
    exact_max_evaluations: int = 20_000_000
    truth_factor: int = 16
    truth_rows: int = 1600
    truth_background: int = 128
    truth_bootstrap: int = 20
    label_copies: int = 4
    sage: Any = None
    h2: Any = None

    SECTION = "twins.importance"
    KEYS = {"task": None, "sage_enabled": "twins.importance.sage", "h2_enabled": "twins.importance.h2", "sage": None}
    KEYS = {**KEYS, "h2": None}
    NESTED = {"sage": SageSettings, "h2": HStatisticSettings}

    def __post_init__(self):
        check_task(self.task)
        check_int("twins.importance.exact_max_evaluations", self.exact_max_evaluations, 0)
        check_int("twins.importance.truth_factor", self.truth_factor, 4)
        check_int("twins.importance.truth_rows", self.truth_rows, 10)
        check_int("twins.importance.truth_background", self.truth_background, 8)
        check_int("twins.importance.truth_bootstrap", self.truth_bootstrap, 2)
        check_int("twins.importance.label_copies", self.label_copies, 1)
        if self.sage is None:
            object.__setattr__(self, "sage", SageSettings())
        if self.h2 is None:
            object.__setattr__(self, "h2", HStatisticSettings(task=self.task))

    @classmethod
    def from_config(cls, config: Mapping[str, Any], task: str) -> TwinImportanceSettings:
        """Build and check one task's settings from a schema-validated configuration."""
        section = config["twins"]["importance"]
        # the H² settings of a non-forest family; the explained model's family is set at run time
        h2 = dataclasses.replace(HStatisticSettings.from_config(config, task, "decision_tree"), family=None)
        return cls(
            task=task,
            sage_enabled=section["sage"],
            h2_enabled=section["h2"],
            **{key: section[key] for key in cls.section_fields()},
            sage=SageSettings.from_config(config),
            h2=h2,
        )
