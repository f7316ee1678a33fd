"""Rule rid_figures: Rashomon importance distribution and bootstrap set sizes."""
import _src  # noqa: F401  (puts the package in src/ on sys.path)
import pandas as pd

from xaipipe.rashomon.plot_bootstrap import plot_rid, plot_set_sizes
from xaipipe.report.style import figure_style, save_figure
from xaipipe.runner import run


def main(smk):
    reliance = pd.read_csv(smk.input.reliance)
    mcr = pd.read_csv(smk.input.mcr)
    sizes = pd.read_csv(smk.input.sizes)
    name = smk.wildcards.dataset
    with figure_style(smk.input.style):
        save_figure(plot_rid(reliance, mcr, confidence=smk.params.confidence,
                             title=f"{name}: Rashomon importance distribution"),
                    smk.output.rid_pdf, smk.output.rid_png)
        save_figure(plot_set_sizes(sizes, title=f"{name}: Rashomon set size per bootstrap resample"),
                    smk.output.sizes_pdf, smk.output.sizes_png)


run(snakemake, main)  # noqa: F821
