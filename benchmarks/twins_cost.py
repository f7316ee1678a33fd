"""The twins audit's cost model, from the benchmark files of a finished audit (issue 51).

``snakemake twins`` (docs/coverage.md) writes a Snakemake ``benchmark:`` file per job
(``logs/<version>/benchmarks/{twin,twin_truth,twin_shard,twin_coverage,twin_importance_truth,twin_importance_shard}/``). This script reads them
with each twin's rows (``results/<version>/twins/<dataset>/design.json``: ``n``) and each shard's
replicates (the ``repetition`` values of ``twins/<dataset>/shards/replicates_<k>.csv``), and fits
per job kind ``cpu_s = a * n**b`` and ``rss_mb = c + d * n`` over the twins
(:func:`xaipipe.report.cost_model.fit_costs`): ``twin``, ``twin_truth``, ``twin_coverage`` per job,
``twin_shard`` and ``twin_importance_shard`` **per replicate** (its CPU divided by the shard's
replicates; ``importance_<k>.csv`` for the latter). The table it writes
(default ``benchmarks/cost_model_twins.tsv``) is what ``python -m xaipipe.report.cost_model`` reads
beside the study's cost model, so a dry run of ``twins`` on other datasets, another ``R`` or more
shards is predicted before it runs.

The cost of a replicate depends on more than the rows (the features, the task, the learner and
explained families, the MCR class): the fit over a handful of twins is a rough guide, and the script
prints, per twin, the measured CPU of its shards beside the prediction of the fit **without that
twin** (leave one twin out), the honest error of a prediction for a table not yet audited.

Commands::

    python -m benchmarks.twins_cost --workdir /path/to/checkout [--version v1] [--out benchmarks/cost_model_twins.tsv]
    python -m benchmarks.twins_cost --tiny     # stand-in benchmark files of three twins (seconds)
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from xaipipe.report.cost_model import Model, fit_costs, write_model

REPO = Path(__file__).resolve().parents[1]
RULES = ("twin", "twin_truth", "twin_coverage", "twin_importance_truth")
#: Per-replicate rules and the file of a shard's replicates (``twins/<dataset>/shards/<prefix>_<k>.csv``).
SHARD_RULES = {"twin_shard": "replicates", "twin_importance_shard": "importance"}


def _bench(path: Path) -> tuple[float, float]:
    """(CPU seconds, peak RSS MB) of a Snakemake benchmark file: ``cpu_time`` (else the wall ``s``)."""
    with open(path, newline="") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))
    if not rows:
        raise ValueError(f"{path}: an empty benchmark file")
    row = rows[-1]
    cpu = row.get("cpu_time") or row.get("s")
    return float(cpu), float(row.get("max_rss") or 0.0)


def audit_records(workdir: Path, version: str) -> list[dict]:
    """One record per job of a finished audit (``rule``, ``key``, ``threads``, ``n``, ``cpu_s``,
    ``rss_mb``, ``dataset``, ``replicates``); ``twin_shard`` records hold the CPU per replicate.

    Raises FileNotFoundError where no twin of the version has a design."""
    res = Path(workdir) / "results" / version / "twins"
    bench = Path(workdir) / "logs" / version / "benchmarks"
    designs = sorted(res.glob("*/design.json"))
    if not designs:
        raise FileNotFoundError(f"{res}: no twins/<dataset>/design.json (has `snakemake twins` run there?)")
    out = []
    for design in designs:
        d = design.parent.name
        n = int(json.loads(design.read_text())["n"])
        for rule in RULES:
            f = bench / rule / f"{d}.tsv"
            if f.is_file():
                cpu, rss = _bench(f)
                out.append(dict(rule=rule, key="", threads=1, n=n, cpu_s=cpu, rss_mb=rss, dataset=d, replicates=None))
        for rule, prefix in SHARD_RULES.items():
            for f in sorted((bench / rule).glob(f"{d}_*.tsv")):
                k = f.stem[len(d) + 1 :]
                shard = res / d / "shards" / f"{prefix}_{k}.csv"
                if not k.isdigit() or not shard.is_file():
                    continue
                reps = int(pd.read_csv(shard, usecols=["repetition"])["repetition"].nunique())
                if reps == 0:
                    continue
                cpu, rss = _bench(f)
                rec = dict(rule=rule, key="", threads=1, n=n, cpu_s=cpu / reps, rss_mb=rss, dataset=d, replicates=reps)
                out.append(rec)
    return out


def leave_one_out(records: Sequence[Mapping], out=print, rule: str = "twin_shard") -> list[dict]:
    """Per twin: its ``rule`` shards' measured CPU beside the prediction of the per-replicate fit on
    the other twins (and on all of them); printed as a table, returned as rows."""
    shards = [r for r in records if r["rule"] == rule]
    datasets = sorted({r["dataset"] for r in shards})
    rows = []
    if not shards:
        return rows
    out("| twin | rows | replicates | measured CPU-s | fit on all | fit without it | error without it |")
    out("|---|---|---|---|---|---|---|")
    full = Model(fit_costs(shards)).by_key[(rule, "")]
    for d in datasets:
        mine = [r for r in shards if r["dataset"] == d]
        n, reps = mine[0]["n"], sum(r["replicates"] for r in mine)
        measured = sum(r["cpu_s"] * r["replicates"] for r in mine)
        others = [r for r in shards if r["dataset"] != d]
        loo = None
        if len({r["n"] for r in others}) >= 2:
            loo = Model(fit_costs(others)).by_key[(rule, "")].cpu_s(n) * reps
        rows.append(dict(dataset=d, n=n, replicates=reps, measured=measured, all=full.cpu_s(n) * reps, loo=loo))
        err = "—" if loo is None else f"{loo / measured - 1:+.0%}"
        out(
            f"| {d} | {n} | {reps} | {measured:.0f} | {full.cpu_s(n) * reps:.0f} | "
            f"{'—' if loo is None else f'{loo:.0f}'} | {err} |"
        )
    return rows


def _tiny_standin(root: Path) -> Path:
    """Three twins' design and shard outputs and Snakemake benchmark files (two shards each), with
    a per-replicate CPU growing as ``n**0.8``: the script's whole path in a second."""
    header = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"
    for i, (d, n) in enumerate((("a", 200), ("b", 800), ("c", 3200))):
        twin = root / "results" / "v1" / "twins" / d
        (twin / "shards").mkdir(parents=True)
        (twin / "design.json").write_text(json.dumps({"n": n, "n_repetitions": 6}))
        per_rep = 0.01 * n**0.8
        for k in range(2):
            reps = list(range(k, 6, 2))
            for j, (rule, prefix) in enumerate(SHARD_RULES.items()):
                pd.DataFrame({"repetition": reps}).to_csv(twin / "shards" / f"{prefix}_{k}.csv", index=False)
                f = root / "logs" / "v1" / "benchmarks" / rule / f"{d}_{k}.tsv"
                f.parent.mkdir(parents=True, exist_ok=True)
                cpu = per_rep * len(reps) / (1 + j)
                f.write_text(header + f"1\t0:00:01\t{300 + n / 10:.1f}\t0\t0\t0\t0\t0\t90\t{cpu:.3f}\n")
        for j, rule in enumerate(RULES):
            f = root / "logs" / "v1" / "benchmarks" / rule / f"{d}.tsv"
            f.parent.mkdir(parents=True, exist_ok=True)
            f.write_text(header + f"1\t0:00:01\t250\t0\t0\t0\t0\t0\t90\t{(j + 1) * math.sqrt(n) / 10 + i:.3f}\n")
    return root


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], allow_abbrev=False)
    ap.add_argument("--workdir", type=Path, default=REPO, help="the checkout where `snakemake twins` ran")
    ap.add_argument("--version", default="v1", help="the study's version (config key version)")
    ap.add_argument("--out", type=Path, default=REPO / "benchmarks" / "cost_model_twins.tsv", help="table to write")
    ap.add_argument("--tiny", action="store_true", help="stand-in benchmark files of three twins")
    opts = ap.parse_args(argv)
    tmp = None
    if opts.tiny:
        tmp = tempfile.TemporaryDirectory(prefix="twins_cost_tiny_")
        opts.workdir = _tiny_standin(Path(tmp.name))
        opts.out = Path(tmp.name) / "cost_model_twins.tsv"
    records = audit_records(opts.workdir, opts.version)
    datasets = sorted({r["dataset"] for r in records})
    costs = fit_costs(records)
    write_model(
        opts.out,
        costs,
        header=[
            "Cost model of the twins audit's jobs (python -m benchmarks.twins_cost; docs/coverage.md, 'Cost').",
            f"Measured on the twins of {', '.join(datasets)} (n = {', '.join(str(r['n']) for r in records if r['rule'] == 'twin')}).",
            "twin_shard, twin_importance_shard: CPU per replicate (a shard's prediction is the fit times its replicates); other rules per job.",
            "cpu_s = cpu_a * n**cpu_b; peak rss_mb = rss_c_mb + rss_d_mb_per_row * n; measured: n:cpu_s:rss_mb.",
        ],
    )
    print(f"twins cost model: {len(costs)} job kinds fitted on {len(datasets)} twins -> {opts.out}")
    for c in costs:
        unit = "CPU-s per replicate" if c.rule in SHARD_RULES else "CPU-s per job"
        print(f"  {c.rule}: {c.cpu_a:.4g} * n**{c.cpu_b:.3f} {unit} (n = {c.n_min} .. {c.n_max})")
    total = sum(r["cpu_s"] * (r["replicates"] or 1) for r in records)
    print(f"measured: {len(records)} jobs, {total:.0f} CPU-s ({total / 3600:.2f} CPU-hours)")
    for rule in SHARD_RULES:
        print(f"\n{rule} per twin: measured and predicted (leave one twin out)\n")
        leave_one_out(records, rule=rule)
    if tmp is not None:
        tmp.cleanup()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
