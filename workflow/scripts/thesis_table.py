"""Rule thesis_table: one thesis table (reproduced beside published) as LaTeX booktabs and CSV."""

import yaml

from xaipipe.io import atomic_path, write_csv
from xaipipe.report import render_table
from xaipipe.runner import run


def main(smk):
    with open(smk.input.reference, encoding="utf-8") as fh:
        reference = yaml.safe_load(fh)
    sources = {k: v for k, v in smk.input.items() if k != "reference"}
    table, tex = render_table(smk.params.entry, sources, reference, smk.wildcards.name)
    write_csv(smk.output.csv, table)
    with atomic_path(smk.output.tex) as tmp:
        tmp.write_text(tex, encoding="utf-8")


run(snakemake, main)  # noqa: F821
