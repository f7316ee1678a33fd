"""Rule correlation_figure: correlation heatmap of one dataset (kind: xaipipe.plots.catalog)."""

from xaipipe.io import read_csv
from xaipipe.plots import draw_figures, figure_style, save_figures
from xaipipe.runner import run


def main(smk):
    inputs = {
        "corr": read_csv(smk.input.correlation),
        "title": f"{smk.wildcards.dataset}: correlation of the variables",
    }
    with figure_style(smk.input.style):
        save_figures("correlation_figure", draw_figures("correlation_figure", inputs), smk.output)


run(snakemake, main)  # noqa: F821
