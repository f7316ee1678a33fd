# Shared definitions: config validation, paths, dataset/family lists.
# The package `xaipipe` must be installed (README: pip install -r requirements.txt -e .;
# envs/*.yaml install it for --sdm conda).
import os
import sys
from pathlib import Path

import yaml

from xaipipe.config import (
    AleSettings,
    BootstrapSettings,
    CorrelatedSettings,
    CoverageSettings,
    CVSettings,
    HStatisticSettings,
    LargeDataSettings,
    LearnerSettings,
    LimeSettings,
    MemberEffectsSettings,
    PdIceSettings,
    PredictionIntervalSettings,
    RashomonSettings,
    RegionalSettings,
    RelianceSettings,
    SageSettings,
    TwinImportanceSettings,
    TwinSettings,
    ShapSettings,
    TreeFarmsSettings,
    check_family,
    coverage_epsilon,
)
from xaipipe.data.registry import (
    check_ols_inference,
    input_files,
    load_registry,
    preparation_options,
)
from xaipipe.config_files import check_workflow_config_files
from xaipipe.models.families import (
    FAMILIES,
    check_family_classes,
    get_family,
    register_config_families,
)
from xaipipe.models.planning import cv_shard_count
from xaipipe.models.planning import sample_size_checks as _sample_size_checks
from xaipipe.paths import result_path
from xaipipe.report.provenance import RUN_RECORD_ENV, record_invocation
from xaipipe.report.thesis import (
    available,
    check_mapping,
    figure_sources,
    table_sources,
    thesis_pd_features,
)
from xaipipe.schema import validate_config
from xaipipe.studies.abalone import abalone_study_shards

# The files Snakemake read, as files: a duplicate key (PyYAML keeps the last) is an error naming the file
# and both lines; a user's dataset key that a later --configfile replaces, and a user's file that
# contributes nothing, are warnings (xaipipe.config_files).
check_workflow_config_files(workflow, logger)
# The config schema's defaults filled in as snakemake.utils.validate fills them; one line per
# problem (`datasets.mine: unknown key 'targte' (did you mean 'target'?)`), jsonschema's full
# report only with --verbose.
if not workflow.modifier.skip_validation:
    validate_config(
        config,
        Path(workflow.basedir) / "workflow" / "schemas" / "config.schema.yaml",
        verbose=bool(getattr(workflow.output_settings, "verbose", False)),
    )
# a family of the config is imported and checked to be a scikit-learn estimator of its task before any
# job runs (an unimportable path or a foreign class stops here, naming families.<name>); in the main
# process only: the jobs start after it
for _family in register_config_families(config.get("families")):
    if workflow.is_main_process:
        check_family_classes(
            _family, (config.get("estimator_options") or {}).get(_family)
        )

import xaipipe  # noqa: E402

if (
    Path(xaipipe.__file__).resolve().parent
    != (Path(workflow.basedir) / "src" / "xaipipe").resolve()
):
    logger.warning(
        f"xaipipe is imported from {Path(xaipipe.__file__).parent}, not from this checkout's src/: the jobs "
        f"run that code (pip install -e {workflow.basedir} to use this checkout's)"
    )

BASEDIR = Path(workflow.basedir)
# Files of the checkout that are rule inputs, paths relative to the working directory, so that a
# finished run moved or copied elsewhere (with its results) records the same inputs and reruns nothing.
REFERENCE_FILE = os.path.relpath(BASEDIR / "config" / "reference.yaml")

VERSION = config["version"]
RESULTS = f"results/{VERSION}"
LOGS = f"logs/{VERSION}"
BENCH = f"{LOGS}/benchmarks"


