"""Settings of the study steps, built and checked from the configuration in one place.

The workflow validates the configuration against its schema (``workflow/schemas/``: types,
ranges, defaults); what a schema cannot say -- one key against another, a family name against the
registry -- is checked here, with an error that names the config key and the fix. Each step's
settings are a frozen dataclass with ``from_config(config, task, ...)`` (build and check, once at
parse time in ``common.smk``) and ``from_params`` (the same object from the rule's ``params:`` in
its script; ``to_params()`` where the settings are the rule's param: the plain, JSON-like dict
whose ``repr`` Snakemake's ``params`` rerun trigger compares, unchanged from the rules of before).
The step function takes ``(data, settings, ...)``. A new key of a step touches the schema,
``config/config.yaml``, ``config/README.md`` and the settings class.

Settings here: :class:`RashomonSettings` (rules ``rashomon``, ``rashomon_refit``,
``rashomon_bootstrap_shard``, ``abalone_study_mcr``), :class:`BootstrapSettings` (rules
``rashomon_bootstrap_shard``, ``rashomon_bootstrap``), :class:`LearnerSettings` (rule ``learner``)
and :class:`CVSettings` (rules ``cv``, ``cv_shard``; ``fit`` and ``learner`` read its params),
:class:`CoverageSettings` (rules ``coverage_audit``, ``coverage_figure``), :class:`LargeDataSettings`
(the large-data policies of section ``large_data``: which apply to a dataset of ``n`` test rows, and
the rows they use), :class:`ShapSettings` (rule ``shap``; ``shap_figures`` asks it which families
have interaction values), :class:`PdIceSettings` (rule ``pd_ice``), :class:`RelianceSettings` (rule
``model_reliance``), :class:`AleSettings` (rule ``ale``), :class:`HStatisticSettings` (rule
``h_statistic``), :class:`LimeSettings` (rule ``lime``), :class:`CorrelatedSettings` (rule
``simulation_truth``: the correlated variants), :class:`SageSettings` (rule ``sage``; the new style of
one ``to_params()`` dict and ``from_params(params)``). The ``fit`` rule's :func:`xaipipe.models.fitting.fit_best`
takes the family's :class:`CVSettings`; :func:`abalone_study_shards` is the Table 4.1 CV's job count.
:func:`check_family` is the registry check of a config key naming a model family;
:func:`sample_size_checks` the ``split`` rule's checks of a dataset's sample size.

Why one module of this size (~1 700 lines, most of them docstrings): it is the one place where a
config key becomes a step's setting -- a user looking for what a key does, or a developer adding
one, reads one file; the classes share the helpers (``_frozen``, ``_plain``, ``_check_task``,
:func:`check_family`) and the large-data group, and import nothing heavy at module level (the
``Snakefile`` imports this module at parse time).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

__all__ = [
    "LARGE_DATA_POLICIES",
    "AleSettings",
    "BootstrapSettings",
    "CVSettings",
    "CorrelatedSettings",
    "CoverageSettings",
    "HStatisticSettings",
    "LargeDataSettings",
    "LearnerSettings",
    "LimeSettings",
    "PdIceSettings",
    "RashomonSettings",
    "RelianceSettings",
    "SageSettings",
    "ShapSettings",
    "abalone_study_shards",
    "check_family",
    "sample_size_checks",
]

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


#: Fields of :class:`RashomonSettings` that come from outside the ``rashomon`` section; every other
#: field is the ``rashomon`` key of its name (a new key of the step: a field here, the schema,
#: ``config/config.yaml`` and ``config/README.md``).
_BORROWED = ("task", "metric", "seed", "options", "loss")


def _frozen(value: Any) -> Any:
    """A config value as a settings field: lists as tuples, mappings copied."""
    if isinstance(value, list):
        return tuple(value)
    if isinstance(value, Mapping):
        return dict(value)
    return value


def _plain(value: Any) -> Any:
    """A settings field as a rule parameter: tuples as lists, mappings copied (JSON-like)."""
    if isinstance(value, tuple):
        return list(value)
    if isinstance(value, Mapping):
        return dict(value)
    return value


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
        _check_task(task)
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
        section = {f.name: _frozen(r[f.name]) for f in fields(cls) if f.name not in _BORROWED}
        return cls(
            task=task,
            metric=config["selection"][task],
            seed=config["seed"],
            options=config["estimator_options"],
            loss=config["explain"]["reliance"]["losses"][task][0],
            **section,
        )

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> RashomonSettings:
        """The settings back from :meth:`to_params` (a rule's ``params.rashomon`` in its script)."""
        return cls(**{k: v if k in _BORROWED else _frozen(v) for k, v in params.items()})

    def to_params(self) -> dict[str, Any]:
        """The rule's ``params.rashomon``: a plain dict (lists, not tuples) of the fields in their
        order (``task``, ``metric``, ``seed``, ``options``, ``loss``, then the ``rashomon`` keys), the
        keys and values of the rules before these settings (Snakemake's ``params`` trigger compares
        their ``repr``)."""
        return {
            f.name: _plain(getattr(self, f.name)) if f.name not in _BORROWED else getattr(self, f.name)
            for f in fields(self)
        }


@dataclass(frozen=True)
class LearnerSettings:
    """Settings of the learner step of one task (``config["explain"]["learner"]`` and the keys it
    borrows): learner-PD / learner-PFI with corrected intervals (Molnar et al. 2023).

    Attributes
    ----------
    task : {"regression", "classification"}
    seed : int
        ``seed``: root seed of the refits' subsamples, estimator seeds and permutations.
    n_refits, fraction, resolution, grid, percentiles, pfi_estimator, n_repeats, confidence
        The keys of the ``explain.learner`` section of those names (``config/README.md``):
        ``K``, the training share of a refit, the PD grid (points, ``uniform`` / ``quantile``,
        percentile range), the MR estimator of the learner-PFI, its permutations, the interval level.
    families : tuple of str
        ``explain.learner.families``: the families whose best configuration gets a learner job.
    top_k : int
        ``explain.pd.top_k``: the learner-PD's variables are the model's top ``k`` by MR.
    ranking_estimator, ranking_quantity : str
        ``explain.reliance.ranking.estimator`` / ``.quantity``: the MR that ranks them.
    loss : str
        ``explain.reliance.losses.<task>[0]``: the loss of that ranking (the learner-PFI's own loss
        is :func:`xaipipe.explain.learner.learner_refits`' default: ``squared_error`` /
        ``log_loss``).
    figure_class : str, int, bool or None
        ``explain.figure_class``: a multiclass model's learner-PD is this class's probability
        (None: the first class).
    """

    task: str
    seed: int
    n_refits: int
    fraction: float
    resolution: int
    grid: str
    percentiles: tuple[float, float]
    pfi_estimator: str
    n_repeats: int
    confidence: float
    families: tuple[str, ...]
    top_k: int
    ranking_estimator: str
    ranking_quantity: str
    loss: str
    figure_class: Any = None

    @classmethod
    def from_config(cls, config: Mapping[str, Any], task: str) -> LearnerSettings:
        """Build and check the settings of ``task`` from a schema-validated configuration.

        Checks (each error names the config key): the families of ``explain.learner.families`` are
        registered; ``explain.learner.percentiles`` is increasing; ``task`` is a task.

        Raises
        ------
        ValueError
            A check above fails.
        KeyError
            A key the schema's defaults always provide is missing (an unvalidated config).
        """
        _check_task(task)
        explain = config["explain"]
        for family in explain["learner"]["families"]:
            check_family("explain.learner.families", family)
        return cls._build(
            task=task,
            seed=config["seed"],
            learner=explain["learner"],
            ranking=explain["reliance"]["ranking"],
            loss=explain["reliance"]["losses"][task][0],
            top_k=explain["pd"]["top_k"],
            figure_class=explain["figure_class"],
        )

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> LearnerSettings:
        """The settings from the ``learner`` rule's ``params`` (in its script): ``learner`` (the
        ``explain.learner`` section), ``cv`` (``task``, ``seed``), ``ranking``, ``loss``, ``top_k``
        and ``figure_class``, the values :meth:`from_config` reads from the configuration.

        Raises
        ------
        ValueError
            As :meth:`from_config` (``explain.learner.percentiles``).
        """
        cv = params["cv"]
        return cls._build(
            task=cv["task"],
            seed=cv["seed"],
            learner=params["learner"],
            ranking=params["ranking"],
            loss=params["loss"],
            top_k=params["top_k"],
            figure_class=params.get("figure_class"),
        )

    def design(self, *, stratify: bool = False):
        """The :class:`xaipipe.explain.learner.RefitDesign` of these settings (``stratify``: the
        subsamples by class, for a multiclass target)."""
        from .explain.learner import RefitDesign

        return RefitDesign(
            n_refits=self.n_refits,
            fraction=self.fraction,
            resolution=self.resolution,
            kind=self.grid,
            percentiles=tuple(self.percentiles),
            pfi_estimator=self.pfi_estimator,
            n_repeats=self.n_repeats,
            random_state=self.seed,
            stratify=stratify,
        )

    @classmethod
    def _build(cls, *, task, seed, learner, ranking, loss, top_k, figure_class) -> LearnerSettings:
        lo, hi = (float(v) for v in learner["percentiles"])
        if not lo < hi:
            raise ValueError(
                f"config key explain.learner.percentiles ({list(learner['percentiles'])}): the first must be "
                "below the second (the PD grid's range, e.g. [0.0, 1.0] or [0.05, 0.95])"
            )
        return cls(
            task=task,
            seed=seed,
            n_refits=learner["n_refits"],
            fraction=learner["fraction"],
            resolution=learner["resolution"],
            grid=learner["grid"],
            percentiles=tuple(learner["percentiles"]),
            pfi_estimator=learner["pfi_estimator"],
            n_repeats=learner["n_repeats"],
            confidence=learner["confidence"],
            families=tuple(learner["families"]),
            top_k=top_k,
            ranking_estimator=ranking["estimator"],
            ranking_quantity=ranking["quantity"],
            loss=loss,
            figure_class=figure_class,
        )


@dataclass(frozen=True)
class CVSettings:
    """Settings of the CV step of one family on a dataset of one task (rules ``cv``, ``cv_shard``;
    ``fit`` and ``learner`` read ``task``, ``seed``, ``options``, ``beta`` from its params).

    Attributes
    ----------
    task : {"regression", "classification"}
    family : str
    grid : mapping or None
        ``grids.<task>.<family>`` (hyperparameter -> values); None when the family is only sampled.
    sample : mapping or None
        ``rashomon.sample.families.<task>.<family>`` when ``rashomon.sample.enabled`` (the random
        search), else None.
    options : mapping
        ``estimator_options.<family>`` (fixed constructor arguments; ``{}`` when absent).
    selection : str
        ``selection.<task>``: the CV loss that picks the best configuration.
    seed : int
        ``seed``: the estimators' ``random_state`` and the random search's draws.
    beta : float
        ``metrics.beta``: weight of the ``f_beta`` column (classification; 1.0 for regression,
        whose params leave it out).
    """

    task: str
    family: str
    grid: Mapping[str, Any] | None
    sample: Mapping[str, Any] | None
    options: Mapping[str, Any]
    selection: str
    seed: int
    beta: float = 1.0

    @classmethod
    def from_config(cls, config: Mapping[str, Any], task: str, family: str) -> CVSettings:
        """Build and check the settings of ``family`` on a dataset of ``task`` from a
        schema-validated configuration.

        Checks (each error names the config key): ``family`` is registered and supports ``task``
        (``grids.<task>.<family>`` or ``rashomon.sample.families.<task>.<family>``) and has a grid
        or a random search there; ``task`` is a task.

        Raises
        ------
        ValueError
            A check above fails.
        """
        _check_task(task)
        sample_section = config["rashomon"]["sample"]
        sampled = sample_section["families"] if sample_section["enabled"] else {}
        grid = config["grids"][task].get(family)
        sample = sampled.get(task, {}).get(family)
        if grid is None and sample is None:
            raise ValueError(
                f"config key grids.{task}: model family {family!r} has no grid there and no random search "
                f"(rashomon.sample.families.{task}); add one, or leave the family out"
            )
        key = f"grids.{task}.{family}" if grid is not None else f"rashomon.sample.families.{task}.{family}"
        check_family(key, family, task)
        return cls(
            task=task,
            family=family,
            grid=grid,
            sample=sample,
            options=config["estimator_options"].get(family, {}),
            selection=config["selection"][task],
            seed=config["seed"],
            beta=config["metrics"]["beta"] if task == "classification" else 1.0,
        )

    @classmethod
    def from_params(cls, params: Mapping[str, Any], family: str) -> CVSettings:
        """The settings back from :meth:`to_params` (a rule's ``params.cv`` and its ``family``
        wildcard, in its script)."""
        p = dict(params)
        return cls(family=family, beta=p.pop("beta", 1.0), **p)

    def to_params(self) -> dict[str, Any]:
        """The rules' ``params.cv``: ``task``, ``grid``, ``sample``, ``options``, ``selection``,
        ``seed`` and, for classification only, ``beta`` (so that ``metrics.beta`` reruns no
        regression job); the family is the rule's wildcard."""
        params = {
            "task": self.task,
            "grid": self.grid,
            "sample": self.sample,
            "options": self.options,
            "selection": self.selection,
            "seed": self.seed,
        }
        if self.task == "classification":
            params["beta"] = self.beta
        return params

    def shards(self, wanted: int, n_folds: int = 1) -> int:
        """Jobs the CV is split into (rules ``cv_shard``): ``wanted`` (config key
        ``cv_shards.<family>``, default 1), at most the CV's fit units (prefix groups, depth chains or
        configurations: :func:`xaipipe.models.cv.n_fit_units`) times ``n_folds`` (config key
        ``cv_folds``): whole units while there are enough, else (unit, fold) pairs
        (:func:`xaipipe.models.cv.cross_validate_grid`, ``shard=``); 1 where ``wanted <= 1``."""
        if wanted <= 1:
            return 1
        from .models.cv import n_fit_units

        units = n_fit_units(self.family, self.grid, sample=self.sample, random_state=self.seed)
        return min(wanted, units * max(int(n_folds), 1))


@dataclass(frozen=True)
class BootstrapSettings:
    """Settings of the Rashomon bootstrap of one task (``config["rashomon"]["bootstrap"]`` and the
    Rashomon keys it uses; Donnelly et al. 2023).

    Attributes
    ----------
    rashomon : RashomonSettings
        The Rashomon step's settings: ``task``, ``metric`` (the out-of-bag membership loss),
        ``epsilon`` and ``epsilon_mode`` (the set of each resample), ``loss`` (the MR loss),
        ``seed``, ``options``.
    n_bootstrap, mr_data, estimator, n_repeats, confidence, families, n_shards
        The keys of the ``rashomon.bootstrap`` section of those names (``config/README.md``):
        ``B``, where MR is computed (``oob`` / ``test``), its estimator and repeats, the level of
        the MCR endpoint intervals, the model class, the jobs the resamples are dealt to.
    """

    rashomon: RashomonSettings
    n_bootstrap: int
    mr_data: str
    estimator: str
    n_repeats: int
    confidence: float
    families: tuple[str, ...]
    n_shards: int

    @classmethod
    def from_config(cls, config: Mapping[str, Any], task: str) -> BootstrapSettings:
        """Build and check the settings of ``task`` (:meth:`RashomonSettings.from_config`'s checks,
        ``rashomon.bootstrap.families`` among them) from a schema-validated configuration.

        Raises
        ------
        ValueError
            As :meth:`RashomonSettings.from_config`.
        """
        return cls._build(RashomonSettings.from_config(config, task), config["rashomon"]["bootstrap"])

    @classmethod
    def from_params(cls, rashomon: Mapping[str, Any], bootstrap: Mapping[str, Any]) -> BootstrapSettings:
        """The settings from the bootstrap rules' ``params.rashomon``
        (:meth:`RashomonSettings.to_params`) and ``params.bootstrap`` (the ``rashomon.bootstrap``
        section), in their scripts."""
        return cls._build(RashomonSettings.from_params(rashomon), bootstrap)

    @classmethod
    def _build(cls, rashomon: RashomonSettings, b: Mapping[str, Any]) -> BootstrapSettings:
        return cls(
            rashomon=rashomon,
            n_bootstrap=b["n_bootstrap"],
            mr_data=b["mr_data"],
            estimator=b["estimator"],
            n_repeats=b["n_repeats"],
            confidence=b["confidence"],
            families=tuple(b["families"]),
            n_shards=b["n_shards"],
        )

    @property
    def jobs(self) -> int:
        """Jobs of one dataset's bootstrap: ``n_shards``, at most ``n_bootstrap``."""
        return min(self.n_shards, self.n_bootstrap)

    def shard_resamples(self, shard: int) -> range:
        """The resamples of job ``shard`` (``0 <= shard < jobs``): dealt round-robin."""
        return range(int(shard), self.n_bootstrap, self.jobs)


@dataclass(frozen=True)
class CoverageSettings:
    """Settings of the coverage audit (``config["coverage"]``, with the pipeline's learner design
    and ε rule where it leaves them null): what :func:`xaipipe.studies.coverage.coverage_audit`
    takes (its fields but ``epsilon``) and the ε of its figure.

    Attributes
    ----------
    dgp, n, p, noise_sd, n_repetitions, nominal
        The ``coverage`` keys of those names.
    test_size, cv_folds : float, int
        ``split.test_size``, ``split.cv_folds``: each repetition is split as the pipeline splits.
    learners : mapping family -> params
        ``coverage.learner.families``.
    learner_config : dict
        The rest of ``coverage.learner``; ``n_refits``, ``fraction``, ``pfi_estimator`` and
        ``n_repeats`` from ``explain.learner`` where null.
    rashomon_config : dict or False
        ``coverage.mcr`` without ``epsilon`` and ``enabled`` (``epsilon_mode`` and ``epsilons`` from
        ``rashomon`` where null); False when ``coverage.mcr.enabled`` is false.
    options : mapping
        ``estimator_options``.
    random_state : int
        ``seed``.
    epsilon : float or None
        ``coverage.mcr.epsilon`` (``rashomon.epsilon`` where null): the ε of the coverage figure
        (None in the audit's script, which does not use it).
    """

    dgp: str
    n: int
    p: int
    noise_sd: float
    n_repetitions: int
    test_size: float
    cv_folds: int
    learners: Mapping[str, Any]
    learner_config: Mapping[str, Any]
    rashomon_config: Any
    options: Mapping[str, Any]
    nominal: Any
    random_state: int
    epsilon: float

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> CoverageSettings:
        """Build and check the settings from a schema-validated configuration.

        Checks (each error names the config key): the families of ``coverage.learner.families``
        and ``coverage.mcr.families`` are registered regression families; with ``coverage.mcr``
        enabled, ``coverage.mcr.epsilon`` is one of its ε grid.

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
        epsilon = cov["mcr"]["epsilon"] if cov["mcr"]["epsilon"] is not None else rashomon["epsilon"]
        grid = cov["mcr"]["epsilons"] or rashomon["epsilons"]
        if cov["mcr"]["enabled"] and epsilon not in grid:
            raise ValueError(f"config key coverage.mcr.epsilon ({epsilon}) must be one of the coverage epsilons {grid}")
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
            nominal=cov["nominal"],
            random_state=config["seed"],
            epsilon=epsilon,
        )

    @classmethod
    def from_params(cls, params: Mapping[str, Any], epsilon: float | None = None) -> CoverageSettings:
        """The settings back from :meth:`to_params` (the ``coverage_audit`` rule's
        ``params.coverage``, in its script); ``epsilon`` (the figure's, not the audit's): the
        ``coverage_figure`` rule's ``params.epsilon``, None where unused."""
        return cls(**params, epsilon=epsilon)

    def to_params(self) -> dict[str, Any]:
        """The ``coverage_audit`` rule's ``params.coverage``: every field but ``epsilon``, in order
        (the keyword arguments :func:`~xaipipe.studies.coverage.coverage_audit` took before these
        settings: the params of before)."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "epsilon"}


def _check_task(task: str) -> None:
    if task not in ("regression", "classification"):
        raise ValueError(f"task must be 'regression' or 'classification', got {task!r}")


#: The large-data policies: name -> (config key under ``large_data``, what is subsampled, the
#: Monte-Carlo error reported where it applies). Order of the ``large_data.csv`` table.
LARGE_DATA_POLICIES: dict[str, tuple[str, str, str]] = {
    "reliance": (
        "reliance_rows",
        "test rows of each repeat of permutation / e_divide / conditional_permutation / grouped_permutation MR "
        "(rule model_reliance)",
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
        (:func:`xaipipe.explain.reliance.model_reliance`, ``subsample_rows=``) and of the
        dependent-feature MR (``conditional_permutation``:
        :func:`xaipipe.explain.reliance.conditional_model_reliance`, ``subsample_rows=``;
        ``grouped_permutation``); None: off.
    shap_rows : int or None
        ``large_data.shap_rows``: test rows explained by SHAP, every family
        (:func:`xaipipe.explain.shapley.shap_tables`, ``large_data_rows=``); None: off.
    pd_rows : int or None
        ``large_data.pd_rows``: test rows averaged by the PD / ICE / 2-D PD of the ``pd_ice`` rule
        (:func:`xaipipe.explain.pdp.pd_ice_tables`, ``large_data_rows=``) and by the PD beside the
        ALE of the ``ale`` rule (:func:`xaipipe.explain.dependence.ale_tables`); None: off.
    shap_trees : int or None
        ``large_data.shap_trees``: trees of a random forest / extra trees explained by TreeSHAP (a
        seeded random sample; :func:`xaipipe.explain.shapley.shap_tables`, ``large_data_trees=``),
        part of the ``shap`` policy (same threshold); None: off.
    """

    min_rows: int
    reliance_rows: int | None
    shap_rows: int | None
    pd_rows: int | None
    shap_trees: int | None = None

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
        trees = section.get("shap_trees")
        return cls(min_rows=min_rows, **values, shap_trees=None if trees is None else int(trees))

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> LargeDataSettings:
        """The settings back from :meth:`to_params` (a rule's ``params.large_data`` in its script)."""
        return cls(**dict(params))

    def to_params(self) -> dict[str, Any]:
        """The rule's ``params.large_data``: ``min_rows`` and one key per policy (plain ints / None)."""
        policies = {key: getattr(self, key) for key, _, _ in LARGE_DATA_POLICIES.values()}
        return {"min_rows": self.min_rows, **policies, "shap_trees": self.shap_trees}

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

    def trees(self, n_rows: int) -> int | None:
        """Trees of a forest that SHAP explains on a dataset of ``n_rows`` test rows
        (``large_data.shap_trees`` where the ``shap`` policy's threshold is passed); None: all."""
        if self.shap_trees is None or not self.applies(n_rows):
            return None
        return self.shap_trees

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


#: Fields of :class:`ShapSettings` that are not keys of the ``explain.shap`` section: the family
#: (the rule's wildcard), ``seed`` and the large-data group (section ``large_data``). Every other
#: field is the ``explain.shap`` key of its name.
_SHAP_BORROWED = ("family", "seed", "large_data")


@dataclass(frozen=True)
class ShapSettings:
    """Settings of the SHAP step of one model family (``config["explain"]["shap"]``, ``seed`` and the
    large-data policy): what :func:`xaipipe.explain.shapley.shap_tables` needs besides the model and
    the data.

    Attributes
    ----------
    family : str
        The model family (``model`` column; the ``algorithm`` override is looked up for it).
    seed : int
        ``seed``: the row subsample, background sample and permutation SHAP's seed.
    max_rows : int or None
        ``explain.shap.max_rows``: explain at most this many test rows (seeded subsample).
    max_rows_random_forest : int or None
        ``explain.shap.max_rows_random_forest``: the row cap of families of the ``forest`` prefix kind
        (random forests, extra trees).
    background_size : int or None
        ``explain.shap.background_size``: background rows drawn from the training split.
    interactions : bool
        ``explain.shap.interactions``: SHAP interaction values where the algorithm is
        ``xgboost_pred_contribs``.
    algorithm : str
        ``explain.shap.algorithm.<family>``; ``"auto"`` when the family is not listed
        (:func:`xaipipe.explain.shap_check.shap_algorithm`).
    large_data : LargeDataSettings or None
        The large-data group (section ``large_data``, :class:`LargeDataSettings`): resolved per
        dataset by :meth:`large_data_rows`; None: no policy.
    """

    family: str
    seed: int
    max_rows: int | None
    max_rows_random_forest: int | None
    background_size: int | None
    interactions: bool
    algorithm: str = "auto"
    # -- large-data inputs (config section large_data), kept apart from the explain.shap keys --
    large_data: LargeDataSettings | None = None

    @classmethod
    def from_config(cls, config: Mapping[str, Any], family: str) -> ShapSettings:
        """Build and check the settings of ``family`` from a schema-validated configuration.

        Checks (each error names the config key): ``family`` and the families of
        ``explain.shap.algorithm`` are registered; the algorithms named there are known.

        Raises
        ------
        ValueError
            A check above fails, or one of :meth:`LargeDataSettings.from_config`'s.
        KeyError
            A key the schema's defaults always provide is missing (an unvalidated config).
        """
        from .explain.shap_check import shap_algorithm

        shap = config["explain"]["shap"]
        check_family("explain.shap", family)
        for name in shap["algorithm"]:
            check_family("explain.shap.algorithm", name)
        algorithm = shap_algorithm(family, shap["algorithm"])  # ValueError naming explain.shap.algorithm.<family>
        section = {f.name: shap[f.name] for f in fields(cls) if f.name not in _SHAP_BORROWED + ("algorithm",)}
        return cls(
            family=family,
            seed=config["seed"],
            algorithm=algorithm,
            large_data=LargeDataSettings.from_config(config),
            **section,
        )

    @classmethod
    def from_params(
        cls,
        shap: Mapping[str, Any],
        *,
        family: str,
        seed: int,
        large_data: Mapping[str, Any] | None = None,
    ) -> ShapSettings:
        """The settings back from the ``shap`` rule's params, in its script: ``params.shap``
        (:meth:`to_params`), the ``family`` wildcard, ``params.seed`` and ``params.large_data``
        (:meth:`LargeDataSettings.to_params`; None: no policy)."""
        return cls(
            family=family,
            seed=seed,
            large_data=None if large_data is None else LargeDataSettings.from_params(large_data),
            **dict(shap),
        )

    def to_params(self) -> dict[str, Any]:
        """The ``shap`` rule's ``params.shap``: the ``explain.shap`` keys in the order of the fields
        and ``algorithm`` last, only when it is overridden (not ``"auto"``), so that adding an
        override reruns no other family's SHAP job -- the params of the rule before these settings.
        ``seed`` and ``large_data`` are params of their own (:meth:`from_params`)."""
        params = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in _SHAP_BORROWED + ("algorithm",)}
        if self.algorithm != "auto":
            params["algorithm"] = self.algorithm
        return params

    @property
    def resolved_algorithm(self) -> str:
        """The algorithm the family gets: ``algorithm``, or the registry's where ``"auto"``
        (:attr:`xaipipe.models.families.Family.shap_algorithm`)."""
        from .models.families import get_family

        return get_family(self.family).shap_algorithm if self.algorithm == "auto" else self.algorithm

    @property
    def interaction_values(self) -> bool:
        """True when the SHAP job writes interaction values: ``interactions`` and the
        ``xgboost_pred_contribs`` algorithm (the ``shap_figures`` rule's interaction figures)."""
        return bool(self.interactions) and self.resolved_algorithm == "xgboost_pred_contribs"

    def large_data_rows(self, n_rows: int) -> int | None:
        """Test rows explained under the large-data policy on a dataset of ``n_rows`` test rows
        (``large_data.shap_rows`` where ``n_rows > large_data.min_rows``); None: the policy does not
        apply."""
        return None if self.large_data is None else self.large_data.rows("shap", n_rows)

    def large_data_trees(self, n_rows: int) -> int | None:
        """Trees of a forest explained under the large-data tree sample on a dataset of ``n_rows``
        test rows (``large_data.shap_trees`` where ``n_rows > large_data.min_rows``); None: all."""
        return None if self.large_data is None else self.large_data.trees(n_rows)


