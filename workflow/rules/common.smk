# Shared definitions: config validation, paths, dataset/family lists, targets.
import os
import sys
from pathlib import Path

import yaml
from snakemake.utils import validate

validate(config, "../schemas/config.schema.yaml")

BASEDIR = Path(workflow.basedir)
REFERENCE_FILE = str(BASEDIR / "config" / "reference.yaml")

VERSION = config["version"]
RESULTS = f"results/{VERSION}"
LOGS = f"logs/{VERSION}"
BENCH = f"{LOGS}/benchmarks"
# Datasets: the registry (config/datasets.yaml) merged with the config's datasets.<d> entries.
if str(BASEDIR / "src") not in sys.path:
    sys.path.insert(0, str(BASEDIR / "src"))
from xaipipe.data.registry import (  # noqa: E402
    check_ols_inference,
    input_files,
    load_registry,
    preparation_options,
)

REGISTRY_FILE = str(BASEDIR / "config" / "datasets.yaml")
REGISTRY_SCHEMA = str(BASEDIR / "workflow" / "schemas" / "datasets.schema.yaml")
REGISTRY = load_registry(REGISTRY_FILE, config["datasets"], schema=REGISTRY_SCHEMA)
DATASETS = [d for d, opts in config["datasets"].items() if opts.get("enabled", True)]
if not DATASETS:
    raise ValueError("config key datasets: every dataset has enabled: false; enable at least one")
check_ols_inference(config["ols_inference"], REGISTRY, DATASETS)
ALL_FAMILIES = sorted(set(config["grids"]["regression"]) | set(config["grids"]["classification"]))


STYLE_FILE = str(BASEDIR / config["report"]["style"])


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
    task = task_of(wildcards.dataset)
    return {
        "task": task,
        "grid": config["grids"][task][wildcards.family],
        "options": config["estimator_options"].get(wildcards.family, {}),
        "selection": config["selection"][task],
        "seed": config["seed"],
    }


def source_files(wildcards):
    """Local files a dataset is read from (mirror files, a local CSV/Parquet): inputs, so Snakemake tracks them."""
    return input_files(REGISTRY[wildcards.dataset], config["uci_mirror"])


def per_dataset(pattern, datasets=None):
    return [pattern.format(results=RESULTS, dataset=d) for d in (datasets or DATASETS)]


def per_model(pattern):
    return [pattern.format(results=RESULTS, dataset=d, family=f) for d in DATASETS for f in families_of(d)]


RASHOMON = config["rashomon"]
RASHOMON_FIGURES = ("member_reliance", "rank_heatmap", "mcr_intervals", "epsilon_sensitivity", "pd_envelope")
if RASHOMON["epsilon"] not in RASHOMON["epsilons"]:
    raise ValueError(
        f"config key rashomon.epsilon ({RASHOMON['epsilon']}) must be one of rashomon.epsilons {RASHOMON['epsilons']}"
    )


def rashomon_families(dataset):
    chosen = RASHOMON["families"] or families_of(dataset)
    return [f for f in chosen if f in families_of(dataset)]


def rashomon_params_of(dataset):
    task = task_of(dataset)
    return {
        "task": task,
        "metric": config["selection"][task],
        "seed": config["seed"],
        "options": config["estimator_options"],
        "loss": config["explain"]["reliance"]["losses"][task][0],
        **{k: v for k, v in RASHOMON.items() if k not in ("bootstrap", "abalone_study", "families")},
    }


def rashomon_params(wildcards):
    return rashomon_params_of(wildcards.dataset)



sys.path.insert(0, str(BASEDIR / "src"))
from xaipipe.report.thesis import (  # noqa: E402
    available,
    check_mapping,
    figure_sources,
    table_sources,
    thesis_pd_features,
)

check_mapping(config["thesis"])
STUDIES = ["abalone_study"] if RASHOMON["abalone_study"]["enabled"] and "abalone" in DATASETS else []
THESIS_FIGURES = {
    name: entry
    for name, entry in config["thesis"]["figures"].items()
    if available(entry, DATASETS, families_of, STUDIES)
}
THESIS_TABLES = {
    name: entry
    for name, entry in config["thesis"]["tables"].items()
    if available(entry, DATASETS, families_of, STUDIES)
}

wildcard_constraints:
    dataset="|".join(DATASETS),
    family="|".join(ALL_FAMILIES),


ALL_TARGETS = [
    f"{RESULTS}/tables/test_metrics.csv",
    f"{RESULTS}/tables/thesis_comparison.csv",
    f"{RESULTS}/manifest.json",
    *per_dataset("{results}/figures/{dataset}/correlation.pdf"),
]
if [d for d in config["ols_inference"] if d in DATASETS]:
    ALL_TARGETS.append(f"{RESULTS}/tables/ols_inference.csv")
