"""Rule fit: refit the best configuration on the 80 %, evaluate on the 20 %."""

from xaipipe.data.prepare import load_prepared
from xaipipe.io import read_json, write_csv, write_joblib, write_json
from xaipipe.models.fitting import fit_best
from xaipipe.runner import run


def main(smk):
    p = smk.params.cv
    data = load_prepared(smk.input.table, smk.input.info, smk.input.split)
    model, record, predictions = fit_best(
        smk.wildcards.family,
        p["task"],
        read_json(smk.input.best)["params"],
        data.X_train,
        data.y_train,
        data.X_test,
        data.y_test,
        test_rows=data.test_rows,
        random_state=p["seed"],
        options=p["options"],
        dataset=data.dataset,
        n_jobs=smk.threads,
        beta=p.get("beta", 1.0),
    )
    write_joblib(smk.output.model, model)
    write_json(smk.output.metrics, record)
    write_csv(smk.output.predictions, predictions)


run(snakemake, main)  # noqa: F821
