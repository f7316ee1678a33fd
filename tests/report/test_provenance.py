"""git_state and the manifest's checkout flags for a plain clone (issue 32 item 5)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import REPO
from xaipipe.report.provenance import build_manifest, config_sha256, git_state

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def _git(path, *args):
    subprocess.run(["git", "-C", str(path), *args], check=True, capture_output=True, text=True)


@pytest.fixture
def clone(tmp_path):
    """A committed checkout with the repository's .gitignore, a tracked module and a tracked README."""
    repo = tmp_path / "repo"
    (repo / "src" / "pkg").mkdir(parents=True)
    shutil.copyfile(REPO / ".gitignore", repo / ".gitignore")
    (repo / "src" / "pkg" / "mod.py").write_text("x = 1\n")
    (repo / "README.md").write_text("readme\n")
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init")
    return repo


def test_a_fresh_clone_with_results_and_own_data_is_clean(clone):
    head = subprocess.run(["git", "-C", str(clone), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    # what a run and a user's own dataset leave behind
    for name in ("results/v1/tables/t.csv", "logs/v1/x.log", ".snakemake/log/a.log", "resources/ucimlrepo/1/x.csv"):
        (clone / name).parent.mkdir(parents=True, exist_ok=True)
        (clone / name).write_text("x\n")
    (clone / "data").mkdir()
    (clone / "data" / "my.csv").write_text("a,y\n1,2\n")
    (clone / "my.yaml").write_text("datasets: {}\n")
    state = git_state(clone / "src")  # any folder of the checkout
    assert state == {"commit": head, "dirty": False, "changed": [], "untracked": ["data/my.csv", "my.yaml"]}


def test_changed_tracked_files_and_untracked_code_make_it_dirty(clone):
    (clone / "src" / "pkg" / "new.py").write_text("y = 2\n")
    state = git_state(clone)
    assert state["dirty"] is True and state["untracked"] == ["src/pkg/new.py"] and state["changed"] == []
    (clone / "src" / "pkg" / "new.py").unlink()
    (clone / "README.md").write_text("changed\n")
    state = git_state(clone)
    assert state["dirty"] is True and state["changed"] == ["README.md"]


def test_outside_a_repository_every_value_is_none(tmp_path):
    assert git_state(tmp_path) == {"commit": None, "dirty": None, "changed": None, "untracked": None}


def test_from_checkout_compares_the_imported_package_with_the_checkout(tmp_path):
    manifest = build_manifest({"version": "v"}, repo=REPO, sidecars=[], splits={})
    import xaipipe

    expected = (REPO / "src" / "xaipipe").resolve() == Path(xaipipe.__file__).resolve().parent
    assert manifest.xaipipe["from_checkout"] is expected
    assert build_manifest({"version": "v"}, repo=tmp_path, sidecars=[], splits={}).xaipipe["from_checkout"] is False


def test_manifest_document_keys_in_order_then_extra():
    """manifest.json's keys: the record's fields in their order (as the dict of before), then ``extra``."""
    split = {"seed": 3, "test_size": 0.2, "n_folds": 5, "stratified": True, "train": [1]}
    sidecar = {"dataset": "d", "source": "uci", "raw": {"a.csv": "00"}, "canonical_sha256": "ff", "n_rows": 9}
    config = {"version": "v", "seed": 7}
    m = build_manifest(config, repo=REPO, sidecars=[sidecar], splits={"d": split}, extra={"run": {"cores": 2}})
    doc = m.to_dict()
    assert list(doc) == [
        "version", "git", "config", "config_sha256", "packages", "xaipipe", "platform", "datasets", "seeds",
        "data_summary", "run",
    ]  # fmt: skip
    assert doc["seeds"] == {"seed": 7, "splits": {"d": {"seed": 3, "test_size": 0.2, "n_folds": 5, "stratified": True}}}
    assert doc["datasets"]["d"] == {
        "source": "uci", "uci_id": None, "doi": None, "raw": {"a.csv": "00"}, "canonical_sha256": "ff", "n_rows": 9,
        "retrieved_at": None,
    }  # fmt: skip
    assert doc["config_sha256"] == config_sha256(config) and doc["run"] == {"cores": 2}
    json.dumps(doc)  # a JSON document


# --------------------------------------------------------------------------- #
# The manifest's run block: the invocation that built it (issue 43 item 1)
# --------------------------------------------------------------------------- #
def _snakemake_log(folder, stamp, command, workflow_id):
    log = folder / ".snakemake" / "log" / f"{stamp}.snakemake.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text(
        f"\nSNAKEMAKE\n=========\n  Date: 2026-01-01 10:00:00\n  Workflow ID: {workflow_id}\n"
        f"  Snakemake version: 9.27.1\n  Command: {command}\nProvided cores: 2\n"
    )
    return log


def test_the_run_block_is_the_recorded_invocation_not_the_newest_log(tmp_path):
    from datetime import datetime

    from xaipipe.report.provenance import RUN_KEYS, invocation_info, record_invocation

    own = _snakemake_log(tmp_path, "2026-01-01T100000.000001", "snakemake --cores 2 a", "wf-own")
    record = record_invocation(
        tmp_path / "logs" / "v" / "runs",
        argv=["snakemake", "--cores", "2", "a"],
        cores=2,
        started_at=datetime(2026, 1, 1, 10, 0, 0, 123),
        snakemake_log=own,
    )
    assert record.name == "2026-01-01T100000.000001.json"
    # later invocations in the same checkout: another version's run, a failed start-up (no header)
    _snakemake_log(tmp_path, "2026-01-01T100500.000000", "snakemake --config version=w", "wf-other")
    (tmp_path / ".snakemake" / "log" / "2026-01-01T100600.000000.snakemake.log").write_text("SchemaError\n")
    info = invocation_info(record)
    assert list(info) == list(RUN_KEYS)
    assert info == {
        "run_id": "2026-01-01T100000.000001",
        "started_at": "2026-01-01T10:00:00",
        "cores": 2,
        "command": "snakemake --cores 2 a",
        "workflow_id": "wf-own",
        "snakemake_version": "9.27.1",
        "log": str(own),
        "record": str(record),
    }
    json.dumps(info)


def test_without_a_record_nothing_is_guessed(tmp_path):
    from xaipipe.report.provenance import RUN_KEYS, invocation_info, record_invocation

    _snakemake_log(tmp_path, "2026-01-01T100000.000001", "snakemake --cores 2", "wf")
    for record in (None, tmp_path / "missing.json"):
        info = invocation_info(record)
        assert all(info[k] is None for k in RUN_KEYS) and "onstart" in info["unrecorded"]
    # without file logging the record is named by start time and process id
    record = record_invocation(tmp_path / "runs", argv=["snakemake"], cores=None, started_at="2026-01-01T10:00:00")
    info = invocation_info(record)
    assert info["run_id"].startswith("2026-01-01T100000-pid") and info["log"] is None and info["cores"] is None
    assert info["workflow_id"] is None and info["snakemake_version"]  # the installed Snakemake
