"""Rule learner_figures: learner-PD / ALE bands and learner-PFI / SHAP bars (kinds: xaipipe.plots.catalog)."""

from xaipipe.io import read_csv
from xaipipe.plots import draw_figures, figure_style, save_figures
from xaipipe.runner import run
from xaipipe.studies import learner_captions


def main(smk):
    inputs = {
        "pd_table": read_csv(smk.input.pd, keep_default_na=False, na_values=[""]),
        "pfi": read_csv(smk.input.pfi),
        "shap": read_csv(smk.input.shap),
        "ale": read_csv(smk.input.ale, keep_default_na=False, na_values=[""]),
        "title": f"{smk.wildcards.dataset} / {smk.wildcards.family}",
        # the intervals' coverage on the dataset's twin, where `snakemake twins` has run (docs/coverage.md)
        "coverage": learner_captions(
            read_csv(smk.input.twins[0]) if len(smk.input.twins) else None, smk.wildcards.dataset, smk.wildcards.family
        ),
    }
    with figure_style(smk.input.style):
        save_figures("learner_figures", draw_figures("learner_figures", inputs), smk.output)


run(snakemake, main)  # noqa: F821
