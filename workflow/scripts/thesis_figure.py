"""Rule thesis_figure: one thesis figure from stored results."""

from xaipipe.plots import figure_style, save_figure
from xaipipe.report import render_figure
from xaipipe.runner import run


def main(smk):
    sources = {k: v for k, v in smk.input.items() if k != "style"}
    with figure_style(smk.input.style):
        fig = render_figure(
            smk.params.entry,
            sources,
            epsilon=smk.params.epsilon,
            estimator=smk.params.ranking["estimator"],
            loss=smk.params.loss,
            quantity=smk.params.ranking["quantity"],
            target_unit=smk.params.get("target_unit"),
            output=smk.params.get("output"),
        )
        save_figure(fig, smk.output.pdf, smk.output.png)


run(snakemake, main)  # noqa: F821
