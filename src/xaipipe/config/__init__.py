"""Settings of the study steps: the configuration as one frozen object per step, a leaf of the package.

The workflow validates the configuration against its schema (``workflow/schemas/``: types, ranges,
defaults); what a schema cannot say -- one key against another, a family name against the registry
-- is checked here, in each class's ``from_config(config, ...)``, with an error that names the config
key and the fix (once at parse time, in ``workflow/rules/common.smk``). Every field has the default
of its config key, so ``RashomonSettings(epsilon=0.5)`` works like a scikit-learn constructor. A rule
passes one param, ``settings=... .to_params()`` (a plain JSON-like dict whose values Snakemake's
``params`` rerun trigger compares), and its script rebuilds the object with one call,
``XSettings.from_params(snakemake.params.settings)``; the step function takes
``(data, settings, ...)``. What a step *does* with its settings is in the step's module, not here.

One module per step (so that a new key of one step changes the code of that step's rules only,
:mod:`xaipipe.report.code_version`): :mod:`.models` (:class:`CVSettings`: rules ``cv``,
``cv_shard``, ``fit``), :mod:`.large_data` (:class:`LargeDataSettings`: section ``large_data``, a
field of the explain settings), :mod:`.shap` (:class:`ShapSettings`), :mod:`.reliance`
(:class:`RelianceSettings`), :mod:`.pd_ice` (:class:`PdIceSettings`), :mod:`.dependence`
(:class:`AleSettings`, :class:`HStatisticSettings`), :mod:`.regional` (:class:`RegionalSettings`), :mod:`.lime` (:class:`LimeSettings`),
:mod:`.learner` (:class:`LearnerSettings`, with its learner-SHAP / ALE part
:class:`LearnerEffectsSettings` as the field ``effects``), :mod:`.sage` (:class:`SageSettings`),
:mod:`.rashomon` (:class:`RashomonSettings`, :class:`BootstrapSettings`,
:class:`MemberEffectsSettings`, :class:`PredictionIntervalSettings`, :class:`TreeFarmsSettings`), :mod:`.studies` (:class:`CoverageSettings`, :class:`CorrelatedSettings`), :mod:`.twins` (:class:`TwinSettings`, :class:`TwinImportanceSettings`);
:mod:`._base` holds what they share (the params round trip, :func:`check_family`). They import the
families registry and the standard library only: nothing here imports a step.

A new key of a step touches four places: the schema (with its default), ``config/config.yaml``,
``config/README.md`` and one field of the step's settings class (read by its name; ``tests/config``
checks that the section's keys are fields or job-choosing keys and that the defaults agree).

This ``__init__`` is a lazy front door (:mod:`xaipipe._lazy`): ``from xaipipe.config import
CVSettings`` imports :mod:`xaipipe.config.models` only; :data:`RULES` is its part of the rule -> entry
map. The workflow's parse (``common.smk``) also uses ``check_family``, ``coverage_epsilon``,
``SageSettings`` and ``MemberEffectsSettings``; library entries: ``LARGE_DATA_POLICIES`` and
``LearnerEffectsSettings`` (a field of ``LearnerSettings``, built alone in tests and notebooks).
"""

from .._lazy import attach

#: Entry point -> the submodule that defines it (imported on first use, PEP 562).
ENTRY_POINTS = {
    "CVSettings": "models",
    "LargeDataSettings": "large_data",
    "LARGE_DATA_POLICIES": "large_data",
    "ShapSettings": "shap",
    "RelianceSettings": "reliance",
    "PdIceSettings": "pd_ice",
    "AleSettings": "dependence",
    "HStatisticSettings": "dependence",
    "LimeSettings": "lime",
    "LearnerSettings": "learner",
    "RashomonSettings": "rashomon",
    "BootstrapSettings": "rashomon",
    "MemberEffectsSettings": "rashomon",
    "PredictionIntervalSettings": "rashomon",
    "TreeFarmsSettings": "rashomon",
    "RegionalSettings": "regional",
    "CoverageSettings": "studies",
    "CorrelatedSettings": "studies",
    "coverage_epsilon": "studies",
    "check_family": "_base",
    "SageSettings": "sage",
    "LearnerEffectsSettings": "learner",
    "TwinSettings": "twins",
    "TwinImportanceSettings": "twins",
}

#: The rule -> entry map: each rule whose script imports from this door, with the entry points it
#: imports (tests/test_front_doors.py checks it against workflow/; docs/layout.md prints it).
RULES = {
    "abalone_study_mcr": ("RashomonSettings",),
    "ale": ("AleSettings",),
    "coverage_audit": ("CoverageSettings",),
    "cv": ("CVSettings",),
    "cv_shard": ("CVSettings",),
    "fit": ("CVSettings",),
    "h_statistic": ("HStatisticSettings",),
    "large_data": ("LargeDataSettings",),
    "learner": ("LearnerSettings",),
    "lime": ("LimeSettings",),
    "model_reliance": ("RelianceSettings",),
    "pd_ice": ("PdIceSettings",),
    "prediction_intervals": ("PredictionIntervalSettings",),
    "rashomon": ("RashomonSettings",),
    "rashomon_bootstrap": ("BootstrapSettings",),
    "rashomon_bootstrap_shard": ("BootstrapSettings",),
    "rashomon_effects": ("MemberEffectsSettings",),
    "rashomon_refit": ("RashomonSettings",),
    "regional_effects": ("RegionalSettings",),
    "sage": ("SageSettings",),
    "shap": ("ShapSettings",),
    "simulation_truth": ("CorrelatedSettings",),
    "treefarms": ("TreeFarmsSettings",),
    "twin": ("TwinSettings",),
    "twin_importance_shard": ("TwinImportanceSettings",),
    "twin_importance_truth": ("TwinImportanceSettings",),
}

__getattr__, __dir__, __all__ = attach(__name__, ENTRY_POINTS)
