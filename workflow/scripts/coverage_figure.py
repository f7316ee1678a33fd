"""Rule coverage_figure: nominal against empirical coverage (learner intervals) and MCR coverage."""

import pandas as pd

from xaipipe.plots.coverage import plot_coverage
from xaipipe.plots.style import figure_style, save_figure
from xaipipe.runner import run


def main(smk):
    with figure_style(smk.input.style):
        fig = plot_coverage(pd.read_csv(smk.input.coverage), epsilon=smk.params.epsilon)
        save_figure(fig, smk.output.pdf, smk.output.png)


run(snakemake, main)  # noqa: F821
