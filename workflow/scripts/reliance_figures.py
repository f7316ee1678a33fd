"""Rule reliance_figures: MR bars with uncertainty and MR beside split gain."""
import _src  # noqa: F401  (puts the package in src/ on sys.path)
import pandas as pd

from xaipipe.explain.plot_reliance import plot_model_reliance, plot_reliance_vs_split_gain
from xaipipe.report.style import figure_style, save_figure
from xaipipe.runner import run


def main(smk):
    rank = smk.params.ranking
    table = pd.read_csv(smk.input.reliance)
    part = table[(table["estimator"] == rank["estimator"]) & (table["loss"] == smk.params.loss)]
    gain = pd.read_csv(smk.input.split_gain)
    d, f = smk.wildcards.dataset, smk.wildcards.family
    with figure_style(smk.input.style):
        fig = plot_model_reliance(part, value=rank["quantity"], error="se",
                                  title=f"{d} / {f}: model reliance ({rank['estimator']}, {smk.params.loss})")
        save_figure(fig, smk.output.mr_pdf, smk.output.mr_png)
        fig = plot_reliance_vs_split_gain(part, gain, value=rank["quantity"], error="se",
                                          title=f"{d} / {f}: model reliance vs split gain")
        save_figure(fig, smk.output.gain_pdf, smk.output.gain_png)


run(snakemake, main)  # noqa: F821
