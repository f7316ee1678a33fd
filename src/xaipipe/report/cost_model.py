"""Expected CPU-hours, wall time and peak memory of a planned study, from a measured cost model.

The cost model (``benchmarks/cost_model.tsv``, written by ``python -m benchmarks.scale_study``)
holds, per job kind (a rule and its wildcards other than ``dataset``, e.g. ``cv`` with
``family=random_forest``), the fit of its measured CPU seconds and peak RSS against the dataset's
rows ``n`` (the default study of the ``simulated`` dataset, Friedman #1, p = 10, at several n):

* CPU: ``cpu_s = a * n**b`` (least squares of ``log cpu_s`` on ``log n``, :func:`fit_power`);
* peak RSS: ``rss_mb = c + d * n`` (least squares, ``d`` clipped at 0, :func:`fit_affine`):
  the interpreter and its imports are a constant, fitted models and data grow with the rows.
  A job kind that holds random forests (a forest family's jobs; ``rashomon``,
  ``rashomon_refit``, ``rashomon_bootstrap_shard``) has two memory regimes: whole forests below
  ``large_data.forest_block_rows`` training rows, one block of trees at a time above. Its RSS is
  then fitted on each side of the rows where the blocks start (``memory_regime_n`` of
  :func:`fit_costs`), so neither regime's points bend the other's line.

:func:`project` predicts every job of a dry run (``snakemake -n --forceall`` of the planned
configuration; :mod:`xaipipe.report.schedule`) from its dataset's rows and simulates the wall
time on a number of cores with the greedy list schedule of the critical-path script (each job
holding ``threads`` cores for ``cpu_s / threads`` seconds). A job kind the model has not measured
(another family, a classification rule) takes the mean of its rule's fits; a rule the model has
not measured at all is listed and counts 0. Numbers beyond the model's measured rows are
extrapolations, and the output says so.

Command (from the checkout that will run the study)::

    python -m xaipipe.report.cost_model --configfile config/config.yaml my_study.yaml \\
        [--rows my_table=100000] [--cores 8] [--memory-gb 24] [--model benchmarks/cost_model.tsv] \\
        [-- --config uci_mirror=../shared/data/uci]   # arguments after -- go to the dry run

The coverage audit's jobs (``snakemake twins``, docs/coverage.md) have a table of their own,
``benchmarks/cost_model_twins.tsv`` (``python -m benchmarks.twins_cost`` writes it from a finished
audit): ``twin``, ``twin_truth``, ``twin_coverage`` per job and ``twin_shard`` **per replicate**
(:data:`REPLICATE_RULES`), fitted against the twin's rows ``n`` over the measured twins; a shard's
prediction is that fit times the replicates it runs (``twins.n_repetitions``, ``twins.n_shards``,
:meth:`Policies.replicates`). It is read from beside ``--model`` (``--twins-model``), where it exists.

Rows come from ``--rows``, else the configuration: ``simulated`` sources' ``n``, ``file``
sources and UCI mirror copies read through the pipeline's own loader, else the rule's
``prepared.csv`` of an earlier run.
"""

from __future__ import annotations

import argparse
import csv
import math
import re
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from xaipipe.config.large_data import LargeDataSettings
from xaipipe.report.schedule import Job, critical_path, dependencies, list_schedule, parse_dry_run

#: The cost model shipped with the repository (``python -m benchmarks.scale_study`` writes it).
DEFAULT_MODEL = Path(__file__).resolve().parents[3] / "benchmarks" / "cost_model.tsv"
#: The coverage audit's cost model (``python -m benchmarks.twins_cost`` writes it).
DEFAULT_TWINS_MODEL = Path(__file__).resolve().parents[3] / "benchmarks" / "cost_model_twins.tsv"
#: Rules whose cost-model fit is per replicate (the twins audit's shards): a job's prediction is the
#: fit times the replicates it runs, its key drops the ``shard`` wildcard.
REPLICATE_RULES = ("twin_shard", "twin_importance_shard")

#: Columns of the cost-model table, in order.
COLUMNS = (
    "rule",
    "key",
    "threads",
    "n_min",
    "n_max",
    "n_points",
    "cpu_a",
    "cpu_b",
    "rss_c_mb",
    "rss_d_mb_per_row",
    "measured",
    "trees",
    "rss_from_n",
    "rss_c2_mb",
    "rss_d2_mb_per_row",
    "policy_from_n",
    "policy_cpu_a",
    "policy_cpu_b",
)

#: Columns a cost-model table may lack (written before they existed): every column from ``trees`` on,
#: each a float or empty (None).
OPTIONAL_COLUMNS = COLUMNS[COLUMNS.index("trees") :]

