"""Killed anywhere, resumed exactly: SIGKILL a run at random moments, recover, compare.

Runs one configuration uninterrupted (the reference), then N times: a fresh copy of the
workflow runs the same command, and at a seeded random moment Snakemake and all its jobs get
SIGKILL (the whole process group: a power cut, the OOM killer, ``kill -9``); then the recovery
the README documents ("Versions, provenance and interrupted runs"): ``snakemake --unlock``,
then the same command again (the default profile sets ``--rerun-incomplete``). The resumed
``results/<version>/`` must equal the reference byte for byte apart from measured times and
provenance (``tests.workflow.conftest.result_differences``), and hold no partial file.

Usage (from the repository root)::

    python benchmarks/kill_resume.py                       # the tiny configuration, N = 10
    python benchmarks/kill_resume.py --kills 3 --seed 1 --cores 2 \\
        --configfile config/config.yaml tests/configs/small.yaml tests/configs/tiny.yaml

Prints one line per run (kill moment, jobs finished and running at the kill, resume time,
outcome) and the summary ``k of N resumed byte-identical``; exits 1 unless all are.

``--serial`` kills *one* run N times in a row instead (each kill followed by ``--unlock`` and a
rerun that resumes what the previous attempts left, killed again after the gap to the next
seeded moment), then lets the last rerun finish and compares once: the cost of about two runs
instead of N + 1, e.g. for N = 10 on the small configuration::

    python -m benchmarks.kill_resume --serial --kills 10 --cores 2 \
        --configfile config/config.yaml tests/configs/small.yaml

``--tiny`` does one small thing in seconds: the same on a toy workflow of four rules
(``benchmarks/_tiny.py``: its ``b`` jobs write their output in two steps, so that a kill can leave
a partial file), with ``--rerun-incomplete`` given explicitly (the toy has no profile), one kill
in [40 %, 80 %] of the reference run's wall time.

Kill moments are uniform in [5 %, 95 %] of the reference run's wall time (numpy's
``default_rng(seed)``); a run that ends before its moment (a less loaded machine) is done again
in a new copy with a moment within its own duration (at most 3 tries, then it counts as not
killed).
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]

try:  # the test helpers, one copy of each: run as `python -m benchmarks.kill_resume` from the repository root
    from tests.workflow.conftest import (
        assert_no_partial_files,
        copy_workflow,
        result_differences,
    )
except ModuleNotFoundError as exc:  # pragma: no cover - depends on how it is started
    raise SystemExit(
        f"benchmarks/kill_resume.py imports the test helpers ({exc.name}): run it from the repository root as "
        "`python -m benchmarks.kill_resume`"
    ) from exc

TINY = ("config/config.yaml", "tests/configs/small.yaml", "tests/configs/tiny.yaml")
_STAMP = re.compile(r"^\[(\w{3} \w{3} +\d+ [\d:]+ \d{4})\]$", flags=re.M)


@dataclass
class Trial:
    """One killed and resumed run."""

    index: int
    kill_at_s: float
    killed: bool  # False: the run had ended before the moment
    ran_s: float  # how long the first run ran (until killed, or to its end)
    done_at_kill: int  # jobs Snakemake had reported finished
    running_at_kill: list[str]  # rules of the jobs started and not finished
    resume_s: float
    resume_rc: int
    differences: list[str]

    @property
    def identical(self) -> bool:
        return self.resume_rc == 0 and not self.differences

    def line(self) -> str:
        what = (
            f"killed at {self.kill_at_s:6.1f} s ({self.done_at_kill} jobs done, running: "
            f"{', '.join(sorted(self.running_at_kill)) or 'none'})"
            if self.killed
            else f"ended before {self.kill_at_s:6.1f} s (not killed)"
        )
        outcome = (
            "byte-identical"
            if self.identical
            else f"resume rc {self.resume_rc}"
            if self.resume_rc
            else f"{len(self.differences)} differences: {'; '.join(self.differences[:5])}"
        )
        return f"run {self.index:2d}: {what}; resumed in {self.resume_s:5.1f} s: {outcome}"


def snakemake_args(configfiles, mirror, cores: int) -> list[str]:
    return ["--cores", str(cores), "--configfile", *map(str, configfiles), "--config", f"uci_mirror={mirror}"]


def _env() -> dict:
    env = dict(os.environ)
    env.pop("XAIPIPE_TMPDIR", None)
    return env


def run_snakemake(workdir: Path, args: list[str], log: Path) -> tuple[int, float]:
    """Run ``python -m snakemake args`` in ``workdir`` to the end; (exit code, wall seconds)."""
    t0 = time.monotonic()
    with open(log, "a") as fh:
        rc = subprocess.run(
            [sys.executable, "-m", "snakemake", *args], cwd=workdir, stdout=fh, stderr=subprocess.STDOUT, env=_env()
        ).returncode
    return rc, time.monotonic() - t0


def run_duration(workdir: Path) -> float:
    """Wall seconds of the first run in ``workdir``, from the first and last time stamps of its Snakemake log."""
    logs = sorted((workdir / ".snakemake" / "log").glob("*.snakemake.log"))
    if not logs:
        raise FileNotFoundError(f"no Snakemake log in {workdir}/.snakemake/log")
    stamps = _STAMP.findall(logs[0].read_text(errors="replace"))
    if len(stamps) < 2:
        raise ValueError(f"{logs[0]}: fewer than two time stamps")
    t = [dt.datetime.strptime(s, "%a %b %d %H:%M:%S %Y") for s in (stamps[0], stamps[-1])]
    return (t[1] - t[0]).total_seconds()


def _group_alive(pgid: int) -> list[int]:
    """PIDs still in process group ``pgid``."""
    alive = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            alive.append(int(stat.parent.name))
    return alive


def _progress(output: str) -> tuple[int, list[str]]:
    """(jobs finished, rules started and not finished) from Snakemake's output so far."""
    started = {
        jobid: rule
        for rule, jobid in re.findall(r"^(?:local)?rule (\w+):\n(?:    .*\n)*?    jobid: (\d+)$", output, flags=re.M)
    }
    finished = set(re.findall(r"^Finished jobid: (\d+)", output, flags=re.M))
    return len(finished), [rule for jobid, rule in started.items() if jobid not in finished]


