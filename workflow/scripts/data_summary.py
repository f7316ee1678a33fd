"""Rule data_summary: rows read / dropped / used, missing values and imputed cells of every dataset."""

from xaipipe.data import data_summary_table
from xaipipe.io import read_json, write_csv
from xaipipe.runner import run


def main(smk):
    table = data_summary_table(
        [read_json(p) for p in smk.input.infos],
        [read_json(p) for p in smk.input.sidecars],
        [read_json(p) for p in smk.input.checks],
    )
    write_csv(smk.output.table, table)


run(snakemake, main)  # noqa: F821
