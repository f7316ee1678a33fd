"""Concatenate per-dataset CSV tables into one."""

import pandas as pd

from xaipipe.io import read_csv, write_csv
from xaipipe.runner import run


def main(smk):
    write_csv(smk.output.table, pd.concat([read_csv(p) for p in smk.input.tables], ignore_index=True))


run(snakemake, main)  # noqa: F821