#: Rules whose work the large-data policies cut (:class:`Policies`).
POLICY_RULES = ("model_reliance", "pd_ice", "ale", "shap")

#: Rules whose jobs refit forest members (Rashomon sets): their memory follows the forest block path.
FOREST_MEMBER_RULES = ("rashomon", "rashomon_refit", "rashomon_bootstrap_shard")


def fit_power(n: Sequence[float], cost: Sequence[float]) -> tuple[float, float]:
    """``(a, b)`` of ``cost = a * n**b``: least squares of ``log cost`` on ``log n``.

    Parameters
    ----------
    n, cost : sequences of positive floats, the same length (at least 1)
        Sizes (rows) and costs (CPU seconds). A single point, or one size only, gives ``b = 0``
        (``a`` the geometric mean of the costs).

    Raises
    ------
    ValueError
        Empty input, unequal lengths, or a size or cost that is not positive.
    """
    x = np.asarray(n, dtype=float)
    y = np.asarray(cost, dtype=float)
    if x.shape != y.shape or x.ndim != 1 or x.size == 0:
        raise ValueError(f"fit_power needs two sequences of one equal, positive length, got {x.shape} and {y.shape}")
    if np.any(x <= 0) or np.any(y <= 0):
        raise ValueError("fit_power needs positive sizes and costs (it fits on their logarithms)")
    lx, ly = np.log(x), np.log(y)
    if np.ptp(lx) == 0:
        return float(np.exp(ly.mean())), 0.0
    b = float(np.sum((lx - lx.mean()) * (ly - ly.mean())) / np.sum((lx - lx.mean()) ** 2))
    return float(np.exp(ly.mean() - b * lx.mean())), b


def fit_affine(n: Sequence[float], value: Sequence[float]) -> tuple[float, float]:
    """``(c, d)`` of ``value = c + d * n`` (least squares), ``d`` clipped at 0 (then ``c`` the max).

    Peak RSS: a constant (interpreter, imports) plus what grows with the rows; a slope that
    comes out negative is measurement noise, and the largest value measured is kept.
    """
    x = np.asarray(n, dtype=float)
    y = np.asarray(value, dtype=float)
    if x.shape != y.shape or x.ndim != 1 or x.size == 0:
        raise ValueError(f"fit_affine needs two sequences of one equal, positive length, got {x.shape} and {y.shape}")
    if np.ptp(x) == 0:
        return float(y.max()), 0.0
    d = float(np.sum((x - x.mean()) * (y - y.mean())) / np.sum((x - x.mean()) ** 2))
    if d <= 0:
        return float(y.max()), 0.0
    return float(y.mean() - d * x.mean()), d


@dataclass
class Cost:
    """The fitted cost of one job kind (a row of the cost-model table)."""

    rule: str
    key: str
    threads: int
    n_min: int
    n_max: int
    n_points: int
    cpu_a: float
    cpu_b: float
    rss_c_mb: float
    rss_d_mb_per_row: float
    measured: str = ""
    trees: float | None = None
    #: second memory regime (forest blocks): from ``rss_from_n`` rows on, ``rss_c2_mb + rss_d2_mb_per_row * n``
    rss_from_n: float | None = None
    rss_c2_mb: float | None = None
    rss_d2_mb_per_row: float | None = None
    #: CPU measured with the large-data policies applied (from ``policy_from_n`` rows on):
    #: ``policy_cpu_a * n**policy_cpu_b`` (b = 1, a bound linear in the rows, from one point)
    policy_from_n: float | None = None
    policy_cpu_a: float | None = None
    policy_cpu_b: float | None = None

    def policy_cpu_s(self, n: float) -> float | None:
        """CPU seconds at ``n`` rows as measured with the policies applied; None where not measured."""
        if self.policy_from_n is None or float(n) < self.policy_from_n:
            return None
        return float(self.policy_cpu_a) * float(n) ** float(self.policy_cpu_b)

    def cpu_s(self, n: float) -> float:
        """Predicted CPU seconds at ``n`` rows."""
        return self.cpu_a * float(n) ** self.cpu_b

    def rss_mb(self, n: float) -> float:
        """Predicted peak RSS (MB) at ``n`` rows (the second regime's line from ``rss_from_n`` on)."""
        if self.rss_from_n is not None and float(n) >= self.rss_from_n:
            return float(self.rss_c2_mb) + float(self.rss_d2_mb_per_row) * float(n)
        return self.rss_c_mb + self.rss_d_mb_per_row * float(n)

    def extrapolated(self, n: float) -> bool:
        """Whether ``n`` lies outside the measured rows."""
        return not (self.n_min <= n <= self.n_max)


