"""Rule rashomon_bootstrap_shard: some bootstrap resamples of the Rashomon set (RID, MCR per resample)."""

import pandas as pd

from xaipipe.data.prepare import load_prepared
from xaipipe.io import write_joblib
from xaipipe.rashomon.bootstrap import bootstrap_shard
from xaipipe.runner import run


def main(smk):
    p, b = smk.params.rashomon, smk.params.bootstrap
    data = load_prepared(smk.input.table, smk.input.info, smk.input.split)
    shard = bootstrap_shard(
        data.X_train_raw,  # missing values stay: each resample imputes from its own in-bag rows
        data.y_train,
        task=p["task"],
        grids=smk.params.grids,
        epsilon=p["epsilon"],
        epsilon_mode=p["epsilon_mode"],
        metric=p["metric"],
        n_bootstrap=b["n_bootstrap"],
        resamples=range(int(smk.wildcards.shard), b["n_bootstrap"], smk.params.n_shards),
        mr_data=b["mr_data"],
        X_test=data.X_test_raw,
        y_test=data.y_test,
        feature_names=data.features,
        feature_groups=data.feature_groups,
        mr_estimator=b["estimator"],
        mr_loss=p["loss"],
        n_repeats=b["n_repeats"],
        cv_summary=pd.concat([pd.read_csv(f) for f in smk.input.summaries], ignore_index=True),
        options=p["options"],
        random_state=p["seed"],
        n_jobs=smk.threads,
        imputer=data.imputer,
    )
    write_joblib(smk.output.shard, shard)


run(snakemake, main)  # noqa: F821
