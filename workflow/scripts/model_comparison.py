"""Rule model_comparison: paired bootstrap of one dataset's families' test losses, each family's test loss."""

from xaipipe.io import write_csv
from xaipipe.models import comparison_tables, read_test_predictions
from xaipipe.runner import run


def main(smk):
    predictions = read_test_predictions(dict(zip(smk.params.families, smk.input.predictions, strict=True)))
    pairs, test_loss = comparison_tables(
        predictions,
        dataset=smk.wildcards.dataset,
        n_bootstrap=smk.params.n_bootstrap,
        confidence=smk.params.confidence,
        random_state=smk.params.seed,
    )
    write_csv(smk.output.pairs, pairs)
    write_csv(smk.output.test_loss, test_loss)


run(snakemake, main)  # noqa: F821
