"""Rule twin_importance_shard: SAGE and H² of replicates shard, shard + n_shards, ... of the twin."""

from xaipipe.config import TwinImportanceSettings
from xaipipe.io import read_csv, read_joblib, write_csv
from xaipipe.runner import run
from xaipipe.studies import importance_shard


def main(smk):
    table = importance_shard(
        read_joblib(smk.input.twin),
        read_csv(smk.input.truth),
        TwinImportanceSettings.from_params(smk.params.settings),
        int(smk.wildcards.shard),
        smk.params.n_shards,
        n_jobs=smk.threads,
    )
    write_csv(smk.output.replicates, table)


run(snakemake, main)  # noqa: F821
