"""Rule pd_figures: ICE + PD with decile rug, c-ICE, d-ICE and 2-D PD figures."""
import _src  # noqa: F401  (puts the package in src/ on sys.path)
import pandas as pd

from xaipipe.explain.pdp import effect_from_table
from xaipipe.explain.plot_pdp import plot_centered_ice, plot_dice, plot_ice, plot_pd_2d
from xaipipe.report.style import figure_style, save_figure
from xaipipe.runner import run


def _placeholder(text):
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    ax.text(0.5, 0.5, text, ha="center")
    ax.set_axis_off()
    return fig


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
        # d-ICE: numeric variables only (a one-hot group, e.g. a categorical column of a user's
        # dataset among the top-k, has no derivative)
        numeric = [e for e in effects if e.d_ice is not None and e.d_ice_sd is not None]
        fig = plot_dice(numeric) if numeric else _placeholder("no d-ICE: no numeric variable among the top-k")
        save_figure(fig, out.d_ice_pdf, out.d_ice_png)
        if pairs.empty:  # fewer than two numeric top variables
            fig = _placeholder("no 2-D PD: fewer than two numeric variables among the top-k")
        else:
            fig = plot_pd_2d(pairs)
        save_figure(fig, out.pd_2d_pdf, out.pd_2d_png)


run(snakemake, main)  # noqa: F821
