"""Rule diff_versions: which numbers of the result tables changed between two versions."""

from pathlib import Path

from xaipipe.io import write_csv
from xaipipe.report import diff_versions
from xaipipe.runner import get_logger, run


def main(smk):
    other = Path(smk.input.other).parents[1]
    this = Path(smk.input.this).parents[1]
    details, summary = diff_versions(other, this, rtol=smk.params.rtol)
    get_logger().info("%s vs %s:\n%s", other, this, summary.to_string(index=False))
    write_csv(smk.output.details, details)
    write_csv(smk.output.summary, summary)


run(snakemake, main)  # noqa: F821
