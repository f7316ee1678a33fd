"""Rule shap_figures: bar, beeswarm, dependence and waterfall plots of one model's SHAP values."""

from xaipipe.io import read_joblib
from xaipipe.plots.shap import shap_figures
from xaipipe.plots.style import figure_style, save_figure
from xaipipe.runner import run


def main(smk):
    result = read_joblib(smk.input.result)
    title = f"{smk.wildcards.dataset} / {smk.wildcards.family}"
    with figure_style(smk.input.style):
        figs = shap_figures(result, top_k=smk.params.top_k, title=title, figure_class=smk.params.get("figure_class"))
        for kind, fig in figs.items():
            save_figure(fig, smk.output[f"{kind}_pdf"], smk.output[f"{kind}_png"])


run(snakemake, main)  # noqa: F821
