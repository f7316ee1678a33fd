"""Failure behaviour: interrupted runs, determinism, selective reruns, clear errors."""

from __future__ import annotations

import filecmp
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .conftest import assert_no_partial_files, copy_workflow, small_args, snakemake, tiny_args

pytestmark = pytest.mark.integration


def _start(workdir, mirror):
    env = dict(os.environ)
    env.pop("XAIPIPE_TMPDIR", None)
    # Ctrl-C must reach Snakemake even when pytest itself runs with SIGINT ignored (a
    # non-interactive shell's background job inherits SIG_IGN, and exec keeps an ignored
    # signal ignored; a handled one is reset to the default, which Python turns into
    # KeyboardInterrupt).
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        return subprocess.Popen(
            [sys.executable, "-m", "snakemake", "--cores", "2", *tiny_args(mirror)],
            cwd=workdir,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=env,
            start_new_session=True,
        )
    finally:
        signal.signal(signal.SIGINT, previous)


def _interrupt(proc: subprocess.Popen, workdir: Path, timeout: float = 120) -> None:
    """Ctrl-C to the whole process group, again until Snakemake says it stops; wait for it to exit.

    Snakemake 9's log handler swallows a KeyboardInterrupt that arrives while it
    writes a log line (``snakemake/logging.py``: ``except (KeyboardInterrupt,
    SystemExit): pass``); a SIGINT sent just as a job finishes can land there, and
    the run then goes on. A user presses Ctrl-C again; so does this helper, until
    Snakemake's log says "Terminating processes on user request" (a second Ctrl-C
    after that would interrupt its clean-up). A Snakemake that ignores SIGINT
    altogether runs to the end, exits 0 and fails the caller's assertion.
    """
    t0 = time.time()
    while True:
        os.killpg(proc.pid, signal.SIGINT)
        retry = time.time() + 5
        while time.time() < retry:
            if proc.poll() is not None:
                return
            logs = (workdir / ".snakemake" / "log").glob("*.snakemake.log")
            if any("Terminating processes on user request" in p.read_text(errors="replace") for p in logs):
                proc.wait(timeout=timeout)
                return
            time.sleep(0.1)
        assert time.time() - t0 < timeout, f"Snakemake still running {timeout} s after Ctrl-C"


def _wait_for(path_glob: str, workdir: Path, timeout: float = 600) -> None:
    t0 = time.time()
    while not list(workdir.glob(path_glob)):
        assert time.time() - t0 < timeout, f"nothing matched {path_glob} within {timeout} s"
        time.sleep(0.2)


def test_interrupted_runs_resume_and_match_a_clean_run(clean_tiny_run, tmp_path, mirror_dir):
    work = copy_workflow(tmp_path / "repo")
    results = work / "results" / "tiny"
    # 1. Ctrl-C (SIGINT to the whole process group) while the CV jobs run
    proc = _start(work, mirror_dir)
    _wait_for("results/tiny/models/airfoil/cv/*.csv", work)
    _interrupt(proc, work)
    assert proc.returncode != 0
    assert_no_partial_files(results)
    # 2. SIGKILL of Snakemake and its jobs (power cut / OOM killer) a bit later
    proc = _start(work, mirror_dir)
    _wait_for("results/tiny/explain/airfoil/*/model_reliance.csv", work)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=60)
    assert_no_partial_files(results)
    # 3. rerun completes (a hard kill leaves Snakemake's lock behind: --unlock first, as Snakemake says)
    snakemake(work, "--unlock", *tiny_args(mirror_dir))
    snakemake(work, "--cores", "2", "--rerun-incomplete", *tiny_args(mirror_dir))
    assert_no_partial_files(results)
    # 4. the resumed run and a clean run give byte-identical tables
    clean = clean_tiny_run / "results" / "tiny" / "tables"
    names = sorted(p.name for p in clean.glob("*.csv"))
    assert names and names == sorted(p.name for p in (results / "tables").glob("*.csv"))
    match, mismatch, errors = filecmp.cmpfiles(clean, results / "tables", names, shallow=False)
    assert not mismatch and not errors, mismatch


def test_changing_one_dataset_reruns_only_its_jobs(small_run, mirror_dir, tmp_path):
    override = tmp_path / "override.yaml"
    override.write_text("datasets:\n  abalone:\n    drop: [Length]\n")
    proc = snakemake(small_run, "-n", "--cores", "1", *small_args(mirror_dir, configfiles=(override,)))
    wildcards = set(re.findall(r"wildcards: dataset=(\w+)", proc.stdout))
    assert wildcards == {"abalone"}, wildcards
    assert "rule canonical:" not in proc.stdout  # preparation options do not re-download


def test_no_network_and_no_mirror_names_the_option(tmp_path):
    work = copy_workflow(tmp_path / "repo")
    closed = "http://127.0.0.1:9"  # discard port: nothing listens, connections are refused at once
    env_proxy = {
        "https_proxy": closed,
        "http_proxy": closed,
        "HTTPS_PROXY": closed,
        "HTTP_PROXY": closed,
        "no_proxy": "",
        "NO_PROXY": "",
    }
    override = tmp_path / "o.yaml"
    override.write_text("uci_mirror: ''\ndownload: {retries: 1, timeout_s: 5, cache_dir: ''}\n")
    env = {**os.environ, **env_proxy}
    env.pop("XAIPIPE_TMPDIR", None)
    target = "results/test/data/airfoil/canonical.csv"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "snakemake",
            "--cores",
            "1",
            target,
            "--configfile",
            "config/config.yaml",
            "tests/configs/small.yaml",
            str(override),
        ],
        cwd=work,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert proc.returncode != 0
    log = (work / "logs" / "test" / "data" / "canonical" / "airfoil.log").read_text()
    assert "DownloadError" in log and "uci_mirror" in log and "'airfoil'" in log
    assert not (work / target).exists()


@pytest.mark.parametrize(
    "override,key",
    [
        ("grids:\n  regression:\n    random_forest:\n      n_estimators: []\n", "n_estimators"),
        ("datasets:\n  airfoil:\n    variant: white\n", "variant"),
        ("explain:\n  pd:\n    top_k: 0\n", "top_k"),
        ("threads:\n  cv: many\n", "cv"),
    ],
)
def test_bad_config_values_name_the_key(workflow_copy, mirror_dir, tmp_path, override, key):
    path = tmp_path / "bad.yaml"
    path.write_text(override)
    proc = snakemake(workflow_copy, "-n", "--cores", "1", *small_args(mirror_dir, configfiles=(path,)), check=False)
    assert proc.returncode != 0
    assert key in proc.stdout + proc.stderr


def test_missing_mirror_file_names_it(tmp_path):
    work = copy_workflow(tmp_path / "repo")
    empty = tmp_path / "empty_mirror"
    empty.mkdir()
    proc = snakemake(
        work,
        "-n",
        "--cores",
        "1",
        "results/test/data/airfoil/canonical.csv",
        "--configfile",
        "config/config.yaml",
        "tests/configs/small.yaml",
        "--config",
        f"uci_mirror={empty}",
        check=False,
    )
    assert proc.returncode != 0
    assert "airfoil_self_noise.dat" in proc.stdout + proc.stderr
