"""Rule pd_figures: ICE + PD with decile rug, c-ICE, d-ICE and 2-D PD figures."""
import _src  # noqa: F401  (puts the package in src/ on sys.path)
import pandas as pd

from xaipipe.explain.pdp import effect_from_table
from xaipipe.explain.plot_pdp import plot_centered_ice, plot_dice, plot_ice, plot_pd_2d
from xaipipe.report.style import figure_style, save_figure
from xaipipe.runner import run


def main(smk):
    curves = pd.read_csv(smk.input.curves, keep_default_na=False, na_values=[""])
    ranked = curves[curves["rank"] > 0]  # the top-k by MR (rank 0: only for thesis figures)
    order = ranked.drop_duplicates("feature").sort_values("rank")["feature"].tolist()
    effects = [effect_from_table(curves, name) for name in order]
    pairs = pd.read_csv(smk.input.pairs)
    out = smk.output
    with figure_style(smk.input.style):
        save_figure(plot_ice(effects), out.ice_pdf, out.ice_png)
        save_figure(plot_centered_ice(effects), out.c_ice_pdf, out.c_ice_png)
        save_figure(plot_dice(effects), out.d_ice_pdf, out.d_ice_png)
        if pairs.empty:  # fewer than two numeric top variables
            import matplotlib.pyplot as plt

            fig, ax = plt.subplots()
            ax.text(0.5, 0.5, "no 2-D PD: fewer than two numeric variables among the top-k", ha="center")
            ax.set_axis_off()
        else:
            fig = plot_pd_2d(pairs)
        save_figure(fig, out.pd_2d_pdf, out.pd_2d_png)


run(snakemake, main)  # noqa: F821