# Provenance: the invocation that runs the jobs records itself (command, cores, start time, its
# Snakemake log) in logs/<version>/runs/<run_id>.json, keyed by its own Snakemake log, and hands the
# record to its jobs in the environment: the manifest rule reads the record of the invocation that
# runs it, whatever else starts in this checkout meanwhile. Snakemake runs `onstart` only in the main
# process of a real run, after the job graph is built: not in a dry run, not in one that fails at
# start-up (xaipipe.report.provenance.record_invocation).
onstart:
    if workflow.is_main_process:
        os.environ[RUN_RECORD_ENV] = str(
            record_invocation(
                f"{LOGS}/runs",
                argv=sys.argv,
                cores=workflow._cores,
                started_at=workflow.start_time,
                snakemake_log=log[0] if log else None,
            )
        )


# Datasets: the registry (config/datasets.yaml) merged with the config's datasets.<d> entries.
REGISTRY_FILE = str(BASEDIR / "config" / "datasets.yaml")
REGISTRY_SCHEMA = str(BASEDIR / "workflow" / "schemas" / "datasets.schema.yaml")
REGISTRY = load_registry(REGISTRY_FILE, config["datasets"], schema=REGISTRY_SCHEMA)
DATASETS = [d for d, opts in config["datasets"].items() if opts.get("enabled", True)]
if not DATASETS:
    raise ValueError(
        "config key datasets: every dataset has enabled: false; enable at least one"
    )
check_ols_inference(config["ols_inference"], REGISTRY, DATASETS)
SAMPLE = config["rashomon"]["sample"]
SAMPLED = SAMPLE["families"] if SAMPLE["enabled"] else {}
ALL_FAMILIES = sorted(
    {f for task in ("regression", "classification") for f in config["grids"][task]}
    | {f for task in SAMPLED for f in SAMPLED[task]}
)


def P(key, /, **wildcards):
    """Path of result `key` (catalog: src/xaipipe/paths.py) under results/<version>."""
    return result_path(key, RESULTS, **wildcards)


for _task, _grids in config["grids"].items():
    for _family in _grids:
        check_family(f"grids.{_task}.{_family}", _family, _task)
for _family in config["estimator_options"]:
    check_family(f"estimator_options.{_family}", _family)
# The steps' settings (xaipipe.config, unit-tested in tests/config): built and checked once here
# (each error names its config key); a rule passes one param, settings=<its settings>.to_params(),
# and its script rebuilds them with <Settings>.from_params(snakemake.params.settings).
TASKS = ("regression", "classification")
RASHOMON_SETTINGS = {
    _task: RashomonSettings.from_config(config, _task) for _task in TASKS
}
BOOTSTRAP_SETTINGS = {
    _task: BootstrapSettings.from_config(config, _task) for _task in TASKS
}
LARGE_DATA = LargeDataSettings.from_config(config)
RELIANCE_SETTINGS = {
    _task: RelianceSettings.from_config(config, _task) for _task in TASKS
}
PD_ICE_SETTINGS = {_task: PdIceSettings.from_config(config, _task) for _task in TASKS}
SHAP_SETTINGS = {f: ShapSettings.from_config(config, f) for f in ALL_FAMILIES}
ALE_SETTINGS = {_task: AleSettings.from_config(config, _task) for _task in TASKS}
H_STATISTIC_SETTINGS = {
    (_task, f): HStatisticSettings.from_config(config, _task, f)
    for _task in TASKS
    for f in ALL_FAMILIES
}
LIME_SETTINGS = LimeSettings.from_config(config)
for _task in TASKS:  # explain.learner.families, percentiles: checked once per task
    LearnerSettings.from_config(config, _task)
# the SAGE step's settings (xaipipe.config.SageSettings, unit-tested in tests/config): the sage
# rule's one param is its to_params()
SAGE_SETTINGS = SageSettings.from_config(config)


def shap_interaction_families(dataset):
    """Families of `dataset` whose SHAP job computes interaction values (ShapSettings.interaction_values)."""
    return [f for f in families_of(dataset) if SHAP_SETTINGS[f].interaction_values]


STYLE_FILE = os.path.relpath(BASEDIR / config["report"]["style"])


