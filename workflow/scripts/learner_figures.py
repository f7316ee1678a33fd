"""Rule learner_figures: learner-PD bands and learner-PFI bars."""
import _src  # noqa: F401  (puts the package in src/ on sys.path)
import pandas as pd

from xaipipe.explain.plot_learner import plot_learner_pd, plot_learner_pfi
from xaipipe.report.style import figure_style, save_figure
from xaipipe.runner import run


def main(smk):
    title = f"{smk.wildcards.dataset} / {smk.wildcards.family}"
    pd_table = pd.read_csv(smk.input.pd, keep_default_na=False, na_values=[""])
    pfi = pd.read_csv(smk.input.pfi)
    with figure_style(smk.input.style):
        save_figure(plot_learner_pd(pd_table, title=f"{title}: learner-PD"), smk.output.pd_pdf, smk.output.pd_png)
        save_figure(plot_learner_pfi(pfi, title=f"{title}: learner-PFI"), smk.output.pfi_pdf, smk.output.pfi_png)


run(snakemake, main)  # noqa: F821
