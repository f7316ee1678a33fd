"""Rule correlation_figure: correlation heatmap of one dataset."""
import _src  # noqa: F401  (puts the package in src/ on sys.path)
import pandas as pd

from xaipipe.report.figures import plot_correlation
from xaipipe.report.style import figure_style, save_figure
from xaipipe.runner import run


def main(smk):
    corr = pd.read_csv(smk.input.correlation)
    with figure_style(smk.input.style):
        fig = plot_correlation(corr, title=f"{smk.wildcards.dataset}: correlation of the variables")
        save_figure(fig, smk.output.pdf, smk.output.png)


run(snakemake, main)  # noqa: F821
