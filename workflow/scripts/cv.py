"""Rule cv: K-fold CV of one family's grid with exact shared-prefix evaluation (or the
combination of its cv_shard jobs)."""

import joblib

from xaipipe.data.prepare import load_prepared
from xaipipe.io import write_csv, write_json
from xaipipe.models.cv import cv_tables
from xaipipe.models.forest_blocks import forest_block_setting
from xaipipe.runner import get_logger, run


def main(smk):
    p = smk.params.cv
    data = load_prepared(smk.input.table, smk.input.info, smk.input.split)
    table, summary, best = cv_tables(
        smk.wildcards.family,
        p["task"],
        p["grid"],
        data.X_train_raw,  # missing values stay: each fold imputes from its own training rows
        data.y_train,
        data.folds,
        selection=p["selection"],
        random_state=p["seed"],
        options=p["options"],
        sample=p["sample"],
        dataset=data.dataset,
        n_jobs=smk.threads,
        beta=p.get("beta", 1.0),
        imputer=data.imputer,
        forest_blocks=forest_block_setting(smk.config.get("large_data")),  # memory only: results are equal
        shards=[joblib.load(path) for path in smk.input.shards] or None,
    )
    if best["failed_configs"]:
        get_logger().warning("%d configuration(s) failed: %s", best["n_failed"], best["failed_configs"])
    write_csv(smk.output.cv, table)
    write_csv(smk.output.summary, summary)
    write_json(smk.output.best, best)


run(snakemake, main)  # noqa: F821