#: Fields of :class:`PdIceSettings` that are not keys of the ``explain.pd`` section: the seed, the
#: MR ranking that picks the variables, and the large-data group. Every other field is the
#: ``explain.pd`` key of its name.
_PD_BORROWED = ("seed", "loss", "ranking", "large_data")


@dataclass(frozen=True)
class PdIceSettings:
    """Settings of the PD / ICE step of one task (``config["explain"]["pd"]``, the MR ranking, ``seed``
    and the large-data policy): what :func:`xaipipe.explain.pdp.pd_ice_tables` needs besides the
    model, the data and the variables.

    Attributes
    ----------
    seed : int
        ``seed``: the large-data subsample's seed.
    loss : str
        ``explain.reliance.losses.<task>[0]``: the MR loss that ranks the variables.
    ranking : mapping
        ``explain.reliance.ranking`` (``estimator``, ``quantity``): the MR that ranks them.
    top_k, resolution, grid, percentiles, anchor, smooth, max_curves, pair_resolution, max_batch_rows
        The keys of the ``explain.pd`` section of those names (``config/README.md``): the top-k
        variables by MR, the grid (points, ``uniform`` / ``quantile``, percentile range), the c-ICE
        anchor, the d-ICE smoothing, the ICE curves kept, the 2-D PD's grid points per axis, the
        rows of one prediction batch.
    classification_output : {"proba", "logit"}
        ``explain.pd.classification_output``: a classifier's explained output (regression:
        ``predict``).
    large_data : LargeDataSettings or None
        The large-data group (section ``large_data``): resolved per dataset by
        :meth:`large_data_rows`; None: no policy.
    """

    seed: int
    loss: str
    ranking: Mapping[str, Any]
    top_k: int
    resolution: int
    grid: str
    percentiles: tuple[float, float]
    anchor: Any
    smooth: int
    max_curves: int | None
    pair_resolution: int
    max_batch_rows: int
    classification_output: str
    # -- large-data inputs (config section large_data), kept apart from the explain.pd keys --
    large_data: LargeDataSettings | None = None

    @classmethod
    def from_config(cls, config: Mapping[str, Any], task: str) -> PdIceSettings:
        """Build and check the settings of ``task`` from a schema-validated configuration.

        Checks (each error names the config key): ``explain.pd.percentiles`` is increasing;
        ``task`` is a task; :meth:`LargeDataSettings.from_config`'s.

        Raises
        ------
        ValueError
            A check above fails.
        KeyError
            A key the schema's defaults always provide is missing (an unvalidated config).
        """
        _check_task(task)
        explain = config["explain"]
        return cls.from_params(
            explain["pd"],
            ranking=explain["reliance"]["ranking"],
            loss=explain["reliance"]["losses"][task][0],
            seed=config["seed"],
            large_data=LargeDataSettings.from_config(config).to_params(),
        )

    @classmethod
    def from_params(
        cls,
        pd: Mapping[str, Any],
        *,
        ranking: Mapping[str, Any],
        loss: str,
        seed: int,
        large_data: Mapping[str, Any] | None = None,
    ) -> PdIceSettings:
        """The settings from the ``pd_ice`` rule's params, in its script: ``params.pd``
        (:meth:`to_params`: the ``explain.pd`` section), ``params.ranking``, ``params.loss``,
        ``params.seed`` and ``params.large_data`` (None: no policy).

        Raises
        ------
        ValueError
            ``explain.pd.percentiles`` is not increasing.
        """
        lo, hi = (float(v) for v in pd["percentiles"])
        if not lo < hi:
            raise ValueError(
                f"config key explain.pd.percentiles ({list(pd['percentiles'])}): the first must be below the "
                "second (the PD grid's range, e.g. [0.0, 1.0] or [0.05, 0.95])"
            )
        return cls(
            seed=seed,
            loss=loss,
            ranking=dict(ranking),
            large_data=None if large_data is None else LargeDataSettings.from_params(large_data),
            **{key: _frozen(value) for key, value in pd.items()},
        )

    def to_params(self) -> dict[str, Any]:
        """The ``pd_ice`` rule's ``params.pd``: the ``explain.pd`` keys in the order of the fields
        (lists, not tuples) -- the section the rule passed before these settings. ``ranking``,
        ``loss``, ``seed`` and ``large_data`` are params of their own (:meth:`from_params`)."""
        return {f.name: _plain(getattr(self, f.name)) for f in fields(self) if f.name not in _PD_BORROWED}

    def output(self, task: str) -> str:
        """The explained output on a dataset of ``task``: ``predict`` (regression) or
        ``classification_output``."""
        return "predict" if task == "regression" else self.classification_output

    def top_features(self, reliance) -> list[str]:
        """The ``top_k`` variables by MR (``ranking`` with ``loss``) of a ``model_reliance.csv``
        table (:func:`xaipipe.explain.summary.top_features`)."""
        from .explain.summary import top_features

        return top_features(
            reliance,
            self.top_k,
            estimator=self.ranking["estimator"],
            loss=self.loss,
            quantity=self.ranking["quantity"],
        )

    def large_data_rows(self, n_rows: int) -> int | None:
        """Rows the PD / ICE average under the large-data policy on a dataset of ``n_rows`` test rows
        (``large_data.pd_rows`` where ``n_rows > large_data.min_rows``); None: it does not apply."""
        return None if self.large_data is None else self.large_data.rows("pd", n_rows)


