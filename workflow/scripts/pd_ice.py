"""Rule pd_ice: PD / ICE / c-ICE / d-ICE of the top-k variables by MR and the 2-D PD of the pair of largest H²."""

from xaipipe.config import PdIceSettings
from xaipipe.data import expand_user_groups, load_prepared
from xaipipe.explain import pd_ice_tables, ranked_features, strongest_h2_pair
from xaipipe.io import open_model, read_csv, with_ids, write_csv
from xaipipe.runner import get_logger, run


def main(smk):
    settings = PdIceSettings.from_params(smk.params.settings)
    data = load_prepared(smk.input.table, smk.input.info, smk.input.split)
    # a user group ranks its columns (and one-hot groups) together at its place (docs/sage.md, "The user's feature groups")
    reliance = expand_user_groups(read_csv(smk.input.reliance), data.feature_groups, data.user_groups)
    top = ranked_features(reliance, settings, settings.top_k)  # the top_k variables by MR
    get_logger().info("top-%d variables by MR: %s; also for thesis figures: %s", settings.top_k, top, smk.params.extra)
    # the 2-D PD's pair: the largest H² among the pairs of the top variables by MR (rule h_statistic),
    # else the top two by MR
    pair = strongest_h2_pair(read_csv(smk.input.h_statistic, keep_default_na=False, na_values=[""]), top)
    get_logger().info("2-D PD of %s (largest H²; the top two by MR: %s)", pair, top[:2])
    # a forest store: one block of trees at a time; multiclass: every class (a `class` column)
    out = pd_ice_tables(open_model(smk.input.model), data, settings, top=top, extra=smk.params.extra, pair=pair)
    ids = {"dataset": data.dataset, "model": smk.wildcards.family}
    for name, frame in out.to_frames().items():
        write_csv(smk.output[name], with_ids(frame, **ids))


run(snakemake, main)  # noqa: F821
