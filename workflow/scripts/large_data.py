"""Rule large_data: the large-data policies of one dataset (threshold, applied, rows used)."""

from xaipipe.config import LargeDataSettings
from xaipipe.explain import large_data_table
from xaipipe.io import read_json, write_csv
from xaipipe.runner import run


def main(smk):
    n_test = len(read_json(smk.input.split)["test"])  # the policies are decided on the test rows
    settings = LargeDataSettings.from_params(smk.params.settings)
    write_csv(smk.output.table, large_data_table(settings, smk.wildcards.dataset, n_test))


run(snakemake, main)  # noqa: F821
