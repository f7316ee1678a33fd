"""Rule multiplicity_figures: the widest viable prediction ranges and multiplicity along the ε grid."""

import pandas as pd

from xaipipe.plots.multiplicity import plot_multiplicity
from xaipipe.plots.style import figure_style, save_figure
from xaipipe.runner import run


def main(smk):
    summary = pd.read_csv(smk.input.summary)
    rows = pd.read_csv(smk.input.rows)
    with figure_style(smk.input.style):
        fig = plot_multiplicity(
            rows,
            summary,
            scope=smk.params.scope,
            max_rows=smk.params.figure_rows,
            title=f"{smk.wildcards.dataset}: predictive multiplicity of the Rashomon sets",
        )
        save_figure(fig, smk.output.pdf, smk.output.png)


run(snakemake, main)  # noqa: F821
