"""Rule reliance_figures: MR bars with uncertainty and MR beside split gain (kinds: xaipipe.plots.catalog)."""

import pandas as pd

from xaipipe.plots import draw_figures, figure_style, save_figures
from xaipipe.runner import run


def main(smk):
    rank = smk.params.ranking
    inputs = {
        "table": pd.read_csv(smk.input.reliance),
        "split_gain": pd.read_csv(smk.input.split_gain),
        "estimator": rank["estimator"],
        "loss": smk.params.loss,
        "quantity": rank["quantity"],
        "title": f"{smk.wildcards.dataset} / {smk.wildcards.family}",
    }
    with figure_style(smk.input.style):
        save_figures("reliance_figures", draw_figures("reliance_figures", inputs), smk.output)


run(snakemake, main)  # noqa: F821
