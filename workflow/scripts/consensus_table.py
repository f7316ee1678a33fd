"""Rule consensus_table: every dataset's consensus counts at the default ε in one table."""

from xaipipe.io import read_csv, write_csv
from xaipipe.rashomon import default_summary
from xaipipe.runner import run


def main(smk):
    write_csv(smk.output.table, default_summary([read_csv(p) for p in smk.input.tables]))


run(snakemake, main)  # noqa: F821
