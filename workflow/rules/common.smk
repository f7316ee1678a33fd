# Shared definitions: config validation, paths, dataset/family lists, targets.
import os
import sys
from pathlib import Path

import yaml
from snakemake.utils import validate

validate(config, "../schemas/config.schema.yaml")

BASEDIR = Path(workflow.basedir)
SOURCES_FILE = str(BASEDIR / "config" / "sources.yaml")
REFERENCE_FILE = str(BASEDIR / "config" / "reference.yaml")
with open(SOURCES_FILE, encoding="utf-8") as _fh:
    SOURCES = yaml.safe_load(_fh)
validate(SOURCES, "../schemas/sources.schema.yaml")

VERSION = config["version"]
RESULTS = f"results/{VERSION}"
LOGS = f"logs/{VERSION}"
BENCH = f"{LOGS}/benchmarks"
DATASETS = [d for d, opts in config["datasets"].items() if opts.get("enabled", True)]
if not DATASETS:
    raise ValueError("config key datasets: every dataset has enabled: false; enable at least one")
ALL_FAMILIES = sorted(set(config["grids"]["regression"]) | set(config["grids"]["classification"]))


STYLE_FILE = str(BASEDIR / config["report"]["style"])


def task_of(dataset):
    return SOURCES[dataset]["task"]


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
    """Preparation options of one dataset (`families` excluded: it changes no data)."""
    return {k: v for k, v in config["datasets"][dataset].items() if k not in ("families", "enabled")}


def cv_params(wildcards):
    task = task_of(wildcards.dataset)
    return {
        "task": task,
        "grid": config["grids"][task][wildcards.family],
        "options": config["estimator_options"].get(wildcards.family, {}),
        "selection": config["selection"][task],
        "seed": config["seed"],
    }


def mirror_files(wildcards):
    """The mirror files of a dataset (inputs, so Snakemake tracks them)."""
    mirror = config["uci_mirror"]
    if not mirror:
        return []
    return [os.path.join(mirror, f["path"]) for f in SOURCES[wildcards.dataset]["files"]]


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
