"""Rule reliance_figures: MR bars with uncertainty, MR beside split gain, and marginal vs conditional vs
grouped MR (kinds: xaipipe.plots.catalog)."""

from xaipipe.io import read_csv
from xaipipe.plots import draw_figures, figure_style, save_figures
from xaipipe.runner import run
from xaipipe.studies import reliance_captions


def main(smk):
    inputs = {
        "table": read_csv(smk.input.reliance),
        "split_gain": read_csv(smk.input.split_gain),
        **smk.params.ranking,  # the MR ranking's estimator and quantity (schema: these two keys)
        "loss": smk.params.loss,
        "title": f"{smk.wildcards.dataset} / {smk.wildcards.family}",
    }
    # the MR SE interval's coverage on the dataset's twin, where `snakemake twins` has run
    inputs["coverage"] = reliance_captions(
        read_csv(smk.input.twins[0]) if len(smk.input.twins) else None,
        smk.wildcards.dataset,
        smk.wildcards.family,
        estimator=inputs["estimator"],
        loss=inputs["loss"],
        quantity=inputs["quantity"],
    )
    with figure_style(smk.input.style):
        save_figures("reliance_figures", draw_figures("reliance_figures", inputs), smk.output)


run(snakemake, main)  # noqa: F821
