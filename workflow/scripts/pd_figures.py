"""Rule pd_figures: ICE + PD with decile rug, c-ICE, d-ICE and 2-D PD figures."""

import pandas as pd

from xaipipe.plots.pdp import pd_ice_figures
from xaipipe.plots.style import figure_style, save_figure
from xaipipe.runner import run


def main(smk):
    curves = pd.read_csv(smk.input.curves, keep_default_na=False, na_values=[""])
    pairs = pd.read_csv(smk.input.pairs, keep_default_na=False, na_values=[""])  # level names such as "NA" stay
    with figure_style(smk.input.style):
        for kind, fig in pd_ice_figures(curves, pairs, figure_class=smk.params.get("figure_class")).items():
            save_figure(fig, smk.output[f"{kind}_pdf"], smk.output[f"{kind}_png"])


run(snakemake, main)  # noqa: F821
