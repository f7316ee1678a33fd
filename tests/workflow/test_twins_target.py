"""The `twins` target end to end on a copy of the small run (tests/configs/twins_tiny.yaml): the
twin, truth and shard jobs, the coverage table and figure, nothing planned again, and the default
target's learner figures and explorer then picking the coverage up (issue 51, items 1-3)."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pandas as pd
import pytest

from xaipipe.studies.twin_table import KINDS, TWIN_COVERAGE_COLUMNS

from .conftest import small_args, snakemake

pytestmark = pytest.mark.integration

TWINS = ("tests/configs/twins_tiny.yaml",)


@pytest.fixture(scope="module")
def twins_run(small_run, tmp_path_factory, mirror_dir):
    repo = tmp_path_factory.mktemp("twins") / "repo"
    shutil.copytree(small_run, repo, symlinks=True)  # the small run's CV and MR jobs stay finished
    proc = snakemake(repo, "twins", "--cores", "2", *small_args(mirror_dir, configfiles=TWINS))
    return repo, proc


def _planned(proc) -> set[str]:
    return {line.split("rule ", 1)[1].rstrip(":") for line in proc.stdout.splitlines() if line.startswith("rule ")}


def test_twins_target_writes_the_coverage_of_every_kind(twins_run, mirror_dir):
    repo, proc = twins_run
    # only the twin rules ran: the small run's CV, fits and MR tables were reused
    ran = _planned(proc)
    twin_rules = {"twin", "twin_truth", "twin_shard", "twin_coverage", "twins_table", "twins_figure", "twins"}
    assert ran <= twin_rules | {"twin_importance_truth", "twin_importance_shard"}, ran
    res = repo / "results" / "test"
    table = pd.read_csv(res / "tables" / "coverage_twins.csv")
    assert list(table.columns) == TWIN_COVERAGE_COLUMNS
    assert set(table["dataset"]) == {"diabetes", "breast_cancer"}
    kinds = {d: set(g["kind"]) for d, g in table.groupby("dataset")}
    assert {"learner", "mr", "test_loss", "mcr", "ols"} <= kinds["diabetes"]
    assert {"learner", "mr", "test_loss", "mcr", "logit"} <= kinds["breast_cancer"]
    assert "sage" in kinds["diabetes"] and "sage" in kinds["breast_cancer"]  # and H² where f* is not additive
    assert set(table["kind"]) <= set(KINDS)
    assert set(table["target"]) == {"claimed", "planted"}
    # every replicate counts, except the logit rows: replicates with a separated design print no Wald
    # interval and drop out of them (docs/coverage.md, "Logit under separation")
    logit = table["kind"] == "logit"
    assert (table.loc[~logit, "n_repetitions"] == 4).all()
    assert table.loc[logit, "n_repetitions"].between(1, 4).all()
    cov = table["coverage"].dropna()
    assert len(cov) and ((cov >= 0) & (cov <= 1)).all()
    # every replicate of both shards made it into the repetitions
    for dataset in ("diabetes", "breast_cancer"):
        reps = pd.read_csv(res / "twins" / dataset / "repetitions.csv")
        assert sorted(reps["repetition"].unique()) == [0, 1, 2, 3]
        design = json.loads((res / "twins" / dataset / "design.json").read_text())
        assert design["n_repetitions"] == 4
    # the sanity twin: OLS at its label within a loose band with 4 replicates
    ols = table[(table["kind"] == "ols") & (table["nominal"] == 0.95) & (table["target"] == "claimed")]
    assert len(ols) and np.all(ols["coverage"] >= 0.5)
    for ext in ("pdf", "png"):
        assert (res / "figures" / "coverage" / f"twins.{ext}").stat().st_size > 1000
    logs = repo / "logs" / "test"
    assert (logs / "twins" / "diabetes" / "shard_1.log").is_file()
    assert (logs / "benchmarks" / "twin_shard" / "breast_cancer_0.tsv").is_file()
    again = snakemake(repo, "-n", "twins", "--cores", "2", *small_args(mirror_dir, configfiles=TWINS))
    assert "Nothing to be done" in again.stdout + again.stderr


def test_default_target_then_shows_the_twin_coverage(twins_run, mirror_dir):
    repo, _ = twins_run
    # the coverage table is now an input of the learner, MR, SAGE and H² figures and the explorer: those (and
    # the manifest) rerun, nothing else
    plan = snakemake(repo, "-n", "--cores", "2", *small_args(mirror_dir, configfiles=TWINS))
    planned = _planned(plan)
    captioned = {"learner_figures", "reliance_figures", "sage_figures", "dependence_figures", "ebm_figures", "explorer"}
    assert {"learner_figures", "reliance_figures"} <= planned <= captioned | {"manifest", "all"}, planned
