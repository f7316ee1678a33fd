"""Rule sage_figures: SAGE bars beside MR's ranking (kinds: xaipipe.plots.catalog)."""

from xaipipe.io import read_csv
from xaipipe.plots import draw_figures, figure_style, save_figures
from xaipipe.runner import run
from xaipipe.studies import importance_captions


def main(smk):
    inputs = {
        "sage": read_csv(smk.input.sage),
        "reliance": read_csv(smk.input.reliance),
        **smk.params.ranking,  # the MR ranking's estimator and quantity (schema: these two keys)
        "title": f"{smk.wildcards.dataset} / {smk.wildcards.family}",
        # the SE's coverage on the dataset's twin, where `snakemake twins` has run (docs/coverage.md)
        "coverage": importance_captions(
            read_csv(smk.input.twins[0]) if len(smk.input.twins) else None, smk.wildcards.dataset, smk.wildcards.family
        ),
    }
    with figure_style(smk.input.style):
        save_figures("sage_figures", draw_figures("sage_figures", inputs), smk.output)


run(snakemake, main)  # noqa: F821
