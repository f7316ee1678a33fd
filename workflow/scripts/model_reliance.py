"""Rule model_reliance: MR of one fitted model on the test set (every estimator x loss) and split gain."""

import time

import pandas as pd

from xaipipe.config import RelianceSettings
from xaipipe.data import load_prepared
from xaipipe.explain import dependent_reliance_rows, reliance_tables
from xaipipe.io import open_model, write_csv
from xaipipe.runner import get_logger, run


def main(smk):
    settings = RelianceSettings.from_params(smk.params.settings)
    data = load_prepared(smk.input.table, smk.input.info, smk.input.split)
    model = open_model(smk.input.model)  # a forest store: the MR engine walks its blocks of trees
    rows = settings.large_data_rows(len(data.y_test))  # large_data.reliance_rows above large_data.min_rows
    if rows is not None:
        get_logger().info("large data: permutation / e_divide repeats on %d of %d test rows", rows, len(data.y_test))
    family = smk.wildcards.family
    reliance, split_gain = reliance_tables(model, data, settings, family=family, n_jobs=smk.threads)
    if settings.dependent["estimators"]:  # MR under dependent features (issue 35): after the marginal rows
        t0 = time.process_time()
        extra = dependent_reliance_rows(
            model, data, settings, family=family, columns=list(reliance.columns), n_jobs=smk.threads
        )
        reliance = pd.concat([reliance, extra], ignore_index=True)
        get_logger().info("%s rows: %.2f CPU-s", "/".join(settings.dependent["estimators"]), time.process_time() - t0)
    write_csv(smk.output.reliance, reliance)
    write_csv(smk.output.split_gain, split_gain)


run(snakemake, main)  # noqa: F821
