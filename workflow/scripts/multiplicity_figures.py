"""Rule multiplicity_figures: the widest viable prediction ranges and multiplicity along the ε grid
(kinds: xaipipe.plots.catalog)."""

import pandas as pd

from xaipipe.plots import draw_figures, figure_style, save_figures
from xaipipe.runner import run


def main(smk):
    inputs = {
        "rows": pd.read_csv(smk.input.rows),
        "summary": pd.read_csv(smk.input.summary),
        "scope": smk.params.scope,
        "max_rows": smk.params.figure_rows,
        "title": f"{smk.wildcards.dataset}: predictive multiplicity of the Rashomon sets",
    }
    with figure_style(smk.input.style):
        save_figures("multiplicity_figures", draw_figures("multiplicity_figures", inputs), smk.output)


run(snakemake, main)  # noqa: F821
