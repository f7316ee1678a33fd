"""Rule fit: refit the best configuration on the 80 %, evaluate on the 20 %."""

from xaipipe.data.prepare import load_prepared
from xaipipe.io import read_json, write_csv, write_joblib, write_json
from xaipipe.models.fitting import fit_best
from xaipipe.models.forest_blocks import forest_block_setting
from xaipipe.runner import run


def main(smk):
    p = smk.params.cv
    data = load_prepared(smk.input.table, smk.input.info, smk.input.split)
    blocks = forest_block_setting(smk.config.get("large_data"))  # large forests: fitted and stored in blocks
    store = (smk.output.model, blocks[1]) if blocks and len(data.y_train) >= blocks[0] else None
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
        forest_store=store,
    )
    if model is not None:  # else a forest store, written block by block
        write_joblib(smk.output.model, model)
    write_json(smk.output.metrics, record)
    write_csv(smk.output.predictions, predictions)


run(snakemake, main)  # noqa: F821
