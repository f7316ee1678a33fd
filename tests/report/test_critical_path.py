"""benchmarks/critical_path.py: critical path and greedy list schedule of a job graph."""

from __future__ import annotations

import importlib.util
import sys

import pytest

from tests.conftest import REPO

_spec = importlib.util.spec_from_file_location("critical_path", REPO / "benchmarks" / "critical_path.py")
cp = importlib.util.module_from_spec(_spec)
sys.modules["critical_path"] = cp  # dataclasses look their module up there
_spec.loader.exec_module(cp)

# a(3) -> b(2) -> d(1);  a -> c(4) -> d;  e(2 s on 2 threads) independent.
A, B, C, D, E = range(5)
DURATION = {A: 3.0, B: 2.0, C: 4.0, D: 1.0, E: 2.0}
THREADS = {A: 1, B: 1, C: 1, D: 1, E: 2}
DEPS = {A: set(), B: {A}, C: {A}, D: {B, C}, E: set()}


def test_critical_path_of_a_hand_made_graph():
    length, path = cp.critical_path(DURATION, DEPS)
    assert (length, path) == (8.0, [A, C, D])
    assert cp.bottom_levels(DURATION, DEPS) == {A: 8.0, B: 3.0, C: 5.0, D: 1.0, E: 2.0}


@pytest.mark.parametrize(
    "cores,makespan,starts",
    [
        # one core: everything in a row; e (2 threads) takes 2 s x 2 threads / 1 core = 4 s
        (1, 14.0, None),
        # two cores, by bottom level: a (8) first, e (2) does not fit beside it; at 3 c (5) and
        # b (3); b ends at 5 and leaves one core, e needs two; at 7 e (2) before d (1): e 7-9, d 9-10
        (2, 10.0, {A: 0.0, C: 3.0, B: 3.0, E: 7.0, D: 9.0}),
        # enough cores: every job starts when its inputs are done: the critical path
        (8, 8.0, {A: 0.0, E: 0.0, B: 3.0, C: 3.0, D: 7.0}),
        (None, 8.0, {A: 0.0, E: 0.0, B: 3.0, C: 3.0, D: 7.0}),
    ],
)
def test_list_schedule_of_a_hand_made_graph(cores, makespan, starts):
    span, start = cp.list_schedule(DURATION, THREADS, DEPS, cores)
    assert span == makespan
    if starts is not None:
        assert start == starts
    assert set(start) == set(DURATION)
    for job, ds in DEPS.items():  # no job starts before its inputs are done
        for d in ds:
            assert start[job] >= start[d] + DURATION[d] * THREADS[d] / min(THREADS[d], cores or THREADS[d])


def test_list_schedule_never_beats_the_bounds():
    # 20 independent 1-thread jobs of 1..20 s and a chain of three: on k cores the makespan is
    # at least max(critical path, core-seconds / k)
    duration = {i: float(i + 1) for i in range(20)} | {20: 5.0, 21: 5.0, 22: 5.0}
    deps = {i: set() for i in range(21)} | {21: {20}, 22: {21}}
    threads = {j: 1 for j in duration}
    total = sum(duration.values())
    for k in (1, 2, 3, 8):
        span, _ = cp.list_schedule(duration, threads, deps, k)
        assert span >= max(15.0, total / k) - 1e-9
        assert span <= total / k + max(duration.values()) + 1e-9  # Graham's bound for list schedules
    assert cp.list_schedule(duration, threads, deps, 1)[0] == total
    with pytest.raises(ValueError, match="cores"):
        cp.list_schedule(duration, threads, deps, 0)


DRY_RUN = """\
Building DAG of jobs...
Job stats:
job      count
-----  -------
[Mon Nov 23 11:33:18 2026]
rule split:
    input: results/v1/data/a/prepared.csv
    output: results/v1/data/a/split.json
    log: logs/v1/data/split/a.log
    jobid: 6
    benchmark: logs/v1/benchmarks/split/a.tsv
    reason: Missing output files: results/v1/data/a/split.json
    wildcards: dataset=a
    resources: tmpdir=/tmp
Shell command: None

[Mon Nov 23 11:33:18 2026]
rule cv:
    input: results/v1/data/a/prepared.csv, results/v1/data/a/split.json
    output: results/v1/models/a/cv/rf.csv, results/v1/models/a/best/rf.json
    jobid: 7
    benchmark: logs/v1/benchmarks/cv/a/rf.tsv
    wildcards: dataset=a, family=rf
    threads: 2
    resources: tmpdir=/tmp
Shell command: None

[Mon Nov 23 11:33:18 2026]
localrule all:
    input: results/v1/models/a/cv/rf.csv
    jobid: 0
    resources: tmpdir=/tmp
Job stats:
"""


def test_job_graph_and_benchmarks_from_a_dry_run(tmp_path):
    jobs = cp.parse_dry_run(DRY_RUN)
    assert {j: (job.rule, job.threads, job.wildcards) for j, job in jobs.items()} == {
        6: ("split", 1, "dataset=a"),
        7: ("cv", 2, "dataset=a, family=rf"),
        0: ("all", 1, ""),
    }
    assert cp.dependencies(jobs) == {6: set(), 7: {6}, 0: {7}}
    bench = tmp_path / "benchmarks"
    (bench / "cv" / "a").mkdir(parents=True)
    header = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"
    (bench / "cv" / "a" / "rf.tsv").write_text(header + "12.5\t0:00:12\t1\t1\t1\t1\t0\t0\t150\t18.0\n")
    missing = cp.attach_benchmarks(jobs, bench)
    assert missing == ["split[dataset=a]"]
    assert (jobs[7].wall_s, jobs[7].cpu_s) == (12.5, 18.0)
    lines = []
    cp.report(jobs, missing, out=lines.append)
    text = "\n".join(lines)
    assert "critical path: 12.5 s over 3 jobs" in text
    assert "| 1 | 25.0 |" in text  # cv holds its 2 threads' work on one core: 12.5 s x 2


def test_cpu_durations_for_a_run_that_shared_the_machine(tmp_path):
    jobs = cp.parse_dry_run(DRY_RUN)
    jobs[7].wall_s, jobs[7].cpu_s = 40.0, 18.0  # waited for a CPU: 2 threads did 18 s of work
    jobs[6].wall_s, jobs[6].cpu_s = 3.0, 0.0  # too short for Snakemake's cpu_time sampling
    assert cp.job_durations(jobs, "wall") == {6: 3.0, 7: 40.0, 0: 0.0}
    assert cp.job_durations(jobs, "cpu") == {6: 3.0, 7: 9.0, 0: 0.0}
    lines = []
    cp.report(jobs, [], out=lines.append, duration="cpu")
    assert "critical path: 12.0 s over 3 jobs" in "\n".join(lines)
    with pytest.raises(ValueError, match="duration"):
        cp.job_durations(jobs, "user")
