"""The manifest describes the invocation that wrote it (issue 43 item 1): while a study runs, another
version's run, a dry run and a run that fails at start-up begin in the same checkout; the study's
``manifest.json`` still records the study's own command, cores, start and Snakemake log.

Cost (2 cores): ~2 min (a one-dataset, one-family study of 36 jobs at --cores 1, and three short
invocations beside it).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import numpy as np
import pandas as pd
import pytest

from .conftest import copy_workflow

pytestmark = pytest.mark.integration

STUDY = """\
version: prov
datasets:
  airfoil: {enabled: false}
  mini: {source: {kind: file, path: data/mini.csv}, task: regression, target: y, families: [linear_regression]}
rashomon:
  epsilons: [0.0, 0.05]
  epsilon: 0.05
  estimators: [permutation]
  sample: {enabled: false}
  bootstrap: {enabled: false}
comparison: {seed003: {enabled: false}}
explain:
  shap_check: {enabled: false}
  lime: {enabled: false}
"""
CONFIGS = ["--configfile", "config/config.yaml", "tests/configs/small.yaml", "tests/configs/tiny.yaml", "prov.yaml"]


def _start(work, *args, log):
    env = dict(os.environ)
    env.pop("XAIPIPE_TMPDIR", None)
    env.pop("XAIPIPE_RUN_RECORD", None)
    out = open(work / log, "w")  # noqa: SIM115 (closed with the process)
    return subprocess.Popen(
        [sys.executable, "-m", "snakemake", *args], cwd=work, stdout=out, stderr=subprocess.STDOUT, env=env
    )


def _header(log, key):
    for line in log.read_text().splitlines():
        if line.strip().startswith(f"{key}:"):
            return line.split(":", 1)[1].strip()
    return None


@pytest.fixture(scope="module")
def concurrent(tmp_path_factory, mirror_dir):
    work = copy_workflow(tmp_path_factory.mktemp("prov") / "repo")
    (work / "data").mkdir()
    rng = np.random.default_rng(7)
    x1, x2 = rng.normal(size=80), rng.uniform(0, 10, size=80)
    y = 2 * x1 + 0.5 * x2 + rng.normal(scale=0.3, size=80)
    pd.DataFrame({"x1": x1, "x2": x2, "y": y}).to_csv(work / "data" / "mini.csv", index=False)
    (work / "prov.yaml").write_text(STUDY)
    (work / "bad.yaml").write_text("split: {test_size: 1.5}\n")
    mirror = f"uci_mirror={mirror_dir}"
    study = _start(work, "--cores", "1", *CONFIGS, "--config", mirror, log="study.out")
    runs = work / "logs" / "prov" / "runs"
    deadline = time.monotonic() + 600
    while not (runs.is_dir() and any(runs.glob("*.json"))):  # the study has started its jobs
        assert study.poll() is None, (work / "study.out").read_text()[-3000:]
        assert time.monotonic() < deadline, "the study did not start"
        time.sleep(0.5)
    # meanwhile, in the same checkout: another version's run, a dry run of this one, a failed start
    others = {
        "other_version": _start(
            work, "--cores", "1", "results/prov2/data/mini/prepared.csv", *CONFIGS, "--config", mirror,
            "version=prov2", log="other.out",
        ),
        "dry_run": _start(work, "-n", "--cores", "2", *CONFIGS, "--config", mirror, log="dry.out"),
        "failed_start": _start(
            work, "--cores", "2", "--configfile", "config/config.yaml", "tests/configs/small.yaml", "bad.yaml",
            "--config", mirror, log="failed.out",
        ),
    }  # fmt: skip
    codes = {name: proc.wait(timeout=600) for name, proc in others.items()}
    still_running = study.poll() is None
    assert study.wait(timeout=1200) == 0, (work / "study.out").read_text()[-3000:]
    return work, codes, still_running


def test_the_manifest_records_its_own_invocation(concurrent):
    work, codes, still_running = concurrent
    assert still_running, "the three other invocations ended after the study: the test did not test"
    assert codes["other_version"] == 0 and codes["dry_run"] == 0 and codes["failed_start"] != 0, codes
    assert "test_size" in (work / "failed.out").read_text()
    assert (work / "results" / "prov2" / "data" / "mini" / "prepared.csv").is_file()

    records = sorted((work / "logs" / "prov" / "runs").glob("*.json"))
    assert len(records) == 1, records  # the dry run and the failed start recorded nothing
    assert len(list((work / "logs" / "prov2" / "runs").glob("*.json"))) == 1  # the other version, its own
    record = json.loads(records[0].read_text())
    own_log = work / ".snakemake" / "log" / f"{record['run_id']}.snakemake.log"
    assert own_log.is_file() and record["log"] == str(own_log)

    run = json.loads((work / "results" / "prov" / "manifest.json").read_text())["run"]
    assert run["run_id"] == record["run_id"] and run["record"] == str(records[0].relative_to(work))
    assert run["command"] == _header(own_log, "Command") and "prov.yaml" in run["command"]
    assert "version=prov2" not in run["command"] and "bad.yaml" not in run["command"]
    assert run["cores"] == 1 and run["workflow_id"] and run["workflow_id"] == _header(own_log, "Workflow ID")
    assert run["started_at"] <= run["finished_at"]
    # the manifest's old source, the newest Snakemake log, is another invocation's
    newest = sorted((work / ".snakemake" / "log").glob("*.snakemake.log"))[-1]
    assert newest != own_log
    assert any(word in newest.read_text() for word in ("version=prov2", "bad.yaml", "test_size")), newest.read_text()
