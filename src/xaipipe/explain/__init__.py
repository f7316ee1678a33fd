"""Explanations of fitted models, one folder per method: model reliance (``reliance/``: MR, conditional /
grouped MR, split gain, the MR tables and ranking), partial dependence (``pdp/``: PD / ICE, ALE, H²,
the pair choice), SHAP values (``shapley/``: values, interaction summaries, the KernelSHAP check),
learner-level explanations (``learner/``: learner-PFI / PD / SHAP / ALE and their intervals), SAGE
(``sage``), LIME (``lime``) and a glass-box model's own terms (``glassbox``: an EBM's); each holds
its rule's table function.

A front door (:mod:`xaipipe._lazy`): ``from xaipipe.explain import <entry point>``; :data:`RULES` is
its part of the rule -> entry map.
Library entries (no rule): ``model_reliance`` (MR of one or many models, Fisher et al. 2019) and
its ``RelianceOptions``; ``ebm_terms``, ``term_contributions``, ``ebm_pd_band`` and ``bagging_se_factor`` (an EBM's terms and
error bars).
"""

from .._lazy import attach

#: Entry point -> the submodule that defines it (imported on first use, PEP 562).
ENTRY_POINTS = {
    "model_reliance": "reliance._model_reliance",
    "RelianceOptions": "reliance._base",
    "reliance_tables": "reliance._tables",
    "ranking_tables": "reliance._tables",
    "pd_ice_tables": "pdp._tables",
    "ale_tables": "pdp._ale_tables",
    "h_statistic_table": "pdp._h_statistic",
    "shap_tables": "shapley._tables",
    "shap_interaction_tables": "shapley._interactions",
    "dependent_reliance_rows": "reliance._dependent",
    "learner_tables": "learner._tables",
    "lime_tables": "lime",
    "kernel_vs_tree_shap": "shapley._check",
    "class_choice": "classes",
    "class_result": "shapley._result",
    "DEPENDENT_ESTIMATORS": "reliance._dependent",
    "dependent_ranking_agreement": "reliance._dependent",
    "large_data_table": "large_data",
    "ranked_features": "reliance._ranking",
    "strongest_h2_pair": "pdp._pair_choice",
    "regional_effects_tables": "pdp._regional",
    "sage_table": "sage",
    "ebm_terms_tables": "glassbox",
    "ebm_terms": "glassbox",
    "term_contributions": "glassbox",
    "ebm_pd_band": "glassbox",
    "bagging_se_factor": "glassbox",
}

#: The rule -> entry map: each rule whose script imports from this door, with the entry points it
#: imports (tests/test_front_doors.py checks it against workflow/; docs/layout.md prints it).
RULES = {
    "abalone_study_mcr": ("class_choice",),
    "ale": ("ale_tables",),
    "ebm_terms": ("ebm_terms_tables",),
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
    "regional_effects": ("regional_effects_tables",),
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
