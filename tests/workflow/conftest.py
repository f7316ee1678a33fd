"""Fixtures that run the Snakemake workflow in a temporary copy of the repository."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO, mirror_path

COPIED = ("Snakefile", "workflow", "config", "envs", "profiles", "src", "tests/configs")


def copy_workflow(dst: Path) -> Path:
    """Copy what a user's checkout holds (no results, no .snakemake) to ``dst``."""
    dst.mkdir(parents=True, exist_ok=True)
    for name in COPIED:
        src = REPO / name
        if src.is_dir():
            shutil.copytree(src, dst / name, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
        else:
            (dst / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dst / name)
    return dst


def snakemake(workdir: Path, *args: str, check: bool = True, timeout: int = 1500) -> subprocess.CompletedProcess:
    """Run ``python -m snakemake`` in ``workdir``; on failure print its output."""
    env = dict(os.environ)
    env.pop("XAIPIPE_TMPDIR", None)
    cmd = [sys.executable, "-m", "snakemake", *args]
    proc = subprocess.run(cmd, cwd=workdir, capture_output=True, text=True, timeout=timeout, env=env)
    if check and proc.returncode != 0:
        raise AssertionError(
            f"{' '.join(cmd)} failed with {proc.returncode}\n--- stdout ---\n{proc.stdout[-6000:]}"
            f"\n--- stderr ---\n{proc.stderr[-6000:]}"
        )
    return proc


def small_args(mirror: Path, *extra: str, configfiles: tuple = ()) -> list[str]:
    """Arguments for the small config; ``configfiles`` are merged after it (one --configfile
    option: a second --configfile option would replace the first list, not extend it)."""
    return ["--configfile", "config/config.yaml", "tests/configs/small.yaml", *map(str, configfiles),
            "--config", f"uci_mirror={mirror}", *extra]


@pytest.fixture(scope="session")
def mirror_dir() -> Path:
    path = mirror_path()
    if not (path / "MANIFEST.tsv").is_file():
        pytest.skip(f"UCI mirror not found at {path}")
    return path.resolve()


@pytest.fixture(scope="session")
def workflow_copy(tmp_path_factory) -> Path:
    """A fresh copy of the workflow (no results yet)."""
    return copy_workflow(tmp_path_factory.mktemp("wf") / "repo")


@pytest.fixture(scope="session")
def small_run(tmp_path_factory, mirror_dir) -> Path:
    """The whole workflow run once on the small config (tests/configs/small.yaml)."""
    workdir = copy_workflow(tmp_path_factory.mktemp("run") / "repo")
    cores = str(min(2, os.cpu_count() or 1))
    snakemake(workdir, "--cores", cores, *small_args(mirror_dir))
    return workdir
