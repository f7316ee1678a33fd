"""Settings of the MR step: :class:`RelianceSettings` (rule ``model_reliance``)."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ._base import DEPENDENT, LOSSES, SEED, Settings, check_task
from .large_data import LargeDataSettings, large_data_rows

__all__ = ["RelianceSettings"]


@dataclass(frozen=True)
class RelianceSettings(Settings):
    """Settings of the MR step of one task (``config["explain"]["reliance"]``, ``seed`` and the
    large-data policy): what :func:`xaipipe.explain.reliance.reliance_tables` and
    :func:`xaipipe.explain.reliance.dependent_reliance_rows` need besides the model and the data.

    Every field has the default of its config key: ``RelianceSettings(n_repeats=3)`` is the schema's
    MR step with three permutations.

    Attributes
    ----------
    task : {"regression", "classification"}, default "regression"
    seed : int, default 20250223
        ``seed``: the permutations' (and the large-data subsamples') seed.
    estimators : tuple of str, default ("permutation", "e_divide", "e_switch")
        ``explain.reliance.estimators``: the marginal MR estimators.
    n_repeats : int, default 20
        ``explain.reliance.n_repeats``: permutations per variable.
    e_switch_max_rows : int or None, default 400
        ``explain.reliance.e_switch_max_rows``: the ``e_switch`` row cap.
    losses : tuple of str, default ``explain.reliance.losses.<task>``'s
        The losses of the task's MR rows (regression ``squared_error``; classification
        ``log_loss``, ``zero_one``).
    dependent : mapping
        ``explain.reliance.dependent``: the MR under dependent features (``estimators``,
        ``max_depth``, ``min_samples_leaf``, ``correlation_threshold``, ``linkage``); no rows when
        its ``estimators`` are empty.
    large_data : LargeDataSettings or None, default LargeDataSettings()
        The large-data group (section ``large_data``): resolved per dataset by
        :meth:`large_data_rows`; None: no policy.

    ``explain.reliance.ranking`` ranks the variables of the PD / ICE, ALE, H² and learner steps:
    a field of their settings, not of this step's (:meth:`from_config` checks that its estimator
    is computed here).
    """

    task: str = "regression"
    seed: int = SEED
    estimators: tuple[str, ...] = ("permutation", "e_divide", "e_switch")
    n_repeats: int = 20
    e_switch_max_rows: int | None = 400
    losses: tuple[str, ...] | None = None
    dependent: Mapping[str, Any] = field(default_factory=lambda: copy.deepcopy(DEPENDENT))
    # -- large-data inputs (config section large_data), kept apart from the explain.reliance keys --
    large_data: LargeDataSettings | None = field(default_factory=LargeDataSettings)

    SECTION = "explain.reliance"
    KEYS = {"task": None, "seed": "seed", "losses": "explain.reliance.losses.{task}", "large_data": "large_data"}
    JOB_KEYS = ("ranking",)
    NESTED = {"large_data": LargeDataSettings}

    def __post_init__(self):
        check_task(self.task)
        if self.losses is None:
            self._resolve(losses=LOSSES[self.task])

    @classmethod
    def from_config(cls, config: Mapping[str, Any], task: str) -> RelianceSettings:
        """Build and check the settings of ``task`` from a schema-validated configuration.

        Raises
        ------
        ValueError
            One of these checks fails (the error names the config key): ``explain.reliance.ranking.estimator``
            is one of ``explain.reliance.estimators`` (the ranking reads its rows); ``task`` is a task;
            :meth:`LargeDataSettings.from_config`'s.
        KeyError
            A key the schema's defaults always provide is missing (an unvalidated config).
        """
        check_task(task)
        section = config["explain"]["reliance"]
        estimator = section["ranking"]["estimator"]
        if estimator not in section["estimators"]:
            raise ValueError(
                f"config key explain.reliance.ranking.estimator ({estimator!r}) must be one of "
                f"explain.reliance.estimators {list(section['estimators'])}: the ranking reads its MR rows "
                "(add it to the estimators or rank by one of them)"
            )
        return cls.from_params(
            {
                **{key: section[key] for key in cls.section_fields()},
                "task": task,
                "seed": config["seed"],
                "losses": section["losses"][task],
                "large_data": LargeDataSettings.from_config(config).to_params(),
            }
        )

    def large_data_rows(self, n_rows: int) -> int | None:
        """Test rows of each MR repeat under the large-data policy on a dataset of ``n_rows`` test
        rows (``large_data.reliance_rows`` where ``n_rows > large_data.min_rows``); None: it does not
        apply."""
        return large_data_rows(self.large_data, "reliance", n_rows)
