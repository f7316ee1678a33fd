"""Results follow the code (workflow/rules/code.smk): after an edit of a function of
xaipipe.rashomon, a plain `snakemake -n` plans the Rashomon jobs and their dependents and no
`cv` job; the same code at another place (a clone) plans nothing."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

import pytest

from tests.workflow.conftest import tiny_args

pytestmark = pytest.mark.integration


def _planned(work, mirror) -> dict[str, int]:
    """Rule -> number of jobs that `snakemake -n` plans in `work`, importing the copy's package."""
    env = dict(os.environ, PYTHONPATH=str(work / "src"))
    proc = subprocess.run(
        [sys.executable, "-m", "snakemake", "-n", "--cores", "2", *tiny_args(mirror)],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    assert f"xaipipe is imported from {work / 'src' / 'xaipipe'}" not in proc.stderr
    text = proc.stdout + proc.stderr
    if "Nothing to be done" in text:
        return {}
    stats = text.split("Job stats:", 1)[1]
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"^(\w+)\s+(\d+)\s*$", stats, flags=re.M)}


def test_an_edited_rashomon_function_reruns_its_jobs_and_dependents_only(clean_tiny_run, mirror_dir, tmp_path):
    work = tmp_path / "clone"
    # the finished run at another place, file times kept (copy2): the code's bytes are the same
    shutil.copytree(clean_tiny_run, work, symlinks=True)
    assert _planned(work, mirror_dir) == {}

    sets = work / "src" / "xaipipe" / "rashomon" / "sets.py"
    text = sets.read_text()
    edited = re.sub(
        r"(\ndef rashomon_set\(.*?\n    \"\"\".*?\"\"\"\n)",
        r"\1    _edited = True  # noqa: F841\n",
        text,
        count=1,
        flags=re.S,
    )
    assert edited != text
    sets.write_text(edited)
    planned = _planned(work, mirror_dir)
    assert planned.get("rashomon") == 1 and planned.get("mcr_table") == 1
    assert {"rashomon_figures", "rashomon_bootstrap_shard", "rashomon_bootstrap", "rid_figures", "manifest"} <= set(
        planned
    )
    assert not {"cv", "fit", "prepare", "split", "model_reliance", "shap", "pd_ice"} & set(planned), planned
