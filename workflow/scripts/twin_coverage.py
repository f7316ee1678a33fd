"""Rule twin_coverage: the twin's replicates with their truths and the coverage table."""

from xaipipe.io import read_csv, read_json, write_csv
from xaipipe.runner import run
from xaipipe.studies import twin_coverage_tables


def main(smk):
    out = twin_coverage_tables(
        [read_csv(path) for path in [*smk.input.shards, *smk.input.importance]],
        read_csv(smk.input.f_star),
        read_csv(smk.input.learner),
        nominal=read_json(smk.input.design)["nominal"],
        importance_truth=read_csv(smk.input.importance_truth[0]) if smk.input.importance_truth else None,
    )
    for name, frame in out.to_frames().items():
        write_csv(smk.output[name], frame)


run(snakemake, main)  # noqa: F821
