"""xaipipe: model reliance, model class reliance (MCR) over Rashomon sets, partial
dependence / ICE and SHAP values for the experiments of two theses on interpreting
machine-learning models.

Sub-packages follow the data flow of the Snakemake workflow:

``xaipipe.data``
    dataset registry, ``ucimlrepo`` download wrapper, offline mirror reader,
    preparation and train/test/CV splits.
``xaipipe.models``
    model families, hyperparameter grids, exact shared-prefix evaluation of
    ensembles, cross-validation, refits, test metrics and OLS inference.
``xaipipe.explain``
    model reliance (MR), split-gain importance, PD / ICE / c-ICE / d-ICE, SHAP
    values and learner-PD / learner-PFI.
``xaipipe.rashomon``
    Rashomon sets and model class reliance (MCR).
``xaipipe.studies``
    analyses that combine several steps (thesis studies, simulation, coverage).
``xaipipe.plots``
    figures drawn from stored results.
``xaipipe.report``
    thesis tables, provenance manifest, version diffs, code hashes.

Each sub-package's ``__init__`` is its front door: it names its entry points (at most ten, the
functions the workflow's rules call), loaded on first use (:mod:`xaipipe._lazy`), e.g.
``from xaipipe.rashomon import mcr_study``. ``docs/layout.md`` maps each rule to its entry point.
"""

__version__ = "0.1.0"
