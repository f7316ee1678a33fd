"""Rules rashomon_figures / abalone_study_figures: member MR (Fig 4.1), rank heatmap (Fig 4.2),
MCR intervals, eps-sensitivity and the PD envelope of one model class (kinds: xaipipe.plots.catalog)."""

from xaipipe.io import read_csv
from xaipipe.plots import draw_figures, figure_style, save_figures
from xaipipe.runner import run


def main(smk):
    inputs = {
        "members": read_csv(smk.input.members),
        "mcr": read_csv(smk.input.mcr),
        **{name: read_csv(smk.input[name], keep_default_na=False, na_values=[""]) for name in ("envelope", "curves")},
        "path": read_csv(smk.input.path),
        "scope": smk.params.scope,
        "epsilon": smk.params.epsilon,
        "quantity": smk.params.quantity,
    }
    group = smk.rule  # rashomon_figures or abalone_study_figures
    with figure_style(smk.input.style):
        save_figures(group, draw_figures(group, inputs), smk.output)


run(snakemake, main)  # noqa: F821
