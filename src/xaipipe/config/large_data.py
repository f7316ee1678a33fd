"""The large-data policies (config section ``large_data``): :class:`LargeDataSettings`.

The explain settings carry one as their ``large_data`` field; the ``large_data`` rule writes the
table of one dataset's policies (:func:`xaipipe.explain.large_data.large_data_table`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ._base import Settings

__all__ = ["LARGE_DATA_POLICIES", "LargeDataSettings"]

#: The large-data policies: name -> (config key under ``large_data``, what is subsampled, the
#: Monte-Carlo error reported where it applies). Order of the ``large_data.csv`` table.
LARGE_DATA_POLICIES: dict[str, tuple[str, str, str]] = {
    "reliance": (
        "reliance_rows",
        "test rows of each repeat of permutation / e_divide / conditional_permutation / grouped_permutation MR "
        "(rule model_reliance)",
        "model_reliance.csv: mr_*_se over the repeats, each on a fresh subsample (subsample + permutation error); "
        "e_switch rows: mr_*_se of their e_switch_max_rows subsample",
    ),
    "shap": (
        "shap_rows",
        "test rows explained by SHAP, every family (rule shap)",
        "shap_importance.csv: mean_abs_shap_se, mean_shap_se (sampling SE with finite-population correction)",
    ),
    "pd": (
        "pd_rows",
        "test rows averaged by the PD / ICE curves and the 2-D PD (rule pd_ice) and by the PD beside the ALE (rule ale)",
        "pd_ice.csv: rows of kind pd_se, the SE of the PD at each grid point; ale.csv: columns pd_se, pd_rows "
        "(finite-population correction)",
    ),
}


@dataclass(frozen=True)
class LargeDataSettings(Settings):
    """The large-data policies (config section ``large_data``; ``docs/performance.md``).

    Each policy replaces work that grows with the number of test rows ``n`` by the same estimate on a
    seeded random subsample of rows, and reports the Monte-Carlo error that adds. It applies to a
    dataset whose *test split* has more than ``min_rows`` rows (the rows the explanations run on) and
    whose own key is not null; at or below ``min_rows`` nothing changes (the thesis datasets have at
    most 1 300 test rows).

    Attributes
    ----------
    min_rows : int, default 10000
        ``large_data.min_rows``: the policies apply when ``n > min_rows``.
    reliance_rows : int or None, default 2000
        ``large_data.reliance_rows``: rows of each repeat of ``permutation`` / ``e_divide`` MR
        (:func:`xaipipe.explain.reliance.model_reliance`, ``subsample_rows=``) and of the
        dependent-feature MR (``conditional_permutation``:
        :func:`xaipipe.explain.reliance.conditional_model_reliance`, ``subsample_rows=``;
        ``grouped_permutation``); None: off.
    shap_rows : int or None, default 1000
        ``large_data.shap_rows``: test rows explained by SHAP, every family
        (:func:`xaipipe.explain.shapley.shap_tables`); None: off.
    pd_rows : int or None, default 2000
        ``large_data.pd_rows``: test rows averaged by the PD / ICE / 2-D PD of the ``pd_ice`` rule
        (:func:`xaipipe.explain.pdp.pd_ice_tables`) and by the PD beside the ALE of the ``ale``
        rule (:func:`xaipipe.explain.pdp.ale_tables`); None: off.
    shap_trees : int or None, default 100
        ``large_data.shap_trees``: trees of a random forest / extra trees explained by TreeSHAP (a
        seeded random sample; :func:`xaipipe.explain.shapley.shap_tables`), part of the ``shap``
        policy (same threshold); None: off.
    """

    min_rows: int = 10000
    reliance_rows: int | None = 2000
    shap_rows: int | None = 1000
    pd_rows: int | None = 2000
    shap_trees: int | None = 100

    SECTION = "large_data"
    #: memory-only keys of the fits (``xaipipe.models.forest_blocks.forest_block_setting``)
    JOB_KEYS = ("forest_block_rows", "forest_block_trees")

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> LargeDataSettings:
        """Build and check the settings from a schema-validated configuration.

        Checks: every policy's rows are at most ``large_data.min_rows`` (else a dataset just above
        the threshold would not be subsampled although the policy is said to apply).

        Raises
        ------
        ValueError
            Naming the config key, its value and the fix.
        KeyError
            ``large_data`` or one of its keys is missing (an unvalidated config).
        """
        section = config["large_data"]
        min_rows = int(section["min_rows"])
        values = {}
        for key, _what, _error in LARGE_DATA_POLICIES.values():
            rows = section[key]
            if rows is not None and int(rows) > min_rows:
                raise ValueError(
                    f"config key large_data.{key} ({rows}) must be at most large_data.min_rows ({min_rows}): "
                    f"lower large_data.{key}, raise large_data.min_rows, or set large_data.{key}: null to switch "
                    "the policy off"
                )
            values[key] = None if rows is None else int(rows)
        trees = section.get("shap_trees")
        return cls(min_rows=min_rows, **values, shap_trees=None if trees is None else int(trees))

    def applies(self, n_rows: int) -> bool:
        """True where the dataset is large: ``n_rows > min_rows`` (``n_rows``: its test rows)."""
        return int(n_rows) > self.min_rows

    def rows(self, policy: str, n_rows: int) -> int | None:
        """Rows the policy ``policy`` uses on a dataset of ``n_rows`` test rows; None: it does not apply.

        Raises
        ------
        ValueError
            ``policy`` is not one of :data:`LARGE_DATA_POLICIES`.
        """
        if policy not in LARGE_DATA_POLICIES:
            raise ValueError(f"unknown large-data policy {policy!r}; choose one of {list(LARGE_DATA_POLICIES)}")
        cap = getattr(self, LARGE_DATA_POLICIES[policy][0])
        if cap is None or not self.applies(n_rows):
            return None
        return cap

    def trees(self, n_rows: int) -> int | None:
        """Trees of a forest that SHAP explains on a dataset of ``n_rows`` test rows
        (``large_data.shap_trees`` where the ``shap`` policy's threshold is passed); None: all."""
        if self.shap_trees is None or not self.applies(n_rows):
            return None
        return self.shap_trees


def large_data_rows(large_data: LargeDataSettings | None, policy: str, n_rows: int) -> int | None:
    """``large_data.rows(policy, n_rows)``, None without a large-data group (the explain settings'
    ``large_data_rows``)."""
    return None if large_data is None else large_data.rows(policy, n_rows)
