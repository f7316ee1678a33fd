"""Rule profile: the slowest rules of one version from its benchmark files
(also a command: ``python -m xaipipe.report.profiling logs/v1/benchmarks results/v1/profile``)."""

from pathlib import Path

from xaipipe.io import write_csv
from xaipipe.report import profile_tables
from xaipipe.runner import run


def main(smk):
    p = smk.params
    jobs, totals, text = profile_tables(p.benchmarks, dict(p.patterns or {}), int(p.top))
    write_csv(smk.output.jobs, jobs)
    write_csv(smk.output.rules, totals)
    Path(smk.output.markdown).write_text(text, encoding="utf-8")


run(snakemake, main)  # noqa: F821
