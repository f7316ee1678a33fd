"""Rule shap_figures: bar, beeswarm, dependence and waterfall plots of one model's SHAP values."""

from xaipipe.io import read_joblib
from xaipipe.plots.shap import shap_figures
from xaipipe.plots.style import figure_style, save_figure
from xaipipe.runner import run


def main(smk):
    result = read_joblib(smk.input.result)
    title = f"{smk.wildcards.dataset} / {smk.wildcards.family}"
    with figure_style(smk.input.style):
        for kind, fig in shap_figures(result, top_k=smk.params.top_k, title=title).items():
            save_figure(fig, smk.output[f"{kind}_pdf"], smk.output[f"{kind}_png"])


run(snakemake, main)  # noqa: F821
