"""Rule squared_terms: OLS on the |t| >= 2 variables and their squares against OLS on all variables."""

from xaipipe.data import load_prepared
from xaipipe.io import write_csv
from xaipipe.models import squared_terms_comparison
from xaipipe.runner import run


def main(smk):
    data = load_prepared(smk.input.table, smk.input.info, smk.input.split)
    table = squared_terms_comparison(
        data.X_train,
        data.y_train,
        data.X_test,
        data.y_test,
        data.features,
        losses=("mse", "mae"),
        n_bootstrap=smk.params.n_bootstrap,
        confidence=smk.params.confidence,
        random_state=smk.params.seed,
        feature_groups=data.feature_groups,
    )
    table.insert(0, "dataset", data.dataset)
    write_csv(smk.output.table, table)


run(snakemake, main)  # noqa: F821
