"""Settings of the model steps: :class:`CVSettings` (rules ``cv``, ``cv_shard``, ``fit``).

The number of ``cv_shard`` jobs is :func:`xaipipe.models.planning.cv_shard_count`; the split
rule's sample-size checks are :func:`xaipipe.models.planning.sample_size_checks`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ._base import SEED, SELECTION, Settings, check_family, check_task

__all__ = ["CVSettings"]

#: ``metrics.beta``'s schema default.
BETA = 2.0


@dataclass(frozen=True)
class CVSettings(Settings):
    """Settings of the CV step of one family on a dataset of one task (rules ``cv``, ``cv_shard``
    and ``fit``, which refits the best configuration with ``task``, ``seed``, ``options``, ``beta``).

    Every field has the default of its config key (``CVSettings(family="ridge", grid={"alpha":
    [1.0]})`` is the CV of the schema's defaults).

    Attributes
    ----------
    task : {"regression", "classification"}, default "regression"
    family : str, default "linear_regression"
        A registered model family (:mod:`xaipipe.models.families`).
    grid : mapping or None, default {}
        ``grids.<task>.<family>`` (hyperparameter -> values; ``{}``: the family's defaults, one
        configuration); None when the family is only sampled.
    sample : mapping or None, default None
        ``rashomon.sample.families.<task>.<family>`` when ``rashomon.sample.enabled`` (the random
        search), else None.
    options : mapping, default {}
        ``estimator_options.<family>`` (fixed constructor arguments).
    selection : str, default ``selection.<task>``'s (``rmse`` / ``log_loss``)
        The CV loss that picks the best configuration.
    seed : int, default 20250223
        ``seed``: the estimators' ``random_state`` and the random search's draws.
    beta : float or None, default ``metrics.beta``'s (2.0) for classification, None for regression
        Weight of the ``f_beta`` column of a classifier; a regression family does not carry it, so
        that ``metrics.beta`` reruns no regression job.
    """

    task: str = "regression"
    family: str = "linear_regression"
    grid: Mapping[str, Any] | None = field(default_factory=dict)
    sample: Mapping[str, Any] | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    selection: str | None = None
    seed: int = SEED
    beta: float | None = None

    KEYS = {
        "task": None,
        "family": None,
        "grid": "grids.{task}.{family}",
        "sample": "rashomon.sample.families.{task}.{family}",
        "options": "estimator_options.{family}",
        "selection": "selection.{task}",
        "seed": "seed",
        "beta": "metrics.beta",
    }

    def __post_init__(self):
        check_task(self.task)
        if self.selection is None:
            self._resolve(selection=SELECTION[self.task])
        if self.task == "classification" and self.beta is None:
            self._resolve(beta=BETA)

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
        check_task(task)
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
            beta=config["metrics"]["beta"] if task == "classification" else None,
        )
