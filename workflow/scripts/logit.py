"""Rule logit: logistic-regression coefficient table (odds ratios) on the training split; a multiclass
target gets the multinomial table (relative risk ratios against the base class)."""

from xaipipe.data import load_prepared
from xaipipe.io import read_joblib, write_csv
from xaipipe.models import logit_inference, mnlogit_inference
from xaipipe.runner import run


def main(smk):
    data = load_prepared(smk.input.table, smk.input.info, smk.input.split)
    model = read_joblib(smk.input.model) if "model" in smk.input.keys() else None  # noqa: SIM118 (names)
    options = {"feature_groups": data.feature_groups, "penalized_model": model}
    if data.multiclass:  # baseline-category logits against the first class (statsmodels MNLogit)
        table = mnlogit_inference(data.X_train, data.y_train, data.features, classes=data.classes, **options)
    else:
        table = logit_inference(data.X_train, data.y_train, data.features, **options)
    table.insert(0, "dataset", data.dataset)
    write_csv(smk.output.table, table)


run(snakemake, main)  # noqa: F821
