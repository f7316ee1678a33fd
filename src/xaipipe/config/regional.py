"""Settings of the regional effects: :class:`RegionalSettings` (rule ``regional_effects``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ._base import SEED, Settings, check_family, check_int

__all__ = ["RegionalSettings"]


@dataclass(frozen=True)
class RegionalSettings(Settings):
    """Settings of the regional effects of a fitted model (``config["explain"]["regional"]``;
    :func:`xaipipe.explain.pdp.regional_effects`).

    Attributes
    ----------
    seed : int, default 20250223
        ``seed``: effector's draw of the rows.
    top_k, n_instances, resolution
        The keys of the ``explain.regional`` section of those names (``config/README.md``; defaults
        2, 500, 30): the variables of largest ICE heterogeneity whose regions are searched, the test
        rows effector draws, the grid points of each region's PD.
    """

    seed: int = SEED
    top_k: int = 2
    n_instances: int = 500
    resolution: int = 30

    SECTION = "explain.regional"
    KEYS = {"seed": "seed"}
    #: ``families``: the families whose fitted models get a regional_effects job.
    JOB_KEYS = ("families",)

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> RegionalSettings:
        """Build and check the settings from a schema-validated configuration.

        Raises
        ------
        ValueError
            A family of ``explain.regional.families`` that is not registered; a count below its
            minimum (naming the key).
        """
        r = config["explain"]["regional"]
        for family in r["families"]:
            check_family("explain.regional.families", family)
        for key, minimum in (("top_k", 1), ("n_instances", 2), ("resolution", 2)):
            check_int(f"explain.regional.{key}", r[key], minimum)
        return cls.from_params({**{key: r[key] for key in cls.section_fields()}, "seed": config["seed"]})
