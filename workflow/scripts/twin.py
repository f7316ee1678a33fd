"""Rule twin: the twin of one dataset (its rows, f* and the planted noise) and its audit's design."""

from xaipipe.config import TwinSettings
from xaipipe.data import load_prepared
from xaipipe.io import read_csv, read_json, write_joblib, write_json
from xaipipe.runner import get_logger, run
from xaipipe.studies import prepare_twin


def main(smk):
    data = load_prepared(smk.input.table, smk.input.info, smk.input.split)
    best = {entry["family"]: entry for entry in map(read_json, smk.input.best)}
    reliance = read_csv(smk.input.reliance[0]) if len(smk.input.reliance) else None
    bundle = prepare_twin(data, TwinSettings.from_params(smk.params.settings), best, reliance)
    get_logger().info(
        "twin of %s: f* %s %s, %d rows", data.dataset, bundle.twin.family, bundle.twin.params, bundle.twin.n_rows
    )
    write_joblib(smk.output.twin, bundle)
    write_json(smk.output.design, bundle.design.to_dict())


run(snakemake, main)  # noqa: F821