def kill_and_resume(workdir: Path, args: list[str], kill_at_s: float, index: int = 1) -> Trial:
    """Start ``snakemake args`` in ``workdir``, SIGKILL its process group after ``kill_at_s``
    seconds, then ``snakemake --unlock args`` and ``snakemake args`` again."""
    log = workdir / "kill_resume.log"
    killed, ran_s, done, running = start_and_kill(workdir, args, kill_at_s, log, mode="w")
    t0 = time.monotonic()
    rc = unlock(workdir, args)
    if rc == 0:
        rc, _ = run_snakemake(workdir, args, log)
    return Trial(index, kill_at_s, killed, ran_s, done, running, time.monotonic() - t0, rc, [])


def unlock(workdir: Path, args: list[str]) -> int:
    """``snakemake --unlock args`` in ``workdir`` (the documented first step of the recovery)."""
    return subprocess.run(
        [sys.executable, "-m", "snakemake", "--unlock", *args], cwd=workdir, capture_output=True, env=_env()
    ).returncode


def start_and_kill(
    workdir: Path, args: list[str], kill_at_s: float, log: Path, mode: str = "a"
) -> tuple[bool, float, int, list[str]]:
    """Start ``snakemake args`` in ``workdir`` and SIGKILL its whole process group after
    ``kill_at_s`` seconds (unless it ended before); waits until no process of the group is left.
    Returns (killed, seconds it ran, jobs finished in this run, rules running at the kill)."""
    start = log.stat().st_size if log.exists() and mode == "a" else 0
    with open(log, mode) as fh:
        t_start = time.monotonic()
        proc = subprocess.Popen(
            [sys.executable, "-m", "snakemake", *args],
            cwd=workdir,
            stdout=fh,
            stderr=subprocess.STDOUT,
            env=_env(),
            start_new_session=True,
        )
        try:
            proc.wait(timeout=kill_at_s)
            killed = False
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            killed = True
        ran_s = time.monotonic() - t_start
    with open(log, errors="replace") as fh:
        fh.seek(start)
        done, running = _progress(fh.read())
    deadline = time.monotonic() + 30
    while killed and _group_alive(proc.pid):
        if time.monotonic() > deadline:
            raise RuntimeError(f"processes of group {proc.pid} survived SIGKILL: {_group_alive(proc.pid)}")
        time.sleep(0.1)
    return killed, ran_s, done, running


