"""Explanations of fitted models: model reliance (MR), PD / ICE, ALE, SHAP values, learner-level MR.

Entry points (``from xaipipe.explain import ...``, imported on first use):

===============================  ======================  ==========================================
entry point                      rule                    what
===============================  ======================  ==========================================
``model_reliance``               (library)               MR of one or many models (Fisher et al.)
``reliance_tables``              ``model_reliance``      MR tables of a dataset's fitted families
``ranking_tables``               ``ranking_agreement``   agreement of the variable rankings
``pd_ice_tables``                ``pd_ice``              PD / ICE / c-ICE / d-ICE curves
``ale_tables``                   ``ale``                 accumulated local effects
``h_statistic_table``            ``h_statistic``         Friedman's H² of the top variable pairs
``shap_tables``                  ``shap_values``         SHAP values and their summaries
``shap_interaction_tables``      ``shap_interaction``    SHAP interaction values' summaries
``dependent_reliance_rows``      ``model_reliance``      MR under dependent features
``learner_tables``               ``learner``             learner-level PD / MR over refits
===============================  ======================  ==========================================

The ``lime`` and ``shap_check`` rules call :func:`xaipipe.explain.lime.lime_tables` and
:mod:`xaipipe.explain.shap_check` directly (a front door holds at most ten entry points).
"""

from .._lazy import attach

#: Entry point -> the submodule that defines it (imported on first use, PEP 562).
ENTRY_POINTS = {
    "model_reliance": "reliance",
    "reliance_tables": "summary",
    "ranking_tables": "summary",
    "pd_ice_tables": "pdp",
    "ale_tables": "dependence",
    "h_statistic_table": "dependence",
    "shap_tables": "shapley",
    "shap_interaction_tables": "dependence",
    "dependent_reliance_rows": "dependence",
    "learner_tables": "learner",
}

__getattr__, __dir__, __all__ = attach(__name__, ENTRY_POINTS)
