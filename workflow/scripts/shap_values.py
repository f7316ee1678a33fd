"""Rule shap: SHAP values of one fitted model on the test rows (named so that it cannot shadow the shap library)."""

from xaipipe.config import ShapSettings
from xaipipe.data import load_prepared
from xaipipe.explain import shap_tables
from xaipipe.io import open_model, write_csv, write_joblib, write_json
from xaipipe.runner import get_logger, run


def main(smk):
    settings = ShapSettings.from_params(smk.params.settings)
    data = load_prepared(smk.input.table, smk.input.info, smk.input.split)
    # a forest store: one block of trees at a time; multiclass: every class (a `class` column)
    out = shap_tables(open_model(smk.input.model), data, settings, n_jobs=smk.threads)
    get_logger().info("%d rows: algorithm %s, output %s", out.meta["n_rows"], out.meta["algorithm"], out.meta["output"])
    for name, frame in out.to_frames().items():
        write_csv(smk.output[name], frame)
    write_json(smk.output.meta, out.meta)
    write_joblib(smk.output.result, out.result)


run(snakemake, main)  # noqa: F821
