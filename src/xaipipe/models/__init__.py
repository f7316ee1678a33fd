"""Models: families, grids, cross-validation, refits, test comparisons and inference tables.

A front door (:mod:`xaipipe._lazy`): ``from xaipipe.models import <entry point>``; :data:`RULES` is
its part of the rule -> entry map.
Library entries (no rule): ``FAMILIES`` (the registry), ``cross_validate_grid`` (CV of one grid) and
``CVEngine`` (its engine options).
"""

from .._lazy import attach

#: Entry point -> the submodule that defines it (imported on first use, PEP 562).
ENTRY_POINTS = {
    "FAMILIES": "families",
    "cross_validate_grid": "cv",
    "CVEngine": "cv",
    "cv_tables": "cv",
    "fit_best": "fitting",
    "comparison_tables": "comparison",
    "read_test_predictions": "comparison",
    "ols_inference": "ols",
    "squared_terms_comparison": "ols",
    "logit_inference": "logit",
    "mnlogit_inference": "mnlogit",
    "cv_shard_table": "cv",
    "forest_block_setting": "forest_blocks",
    "logit_risks": "separation_check",
}

#: The rule -> entry map: each rule whose script imports from this door, with the entry points it
#: imports (tests/test_front_doors.py checks it against workflow/; docs/layout.md prints it).
RULES = {
    "abalone_study_mcr": ("forest_block_setting",),
    "comparison_figures_classification": ("read_test_predictions",),
    "comparison_figures_regression": ("read_test_predictions",),
    "cv": (
        "cv_tables",
        "forest_block_setting",
    ),
    "cv_shard": (
        "cv_shard_table",
        "forest_block_setting",
    ),
    "fit": (
        "fit_best",
        "forest_block_setting",
    ),
    "logit": (
        "logit_inference",
        "mnlogit_inference",
    ),
    "model_comparison": (
        "comparison_tables",
        "read_test_predictions",
    ),
    "ols": ("ols_inference",),
    "rashomon": ("forest_block_setting",),
    "rashomon_bootstrap_shard": ("forest_block_setting",),
    "rashomon_refit": ("forest_block_setting",),
    "split": ("logit_risks",),
    "squared_terms": ("squared_terms_comparison",),
}

__getattr__, __dir__, __all__ = attach(__name__, ENTRY_POINTS)
