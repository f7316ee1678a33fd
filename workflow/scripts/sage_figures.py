"""Rule sage_figures: SAGE bars beside MR's ranking (kinds: xaipipe.plots.catalog)."""

from xaipipe.io import read_csv
from xaipipe.plots import draw_figures, figure_style, save_figures
from xaipipe.runner import run


def main(smk):
    inputs = {
        "sage": read_csv(smk.input.sage),
        "reliance": read_csv(smk.input.reliance),
        **smk.params.ranking,  # the MR ranking's estimator and quantity (schema: these two keys)
        "title": f"{smk.wildcards.dataset} / {smk.wildcards.family}",
    }
    with figure_style(smk.input.style):
        save_figures("sage_figures", draw_figures("sage_figures", inputs), smk.output)


run(snakemake, main)  # noqa: F821
