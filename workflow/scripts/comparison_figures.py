"""Rules comparison_figures_*: seed 003 Figs 3.1-3.4 and the ROC / PR curves of one dataset."""

import pandas as pd

from xaipipe.io import read_json
from xaipipe.models.comparison import read_test_predictions
from xaipipe.plots.comparison import comparison_figures
from xaipipe.plots.style import figure_style, save_figure
from xaipipe.runner import run


def main(smk):
    predictions = read_test_predictions(dict(zip(smk.params.families, smk.input.predictions, strict=True)))
    with figure_style(smk.input.style):
        figs = comparison_figures(
            predictions,
            pd.read_csv(smk.input.pairs),
            pd.read_csv(smk.input.test_loss),
            n_bootstrap=smk.params.n_bootstrap,
            random_state=smk.params.seed,
            dataset=smk.wildcards.dataset,
            classes=read_json(smk.input.info).get("classes"),  # a multiclass dataset's labels (else None)
        )
        for kind, fig in figs.items():
            save_figure(fig, smk.output[f"{kind}_pdf"], smk.output[f"{kind}_png"])


run(snakemake, main)  # noqa: F821
