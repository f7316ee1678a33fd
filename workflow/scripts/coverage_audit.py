"""Rule coverage_audit: coverage of the learner-PD/PFI intervals and of MCR on simulated data.

Not named coverage.py: the scripts folder is on the path of joblib workers, and numba imports the
`coverage` package (coverage.py) at start-up, which a script of that name would shadow.
"""

from xaipipe.io import write_csv
from xaipipe.runner import get_logger, run
from xaipipe.studies.coverage import coverage_audit


def main(smk):
    repetitions, coverage = coverage_audit(**smk.params.coverage, n_jobs=smk.threads)
    get_logger().info("%d repetition rows, %d coverage rows", len(repetitions), len(coverage))
    write_csv(smk.output.repetitions, repetitions)
    write_csv(smk.output.coverage, coverage)


run(snakemake, main)  # noqa: F821