def twins_table_if_run(wildcards):
    """The twins' coverage table (rule twins_table) where `snakemake twins` has written it, else
    nothing: captions and the explorer show coverage from it only then (docs/coverage.md).
    """
    path = P("table", name="coverage_twins")
    return [path] if os.path.exists(path) else []


def task_of(dataset):
    return REGISTRY[dataset].task


def families_of(dataset):
    """Families run on `dataset`: datasets.<d>.families or every family of its task's grid."""
    grids = config["grids"][task_of(dataset)]
    chosen = config["datasets"][dataset].get("families") or list(grids)
    unknown = [f for f in chosen if f not in grids]
    if unknown:
        raise ValueError(
            f"config key datasets.{dataset}.families lists {unknown}, which have no grid in "
            f"grids.{task_of(dataset)} (available: {list(grids)})"
        )
    return chosen


def prep_options(dataset):
    """Preparation options of one dataset (`families`, `enabled` excluded: they change no data)."""
    return preparation_options(REGISTRY[dataset], config["datasets"][dataset])


def canonical_entry(dataset):
    """The registry entry that the canonical table depends on (params: a change reruns it)."""
    return REGISTRY[dataset].to_mapping(preparation=False)


def cv_params(wildcards):
    """params.settings of the family's CV and fit jobs (xaipipe.config.CVSettings: the grid, None
    when the family is only sampled; its random search, None when off; classifiers also get the
    F-beta weight metrics.beta, None for regression so that it reruns nothing there).
    """
    return CVSettings.from_config(
        config, task_of(wildcards.dataset), wildcards.family
    ).to_params()


def learner_params(wildcards):
    """params.settings of the family's learner job (xaipipe.config.LearnerSettings)."""
    return LearnerSettings.from_config(
        config, task_of(wildcards.dataset), wildcards.family
    ).to_params()


def cv_shards(dataset, family):
    """Jobs the CV of `family` on `dataset` is split into (xaipipe.models.planning.cv_shard_count of
    config key cv_shards.<family>)."""
    settings = CVSettings.from_config(config, task_of(dataset), family)
    return cv_shard_count(
        settings, config["cv_shards"].get(family, 1), config["split"]["cv_folds"]
    )


def cv_shard_files(dataset, family):
    """The cv_shard outputs the cv job combines ([] when the CV runs as one job)."""
    n = cv_shards(dataset, family)
    if n == 1:
        return []
    return [P("cv_shard", dataset=dataset, family=family, shard=i) for i in range(n)]


def source_files(wildcards):
    """Local files a dataset is read from (mirror files, a local CSV/Parquet): inputs, so Snakemake tracks them."""
    return input_files(REGISTRY[wildcards.dataset], config["uci_mirror"])


def per_dataset(name, datasets=None):
    """Result `name` of every run dataset (or of `datasets`)."""
    return [P(name, dataset=d) for d in (DATASETS if datasets is None else datasets)]


def per_family(name, dataset):
    """Result `name` of every family run on `dataset`."""
    return [P(name, dataset=dataset, family=f) for f in families_of(dataset)]


def per_model(name):
    """Result `name` of every dataset x family."""
    return [p for d in DATASETS for p in per_family(name, d)]


def sage_families(dataset):
    """Families of `dataset` whose fitted model gets SAGE (explain.sage.families; null: all)."""
    return [f for f in families_of(dataset) if SAGE_SETTINGS.runs(f)]


def sage_models(name):
    """Result `name` of every dataset x family that gets SAGE."""
    return [P(name, dataset=d, family=f) for d in DATASETS for f in sage_families(d)]


def term_families(dataset):
    """Families of `dataset` whose models explain themselves by additive terms (the registry's
    Family.terms: EBM), the ebm_terms rule's."""
    return [f for f in families_of(dataset) if get_family(f).terms]


def term_models(name):
    """Result `name` of every dataset x family with additive terms of its own."""
    return [P(name, dataset=d, family=f) for d in DATASETS for f in term_families(d)]


