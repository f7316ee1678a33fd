"""Rule twin_importance_truth: f*'s SAGE and H² on the twin's population."""

from xaipipe.config import TwinImportanceSettings
from xaipipe.io import read_csv, read_joblib, write_csv
from xaipipe.runner import run
from xaipipe.studies import importance_truth


def main(smk):
    settings = TwinImportanceSettings.from_params(smk.params.settings)
    table = importance_truth(read_joblib(smk.input.twin), read_csv(smk.input.f_star), settings)
    write_csv(smk.output.truth, table)


run(snakemake, main)  # noqa: F821
