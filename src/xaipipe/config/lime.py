"""Settings of the LIME step: :class:`LimeSettings` (rule ``lime``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ._base import SEED, Settings, check_family, check_int

__all__ = ["LimeSettings"]


@dataclass(frozen=True)
class LimeSettings(Settings):
    """Settings of the LIME step (``config["explain"]["lime"]``, ``seed`` and
    ``explain.figure_class``): what :func:`xaipipe.explain.lime.lime_tables` needs besides the model,
    the data and the SHAP values.

    Attributes
    ----------
    seed : int, default 20250223
        ``seed``: the sample of test rows and LIME's neighbourhoods.
    figure_class : str, int, bool or None, default None
        ``explain.figure_class``: a multiclass model's explained class (None: the first).
    enabled, dataset, family, n_rows, num_samples
        The keys of the ``explain.lime`` section of those names (``config/README.md``; defaults
        True, ``"breast_cancer"``, ``"xgboost"``, 20, 5000): whether the default target asks for
        it, the dataset and the family it runs on, the test rows explained besides the force-plot
        rows, LIME's neighbourhood size.

    Raises
    ------
    ValueError
        ``n_rows`` below 0 or ``num_samples`` below 10 (LIME's surrogate needs a neighbourhood),
        each naming the config key.
    """

    seed: int = SEED
    figure_class: Any = None
    enabled: bool = True
    dataset: str = "breast_cancer"
    family: str = "xgboost"
    n_rows: int = 20
    num_samples: int = 5000

    SECTION = "explain.lime"
    KEYS = {"seed": "seed", "figure_class": "explain.figure_class"}

    def __post_init__(self):
        check_int("explain.lime.n_rows", self.n_rows, 0)
        check_int("explain.lime.num_samples", self.num_samples, 10)

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> LimeSettings:
        """Build and check the settings from a schema-validated configuration.

        Raises
        ------
        ValueError
            As the class; ``explain.lime.family`` is not a registered family (when
            ``explain.lime.enabled``).
        """
        section = config["explain"]["lime"]
        if section["enabled"]:
            check_family("explain.lime.family", section["family"])
        return cls.from_params(
            {
                **{key: section[key] for key in cls.section_fields()},
                "seed": config["seed"],
                "figure_class": config["explain"]["figure_class"],
            }
        )