#: Fields of :class:`RelianceSettings` that are not keys of the ``explain.reliance`` section: the
#: task's losses, the seed and the large-data group. Every other field is the ``explain.reliance``
#: key of its name.
_RELIANCE_BORROWED = ("task_losses", "seed", "large_data")


@dataclass(frozen=True)
class RelianceSettings:
    """Settings of the MR step of one task (``config["explain"]["reliance"]``, ``seed`` and the
    large-data policy): what :func:`xaipipe.explain.summary.reliance_tables` and
    :func:`xaipipe.explain.dependence.dependent_reliance_rows` need besides the model and the data.

    Attributes
    ----------
    task_losses : tuple of str
        ``explain.reliance.losses.<task>``: the losses of the task's MR rows (the rule's
        ``params.losses``).
    seed : int
        ``seed``: the permutations' (and the large-data subsamples') seed.
    estimators, n_repeats, e_switch_max_rows
        The keys of the ``explain.reliance`` section of those names (``config/README.md``): the
        marginal MR estimators, permutations per variable, the ``e_switch`` row cap.
    losses : mapping task -> list of str
        ``explain.reliance.losses`` (both tasks; the section as the rule passes it).
    ranking : mapping
        ``explain.reliance.ranking`` (``estimator``, ``quantity``): the MR that ranks the variables
        of the PD / ICE, ALE, H-statistic and learner steps (not used by this step).
    dependent : mapping
        ``explain.reliance.dependent``: the MR under dependent features (``estimators``,
        ``max_depth``, ``min_samples_leaf``, ``correlation_threshold``, ``linkage``); no rows when
        its ``estimators`` are empty.
    large_data : LargeDataSettings or None
        The large-data group (section ``large_data``): resolved per dataset by
        :meth:`large_data_rows`; None: no policy.
    """

    task_losses: tuple[str, ...]
    seed: int
    estimators: tuple[str, ...]
    n_repeats: int
    e_switch_max_rows: int | None
    losses: Mapping[str, Any]
    ranking: Mapping[str, Any]
    dependent: Mapping[str, Any]
    # -- large-data inputs (config section large_data), kept apart from the explain.reliance keys --
    large_data: LargeDataSettings | None = None

    @classmethod
    def from_config(cls, config: Mapping[str, Any], task: str) -> RelianceSettings:
        """Build and check the settings of ``task`` from a schema-validated configuration.

        Checks (each error names the config key): ``explain.reliance.ranking.estimator`` is one of
        ``explain.reliance.estimators`` (the ranking reads its rows); ``task`` is a task;
        :meth:`LargeDataSettings.from_config`'s.

        Raises
        ------
        ValueError
            A check above fails.
        KeyError
            A key the schema's defaults always provide is missing (an unvalidated config).
        """
        _check_task(task)
        section = config["explain"]["reliance"]
        return cls.from_params(
            section,
            losses=section["losses"][task],
            seed=config["seed"],
            large_data=LargeDataSettings.from_config(config).to_params(),
        )

    @classmethod
    def from_params(
        cls,
        reliance: Mapping[str, Any],
        *,
        losses: Any,
        seed: int,
        large_data: Mapping[str, Any] | None = None,
    ) -> RelianceSettings:
        """The settings from the ``model_reliance`` rule's params, in its script: ``params.reliance``
        (:meth:`to_params`: the ``explain.reliance`` section), ``params.losses`` (the task's),
        ``params.seed`` and ``params.large_data`` (None: no policy).

        Raises
        ------
        ValueError
            As :meth:`from_config` (``explain.reliance.ranking.estimator``).
        """
        estimator = reliance["ranking"]["estimator"]
        if estimator not in reliance["estimators"]:
            raise ValueError(
                f"config key explain.reliance.ranking.estimator ({estimator!r}) must be one of "
                f"explain.reliance.estimators {list(reliance['estimators'])}: the ranking reads its MR rows "
                "(add it to the estimators or rank by one of them)"
            )
        return cls(
            task_losses=tuple(losses),
            seed=seed,
            large_data=None if large_data is None else LargeDataSettings.from_params(large_data),
            **{key: _frozen(value) for key, value in reliance.items()},
        )

    def to_params(self) -> dict[str, Any]:
        """The ``model_reliance`` rule's ``params.reliance``: the ``explain.reliance`` keys in the
        order of the fields (lists, not tuples) -- the section the rule passed before these
        settings. ``losses`` (the task's), ``seed`` and ``large_data`` are params of their own
        (:meth:`from_params`)."""
        return {f.name: _plain(getattr(self, f.name)) for f in fields(self) if f.name not in _RELIANCE_BORROWED}

    def large_data_rows(self, n_rows: int) -> int | None:
        """Test rows of each MR repeat under the large-data policy on a dataset of ``n_rows`` test
        rows (``large_data.reliance_rows`` where ``n_rows > large_data.min_rows``); None: it does not
        apply."""
        return None if self.large_data is None else self.large_data.rows("reliance", n_rows)


