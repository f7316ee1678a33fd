"""Rule large_data: the large-data policies of one dataset (threshold, applied, rows used)."""

from xaipipe.io import read_json, write_csv
from xaipipe.runner import run
from xaipipe.settings import LargeDataSettings


def main(smk):
    n_test = len(read_json(smk.input.split)["test"])  # the policies are decided on the test rows
    settings = LargeDataSettings.from_params(smk.params.large_data)
    write_csv(smk.output.table, settings.table(smk.wildcards.dataset, n_test))


run(snakemake, main)  # noqa: F821
