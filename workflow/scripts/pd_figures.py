"""Rule pd_figures: ICE + PD with decile rug, c-ICE, d-ICE and 2-D PD figures (kinds: xaipipe.plots.catalog)."""

from xaipipe.io import read_csv
from xaipipe.plots import draw_figures, figure_style, save_figures
from xaipipe.runner import run


def main(smk):
    inputs = {
        "curves": read_csv(smk.input.curves, keep_default_na=False, na_values=[""]),
        "pairs": read_csv(smk.input.pairs, keep_default_na=False, na_values=[""]),  # level names such as "NA" stay
        "figure_class": smk.params.get("figure_class"),
        "target_unit": smk.params.get("target_unit"),
        "output": smk.params.get("output"),  # the explained output (predict / proba / logit)
    }
    with figure_style(smk.input.style):
        save_figures("pd_figures", draw_figures("pd_figures", inputs), smk.output)


run(snakemake, main)  # noqa: F821
