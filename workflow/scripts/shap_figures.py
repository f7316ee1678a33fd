"""Rule shap_figures: bar, beeswarm, dependence and waterfall plots of one model's SHAP values."""
import _src  # noqa: F401  (puts the package in src/ on sys.path)
from xaipipe.explain.plot_shap import (
    plot_shap_bar,
    plot_shap_beeswarm,
    plot_shap_dependence,
    plot_shap_local,
)
from xaipipe.explain.shapley import global_importance
from xaipipe.io import read_joblib
from xaipipe.report.style import figure_style, save_figure
from xaipipe.runner import run


def main(smk):
    result = read_joblib(smk.input.result)
    out = smk.output
    title = f"{smk.wildcards.dataset} / {smk.wildcards.family}"
    top = global_importance(result).sort_values("rank")["feature"].head(smk.params.top_k).tolist()
    with figure_style(smk.input.style):
        save_figure(plot_shap_bar(result, title=f"{title}: mean |SHAP|"), out.bar_pdf, out.bar_png)
        save_figure(plot_shap_beeswarm(result, title=f"{title}: SHAP values"), out.beeswarm_pdf, out.beeswarm_png)
        save_figure(plot_shap_dependence(result, top, title=f"{title}: SHAP dependence"),
                    out.dependence_pdf, out.dependence_png)
        local = plot_shap_local(result)
        for kind in ("high", "low", "near_base"):
            save_figure(local[kind], out[f"waterfall_{kind}_pdf"], out[f"waterfall_{kind}_png"])


run(snakemake, main)  # noqa: F821
