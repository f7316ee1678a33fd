"""Rule rashomon_bootstrap: Rashomon importance distribution and MCR endpoint intervals (Donnelly et al. 2023)
from the resamples of the rashomon_bootstrap_shard jobs."""

from xaipipe.config import BootstrapSettings
from xaipipe.io import read_joblib, read_json, write_csv
from xaipipe.rashomon import combine_bootstrap_shards
from xaipipe.runner import run


def main(smk):
    settings = BootstrapSettings.from_params(smk.params.settings)
    tables = combine_bootstrap_shards(
        [read_joblib(path) for path in smk.input.shards],
        n_bootstrap=settings.n_bootstrap,
        dataset=read_json(smk.input.info)["dataset"],
        confidence=settings.confidence,
    )
    for name, frame in tables.to_frames().items():
        write_csv(smk.output[name], frame)


run(snakemake, main)  # noqa: F821