def holds_forests(rule: str, key: str) -> bool:
    """Whether a job kind holds random forests (a forest family's job, or a rule refitting forest
    members: :data:`FOREST_MEMBER_RULES`): its memory has the two regimes of the forest block path."""
    return rule in FOREST_MEMBER_RULES or _is_forest_kind(key)


def fit_costs(
    records: Sequence[Mapping], memory_regime_n: float | None = None, policy_n: float | None = None
) -> list[Cost]:
    """One :class:`Cost` per job kind from measured job records.

    Parameters
    ----------
    records : mappings with ``rule``, ``key``, ``threads``, ``n`` (rows), ``cpu_s`` and
        ``rss_mb`` (one per job and study size)
    memory_regime_n : float, optional
        Rows from which forests are fitted and read in blocks (``large_data.forest_block_rows /
        (1 - split.test_size)``: the refit's training rows reach the threshold). For the kinds of
        :func:`holds_forests` measured on both sides, the RSS below is fitted on the points below
        and ``rss_from_n``, ``rss_c2_mb``, ``rss_d2_mb_per_row`` on the points at or above: an
        affine fit where there are two or more, else the line through the smallest RSS of any
        job (the interpreter) and the one point, a bound linear in the rows. None: one fit.
    policy_n : float, optional
        Rows from which the large-data policies apply (``large_data.min_rows / split.test_size``).
        The records of the rules they cut (:data:`POLICY_RULES`) above it measure the cut work: they
        are left out of the CPU fit (whose projection :class:`Policies` cuts by its factor) and
        fitted on their own as ``policy_cpu_a * n**policy_cpu_b`` (b = 1 from one size), which a
        projection with the policies uses instead of the factor. None: every record in one fit.
    """
    groups: dict[tuple[str, str], list[Mapping]] = {}
    for r in records:
        groups.setdefault((r["rule"], r["key"]), []).append(r)
    floor = min((float(r["rss_mb"]) for r in records), default=0.0)
    out = []
    for (rule, key), rows in sorted(groups.items()):
        rows = sorted(rows, key=lambda r: r["n"])
        n = [float(r["n"]) for r in rows]
        rss = [float(r["rss_mb"]) for r in rows]
        cpu = [max(float(r["cpu_s"]), 1e-3) for r in rows]
        policy = None
        cut = len(n) if policy_n is None or rule not in POLICY_RULES else sum(x <= policy_n for x in n)
        if 0 < cut < len(n):  # n is sorted: the points above policy_n were measured with the policies
            pn, pc = n[cut:], cpu[cut:]
            pa, pb = fit_power(pn, pc) if len(set(pn)) >= 2 else (float(np.mean(pc)) / pn[0], 1.0)
            policy = (float(policy_n), pa, pb)
            a, b = fit_power(n[:cut], cpu[:cut])
        else:
            a, b = fit_power(n, cpu)
        regime = None
        split = None if memory_regime_n is None else sum(x < memory_regime_n for x in n)
        if split is not None and 0 < split < len(n) and holds_forests(rule, key):
            c, d = fit_affine(n[:split], rss[:split])
            if len(n) - split >= 2:
                c2, d2 = fit_affine(n[split:], rss[split:])
            else:
                d2 = max(rss[-1] - floor, 0.0) / n[-1]
                c2 = floor
            regime = (float(memory_regime_n), c2, d2)
        else:
            c, d = fit_affine(n, rss)
        measured = ";".join(f"{int(r['n'])}:{float(r['cpu_s']):.2f}:{float(r['rss_mb']):.0f}" for r in rows)
        with_trees = [r for r in rows if r.get("n_trees")]
        trees = float(with_trees[-1]["n_trees"]) if with_trees else None  # at the largest n that has it
        out.append(
            Cost(
                rule,
                key,
                int(rows[-1]["threads"]),
                int(min(n)),
                int(max(n)),
                len(rows),
                a,
                b,
                c,
                d,
                measured,
                trees,
                *(regime or (None, None, None)),
                *(policy or (None, None, None)),
            )
        )
    return out


