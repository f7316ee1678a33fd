"""Rule learner_figures: learner-PD bands and learner-PFI bars."""

import pandas as pd

from xaipipe.plots.learner import learner_figures
from xaipipe.plots.style import figure_style, save_figure
from xaipipe.runner import run

OUTPUTS = {"learner_pd": "pd", "learner_pfi": "pfi"}


def main(smk):
    pd_table = pd.read_csv(smk.input.pd, keep_default_na=False, na_values=[""])
    with figure_style(smk.input.style):
        figs = learner_figures(
            pd_table, pd.read_csv(smk.input.pfi), title=f"{smk.wildcards.dataset} / {smk.wildcards.family}"
        )
        for kind, fig in figs.items():
            save_figure(fig, smk.output[f"{OUTPUTS[kind]}_pdf"], smk.output[f"{OUTPUTS[kind]}_png"])


run(snakemake, main)  # noqa: F821