def _check_int(key: str, value: Any, minimum: int, *, null: bool = False) -> None:
    """A config value that must be an integer of at least ``minimum`` (or None where ``null``);
    else a ``ValueError`` naming ``key`` (the schema's check, repeated for settings built without
    it, e.g. in a notebook)."""
    if value is None and null:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(
            f"config key {key} ({value!r}) must be an integer of at least {minimum}" + (" or null" if null else "")
        )


#: Fields of :class:`AleSettings` / :class:`HStatisticSettings` that are not keys of their section
#: (``explain.ale``, ``explain.interactions``): the explained output and batch size (``explain.pd``),
#: the MR ranking, the class of a multiclass model, the seed, the family and the large-data group.
_DEPENDENCE_BORROWED = ("seed", "loss", "ranking", "output", "max_batch_rows", "figure_class", "family", "large_data")


@dataclass(frozen=True)
class AleSettings:
    """Settings of the ALE step of one task (``config["explain"]["ale"]`` and the ``explain.pd``
    pieces it shares with the PD / ICE step): what :func:`xaipipe.explain.dependence.ale_tables`
    needs besides the model, the data, the MR ranking and the pair.

    Attributes
    ----------
    seed : int
        ``seed``: the large-data subsample's seed.
    loss : str
        ``explain.reliance.losses.<task>[0]``: the MR loss that ranks the variables.
    ranking : mapping
        ``explain.reliance.ranking`` (``estimator``, ``quantity``).
    output : {"predict", "proba", "logit", "auto"}
        The explained output: ``predict`` for regression, ``explain.pd.classification_output``
        for classification (:meth:`PdIceSettings.output`).
    max_batch_rows : int
        ``explain.pd.max_batch_rows``: most rows per model call.
    figure_class : str, int, bool or None
        ``explain.figure_class``: a multiclass model's explained class (None: the first).
    n_bins, pair_bins, centering, figure_features
        The keys of the ``explain.ale`` section of those names (``config/README.md``): quantile
        bins of a numeric variable (1-D, per axis of the pair), the centring of the ALE and PD
        (``ale_plot`` / ``paper``), the variables of the figure (rule ``dependence_figures``).
    large_data : LargeDataSettings or None
        The large-data group (section ``large_data``): :meth:`large_data_rows`; None: no policy.
    """

    seed: int
    loss: str
    ranking: Mapping[str, Any]
    output: str
    max_batch_rows: int
    figure_class: Any
    n_bins: int
    pair_bins: int
    centering: str
    figure_features: int
    # -- large-data inputs (config section large_data), kept apart from the explain.ale keys --
    large_data: LargeDataSettings | None = None

    @classmethod
    def from_config(cls, config: Mapping[str, Any], task: str) -> AleSettings:
        """Build and check the settings of ``task`` from a schema-validated configuration (the
        output, batch size, ranking, seed and large-data group as :meth:`PdIceSettings.from_config`).

        Raises
        ------
        ValueError
            As :meth:`from_params`, :meth:`PdIceSettings.from_config`; ``task`` is not a task.
        """
        pd_ = PdIceSettings.from_config(config, task)
        return cls.from_params(
            config["explain"]["ale"],
            output=pd_.output(task),
            max_batch_rows=pd_.max_batch_rows,
            ranking=pd_.ranking,
            loss=pd_.loss,
            figure_class=config["explain"]["figure_class"],
            seed=pd_.seed,
            large_data=None if pd_.large_data is None else pd_.large_data.to_params(),
        )

    @classmethod
    def from_params(
        cls,
        ale: Mapping[str, Any],
        *,
        output: str,
        max_batch_rows: int,
        ranking: Mapping[str, Any],
        loss: str,
        figure_class: Any = None,
        seed: int = 0,
        large_data: Mapping[str, Any] | None = None,
    ) -> AleSettings:
        """The settings from the ``ale`` rule's params, in its script: ``params.ale``
        (:meth:`to_params`: the ``explain.ale`` section) and the params of those names.

        Raises
        ------
        ValueError
            ``explain.ale.n_bins`` / ``pair_bins`` / ``figure_features`` not a positive integer,
            ``explain.ale.centering`` not ``ale_plot`` or ``paper``, ``explain.pd.max_batch_rows``
            not a positive integer (each error names the key).
        """
        for key in ("n_bins", "pair_bins", "figure_features"):
            _check_int(f"explain.ale.{key}", ale[key], 1)
        if ale["centering"] not in ("ale_plot", "paper"):
            raise ValueError(
                f"config key explain.ale.centering ({ale['centering']!r}) must be 'ale_plot' (the ALEPlot "
                "package's centring) or 'paper' (Apley & Zhu 2020, eq. 16)"
            )
        _check_int("explain.pd.max_batch_rows", max_batch_rows, 1)
        return cls(
            seed=seed,
            loss=loss,
            ranking=dict(ranking),
            output=output,
            max_batch_rows=max_batch_rows,
            figure_class=figure_class,
            large_data=None if large_data is None else LargeDataSettings.from_params(large_data),
            **{key: _frozen(value) for key, value in ale.items()},
        )

    def to_params(self) -> dict[str, Any]:
        """The ``ale`` rule's ``params.ale``: the ``explain.ale`` keys in the order of the fields --
        the section the rule passed before these settings. ``output``, ``max_batch_rows``,
        ``ranking``, ``loss``, ``figure_class``, ``large_data`` and ``seed`` are params of their own
        (:meth:`from_params`)."""
        return {f.name: _plain(getattr(self, f.name)) for f in fields(self) if f.name not in _DEPENDENCE_BORROWED}

    def ranked_features(self, reliance) -> list[str]:
        """Every variable of a ``model_reliance.csv`` table by decreasing MR (``ranking`` with
        ``loss``; :func:`xaipipe.explain.summary.top_features` with ``k`` = the table's rows)."""
        from .explain.summary import top_features

        return top_features(
            reliance,
            len(reliance),
            estimator=self.ranking["estimator"],
            loss=self.loss,
            quantity=self.ranking["quantity"],
        )

    def large_data_rows(self, n_rows: int) -> int | None:
        """Rows of the ``pd`` column under the large-data policy on a dataset of ``n_rows`` test rows
        (``large_data.pd_rows`` where ``n_rows > large_data.min_rows``); None: it does not apply."""
        return None if self.large_data is None else self.large_data.rows("pd", n_rows)


