"""Rule cv: K-fold CV of one family's grid with exact shared-prefix evaluation (or the
combination of its cv_shard jobs)."""

import joblib

from xaipipe.config import CVSettings
from xaipipe.data import load_prepared
from xaipipe.io import write_csv, write_json
from xaipipe.models import cv_tables, forest_block_setting
from xaipipe.runner import get_logger, run


def main(smk):
    data = load_prepared(smk.input.table, smk.input.info, smk.input.split)
    out = cv_tables(
        data,  # missing values stay: each fold imputes from its own training rows
        CVSettings.from_params(smk.params.settings),
        shards=[joblib.load(path) for path in smk.input.shards] or None,
        n_jobs=smk.threads,
        forest_blocks=forest_block_setting(smk.config.get("large_data")),  # memory only: results are equal
    )
    if out.best["failed_configs"]:
        get_logger().warning("%d configuration(s) failed: %s", out.best["n_failed"], out.best["failed_configs"])
    write_csv(smk.output.cv, out.table)
    write_csv(smk.output.summary, out.summary)
    write_json(smk.output.best, out.best)


run(snakemake, main)  # noqa: F821
