"""Rule rid_figures: Rashomon importance distribution and bootstrap set sizes."""

import pandas as pd

from xaipipe.plots.bootstrap import rid_figures
from xaipipe.plots.style import figure_style, save_figure
from xaipipe.runner import run

OUTPUTS = {"rid": "rid", "set_sizes": "sizes"}


def main(smk):
    with figure_style(smk.input.style):
        figs = rid_figures(
            pd.read_csv(smk.input.reliance),
            pd.read_csv(smk.input.mcr),
            pd.read_csv(smk.input.sizes),
            confidence=smk.params.confidence,
            title=smk.wildcards.dataset,
        )
        for kind, fig in figs.items():
            save_figure(fig, smk.output[f"{OUTPUTS[kind]}_pdf"], smk.output[f"{OUTPUTS[kind]}_png"])


run(snakemake, main)  # noqa: F821