@dataclass(frozen=True)
class HStatisticSettings:
    """Settings of the H-statistic step of one family on a dataset of one task
    (``config["explain"]["interactions"]`` and the ``explain.pd`` pieces it shares with the PD / ICE
    step): what :func:`xaipipe.explain.dependence.h_statistic_table` needs besides the model, the
    data and the top variables.

    Attributes
    ----------
    seed : int
        ``seed``: the row subsample's and the bootstrap's seed.
    loss, ranking, output, max_batch_rows, figure_class
        As :class:`AleSettings`.
    family : str or None
        The model family: a forest family (prefix kind ``forest``: random forests, extra trees) is
        evaluated on ``n_rows_random_forest`` rows (n² evaluations of up to 2 000 deep trees); None:
        ``n_rows``.
    top_k, n_rows, n_rows_random_forest, n_bootstrap, max_display
        The keys of the ``explain.interactions`` section of those names (``config/README.md``):
        pairs of the top-k variables by MR, rows of the subsample (None: all), the forests' rows,
        bootstrap resamples of the SE (0: none), bars of the figures.
    """

    seed: int
    loss: str
    ranking: Mapping[str, Any]
    output: str
    max_batch_rows: int
    figure_class: Any
    top_k: int
    n_rows: int | None
    n_rows_random_forest: int | None
    n_bootstrap: int
    max_display: int
    family: str | None = None

    @classmethod
    def from_config(cls, config: Mapping[str, Any], task: str, family: str) -> HStatisticSettings:
        """Build and check the settings of ``family`` on a dataset of ``task`` from a
        schema-validated configuration.

        Raises
        ------
        ValueError
            As :meth:`from_params`, :meth:`PdIceSettings.from_config`; ``family`` not registered
            (:func:`check_family`); ``task`` not a task.
        """
        pd_ = PdIceSettings.from_config(config, task)
        check_family("explain.interactions (the h_statistic rule's family)", family)
        return cls.from_params(
            config["explain"]["interactions"],
            family=family,
            output=pd_.output(task),
            max_batch_rows=pd_.max_batch_rows,
            ranking=pd_.ranking,
            loss=pd_.loss,
            figure_class=config["explain"]["figure_class"],
            seed=pd_.seed,
        )

    @classmethod
    def from_params(
        cls,
        interactions: Mapping[str, Any],
        *,
        family: str | None,
        output: str,
        max_batch_rows: int,
        ranking: Mapping[str, Any],
        loss: str,
        figure_class: Any = None,
        seed: int = 0,
    ) -> HStatisticSettings:
        """The settings from the ``h_statistic`` rule's params and its ``family`` wildcard, in its
        script: ``params.interactions`` (:meth:`to_params`: the ``explain.interactions`` section)
        and the params of those names (``params.n_rows`` is :attr:`rows`).

        Raises
        ------
        ValueError
            ``explain.interactions.top_k`` below 2, ``n_rows`` / ``n_rows_random_forest`` below 2
            (null: all rows), ``n_bootstrap`` 1 (one resample has no SE: 0 for none, else at least
            2), ``max_display`` below 1, ``explain.pd.max_batch_rows`` below 1 (each error names
            the key).
        """
        _check_int("explain.interactions.top_k", interactions["top_k"], 2)
        for key in ("n_rows", "n_rows_random_forest"):
            _check_int(f"explain.interactions.{key}", interactions[key], 2, null=True)
        _check_int("explain.interactions.n_bootstrap", interactions["n_bootstrap"], 0)
        if interactions["n_bootstrap"] == 1:
            raise ValueError(
                "config key explain.interactions.n_bootstrap (1): one bootstrap resample has no standard "
                "error; use 0 (no SE) or at least 2 (e.g. 50)"
            )
        _check_int("explain.interactions.max_display", interactions["max_display"], 1)
        _check_int("explain.pd.max_batch_rows", max_batch_rows, 1)
        return cls(
            seed=seed,
            loss=loss,
            ranking=dict(ranking),
            output=output,
            max_batch_rows=max_batch_rows,
            figure_class=figure_class,
            family=family,
            **{key: _frozen(value) for key, value in interactions.items()},
        )

    def to_params(self) -> dict[str, Any]:
        """The ``h_statistic`` rule's ``params.interactions``: the ``explain.interactions`` keys in
        the order of the fields -- the section the rule passed before these settings. ``n_rows``
        (:attr:`rows`), ``output``, ``max_batch_rows``, ``ranking``, ``loss``, ``seed`` and
        ``figure_class`` are params of their own; the family is the rule's wildcard."""
        return {f.name: _plain(getattr(self, f.name)) for f in fields(self) if f.name not in _DEPENDENCE_BORROWED}

    @property
    def rows(self) -> int | None:
        """Rows of the H² subsample of this family: ``n_rows_random_forest`` for a forest family
        (registry prefix kind ``forest``), else ``n_rows`` (None: every test row)."""
        if self.family is None:
            return self.n_rows
        from .models.families import get_family

        return self.n_rows_random_forest if get_family(self.family).prefix == "forest" else self.n_rows

    def top_features(self, reliance) -> list[str]:
        """The ``top_k`` variables by MR (``ranking`` with ``loss``) of a ``model_reliance.csv``
        table (:func:`xaipipe.explain.summary.top_features`)."""
        from .explain.summary import top_features

        return top_features(
            reliance, self.top_k, estimator=self.ranking["estimator"], loss=self.loss, quantity=self.ranking["quantity"]
        )


