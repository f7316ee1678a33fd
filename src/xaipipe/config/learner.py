"""Settings of the learner step: :class:`LearnerSettings` (rule ``learner``; Molnar et al. 2023) and
its learner-SHAP / ALE part, :class:`LearnerEffectsSettings` (issue 45).

The refit design of these settings is :func:`xaipipe.explain.learner.refit_design`; the refits'
SHAP / ALE, :func:`xaipipe.explain.learner.refit_effects_of`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ._base import RANKING, SEED, Settings, check_family, check_percentiles, check_task

__all__ = ["LearnerEffectsSettings", "LearnerSettings"]


@dataclass(frozen=True)
class LearnerEffectsSettings(Settings):
    """Settings of the learner step's SHAP importance and ALE (issue 45, item 1; rule ``learner``, a
    field of :class:`LearnerSettings`): from the same refits as learner-PD / PFI
    (:mod:`xaipipe.explain.learner`).

    Attributes
    ----------
    effects : tuple of str, default ("shap", "ale")
        ``explain.learner.effects``: a subset of ``shap`` (learner-SHAP importance) and ``ale``
        (learner-ALE); ``()`` for neither.
    shap_max_rows : int or None, default 200
        ``explain.learner.shap_max_rows``: held-out rows explained per refit (seeded subsample).
    shap_algorithm : str, default "auto"
        ``explain.shap.algorithm.<family>`` (``"auto"`` when the family is not listed): the SHAP
        algorithm of the ``shap`` rule.
    background_size : int or None, default 100
        ``explain.shap.background_size``.
    ale_bins : int, default 20
        ``explain.ale.n_bins``: the ALE grid's quantile bins (merged where a refit's held-out rows
        leave a bin empty).
    ale_centering : str, default "ale_plot"
        ``explain.ale.centering``.

    Raises
    ------
    ValueError
        ``effects`` names something other than ``shap`` / ``ale``, or one twice (naming
        ``explain.learner.effects``).
    """

    effects: tuple[str, ...] = ("shap", "ale")
    shap_max_rows: int | None = 200
    shap_algorithm: str = "auto"
    background_size: int | None = 100
    ale_bins: int = 20
    ale_centering: str = "ale_plot"

    KEYS = {
        "effects": "explain.learner.effects",
        "shap_max_rows": "explain.learner.shap_max_rows",
        "shap_algorithm": "explain.shap.algorithm.{family}",
        "background_size": "explain.shap.background_size",
        "ale_bins": "explain.ale.n_bins",
        "ale_centering": "explain.ale.centering",
    }

    def __post_init__(self):
        effects = list(self.effects)
        if any(e not in ("shap", "ale") for e in effects) or len(set(effects)) != len(effects):
            raise ValueError(
                f"config key explain.learner.effects ({effects}): a subset of [shap, ale], each at most once"
            )

    @property
    def shap(self) -> bool:
        """``explain.learner.effects`` lists ``shap``."""
        return "shap" in self.effects

    @property
    def ale(self) -> bool:
        """``explain.learner.effects`` lists ``ale``."""
        return "ale" in self.effects

    @classmethod
    def from_config(cls, config: Mapping[str, Any], family: str = "gradient_boosting") -> LearnerEffectsSettings:
        """Build and check the settings of ``family``'s learner job from a schema-validated config.

        Raises
        ------
        ValueError
            As the constructor.
        KeyError
            A key the schema's defaults always provide is missing (an unvalidated config).
        """
        explain = config["explain"]
        return cls.from_params(
            {
                "effects": explain["learner"]["effects"],
                "shap_max_rows": explain["learner"]["shap_max_rows"],
                "shap_algorithm": str((explain["shap"]["algorithm"] or {}).get(family, "auto")),
                "background_size": explain["shap"]["background_size"],
                "ale_bins": explain["ale"]["n_bins"],
                "ale_centering": explain["ale"]["centering"],
            }
        )


@dataclass(frozen=True)
class LearnerSettings(Settings):
    """Settings of the learner step of one family on a dataset of one task
    (``config["explain"]["learner"]`` and the keys it borrows): learner-PD / learner-PFI with
    corrected intervals (Molnar et al. 2023).

    Attributes
    ----------
    task : {"regression", "classification"}, default "regression"
    family : str, default "gradient_boosting"
        The family whose best configuration is refitted.
    options : mapping, default {}
        ``estimator_options.<family>``: its fixed constructor arguments.
    seed : int, default 20250223
        ``seed``: root seed of the refits' subsamples, estimator seeds and permutations.
    n_refits, fraction, resolution, grid, percentiles, pfi_estimator, n_repeats, confidence
        The keys of the ``explain.learner`` section of those names (``config/README.md``; defaults
        10, 0.632, 20, ``"uniform"``, (0.0, 1.0), ``"permutation"``, 5, 0.95): ``K``, the training
        share of a refit, the PD grid (points, ``uniform`` / ``quantile``, percentile range), the
        MR estimator of the learner-PFI, its permutations, the interval level.
    top_k : int, default 2
        ``explain.pd.top_k``: the learner-PD's variables are the model's top ``k`` by MR.
    ranking_estimator, ranking_quantity : str, default "permutation", "mr_difference"
        ``explain.reliance.ranking.estimator`` / ``.quantity``: the MR that ranks them.
    loss : str, default ``explain.reliance.losses.<task>[0]``'s
        The loss of that ranking (the learner-PFI's own loss is
        :func:`xaipipe.explain.learner.learner_refits`' default: ``squared_error`` / ``log_loss``).
    figure_class : str, int, bool or None, default None
        ``explain.figure_class``: a multiclass model's learner-PD is this class's probability
        (None: the first class).
    effects : LearnerEffectsSettings, default LearnerEffectsSettings()
        Learner-SHAP importance and learner-ALE from the same refits (keys
        ``explain.learner.effects``, ``explain.learner.shap_max_rows`` and the SHAP / ALE keys it
        borrows), passed as a nested dict.

    ``explain.learner.families`` chooses the jobs (a job per family listed): no field;
    ``explain.learner.shap_max_rows`` is a field of ``effects``.

    Raises
    ------
    ValueError
        ``percentiles`` not increasing (naming ``explain.learner.percentiles``); ``task`` not a task.
    """

    task: str = "regression"
    family: str = "gradient_boosting"
    options: Mapping[str, Any] = field(default_factory=dict)
    seed: int = SEED
    n_refits: int = 10
    fraction: float = 0.632
    resolution: int = 20
    grid: str = "uniform"
    percentiles: tuple[float, float] = (0.0, 1.0)
    pfi_estimator: str = "permutation"
    n_repeats: int = 5
    confidence: float = 0.95
    top_k: int = 2
    ranking_estimator: str = RANKING["estimator"]
    ranking_quantity: str = RANKING["quantity"]
    loss: str | None = None
    figure_class: Any = None
    effects: LearnerEffectsSettings = field(default_factory=LearnerEffectsSettings)

    SECTION = "explain.learner"
    KEYS = {
        "task": None,
        "family": None,
        "options": "estimator_options.{family}",
        "seed": "seed",
        "top_k": "explain.pd.top_k",
        "ranking_estimator": "explain.reliance.ranking.estimator",
        "ranking_quantity": "explain.reliance.ranking.quantity",
        "loss": "explain.reliance.losses.{task}[0]",
        "figure_class": "explain.figure_class",
        "effects": "explain.learner.effects",
    }
    JOB_KEYS = ("families", "shap_max_rows")
    NESTED = {"effects": LearnerEffectsSettings}

    def __post_init__(self):
        self._resolve_task_loss()
        check_percentiles("explain.learner.percentiles", self.percentiles)

    @classmethod
    def from_config(cls, config: Mapping[str, Any], task: str, family: str = "gradient_boosting") -> LearnerSettings:
        """Build and check the settings of ``family`` on a dataset of ``task`` from a schema-validated
        configuration.

        Raises
        ------
        ValueError
            One of these checks fails (the error names the config key): the families of
            ``explain.learner.families`` are registered; ``explain.learner.percentiles`` is increasing;
            ``task`` is a task.
        KeyError
            A key the schema's defaults always provide is missing (an unvalidated config).
        """
        check_task(task)
        explain = config["explain"]
        for name in explain["learner"]["families"]:
            check_family("explain.learner.families", name)
        ranking = explain["reliance"]["ranking"]
        return cls.from_params(
            {
                **{key: explain["learner"][key] for key in cls.section_fields()},
                "task": task,
                "family": family,
                "options": config["estimator_options"].get(family, {}),
                "seed": config["seed"],
                "top_k": explain["pd"]["top_k"],
                "ranking_estimator": ranking["estimator"],
                "ranking_quantity": ranking["quantity"],
                "loss": explain["reliance"]["losses"][task][0],
                "figure_class": explain["figure_class"],
                "effects": LearnerEffectsSettings.from_config(config, family).to_params(),
            }
        )
