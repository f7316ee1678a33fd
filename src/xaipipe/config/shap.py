"""Settings of the SHAP step: :class:`ShapSettings` (rule ``shap``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..models.families import SHAP_ALGORITHMS, get_family
from ._base import SEED, Settings, check_family
from .large_data import LargeDataSettings, large_data_rows

__all__ = ["ShapSettings", "shap_algorithm"]


def shap_algorithm(family: str, overrides: Mapping[str, str] | None = None) -> str:
    """The SHAP algorithm named for ``family`` by ``explain.shap.algorithm`` (``"auto"`` when it is not
    listed: the family's registry entry decides, :attr:`xaipipe.models.families.Family.shap_algorithm`).

    Parameters
    ----------
    family : str
        A model family of :mod:`xaipipe.models.families`.
    overrides : mapping str -> str, optional
        The config entry ``explain.shap.algorithm``: ``{family: algorithm}`` with algorithm one of
        ``"auto"`` and :data:`xaipipe.models.families.SHAP_ALGORITHMS`.

    Returns
    -------
    str

    Raises
    ------
    KeyError
        Unknown family in ``family`` or in ``overrides`` (message lists the known ones).
    ValueError
        Unknown algorithm (message names the family and the allowed values).
    """
    get_family(family)
    overrides = dict(overrides or {})
    for fam, algo in overrides.items():
        get_family(fam)
        if algo not in ("auto", *SHAP_ALGORITHMS):
            raise ValueError(
                f"explain.shap.algorithm.{fam}: unknown algorithm {algo!r}; expected one of {['auto', *SHAP_ALGORITHMS]}"
            )
    return overrides.get(family, "auto")


@dataclass(frozen=True)
class ShapSettings(Settings):
    """Settings of the SHAP step of one model family (``config["explain"]["shap"]``, ``seed`` and the
    large-data policy): what :func:`xaipipe.explain.shapley.shap_tables` needs besides the model and
    the data.

    Attributes
    ----------
    family : str, default "linear_regression"
        The model family (``model`` column; the ``algorithm`` override is looked up for it).
    seed : int, default 20250223
        ``seed``: the row subsample, background sample and permutation SHAP's seed.
    max_rows : int or None, default None
        ``explain.shap.max_rows``: explain at most this many test rows (seeded subsample).
    max_rows_random_forest : int or None, default 200
        ``explain.shap.max_rows_random_forest``: the row cap of families of the ``forest`` prefix kind
        (random forests, extra trees).
    background_size : int or None, default 100
        ``explain.shap.background_size``: background rows drawn from the training split.
    interactions : bool, default True
        ``explain.shap.interactions``: SHAP interaction values where the algorithm is
        ``xgboost_pred_contribs``.
    algorithm : str, default "auto"
        ``explain.shap.algorithm.<family>`` (:func:`shap_algorithm`); ``"auto"`` when the family is
        not listed there (its registry entry decides): an override of another family is not part of
        this family's settings.
    large_data : LargeDataSettings or None, default LargeDataSettings()
        The large-data group (section ``large_data``): resolved per dataset by
        :meth:`large_data_rows`; None: no policy.
    """

    family: str = "linear_regression"
    seed: int = SEED
    max_rows: int | None = None
    max_rows_random_forest: int | None = 200
    background_size: int | None = 100
    interactions: bool = True
    algorithm: str = "auto"
    # -- large-data inputs (config section large_data), kept apart from the explain.shap keys --
    large_data: LargeDataSettings | None = field(default_factory=LargeDataSettings)

    SECTION = "explain.shap"
    KEYS = {"family": None, "seed": "seed", "algorithm": "explain.shap.algorithm.{family}", "large_data": "large_data"}
    NESTED = {"large_data": LargeDataSettings}

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
        shap = config["explain"]["shap"]
        check_family("explain.shap", family)
        for name in shap["algorithm"]:
            check_family("explain.shap.algorithm", name)
        algorithm = shap_algorithm(family, shap["algorithm"])  # ValueError naming explain.shap.algorithm.<family>
        section = {key: shap[key] for key in cls.section_fields()}
        return cls(
            family=family,
            seed=config["seed"],
            algorithm=algorithm,
            large_data=LargeDataSettings.from_config(config),
            **section,
        )

    @property
    def resolved_algorithm(self) -> str:
        """The algorithm the family gets: ``algorithm``, or the registry's where ``"auto"``
        (:attr:`xaipipe.models.families.Family.shap_algorithm`)."""
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
        return large_data_rows(self.large_data, "shap", n_rows)

    def large_data_trees(self, n_rows: int) -> int | None:
        """Trees of a forest explained under the large-data tree sample on a dataset of ``n_rows``
        test rows (``large_data.shap_trees`` where ``n_rows > large_data.min_rows``); None: all."""
        return None if self.large_data is None else self.large_data.trees(n_rows)
