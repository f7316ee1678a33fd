"""Rule shap: SHAP values of one fitted model on the test rows."""
import _src  # noqa: F401  (puts the package in src/ on sys.path)
import dataclasses

import numpy as np
import pandas as pd

from xaipipe.data.prepare import load_prepared
from xaipipe.explain.shapley import global_importance, result_metadata, row_frame, shap_values, tidy_frame
from xaipipe.io import read_joblib, with_ids, write_csv, write_joblib, write_json
from xaipipe.models.prefix import ensemble_kind
from xaipipe.runner import get_logger, run


def main(smk):
    cfg = smk.params.shap
    data = load_prepared(smk.input.table, smk.input.info, smk.input.split)
    model = read_joblib(smk.input.model)
    max_rows = cfg["max_rows"]
    if ensemble_kind(model) == "random_forest" and cfg.get("max_rows_random_forest"):
        max_rows = min(max_rows or len(data.y_test), cfg["max_rows_random_forest"])
    result = shap_values(
        model, data.X_test, X_background=data.X_train, feature_names=data.features,
        background_size=cfg["background_size"], max_rows=max_rows,
        interactions=cfg["interactions"] and ensemble_kind(model) == "xgboost",
        n_jobs=smk.threads, random_state=smk.params.seed,
    )
    get_logger().info("%s on %d rows: algorithm %s, output %s", smk.wildcards.family, len(result.row_index),
                      result.algorithm, result.output)
    test_rows = np.asarray(data.test_rows)
    values = tidy_frame(result)  # row = position in the test set; row_id = row of prepared.csv
    values.insert(1, "row_id", test_rows[values["row"].to_numpy()])
    rows = row_frame(result)
    rows.insert(1, "row_id", test_rows[rows["row"].to_numpy()])
    ids = {"dataset": data.dataset, "model": smk.wildcards.family}
    write_csv(smk.output.values, with_ids(values, **ids))
    write_csv(smk.output.rows, with_ids(rows, **ids))
    write_csv(smk.output.importance, with_ids(global_importance(result), **ids))
    if result.interaction_values is not None:
        iv = result.interaction_values
        n, p, _ = iv.shape
        names = list(result.feature_names)
        inter = pd.DataFrame({
            "row": np.repeat(result.row_index, p * p),
            "feature_1": np.tile(np.repeat(names, p), n),
            "feature_2": np.tile(names, n * p),
            "interaction_value": iv.reshape(-1),
        })
    else:
        inter = pd.DataFrame(columns=["row", "feature_1", "feature_2", "interaction_value"])
    write_csv(smk.output.interactions, with_ids(inter, **ids))
    meta = result_metadata(result)
    meta.update({"dataset": data.dataset, "model": smk.wildcards.family,
                 "test_rows_explained": test_rows[result.row_index].tolist()})
    write_json(smk.output.meta, meta)
    write_joblib(smk.output.result, dataclasses.replace(result, estimator=None))


run(snakemake, main)  # noqa: F821
