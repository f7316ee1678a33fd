"""Rule sage: marginal SAGE values of one fitted model on the test rows (xaipipe.explain.sage)."""

from xaipipe.config import SageSettings
from xaipipe.data import load_prepared
from xaipipe.explain import sage_table
from xaipipe.io import open_model, write_csv
from xaipipe.runner import run


def main(smk):
    settings = SageSettings.from_params(smk.params.settings)
    data = load_prepared(smk.input.table, smk.input.info, smk.input.split)
    model = open_model(smk.input.model)
    write_csv(smk.output.table, sage_table(model, data, settings, family=smk.wildcards.family))


run(snakemake, main)  # noqa: F821
