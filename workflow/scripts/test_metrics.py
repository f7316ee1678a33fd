"""Rule test_metrics: all datasets' test metrics, best configurations, confusion matrices."""

from xaipipe.io import read_csv, write_csv
from xaipipe.report import test_metric_tables
from xaipipe.runner import run


def main(smk):
    table, best, confusion = test_metric_tables(read_csv(p) for p in smk.input.tables)
    write_csv(smk.output.table, table)
    write_csv(smk.output.best, best)
    write_csv(smk.output.confusion, confusion)


run(snakemake, main)  # noqa: F821
