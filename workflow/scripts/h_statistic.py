"""Rule h_statistic: Friedman's H² of every variable and of the pairs of the top-k variables by MR."""

from xaipipe.config import HStatisticSettings
from xaipipe.data import expand_user_groups, load_prepared
from xaipipe.explain import h_statistic_table
from xaipipe.io import open_model, read_csv, with_ids, write_csv
from xaipipe.runner import run


def main(smk):
    settings = HStatisticSettings.from_params(smk.params.settings)
    data = load_prepared(smk.input.table, smk.input.info, smk.input.split)
    # the pairs of the top-k variables by MR; a user group ranks its columns (and one-hot groups)
    # together at its place
    reliance = expand_user_groups(read_csv(smk.input.reliance), data.feature_groups, data.user_groups)
    # a forest store: one block of trees at a time; multiclass: explain.figure_class (a `class` column)
    table = h_statistic_table(open_model(smk.input.model), data, settings, reliance=reliance)
    write_csv(smk.output.table, with_ids(table, dataset=data.dataset, model=smk.wildcards.family))


run(snakemake, main)  # noqa: F821
