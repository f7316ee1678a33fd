"""Profile a pipeline run from its Snakemake ``benchmark:`` files.

Every rule but ``profile`` writes a ``benchmark:`` TSV (``logs/<version>/benchmarks/<rule
dir>/<wildcards>.tsv``). Snakemake's columns (``snakemake/benchmark.py``):

``s`` (wall-clock seconds), ``h:m:s``, ``max_rss``, ``max_vms``, ``max_uss``,
``max_pss`` (MB, the maxima over the job's whole process tree, sampled every
few seconds; ``NA`` when the job ended before the first sample), ``io_in``,
``io_out`` (MB), ``mean_load`` (mean CPU percent, 100 = one core busy) and
``cpu_time`` (CPU seconds, user + system, of the process tree). A file holds one
row per ``repeat``. ``cpu_time`` and the memory maxima are sampled at intervals,
so they miss the end of a job: CPU is undercounted, badly for short jobs (a 40 s
``cv`` job run alone reported 15 s; ``/usr/bin/time`` measured 42 s). Rank by
``wall_s``; take a run's total CPU from ``/usr/bin/time -v snakemake ...``.

:func:`read_benchmarks` turns a folder of such files into one row per job,
naming the rule and its wildcards from the rules' benchmark patterns (the
``params`` the Snakemake rule passes) or, without them, from the path;
:func:`slowest_jobs` and :func:`rule_totals` rank them; :func:`markdown_table`
renders a table for ``docs/performance.md``; :func:`profile_tables` is the
``profile`` rule. From the command line (no Snakemake needed)::

    python -m xaipipe.report.profiling logs/v1/benchmarks results/v1/profile [--top 25]

writes ``slowest_rules.csv``, ``rule_totals.csv`` and ``slowest_rules.md`` there.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from ..config_files import refuse_config_option
from ..io import read_csv

__all__ = [
    "JOB_COLUMNS",
    "pattern_regex",
    "match_rule",
    "read_benchmark",
    "read_benchmarks",
    "slowest_jobs",
    "rule_totals",
    "markdown_table",
    "profile_tables",
]

#: Columns of a Snakemake benchmark TSV that the profile needs.
BENCHMARK_COLUMNS = ("s", "max_rss", "mean_load", "cpu_time")

#: Columns of :func:`read_benchmarks` / :func:`slowest_jobs`.
JOB_COLUMNS = ["rule", "wildcards", "wall_s", "cpu_s", "max_rss_mb", "mean_load", "share", "cumulative_share", "path"]

_WILDCARD = re.compile(r"\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:,\s*((?:[^{}]|\{[^{}]*\})*))?\}")


def pattern_regex(pattern: str) -> re.Pattern:
    """A compiled regex matching the paths of a Snakemake file pattern.

    ``{name}`` becomes a named group matching ``.+`` (Snakemake's default
    constraint), ``{name,regex}`` uses the given constraint; a wildcard repeated
    in the pattern must take the same value (back-reference). Everything else is
    literal.

    Raises
    ------
    ValueError
        A pattern without a literal part (``""``).
    """
    if not pattern:
        raise ValueError("empty benchmark pattern")
    out, pos, seen = [], 0, set()
    for m in _WILDCARD.finditer(pattern):
        out.append(re.escape(pattern[pos : m.start()]))
        name, constraint = m.group(1), m.group(2)
        if name in seen:
            out.append(f"(?P={name})")
        else:
            seen.add(name)
            out.append(f"(?P<{name}>{constraint or '.+'})")
        pos = m.end()
    out.append(re.escape(pattern[pos:]))
    return re.compile("".join(out) + r"\Z")


def match_rule(path: str, patterns: Mapping[str, str]) -> tuple[str, dict] | None:
    """The rule whose benchmark pattern matches ``path`` and its wildcard values.

    Parameters
    ----------
    path : str
        A benchmark file path, written as in the patterns (e.g. relative to the
        working directory: ``logs/v1/benchmarks/cv/airfoil/random_forest.tsv``).
    patterns : mapping rule name -> benchmark pattern
        E.g. ``{"cv": "logs/v1/benchmarks/cv/{dataset}/{family}.tsv"}``.

    Returns
    -------
    (rule, wildcards) or None
        The first match with the most literal characters (so
        ``abalone_study/mcr.tsv`` is not taken for a wildcard of another rule);
        None when no pattern matches.
    """
    best = None
    for rule, pattern in patterns.items():
        m = pattern_regex(str(pattern)).match(path)
        if m is None:
            continue
        literal = len(_WILDCARD.sub("", str(pattern)))
        if best is None or literal > best[0]:
            best = (literal, rule, m.groupdict())
    return None if best is None else (best[1], best[2])


def _number(value) -> float:
    try:
        out = float(value)
    except (TypeError, ValueError):
        return math.nan
    return out


def read_benchmark(path: str | os.PathLike) -> dict:
    """One benchmark TSV as a dict of floats (the mean over its ``repeat`` rows).

    Returns
    -------
    dict
        ``wall_s``, ``cpu_s``, ``max_rss_mb`` (the maximum over repeats),
        ``mean_load``, ``repeats``. ``NA`` fields are NaN.

    Raises
    ------
    ValueError
        A file without the column ``s`` or without data rows.
    """
    table = read_csv(path, sep="\t", na_values=["NA", "-", ""], keep_default_na=True)
    if "s" not in table.columns:
        raise ValueError(f"{path}: not a Snakemake benchmark file (no column 's'; got {list(table.columns)})")
    if table.empty:
        raise ValueError(f"{path}: benchmark file has no data rows")

    def col(name, how):
        if name not in table.columns:
            return math.nan
        values = pd.to_numeric(table[name], errors="coerce")
        if values.isna().all():
            return math.nan
        return float(getattr(values, how)())

    return {
        "wall_s": col("s", "mean"),
        "cpu_s": col("cpu_time", "mean"),
        "max_rss_mb": col("max_rss", "max"),
        "mean_load": col("mean_load", "mean"),
        "repeats": int(len(table)),
    }


def read_benchmarks(
    root: str | os.PathLike,
    patterns: Mapping[str, str] | None = None,
    *,
    relative_to: str | os.PathLike | None = None,
) -> pd.DataFrame:
    """Every ``*.tsv`` under ``root`` as one row per job.

    Parameters
    ----------
    root : path
        The benchmark folder of one version (``logs/<version>/benchmarks``).
    patterns : mapping rule -> benchmark pattern, optional
        Names each file's rule and wildcards (:func:`match_rule`). Files that
        match no pattern, and every file when ``patterns`` is None, are named
        from the path: ``rule`` = first folder under ``root``, ``wildcards`` =
        the rest without ``.tsv``.
    relative_to : path, optional
        Folder the patterns are relative to (default: the current directory).

    Returns
    -------
    DataFrame
        Columns :data:`JOB_COLUMNS` (``wildcards`` as ``name=value,...`` in
        pattern order), sorted by ``wall_s`` descending, ``share`` = the job's
        wall time over the sum of all jobs' wall times (not the run's elapsed
        time: parallel jobs overlap), ``cumulative_share`` its running sum.
        Empty (with those columns) when there is no file.

    Raises
    ------
    FileNotFoundError
        ``root`` does not exist.
    """
    root = Path(root)
    if not root.is_dir():
        raise FileNotFoundError(f"benchmark folder {root} does not exist")
    base = Path(relative_to) if relative_to is not None else Path.cwd()
    rows = []
    for path in sorted(root.rglob("*.tsv")):
        rec = read_benchmark(path)
        rel = path.relative_to(root)
        named = None
        if patterns:
            try:
                candidate = os.path.relpath(path, base)
            except ValueError:  # pragma: no cover - different drives on Windows
                candidate = str(path)
            named = match_rule(Path(candidate).as_posix(), patterns) or match_rule(path.as_posix(), patterns)
        if named is None:
            rule = rel.parts[0] if len(rel.parts) > 1 else rel.stem
            wildcards = Path(*rel.parts[1:]).with_suffix("").as_posix() if len(rel.parts) > 1 else ""
        else:
            rule = named[0]
            wildcards = ",".join(f"{k}={v}" for k, v in named[1].items())
        rows.append({"rule": rule, "wildcards": wildcards, **rec, "path": rel.as_posix()})
    frame = pd.DataFrame(
        rows, columns=["rule", "wildcards", "wall_s", "cpu_s", "max_rss_mb", "mean_load", "repeats", "path"]
    )
    return _with_shares(frame)[JOB_COLUMNS]


def _with_shares(frame: pd.DataFrame) -> pd.DataFrame:
    out = frame.sort_values(["wall_s", "rule", "wildcards"], ascending=[False, True, True], kind="stable")
    out = out.reset_index(drop=True)
    total = float(np.nansum(out["wall_s"].to_numpy(dtype=float))) if len(out) else 0.0
    share = out["wall_s"].to_numpy(dtype=float) / total if total > 0 else np.full(len(out), np.nan)
    out["share"] = share
    out["cumulative_share"] = np.nancumsum(share) if len(out) else share
    return out


def slowest_jobs(jobs: pd.DataFrame, top: int | None = 20) -> pd.DataFrame:
    """The ``top`` slowest jobs of :func:`read_benchmarks` (None: all).

    Raises
    ------
    ValueError
        ``top`` < 1.
    """
    if top is not None and int(top) < 1:
        raise ValueError(f"top must be >= 1 or None, got {top!r}")
    return jobs.head(len(jobs) if top is None else int(top)).reset_index(drop=True)


def rule_totals(jobs: pd.DataFrame) -> pd.DataFrame:
    """Per rule: ``jobs``, ``wall_s`` (sum), ``cpu_s`` (sum), ``max_wall_s``,
    ``max_rss_mb`` (maximum), ``share`` of all jobs' wall time; sorted by
    ``wall_s`` descending."""
    if jobs.empty:
        return pd.DataFrame(columns=["rule", "jobs", "wall_s", "cpu_s", "max_wall_s", "max_rss_mb", "share"])
    grouped = jobs.groupby("rule", sort=False)
    out = pd.DataFrame(
        {
            "jobs": grouped.size(),
            "wall_s": grouped["wall_s"].sum(min_count=1),
            "cpu_s": grouped["cpu_s"].sum(min_count=1),
            "max_wall_s": grouped["wall_s"].max(),
            "max_rss_mb": grouped["max_rss_mb"].max(),
        }
    ).reset_index()
    total = float(np.nansum(out["wall_s"].to_numpy(dtype=float)))
    out["share"] = out["wall_s"] / total if total > 0 else np.nan
    return out.sort_values(["wall_s", "rule"], ascending=[False, True], kind="stable").reset_index(drop=True)


def markdown_table(frame: pd.DataFrame, columns: Sequence[str] | None = None, *, digits: int = 1) -> str:
    """A GitHub-flavoured Markdown table (floats rounded to ``digits``; shares
    as percentages)."""
    cols = list(columns) if columns is not None else list(frame.columns)
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    for _, row in frame[cols].iterrows():
        cells = []
        for c in cols:
            v = row[c]
            if isinstance(v, (float, np.floating)):
                if math.isnan(v):
                    cells.append("")
                elif "share" in c:
                    cells.append(f"{100 * v:.{digits}f} %")
                else:
                    cells.append(f"{v:.{digits}f}")
            else:
                cells.append(str(v))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


JOB_VIEW = ["rule", "wildcards", "wall_s", "cpu_s", "max_rss_mb", "share"]
RULE_VIEW = ["rule", "jobs", "wall_s", "cpu_s", "max_wall_s", "max_rss_mb", "share"]


def profile_tables(benchmarks, patterns: Mapping[str, str] | None = None, top: int = 25):
    """The ``profile`` rule: (every job, per-rule totals, Markdown text) of one benchmark folder."""
    jobs = read_benchmarks(benchmarks, patterns)
    totals = rule_totals(jobs)
    text = (
        f"Slowest {min(top, len(jobs))} of {len(jobs)} jobs (sum of job wall times "
        f"{jobs['wall_s'].sum():.0f} s, CPU {jobs['cpu_s'].sum():.0f} s):\n\n"
        + markdown_table(slowest_jobs(jobs, top), JOB_VIEW)
        + "\nPer rule:\n\n"
        + markdown_table(totals, RULE_VIEW)
    )
    return jobs, totals, text


def main(argv=None) -> int:
    """``python -m xaipipe.report.profiling <benchmarks> <outdir> [--top N]``."""
    import argparse

    from ..io import write_csv

    parser = argparse.ArgumentParser(
        prog="python -m xaipipe.report.profiling",
        description="The slowest jobs and per-rule totals of a run's benchmark files.",
        allow_abbrev=False,
    )
    refuse_config_option(parser, "the profile reads a finished run's benchmark files, not its config")
    parser.add_argument("benchmarks", help="benchmark folder, e.g. logs/v1/benchmarks")
    parser.add_argument("outdir", help="output folder, e.g. results/v1/profile")
    parser.add_argument("--top", type=int, default=25, help="jobs in the Markdown table (default 25)")
    args = parser.parse_args(argv)
    jobs, totals, text = profile_tables(args.benchmarks, None, args.top)
    out = Path(args.outdir)
    out.mkdir(parents=True, exist_ok=True)
    write_csv(out / "slowest_rules.csv", jobs)
    write_csv(out / "rule_totals.csv", totals)
    (out / "slowest_rules.md").write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
