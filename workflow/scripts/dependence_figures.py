"""Rule dependence_figures: PD beside ALE, the second-order ALE, and Friedman's H² (total and pairs)."""

import pandas as pd

from xaipipe.plots.ale import ale_figures
from xaipipe.plots.interactions import h_statistic_figures
from xaipipe.plots.style import figure_style, save_figure
from xaipipe.runner import run


def main(smk):
    ale = pd.read_csv(smk.input.ale, keep_default_na=False, na_values=[""])
    ale_2d = pd.read_csv(smk.input.ale_2d)
    h = pd.read_csv(smk.input.h_statistic)
    title = f"{smk.wildcards.dataset} / {smk.wildcards.family}"
    if "class" in ale.columns and len(ale):  # multiclass: the tables hold explain.figure_class
        title += f" / class {ale['class'].iloc[0]}"
    with figure_style(smk.input.style):
        figs = ale_figures(ale, ale_2d, max_features=smk.params.figure_features, title=title)
        figs.update(h_statistic_figures(h, max_display=smk.params.max_display, title=title))
        for kind, fig in figs.items():
            save_figure(fig, smk.output[f"{kind}_pdf"], smk.output[f"{kind}_png"])


run(snakemake, main)  # noqa: F821
