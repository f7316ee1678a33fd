"""Fixtures that run the Snakemake workflow in a temporary copy of the repository."""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO, mirror_path
from xaipipe.report.diff import file_difference

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


def tiny_args(mirror, *extra: str) -> list[str]:
    """Arguments for the tiny config (tests/configs/tiny.yaml: Airfoil, two families)."""
    return [
        "--configfile",
        "config/config.yaml",
        "tests/configs/small.yaml",
        "tests/configs/tiny.yaml",
        "--config",
        f"uci_mirror={mirror}",
        *extra,
    ]


def small_args(mirror: Path, *extra: str, configfiles: tuple = ()) -> list[str]:
    """Arguments for the small config; ``configfiles`` are merged after it (one --configfile
    option: a second --configfile option would replace the first list, not extend it)."""
    return [
        "--configfile",
        "config/config.yaml",
        "tests/configs/small.yaml",
        *map(str, configfiles),
        "--config",
        f"uci_mirror={mirror}",
        *extra,
    ]


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


@pytest.fixture(scope="session")
def clean_tiny_run(tmp_path_factory, mirror_dir) -> Path:
    """The tiny config run once, uninterrupted (the reference of the interrupted runs)."""
    work = copy_workflow(tmp_path_factory.mktemp("tiny_a") / "repo")
    snakemake(work, "--cores", "2", *tiny_args(mirror_dir))
    return work


def assert_no_partial_files(results: Path) -> None:
    """Every file under results/ is complete: parses, or ends with its format's trailer."""
    import pandas as pd

    for path in results.rglob("*"):
        if path.is_dir():
            continue
        assert ".tmp" not in path.name and not path.name.startswith("."), f"temporary file left: {path}"
        data = path.read_bytes()
        if path.suffix == ".csv":
            pd.read_csv(path)
        elif path.suffix == ".json":
            json.loads(data)
        elif path.suffix == ".pdf":
            assert data.rstrip().endswith(b"%%EOF"), path
        elif path.suffix == ".png":
            assert data[-8:-4] == b"IEND", path
        elif path.suffix == ".joblib":
            import joblib

            joblib.load(path)


# What may differ between two runs of one configuration (README, "Versions, provenance and
# interrupted runs"): measured times and the run's provenance.
TIMING_FIELDS = frozenset({"fit_time_s", "predict_time_s", "compute_time_s"})
PROVENANCE_FIELDS = frozenset({"retrieved_at"})  # canonical.json: when the data were read
PROVENANCE_FILES = frozenset({"manifest.json"})  # commit, times, cores, command of the run


def _without(obj, keys):
    if isinstance(obj, dict):
        return {k: _without(v, keys) for k, v in obj.items() if k not in keys}
    if isinstance(obj, list):
        return [_without(v, keys) for v in obj]
    return obj


def _csv_without(data: bytes, keys) -> list[list[str]] | None:
    """Rows of a CSV as strings without the columns in ``keys``; None if it has none of them."""
    rows = list(csv.reader(io.StringIO(data.decode())))
    drop = [i for i, name in enumerate(rows[0] if rows else []) if name in keys]
    if not drop:
        return None
    return [[v for i, v in enumerate(row) if i not in drop] for row in rows]


def result_differences(a: Path, b: Path) -> list[str]:
    """Files of two result folders that differ beyond measured times and provenance.

    Every file under ``a`` and ``b`` (e.g. two ``results/<version>/``) is compared byte for
    byte, except: ``manifest.json`` (provenance) is skipped; JSON files are compared as
    parsed objects without the keys in ``TIMING_FIELDS`` and ``PROVENANCE_FIELDS``; CSV files
    with a column in ``TIMING_FIELDS`` are compared as text cells, those columns dropped; pickled
    result objects (``.joblib``) as :func:`xaipipe.report.diff.file_difference` compares them (tables
    without their measured times).
    Returns one line per difference (an empty list: equal).
    """
    files_a = {p.relative_to(a).as_posix() for p in a.rglob("*") if p.is_file()}
    files_b = {p.relative_to(b).as_posix() for p in b.rglob("*") if p.is_file()}
    out = [f"only in {a}: {f}" for f in sorted(files_a - files_b)]
    out += [f"only in {b}: {f}" for f in sorted(files_b - files_a)]
    ignored = TIMING_FIELDS | PROVENANCE_FIELDS
    for name in sorted(files_a & files_b):
        if Path(name).name in PROVENANCE_FILES:
            continue
        da, db = (a / name).read_bytes(), (b / name).read_bytes()
        if da == db:
            continue
        if name.endswith(".json"):
            same = _without(json.loads(da), ignored) == _without(json.loads(db), ignored)
        elif name.endswith(".csv"):
            ra, rb = _csv_without(da, ignored), _csv_without(db, ignored)
            same = ra is not None and ra == rb
        elif name.endswith(".joblib"):  # pickled tables (cv_shard, rashomon_refit) hold measured times too
            same = file_difference(a / name, b / name) == ""
        else:
            same = False
        if not same:
            out.append(f"differs: {name}")
    return out
