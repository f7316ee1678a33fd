"""The whole default study of one table as its rows grow: per-job CPU, peak RSS, cost exponents, 8-core wall.

Runs the default study (``config/config.yaml``) of the ``simulated`` dataset alone (Friedman #1,
p = 10; the six UCI datasets, the thesis illustrations and the seed-003 rerun switched off) at
each ``n`` of ``--n`` (the source option ``datasets.simulated.source.n``), in a copy of the
workflow under ``--workdir``, one Snakemake run per ``n`` (``version: scale_n<n>``). Every job's
CPU seconds (user + system, its process and its waited-for children) and peak RSS are taken
with ``getrusage`` when the job's Python process exits (a ``sitecustomize`` module on the jobs'
``PYTHONPATH``: the numbers ``/usr/bin/time -v`` gives, per job; Snakemake's own ``benchmark:``
``cpu_time`` samples the process tree and misses most of a short job's CPU).

Then, per job kind (rule and wildcards other than ``dataset``: ``cv[family=random_forest]``):

* the fit ``cpu_s = a * n**b`` (least squares on log-log, :func:`xaipipe.report.cost_model.fit_power`)
  and ``rss_mb = c + d * n`` (:func:`~xaipipe.report.cost_model.fit_affine`), written to the cost
  model ``--model`` (default ``benchmarks/cost_model.tsv``; what ``python -m
  xaipipe.report.cost_model`` reads);
* per rule, the CPU seconds and the largest peak RSS at each measured ``n`` and, extrapolated by the
  fits, at each ``--project`` size, with the exponent ``b`` of the rule's summed CPU;
* the simulated wall on 8 cores and the critical path at each size (the job graph of a dry run,
  the greedy list schedule of ``benchmarks/critical_path.py``, each job ``cpu_s / threads`` long).

Usage (from the repository root; every Snakemake run under ``nice -n 19``)::

    python -m benchmarks.scale_study                       # n = 1000 4000 16000 64000, 2 cores
    python -m benchmarks.scale_study --n 500 1000 2000 --cores 2 --project 16000 64000 100000
    python -m benchmarks.scale_study --records scale.jsonl --project 100000   # refit recorded jobs
    python -m benchmarks.scale_study --tiny                # seconds: two small runs of four rules

``--tiny`` runs the same code on n = 60 and 120 with the targets cut to the fitted linear
regression (rules canonical, prepare, split, cv, fit) and writes the model to a temporary
folder; its numbers mean nothing (``tests/test_benchmarks.py`` runs it).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

import yaml

from xaipipe.report.cost_model import (
    Model,
    Policies,
    fit_costs,
    fit_power,
    job_key,
    load_config,
    project,
    write_model,
)
from xaipipe.report.schedule import parse_dry_run

REPO = Path(__file__).resolve().parents[1]

#: What a user's checkout holds and the workflow needs (no results, no .snakemake).
COPIED = ("Snakefile", "workflow", "config", "envs", "profiles", "src")

#: The six thesis datasets, switched off (the simulated dataset runs alone).
THESIS_DATASETS = ("airfoil", "concrete", "wine_quality", "abalone", "diabetes", "breast_cancer")

#: Written as ``sitecustomize.py`` on the jobs' PYTHONPATH: one JSON line per job at exit.
SITECUSTOMIZE = """\
import atexit, json, os, resource, sys, time

_T0 = time.time()


def _hwm_kb():
    # VmHWM: the peak RSS of this process's own memory since its exec (ru_maxrss of RUSAGE_SELF
    # also keeps the peak of the process it was forked from: Snakemake's, ~280 MB)
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def _record():
    job = getattr(sys.modules.get("__main__"), "snakemake", None)
    path = os.environ.get("XAIPIPE_SCALE_RECORDS")
    if job is None or not path:
        return
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    line = json.dumps({
        "rule": job.rule,
        "wildcards": {k: str(v) for k, v in job.wildcards.items()},
        "threads": int(job.threads),
        "cpu_s": own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime,
        "rss_mb": max(_hwm_kb(), kids.ru_maxrss) / 1024.0,
        "wall_s": time.time() - _T0,
    })
    with open(path, "a") as fh:
        fh.write(line + "\\n")