#: Fields of :class:`LimeSettings` that are not keys of the ``explain.lime`` section.
_LIME_BORROWED = ("seed", "figure_class")


@dataclass(frozen=True)
class LimeSettings:
    """Settings of the LIME step (``config["explain"]["lime"]``, ``seed`` and
    ``explain.figure_class``): what :func:`xaipipe.explain.lime.lime_tables` needs besides the model,
    the data and the SHAP values.

    Attributes
    ----------
    seed : int
        ``seed``: the sample of test rows and LIME's neighbourhoods.
    figure_class : str, int, bool or None
        ``explain.figure_class``: a multiclass model's explained class (None: the first).
    enabled, dataset, family, n_rows, num_samples
        The keys of the ``explain.lime`` section of those names (``config/README.md``): whether the
        default target asks for it, the dataset and the family it runs on, the test rows explained
        besides the force-plot rows, LIME's neighbourhood size.
    """

    seed: int
    figure_class: Any
    enabled: bool
    dataset: str
    family: str
    n_rows: int
    num_samples: int

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> LimeSettings:
        """Build and check the settings from a schema-validated configuration.

        Raises
        ------
        ValueError
            As :meth:`from_params`; ``explain.lime.family`` is not a registered family (when
            ``explain.lime.enabled``).
        """
        section = config["explain"]["lime"]
        if section["enabled"]:
            check_family("explain.lime.family", section["family"])
        return cls.from_params(section, seed=config["seed"], figure_class=config["explain"]["figure_class"])

    @classmethod
    def from_params(cls, lime: Mapping[str, Any], *, seed: int, figure_class: Any = None) -> LimeSettings:
        """The settings from the ``lime`` rule's params, in its script: ``params.lime``
        (:meth:`to_params`: the ``explain.lime`` section), ``params.seed``, ``params.figure_class``.

        Raises
        ------
        ValueError
            ``explain.lime.n_rows`` below 0 or ``explain.lime.num_samples`` below 10 (LIME's
            surrogate needs a neighbourhood), each naming the key.
        """
        _check_int("explain.lime.n_rows", lime["n_rows"], 0)
        _check_int("explain.lime.num_samples", lime["num_samples"], 10)
        return cls(seed=seed, figure_class=figure_class, **{key: _frozen(value) for key, value in lime.items()})

    def to_params(self) -> dict[str, Any]:
        """The ``lime`` rule's ``params.lime``: the ``explain.lime`` keys in the order of the fields --
        the section the rule passed before these settings; ``seed`` and ``figure_class`` are params
        of their own."""
        return {f.name: _plain(getattr(self, f.name)) for f in fields(self) if f.name not in _LIME_BORROWED}

    def rows(self, row_index, named: Mapping[str, int]) -> list[int]:
        """The positions in ``X_test`` that LIME explains: the force-plot rows ``named`` and
        ``n_rows`` (at most the rest) of the other rows of ``row_index`` (the SHAP result's rows),
        drawn without replacement with ``np.random.default_rng(seed)``; sorted."""
        import numpy as np

        others = np.setdiff1d(row_index, list(named.values()))
        extra = np.random.default_rng(self.seed).choice(others, size=min(self.n_rows, len(others)), replace=False)
        return sorted({*named.values(), *map(int, extra)})