def results_dir(workdir: Path) -> Path:
    folders = [p for p in (workdir / "results").iterdir() if p.is_dir()]
    if len(folders) != 1:
        raise ValueError(f"{workdir}/results: expected one version folder, found {folders}")
    return folders[0]


def run_trials(
    reference: Path,
    args: list[str],
    kills: int,
    *,
    seed: int,
    duration_s: float,
    root: Path,
    span: tuple[float, float] = (0.05, 0.95),
    attempts: int = 3,
    keep: bool = False,
    report=print,
    copy=copy_workflow,
) -> list[Trial]:
    """``kills`` killed-and-resumed runs, each in a fresh copy under ``root``, compared with the
    finished run in ``reference``; kill moments uniform in ``span`` x ``duration_s`` seconds.
    ``copy(dest)`` makes a copy (default :func:`copy_workflow`, the repository's workflow).

    A run that ends before its moment (the machine was faster than for the reference) is
    reported and done again in a new copy, with a moment drawn from its own duration, up to
    ``attempts`` times; after that it counts as not killed.
    """
    rng = np.random.default_rng(seed)
    trials = []
    for i in range(1, kills + 1):
        moment = float(rng.uniform(span[0] * duration_s, span[1] * duration_s))
        for attempt in range(attempts):
            work = copy(root / (f"run{i}" if attempt == 0 else f"run{i}_{attempt}"))
            trial = kill_and_resume(work, args, moment, index=i)
            if trial.killed or attempt == attempts - 1:
                break
            report(f"run {i:2d}: ended after {trial.ran_s:.1f} s, before {moment:.1f} s: again, a moment within that")
            shutil.rmtree(work)
            moment = float(rng.uniform(span[0] * trial.ran_s, span[1] * trial.ran_s))
        if trial.resume_rc == 0:
            res = results_dir(work)
            try:
                assert_no_partial_files(res)
            except (AssertionError, ValueError) as err:
                trial.differences.append(f"partial file: {err}")
            trial.differences += result_differences(results_dir(reference), res)
        report(trial.line())
        trials.append(trial)
        if not keep and trial.identical:
            shutil.rmtree(work)
    return trials


def run_serial(
    reference: Path,
    args: list[str],
    kills: int,
    *,
    seed: int,
    duration_s: float,
    root: Path,
    span: tuple[float, float] = (0.05, 0.95),
    attempts: int = 3,
    keep: bool = False,
    report=print,
) -> list[Trial]:
    """One copy killed ``kills`` times in a row: each time ``snakemake args`` (resuming the
    previous attempt), SIGKILL after a delay, ``snakemake --unlock``; then the last run to the end,
    compared with the finished run in ``reference``.

    The kill moments are ``kills`` sorted draws uniform in ``span`` x ``duration_s`` seconds of
    accumulated running time; each attempt is killed after the gap to the next moment (so a
    kill can also fall into Snakemake's start-up or DAG building). One :class:`Trial` per kill;
    the comparison is attached to the last one (the others carry its outcome too). A run that
    ends before its last kill (faster than the reference) is done again in a new copy with moments
    drawn from its own running time, up to ``attempts`` times.
    """
    rng = np.random.default_rng(seed)
    for attempt in range(attempts):
        moments = np.sort(rng.uniform(span[0] * duration_s, span[1] * duration_s, size=kills))
        gaps = np.diff(np.concatenate([[0.0], moments]))
        work = copy_workflow(root / ("serial" if attempt == 0 else f"serial_{attempt}"))
        log = work / "kill_resume.log"
        log.write_text("")
        trials, ran = [], 0.0
        for i, gap in enumerate(gaps, start=1):
            killed, ran_s, done, running = start_and_kill(work, args, float(gap), log)
            ran += ran_s
            rc = unlock(work, args)
            trials.append(Trial(i, float(gap), killed, ran_s, done, running, 0.0, rc, []))
            if rc != 0 or not killed:
                break  # the run ended before this kill: nothing left to interrupt
        if trials[-1].resume_rc != 0:
            # the recovery itself failed: a finding to report, not a run to redo
            report(f"serial: snakemake --unlock failed (exit {trials[-1].resume_rc}) after kill {len(trials)}")
            for trial in trials:
                trial.differences = [f"snakemake --unlock failed (exit {trials[-1].resume_rc})"]
                trial.resume_rc = trials[-1].resume_rc
                report(trial.line())
            return trials
        if all(t.killed for t in trials) and len(trials) == kills or attempt == attempts - 1:
            break
        # faster than the reference (e.g. numba's cache was warm): again, moments within this run's time
        report(f"serial: the run ended after {ran:.1f} s, before kill {len(trials)}: again in a new copy")
        shutil.rmtree(work)
        duration_s = ran
    t0 = time.monotonic()
    rc, _ = run_snakemake(work, args, log)
    differences = []
    if rc == 0:
        res = results_dir(work)
        try:
            assert_no_partial_files(res)
        except (AssertionError, ValueError) as err:
            differences.append(f"partial file: {err}")
        differences += result_differences(results_dir(reference), res)
    for trial in trials:
        trial.resume_s, trial.differences = time.monotonic() - t0, differences
        trial.resume_rc = trial.resume_rc or rc
        report(trial.line().replace("resumed in", "final run in"))
    if not keep and not differences and rc == 0:
        shutil.rmtree(work)
    return trials


