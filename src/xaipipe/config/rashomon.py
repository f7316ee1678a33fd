"""Settings of the Rashomon steps: :class:`RashomonSettings` (rules ``rashomon``,
``rashomon_refit``, ``abalone_study_mcr``), :class:`BootstrapSettings` (rules
``rashomon_bootstrap_shard``, ``rashomon_bootstrap``), :class:`MemberEffectsSettings` (rule
``rashomon_effects``), :class:`PredictionIntervalSettings` (rule ``prediction_intervals``) and
:class:`TreeFarmsSettings` (rule ``treefarms``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ._base import SEED, SELECTION, Settings, check_family, check_task

__all__ = [
    "BootstrapSettings",
    "MemberEffectsSettings",
    "PredictionIntervalSettings",
    "RashomonSettings",
    "TreeFarmsSettings",
]


@dataclass(frozen=True)
class RashomonSettings(Settings):
    """Settings of the Rashomon step of one task (``config["rashomon"]`` and the keys it borrows).

    Every field has the default of its config key: ``RashomonSettings(epsilon=0.5)`` is the
    schema's Rashomon step with ε = 0.5.

    Attributes
    ----------
    task : {"regression", "classification"}, default "regression"
    metric : str, default ``selection.<task>``'s (``rmse`` / ``log_loss``)
        CV loss that defines the sets.
    seed : int, default 20250223
        ``seed``: estimators' ``random_state`` and the permutation seed.
    options : mapping, default {}
        ``estimator_options`` (family -> keyword arguments).
    loss : str, default ``explain.reliance.losses.<task>[0]``'s
        MR loss.
    epsilon_mode, epsilon, epsilons, scopes, estimators, n_repeats, e_switch_max_rows, figure_scope, pd
        The keys of the ``rashomon`` section of those names (``config/README.md``; defaults
        ``"se"``, 1.0, (0.0, 0.5, 1.0, 2.0), (``"family"``, ``"cross_family"``,
        ``"linear_exact"``), (``"permutation"``, ``"e_divide"``), 20, 400, ``"cross_family"``,
        ``{"top_k": 2, "resolution": 30}``).
    figure_class : str, int, bool or None, default None
        ``explain.figure_class``: the class of a multiclass model's PD envelope (None: the first).

    The other keys of the section (:data:`JOB_KEYS`) choose jobs or belong to other rules.
    """

    task: str = "regression"
    metric: str | None = None
    seed: int = SEED
    options: Mapping[str, Any] = field(default_factory=dict)
    loss: str | None = None
    epsilon_mode: str = "se"
    epsilon: float = 1.0
    epsilons: tuple[float, ...] = (0.0, 0.5, 1.0, 2.0)
    scopes: tuple[str, ...] = ("family", "cross_family", "linear_exact")
    estimators: tuple[str, ...] = ("permutation", "e_divide")
    n_repeats: int = 20
    e_switch_max_rows: int | None = 400
    figure_scope: str = "cross_family"
    pd: Mapping[str, Any] = field(default_factory=lambda: {"top_k": 2, "resolution": 30})
    figure_class: Any = None

    SECTION = "rashomon"
    KEYS = {
        "task": None,
        "metric": "selection.{task}",
        "seed": "seed",
        "options": "estimator_options",
        "loss": "explain.reliance.losses.{task}[0]",
        "figure_class": "explain.figure_class",
    }
    #: Keys of the ``rashomon`` section that are not settings of the Rashomon step itself (the model
    #: class, figures, sampling, split jobs, predictive multiplicity, the bootstrap and the Abalone
    #: study have their own rules and keys).
    JOB_KEYS = (
        "bootstrap",
        "abalone_study",
        "families",
        "figure_quantity",
        "sample",
        "refit_jobs",
        "multiplicity",
        "prediction_intervals",
        "treefarms",
    )

    def __post_init__(self):
        self._resolve_task_loss()
        if self.metric is None:
            self._resolve(metric=SELECTION[self.task])

    @classmethod
    def from_config(cls, config: Mapping[str, Any], task: str) -> RashomonSettings:
        """Build and check the settings of ``task`` from a schema-validated configuration.

        Raises
        ------
        ValueError
            One of these checks fails (the error names the config key): ``rashomon.epsilon`` is one of
            ``rashomon.epsilons``; the families of ``rashomon.refit_jobs``, ``rashomon.bootstrap.families``
            and ``rashomon.sample.families.<task>`` are registered (the latter support their task); ``task``
            is a task.
        KeyError
            A key the schema's defaults always provide is missing (an unvalidated config).
        """
        check_task(task)
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
        return cls.from_params(
            {
                **{key: r[key] for key in cls.section_fields()},
                "task": task,
                "metric": config["selection"][task],
                "seed": config["seed"],
                "options": config["estimator_options"],
                "loss": config["explain"]["reliance"]["losses"][task][0],
                "figure_class": config["explain"]["figure_class"],
            }
        )


def _with_rashomon(cls: type[Settings], config: Mapping[str, Any], task: str, params: Mapping[str, Any]):
    """``cls.from_params`` of ``params`` and, as the ``rashomon`` field, the Rashomon step's settings
    of ``task`` (:meth:`RashomonSettings.from_config`, with its checks): the ``from_config`` of a
    step that nests them."""
    return cls.from_params({**params, "rashomon": RashomonSettings.from_config(config, task).to_params()})


@dataclass(frozen=True)
class BootstrapSettings(Settings):
    """Settings of the Rashomon bootstrap of one task (``config["rashomon"]["bootstrap"]`` and the
    Rashomon keys it uses; Donnelly et al. 2023).

    Attributes
    ----------
    rashomon : RashomonSettings, default RashomonSettings()
        The Rashomon step's settings: ``task``, ``metric`` (the out-of-bag membership loss),
        ``epsilon`` and ``epsilon_mode`` (the set of each resample), ``loss`` (the MR loss),
        ``seed``, ``options``.
    n_bootstrap, mr_data, estimator, n_repeats, confidence, families, n_shards
        The keys of the ``rashomon.bootstrap`` section of those names (``config/README.md``;
        defaults 10, ``"oob"``, ``"permutation"``, 5, 0.95, (``"gradient_boosting"``,), 5): ``B``,
        where MR is computed (``oob`` / ``test``), its estimator and repeats, the level of the MCR
        endpoint intervals, the model class, the jobs the resamples are dealt to.
    """

    rashomon: RashomonSettings = field(default_factory=RashomonSettings)
    n_bootstrap: int = 10
    mr_data: str = "oob"
    estimator: str = "permutation"
    n_repeats: int = 5
    confidence: float = 0.95
    families: tuple[str, ...] = ("gradient_boosting",)
    n_shards: int = 5

    SECTION = "rashomon.bootstrap"
    KEYS = {"rashomon": "rashomon"}
    JOB_KEYS = ("enabled",)
    NESTED = {"rashomon": RashomonSettings}

    @classmethod
    def from_config(cls, config: Mapping[str, Any], task: str) -> BootstrapSettings:
        """Build and check the settings of ``task`` (:meth:`RashomonSettings.from_config`'s checks,
        ``rashomon.bootstrap.families`` among them) from a schema-validated configuration.

        Raises
        ------
        ValueError
            As :meth:`RashomonSettings.from_config`.
        """
        b = config["rashomon"]["bootstrap"]
        return _with_rashomon(cls, config, task, {key: b[key] for key in cls.section_fields()})

    @property
    def jobs(self) -> int:
        """Jobs of one dataset's bootstrap: ``n_shards``, at most ``n_bootstrap``."""
        return min(self.n_shards, self.n_bootstrap)

    def shard_resamples(self, shard: int) -> range:
        """The resamples of job ``shard`` (``0 <= shard < jobs``): dealt round-robin."""
        return range(int(shard), self.n_bootstrap, self.jobs)