#: Fields of :class:`CorrelatedSettings` that are not keys of ``simulation_truth.correlated``.
_CORRELATED_BORROWED = ("seed", "n_repeats", "dependent", "split", "options")
#: Keys of ``simulation_truth.correlated`` that choose the jobs, not the step's computation (not in
#: the rule's ``params.correlated_options``).
_CORRELATED_JOB_KEYS = ("enabled", "families")


@dataclass(frozen=True)
class CorrelatedSettings:
    """Settings of the correlated variants of the simulated datasets (``simulation_truth.correlated``
    with the dependent-MR estimators' settings, the split and the estimator options): what
    :func:`xaipipe.studies.correlated.correlated_truth_table` needs besides the DGP and the refitted
    families' configurations.

    Attributes
    ----------
    seed : int
        ``seed``: the draw, the split, the fits, the permutations and the Monte Carlo.
    n_repeats : int
        ``explain.reliance.n_repeats``: permutations per variable.
    dependent : mapping
        ``explain.reliance.dependent`` (``estimators``, ``max_depth``, ``min_samples_leaf``,
        ``correlation_threshold``, ``linkage``): the conditional and grouped MR estimators.
    split : mapping
        The ``split`` section: ``test_size`` and ``cv_folds`` split the variant as the pipeline
        splits a dataset.
    options : mapping
        ``estimator_options`` (family -> keyword arguments).
    enabled, families, n, coupling_sd, n_mc
        The keys of ``simulation_truth.correlated`` of those names (``config/README.md``): whether
        the variants run, the families refitted on them, rows of a variant, :math:`\\tau` of
        :math:`x_2 = x_1 + N(0, \\tau^2)`, Monte-Carlo rows of each truth.
    """

    seed: int
    n_repeats: int
    dependent: Mapping[str, Any]
    split: Mapping[str, Any]
    options: Mapping[str, Any]
    enabled: bool
    families: tuple[str, ...]
    n: int
    coupling_sd: float
    n_mc: int

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> CorrelatedSettings:
        """Build and check the settings from a schema-validated configuration.

        Raises
        ------
        ValueError
            A family of ``simulation_truth.correlated.families`` is not a registered regression
            family (:func:`check_family`); as :meth:`from_params`.
        """
        section = config["simulation_truth"]["correlated"]
        for family in section["families"]:
            check_family("simulation_truth.correlated.families", family, "regression")
        reliance = config["explain"]["reliance"]
        params = {
            **{k: v for k, v in section.items() if k not in _CORRELATED_JOB_KEYS},
            "reliance": {"n_repeats": reliance["n_repeats"], **reliance["dependent"]},
            "split": config["split"],
            "options": config["estimator_options"],
        }
        return cls.from_params(params, seed=config["seed"], enabled=section["enabled"], families=section["families"])

    @classmethod
    def from_params(
        cls, params: Mapping[str, Any], *, seed: int, enabled: bool = True, families: Any = ()
    ) -> CorrelatedSettings:
        """The settings from the ``simulation_truth`` rule's ``params.correlated_options``
        (:meth:`to_params`) and ``params.seed``, in its script; ``enabled`` and ``families`` choose
        the jobs (the rule's ``params.correlated``, the families' best configurations).

        Raises
        ------
        ValueError
            ``simulation_truth.correlated.n`` below 20, ``n_mc`` below 100 or ``coupling_sd`` not
            positive (each naming the key).
        """
        p = dict(params)
        reliance = dict(p.pop("reliance"))
        n_repeats = reliance.pop("n_repeats")
        _check_int("simulation_truth.correlated.n", p["n"], 20)
        _check_int("simulation_truth.correlated.n_mc", p["n_mc"], 100)
        tau = p["coupling_sd"]
        if isinstance(tau, bool) or not isinstance(tau, (int, float)) or not tau > 0:
            raise ValueError(
                f"config key simulation_truth.correlated.coupling_sd ({tau!r}) must be a positive number "
                "(the sd of x2 - x1; e.g. 0.1)"
            )
        return cls(
            seed=seed,
            n_repeats=n_repeats,
            dependent=reliance,
            split=dict(p.pop("split")),
            options=dict(p.pop("options")),
            enabled=enabled,
            families=tuple(families),
            **{key: _frozen(value) for key, value in p.items()},
        )

    def to_params(self) -> dict[str, Any]:
        """The ``simulation_truth`` rule's ``params.correlated_options``: the
        ``simulation_truth.correlated`` keys but ``enabled`` and ``families``, then ``reliance``
        (``n_repeats`` and ``explain.reliance.dependent``), ``split`` and ``options`` -- the dict the
        rule passed before these settings."""
        section = {
            f.name: _plain(getattr(self, f.name))
            for f in fields(self)
            if f.name not in _CORRELATED_BORROWED + _CORRELATED_JOB_KEYS
        }
        return {
            **section,
            "reliance": {"n_repeats": self.n_repeats, **self.dependent},
            "split": dict(self.split),
            "options": dict(self.options),
        }


def abalone_study_shards(config: Mapping[str, Any]) -> int:
    """Jobs the Abalone Table 4.1 CV is split into (rules of ``abalone_study``): config key
    ``rashomon.abalone_study.n_shards``, at most the grid's fit units (prefix groups:
    :func:`xaipipe.models.cv.n_fit_units` of ``rashomon.abalone_study.family`` and ``.grid``).

    Raises
    ------
    ValueError
        ``rashomon.abalone_study.family`` is not a registered family (:func:`check_family`).
    """
    from .models.cv import n_fit_units

    study = config["rashomon"]["abalone_study"]
    check_family("rashomon.abalone_study.family", study["family"])
    return min(study["n_shards"], n_fit_units(study["family"], study["grid"]))


def sample_size_checks(
    config: Mapping[str, Any], task: str, families: list[str], sampled: list[str] | tuple[str, ...] = ()
) -> dict[str, Any]:
    """What the split job of a dataset checks beyond the folds and the test split (the ``split``
    rule's ``params.checks``: the keywords of :func:`xaipipe.data.split.check_sample_size`).

    The Rashomon bootstrap's resamples (``rashomon.bootstrap``: when enabled and one of its
    ``families`` runs on the dataset), the learner refits (``explain.learner``: when one of its
    ``families`` runs on it) and the largest ``n_neighbors`` of a family's configurations (kNN: each
    CV fold must train on that many rows; the config key it comes from: the grid's
    ``grids.<task>.<family>.n_neighbors`` or the random search's
    ``rashomon.sample.families.<task>.<family>``).

    Parameters
    ----------
    config : mapping
        A schema-validated configuration.
    task : {"regression", "classification"}
        The dataset's task.
    families : list of str
        The families run on the dataset (``datasets.<d>.families`` or every family of the task's
        grid).
    sampled : sequence of str
        The families of the task that are only sampled (no grid): Rashomon-set members only.

    Returns
    -------
    dict
        ``bootstrap`` (``n_bootstrap``, ``random_state``), ``learner`` (``n_refits``, ``fraction``,
        ``random_state``) and ``min_fit_rows`` (``"n_neighbors = k of <config key>"`` -> ``k``), each
        only where it applies; the dict of the rule before this function (same keys, order, values).

    Raises
    ------
    ValueError
        As :meth:`CVSettings.from_config` (a family without a grid or random search).
    """
    from .models.cv import fit_configurations

    _check_task(task)
    out: dict[str, Any] = {}
    boot = config["rashomon"]["bootstrap"]
    if boot["enabled"] and any(f in families for f in boot["families"]):
        out["bootstrap"] = {"n_bootstrap": boot["n_bootstrap"], "random_state": config["seed"]}
    learner = config["explain"]["learner"]
    if any(f in learner["families"] for f in families):
        out["learner"] = {
            "n_refits": learner["n_refits"],
            "fraction": learner["fraction"],
            "random_state": config["seed"],
        }
    rows = {}
    for family in dict.fromkeys(list(families) + list(sampled)):
        cv = CVSettings.from_config(config, task, family)
        configs = fit_configurations(family, cv.grid, sample=cv.sample, random_state=cv.seed)
        n_grid = len(fit_configurations(family, cv.grid)) if cv.grid is not None else 0
        default = cv.options.get("n_neighbors")
        values = [(c.get("n_neighbors", default), i < n_grid) for i, c in enumerate(configs)]
        values = [(int(v), from_grid) for v, from_grid in values if v is not None]
        if values:
            largest, from_grid = max(values)
            key = f"grids.{task}.{family}.n_neighbors" if from_grid else f"rashomon.sample.families.{task}.{family}"
            rows[f"n_neighbors = {largest} of {key}"] = largest
    if rows:
        out["min_fit_rows"] = rows
    return out