def write_model(path: str | Path, costs: Sequence[Cost], header: Sequence[str] = ()) -> None:
    """Write the cost-model table (TSV; ``header`` lines first, as ``#`` comments)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as fh:
        for line in header:
            fh.write(f"# {line}\n")
        w = csv.writer(fh, delimiter="\t", lineterminator="\n")
        w.writerow(COLUMNS)
        for c in costs:
            w.writerow(
                [
                    c.rule,
                    c.key,
                    c.threads,
                    c.n_min,
                    c.n_max,
                    c.n_points,
                    f"{c.cpu_a:.6g}",
                    f"{c.cpu_b:.4f}",
                    f"{c.rss_c_mb:.1f}",
                    f"{c.rss_d_mb_per_row:.6g}",
                    c.measured,
                    "" if c.trees is None else f"{c.trees:g}",
                    "" if c.rss_from_n is None else f"{c.rss_from_n:g}",
                    "" if c.rss_c2_mb is None else f"{c.rss_c2_mb:.1f}",
                    "" if c.rss_d2_mb_per_row is None else f"{c.rss_d2_mb_per_row:.6g}",
                    "" if c.policy_from_n is None else f"{c.policy_from_n:g}",
                    "" if c.policy_cpu_a is None else f"{c.policy_cpu_a:.6g}",
                    "" if c.policy_cpu_b is None else f"{c.policy_cpu_b:.4f}",
                ]
            )


def read_model(path: str | Path) -> list[Cost]:
    """The cost-model table written by :func:`write_model`. Raises FileNotFoundError, ValueError."""
    path = Path(path)
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader((line for line in fh if not line.startswith("#")), delimiter="\t"))
    if not rows or set(COLUMNS) - set(OPTIONAL_COLUMNS) - set(rows[0]):
        raise ValueError(f"{path}: not a cost-model table (columns {', '.join(COLUMNS)})")
    return [
        Cost(
            r["rule"],
            r["key"] or "",
            int(r["threads"]),
            int(r["n_min"]),
            int(r["n_max"]),
            int(r["n_points"]),
            float(r["cpu_a"]),
            float(r["cpu_b"]),
            float(r["rss_c_mb"]),
            float(r["rss_d_mb_per_row"]),
            r.get("measured") or "",
            # absent in tables written before the column, empty where it does not apply
            *(float(r[k]) if r.get(k) else None for k in OPTIONAL_COLUMNS),
        )
        for r in rows
    ]


def job_key(wildcards: str | Mapping[str, str]) -> str:
    """The job kind's key: the wildcards other than ``dataset``, sorted (``"family=xgboost"``).

    ``wildcards`` as a dry run prints them (``"dataset=simulated, family=xgboost"``) or a mapping.
    """
    if isinstance(wildcards, str):
        pairs = [w.split("=", 1) for w in wildcards.split(", ") if "=" in w]
    else:
        pairs = [[str(k), str(v)] for k, v in wildcards.items()]
    return ", ".join(f"{k}={v}" for k, v in sorted(pairs) if k != "dataset")


def job_dataset(wildcards: str) -> str | None:
    """The ``dataset`` wildcard of a dry-run job (None if it has none)."""
    m = re.search(r"(?:^|, )dataset=([^,]+)", wildcards)
    return m.group(1) if m else None


@dataclass
class Model:
    """Costs by job kind, with each rule's mean fit for the kinds it has not measured."""

    costs: list[Cost]
    by_key: dict[tuple[str, str], Cost] = field(init=False)
    by_rule: dict[str, Cost] = field(init=False)

    def __post_init__(self):
        self.by_key = {(c.rule, c.key): c for c in self.costs}
        self.by_rule = {}
        for rule in sorted({c.rule for c in self.costs}):
            cs = [c for c in self.costs if c.rule == rule]
            self.by_rule[rule] = Cost(
                rule,
                "*",
                max(c.threads for c in cs),
                min(c.n_min for c in cs),
                max(c.n_max for c in cs),
                min(c.n_points for c in cs),
                float(np.exp(np.mean([math.log(c.cpu_a) for c in cs]))),
                float(np.mean([c.cpu_b for c in cs])),
                float(np.mean([c.rss_c_mb for c in cs])),
                float(np.mean([c.rss_d_mb_per_row for c in cs])),
            )

    def lookup(self, rule: str, key: str) -> tuple[Cost | None, str]:
        """``(cost, how)``: ``how`` is ``"job"`` (this kind measured), ``"rule"`` (the rule's mean
        fit) or ``"none"`` (rule not measured; cost None)."""
        if (rule, key) in self.by_key:
            return self.by_key[(rule, key)], "job"
        if rule in self.by_rule:
            return self.by_rule[rule], "rule"
        return None, "none"


@dataclass
class Projection:
    """What :func:`project` predicts for a job graph."""

    cpu_s: dict[int, float]
    rss_mb: dict[int, float]
    how: dict[int, str]
    extrapolated: set[int]
    wall_s: dict[int | None, float]
    critical_path_s: float
    peak_concurrent_mb: dict[int | None, float]

    @property
    def total_cpu_s(self) -> float:
        return float(sum(self.cpu_s.values()))


