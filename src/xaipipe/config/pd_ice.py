"""Settings of the PD / ICE step: :class:`PdIceSettings` (rule ``pd_ice``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ._base import RANKING, SEED, Settings, check_percentiles, check_task
from .large_data import LargeDataSettings, large_data_rows

__all__ = ["PdIceSettings"]


@dataclass(frozen=True)
class PdIceSettings(Settings):
    """Settings of the PD / ICE step of one task (``config["explain"]["pd"]``, the MR ranking,
    ``seed`` and the large-data policy): what :func:`xaipipe.explain.pdp.pd_ice_tables` needs
    besides the model, the data and the variables.

    Every field has the default of its config key (``PdIceSettings(resolution=8)``).

    Attributes
    ----------
    task : {"regression", "classification"}, default "regression"
    seed : int, default 20250223
        ``seed``: the large-data subsample's seed.
    loss : str, default ``explain.reliance.losses.<task>[0]``'s
        The MR loss that ranks the variables.
    ranking : mapping, default {"estimator": "permutation", "quantity": "mr_difference"}
        ``explain.reliance.ranking``: the MR that ranks them.
    top_k, resolution, grid, percentiles, anchor, smooth, max_curves, pair_resolution, max_batch_rows
        The keys of the ``explain.pd`` section of those names (``config/README.md``; defaults 2, 50,
        ``"uniform"``, (0.0, 1.0), ``"min"``, 2, 1000, 20, 200000): the top-k variables by MR, the
        grid (points, ``uniform`` / ``quantile``, percentile range), the c-ICE anchor, the d-ICE
        smoothing, the ICE curves kept, the 2-D PD's grid points per axis, the rows of one
        prediction batch.
    classification_output : {"proba", "logit"}, default "proba"
        ``explain.pd.classification_output``: a classifier's explained output (regression:
        ``predict``).
    large_data : LargeDataSettings or None, default LargeDataSettings()
        The large-data group (section ``large_data``): resolved per dataset by
        :meth:`large_data_rows`; None: no policy.

    Raises
    ------
    ValueError
        ``percentiles`` not increasing (naming ``explain.pd.percentiles``); ``task`` not a task.
    """

    task: str = "regression"
    seed: int = SEED
    loss: str | None = None
    ranking: Mapping[str, Any] = field(default_factory=lambda: dict(RANKING))
    top_k: int = 2
    resolution: int = 50
    grid: str = "uniform"
    percentiles: tuple[float, float] = (0.0, 1.0)
    anchor: Any = "min"
    smooth: int = 2
    max_curves: int | None = 1000
    pair_resolution: int = 20
    max_batch_rows: int = 200000
    classification_output: str = "proba"
    # -- large-data inputs (config section large_data), kept apart from the explain.pd keys --
    large_data: LargeDataSettings | None = field(default_factory=LargeDataSettings)

    SECTION = "explain.pd"
    KEYS = {
        "task": None,
        "seed": "seed",
        "loss": "explain.reliance.losses.{task}[0]",
        "ranking": "explain.reliance.ranking",
        "large_data": "large_data",
    }
    NESTED = {"large_data": LargeDataSettings}

    def __post_init__(self):
        self._resolve_task_loss()
        check_percentiles("explain.pd.percentiles", self.percentiles)

    @classmethod
    def from_config(cls, config: Mapping[str, Any], task: str) -> PdIceSettings:
        """Build and check the settings of ``task`` from a schema-validated configuration.

        Raises
        ------
        ValueError
            One of these checks fails (the error names the config key): ``explain.pd.percentiles`` is
            increasing; ``task`` is a task; :meth:`LargeDataSettings.from_config`'s.
        KeyError
            A key the schema's defaults always provide is missing (an unvalidated config).
        """
        check_task(task)
        explain = config["explain"]
        return cls.from_params(
            {
                **{key: explain["pd"][key] for key in cls.section_fields()},
                "task": task,
                "seed": config["seed"],
                "loss": explain["reliance"]["losses"][task][0],
                "ranking": explain["reliance"]["ranking"],
                "large_data": LargeDataSettings.from_config(config).to_params(),
            }
        )

    def output(self, task: str | None = None) -> str:
        """The explained output on a dataset of ``task`` (default: the settings' own):
        ``predict`` (regression) or ``classification_output``."""
        return "predict" if (task or self.task) == "regression" else self.classification_output

    def large_data_rows(self, n_rows: int) -> int | None:
        """Rows the PD / ICE average under the large-data policy on a dataset of ``n_rows`` test rows
        (``large_data.pd_rows`` where ``n_rows > large_data.min_rows``); None: it does not apply."""
        return large_data_rows(self.large_data, "pd", n_rows)
