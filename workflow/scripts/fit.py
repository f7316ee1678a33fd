"""Rule fit: refit the best configuration on the 80 %, evaluate on the 20 %."""

from xaipipe.config import CVSettings
from xaipipe.data import load_prepared
from xaipipe.io import read_json, write_csv, write_joblib, write_json
from xaipipe.models import fit_best, forest_block_setting
from xaipipe.runner import run


def main(smk):
    settings = CVSettings.from_params(smk.params.settings)  # task, seed, options, beta
    data = load_prepared(smk.input.table, smk.input.info, smk.input.split)
    blocks = forest_block_setting(smk.config.get("large_data"))  # large forests: fitted and stored in blocks
    store = (smk.output.model, blocks[1]) if blocks and len(data.y_train) >= blocks[0] else None
    out = fit_best(data, settings, read_json(smk.input.best)["params"], n_jobs=smk.threads, forest_store=store)
    if out.model is not None:  # else a forest store, written block by block
        write_joblib(smk.output.model, out.model)
    write_json(smk.output.metrics, out.record)
    write_csv(smk.output.predictions, out.to_frame())


run(snakemake, main)  # noqa: F821
