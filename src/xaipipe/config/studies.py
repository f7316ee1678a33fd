"""Settings of the studies that combine steps: :class:`CoverageSettings` (rule ``coverage_audit``;
:func:`coverage_epsilon` is the ε of rule ``coverage_figure``) and :class:`CorrelatedSettings` (rule
``simulation_truth``: the correlated variants of the simulated datasets)."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ._base import DEPENDENT, SEED, Settings, check_family, check_int

__all__ = [
    "COVERAGE_LEARNERS",
    "COVERAGE_LEARNER_CONFIG",
    "COVERAGE_RASHOMON_CONFIG",
    "CorrelatedSettings",
    "CoverageSettings",
    "coverage_epsilon",
]

#: ``coverage.learner.families``' default: the learners of the audit's part (a), one configuration each.
COVERAGE_LEARNERS: dict[str, dict] = {
    "gradient_boosting": {"n_estimators": 100, "learning_rate": 0.1, "max_depth": 3},
}
#: ``coverage.learner`` but ``families``, with the ``explain.learner`` keys where it is null (the
#: schema's defaults): the options of part (a).
COVERAGE_LEARNER_CONFIG: dict[str, Any] = {
    "n_refits": 10,
    "fraction": 0.632,
    "pfi_estimator": "permutation",
    "n_repeats": 5,
    "pd_features": ["x1", "x3", "x4", "x5", "x6"],
    "grid": [-0.8, -0.4, 0.0, 0.4, 0.8],
    "truth_fits": 100,
    "truth_eval_rows": 2000,
    # learner-SHAP / ALE (issue 45; xaipipe.studies.coverage_effects)
    "effects": ["shap", "ale"],
    "ale_grid": [-1.0, -0.6, -0.2, 0.2, 0.6, 1.0],
    "shap_max_rows": None,
}
#: ``coverage.mcr`` but ``enabled`` and ``epsilon``, with the ``rashomon`` ε rule where it is null (the
#: schema's defaults): the model class (CV grid per family) and the ε rule of part (b).
COVERAGE_RASHOMON_CONFIG: dict[str, Any] = {
    "families": {
        "linear_regression": {},
        "decision_tree": {"max_depth": [3, 5, 8], "min_samples_leaf": [1, 5, 20]},
        "gradient_boosting": {
            "n_estimators": {"start": 50, "stop": 300, "step": 50},
            "learning_rate": [0.1],
            "max_depth": [2, 3],
        },
    },
    "epsilon_mode": "se",
    "epsilons": [0.0, 0.5, 1.0, 2.0],
    "scopes": ["family", "cross_family", "linear_exact"],
    "estimator": "permutation",
    "n_repeats": 20,
    "population_rows": 5000,
}


@dataclass(frozen=True)
class CoverageSettings(Settings):
    """Settings of the coverage audit (``config["coverage"]``, with the pipeline's learner design
    and ε rule where it leaves them null): what :func:`xaipipe.studies.coverage.coverage_audit`
    takes.

    Attributes
    ----------
    dgp, n, p, noise_sd, n_repetitions, nominal
        The ``coverage`` keys of those names (defaults ``"friedman1"``, 500, 10, 1.0, 100,
        (0.5, 0.8, 0.9, 0.95, 0.99)).
    test_size, cv_folds : float, int, default 0.2, 5
        ``split.test_size``, ``split.cv_folds``: each repetition is split as the pipeline splits.
    learners : mapping family -> params or None
        ``coverage.learner.families`` (None: the audit's defaults, :data:`COVERAGE_LEARNERS`).
    learner_config : dict or None
        The rest of ``coverage.learner``; ``n_refits``, ``fraction``, ``pfi_estimator`` and
        ``n_repeats`` from ``explain.learner`` where null (None: :data:`COVERAGE_LEARNER_CONFIG`).
    rashomon_config : dict, False or None
        ``coverage.mcr`` without ``epsilon`` and ``enabled`` (``epsilon_mode`` and ``epsilons`` from
        ``rashomon`` where null); False when ``coverage.mcr.enabled`` is false (None: the audit's
        :data:`COVERAGE_RASHOMON_CONFIG`).
    options : mapping or None, default {}
        ``estimator_options``.
    random_state : int, default 20250223
        ``seed``.

    The figure's ε is :func:`coverage_epsilon` (not a setting of the audit: changing it reruns no
    audit).
    """

    dgp: str = "friedman1"
    n: int = 500
    p: int = 10
    noise_sd: float = 1.0
    n_repetitions: int = 100
    test_size: float = 0.2
    cv_folds: int = 5
    learners: Mapping[str, Any] | None = field(default_factory=lambda: copy.deepcopy(COVERAGE_LEARNERS))
    learner_config: Mapping[str, Any] | None = field(default_factory=lambda: copy.deepcopy(COVERAGE_LEARNER_CONFIG))
    rashomon_config: Any = field(default_factory=lambda: copy.deepcopy(COVERAGE_RASHOMON_CONFIG))
    options: Mapping[str, Any] | None = field(default_factory=dict)
    nominal: Any = (0.5, 0.8, 0.9, 0.95, 0.99)
    random_state: int = SEED

    SECTION = "coverage"
    KEYS = {
        "test_size": "split.test_size",
        "cv_folds": "split.cv_folds",
        "learners": "coverage.learner.families",
        "learner_config": "coverage.learner",
        "rashomon_config": "coverage.mcr",
        "options": "estimator_options",
        "random_state": "seed",
    }
    #: ``coverage.threads``: the job's threads.
    JOB_KEYS = ("threads",)

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> CoverageSettings:
        """Build and check the settings from a schema-validated configuration.

        Checks (each error names the config key): the families of ``coverage.learner.families``
        and ``coverage.mcr.families`` are registered regression families; with ``coverage.mcr``
        enabled, the figure's ε is one of its grid (:func:`coverage_epsilon`).

        Raises
        ------
        ValueError
            A check above fails.
        """
        cov, rashomon = config["coverage"], config["rashomon"]
        learner = dict(cov["learner"])
        families = learner.pop("families")
        for key in ("n_refits", "fraction", "pfi_estimator", "n_repeats"):
            if learner.get(key) is None:
                learner[key] = config["explain"]["learner"][key]
        mcr = dict(cov["mcr"])
        for key in ("epsilon_mode", "epsilons"):
            if mcr.get(key) is None:
                mcr[key] = rashomon[key]
        mcr.pop("epsilon")
        mcr.pop("enabled")
        for key, fams in (("coverage.learner.families", families), ("coverage.mcr.families", mcr["families"])):
            for family in fams:
                check_family(f"{key}.{family}", family, "regression")
        coverage_epsilon(config)
        return cls(
            dgp=cov["dgp"],
            n=cov["n"],
            p=cov["p"],
            noise_sd=cov["noise_sd"],
            n_repetitions=cov["n_repetitions"],
            test_size=config["split"]["test_size"],
            cv_folds=config["split"]["cv_folds"],
            learners=families,
            learner_config=learner,
            rashomon_config=mcr if cov["mcr"]["enabled"] else False,
            options=config["estimator_options"],
            nominal=tuple(cov["nominal"]),
            random_state=config["seed"],
        )


def coverage_epsilon(config: Mapping[str, Any]) -> float:
    """The ε of the coverage figure (rule ``coverage_figure``): ``coverage.mcr.epsilon``, or
    ``rashomon.epsilon`` where null.

    Raises
    ------
    ValueError
        With ``coverage.mcr`` enabled, the ε is not one of the coverage ε grid (``coverage.mcr.epsilons``,
        or ``rashomon.epsilons`` where null).
    """
    cov, rashomon = config["coverage"], config["rashomon"]
    epsilon = cov["mcr"]["epsilon"] if cov["mcr"]["epsilon"] is not None else rashomon["epsilon"]
    grid = cov["mcr"]["epsilons"] or rashomon["epsilons"]
    if cov["mcr"]["enabled"] and epsilon not in grid:
        raise ValueError(f"config key coverage.mcr.epsilon ({epsilon}) must be one of the coverage epsilons {grid}")
    return epsilon


@dataclass(frozen=True)
class CorrelatedSettings(Settings):
    """Settings of the correlated variants of the simulated datasets (``simulation_truth.correlated``
    with the dependent-MR estimators' settings, the split and the estimator options): what
    :func:`xaipipe.studies.correlated.correlated_truth_table` needs besides the DGP and the refitted
    families' configurations.

    Attributes
    ----------
    seed : int, default 20250223
        ``seed``: the draw, the split, the fits, the permutations and the Monte Carlo.
    n_repeats : int, default 20
        ``explain.reliance.n_repeats``: permutations per variable.
    dependent : mapping
        ``explain.reliance.dependent`` (``max_depth``, ``min_samples_leaf``,
        ``correlation_threshold``, ``linkage``): the conditional and grouped MR estimators.
    split : mapping, default {"test_size": 0.2, "cv_folds": 5}
        The ``split`` section: the variant is split as the pipeline splits a dataset.
    options : mapping, default {}
        ``estimator_options`` (family -> keyword arguments).
    n, coupling_sd, n_mc
        The keys of ``simulation_truth.correlated`` of those names (``config/README.md``; defaults
        2000, 0.1, 20000): rows of a variant, :math:`\\tau` of :math:`x_2 = x_1 + N(0, \\tau^2)`,
        Monte-Carlo rows of each truth.

    ``simulation_truth.correlated.enabled`` and ``.families`` choose the jobs (the families' best
    configurations are the rule's inputs): no fields.

    Raises
    ------
    ValueError
        ``n`` below 20, ``n_mc`` below 100 or ``coupling_sd`` not positive (each naming the key).
    """

    seed: int = SEED
    n_repeats: int = 20
    dependent: Mapping[str, Any] = field(default_factory=lambda: copy.deepcopy(DEPENDENT))
    split: Mapping[str, Any] = field(default_factory=lambda: {"test_size": 0.2, "cv_folds": 5})
    options: Mapping[str, Any] = field(default_factory=dict)
    n: int = 2000
    coupling_sd: float = 0.1
    n_mc: int = 20000

    SECTION = "simulation_truth.correlated"
    KEYS = {
        "seed": "seed",
        "n_repeats": "explain.reliance.n_repeats",
        "dependent": "explain.reliance.dependent",
        "split": "split",
        "options": "estimator_options",
    }
    JOB_KEYS = ("enabled", "families")

    def __post_init__(self):
        check_int("simulation_truth.correlated.n", self.n, 20)
        check_int("simulation_truth.correlated.n_mc", self.n_mc, 100)
        tau = self.coupling_sd
        if isinstance(tau, bool) or not isinstance(tau, (int, float)) or not tau > 0:
            raise ValueError(
                f"config key simulation_truth.correlated.coupling_sd ({tau!r}) must be a positive number "
                "(the sd of x2 - x1; e.g. 0.1)"
            )

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> CorrelatedSettings:
        """Build and check the settings from a schema-validated configuration.

        Raises
        ------
        ValueError
            A family of ``simulation_truth.correlated.families`` is not a registered regression
            family (:func:`check_family`); as the class.
        """
        section = config["simulation_truth"]["correlated"]
        for family in section["families"]:
            check_family("simulation_truth.correlated.families", family, "regression")
        reliance = config["explain"]["reliance"]
        return cls.from_params(
            {
                **{key: section[key] for key in cls.section_fields()},
                "seed": config["seed"],
                "n_repeats": reliance["n_repeats"],
                "dependent": reliance["dependent"],
                "split": config["split"],
                "options": config["estimator_options"],
            }
        )
