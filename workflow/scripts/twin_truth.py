"""Rule twin_truth: the twin's planted truths and the learners' expected values (Monte Carlo)."""

from xaipipe.io import read_joblib, write_csv
from xaipipe.runner import run
from xaipipe.studies import twin_truths


def main(smk):
    out = twin_truths(read_joblib(smk.input.twin), n_jobs=smk.threads)
    for name, frame in out.to_frames().items():
        write_csv(smk.output[name], frame)


run(snakemake, main)  # noqa: F821
