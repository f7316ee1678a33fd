"""Rule regional_figures: each split variable's regional PD (kinds: xaipipe.plots.catalog)."""

from xaipipe.io import read_csv
from xaipipe.plots import draw_figures, figure_style, save_figures
from xaipipe.runner import run


def main(smk):
    inputs = {
        "regions": read_csv(smk.input.regions, keep_default_na=False, na_values=[""]),
        "curves": read_csv(smk.input.curves),
        "title": f"{smk.wildcards.dataset} / {smk.wildcards.family}: regional effects",
        "target_unit": smk.params.get("target_unit"),
    }
    with figure_style(smk.input.style):
        save_figures("regional_figures", draw_figures("regional_figures", inputs), smk.output)


run(snakemake, main)  # noqa: F821
