"""Rule ebm_figures: an EBM's term plots (kinds: xaipipe.plots.catalog)."""

from xaipipe.io import read_csv
from xaipipe.plots import draw_figures, figure_style, save_figures
from xaipipe.runner import run
from xaipipe.studies import ebm_caption


def main(smk):
    inputs = {
        "terms": read_csv(smk.input.terms),
        "shapes": read_csv(smk.input.shapes, keep_default_na=False, na_values=[""]),
        "title": f"{smk.wildcards.dataset} / {smk.wildcards.family}: the EBM's terms",
        "target_unit": smk.params.get("target_unit"),
        # the bars' coverage on the dataset's twin, where `snakemake twins` has run (docs/coverage.md)
        "coverage": ebm_caption(
            read_csv(smk.input.twins[0]) if len(smk.input.twins) else None, smk.wildcards.dataset, smk.wildcards.family
        ),
    }
    with figure_style(smk.input.style):
        save_figures("ebm_figures", draw_figures("ebm_figures", inputs), smk.output)


run(snakemake, main)  # noqa: F821
