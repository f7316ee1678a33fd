"""Settings of the SAGE step: :class:`SageSettings` (rule ``sage``; ``docs/sage.md``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ._base import LOSSES, SEED, Settings, check_family, check_int, check_task

__all__ = ["SAGE_LOSSES", "SageSettings"]

#: The losses SAGE can play (per-sample losses of :data:`xaipipe.losses.LOSSES`).
SAGE_LOSSES = ("squared_error", "log_loss", "zero_one")


@dataclass(frozen=True)
class SageSettings(Settings):
    """Settings of the SAGE step (``config["explain"]["sage"]``, ``seed`` and the MR loss of each
    task): what :func:`xaipipe.explain.sage.sage_table` needs besides the model and the data. One
    object for both tasks (the rule's jobs of every dataset share it).

    Attributes
    ----------
    seed : int, default 20250223
        ``seed``: the background sample, the row cap's subsample and the estimator's draws.
    losses : mapping task -> str, default {"regression": "squared_error", "classification": "log_loss"}
        ``explain.reliance.losses.<task>[0]``: SAGE's loss is the task's first MR loss.
    families : tuple of str or None, default every registered family but the forests and ``knn``
        ``explain.sage.families``: the families whose fitted model gets SAGE (None: every family
        the dataset runs). The default leaves out the forests (``random_forest``, ``extra_trees``:
        52 CPU-s for Concrete's forest, more on larger data) and ``knn`` (53 CPU-s on Breast Cancer
        without converging; ``docs/sage.md``, "Cost").
    threshold : float, default 0.05
        ``explain.sage.threshold``: convergence when the largest SE is below ``threshold`` times
        the range of the SAGE values (the ``sage-importance`` package's rule; its default 0.025).
    background_size : int or None, default 32
        ``explain.sage.background_size``: training rows (seeded sample) over which a removed
        variable is averaged out (marginal imputer); None: every training row.
    batch_size : int, default 128
        ``explain.sage.batch_size``: permutations between two convergence checks.
    max_permutations : int, default 16384
        ``explain.sage.max_permutations``: the cap (``converged`` is False when it is reached first).
    max_rows : int or None, default None
        ``explain.sage.max_rows``: test rows the permutations sample from (a seeded subsample above
        it); None: every test row.

    Raises
    ------
    ValueError
        ``threshold`` outside (0, 1); ``background_size``, ``batch_size``, ``max_permutations`` or
        ``max_rows`` not a positive integer (``background_size`` and ``max_rows`` may be null);
        ``max_permutations`` below ``batch_size``; a loss SAGE cannot play
        (``explain.reliance.losses.<task>[0]``). Each error names the config key.
    """

    seed: int = SEED
    losses: Mapping[str, str] = field(default_factory=lambda: {task: losses[0] for task, losses in LOSSES.items()})
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

    SECTION = "explain.sage"
    KEYS = {"seed": "seed", "losses": None}

    def __post_init__(self):
        threshold = self.threshold
        if isinstance(threshold, bool) or not isinstance(threshold, int | float) or not 0 < threshold < 1:
            raise ValueError(f"config key explain.sage.threshold must lie in (0, 1), got {threshold!r}")
        for key in ("batch_size", "max_permutations"):
            check_int(f"explain.sage.{key}", getattr(self, key), 1)
        for key in ("background_size", "max_rows"):
            check_int(f"explain.sage.{key}", getattr(self, key), 1, null=True)
        if self.max_permutations < self.batch_size:
            raise ValueError(
                f"config key explain.sage.max_permutations ({self.max_permutations}) must be at least "
                f"explain.sage.batch_size ({self.batch_size}): the estimator samples whole batches"
            )
        for task, loss in self.losses.items():
            if loss not in SAGE_LOSSES:
                raise ValueError(
                    f"config key explain.reliance.losses.{task}: SAGE plays the task's first MR loss, which must be "
                    f"one of {list(SAGE_LOSSES)}; got {loss!r}"
                )

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> SageSettings:
        """Build and check the settings from a schema-validated configuration.

        Raises
        ------
        ValueError
            As the constructor; a name of ``explain.sage.families`` that is not a registered family
            (:func:`~xaipipe.config._base.check_family`).
        KeyError
            A key the schema's defaults always provide is missing (an unvalidated config).
        """
        section = config["explain"]["sage"]
        for family in section["families"] or ():
            check_family("explain.sage.families", family)
        losses = {task: list(v)[0] for task, v in config["explain"]["reliance"]["losses"].items()}
        return cls.from_params(
            {**{key: section[key] for key in cls.section_fields()}, "seed": config["seed"], "losses": losses}
        )

    def loss(self, task: str) -> str:
        """SAGE's loss for ``task`` (the task's first MR loss)."""
        check_task(task)
        return self.losses[task]

    def runs(self, family: str) -> bool:
        """Whether ``explain.sage.families`` asks for SAGE of ``family`` (None: every family); the
        workflow's choice of the ``sage`` jobs."""
        return self.families is None or family in self.families
