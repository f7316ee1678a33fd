"""benchmarks/kill_resume.py: SIGKILL of a run's whole process group at seeded random moments,
the documented recovery (--unlock, the same command again), and a byte-identical result."""

from __future__ import annotations

import importlib.util
import sys

import pytest

from tests.conftest import REPO

pytestmark = pytest.mark.integration

_spec = importlib.util.spec_from_file_location("kill_resume", REPO / "benchmarks" / "kill_resume.py")
kill_resume = importlib.util.module_from_spec(_spec)
sys.modules["kill_resume"] = kill_resume  # dataclasses look their module up there
_spec.loader.exec_module(kill_resume)


def test_progress_of_a_killed_run_from_its_output():
    output = """\
[Mon Nov 23 11:43:21 2026]
localrule canonical:
    output: a
    jobid: 5
    wildcards: dataset=airfoil
[Mon Nov 23 11:43:24 2026]
Finished jobid: 5 (Rule: canonical)
[Mon Nov 23 11:43:24 2026]
rule prepare:
    input: a
    jobid: 4
[Mon Nov 23 11:43:24 2026]
rule cv:
    input: b
    threads: 2
    jobid: 7
"""
    assert kill_resume._progress(output) == (1, ["prepare", "cv"])


def test_serial_stops_and_reports_when_unlock_fails(monkeypatch, tmp_path):
    """A failed ``--unlock`` is the recovery failing: reported on every trial, no new copy, no rerun."""
    copies, lines = [], []
    monkeypatch.setattr(kill_resume, "copy_workflow", lambda dest: copies.append(dest) or dest.mkdir() or dest)
    monkeypatch.setattr(kill_resume, "start_and_kill", lambda *a, **k: (True, 1.0, 3, ["cv"]))
    monkeypatch.setattr(kill_resume, "unlock", lambda *a, **k: 1)

    def no_rerun(*a, **k):
        raise AssertionError("no rerun after a failed --unlock")

    monkeypatch.setattr(kill_resume, "run_snakemake", no_rerun)
    trials = kill_resume.run_serial(
        tmp_path / "ref", ["--cores", "1"], 4, seed=0, duration_s=100.0, root=tmp_path, report=lines.append
    )
    assert len(copies) == 1 and len(trials) == 1
    assert not trials[0].identical and trials[0].resume_rc == 1
    assert "unlock failed" in trials[0].differences[0]
    assert any("--unlock failed" in line for line in lines)
    assert "0 of 1 resumed byte-identical" in kill_resume.summary(trials)


def test_killed_at_random_moments_resumes_byte_identical(clean_tiny_run, mirror_dir, tmp_path):
    args = kill_resume.snakemake_args(kill_resume.TINY, mirror_dir, cores=2)
    duration = kill_resume.run_duration(clean_tiny_run)
    # one fresh copy killed once ...
    lines = []
    trials = kill_resume.run_trials(
        clean_tiny_run,
        args,
        1,
        seed=3,
        duration_s=duration,
        root=tmp_path / "one",
        span=(0.05, 0.6),
        report=lines.append,
    )
    assert len(lines) == 1
    assert all(t.killed for t in trials), lines  # the kill came while the run was running
    assert all(t.resume_rc == 0 for t in trials), lines
    assert kill_resume.summary(trials) == "1 of 1 resumed byte-identical", lines
    # ... and one copy killed three times in a row (--serial), each kill followed by --unlock and a rerun
    lines = []
    trials = kill_resume.run_serial(
        clean_tiny_run,
        args,
        3,
        seed=4,
        duration_s=duration,
        root=tmp_path / "serial",
        span=(0.05, 0.8),
        report=lines.append,
    )
    assert len(trials) == 3 and all(t.killed for t in trials), lines
    assert kill_resume.summary(trials) == "3 of 3 resumed byte-identical", lines
