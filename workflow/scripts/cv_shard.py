"""Rule cv_shard: one shard of a split CV (some fit units of a family's grid, every fold)."""

import joblib

from xaipipe.data.prepare import load_prepared
from xaipipe.models.cv import cross_validate_grid
from xaipipe.models.forest_blocks import forest_block_setting
from xaipipe.runner import run


def main(smk):
    p = smk.params.cv
    data = load_prepared(smk.input.table, smk.input.info, smk.input.split)
    table = cross_validate_grid(
        smk.wildcards.family,
        p["task"],
        p["grid"],
        data.X_train_raw,  # missing values stay: each fold imputes from its own training rows
        data.y_train,
        data.folds,
        random_state=p["seed"],
        options=p["options"],
        sample=p["sample"],
        n_jobs=smk.threads,
        beta=p.get("beta", 1.0),
        imputer=data.imputer,
        forest_blocks=forest_block_setting(smk.config.get("large_data")),  # memory only: results are equal
        shard=(int(smk.wildcards.shard), smk.params.n_shards),
    )
    # pickled, not CSV: the cv job rebuilds the whole table with the dtypes of the unsplit one
    joblib.dump(table, smk.output.shard)


run(snakemake, main)  # noqa: F821
