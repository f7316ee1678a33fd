"""Rule ranking_agreement: MR vs mean |SHAP| vs split gain rankings of every model of one dataset."""

import pandas as pd

from xaipipe.data import variable_groups
from xaipipe.explain import dependent_ranking_agreement, ranking_tables
from xaipipe.io import read_csv, read_json, write_csv
from xaipipe.runner import run


def main(smk):
    info = read_json(smk.input.info)
    reliance = [read_csv(p) for p in smk.input.reliance]
    importances, agreement = ranking_tables(
        reliance,
        [read_csv(p) for p in smk.input.split_gain],
        [read_csv(p) for p in smk.input.shap],
        dataset=info["dataset"],
        feature_groups=variable_groups(info.get("feature_groups"), info.get("user_groups")),  # one-hot and user
        estimator=smk.params.ranking["estimator"],
        loss=smk.params.loss,
        quantity=smk.params.ranking["quantity"],
    )
    # conditional and grouped MR (issue 35): their agreement rows after all the others
    extra = dependent_ranking_agreement(
        reliance, importances, loss=smk.params.loss, quantity=smk.params.ranking["quantity"]
    )
    if len(extra):
        agreement = pd.concat([agreement, extra], ignore_index=True)
    write_csv(smk.output.importances, importances)
    write_csv(smk.output.agreement, agreement)


run(snakemake, main)  # noqa: F821
