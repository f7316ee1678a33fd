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
    "prepare_table": "prepare",
    "correlation_matrix": "prepare",
    "make_checked_split": "split",
    "load_prepared": "prepare",
    "simulate": "simulated",
    "canonical_to_csv_bytes": "sources",
}

#: The rule -> entry map: each rule whose script imports from this door, with the entry points it
#: imports (tests/test_front_doors.py checks it against workflow/; docs/layout.md prints it).
RULES = {
    "abalone_study_cv": ("load_prepared",),
    "abalone_study_mcr": ("load_prepared",),
    "ale": ("load_prepared",),
    "canonical": (
        "DatasetEntry",
        "canonical_to_csv_bytes",
        "load_canonical",
    ),
    "cv": ("load_prepared",),
    "cv_shard": ("load_prepared",),
    "fit": ("load_prepared",),
    "h_statistic": ("load_prepared",),
    "illustration": ("simulate",),
    "illustration_tree": ("read_canonical",),
    "learner": ("load_prepared",),
    "lime": ("load_prepared",),
    "logit": ("load_prepared",),
    "model_reliance": ("load_prepared",),
    "multiplicity": ("load_prepared",),
    "ols": ("load_prepared",),
    "pd_ice": ("load_prepared",),
    "prepare": (
        "correlation_matrix",
        "prepare_table",
        "read_canonical",
    ),
    "rashomon": ("load_prepared",),
    "rashomon_bootstrap_shard": ("load_prepared",),
    "rashomon_refit": ("load_prepared",),
    "shap": ("load_prepared",),
    "shap_check": ("load_prepared",),
    "split": ("make_checked_split",),
    "squared_terms": ("load_prepared",),
}

__getattr__, __dir__, __all__ = attach(__name__, ENTRY_POINTS)