@dataclass(frozen=True)
class Policies:
    """The large-data policies as a projection applies them (``large_data``, docs/performance.md).

    Where a dataset's test split (``n * test_size`` rows) has more than ``large_data.min_rows`` rows,
    a job whose work the policies cut is predicted as its fitted cost at ``n`` times the share of the
    work that remains (:meth:`factor`): ``model_reliance`` ``reliance_rows / n_test`` (the repeats
    run on that many rows; the one pass of e_orig over every row is left out), ``pd_ice``
    ``pd_rows / n_test``, ``ale`` ``(2 + (K + 1) pd_rows / n_test) / (K + 3)`` (per row and variable
    the ALE's 2 predictions stay, the PD beside it makes ``K + 1``, ``K`` = ``explain.ale.n_bins``), ``shap`` of a forest ``shap_trees / trees`` (``trees``: the forest's trees
    where the model was measured, :attr:`Cost.trees`; its rows are already capped by
    ``explain.shap.max_rows_random_forest``) and of any other family ``shap_rows / n_test``. The
    fitted cost at ``n`` keeps the growth of the model itself (deeper trees, more leaves). Peak RSS
    is not reduced. A forest's ``shap`` job without a measured tree count keeps its full cost.
    """

    settings: Any
    test_size: float
    ale_bins: int = 20
    #: the twins audit's replicates R and shards (``twins.n_repetitions``, ``twins.n_shards``)
    twin_repetitions: int = 100
    twin_shards: int = 4

    @classmethod
    def from_config(cls, config: Mapping) -> Policies:
        """From a study configuration (``large_data``, ``split.test_size``, ``explain.ale.n_bins``,
        ``twins.n_repetitions``, ``twins.n_shards``)."""
        bins = int(config.get("explain", {}).get("ale", {}).get("n_bins", 20))
        twins = config.get("twins") or {}
        return cls(
            LargeDataSettings.from_config(config),
            float(config["split"]["test_size"]),
            bins,
            int(twins.get("n_repetitions", cls.twin_repetitions)),
            int(twins.get("n_shards", cls.twin_shards)),
        )

    def replicates(self, key: str) -> tuple[str, int]:
        """``(key without shard, replicates)`` of a :data:`REPLICATE_RULES` job: shard ``k`` of ``S``
        runs replicates ``k, k + S, ... < R``."""
        return shard_replicates(key, self.twin_repetitions, self.twin_shards)

    @property
    def from_rows(self) -> float:
        """Rows ``n`` above which the policies apply: ``min_rows / test_size`` (test rows over ``min_rows``)."""
        return self.settings.min_rows / self.test_size

    def factor(self, rule: str, cost: Cost, n: float) -> float:
        """Share of the job's fitted CPU that remains under the policies at ``n`` rows (1: none applies)."""
        s = self.settings
        n_test = float(n) * self.test_size
        if not s.applies(n_test):
            return 1.0
        if rule == "model_reliance" and s.reliance_rows:
            return min(1.0, s.reliance_rows / n_test)
        if rule == "pd_ice" and s.pd_rows:
            return min(1.0, s.pd_rows / n_test)
        if rule == "ale" and s.pd_rows:  # the PD beside the ALE: K + 1 of every K + 3 predictions per row
            k = self.ale_bins
            return (2.0 + (k + 1.0) * min(1.0, s.pd_rows / n_test)) / (k + 3.0)
        if rule == "shap":
            if _is_forest_kind(cost.key):
                return min(1.0, s.shap_trees / cost.trees) if s.shap_trees and cost.trees else 1.0
            if s.shap_rows:
                return min(1.0, s.shap_rows / n_test)
        return 1.0


def shard_replicates(
    key: str, repetitions: int = Policies.twin_repetitions, shards: int = Policies.twin_shards
) -> tuple[str, int]:
    """``(key without shard, replicates)`` of shard ``k`` (the key's ``shard=k``) of ``shards``:
    the replicates ``k, k + shards, ... < repetitions``."""
    m = re.search(r"(?:^|, )shard=(\d+)", key)
    k = int(m.group(1)) if m else 0
    rest = ", ".join(p for p in key.split(", ") if p and not p.startswith("shard="))
    return rest, len(range(k, repetitions, max(1, shards)))


def _is_forest_kind(key: str) -> bool:
    """Whether a job kind's ``family`` is a random forest / extra trees (the ``"forest"`` prefix kind)."""
    from xaipipe.models.families import FAMILIES

    m = re.search(r"(?:^|, )family=([^,]+)", key)
    family = FAMILIES.get(m.group(1)) if m else None
    return family is not None and getattr(family, "prefix", None) == "forest"


