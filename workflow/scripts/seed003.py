"""Rule seed003: seed 003 rerun in its own setting, its printed numbers beside ours, Figs 3.1-3.4."""

from xaipipe.io import write_csv
from xaipipe.plots import figure_style, save_figure
from xaipipe.runner import run
from xaipipe.studies import rerun_seed003, seed003_figures


def main(smk):
    rerun = rerun_seed003(n_bootstrap=smk.params.n_bootstrap)  # random_state=0: the seed's own seed = 0
    write_csv(smk.output.table, rerun.table)
    write_csv(smk.output.difference, rerun.difference_test)
    write_csv(smk.output.error, rerun.error_summary)
    write_csv(smk.output.squared, rerun.diabetes_squared)
    with figure_style(smk.input.style):
        for kind, fig in seed003_figures(rerun).items():
            save_figure(fig, smk.output[f"{kind}_pdf"], smk.output[f"{kind}_png"])


run(snakemake, main)  # noqa: F821