@dataclass(frozen=True)
class MemberEffectsSettings(Settings):
    """Settings of the member effects of one task (rule ``rashomon_effects``: PD and ALE of every
    member of the figure scope's largest Rashomon set, the explorer's effects view;
    :func:`xaipipe.rashomon.effects.member_effects`).

    Attributes
    ----------
    rashomon : RashomonSettings, default RashomonSettings()
        The Rashomon step's settings: the sets, the members' refits and ``figure_class`` (a
        multiclass model's class, as the ``rashomon`` rule's PD envelope).
    ale_bins : int, default 20
        ``explain.ale.n_bins``: the members' ALE bins.
    ale_centering : str, default "ale_plot"
        ``explain.ale.centering``.
    """

    rashomon: RashomonSettings = field(default_factory=RashomonSettings)
    ale_bins: int = 20
    ale_centering: str = "ale_plot"

    KEYS = {"rashomon": "rashomon", "ale_bins": "explain.ale.n_bins", "ale_centering": "explain.ale.centering"}
    NESTED = {"rashomon": RashomonSettings}

    @classmethod
    def from_config(cls, config: Mapping[str, Any], task: str) -> MemberEffectsSettings:
        """Build and check the settings of ``task`` from a schema-validated configuration.

        Raises
        ------
        ValueError
            As :meth:`RashomonSettings.from_config`.
        """
        ale = config["explain"]["ale"]
        return _with_rashomon(cls, config, task, {"ale_bins": ale["n_bins"], "ale_centering": ale["centering"]})