def _peak_concurrent(start: Mapping[int, float], length: Mapping[int, float], rss: Mapping[int, float]) -> float:
    """Largest sum of the peak RSS of the jobs running at one time in a schedule."""
    events = sorted(
        [(start[j], 1, j) for j in start] + [(start[j] + length[j], 0, j) for j in start]
    )  # ends (0) before starts (1) at equal times
    now = peak = 0.0
    for _, kind, j in events:
        now += rss[j] if kind else -rss[j]
        peak = max(peak, now)
    return peak


def project(
    jobs: Mapping[int, Job],
    rows: Mapping[str, float],
    model: Model,
    cores: Sequence[int | None] = (8, None),
    policies: Policies | None = None,
) -> Projection:
    """Predict every job's CPU and peak RSS and simulate the study's wall time.

    Parameters
    ----------
    jobs : jobid -> :class:`~xaipipe.report.schedule.Job` (a dry run's jobs, with their threads)
    rows : dataset -> rows ``n``; a job without a ``dataset`` wildcard (or of a dataset not
        listed) is predicted at the largest ``n`` given (study-wide jobs: tables, manifest)
    model : the cost model
    cores : the core counts to simulate (None: unbounded, the critical path)
    policies : the large-data policies (:class:`Policies`); None: every job at its fitted cost.
        A job kind measured with the policies applied (:attr:`Cost.policy_from_n`) takes that fit
        where they apply, not the factor.

    Returns
    -------
    Projection
        Per job CPU seconds, peak RSS (MB), how it was predicted; per core count the simulated
        wall seconds (greedy list schedule, :func:`~xaipipe.report.schedule.list_schedule`, each
        job lasting ``cpu_s / threads`` seconds) and the largest summed peak RSS of the jobs
        running at once; the critical path (seconds).
    """
    if not rows:
        raise ValueError("project needs the rows of at least one dataset")
    n_max = max(rows.values())
    cpu, rss, how, extra = {}, {}, {}, set()
    for j, job in jobs.items():
        n = rows.get(job_dataset(job.wildcards) or "", n_max)
        key, replicates = job_key(job.wildcards), None
        if job.rule in REPLICATE_RULES:  # fitted per replicate
            key, replicates = policies.replicates(key) if policies is not None else shard_replicates(key)
        cost, kind = model.lookup(job.rule, key)
        how[j] = kind
        if cost is None:
            cpu[j], rss[j] = 0.0, 0.0
            continue
        cpu[j], rss[j] = cost.cpu_s(n), cost.rss_mb(n)
        if replicates is not None:
            cpu[j] *= replicates
            how[j] = f"{kind}×{replicates} replicates"
        if policies is not None:
            measured = cost.policy_cpu_s(n)
            f = policies.factor(job.rule, cost, n)
            if measured is not None and policies.settings.applies(float(n) * policies.test_size):
                cpu[j] = measured  # measured with the policies applied: no factor
                how[j] = f"{kind}+policy(measured)"
            elif f < 1.0:
                cpu[j] *= f
                how[j] = f"{kind}+policy"
        if cost.extrapolated(n):
            extra.add(j)
    deps = dependencies(dict(jobs))
    threads = {j: max(1, job.threads) for j, job in jobs.items()}
    duration = {j: cpu[j] / threads[j] for j in jobs}
    wall, peak = {}, {}
    for k in cores:
        span, start = list_schedule(duration, threads, deps, k)
        need = {j: (threads[j] if k is None else min(threads[j], k)) for j in jobs}
        length = {j: duration[j] * threads[j] / need[j] for j in jobs}
        wall[k] = span
        peak[k] = _peak_concurrent(start, length, rss)
    cp, _ = critical_path(duration, deps)
    return Projection(cpu, rss, how, extra, wall, cp, peak)


# ----------------------------------------------------------------------------- rows of the datasets


def _deep_merge(base: dict, extra: Mapping) -> dict:
    for k, v in extra.items():
        if isinstance(v, Mapping) and isinstance(base.get(k), dict):
            _deep_merge(base[k], v)
        else:
            base[k] = v
    return base


def load_config(configfiles: Sequence[str | Path]) -> dict:
    """The configuration files merged as Snakemake merges ``--configfile`` (nested mappings key by key)."""
    import yaml

    cfg: dict = {}
    for path in configfiles:
        with open(path, encoding="utf-8") as fh:
            _deep_merge(cfg, yaml.safe_load(fh) or {})
    return cfg


