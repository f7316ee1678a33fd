"""Studies: analyses that combine several steps (thesis studies, simulation, seed 003).

A front door (:mod:`xaipipe._lazy`): ``from xaipipe.studies import <entry point>``; :data:`RULES` is
its part of the rule -> entry map.
"""

from .._lazy import attach

#: Entry point -> the submodule that defines it (imported on first use, PEP 562).
ENTRY_POINTS = {
    "study_cv_shard": "abalone",
    "table_4_1_from_shards": "abalone",
    "coverage_audit": "coverage",
    "truth_table": "simulation",
    "correlated_truth_table": "correlated",
    "illustration_table": "illustrations",
    "tree_table": "illustrations",
    "rerun_seed003": "seed003",
    "ILLUSTRATIONS": "illustrations",
    "fit_diabetes_tree": "illustrations",
    "seed003_figures": "seed003",
    "prepare_twin": "twin_truth",
    "twin_truths": "twin_truth",
    "audit_shard": "twin_audit",
    "importance_shard": "twin_importance",
    "importance_truth": "twin_importance",
    "twin_coverage_tables": "twin_table",
    "combine_twin_coverage": "twin_table",
    "learner_captions": "twin_table",
    "importance_captions": "twin_table",
    "ebm_caption": "twin_table",
    "reliance_captions": "twin_table",
    "explorer_coverage_lines": "twin_table",
}

#: The rule -> entry map: each rule whose script imports from this door, with the entry points it
#: imports (tests/test_front_doors.py checks it against workflow/; docs/layout.md prints it).
RULES = {
    "abalone_study": ("table_4_1_from_shards",),
    "abalone_study_cv": ("study_cv_shard",),
    "coverage_audit": ("coverage_audit",),
    "explorer": ("explorer_coverage_lines",),
    "learner_figures": ("learner_captions",),
    "reliance_figures": ("reliance_captions",),
    "sage_figures": ("importance_captions",),
    "ebm_figures": ("ebm_caption",),
    "dependence_figures": ("importance_captions",),
    "illustration": (
        "ILLUSTRATIONS",
        "illustration_table",
    ),
    "illustration_tree": (
        "fit_diabetes_tree",
        "tree_table",
    ),
    "seed003": (
        "rerun_seed003",
        "seed003_figures",
    ),
    "simulation_truth": (
        "correlated_truth_table",
        "truth_table",
    ),
    "twin": ("prepare_twin",),
    "twin_coverage": ("twin_coverage_tables",),
    "twin_shard": ("audit_shard",),
    "twin_importance_shard": ("importance_shard",),
    "twin_importance_truth": ("importance_truth",),
    "twin_truth": ("twin_truths",),
    "twins_table": ("combine_twin_coverage",),
}

__getattr__, __dir__, __all__ = attach(__name__, ENTRY_POINTS)
