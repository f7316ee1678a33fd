"""Rule fit: refit the best configuration on the 80 %, evaluate on the 20 %."""
import _src  # noqa: F401  (puts the package in src/ on sys.path)
import time

import pandas as pd

from xaipipe.data.prepare import load_prepared
from xaipipe.io import read_json, write_csv, write_json, write_joblib
from xaipipe.models.boosting import fit_estimator
from xaipipe.models.families import make_estimator
from xaipipe.models.metrics import evaluate
from xaipipe.models.prefix import predict_output
from xaipipe.runner import run


def main(smk):
    p = smk.params.cv
    best = read_json(smk.input.best)
    data = load_prepared(smk.input.table, smk.input.info, smk.input.split)
    est = make_estimator(smk.wildcards.family, p["task"], best["params"], seed=p["seed"],
                         n_jobs=smk.threads, options=p["options"])
    t0 = time.perf_counter()
    fit_estimator(est, data.X_train, data.y_train)  # bitwise est.fit, faster leaf updates
    fit_time = time.perf_counter() - t0
    if hasattr(est, "n_jobs"):
        est.set_params(n_jobs=1)  # predictions of the saved model are then bitwise reproducible
    output = predict_output(est, data.X_test)
    metrics = evaluate(p["task"], data.y_test, output, confusion=True)
    write_joblib(smk.output.model, est)
    write_json(smk.output.metrics, {
        "dataset": data.dataset, "task": p["task"], "model": smk.wildcards.family,
        "params": best["params"], "n_train": len(data.y_train), "n_test": len(data.y_test),
        "fit_time_s": fit_time, "metrics": metrics,
    })
    pred = pd.DataFrame({"row": data.test_rows, "y_true": data.y_test})
    if p["task"] == "regression":
        pred["y_pred"] = output
    else:
        pred["proba_1"] = output[:, 1]
        pred["y_pred"] = output.argmax(axis=1)
    write_csv(smk.output.predictions, pred)


run(snakemake, main)  # noqa: F821
