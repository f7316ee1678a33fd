"""Rule cv_shard: one shard of a split CV (some fit units of a family's grid, every fold)."""

import joblib

from xaipipe.config import CVSettings
from xaipipe.data import load_prepared
from xaipipe.models import cv_shard_table, forest_block_setting
from xaipipe.runner import run


def main(smk):
    data = load_prepared(smk.input.table, smk.input.info, smk.input.split)
    table = cv_shard_table(
        data,  # missing values stay: each fold imputes from its own training rows
        CVSettings.from_params(smk.params.settings),
        (int(smk.wildcards.shard), smk.params.n_shards),
        n_jobs=smk.threads,
        forest_blocks=forest_block_setting(smk.config.get("large_data")),  # memory only: results are equal
    )
    # pickled, not CSV: the cv job rebuilds the whole table with the dtypes of the unsplit one
    joblib.dump(table, smk.output.shard)


run(snakemake, main)  # noqa: F821
