"""Rules rashomon_figures / abalone_study_figures: member MR (Fig 4.1), rank heatmap (Fig 4.2),
MCR intervals, eps-sensitivity and the PD envelope of one model class."""
import _src  # noqa: F401  (puts the package in src/ on sys.path)
import pandas as pd

from xaipipe.rashomon.plot_rashomon import (
    plot_epsilon_sensitivity,
    plot_mcr_intervals,
    plot_member_reliance,
    plot_pd_envelope,
    plot_rank_heatmap,
)
from xaipipe.report.style import figure_style, save_figure
from xaipipe.runner import run


def main(smk):
    members = pd.read_csv(smk.input.members)
    mcr = pd.read_csv(smk.input.mcr)
    envelope = pd.read_csv(smk.input.envelope, keep_default_na=False, na_values=[""])
    curves = pd.read_csv(smk.input.curves, keep_default_na=False, na_values=[""])
    scope = smk.params.scope if smk.params.scope in set(mcr["scope"]) else mcr["scope"].iloc[0]
    eps, q = smk.params.epsilon, smk.params.quantity
    estimator = "permutation" if "permutation" in set(mcr["estimator"]) else mcr["estimator"].iloc[0]
    name = str(mcr["dataset"].iloc[0])
    o = smk.output
    with figure_style(smk.input.style):
        kw = dict(scope=scope, epsilon=eps, estimator=estimator, quantity=q)
        save_figure(plot_member_reliance(members, title=f"{name}: MR of every model in R({eps:g}), {scope}", **kw),
                    o.member_reliance_pdf, o.member_reliance_png)
        save_figure(plot_rank_heatmap(members, title=f"{name}: MR ranks in R({eps:g}), {scope}", **kw),
                    o.rank_heatmap_pdf, o.rank_heatmap_png)
        save_figure(plot_mcr_intervals(mcr, title=f"{name}: MCR, {scope}, eps = {eps:g}", **kw),
                    o.mcr_intervals_pdf, o.mcr_intervals_png)
        save_figure(plot_epsilon_sensitivity(mcr, scope=scope, estimator=estimator, quantity=q,
                                             title=f"{name}: MCR as a function of eps, {scope}"),
                    o.epsilon_sensitivity_pdf, o.epsilon_sensitivity_png)
        envelopes = {f: part for f, part in envelope.groupby("feature", sort=False)}
        member_curves = {f: part for f, part in curves.groupby("feature", sort=False)}
        save_figure(plot_pd_envelope(envelopes, curves=member_curves,
                                     title=f"{name}: PD of the Rashomon set R({eps:g}), {scope}"),
                    o.pd_envelope_pdf, o.pd_envelope_png)


run(snakemake, main)  # noqa: F821
