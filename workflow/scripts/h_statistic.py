"""Rule h_statistic: Friedman's H² of every variable and of the pairs of the top-k variables by MR."""

import pandas as pd

from xaipipe.data.prepare import load_prepared
from xaipipe.explain.dependence import h_statistic_table
from xaipipe.explain.shapley import class_choice
from xaipipe.explain.summary import top_features
from xaipipe.io import open_model, with_ids, write_csv
from xaipipe.runner import run


def main(smk):
    cfg, rank = smk.params.interactions, smk.params.ranking
    data = load_prepared(smk.input.table, smk.input.info, smk.input.split)
    top = top_features(
        pd.read_csv(smk.input.reliance),
        cfg["top_k"],
        estimator=rank["estimator"],
        loss=smk.params.loss,
        quantity=rank["quantity"],
    )
    choice = class_choice(data.classes, smk.params.figure_class)  # multiclass: explain.figure_class
    table = h_statistic_table(
        open_model(smk.input.model),  # a forest store: one block of trees at a time
        data.X_test,
        feature_names=data.features,
        feature_groups=data.feature_groups,
        top=top,
        output=smk.params.output,
        **choice,
        n_rows=smk.params.n_rows,
        n_bootstrap=cfg["n_bootstrap"],
        random_state=smk.params.seed,
        max_batch_rows=smk.params.max_batch_rows,
    )
    if data.multiclass:  # the explained class, first column
        table.insert(0, "class", str(data.classes[choice["class_index"]]))
    write_csv(smk.output.table, with_ids(table, dataset=data.dataset, model=smk.wildcards.family))


run(snakemake, main)  # noqa: F821
