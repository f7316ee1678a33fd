"""Rule ale: ALE of every variable beside its PD on the same grid, and the second-order ALE of the 2-D PD's pair."""

from xaipipe.config import AleSettings
from xaipipe.data import expand_user_groups, load_prepared
from xaipipe.explain import ale_tables
from xaipipe.io import open_model, read_csv, with_ids, write_csv
from xaipipe.runner import get_logger, run


def main(smk):
    settings = AleSettings.from_params(smk.params.settings)
    data = load_prepared(smk.input.table, smk.input.info, smk.input.split)
    pairs = read_csv(smk.input.pairs)
    pair = tuple(pairs[["feature_1", "feature_2"]].iloc[0]) if len(pairs) else None
    # a user group ranks its columns (and one-hot groups) together at its place
    reliance = expand_user_groups(read_csv(smk.input.reliance), data.feature_groups, data.user_groups)
    # a forest store: one block of trees at a time; multiclass: explain.figure_class (a `class` column)
    out = ale_tables(open_model(smk.input.model), data, settings, reliance=reliance, pair=pair)
    if out.skipped:
        get_logger().info("no ALE (constant on the test rows, or a group that is not one-hot): %s", out.skipped)
    ids = {"dataset": data.dataset, "model": smk.wildcards.family}
    for name, frame in out.to_frames().items():
        write_csv(smk.output[name], with_ids(frame, **ids))


run(snakemake, main)  # noqa: F821
