"""Rule coverage_figure: nominal against empirical coverage (learner intervals) and MCR coverage
(kind: xaipipe.plots.catalog)."""

from xaipipe.io import read_csv
from xaipipe.plots import draw_figures, figure_style, save_figures
from xaipipe.runner import run


def main(smk):
    inputs = {"coverage": read_csv(smk.input.coverage), "epsilon": smk.params.epsilon}
    with figure_style(smk.input.style):
        save_figures("coverage_figure", draw_figures("coverage_figure", inputs), smk.output)


run(snakemake, main)  # noqa: F821
