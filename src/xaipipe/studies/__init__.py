"""Studies: analyses that combine several steps (thesis studies, simulation, seed 003).

Entry points (``from xaipipe.studies import ...``, imported on first use):

===========================  ========================  ============================================
entry point                  rule                      what
===========================  ========================  ============================================
``study_cv_shard``           ``abalone_study_shard``   one shard of the Abalone Table 4.1 study
``table_4_1_from_shards``    ``abalone_study``         Table 4.1 from the shards
``coverage_audit``           ``coverage_audit``        coverage of the MCR / bootstrap intervals
``truth_table``              ``simulation_truth``      known truth of the simulated data
``correlated_truth_table``   ``simulation_truth``      known truth of the correlated variant
``illustration_table``       ``illustration``          the theses' illustrations (data)
``tree_table``               ``illustration_tree``     the Diabetes tree illustration
``rerun_seed003``            ``seed003``               seed 003's study, rerun
===========================  ========================  ============================================
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
}

__getattr__, __dir__, __all__ = attach(__name__, ENTRY_POINTS)
