"""Rule shap_figures: bar, beeswarm, dependence and waterfall plots of one model's SHAP values, and the
main effect vs interaction of its strongest SHAP pair (kinds: xaipipe.plots.catalog)."""

from xaipipe.io import read_joblib
from xaipipe.plots import draw_figures, figure_style, save_figures
from xaipipe.runner import run


def main(smk):
    inputs = {
        "result": read_joblib(smk.input.result),
        "top_k": smk.params.top_k,
        "title": f"{smk.wildcards.dataset} / {smk.wildcards.family}",
        "figure_class": smk.params.get("figure_class"),
        "target_unit": smk.params.get("target_unit"),
    }
    with figure_style(smk.input.style):
        save_figures("shap_figures", draw_figures("shap_figures", inputs), smk.output)


run(snakemake, main)  # noqa: F821
