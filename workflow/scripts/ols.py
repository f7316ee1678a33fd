"""Rule ols: classical OLS inference table on the training split."""

from xaipipe.data import load_prepared
from xaipipe.io import write_csv
from xaipipe.models import ols_inference
from xaipipe.runner import run


def main(smk):
    data = load_prepared(smk.input.table, smk.input.info, smk.input.split)
    table = ols_inference(data.X_train, data.y_train, data.features, feature_groups=data.feature_groups)
    table.insert(0, "dataset", data.dataset)
    write_csv(smk.output.table, table)


run(snakemake, main)  # noqa: F821