#: The losses SAGE can play (per-sample losses of :data:`xaipipe.losses.LOSSES`).
_SAGE_LOSSES = ("squared_error", "log_loss", "zero_one")


@dataclass(frozen=True)
class SageSettings:
    """Settings of the SAGE step (``config["explain"]["sage"]``, ``seed`` and the MR loss of each
    task): what :func:`xaipipe.explain.sage.sage_table` needs besides the model and the data
    (rule ``sage``; ``docs/sage.md``).

    Every field has the default of its config key (``workflow/schemas/config.schema.yaml``); the
    rule passes ONE param, :meth:`to_params`, and its script rebuilds the object with
    :meth:`from_params`.

    Attributes
    ----------
    seed : int
        ``seed``: the background sample, the row cap's subsample and the estimator's draws.
    losses : mapping task -> str
        ``explain.reliance.losses.<task>[0]``: SAGE's loss is the task's first MR loss.
    families : tuple of str or None
        ``explain.sage.families``: the families whose fitted model gets SAGE (None: every family
        the dataset runs). Default: every registered family but the forests (``random_forest``,
        ``extra_trees``: 52 CPU-s for Concrete's forest, more on larger data) and ``knn`` (53 CPU-s on
        Breast Cancer without converging; ``docs/sage.md``, "Cost").
    threshold : float
        ``explain.sage.threshold``: convergence when the largest SE is below ``threshold`` times
        the range of the SAGE values (the ``sage-importance`` package's rule; its default 0.025).
    background_size : int or None
        ``explain.sage.background_size``: training rows (seeded sample) over which a removed
        variable is averaged out (marginal imputer); None: every training row.
    batch_size : int
        ``explain.sage.batch_size``: permutations between two convergence checks.
    max_permutations : int
        ``explain.sage.max_permutations``: the cap (``converged`` is False when it is reached first).
    max_rows : int or None
        ``explain.sage.max_rows``: test rows the permutations sample from (a seeded subsample above
        it); None: every test row.
    """

    seed: int = 20250223
    losses: Mapping[str, str] = field(
        default_factory=lambda: {"regression": "squared_error", "classification": "log_loss"}
    )
    families: tuple[str, ...] | None = (
        "linear_regression",
        "logistic_regression",
        "decision_tree",
        "gradient_boosting",
        "xgboost",
        "gaussian_nb",
        "qda",
    )
    threshold: float = 0.05
    background_size: int | None = 32
    batch_size: int = 128
    max_permutations: int = 16384
    max_rows: int | None = None

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> SageSettings:
        """Build and check the settings from a schema-validated configuration.

        Raises
        ------
        ValueError
            As :meth:`from_params`; a name of ``explain.sage.families`` that is not a registered
            family (:func:`check_family`).
        """
        section = dict(config["explain"]["sage"])
        for family in section.get("families") or ():
            check_family("explain.sage.families", family)
        losses = {task: list(v)[0] for task, v in config["explain"]["reliance"]["losses"].items()}
        return cls.from_params({**section, "seed": config["seed"], "losses": losses})

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> SageSettings:
        """The settings from ONE dict (:meth:`to_params`; the ``sage`` rule's ``params.settings``).

        Raises
        ------
        ValueError
            ``explain.sage.threshold`` outside (0, 1); ``background_size``, ``batch_size``,
            ``max_permutations`` or ``max_rows`` not a positive integer (``background_size`` and
            ``max_rows`` may be null); ``max_permutations`` below ``batch_size``; a loss SAGE cannot
            play (``explain.reliance.losses.<task>[0]``); an unknown key. Each error names the key.
        """
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(params) - known)
        if unknown:
            raise ValueError(f"config section explain.sage: unknown key(s) {unknown}; keys are {sorted(known)}")
        threshold = params.get("threshold", cls.threshold)
        if isinstance(threshold, bool) or not isinstance(threshold, int | float) or not 0 < threshold < 1:
            raise ValueError(f"config key explain.sage.threshold must lie in (0, 1), got {threshold!r}")
        for key in ("batch_size", "max_permutations"):
            _check_int(f"explain.sage.{key}", params.get(key, getattr(cls, key)), 1)
        for key in ("background_size", "max_rows"):
            _check_int(f"explain.sage.{key}", params.get(key, getattr(cls, key)), 1, null=True)
        batch = params.get("batch_size", cls.batch_size)
        if params.get("max_permutations", cls.max_permutations) < batch:
            raise ValueError(
                f"config key explain.sage.max_permutations ({params.get('max_permutations')}) must be at least "
                f"explain.sage.batch_size ({batch}): the estimator samples whole batches"
            )
        losses = dict(params.get("losses") or cls().losses)
        for task, loss in losses.items():
            if loss not in _SAGE_LOSSES:
                raise ValueError(
                    f"config key explain.reliance.losses.{task}: SAGE plays the task's first MR loss, which must be "
                    f"one of {list(_SAGE_LOSSES)}; got {loss!r}"
                )
        families = params.get("families")
        values = {k: v for k, v in params.items() if k not in ("losses", "families")}
        return cls(**values, losses=losses, families=None if families is None else tuple(families))

    def to_params(self) -> dict[str, Any]:
        """ONE plain dict (the ``sage`` rule's ``params.settings``): every field by its name."""
        return {f.name: _plain(getattr(self, f.name)) for f in fields(self)}

    def loss(self, task: str) -> str:
        """SAGE's loss for ``task`` (the task's first MR loss)."""
        _check_task(task)
        return self.losses[task]

    def runs(self, family: str) -> bool:
        """Whether ``explain.sage.families`` asks for SAGE of ``family`` (None: every family)."""
        return self.families is None or family in self.families


@dataclass(frozen=True)
class LearnerEffectsSettings:
    """Settings of the learner step's SHAP importance and ALE (issue 45, item 1; rule ``learner``,
    param ``effects``): from the same refits as learner-PD / PFI
    (:mod:`xaipipe.explain.learner_effects`).

    Every field's default is the schema's.

    Attributes
    ----------
    shap, ale : bool
        ``explain.learner.effects`` lists ``shap`` / ``ale`` (default both).
    shap_max_rows : int or None
        ``explain.learner.shap_max_rows``: held-out rows explained per refit (seeded subsample).
    shap_algorithm : str
        ``explain.shap.algorithm.<family>`` (``"auto"`` when the family is not listed): the SHAP
        algorithm of the ``shap`` rule.
    background_size : int or None
        ``explain.shap.background_size``.
    ale_bins : int
        ``explain.ale.n_bins``: the ALE grid's quantile bins (merged where a refit's held-out rows
        leave a bin empty).
    ale_centering : str
        ``explain.ale.centering``.
    """

    shap: bool = True
    ale: bool = True
    shap_max_rows: int | None = 200
    shap_algorithm: str = "auto"
    background_size: int | None = 100
    ale_bins: int = 20
    ale_centering: str = "ale_plot"

    @classmethod
    def from_config(cls, config: Mapping[str, Any], family: str) -> LearnerEffectsSettings:
        """Build and check the settings of ``family``'s learner job from a schema-validated config.

        Raises
        ------
        ValueError
            ``explain.learner.effects`` names something other than ``shap`` / ``ale``, or twice
            (the schema says so too; the message names the key).
        """
        explain = config["explain"]
        effects = list(explain["learner"].get("effects", ["shap", "ale"]))
        bad = [e for e in effects if e not in ("shap", "ale")]
        if bad or len(set(effects)) != len(effects):
            raise ValueError(
                f"config key explain.learner.effects ({effects}): a subset of [shap, ale], each at most once"
            )
        algorithms = explain["shap"].get("algorithm") or {}
        return cls(
            shap="shap" in effects,
            ale="ale" in effects,
            shap_max_rows=explain["learner"].get("shap_max_rows", 200),
            shap_algorithm=str(algorithms.get(family, "auto")),
            background_size=explain["shap"]["background_size"],
            ale_bins=explain["ale"]["n_bins"],
            ale_centering=explain["ale"]["centering"],
        )

    def to_params(self) -> dict[str, Any]:
        """The rule's ``params.effects``: every field, in order (a plain dict)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> LearnerEffectsSettings:
        """The settings back from :meth:`to_params` (in the ``learner`` script)."""
        return cls(**dict(params))