atexit.register(_record)
"""


def copy_workflow(dst: Path) -> Path:
    """Copy the workflow (``COPIED``) to ``dst``."""
    dst.mkdir(parents=True, exist_ok=True)
    for name in COPIED:
        src = REPO / name
        target = dst / name
        if target.exists():
            shutil.rmtree(target) if target.is_dir() else target.unlink()
        if src.is_dir():
            shutil.copytree(src, target, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
        else:
            shutil.copyfile(src, target)
    return dst


def study_config(n: int, version: str) -> dict:
    """The override of ``config/config.yaml``: the simulated dataset alone, at ``n`` rows."""
    with open(REPO / "config" / "config.yaml", encoding="utf-8") as fh:
        source = dict(yaml.safe_load(fh)["datasets"]["simulated"]["source"])
    source["n"] = int(n)
    return {
        "version": version,
        "datasets": {**{d: {"enabled": False} for d in THESIS_DATASETS}, "simulated": {"source": source}},
        "illustrations": {"enabled": False},
        "comparison": {"seed003": {"enabled": False}},
    }


def _snakemake(workdir: Path, args: Sequence[str], env: Mapping[str, str] | None = None) -> str:
    cmd = ["nice", "-n", "19", sys.executable, "-m", "snakemake", *args]
    proc = subprocess.run(cmd, cwd=workdir, capture_output=True, text=True, env=dict(env or os.environ))
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed in {workdir}:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}")
    return proc.stdout


def merge_records(old: Sequence[Mapping], new: Sequence[Mapping], n: int, part: bool = False) -> list:
    """The records after a run at ``n`` rows: the whole study's run replaces every record at ``n``;
    a part (``--targets``) replaces only the job kinds (rule, key) it ran, at ``n``."""
    ran = {(r["rule"], r["key"]) for r in new}
    return [r for r in old if int(r["n"]) != n or (part and (r["rule"], r["key"]) not in ran)] + list(new)


def memory_regime_rows(config: Mapping) -> float | None:
    """Rows ``n`` from which the refit of a forest runs in blocks of trees (its training rows
    ``n * (1 - split.test_size)`` reach ``large_data.forest_block_rows``); None where blocks are off."""
    from xaipipe.models.forest_blocks import forest_block_setting

    blocks = forest_block_setting(config.get("large_data"))
    return None if blocks is None else blocks[0] / (1.0 - float(config["split"]["test_size"]))


def run_study(
    workdir: Path, n: int, cores: int, targets: Sequence[str] = (), dry: bool = True
) -> tuple[list[dict], dict | None, float]:
    """Run the study at ``n`` rows in ``workdir``; return (job records, dry-run jobs or None
    (``dry`` false: no dry run), wall seconds).

    Each record: ``n``, ``rule``, ``key``, ``wildcards``, ``threads``, ``cpu_s``, ``rss_mb``, ``wall_s``.
    """
    version = f"scale_n{n}"
    cfg = workdir / f"{version}.yaml"
    cfg.write_text(yaml.safe_dump(study_config(n, version), sort_keys=False))
    hook = workdir / "scale_hook"
    hook.mkdir(exist_ok=True)
    (hook / "sitecustomize.py").write_text(SITECUSTOMIZE)
    records = workdir / f"{version}.jsonl"
    records.unlink(missing_ok=True)
    args = [*targets, "--configfile", "config/config.yaml", cfg.name]
    jobs = parse_dry_run(_snakemake(workdir, ["-n", "--forceall", "--cores", "8", *args])) if dry else None
    env = dict(os.environ)
    # the copy's own package first: the jobs run the code that was copied, whatever else is installed
    # (an editable install of the checkout would otherwise follow its later edits mid-run)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(hook), str(workdir.resolve() / "src"), *filter(None, [env.get("PYTHONPATH")])]
    )
    env["XAIPIPE_SCALE_RECORDS"] = str(records)
    t0 = time.perf_counter()
    _snakemake(workdir, ["--cores", str(cores), "--forceall", *args], env)
    wall = time.perf_counter() - t0
    out = []
    for line in records.read_text().splitlines():
        r = json.loads(line)
        r["n"] = int(n)
        r["key"] = job_key(r["wildcards"])
        out.append(r)
    return out, jobs, wall


def attach_trees(records: list[dict], workdir: Path) -> int:
    """Give each ``shap`` record of a forest its trees (``n_trees``, from the run's ``shap_meta.json``:
    what the CV chose at that n, the TreeSHAP cost's factor) where the run's results are in ``workdir``;
    returns how many records got it."""
    from xaipipe.paths import result_path

    done = 0
    for r in records:
        if r["rule"] != "shap" or r.get("n_trees"):
            continue
        w = r["wildcards"]
        meta = workdir / result_path("shap_meta", f"results/scale_n{r['n']}", dataset=w["dataset"], family=w["family"])
        if not meta.is_file():
            continue
        details = json.loads(meta.read_text()).get("details") or {}
        if "n_trees" in details and int(details["n_trees"]) > 1:
            r["n_trees"] = int(details["n_trees"])
            done += 1
    return done


def rule_table(records: Sequence[Mapping], project_n: Sequence[int], model: Model, out=print) -> dict[str, float]:
    """Per rule: CPU-s (summed over its jobs) and the largest peak RSS at each measured ``n``, then
    extrapolated at each ``project_n``; the exponent b of the rule's summed CPU. Returns rule -> b."""
    ns = sorted({int(r["n"]) for r in records})
    rules = sorted({r["rule"] for r in records})
    out("| n | rule | jobs | CPU-s | peak RSS (MB) | b | |\n|---|---|---|---|---|---|---|")
    exps = {}
    rows = []
    for rule in rules:
        cpu = {n: sum(r["cpu_s"] for r in records if r["rule"] == rule and r["n"] == n) for n in ns}
        rss = {n: max((r["rss_mb"] for r in records if r["rule"] == rule and r["n"] == n), default=0.0) for n in ns}
        jobs = {n: sum(1 for r in records if r["rule"] == rule and r["n"] == n) for n in ns}
        # b over the sizes where every job of the rule was measured (a run cut short has fewer)
        full = max(jobs.values())
        present = [n for n in ns if jobs[n] == full]
        b = fit_power(present, [max(cpu[n], 1e-3) for n in present])[1]
        exps[rule] = b
        for n in ns:
            if jobs[n]:
                rows.append((n, rule, jobs[n], cpu[n], rss[n], b, "measured" + ("" if n in present else " (part)")))
        costs = [c for c in model.costs if c.rule == rule]
        for n in project_n:
            rows.append(
                (
                    n,
                    rule,
                    len(costs),
                    sum(c.cpu_s(n) for c in costs),
                    max(c.rss_mb(n) for c in costs),
                    b,
                    "extrapolated",
                )
            )
    for n, rule, jobs, cpu, rss, b, kind in sorted(rows, key=lambda r: (r[0], -r[3])):
        out(f"| {n} | {rule} | {jobs} | {cpu:.1f} | {rss:.0f} | {b:.2f} | {kind} |")
    return exps


def wide_table(records: Sequence[Mapping], project_n: Sequence[int], model: Model, exps: Mapping, out=print):
    """One row per rule: measured CPU-s at each n, b, measured peak RSS at the largest n, then CPU-s
    and peak RSS extrapolated at each ``project_n`` (the per-job fits summed / maxed)."""
    ns = sorted({int(r["n"]) for r in records})
    head = ["rule", "jobs", *[f"CPU-s n={n}" for n in ns], "b", f"RSS MB n={ns[-1]}"]
    head += [f"{k} n={n} (extrap.)" for n in project_n for k in ("CPU-s", "RSS MB")]
    out("| " + " | ".join(head) + " |\n|" + "---|" * len(head))
    total = {n: 0.0 for n in ns}
    rules = sorted(
        {r["rule"] for r in records}, key=lambda r: -sum(c.cpu_s(ns[-1]) for c in model.costs if c.rule == r)
    )
    for rule in rules:
        rs = [r for r in records if r["rule"] == rule]
        costs = [c for c in model.costs if c.rule == rule]
        full = max(sum(1 for r in rs if r["n"] == n) for n in ns)
        cells = [rule, str(full)]
        for n in ns:
            mine = [r for r in rs if r["n"] == n]
            total[n] += sum(r["cpu_s"] for r in mine)
            part = "" if len(mine) == full else f" ({len(mine)}/{full})"
            cells.append(f"{sum(r['cpu_s'] for r in mine):.1f}{part}" if mine else "-")
        top = [r["rss_mb"] for r in rs if r["n"] == ns[-1]]
        cells += [f"{exps[rule]:.2f}", f"{max(top):.0f}" if top else "-"]
        for n in project_n:
            cells += [f"{sum(c.cpu_s(n) for c in costs):.0f}", f"{max(c.rss_mb(n) for c in costs):.0f}"]
        out("| " + " | ".join(cells) + " |")
    out("| all | | " + " | ".join(f"{total[n]:.0f}" for n in ns) + " | | |" + " |" * (2 * len(project_n)))


def projection_table(
    jobs: Mapping, sizes: Sequence[int], model: Model, measured: Sequence[int], out=print, policies=None
):
    """The simulated wall on 1, 2, 8 cores and unbounded at each size (``measured``: the measured sizes;
    ``policies``: :class:`xaipipe.report.cost_model.Policies`, or None for every job at its fitted cost)."""
    out(
        "\n| n | | CPU-s | 1 core (min) | 2 cores (min) | 8 cores (min) | critical path (min) | "
        "largest job RSS (GB) | RSS of jobs at once, 8 cores (GB) |\n|---|---|---|---|---|---|---|---|---|"
    )
    for n in sizes:
        datasets = {"simulated": float(n)}
        proj = project(jobs, datasets, model, cores=(1, 2, 8, None), policies=policies)
        kind = "measured n, fitted" if n in measured else "extrapolated"
        out(
            f"| {n} | {kind} | {proj.total_cpu_s:.0f} | {proj.wall_s[1] / 60:.1f} | {proj.wall_s[2] / 60:.1f} | "
            f"{proj.wall_s[8] / 60:.1f} | {proj.critical_path_s / 60:.1f} | "
            f"{max(proj.rss_mb.values()) / 1024:.2f} | {proj.peak_concurrent_mb[8] / 1024:.2f} |"
        )


def _tiny_targets(n: int) -> list[str]:
    from xaipipe.paths import result_path

    return [result_path("model", f"results/scale_n{n}", dataset="simulated", family="linear_regression")]


def _cost_model_command(workdir: Path, model: Path, configfile: str, targets: Sequence[str]) -> str:
    """Output of ``python -m xaipipe.report.cost_model`` in ``workdir`` (its dry run, no job run)."""
    cmd = [sys.executable, "-m", "xaipipe.report.cost_model", "--configfile", "config/config.yaml", configfile]
    cmd += ["--model", str(model), "--memory-gb", "24", "--", *targets]
    proc = subprocess.run(["nice", "-n", "19", *cmd], cwd=workdir, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    return proc.stdout.strip()


def linear_floor(model: Model, min_cpu_s: float = 5.0) -> Model:
    """The model with ``b`` raised to 1 above the measured rows for every job kind of at least
    ``min_cpu_s`` CPU seconds at its largest measured ``n`` (anchored there): over a small range
    a job's fixed start-up (~1 CPU-s of imports) flattens the fit, while the work on the rows
    (tree building, predictions) grows at least linearly. A bound to read beside the fit."""
    from dataclasses import replace

    out = []
    for c in model.costs:
        top = c.cpu_s(c.n_max)
        if top >= min_cpu_s and c.cpu_b < 1.0:
            c = replace(c, cpu_b=1.0, cpu_a=top / c.n_max)
        out.append(c)
    return Model(out)


def chain(jobs: Mapping, n: int, model: Model, out=print, policies=None) -> None:
    """The critical path's jobs at ``n`` rows (each with its predicted CPU-s and threads)."""
    from xaipipe.report.cost_model import job_key as key
    from xaipipe.report.schedule import critical_path, dependencies

    proj = project(jobs, {"simulated": float(n)}, model, cores=(None,), policies=policies)
    duration = {j: proj.cpu_s[j] / max(1, jobs[j].threads) for j in jobs}
    length, path = critical_path(duration, dependencies(dict(jobs)))
    out(
        f"critical path at n = {n}: {length / 60:.1f} min: "
        + " -> ".join(
            f"{jobs[j].rule}[{key(jobs[j].wildcards)}] {proj.cpu_s[j]:.0f} CPU-s" for j in path if duration[j] >= 1.0
        )
    )


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, nargs="+", default=[1000, 4000, 16000, 64000], help="rows of the runs")
    ap.add_argument("--cores", type=int, default=2, help="--cores of each run (default 2)")
    ap.add_argument("--project", type=int, nargs="*", default=[16000, 64000, 100000], help="rows to extrapolate to")
    ap.add_argument("--workdir", type=Path, default=None, help="where the workflow copy runs (default: a temp folder)")
    ap.add_argument("--records", type=Path, default=None, help="JSON-lines file of job records: appended, or read")
    ap.add_argument("--no-run", action="store_true", help="fit the --records file only (no Snakemake run)")
    ap.add_argument("--model", type=Path, default=REPO / "benchmarks" / "cost_model.tsv", help="cost model to write")
    ap.add_argument("--tiny", action="store_true", help="n = 60, 120, the linear regression's fit only (seconds)")
    ap.add_argument(
        "--targets",
        nargs="+",
        default=[],
        help="build only these files ('{n}' is replaced by the rows, e.g. "
        "results/scale_n{n}/explain/simulated/random_forest/h_statistic.csv) and the jobs they need: a part of "
        "the study at those n (the tables say 'measured (part)'; the projection uses the whole study's job graph)",
    )
    opts = ap.parse_args(argv)
    targets: list[str] = []
    tmp = None
    if opts.tiny:
        tmp = tempfile.TemporaryDirectory(prefix="scale_study_tiny_")
        opts.n, opts.project, opts.cores = [60, 120], [1000], 2
        opts.workdir = Path(tmp.name) / "repo"
        opts.records = Path(tmp.name) / "records.jsonl"
        opts.model = Path(tmp.name) / "cost_model.tsv"
    workdir = opts.workdir or Path(tempfile.mkdtemp(prefix="scale_study_"))
    records: list[dict] = []
    jobs = None
    walls: dict[int, float] = {}
    if opts.records and opts.records.is_file() and not opts.tiny:
        records = [json.loads(line) for line in opts.records.read_text().splitlines() if line.strip()]
    if not opts.no_run:
        copy_workflow(workdir)
        for n in opts.n:
            if opts.tiny:
                targets = _tiny_targets(n)
            elif opts.targets:
                targets = [t.replace("{n}", str(n)) for t in opts.targets]
            # the job graph is the same at every n: one dry run, with the last (of the whole study)
            recs, graph, walls[n] = run_study(workdir, n, opts.cores, targets, dry=n == opts.n[-1] and not opts.targets)
            attach_trees(recs, workdir)
            jobs = graph or jobs
            cpu = sum(r["cpu_s"] for r in recs)
            print(f"n={n}: {len(recs)} jobs, {cpu:.1f} CPU-s, wall {walls[n]:.1f} s", flush=True)
            records = merge_records(records, recs, n, part=bool(targets) and not opts.tiny)
            if opts.records:
                with open(opts.records, "w") as fh:
                    fh.writelines(json.dumps(r) + "\n" for r in records)
    if not records:
        ap.error("no job records: run the study (--n) or give --records")
    if opts.no_run and attach_trees(records, workdir) and opts.records:  # results of earlier runs there
        with open(opts.records, "w") as fh:
            fh.writelines(json.dumps(r) + "\n" for r in records)
    if jobs is None:  # the job graph of the largest recorded run
        n = max(int(r["n"]) for r in records)
        copy_workflow(workdir)
        cfg = workdir / f"scale_n{n}.yaml"
        cfg.write_text(yaml.safe_dump(study_config(n, f"scale_n{n}"), sort_keys=False))
        dry = _snakemake(workdir, ["-n", "--forceall", "--cores", "8", "--configfile", "config/config.yaml", cfg.name])
        jobs = parse_dry_run(dry)
    ns = sorted({int(r["n"]) for r in records})
    config = load_config([REPO / "config" / "config.yaml"])
    regime_n = memory_regime_rows(config)
    policies = Policies.from_config(config)
    costs = fit_costs(records, memory_regime_n=regime_n, policy_n=policies.from_rows)
    write_model(
        opts.model,
        costs,
        header=[
            "Cost model of the default study's jobs (python -m benchmarks.scale_study; docs/performance.md, 'Whole study').",
            f"Simulated dataset (Friedman #1, p = 10) at n = {', '.join(map(str, ns))}; {len(records)} job records.",
            "cpu_s = cpu_a * n**cpu_b; peak rss_mb = rss_c_mb + rss_d_mb_per_row * n; measured: n:cpu_s:rss_mb.",
            f"Forest-holding kinds from rss_from_n = {regime_n:g} rows (forest blocks): rss_c2_mb + rss_d2_mb_per_row * n.",
            "Kinds measured with the large-data policies applied: policy_cpu_a * n**policy_cpu_b from policy_from_n rows.",
        ],
    )
    model = Model(costs)
    print(f"cost model: {len(costs)} job kinds fitted on n = {', '.join(map(str, ns))} -> {opts.model}")
    print(f"\nper rule (measured at n = {', '.join(map(str, ns))}; extrapolated rows from the per-job fits)\n")
    exps = rule_table(records, [p for p in opts.project if p not in ns], model)
    print("\nper rule, wide\n")
    wide_table(records, [p for p in opts.project if p not in ns], model, exps)
    steep = sorted((b, r) for r, b in exps.items() if b > 1.2)
    print(
        f"\nrules with b > 1.2 over n = {ns[0]} .. {ns[-1]}: "
        + (", ".join(f"{r} ({b:.2f})" for b, r in steep[::-1]) if steep else "none")
    )
    sizes = [*ns, *[p for p in opts.project if p not in ns]]
    print("\nsimulated wall (greedy list schedule of the job graph, each job cpu_s / threads long), fitted b:")
    projection_table(jobs, sizes, model, ns)
    chain(jobs, sizes[-1], model)
    print("\nthe same with the large-data policies (large_data: MR, PD, SHAP rows, forest SHAP trees):")
    projection_table(jobs, sizes, model, ns, policies=policies)
    chain(jobs, sizes[-1], model, policies=policies)
    print("\nwith the policies and b raised to 1 for the job kinds of >= 5 CPU-s at the largest measured n:")
    projection_table(jobs, sizes, linear_floor(model), ns, policies=policies)
    chain(jobs, sizes[-1], linear_floor(model), policies=policies)
    if opts.tiny:  # what a user runs before a study: the package command on the model just written
        n = opts.project[0]
        cfg = workdir / f"scale_n{n}.yaml"
        cfg.write_text(yaml.safe_dump(study_config(n, f"scale_n{n}"), sort_keys=False))
        print("\n" + _cost_model_command(workdir, opts.model, cfg.name, _tiny_targets(n)))
    if tmp is not None:
        tmp.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
