"""Rule rashomon_bootstrap_shard: some bootstrap resamples of the Rashomon set (RID, MCR per resample)."""

import pandas as pd

from xaipipe.config import BootstrapSettings
from xaipipe.data import load_prepared
from xaipipe.io import read_csv, write_joblib
from xaipipe.models import forest_block_setting
from xaipipe.rashomon import bootstrap_shard
from xaipipe.runner import run


def main(smk):
    settings = BootstrapSettings.from_params(smk.params.settings)
    data = load_prepared(smk.input.table, smk.input.info, smk.input.split)
    shard = bootstrap_shard(
        data,  # missing values stay: each resample imputes from its own in-bag rows
        settings,
        pd.concat([read_csv(f) for f in smk.input.summaries], ignore_index=True),
        grids=smk.params.grids,
        resamples=settings.shard_resamples(int(smk.wildcards.shard)),
        n_jobs=smk.threads,
        # large forests: refitted in blocks of trees into scratch forest stores, read a block at a time
        forest_blocks=forest_block_setting(smk.config.get("large_data")),  # memory only: results are equal
    )
    write_joblib(smk.output.shard, shard.to_frames())  # a dict of frames: the rashomon_bootstrap job combines them


run(snakemake, main)  # noqa: F821
