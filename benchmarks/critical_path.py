"""Critical path and simulated wall time of a finished run on 1 .. N cores.

Reads the ``benchmark:`` files of a finished run (``logs/<version>/benchmarks/**.tsv``: wall
seconds ``s``, ``cpu_time``, ...) and the run's job graph (a dry run ``snakemake -n --forceall``
of the same configuration: every job with its rule, wildcards, threads, benchmark file, input
and output files; an edge wherever a job's input is another job's output), and prints

- the total CPU (``cpu_time``), the summed job wall time and core-seconds (wall x threads);
- the critical path: the chain of dependent jobs with the longest summed wall time, job by job;
- the wall time of a greedy list schedule on 1, 2, 8, 32 cores and on unbounded cores.

Schedule model: each job holds ``min(threads, cores)`` cores for ``wall x threads /
min(threads, cores)`` seconds, where ``wall`` is its measured wall time and ``threads`` the
threads it ran with (from the dry run with the run's ``--cores``; Snakemake caps threads at
``--cores``): threads are not raised on larger machines, and a job given fewer cores than it
ran with is assumed to slow down in proportion (this only matters on 1 core). Whenever cores
free up, the ready jobs (all inputs done) are started in order of their bottom level (the
longest path from the job to the end of the graph, itself included; ties by job id) as long
as their cores fit; a job that does not fit lets the next ones start. Snakemake's own
overhead (start-up of each job, the scheduler, latency) is not in the benchmark files, so the
simulated times are lower bounds for a real run with those threads; on unbounded cores the
schedule equals the critical path.

Usage (from a checkout of the run's code; arguments after ``--`` go to the dry run)::

    python benchmarks/critical_path.py logs/v1/benchmarks --run-cores 2 \\
        -- --config uci_mirror=/path/to/shared/data/uci
    python benchmarks/critical_path.py --tiny   # a toy workflow (benchmarks/_tiny.py): run, dry run, report
"""

from __future__ import annotations

import argparse
import csv
import subprocess
import sys
from pathlib import Path

# The job graph and the schedule live in the package (xaipipe.report.schedule; the cost model of
# xaipipe.report.cost_model uses them too); re-exported here under their old names.
from xaipipe.report.schedule import (  # noqa: F401
    Job,
    bottom_levels,
    critical_path,
    dependencies,
    list_schedule,
    parse_dry_run,
)

CORES = (1, 2, 8, 32, None)  # None: unbounded


def read_benchmark(path: Path) -> tuple[float, float]:
    """(wall seconds ``s``, ``cpu_time``) of a Snakemake benchmark file (mean over its repeats)."""
    with open(path, newline="") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))
    if not rows:
        raise ValueError(f"{path}: no benchmark row")
    wall = sum(float(r["s"]) for r in rows) / len(rows)
    cpu = sum(float(r["cpu_time"]) for r in rows if r.get("cpu_time") not in (None, "", "NA")) / len(rows)
    return wall, cpu


def attach_benchmarks(jobs: dict[int, Job], benchmarks: Path) -> list[str]:
    """Set ``wall_s`` / ``cpu_s`` of every job from its file under ``benchmarks`` (the run's
    ``logs/<version>/benchmarks``: a job's path is taken from its ``benchmarks/`` component on).
    Returns the jobs whose benchmark file is missing (they count 0 s)."""
    missing = []
    for job in jobs.values():
        if not job.benchmark:
            continue
        rel = job.benchmark.split("/benchmarks/", 1)[-1]
        path = benchmarks / rel
        if path.is_file():
            job.wall_s, job.cpu_s = read_benchmark(path)
        else:
            missing.append(job.label)
    return missing


def dry_run(snakemake_args: list[str], run_cores: int) -> str:
    cmd = [sys.executable, "-m", "snakemake", "-n", "--forceall", "--cores", str(run_cores), *snakemake_args]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    return proc.stdout


def job_durations(jobs: dict[int, Job], duration: str = "wall") -> dict[int, float]:
    """Seconds each job holds its cores: its measured wall time (``"wall"``), or ``cpu_time /
    threads`` (``"cpu"``; the wall time where ``cpu_time`` is 0) for a run measured while other
    work shared the machine, whose wall times include waiting for a CPU."""
    if duration == "wall":
        return {j: job.wall_s for j, job in jobs.items()}
    if duration == "cpu":
        return {j: (job.cpu_s / job.threads if job.cpu_s > 0 else job.wall_s) for j, job in jobs.items()}
    raise ValueError(f"duration must be 'wall' or 'cpu', got {duration!r}")


