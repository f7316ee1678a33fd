"""Rule consensus_figures: the Hasse diagram of the consensus order (kinds: xaipipe.plots.catalog)."""

from xaipipe.io import read_csv
from xaipipe.plots import draw_figures, figure_style, save_figures
from xaipipe.runner import run


def main(smk):
    inputs = {
        "pairs": read_csv(smk.input.pairs),
        "summary": read_csv(smk.input.summary),
        "scope": smk.params.scope,
        "epsilon": smk.params.epsilon,
        "estimator": smk.params.estimator,
        "title": smk.wildcards.dataset,
    }
    with figure_style(smk.input.style):
        save_figures("consensus_figures", draw_figures("consensus_figures", inputs), smk.output)


run(snakemake, main)  # noqa: F821
