"""Rule thesis_comparison: reproduced Tables 5.2 / 5.4 / 5.6 beside the published ones."""

import yaml

from xaipipe.io import read_csv, write_csv
from xaipipe.report import thesis_comparison
from xaipipe.runner import run


def main(smk):
    metrics = read_csv(smk.input.metrics)
    with open(smk.input.reference, encoding="utf-8") as fh:
        reference = yaml.safe_load(fh)
    write_csv(smk.output.table, thesis_comparison(metrics, reference))


run(snakemake, main)  # noqa: F821
