"""Rule model_reliance: MR of one fitted model on the test set (every estimator x loss) and split gain."""

import time

import pandas as pd

from xaipipe.data.prepare import load_prepared
from xaipipe.explain.dependence import dependent_reliance_rows
from xaipipe.explain.summary import reliance_tables
from xaipipe.io import open_model, write_csv
from xaipipe.runner import get_logger, run
from xaipipe.settings import LargeDataSettings


def main(smk):
    cfg = smk.params.reliance
    data = load_prepared(smk.input.table, smk.input.info, smk.input.split)
    model = open_model(smk.input.model)  # a forest store: the MR engine walks its blocks of trees
    # large-data policy (large_data.reliance_rows): None at or below large_data.min_rows test rows
    reliance_rows = LargeDataSettings.from_params(smk.params.large_data).rows("reliance", len(data.y_test))
    if reliance_rows is not None:
        get_logger().info(
            "large data: permutation / e_divide repeats on %d of %d test rows", reliance_rows, len(data.y_test)
        )
    reliance, split_gain = reliance_tables(
        model,
        data.X_test,
        data.y_test,
        dataset=data.dataset,
        family=smk.wildcards.family,
        feature_names=data.features,
        feature_groups=data.feature_groups,
        estimators=cfg["estimators"],
        losses=smk.params.losses,
        n_repeats=cfg["n_repeats"],
        e_switch_max_rows=cfg["e_switch_max_rows"],
        random_state=smk.params.seed,
        n_jobs=smk.threads,
        reliance_rows=reliance_rows,
    )
    dep = cfg["dependent"]
    if dep["estimators"]:  # MR under dependent features (issue 35): rows appended after the marginal ones
        t0 = time.process_time()
        extra = dependent_reliance_rows(
            model,
            data.X_test,
            data.y_test,
            data.X_train,
            dataset=data.dataset,
            family=smk.wildcards.family,
            feature_names=data.features,
            feature_groups=data.feature_groups,
            estimators=dep["estimators"],
            losses=smk.params.losses,
            n_repeats=cfg["n_repeats"],
            random_state=smk.params.seed,
            max_depth=dep["max_depth"],
            min_samples_leaf=dep["min_samples_leaf"],
            correlation_threshold=dep["correlation_threshold"],
            linkage=dep["linkage"],
            n_jobs=smk.threads,
            columns=list(reliance.columns),
            reliance_rows=reliance_rows,  # grouped_permutation only
        )
        reliance = pd.concat([reliance, extra], ignore_index=True)
        get_logger().info("%s rows: %.2f CPU-s", "/".join(dep["estimators"]), time.process_time() - t0)
    write_csv(smk.output.reliance, reliance)
    write_csv(smk.output.split_gain, split_gain)


run(snakemake, main)  # noqa: F821
