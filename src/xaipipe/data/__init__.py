"""Data: the dataset registry, canonical tables, preparation and the train/test split.

A front door (:mod:`xaipipe._lazy`): ``from xaipipe.data import <entry point>``; :data:`RULES` is
its part of the rule -> entry map.
Everything else (resampling indices, imputation, parsers) is in its submodule.
"""

from .._lazy import attach

#: Entry point -> the submodule that defines it (imported on first use, PEP 562).
ENTRY_POINTS = {
    "DatasetEntry": "registry",
    "load_canonical": "sources",
    "read_canonical": "sources",
    "prepare_table": "preparation",
    "correlation_matrix": "preparation",
    "make_checked_split": "split",
    "load_prepared": "prepare",
    "simulate": "simulated",
    "canonical_to_csv_bytes": "sources",
    "expand_user_groups": "prepare",
    "data_summary_table": "summary",
    "data_summary_record": "summary",
    "variable_groups": "prepare",
    "importance_groups": "prepare",
}

#: The rule -> entry map: each rule whose script imports from this door, with the entry points it
#: imports (tests/test_front_doors.py checks it against workflow/; docs/layout.md prints it).
RULES = {
    "abalone_study_cv": ("load_prepared",),
    "abalone_study_mcr": ("load_prepared",),
    "ale": (
        "expand_user_groups",
        "load_prepared",
    ),
    "canonical": (
        "DatasetEntry",
        "canonical_to_csv_bytes",
        "load_canonical",
    ),
    "consensus": ("load_prepared",),
    "cv": ("load_prepared",),
    "cv_shard": ("load_prepared",),
    "data_summary": ("data_summary_table",),
    "fit": ("load_prepared",),
    "h_statistic": (
        "expand_user_groups",
        "load_prepared",
    ),
    "illustration": ("simulate",),
    "illustration_tree": ("read_canonical",),
    "learner": ("load_prepared",),
    "lime": ("load_prepared",),
    "logit": ("load_prepared",),
    "manifest": ("data_summary_record",),
    "model_reliance": ("load_prepared",),
    "multiplicity": ("load_prepared",),
    "prediction_intervals": ("load_prepared",),
    "ebm_terms": ("load_prepared",),
    "regional_effects": ("load_prepared",),
    "treefarms": ("load_prepared",),
    "ols": ("load_prepared",),
    "pd_ice": (
        "expand_user_groups",
        "load_prepared",
    ),
    "prepare": (
        "correlation_matrix",
        "prepare_table",
        "read_canonical",
    ),
    "ranking_agreement": ("variable_groups",),
    "rashomon": ("load_prepared",),
    "rashomon_bootstrap_shard": ("load_prepared",),
    "rashomon_effects": ("load_prepared",),
    "rashomon_refit": ("load_prepared",),
    "sage": ("load_prepared",),
    "shap": ("load_prepared",),
    "shap_check": (
        "importance_groups",
        "load_prepared",
    ),
    "split": (
        "load_prepared",
        "make_checked_split",
    ),
    "squared_terms": ("load_prepared",),
    "twin": ("load_prepared",),
}

__getattr__, __dir__, __all__ = attach(__name__, ENTRY_POINTS)
