"""Rule prediction_interval_figures: coverage and width of the Rashomon prediction intervals against ε
(kinds: xaipipe.plots.catalog)."""

from xaipipe.io import read_csv
from xaipipe.plots import draw_figures, figure_style, save_figures
from xaipipe.runner import run


def main(smk):
    inputs = {
        "intervals": read_csv(smk.input.intervals),
        "title": f"{smk.wildcards.dataset}: Rashomon prediction intervals (split conformal)",
        "target_unit": smk.params.get("target_unit"),
    }
    with figure_style(smk.input.style):
        save_figures("prediction_interval_figures", draw_figures("prediction_interval_figures", inputs), smk.output)


run(snakemake, main)  # noqa: F821
