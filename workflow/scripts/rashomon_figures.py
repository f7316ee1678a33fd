"""Rules rashomon_figures / abalone_study_figures: member MR (Fig 4.1), rank heatmap (Fig 4.2),
MCR intervals, eps-sensitivity and the PD envelope of one model class."""

import pandas as pd

from xaipipe.plots.rashomon import rashomon_figures
from xaipipe.plots.style import figure_style, save_figure
from xaipipe.runner import run


def main(smk):
    tables = {
        name: pd.read_csv(smk.input[name], keep_default_na=False, na_values=[""]) for name in ("envelope", "curves")
    }
    with figure_style(smk.input.style):
        figs = rashomon_figures(
            pd.read_csv(smk.input.members),
            pd.read_csv(smk.input.mcr),
            tables["envelope"],
            tables["curves"],
            path=pd.read_csv(smk.input.path),
            scope=smk.params.scope,
            epsilon=smk.params.epsilon,
            quantity=smk.params.quantity,
        )
        for kind, fig in figs.items():
            save_figure(fig, smk.output[f"{kind}_pdf"], smk.output[f"{kind}_png"])


run(snakemake, main)  # noqa: F821
