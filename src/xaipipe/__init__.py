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
``xaipipe.report``
    figure style, figures, LaTeX tables, provenance manifest and version diffs.
"""

__version__ = "0.1.0"