def dataset_rows(config: Mapping, datasets: Sequence[str], registry_file: str | Path = "config/datasets.yaml") -> dict:
    """Rows of each dataset, as far as they can be known before a run.

    ``simulated`` sources: their ``n``; other sources: the canonical table read through the
    pipeline's loader (``file`` sources, the UCI mirror ``uci_mirror``), else the
    ``prepared.csv`` of an earlier run of the same ``version``. Datasets whose rows cannot be
    known are left out (give them with ``--rows``).
    """
    from xaipipe.data.registry import load_registry

    out: dict[str, float] = {}
    registry = load_registry(Path(registry_file), config.get("datasets", {}))
    for name in datasets:
        entry = registry.get(name)
        if entry is None:
            continue
        if entry.kind == "simulated" and "n" in entry.source:
            out[name] = float(entry.source["n"])
            continue
        try:
            out[name] = float(_canonical_rows(entry, config))
            continue
        except Exception:  # noqa: BLE001 - any failure: try the earlier run, then --rows
            pass
        prepared = Path("results") / str(config.get("version", "v1")) / "data" / name / "prepared.csv"
        if prepared.is_file():
            with open(prepared, encoding="utf-8") as fh:
                out[name] = float(sum(1 for _ in fh) - 1)
    return out


def _canonical_rows(entry, config: Mapping) -> int:
    """Rows of a dataset's canonical table (an upper bound of the prepared table's: a variant or
    ``missing: drop_rows`` can keep fewer), read without a download: ``file`` sources given by a
    path, ``sklearn`` sources, ``uci`` sources from the mirror. Raises LookupError otherwise."""
    from xaipipe.data.sources import load_canonical

    mirror = config.get("uci_mirror") or None
    local = (entry.kind == "file" and "path" in entry.source) or entry.kind == "sklearn"
    if local or (entry.kind == "uci" and mirror):
        frame, _ = load_canonical(entry, mirror=mirror)
        return len(frame)
    raise LookupError(f"{entry.dataset}: rows unknown before a run")


# ----------------------------------------------------------------------------- command


def _dry_run(snakemake_args: Sequence[str], cores: int) -> str:
    cmd = [sys.executable, "-m", "snakemake", "-n", "--forceall", "--cores", str(cores), *snakemake_args]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    return proc.stdout


def _fmt_h(seconds: float) -> str:
    return f"{seconds / 3600:.2f} h" if seconds >= 3600 else f"{seconds / 60:.1f} min"


def report(
    jobs: Mapping[int, Job],
    rows: Mapping[str, float],
    model: Model,
    cores: int = 8,
    memory_gb: float | None = None,
    out=print,
    policies: Policies | None = None,
) -> Projection:
    """Print the per-rule prediction, the totals and the verdict; return the projection."""
    proj = project(jobs, rows, model, cores=(cores, None), policies=policies)
    out("rows: " + ", ".join(f"{d}={int(n)}" for d, n in sorted(rows.items())))
    n_range = (min(c.n_min for c in model.costs), max(c.n_max for c in model.costs))
    out(f"cost model: {len(model.costs)} job kinds measured at n = {n_range[0]} .. {n_range[1]} rows (p = 10)")
    per_rule: dict[str, list[int]] = {}
    for j, job in jobs.items():
        per_rule.setdefault(job.rule, []).append(j)
    out("\n| rule | jobs | CPU-h | largest job CPU-s | peak RSS (MB) | predicted from |\n|---|---|---|---|---|---|")
    for rule, js in sorted(per_rule.items(), key=lambda kv: -sum(proj.cpu_s[j] for j in kv[1])):
        kinds = sorted({proj.how[j] for j in js})
        src = "/".join(kinds) + (" (extrapolated)" if any(j in proj.extrapolated for j in js) else "")
        out(
            f"| {rule} | {len(js)} | {sum(proj.cpu_s[j] for j in js) / 3600:.3f} | "
            f"{max(proj.cpu_s[j] for j in js):.0f} | {max(proj.rss_mb[j] for j in js):.0f} | {src} |"
        )
    unmodelled = sorted({jobs[j].rule for j, h in proj.how.items() if h == "none"})
    count = {k: sum(1 for h in proj.how.values() if h.split("+")[0] == k) for k in ("job", "rule", "none")}
    cut = sorted({jobs[j].rule for j, h in proj.how.items() if h.endswith("+policy")})
    out(
        f"\njobs: {len(jobs)}; predicted by their own kind {count['job']}, by their rule's mean fit "
        f"{count['rule']}, not modelled (0 s) {count['none']}" + (f": {', '.join(unmodelled)}" if unmodelled else "")
    )
    if cut:
        out(f"large-data policies (large_data) cut the predicted CPU of: {', '.join(cut)}")
    if proj.extrapolated:
        out(f"extrapolated: {len(proj.extrapolated)} jobs lie outside the measured rows {n_range[0]} .. {n_range[1]}")
    peak_job = max(proj.rss_mb.values(), default=0.0)
    out(f"expected CPU: {proj.total_cpu_s / 3600:.2f} CPU-hours")
    out(f"expected wall on {cores} cores: {_fmt_h(proj.wall_s[cores])} (critical path {_fmt_h(proj.critical_path_s)})")
    out(
        f"expected peak memory: {peak_job / 1024:.1f} GB in one job; "
        f"{proj.peak_concurrent_mb[cores] / 1024:.1f} GB of jobs running at once on {cores} cores"
    )
    if memory_gb is not None:
        fits = proj.peak_concurrent_mb[cores] / 1024 <= memory_gb
        out(
            f"verdict: {'fits' if fits else 'does NOT fit'} in {memory_gb:g} GB on {cores} cores"
            + ("" if fits else " (fewer --cores, or a cluster: docs/cluster.md)")
        )
    return proj


