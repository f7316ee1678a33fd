"""Settings of the effects under dependent features: :class:`AleSettings` (rule ``ale``) and
:class:`HStatisticSettings` (rule ``h_statistic``), each with the ``explain.pd`` pieces it shares
with the PD / ICE step."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..models.families import get_family
from ._base import RANKING, SEED, Settings, check_family, check_int
from .large_data import LargeDataSettings, large_data_rows
from .pd_ice import PdIceSettings

__all__ = ["AleSettings", "HStatisticSettings"]

#: Fields of both classes that are not keys of their section: the explained output and batch size
#: (``explain.pd``), the MR ranking, the class of a multiclass model, the seed and the task.
_SHARED_KEYS = {
    "task": None,
    "seed": "seed",
    "loss": "explain.reliance.losses.{task}[0]",
    "ranking": "explain.reliance.ranking",
    "output": "explain.pd.classification_output",
    "max_batch_rows": "explain.pd.max_batch_rows",
    "figure_class": "explain.figure_class",
}


def _shared(config: Mapping[str, Any], task: str) -> dict[str, Any]:
    """The values of :data:`_SHARED_KEYS` from a configuration (checked as :class:`PdIceSettings`)."""
    pd_ = PdIceSettings.from_config(config, task)
    return {
        "task": task,
        "seed": pd_.seed,
        "loss": pd_.loss,
        "ranking": pd_.ranking,
        "output": pd_.output(),
        "max_batch_rows": pd_.max_batch_rows,
        "figure_class": config["explain"]["figure_class"],
    }


@dataclass(frozen=True)
class _DependenceSettings(Settings):
    """What :class:`AleSettings` and :class:`HStatisticSettings` share: the fields of
    :data:`_SHARED_KEYS`, the task's defaults and their checks."""

    task: str = "regression"
    seed: int = SEED
    loss: str | None = None
    ranking: Mapping[str, Any] = field(default_factory=lambda: dict(RANKING))
    output: str | None = None
    max_batch_rows: int = 200000
    figure_class: Any = None

    def __post_init__(self):
        self._resolve_task_loss()
        if self.output is None:  # explain.pd.classification_output's default for classification
            self._resolve(output="predict" if self.task == "regression" else "proba")
        check_int("explain.pd.max_batch_rows", self.max_batch_rows, 1)


@dataclass(frozen=True)
class AleSettings(_DependenceSettings):
    """Settings of the ALE step of one task (``config["explain"]["ale"]`` and the ``explain.pd``
    pieces it shares with the PD / ICE step): what :func:`xaipipe.explain.pdp.ale_tables`
    needs besides the model, the data, the MR ranking and the pair.

    Attributes
    ----------
    task, seed, loss, ranking
        As :class:`PdIceSettings`: the task, ``seed`` (the large-data subsample's), the MR loss
        and the MR (``explain.reliance.ranking``) that rank the variables.
    output : {"predict", "proba", "logit", "auto"}, default by task
        The explained output: ``predict`` for regression, ``explain.pd.classification_output``
        (default ``proba``) for classification (:meth:`PdIceSettings.output`).
    max_batch_rows : int, default 200000
        ``explain.pd.max_batch_rows``: most rows per model call.
    figure_class : str, int, bool or None, default None
        ``explain.figure_class``: a multiclass model's explained class (None: the first).
    n_bins, pair_bins, centering, figure_features
        The keys of the ``explain.ale`` section of those names (``config/README.md``; defaults 20,
        10, ``"ale_plot"``, 4): quantile bins of a numeric variable (1-D, per axis of the pair),
        the centring of the ALE and PD (``ale_plot`` / ``paper``), the variables of the figure
        (rule ``dependence_figures``).
    large_data : LargeDataSettings or None, default LargeDataSettings()
        The large-data group (section ``large_data``): :meth:`large_data_rows`; None: no policy.

    Raises
    ------
    ValueError
        ``n_bins`` / ``pair_bins`` / ``figure_features`` not a positive integer, ``centering`` not
        ``ale_plot`` or ``paper``, ``max_batch_rows`` not a positive integer (each error names the
        config key).
    """

    n_bins: int = 20
    pair_bins: int = 10
    centering: str = "ale_plot"
    figure_features: int = 4
    # -- large-data inputs (config section large_data), kept apart from the explain.ale keys --
    large_data: LargeDataSettings | None = field(default_factory=LargeDataSettings)

    SECTION = "explain.ale"
    KEYS = {**_SHARED_KEYS, "large_data": "large_data"}
    NESTED = {"large_data": LargeDataSettings}

    def __post_init__(self):
        super().__post_init__()
        for key in ("n_bins", "pair_bins", "figure_features"):
            check_int(f"explain.ale.{key}", getattr(self, key), 1)
        if self.centering not in ("ale_plot", "paper"):
            raise ValueError(
                f"config key explain.ale.centering ({self.centering!r}) must be 'ale_plot' (the ALEPlot "
                "package's centring) or 'paper' (Apley & Zhu 2020, eq. 16)"
            )

    @classmethod
    def from_config(cls, config: Mapping[str, Any], task: str) -> AleSettings:
        """Build and check the settings of ``task`` from a schema-validated configuration (the
        output, batch size, ranking, seed and large-data group as :meth:`PdIceSettings.from_config`).

        Raises
        ------
        ValueError
            As the class, :meth:`PdIceSettings.from_config`; ``task`` is not a task.
        """
        ale = config["explain"]["ale"]
        return cls.from_params(
            {
                **{key: ale[key] for key in cls.section_fields()},
                **_shared(config, task),
                "large_data": LargeDataSettings.from_config(config).to_params(),
            }
        )

    def large_data_rows(self, n_rows: int) -> int | None:
        """Rows of the ``pd`` column under the large-data policy on a dataset of ``n_rows`` test rows
        (``large_data.pd_rows`` where ``n_rows > large_data.min_rows``); None: it does not apply."""
        return large_data_rows(self.large_data, "pd", n_rows)


