"""Core occupancy of a finished Snakemake run, from its log.

The ``benchmark:`` files (``results/<v>/profile/``) give each job's wall and CPU
seconds but not the threads it held. On a small machine the wall time of a run is
about ``sum(wall_s x threads) / cores`` (Snakemake keeps the cores claimed), so a
job holding two threads while using one costs a core for nothing. This script
reads ``.snakemake/log/<run>.snakemake.log`` (job start lines with ``threads:``,
``Finished jobid:`` lines, one timestamp per event) and prints, per rule, the
number of jobs, the summed job wall seconds and the *claimed* core-seconds
(wall x threads), and how many seconds of the run had 0, 1, 2, ... cores claimed.

Usage::

    python benchmarks/timeline.py .snakemake/log/<run>.snakemake.log [--benchmarks logs/<v>/benchmarks]
    python benchmarks/timeline.py --tiny    # runs a toy workflow (benchmarks/_tiny.py) and reads its log

With ``--benchmarks`` the table adds the CPU seconds of the benchmarked rules and
``busy`` = CPU / claimed core-seconds. Caution: Snakemake's ``cpu_time`` is sampled
(psutil, at intervals) and misses whatever ran after the last sample, so it
undercounts, badly for short jobs (a 40 s ``cv`` job run alone: ``cpu_time`` 15 s,
``/usr/bin/time`` 42 s). Measure the total CPU of a run with ``/usr/bin/time -v
snakemake ...`` instead.
"""

from __future__ import annotations

import argparse
import collections
import datetime as dt
import re
import sys
from pathlib import Path

_STAMP = re.compile(r"\[(\w{3} \w{3} +\d+ [\d:]+ \d{4})\]")
_RULE = re.compile(r"(?:local)?rule (\w+):")
_JOBID = re.compile(r"\s+jobid: (\d+)")
_THREADS = re.compile(r"\s+threads: (\d+)")
_FINISHED = re.compile(r"Finished jobid: (\d+)")


def _tiny():
    """benchmarks/_tiny.py (the --tiny inputs), loaded by path."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("_tiny", Path(__file__).resolve().parent / "_tiny.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def parse_log(lines):
    """Jobs of a Snakemake log: dict jobid -> {rule, threads, start, end}.

    Times are :class:`datetime.datetime` (the log's one-second resolution); jobs
    without a ``Finished`` line have no ``end``. Threads default to 1 (Snakemake
    prints ``threads:`` only when it is above one).
    """
    stamp, current, jobs = None, None, {}
    for line in lines:
        m = _STAMP.match(line)
        if m:
            stamp = dt.datetime.strptime(m.group(1), "%a %b %d %H:%M:%S %Y")
            continue
        m = _RULE.match(line)
        if m:
            current = {"rule": m.group(1), "threads": 1, "start": stamp}
            continue
        m = _FINISHED.match(line)
        if m:
            job = jobs.get(int(m.group(1)))
            if job is not None:
                job["end"] = stamp
            current = None
            continue
        if current is not None:
            m = _JOBID.match(line)
            if m:
                jobs[int(m.group(1))] = current
            m = _THREADS.match(line)
            if m:
                current["threads"] = int(m.group(1))
    return jobs


def occupancy(jobs):
    """(per-rule totals, seconds by number of claimed cores, run wall seconds)."""
    done = [j for j in jobs.values() if j.get("start") and j.get("end")]
    if not done:
        raise ValueError("no finished jobs in the log")
    t0 = min(j["start"] for j in done)
    t1 = max(j["end"] for j in done)
    wall = int((t1 - t0).total_seconds())
    claimed = [0] * max(wall, 1)
    per_rule = collections.defaultdict(lambda: {"jobs": 0, "wall_s": 0, "core_s": 0})
    for j in done:
        a = int((j["start"] - t0).total_seconds())
        b = int((j["end"] - t0).total_seconds())
        for s in range(a, b):
            claimed[s] += j["threads"]
        r = per_rule[j["rule"]]
        r["jobs"] += 1
        r["wall_s"] += b - a
        r["core_s"] += (b - a) * j["threads"]
    return dict(per_rule), collections.Counter(claimed), wall


def _cpu_by_rule(folder: Path):
    from xaipipe.report.profiling import read_benchmarks, rule_totals  # the installed package (pip install -e .)

    return rule_totals(read_benchmarks(folder)).set_index("rule")["cpu_s"].to_dict()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("log", type=Path, nargs="?")
    ap.add_argument("--benchmarks", type=Path, default=None)
    ap.add_argument(
        "--tiny", action="store_true", help="run a toy workflow (4 rules, seconds) and read its log and benchmarks"
    )
    args = ap.parse_args(argv)
    if args.tiny:
        import tempfile

        tiny = _tiny()
        with tempfile.TemporaryDirectory(prefix="timeline_tiny_") as folder:
            log = tiny.run_toy(tiny.toy_workflow(folder))
            return main([str(log), "--benchmarks", str(Path(folder) / "logs" / "tiny" / "benchmarks")])
    if args.log is None:
        ap.error("give the Snakemake log (or --tiny)")
    if not args.log.is_file():
        ap.error(f"no such log file: {args.log}")
    per_rule, hist, wall = occupancy(parse_log(args.log.read_text().splitlines()))
    cpu = _cpu_by_rule(args.benchmarks) if args.benchmarks else {}
    print(f"run wall_s={wall}")
    print("seconds with k cores claimed: " + ", ".join(f"{k}: {v}" for k, v in sorted(hist.items())))
    print(f"{'rule':26s} {'jobs':>5s} {'wall_s':>8s} {'core_s':>8s} {'cpu_s':>8s} {'busy':>5s}")
    for rule, r in sorted(per_rule.items(), key=lambda kv: -kv[1]["core_s"]):
        c = cpu.get(rule)
        busy = f"{c / r['core_s']:.2f}" if c is not None and r["core_s"] else ""
        cs = f"{c:.0f}" if c is not None else ""
        print(f"{rule:26s} {r['jobs']:5d} {r['wall_s']:8d} {r['core_s']:8d} {cs:>8s} {busy:>5s}")
    total = sum(r["core_s"] for r in per_rule.values())
    print(f"claimed core_s={total} (core_s / wall_s = {total / max(wall, 1):.2f} cores held on average)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
