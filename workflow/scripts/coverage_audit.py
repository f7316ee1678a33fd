"""Rule coverage_audit: coverage of the learner-PD/PFI intervals and of MCR on simulated data.

Not named coverage.py: the scripts folder is on the path of joblib workers, and numba imports the
`coverage` package (coverage.py) at start-up, which a script of that name would shadow.
"""

from xaipipe.config import CoverageSettings
from xaipipe.io import write_csv
from xaipipe.runner import get_logger, run
from xaipipe.studies import coverage_audit


def main(smk):
    out = coverage_audit(CoverageSettings.from_params(smk.params.settings), n_jobs=smk.threads)
    get_logger().info("%d repetition rows, %d coverage rows", len(out.repetitions), len(out.coverage))
    for name, frame in out.to_frames().items():
        write_csv(smk.output[name], frame)


run(snakemake, main)  # noqa: F821
