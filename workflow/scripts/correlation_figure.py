"""Rule correlation_figure: correlation heatmap of one dataset."""

import pandas as pd

from xaipipe.plots.data import plot_correlation
from xaipipe.plots.style import figure_style, save_figure
from xaipipe.runner import run


def main(smk):
    corr = pd.read_csv(smk.input.correlation)
    with figure_style(smk.input.style):
        fig = plot_correlation(corr, title=f"{smk.wildcards.dataset}: correlation of the variables")
        save_figure(fig, smk.output.pdf, smk.output.png)


run(snakemake, main)  # noqa: F821
