"""Settings of the learner step: :class:`LearnerSettings` (rule ``learner``; Molnar et al. 2023).

The refit design of these settings is :func:`xaipipe.explain.learner.refit_design`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ._base import RANKING, SEED, Settings, check_family, check_percentiles, check_task, first_loss

__all__ = ["LearnerSettings"]


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

    ``explain.learner.families`` chooses the jobs (a job per family listed): no field.

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
    }
    JOB_KEYS = ("families",)

    def __post_init__(self):
        check_task(self.task)
        check_percentiles("explain.learner.percentiles", self.percentiles)
        if self.loss is None:
            self._resolve(loss=first_loss(self.task))

    @classmethod
    def from_config(cls, config: Mapping[str, Any], task: str, family: str = "gradient_boosting") -> LearnerSettings:
        """Build and check the settings of ``family`` on a dataset of ``task`` from a schema-validated
        configuration.

        Checks (each error names the config key): the families of ``explain.learner.families`` are
        registered; ``explain.learner.percentiles`` is increasing; ``task`` is a task.

        Raises
        ------
        ValueError
            A check above fails.
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
            }
        )