# the regional effects' settings (checked: registered families; xaipipe.config.RegionalSettings)
REGIONAL_SETTINGS = RegionalSettings.from_config(config)


def regional_families(dataset):
    """Families of `dataset` whose fitted model gets regional effects (explain.regional.families)."""
    return [
        f
        for f in families_of(dataset)
        if f in config["explain"]["regional"]["families"]
    ]


def regional_models(name):
    """Result `name` of every dataset x family that gets regional effects."""
    return [
        P(name, dataset=d, family=f) for d in DATASETS for f in regional_families(d)
    ]


RASHOMON = config["rashomon"]
STUDY = RASHOMON["abalone_study"]
# The Table 4.1 CV is split into jobs of whole prefix groups (config key
# rashomon.abalone_study.n_shards, at most the grid's number of prefix groups).
STUDY_SHARDS = abalone_study_shards(config)
# The Rashomon bootstrap is split into jobs of resamples b, b + n, b + 2n, ...
# (config key rashomon.bootstrap.n_shards, at most n_bootstrap; the shard jobs' scripts deal the
# resamples with the same xaipipe.config.BootstrapSettings).
BOOTSTRAP_SHARDS = BOOTSTRAP_SETTINGS["regression"].jobs
OLS_DATASETS = [d for d in config["ols_inference"] if d in DATASETS]


def sampled_families(dataset):
    """Families of the dataset's task that are only sampled (no grid): members of its Rashomon sets only."""
    task = task_of(dataset)
    return [f for f in SAMPLED.get(task, {}) if f not in config["grids"][task]]


def rashomon_families(dataset):
    """The model class of the dataset's Rashomon sets: rashomon.families, or every family run on it
    plus the families only sampled for its task."""
    if RASHOMON["families"]:
        return [
            f
            for f in RASHOMON["families"]
            if f in families_of(dataset) + sampled_families(dataset)
        ]
    return families_of(dataset) + sampled_families(dataset)


def refit_job_families(dataset):
    """Families of the dataset's model class whose member refits run in a rashomon_refit job
    (config key rashomon.refit_jobs)."""
    return [f for f in RASHOMON["refit_jobs"] if f in rashomon_families(dataset)]


def bootstrap_families(dataset):
    return [f for f in RASHOMON["bootstrap"]["families"] if f in families_of(dataset)]


def sample_size_checks(dataset):
    """params.checks of the split job (xaipipe.models.planning.sample_size_checks, unit-tested)."""
    return _sample_size_checks(
        config, task_of(dataset), families_of(dataset), sampled_families(dataset)
    )


def rashomon_params(wildcards):
    """params.settings of the dataset's Rashomon jobs (xaipipe.config.RashomonSettings)."""
    return RASHOMON_SETTINGS[task_of(wildcards.dataset)].to_params()


def member_effects_params(wildcards):
    """params.settings of the dataset's rashomon_effects job (xaipipe.config.MemberEffectsSettings)."""
    return MemberEffectsSettings.from_config(
        config, task_of(wildcards.dataset)
    ).to_params()


def prediction_interval_params(wildcards):
    """params.settings of the dataset's prediction_intervals job (xaipipe.config.PredictionIntervalSettings)."""
    return PredictionIntervalSettings.from_config(
        config, task_of(wildcards.dataset)
    ).to_params()


# the Table 4.1 grid's Rashomon sets: one scope per family
STUDY_RASHOMON_PARAMS = RASHOMON_SETTINGS[task_of(STUDY["dataset"])].to_params() | {
    "scopes": ["family"]
}


def bootstrap_params(wildcards):
    """params.settings of the dataset's bootstrap jobs (xaipipe.config.BootstrapSettings)."""
    return BOOTSTRAP_SETTINGS[task_of(wildcards.dataset)].to_params()


COVERAGE = config["coverage"]


