"""Rule rid_figures: Rashomon importance distribution and bootstrap set sizes (kinds: xaipipe.plots.catalog)."""

from xaipipe.io import read_csv
from xaipipe.plots import draw_figures, figure_style, save_figures
from xaipipe.runner import run


def main(smk):
    inputs = {
        "reliance": read_csv(smk.input.reliance),
        "mcr": read_csv(smk.input.mcr),
        "sizes": read_csv(smk.input.sizes),
        "confidence": smk.params.confidence,
        "title": smk.wildcards.dataset,
    }
    with figure_style(smk.input.style):
        save_figures("rid_figures", draw_figures("rid_figures", inputs), smk.output)


run(snakemake, main)  # noqa: F821
