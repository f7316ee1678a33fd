"""Learner-level explanations: the expectation over training sets of a learner's PD, PFI, SHAP
importance and ALE, with refit intervals (Molnar et al. 2023, "Relating the Partial Dependence Plot
and Permutation Feature Importance to the Data Generating Process", xAI 2023, CCIS 1901).

Rooms: the refits and their design (:mod:`._refits`, whose docstring holds the method, its
estimands and the departures from seed 001 §4.3), the estimator of a family's configuration
(:mod:`._estimators`), the corrected resampled-*t* intervals and the learner-PD / PFI tables
(:mod:`._intervals`; Nadeau & Bengio 2003), learner-SHAP and learner-ALE from the same refits
(:mod:`._effects`), and the ``learner`` rule's tables (:mod:`._tables`).
"""

from ..._lazy import attach

#: Entry point -> the submodule that defines it (imported on first use, PEP 562; :mod:`xaipipe._lazy`).
ENTRY_POINTS = {
    # The refits (Molnar et al. 2023) and their design
    "RefitDesign": "_refits",
    "refit_design": "_refits",
    "LearnerResult": "_refits",
    "learner_refits": "_refits",
    "learner_pd_pfi": "_refits",
    "estimator_factory": "_estimators",
    # Learner-PD / learner-PFI: the corrected resampled-t intervals and their tables
    "PD_REFIT_COLUMNS": "_intervals",
    "PFI_REFIT_COLUMNS": "_intervals",
    "LEARNER_PD_COLUMNS": "_intervals",
    "LEARNER_PFI_COLUMNS": "_intervals",
    "corrected_t_interval": "_intervals",
    "learner_pd_table": "_intervals",
    "learner_pfi_table": "_intervals",
    # Learner-SHAP importance and learner-ALE from the same refits
    "SHAP_REFIT_COLUMNS": "_effects",
    "ALE_REFIT_COLUMNS": "_effects",
    "LEARNER_SHAP_COLUMNS": "_effects",
    "LEARNER_ALE_COLUMNS": "_effects",
    "RefitEffects": "_effects",
    "EffectPlan": "_effects",
    "refit_effects_of": "_effects",
    "plan_effects": "_effects",
    "refit_effects": "_effects",
    "shared_ale_edges": "_effects",
    "learner_shap_table": "_effects",
    "learner_ale_table": "_effects",
    # The learner rule's tables
    "LearnerTables": "_tables",
    "learner_tables": "_tables",
}

__getattr__, __dir__, __all__ = attach(__name__, ENTRY_POINTS)
