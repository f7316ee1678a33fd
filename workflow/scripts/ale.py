"""Rule ale: ALE of every variable beside its PD on the same grid, and the second-order ALE of the 2-D PD's pair."""

import pandas as pd

from xaipipe.data.prepare import load_prepared
from xaipipe.explain.dependence import ale_tables
from xaipipe.explain.shapley import class_choice
from xaipipe.explain.summary import top_features
from xaipipe.io import open_model, with_ids, write_csv
from xaipipe.runner import get_logger, run
from xaipipe.settings import LargeDataSettings


def main(smk):
    cfg, rank = smk.params.ale, smk.params.ranking
    data = load_prepared(smk.input.table, smk.input.info, smk.input.split)
    reliance = pd.read_csv(smk.input.reliance)
    ranking = top_features(
        reliance, len(reliance), estimator=rank["estimator"], loss=smk.params.loss, quantity=rank["quantity"]
    )
    pairs = pd.read_csv(smk.input.pairs)
    pair = tuple(pairs[["feature_1", "feature_2"]].iloc[0]) if len(pairs) else None
    choice = class_choice(data.classes, smk.params.figure_class)  # multiclass: explain.figure_class
    ale, ale_2d, skipped = ale_tables(
        open_model(smk.input.model),  # a forest store: one block of trees at a time
        data.X_test,
        feature_names=data.features,
        feature_groups=data.feature_groups,
        ranking=ranking,
        pair=pair,
        output=smk.params.output,
        **choice,
        n_bins=cfg["n_bins"],
        pair_bins=cfg["pair_bins"],
        centering=cfg["centering"],
        max_batch_rows=smk.params.max_batch_rows,
        # large-data policy (large_data.pd_rows): the PD column on a subsample; None at or below min_rows
        large_data_rows=LargeDataSettings.from_params(smk.params.large_data).rows("pd", len(data.X_test)),
        random_state=smk.params.seed,
    )
    if skipped:
        get_logger().info("no ALE (constant on the test rows, or a group that is not one-hot): %s", skipped)
    if data.multiclass:  # the explained class, first column
        for table in (ale, ale_2d):
            table.insert(0, "class", str(data.classes[choice["class_index"]]))
    ids = {"dataset": data.dataset, "model": smk.wildcards.family}
    write_csv(smk.output.ale, with_ids(ale, **ids))
    write_csv(smk.output.ale_2d, with_ids(ale_2d, **ids))


run(snakemake, main)  # noqa: F821
