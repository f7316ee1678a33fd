"""Rule twins_figure: coverage against nominal level on every twin (kind: xaipipe.plots.catalog)."""

from xaipipe.io import read_csv
from xaipipe.plots import draw_figures, figure_style, save_figures
from xaipipe.runner import run


def main(smk):
    with figure_style(smk.input.style):
        save_figures(
            "twins_figure", draw_figures("twins_figure", {"coverage": read_csv(smk.input.coverage)}), smk.output
        )


run(snakemake, main)  # noqa: F821