def summary(trials: list[Trial]) -> str:
    killed = sum(t.killed for t in trials)
    return f"{sum(t.identical for t in trials)} of {len(trials)} resumed byte-identical" + (
        f" ({len(trials) - killed} ended before their kill moment)" if killed < len(trials) else ""
    )


def tiny_trial(root: Path, seed: int, cores: int, keep: bool = False) -> int:
    """``--tiny``: one kill and resume of the toy workflow of ``benchmarks/_tiny.py`` under ``root``."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("_tiny", Path(__file__).resolve().parent / "_tiny.py")
    tiny = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tiny)

    def copy(dest: Path) -> Path:
        return tiny.toy_workflow(dest, sleep_s=1.0)

    args = ["--cores", str(cores), "--rerun-incomplete"]
    try:
        reference = copy(root / "reference")
        rc, wall = run_snakemake(reference, args, reference / "kill_resume.log")
        if rc != 0:
            print(f"the uninterrupted run failed (rc {rc}): see {reference / 'kill_resume.log'}")
            return 1
        print(f"uninterrupted run (toy workflow): {wall:.1f} s ({' '.join(args)}); copies in {root}")
        trials = run_trials(reference, args, 1, seed=seed, duration_s=wall, root=root, span=(0.4, 0.8), copy=copy)
        print(summary(trials))
        return 0 if all(t.identical for t in trials) else 1
    finally:
        if not keep:
            shutil.rmtree(root, ignore_errors=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kills", type=int, default=10, help="number of killed runs (default 10)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the kill moments")
    ap.add_argument("--cores", type=int, default=2)
    ap.add_argument("--configfile", nargs="+", default=list(TINY), help="config files, in merge order")
    ap.add_argument(
        "--mirror",
        default=os.environ.get("XAIPIPE_UCI_MIRROR", str(REPO.parent / "shared/data/uci")),
        help="UCI mirror (default $XAIPIPE_UCI_MIRROR or ../shared/data/uci)",
    )
    ap.add_argument("--workdir", type=Path, help="where the copies go (default: a temporary folder)")
    ap.add_argument("--keep", action="store_true", help="keep every copy (default: only those that differ)")
    ap.add_argument(
        "--serial",
        action="store_true",
        help="kill one run N times in a row (each kill followed by --unlock and a rerun that "
        "resumes it), instead of N runs killed once each",
    )
    ap.add_argument(
        "--tiny", action="store_true", help="one kill of a toy workflow of four rules (seconds), not the pipeline"
    )
    opts = ap.parse_args(argv)
    root = opts.workdir or Path(tempfile.mkdtemp(prefix="kill_resume_"))
    if opts.tiny:
        return tiny_trial(root, opts.seed, opts.cores, keep=opts.keep or opts.workdir is not None)
    args = snakemake_args(opts.configfile, Path(opts.mirror).resolve(), opts.cores)
    reference = copy_workflow(root / "reference")
    rc, wall = run_snakemake(reference, args, reference / "kill_resume.log")
    if rc != 0:
        print(f"the uninterrupted run failed (rc {rc}): see {reference / 'kill_resume.log'}")
        return 1
    print(f"uninterrupted run: {wall:.1f} s ({' '.join(args)}); copies in {root}")
    run = run_serial if opts.serial else run_trials
    trials = run(reference, args, opts.kills, seed=opts.seed, duration_s=wall, root=root, keep=opts.keep)
    print(summary(trials))
    return 0 if all(t.identical for t in trials) else 1


if __name__ == "__main__":
    sys.exit(main())