# The coverage audit's settings and the figure's epsilon (checked: registered regression families,
# coverage.mcr.epsilon in its grid): xaipipe.config.CoverageSettings, coverage_epsilon (unit-tested).
COVERAGE_SETTINGS = CoverageSettings.from_config(config)
COVERAGE_EPSILON = coverage_epsilon(config)


check_mapping(config["thesis"])
STUDIES = ["abalone_study"] if STUDY["enabled"] and STUDY["dataset"] in DATASETS else []
THESIS_FIGURES = {
    name: entry
    for name, entry in config["thesis"]["figures"].items()
    if available(
        entry,
        DATASETS,
        families_of,
        STUDIES,
        illustrations=config["illustrations"].get("enabled", True),
    )
}
THESIS_TABLES = {
    name: entry
    for name, entry in config["thesis"]["tables"].items()
    if available(entry, DATASETS, families_of, STUDIES)
}


# model comparison (workflow/rules/comparison.smk)
COMPARISON = config["comparison"]
CLASSIFICATION_DATASETS = [d for d in DATASETS if task_of(d) == "classification"]
REGRESSION_DATASETS = [d for d in DATASETS if task_of(d) == "regression"]
# the binary classification datasets with the TreeFARMS scope (rule treefarms; issue 53)
TREEFARMS_DATASETS = [
    d
    for d in DATASETS
    if task_of(d) == "classification" and RASHOMON["treefarms"]["enabled"]
]


def treefarms_params(wildcards):
    """params.settings of the dataset's treefarms job (xaipipe.config.TreeFarmsSettings)."""
    return TreeFarmsSettings.from_config(config, task_of(wildcards.dataset)).to_params()


# the datasets with Rashomon prediction intervals (rule prediction_intervals; issue 53)
PREDICTION_INTERVAL_DATASETS = (
    REGRESSION_DATASETS if RASHOMON["prediction_intervals"]["enabled"] else []
)


wildcard_constraints:
    dataset="|".join(DATASETS),
    family="|".join(ALL_FAMILIES),
    shard=r"\d+",


def twin_datasets():
    """Datasets with a twin audit: twins.datasets (those that run), or every dataset that runs."""
    chosen = config["twins"]["datasets"]
    if chosen is None:
        return list(DATASETS)
    unknown = [d for d in chosen if d not in DATASETS]
    if unknown:
        raise ValueError(
            f"config key twins.datasets lists {unknown}, which do not run (datasets that run: {DATASETS})"
        )
    return list(chosen)


def twin_settings(dataset):
    """The dataset's twin settings (xaipipe.config.TwinSettings), a simulated table's DGP with them."""
    source = REGISTRY[dataset].source
    dgp = (
        {"dgp": source["dgp"], "noise_sd": source.get("noise_sd", 1.0)}
        if source.get("kind") == "simulated"
        else None
    )
    return TwinSettings.from_config(config, task_of(dataset), dgp)


def twin_params(wildcards):
    """params.settings of the dataset's twin job (xaipipe.config.TwinSettings)."""
    return twin_settings(wildcards.dataset).to_params()


def twin_importance_runs():
    """Whether the twins audit SAGE or H² (twins.importance.sage / .h2)."""
    section = config["twins"]["importance"]
    return bool(section["sage"] or section["h2"])


def twin_importance_params(wildcards):
    """params.settings of the dataset's SAGE / H² audit jobs (xaipipe.config.TwinImportanceSettings)."""
    return TwinImportanceSettings.from_config(
        config, task_of(wildcards.dataset)
    ).to_params()


def twin_learner_reliance(wildcards):
    """The MR table of the dataset's first learner family (the learner-PD's top variables), if it runs."""
    settings = twin_settings(wildcards.dataset)
    runs = [f for f in settings.learner_families if f in families_of(wildcards.dataset)]
    return (
        [P("model_reliance", dataset=wildcards.dataset, family=runs[0])] if runs else []
    )
