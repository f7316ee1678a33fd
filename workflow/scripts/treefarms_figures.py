"""Rule treefarms_figures: MCR over the exact sparse-tree set beside the grid's decision_tree set
(kinds: xaipipe.plots.catalog)."""

from xaipipe.io import read_csv
from xaipipe.plots import draw_figures, figure_style, save_figures
from xaipipe.runner import run


def main(smk):
    inputs = {
        "summary": read_csv(smk.input.summary),
        "mcr": read_csv(smk.input.mcr),
        "epsilon": smk.params.epsilon,
        "title": f"{smk.wildcards.dataset}: the exact Rashomon set of sparse trees (TreeFARMS)",
    }
    with figure_style(smk.input.style):
        save_figures("treefarms_figures", draw_figures("treefarms_figures", inputs), smk.output)


run(snakemake, main)  # noqa: F821
