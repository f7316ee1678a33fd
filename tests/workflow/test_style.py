"""Style checks: the workflow is snakefmt-clean (the snakemake-workflows catalog's check) and the
Python tree passes ruff's linter and formatter with the settings of ``pyproject.toml``."""

import subprocess
import sys

import pytest

from tests.conftest import REPO

PYTHON_TREES = ("src", "workflow/scripts", "benchmarks", "tests")


def test_snakefmt_check():
    proc = subprocess.run(
        [sys.executable, "-m", "snakefmt", "--check", "--diff", "Snakefile", "workflow"],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, (
        "snakefmt --check failed; run `snakefmt Snakefile workflow`:\n" + proc.stdout[-4000:] + proc.stderr[-2000:]
    )


@pytest.mark.parametrize(
    "command, fix",
    [
        (["check", "--no-fix"], "ruff check --fix src workflow/scripts benchmarks tests"),
        (["format", "--check", "--diff"], "ruff format src workflow/scripts benchmarks tests"),
    ],
    ids=["lint", "format"],
)
def test_ruff(command, fix):
    proc = subprocess.run(
        [sys.executable, "-m", "ruff", *command, *PYTHON_TREES],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, f"ruff {command[0]} failed; run `{fix}`:\n" + proc.stdout[-4000:] + proc.stderr[-2000:]
