"""Explanations of fitted models: model reliance (MR), PD / ICE, ALE, SHAP values, learner-level MR.

A front door (:mod:`xaipipe._lazy`): ``from xaipipe.explain import <entry point>``; :data:`RULES` is
its part of the rule -> entry map.
Library entries (no rule): ``model_reliance`` (MR of one or many models, Fisher et al. 2019) and
its ``RelianceOptions``.
"""

from .._lazy import attach

#: Entry point -> the submodule that defines it (imported on first use, PEP 562).
ENTRY_POINTS = {
    "model_reliance": "reliance",
    "RelianceOptions": "reliance",
    "reliance_tables": "summary",
    "ranking_tables": "summary",
    "pd_ice_tables": "pdp",
    "ale_tables": "dependence",
    "h_statistic_table": "dependence",
    "shap_tables": "shapley",
    "shap_interaction_tables": "dependence",
    "dependent_reliance_rows": "dependence",
    "learner_tables": "learner",
    "lime_tables": "lime",
    "kernel_vs_tree_shap": "shap_check",
    "class_choice": "classes",
    "class_result": "shapley",
    "DEPENDENT_ESTIMATORS": "dependence",
    "dependent_ranking_agreement": "dependence",
    "large_data_table": "large_data",
    "ranked_features": "ranking",
    "strongest_h2_pair": "pair_choice",
    "sage_table": "sage",
}

#: The rule -> entry map: each rule whose script imports from this door, with the entry points it
#: imports (tests/test_front_doors.py checks it against workflow/; docs/layout.md prints it).
RULES = {
    "abalone_study_mcr": ("class_choice",),
    "ale": ("ale_tables",),
    "h_statistic": ("h_statistic_table",),
    "large_data": ("large_data_table",),
    "learner": ("learner_tables",),
    "lime": (
        "class_result",
        "lime_tables",
    ),
    "model_reliance": (
        "dependent_reliance_rows",
        "reliance_tables",
    ),
    "pd_ice": (
        "pd_ice_tables",
        "ranked_features",
        "strongest_h2_pair",
    ),
    "ranking_agreement": (
        "dependent_ranking_agreement",
        "ranking_tables",
    ),
    "rashomon": ("class_choice",),
    "rashomon_effects": ("class_choice",),
    "rashomon_refit": ("class_choice",),
    "sage": ("sage_table",),
    "shap": ("shap_tables",),
    "shap_check": (
        "class_choice",
        "kernel_vs_tree_shap",
    ),
    "shap_force_html": ("class_result",),
    "shap_interaction_summary": ("shap_interaction_tables",),
    "simulation_truth": ("DEPENDENT_ESTIMATORS",),
}

__getattr__, __dir__, __all__ = attach(__name__, ENTRY_POINTS)
