"""Rule profile (or the command line): the slowest rules of one version from its benchmark files.

As a Snakemake script: ``params.benchmarks`` (folder), optional ``params.patterns``
(rule -> benchmark pattern) and ``params.top``; outputs ``jobs`` (every job, slowest
first), ``rules`` (per-rule totals) and optionally ``markdown``.

From the command line (no Snakemake needed)::

    python workflow/scripts/profile_table.py logs/v1/benchmarks results/v1/profile [--top 25]

writes ``slowest_rules.csv``, ``rule_totals.csv`` and ``slowest_rules.md`` there.
"""
import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _src  # noqa: F401,E402  (puts the package in src/ on sys.path)

from xaipipe.io import write_csv  # noqa: E402
from xaipipe.report.profiling import markdown_table, read_benchmarks, rule_totals, slowest_jobs  # noqa: E402

JOB_VIEW = ["rule", "wildcards", "wall_s", "cpu_s", "max_rss_mb", "share"]
RULE_VIEW = ["rule", "jobs", "wall_s", "cpu_s", "max_wall_s", "max_rss_mb", "share"]


def build(benchmarks, patterns=None, top=25):
    """(all jobs, per-rule totals, Markdown text) of one benchmark folder."""
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


def main(smk):
    p = smk.params
    jobs, totals, text = build(p.benchmarks, dict(getattr(p, "patterns", {}) or {}), int(getattr(p, "top", 25)))
    write_csv(smk.output.jobs, jobs)
    write_csv(smk.output.rules, totals)
    if hasattr(smk.output, "markdown"):
        Path(smk.output.markdown).write_text(text, encoding="utf-8")


def cli(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("benchmarks", help="benchmark folder, e.g. logs/v1/benchmarks")
    parser.add_argument("outdir", help="output folder, e.g. results/v1/profile")
    parser.add_argument("--top", type=int, default=25, help="jobs in the Markdown table (default 25)")
    args = parser.parse_args(argv)
    jobs, totals, text = build(args.benchmarks, None, args.top)
    out = Path(args.outdir)
    out.mkdir(parents=True, exist_ok=True)
    write_csv(out / "slowest_rules.csv", jobs)
    write_csv(out / "rule_totals.csv", totals)
    (out / "slowest_rules.md").write_text(text, encoding="utf-8")
    print(text)


if "snakemake" in globals():
    from xaipipe.runner import run

    run(snakemake, main)  # noqa: F821
elif __name__ == "__main__":
    cli()