def report(jobs: dict[int, Job], missing: list[str], cores=CORES, out=print, duration: str = "wall") -> None:
    deps = dependencies(jobs)
    kind = duration
    duration = job_durations(jobs, kind)
    threads = {j: job.threads for j, job in jobs.items()}
    benchmarked = [job for job in jobs.values() if job.benchmark]
    wall = sum(duration.values())
    core_s = sum(duration[j] * job.threads for j, job in jobs.items())
    out(
        f"jobs: {len(jobs)} ({len(benchmarked) - len(missing)} benchmark files read, {len(missing)} missing"
        + (f": {', '.join(missing[:5])}{' ...' if len(missing) > 5 else ''}" if missing else "")
        + f"; {len(jobs) - len(benchmarked)} jobs without a benchmark count 0 s)"
    )
    out(f"job durations: {'measured wall' if kind == 'wall' else 'cpu_time / threads'}")
    out(
        f"total CPU (cpu_time): {sum(j.cpu_s for j in jobs.values()):.1f} s; sum of job durations: {wall:.1f} s; "
        f"core-seconds (duration x threads): {core_s:.1f} s"
    )
    length, path = critical_path(duration, deps)
    out(f"\ncritical path: {length:.1f} s over {len(path)} jobs")
    out("\n| job | threads | duration_s | cumulative_s |\n|---|---|---|---|")
    acc = 0.0
    for j in path:
        acc += duration[j]
        out(f"| {jobs[j].label} | {jobs[j].threads} | {duration[j]:.1f} | {acc:.1f} |")
    one, _ = list_schedule(duration, threads, deps, 1)
    out("\n| cores | simulated wall (s) | (min) | speed-up over 1 core | busy cores / cores |\n|---|---|---|---|---|")
    for k in cores:
        span, _ = list_schedule(duration, threads, deps, k)
        busy = (sum(duration[j] * threads[j] for j in jobs) / (k * span)) if k and span else float("nan")
        out(
            f"| {'unbounded' if k is None else k} | {span:.1f} | {span / 60:.1f} | {one / span:.2f} | "
            f"{'-' if k is None else f'{busy:.2f}'} |"
        )


def _tiny():
    """benchmarks/_tiny.py (the --tiny inputs), loaded by path."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("_tiny", Path(__file__).resolve().parent / "_tiny.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    extra = argv[argv.index("--") + 1 :] if "--" in argv else []
    argv = argv[: argv.index("--")] if "--" in argv else argv
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("benchmarks", type=Path, nargs="?", help="the run's logs/<version>/benchmarks folder")
    ap.add_argument("--run-cores", type=int, default=2, help="--cores of the measured run (caps threads; default 2)")
    ap.add_argument(
        "--duration",
        choices=("wall", "cpu"),
        default="wall",
        help="job duration: measured wall (default) or cpu_time / threads (a run that shared the machine)",
    )
    ap.add_argument(
        "--tiny",
        action="store_true",
        help="run a toy workflow (4 rules, seconds) and report on its dry run and benchmarks",
    )
    opts = ap.parse_args(argv)
    if opts.tiny:
        import tempfile

        tiny = _tiny()
        with tempfile.TemporaryDirectory(prefix="critical_path_tiny_") as folder:
            tiny.run_toy(tiny.toy_workflow(folder))
            bench = str(Path(folder) / "logs" / "tiny" / "benchmarks")
            return main([bench, "--run-cores", str(opts.run_cores), "--", "-s", f"{folder}/Snakefile", "-d", folder])
    if opts.benchmarks is None:
        ap.error("give the run's benchmark folder (or --tiny)")
    if not opts.benchmarks.is_dir():
        ap.error(f"{opts.benchmarks}: no such folder")
    jobs = parse_dry_run(dry_run(extra, opts.run_cores))
    if not jobs:
        ap.error("the dry run listed no job")
    missing = attach_benchmarks(jobs, opts.benchmarks)
    report(jobs, missing, duration=opts.duration)
    return 0


if __name__ == "__main__":
    sys.exit(main())
