"""The `coverage` target: runs on its own (no dataset needed), writes its tables and figure, and is not
part of the default target."""

from __future__ import annotations

import pandas as pd
import pytest

from xaipipe.studies.coverage import COVERAGE_COLUMNS, REPETITION_COLUMNS

from .conftest import copy_workflow, small_args, snakemake

pytestmark = pytest.mark.integration

TINY = ["--configfile", "config/config.yaml", "tests/configs/coverage_tiny.yaml"]


def test_coverage_target(tmp_path):
    repo = copy_workflow(tmp_path / "repo")
    snakemake(repo, "--cores", "2", "coverage", *TINY)
    res = repo / "results" / "covtest"
    cov = pd.read_csv(res / "tables" / "coverage.csv")
    reps = pd.read_csv(res / "tables" / "coverage_repetitions.csv")
    assert list(cov.columns) == COVERAGE_COLUMNS and list(reps.columns) == REPETITION_COLUMNS
    assert sorted(reps["repetition"].unique()) == [0, 1]
    # the pipeline's epsilon rule and learner settings fill the nulls of the coverage section
    assert set(reps["epsilon"].dropna()) == {0.0, 0.5, 1.0, 2.0} and set(reps["epsilon_mode"].dropna()) == {"se"}
    assert set(reps["df"].dropna()) == {2}
    for ext in ("pdf", "png"):
        assert (res / "figures" / "coverage" / f"coverage.{ext}").stat().st_size > 1000
    assert (repo / "logs" / "covtest" / "coverage" / "coverage_audit.log").is_file()
    assert (repo / "logs" / "covtest" / "benchmarks" / "coverage" / "coverage_audit.tsv").is_file()
    again = snakemake(repo, "-n", "--cores", "2", "coverage", *TINY)
    assert "Nothing to be done" in again.stdout + again.stderr


def test_default_target_does_not_run_the_audit(workflow_copy, mirror_dir):
    proc = snakemake(workflow_copy, "-n", "--cores", "2", *small_args(mirror_dir))
    out = proc.stdout + proc.stderr
    assert "rule manifest:" in out and "rule rashomon:" in out  # the default target's jobs are planned ...
    assert "rule coverage_audit:" not in out and "rule coverage_figure:" not in out  # ... not the audit