@dataclass(frozen=True)
class HStatisticSettings(_DependenceSettings):
    """Settings of the H-statistic step of one family on a dataset of one task
    (``config["explain"]["interactions"]`` and the ``explain.pd`` pieces it shares with the PD / ICE
    step): what :func:`xaipipe.explain.pdp.h_statistic_table` needs besides the model, the
    data and the top variables.

    Attributes
    ----------
    task, seed, loss, ranking, output, max_batch_rows, figure_class
        As :class:`AleSettings`.
    top_k, n_rows, n_rows_random_forest, n_bootstrap, max_display
        The keys of the ``explain.interactions`` section of those names (``config/README.md``;
        defaults 4, 300, 150, 50, 15): pairs of the top-k variables by MR, rows of the subsample
        (None: all), the forests' rows, bootstrap resamples of the SE (0: none), bars of the figures.
    family : str or None, default None
        The model family: a forest family (prefix kind ``forest``: random forests, extra trees) is
        evaluated on ``n_rows_random_forest`` rows (n² evaluations of up to 2 000 deep trees); None:
        ``n_rows`` (:attr:`rows`).

    Raises
    ------
    ValueError
        ``top_k`` below 2, ``n_rows`` / ``n_rows_random_forest`` below 2 (null: all rows),
        ``n_bootstrap`` 1 (one resample has no SE: 0 for none, else at least 2), ``max_display``
        below 1, ``max_batch_rows`` below 1 (each error names the config key).
    """

    top_k: int = 4
    n_rows: int | None = 300
    n_rows_random_forest: int | None = 150
    n_bootstrap: int = 50
    max_display: int = 15
    family: str | None = None

    SECTION = "explain.interactions"
    KEYS = {**_SHARED_KEYS, "family": None}

    def __post_init__(self):
        super().__post_init__()
        check_int("explain.interactions.top_k", self.top_k, 2)
        for key in ("n_rows", "n_rows_random_forest"):
            check_int(f"explain.interactions.{key}", getattr(self, key), 2, null=True)
        check_int("explain.interactions.n_bootstrap", self.n_bootstrap, 0)
        if self.n_bootstrap == 1:
            raise ValueError(
                "config key explain.interactions.n_bootstrap (1): one bootstrap resample has no standard "
                "error; use 0 (no SE) or at least 2 (e.g. 50)"
            )
        check_int("explain.interactions.max_display", self.max_display, 1)

    @classmethod
    def from_config(cls, config: Mapping[str, Any], task: str, family: str) -> HStatisticSettings:
        """Build and check the settings of ``family`` on a dataset of ``task`` from a
        schema-validated configuration.

        Raises
        ------
        ValueError
            As the class, :meth:`PdIceSettings.from_config`; ``family`` not registered
            (:func:`check_family`); ``task`` not a task.
        """
        shared = _shared(config, task)
        check_family("explain.interactions (the h_statistic rule's family)", family)
        interactions = config["explain"]["interactions"]
        return cls.from_params({**{key: interactions[key] for key in cls.section_fields()}, **shared, "family": family})

    @property
    def rows(self) -> int | None:
        """Rows of the H² subsample of this family: ``n_rows_random_forest`` for a forest family
        (registry prefix kind ``forest``), else ``n_rows`` (None: every test row)."""
        if self.family is None:
            return self.n_rows
        return self.n_rows_random_forest if get_family(self.family).prefix == "forest" else self.n_rows
