"""Rule twin_shard: replicates shard, shard + n_shards, ... of the twin audit."""

from xaipipe.io import read_joblib, write_csv
from xaipipe.runner import run
from xaipipe.studies import audit_shard


def main(smk):
    table = audit_shard(read_joblib(smk.input.twin), int(smk.wildcards.shard), smk.params.n_shards, n_jobs=smk.threads)
    write_csv(smk.output.replicates, table)


run(snakemake, main)  # noqa: F821
