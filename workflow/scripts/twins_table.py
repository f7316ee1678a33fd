"""Rule twins_table: every twin's coverage table in one (tables/coverage_twins.csv)."""

from xaipipe.io import read_csv, write_csv
from xaipipe.runner import run
from xaipipe.studies import combine_twin_coverage


def main(smk):
    write_csv(smk.output.table, combine_twin_coverage([read_csv(path) for path in smk.input.coverage]))


run(snakemake, main)  # noqa: F821
