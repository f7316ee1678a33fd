"""The workflow is snakefmt-clean (the style check of the snakemake-workflows catalog)."""

import subprocess
import sys

from tests.conftest import REPO


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