def _config_overrides(args: Sequence[str]) -> dict:
    """The ``key=value`` pairs after ``--config`` among the dry run's arguments (e.g. ``uci_mirror``)."""
    out, inside = {}, False
    for arg in args:
        if arg.startswith("-"):
            inside = arg == "--config"
        elif inside and "=" in arg:
            key, _, value = arg.partition("=")
            out[key] = value
    return out


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    extra = argv[argv.index("--") + 1 :] if "--" in argv else []
    argv = argv[: argv.index("--")] if "--" in argv else argv
    ap = argparse.ArgumentParser(
        prog="python -m xaipipe.report.cost_model",
        description="Expected CPU-hours, wall time and peak memory of the planned study (arguments after -- go to the dry run).",
        allow_abbrev=False,
    )
    ap.add_argument("--configfile", nargs="+", default=["config/config.yaml"], help="the study's configuration files")
    ap.add_argument(
        "--config",
        nargs="+",
        default=[],
        metavar="KEY=VALUE",
        help="config overrides, as Snakemake's --config (given to the dry run; values are strings, as there)",
    )
    ap.add_argument(
        "--rows", nargs="*", default=[], metavar="DATASET=N", help="rows of datasets not known before a run"
    )
    ap.add_argument("--cores", type=int, default=8, help="cores to simulate (default 8)")
    ap.add_argument("--memory-gb", type=float, default=None, help="memory of the machine, for the verdict")
    ap.add_argument("--model", type=Path, default=DEFAULT_MODEL, help=f"cost-model table (default {DEFAULT_MODEL})")
    ap.add_argument(
        "--twins-model",
        type=Path,
        default=None,
        help="the twins audit's cost-model table (default: cost_model_twins.tsv beside --model; read where it exists)",
    )
    opts = ap.parse_args(argv)
    bad = [item for item in opts.config if "=" not in item]
    if bad:
        ap.error(f"--config {bad[0]!r}: give KEY=VALUE, as Snakemake's --config")
    if opts.config:
        extra = [*extra, "--config", *opts.config]
    if not opts.model.is_file():
        ap.error(f"{opts.model}: no cost-model table (python -m benchmarks.scale_study writes it)")
    costs = read_model(opts.model)
    twins_model = opts.twins_model or opts.model.parent / DEFAULT_TWINS_MODEL.name
    if twins_model.is_file():
        costs += read_model(twins_model)
    model = Model(costs)
    jobs = parse_dry_run(_dry_run([*extra, "--configfile", *opts.configfile], opts.cores))
    if not jobs:
        ap.error("the dry run listed no job")
    datasets = sorted({d for d in (job_dataset(j.wildcards) for j in jobs.values()) if d})
    given = {}
    for item in opts.rows:
        name, _, value = item.partition("=")
        if not value.strip().isdigit():
            ap.error(f"--rows {item!r}: give DATASET=N with N a whole number of rows")
        given[name] = float(value)
    config = load_config(opts.configfile)
    config.update(_config_overrides(extra))
    rows = {**dataset_rows(config, [d for d in datasets if d not in given]), **given}
    missing = [d for d in datasets if d not in rows]
    if missing:
        ap.error(f"rows unknown for {', '.join(missing)}: give them with --rows {missing[0]}=N")
    policies = Policies.from_config(config)
    report(
        jobs,
        {d: rows[d] for d in datasets} or rows,
        model,
        cores=opts.cores,
        memory_gb=opts.memory_gb,
        policies=policies,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