@dataclass(frozen=True)
class PredictionIntervalSettings(Settings):
    """Settings of the Rashomon prediction intervals of a regression dataset (rule
    ``prediction_intervals``; :func:`xaipipe.rashomon.prediction_intervals.prediction_interval_tables`).

    Attributes
    ----------
    rashomon : RashomonSettings, default RashomonSettings()
        The Rashomon step's settings: ``epsilons``, ``epsilon``, ``epsilon_mode`` (the sets whose
        ranges are widened) and ``seed`` (the calibration halvings).
    level, n_splits, max_slack, path_points
        The keys of the ``rashomon.prediction_intervals`` section of those names
        (``config/README.md``; defaults 0.95, 20, 2.0, 41): the nominal coverage, the random
        calibration / evaluation halvings of the test rows, and the exact linear set's path of
        relative slacks ``δ / e_min`` from 0 to ``max_slack`` in ``path_points`` steps.
    """

    rashomon: RashomonSettings = field(default_factory=RashomonSettings)
    level: float = 0.95
    n_splits: int = 20
    max_slack: float = 2.0
    path_points: int = 41

    SECTION = "rashomon.prediction_intervals"
    KEYS = {"rashomon": "rashomon"}
    JOB_KEYS = ("enabled",)
    NESTED = {"rashomon": RashomonSettings}

    @classmethod
    def from_config(cls, config: Mapping[str, Any], task: str) -> PredictionIntervalSettings:
        """Build and check the settings of ``task`` from a schema-validated configuration.

        Raises
        ------
        ValueError
            As :meth:`RashomonSettings.from_config`.
        """
        p = config["rashomon"]["prediction_intervals"]
        return _with_rashomon(cls, config, task, {key: p[key] for key in cls.section_fields()})


@dataclass(frozen=True)
class TreeFarmsSettings(Settings):
    """Settings of the TreeFARMS scope of a binary classification dataset (rule ``treefarms``;
    :func:`xaipipe.rashomon.treefarms.treefarms_scope`).

    Attributes
    ----------
    rashomon : RashomonSettings, default RashomonSettings()
        The Rashomon step's settings: ``epsilons`` (carried to TreeFARMS' objective), ``epsilon``
        (the figure's ε) and ``seed``.
    regularization, depth_budget, n_thresholds, max_trees, n_repeats
        The keys of the ``rashomon.treefarms`` section of those names (``config/README.md``;
        defaults 0.01, 4, 1, 2000, 5): TreeFARMS' penalty per leaf and depth budget (depth at most
        ``depth_budget - 1``), the thresholds per variable of the binarisation, the trees whose MR
        is computed (a larger set is sampled), the permutations of their MR.
    """

    rashomon: RashomonSettings = field(default_factory=RashomonSettings)
    regularization: float = 0.01
    depth_budget: int = 4
    n_thresholds: int = 1
    max_trees: int = 2000
    n_repeats: int = 5

    SECTION = "rashomon.treefarms"
    KEYS = {"rashomon": "rashomon"}
    JOB_KEYS = ("enabled",)
    NESTED = {"rashomon": RashomonSettings}

    @classmethod
    def from_config(cls, config: Mapping[str, Any], task: str) -> TreeFarmsSettings:
        """Build and check the settings of ``task`` from a schema-validated configuration.

        Raises
        ------
        ValueError
            As :meth:`RashomonSettings.from_config`.
        """
        t = config["rashomon"]["treefarms"]
        return _with_rashomon(cls, config, task, {key: t[key] for key in cls.section_fields()})
