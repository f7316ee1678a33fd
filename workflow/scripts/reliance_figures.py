"""Rule reliance_figures: MR bars with uncertainty and MR beside split gain."""

import pandas as pd

from xaipipe.plots.reliance import reliance_figures
from xaipipe.plots.style import figure_style, save_figure
from xaipipe.runner import run

OUTPUTS = {"model_reliance": "mr", "reliance_vs_split_gain": "gain"}


def main(smk):
    rank = smk.params.ranking
    with figure_style(smk.input.style):
        figs = reliance_figures(
            pd.read_csv(smk.input.reliance),
            pd.read_csv(smk.input.split_gain),
            estimator=rank["estimator"],
            loss=smk.params.loss,
            quantity=rank["quantity"],
            title=f"{smk.wildcards.dataset} / {smk.wildcards.family}",
        )
        for kind, fig in figs.items():
            save_figure(fig, smk.output[f"{OUTPUTS[kind]}_pdf"], smk.output[f"{OUTPUTS[kind]}_png"])


run(snakemake, main)  # noqa: F821
