"""Rule shap: SHAP values of one fitted model on the test rows (named so that it cannot shadow the shap library)."""

from xaipipe.data.prepare import load_prepared
from xaipipe.explain.shapley import shap_tables
from xaipipe.io import open_model, write_csv, write_joblib, write_json
from xaipipe.runner import get_logger, run
from xaipipe.settings import LargeDataSettings


def main(smk):
    cfg = smk.params.shap
    data = load_prepared(smk.input.table, smk.input.info, smk.input.split)
    large_data = LargeDataSettings.from_params(smk.params.large_data)
    out = shap_tables(
        open_model(smk.input.model),  # a forest store: one block of trees at a time
        data.X_test,
        data.X_train,
        test_rows=data.test_rows,
        feature_names=data.features,
        dataset=data.dataset,
        family=smk.wildcards.family,
        feature_groups=data.feature_groups,  # a one-hot group is one variable: its columns' values summed
        max_rows=cfg["max_rows"],
        max_rows_forest=cfg["max_rows_random_forest"],
        background_size=cfg["background_size"],
        interactions=cfg["interactions"],
        algorithm=cfg.get("algorithm", "auto"),
        n_jobs=smk.threads,
        random_state=smk.params.seed,
        classes=data.classes,  # multiclass: every class (a `class` column); None otherwise
        # large-data policy (large_data.shap_rows): None at or below large_data.min_rows test rows
        large_data_rows=large_data.rows("shap", len(data.X_test)),
        large_data_trees=large_data.trees(len(data.X_test)),  # large_data.shap_trees: forests only
    )
    get_logger().info("%d rows: algorithm %s, output %s", out.meta["n_rows"], out.meta["algorithm"], out.meta["output"])
    for name, frame in out.to_frames().items():
        write_csv(smk.output[name], frame)
    write_json(smk.output.meta, out.meta)
    write_joblib(smk.output.result, out.result)


run(snakemake, main)  # noqa: F821
