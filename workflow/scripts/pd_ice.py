"""Rule pd_ice: PD / ICE / c-ICE / d-ICE of the top-k variables by MR and the 2-D PD of the top pair."""

import pandas as pd

from xaipipe.data.prepare import load_prepared
from xaipipe.explain.pdp import pd_ice_tables
from xaipipe.explain.summary import top_features
from xaipipe.io import open_model, with_ids, write_csv
from xaipipe.runner import get_logger, run
from xaipipe.settings import LargeDataSettings


def main(smk):
    cfg, rank = smk.params.pd, smk.params.ranking
    data = load_prepared(smk.input.table, smk.input.info, smk.input.split)
    top = top_features(
        pd.read_csv(smk.input.reliance),
        cfg["top_k"],
        estimator=rank["estimator"],
        loss=smk.params.loss,
        quantity=rank["quantity"],
    )
    get_logger().info("top-%d variables by MR: %s; also for thesis figures: %s", cfg["top_k"], top, smk.params.extra)
    curves, pairs = pd_ice_tables(
        open_model(smk.input.model),  # a forest store: one block of trees at a time
        data.X_test,
        top=top,
        extra=smk.params.extra,
        feature_names=data.features,
        feature_groups=data.feature_groups,
        row_ids=data.test_rows,
        output="predict" if data.task == "regression" else cfg["classification_output"],
        resolution=cfg["resolution"],
        kind=cfg["grid"],
        percentiles=cfg["percentiles"],
        anchor=cfg["anchor"],
        smooth=cfg["smooth"],
        max_curves=cfg["max_curves"],
        pair_resolution=cfg["pair_resolution"],
        max_batch_rows=cfg["max_batch_rows"],
        classes=data.classes,  # multiclass: every class (a `class` column); None otherwise
        # large-data policy (large_data.pd_rows): None at or below large_data.min_rows test rows
        large_data_rows=LargeDataSettings.from_params(smk.params.large_data).rows("pd", len(data.X_test)),
        random_state=smk.params.seed,
    )
    ids = {"dataset": data.dataset, "model": smk.wildcards.family}
    write_csv(smk.output.curves, with_ids(curves, **ids))
    write_csv(smk.output.pairs, with_ids(pairs, **ids))


run(snakemake, main)  # noqa: F821
