"""Critical path and greedy list schedule of a Snakemake job graph.

The job graph comes from a dry run (``snakemake -n --forceall``: every job with its rule,
wildcards, threads, benchmark file, input and output files; an edge wherever a job's input is
another job's output). Used by ``benchmarks/critical_path.py`` (a finished run's measured job
times) and :mod:`xaipipe.report.cost_model` (job times predicted by the measured cost model).

Schedule model (:func:`list_schedule`): each job holds ``min(threads, cores)`` cores for
``duration x threads / min(threads, cores)`` seconds; whenever cores free up, the ready jobs
(all inputs done) start in order of their bottom level (the longest path from the job to the end
of the graph, itself included; ties by job id) as long as their cores fit; a job that does not
fit lets the next ones start. On unbounded cores the schedule equals the critical path.
"""

from __future__ import annotations

import heapq
import math
import re
from dataclasses import dataclass, field


@dataclass
class Job:
    """One job of the graph: its measured wall seconds and the threads it held."""

    jobid: int
    rule: str
    wildcards: str = ""
    threads: int = 1
    benchmark: str | None = None
    inputs: list[str] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)
    wall_s: float = 0.0
    cpu_s: float = 0.0

    @property
    def label(self) -> str:
        return f"{self.rule}[{self.wildcards}]" if self.wildcards else self.rule


_FIELD = re.compile(r"^    (input|output|jobid|benchmark|wildcards|threads): (.*)$")
_RULE = re.compile(r"^(?:local)?rule (\w+):$")


def parse_dry_run(output: str) -> dict[int, Job]:
    """Jobs of ``snakemake -n`` output (Snakemake 9: one ``rule <name>:`` block per job with
    ``input:``, ``output:``, ``jobid:``, ``benchmark:``, ``wildcards:``, ``threads:`` lines;
    threads are printed only above 1)."""
    jobs, current = {}, None
    for line in output.splitlines():
        m = _RULE.match(line)
        if m:
            current = {"rule": m.group(1)}
            continue
        m = _FIELD.match(line)
        if m and current is not None:
            key, value = m.groups()
            current[key] = value
            if key == "jobid":
                job = Job(int(value), current["rule"])
                jobs[job.jobid] = job
                current["job"] = job
            continue
        if current is not None and "job" in current and not line.startswith("    "):
            _fill(current)
            current = None
    if current is not None and "job" in current:
        _fill(current)
    return jobs


def _fill(block: dict) -> None:
    job: Job = block["job"]
    job.inputs = [s for s in block.get("input", "").split(", ") if s]
    job.outputs = [s for s in block.get("output", "").split(", ") if s]
    job.benchmark = block.get("benchmark")
    job.wildcards = block.get("wildcards", "")
    job.threads = int(block.get("threads", 1))


def dependencies(jobs: dict[int, Job]) -> dict[int, set[int]]:
    """jobid -> the jobids whose outputs it reads."""
    producer = {out: job.jobid for job in jobs.values() for out in job.outputs}
    return {j: {producer[f] for f in job.inputs if f in producer and producer[f] != j} for j, job in jobs.items()}


def bottom_levels(duration: dict[int, float], deps: dict[int, set[int]]) -> dict[int, float]:
    """Longest path (summed duration) from each job to the end of the graph, itself included."""
    children: dict[int, list[int]] = {j: [] for j in duration}
    for j, ds in deps.items():
        for d in ds:
            children[d].append(j)
    level: dict[int, float] = {}
    for j in _topological(deps)[::-1]:
        level[j] = duration[j] + max((level[c] for c in children[j]), default=0.0)
    return level


def _topological(deps: dict[int, set[int]]) -> list[int]:
    indeg = {j: len(ds) for j, ds in deps.items()}
    children: dict[int, list[int]] = {j: [] for j in deps}
    for j, ds in deps.items():
        for d in ds:
            children[d].append(j)
    order, ready = [], sorted(j for j, n in indeg.items() if n == 0)
    while ready:
        j = ready.pop(0)
        order.append(j)
        for c in children[j]:
            indeg[c] -= 1
            if indeg[c] == 0:
                ready.append(c)
        ready.sort()
    if len(order) != len(deps):
        raise ValueError("the job graph has a cycle")
    return order


def critical_path(duration: dict[int, float], deps: dict[int, set[int]]) -> tuple[float, list[int]]:
    """Length and jobs (first to last) of the longest chain of dependent jobs."""
    finish: dict[int, float] = {}
    via: dict[int, int | None] = {}
    for j in _topological(deps):
        before = max(deps[j], key=lambda d: (finish[d], -d), default=None)
        finish[j] = duration[j] + (finish[before] if before is not None else 0.0)
        via[j] = before
    if not finish:
        return 0.0, []
    end = max(finish, key=lambda j: (finish[j], -j))
    path = [end]
    while via[path[-1]] is not None:
        path.append(via[path[-1]])
    return finish[end], path[::-1]


def list_schedule(
    duration: dict[int, float], threads: dict[int, int], deps: dict[int, set[int]], cores: int | None
) -> tuple[float, dict[int, float]]:
    """Makespan and start times of the greedy list schedule described in the module docstring.

    ``cores=None``: unbounded. Raises ValueError for ``cores < 1``.
    """
    if cores is not None and cores < 1:
        raise ValueError(f"cores must be >= 1 or None, got {cores}")
    need = {j: (threads[j] if cores is None else min(threads[j], cores)) for j in duration}
    length = {j: duration[j] * threads[j] / need[j] for j in duration}
    level = bottom_levels(length, deps)
    waiting = {j: set(ds) for j, ds in deps.items()}
    children: dict[int, list[int]] = {j: [] for j in deps}
    for j, ds in deps.items():
        for d in ds:
            children[d].append(j)
    ready = [j for j, ds in waiting.items() if not ds]
    free = math.inf if cores is None else cores
    running: list[tuple[float, int]] = []
    start: dict[int, float] = {}
    now = 0.0
    while ready or running:
        ready.sort(key=lambda j: (-level[j], j))
        for j in list(ready):
            if need[j] <= free:
                free -= need[j]
                start[j] = now
                heapq.heappush(running, (now + length[j], j))
                ready.remove(j)
        if not running:
            raise RuntimeError("no job fits on the cores")  # cannot happen: need <= cores
        now, j = heapq.heappop(running)
        finished = [j]
        while running and running[0][0] <= now:
            finished.append(heapq.heappop(running)[1])
        for j in finished:
            free += need[j]
            for c in children[j]:
                waiting[c].discard(j)
                if not waiting[c]:
                    ready.append(c)
    return now, start
