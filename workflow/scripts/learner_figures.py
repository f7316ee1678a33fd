"""Rule learner_figures: learner-PD bands and learner-PFI bars (kinds: xaipipe.plots.catalog)."""

import pandas as pd

from xaipipe.plots import draw_figures, figure_style, save_figures
from xaipipe.runner import run


def main(smk):
    inputs = {
        "pd_table": pd.read_csv(smk.input.pd, keep_default_na=False, na_values=[""]),
        "pfi": pd.read_csv(smk.input.pfi),
        "title": f"{smk.wildcards.dataset} / {smk.wildcards.family}",
    }
    with figure_style(smk.input.style):
        save_figures("learner_figures", draw_figures("learner_figures", inputs), smk.output)


run(snakemake, main)  # noqa: F821
