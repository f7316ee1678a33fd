"""Rule dataset_test_metrics: one dataset's test metrics table."""

from xaipipe.io import read_json, write_csv
from xaipipe.report import test_metrics_table
from xaipipe.runner import run


def main(smk):
    table = test_metrics_table([read_json(p) for p in smk.input.metrics], [read_json(p) for p in smk.input.best])
    write_csv(smk.output.table, table)


run(snakemake, main)  # noqa: F821
