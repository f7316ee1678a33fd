"""Results follow the code, not the prose (workflow/rules/code.smk, xaipipe.report.code_version):
`snakemake -n` on a finished run plans exactly the jobs whose code or settings changed.

- an edit of a function of xaipipe.rashomon plans the Rashomon jobs and their dependents and no
  `cv` job; the same code at another place (a clone) plans nothing (the tiny configuration);
- on the small configuration (issue 42): an edit of a settings class's docstring and comments
  plans no job; a new key of the LIME section (schema + one settings field) plans only the LIME
  job (and the run's manifest); an edit of a model-reliance kernel plans the MR-dependent jobs
  and no `prepare`, `split`, `cv` or `fit` job.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.workflow.conftest import small_args, tiny_args

pytestmark = pytest.mark.integration

#: rules upstream of every explanation: none may rerun for an edit of explanation code or settings
MODEL_RULES = {"canonical", "prepare", "split", "cv", "cv_shard", "fit"}


def _planned(work, args) -> dict[str, int]:
    """Rule -> number of jobs that `snakemake -n` plans in `work`, importing the copy's package."""
    env = dict(os.environ, PYTHONPATH=str(work / "src"))
    proc = subprocess.run(
        [sys.executable, "-m", "snakemake", "-n", "--cores", "2", *args],
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
    planned = {m.group(1): int(m.group(2)) for m in re.finditer(r"^(\w+)\s+(\d+)\s*$", stats, flags=re.M)}
    planned.pop("total", None)  # the stats' last row
    return planned


class _Edit:
    """Edit files of a finished run's copy, then put their text back (the code hash is of the
    content: the run plans nothing again)."""

    def __init__(self, work: Path):
        self.work, self.saved = work, {}

    def replace(self, relative: str, old: str, new: str, count: int = 1) -> None:
        path = self.work / relative
        text = path.read_text()
        self.saved.setdefault(path, text)
        assert old in text, (relative, old)
        path.write_text(text.replace(old, new, count))

    def undo(self) -> None:
        for path, text in self.saved.items():
            path.write_text(text)
        self.saved.clear()


def test_an_edited_rashomon_function_reruns_its_jobs_and_dependents_only(clean_tiny_run, mirror_dir, tmp_path):
    work = tmp_path / "clone"
    # the finished run at another place, file times kept (copy2): the code's bytes are the same
    shutil.copytree(clean_tiny_run, work, symlinks=True)
    assert _planned(work, tiny_args(mirror_dir)) == {}

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
    planned = _planned(work, tiny_args(mirror_dir))
    assert planned.get("rashomon") == 1 and planned.get("mcr_table") == 1
    assert {"rashomon_figures", "rashomon_bootstrap_shard", "rashomon_bootstrap", "rid_figures", "manifest"} <= set(
        planned
    )
    assert not {"cv", "fit", "prepare", "split", "model_reliance", "shap", "pd_ice"} & set(planned), planned


@pytest.fixture(scope="module")
def small_copy(small_run, tmp_path_factory, mirror_dir):
    """The finished small run at another place (file times kept), and an editor of its files."""
    work = tmp_path_factory.mktemp("small_copy") / "repo"
    shutil.copytree(small_run, work, symlinks=True)
    assert _planned(work, small_args(mirror_dir)) == {}
    edit = _Edit(work)
    yield work, edit
    edit.undo()


def test_a_settings_docstring_edit_plans_no_job(small_copy, mirror_dir):
    work, edit = small_copy
    edit.replace(
        "src/xaipipe/config/models.py",
        '"""Settings of the CV step of one family',
        '"""Settings of the cross-validation (CV) step -- edited prose -- of one family',
    )
    edit.replace("src/xaipipe/config/models.py", "    task: str = ", "    # a comment\n    task: str = ")
    edit.replace(
        "src/xaipipe/config/rashomon.py",
        '"""Settings of the Rashomon steps',
        '"""Settings (edited) of the Rashomon steps',
    )
    try:
        assert _planned(work, small_args(mirror_dir)) == {}
    finally:
        edit.undo()


def test_a_new_lime_key_plans_only_the_lime_jobs(small_copy, mirror_dir):
    """A new key of explain.lime: its schema entry (with a default) and one field of LimeSettings --
    the LIME job reruns (its settings and its code changed) and the manifest after it; no other."""
    work, edit = small_copy
    edit.replace(
        "workflow/schemas/config.schema.yaml",
        "          num_samples: {type: integer, minimum: 10, default: 5000}\n",
        "          num_samples: {type: integer, minimum: 10, default: 5000}\n"
        "          new_key: {type: integer, minimum: 0, default: 3}\n",
    )
    edit.replace(
        "src/xaipipe/config/lime.py",
        "    num_samples: int = 5000\n",
        "    num_samples: int = 5000\n    new_key: int = 3\n",
    )
    try:
        planned = _planned(work, small_args(mirror_dir))
    finally:
        edit.undo()
    assert planned.get("lime") == 1, planned
    assert set(planned) <= {"lime", "manifest", "all"}, planned


def test_an_mr_kernel_edit_plans_the_mr_jobs_and_no_model_job(small_copy, mirror_dir):
    work, edit = small_copy
    edit.replace(
        "src/xaipipe/explain/reliance/_kernels.py",
        "\nfrom __future__ import annotations\n",
        "\nfrom __future__ import annotations\n\n_EDITED = True\n",
    )
    try:
        planned = _planned(work, small_args(mirror_dir))
    finally:
        edit.undo()
    assert planned.get("model_reliance", 0) >= 1 and planned.get("rashomon", 0) >= 1, planned
    assert not MODEL_RULES & set(planned), planned
