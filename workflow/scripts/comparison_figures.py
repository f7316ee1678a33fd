"""Rules comparison_figures_*: seed 003 Figs 3.1-3.4 and the ROC / PR curves of one dataset
(kinds per task: xaipipe.plots.catalog)."""

from xaipipe.io import read_csv, read_json
from xaipipe.models import read_test_predictions
from xaipipe.plots import draw_figures, figure_style, save_figures
from xaipipe.runner import run


def main(smk):
    inputs = {
        "predictions": read_test_predictions(dict(zip(smk.params.families, smk.input.predictions, strict=True))),
        "pairs": read_csv(smk.input.pairs),
        "test_loss": read_csv(smk.input.test_loss),
        "n_bootstrap": smk.params.n_bootstrap,
        "random_state": smk.params.seed,
        "dataset": smk.wildcards.dataset,
        "classes": read_json(smk.input.info).get("classes"),  # a multiclass dataset's labels (else None)
    }
    task = smk.rule.removeprefix("comparison_figures_")  # classification or regression
    with figure_style(smk.input.style):
        save_figures("comparison_figures", draw_figures("comparison_figures", inputs, task=task), smk.output)


run(snakemake, main)  # noqa: F821
