"""Rule pd_ice: PD / ICE / c-ICE / d-ICE of the top-k variables by MR and the 2-D PD of the pair of largest H²."""

from xaipipe.data.prepare import expand_user_groups, load_prepared
from xaipipe.explain.pair_choice import strongest_h2_pair
from xaipipe.explain.pdp import pd_ice_tables
from xaipipe.io import open_model, read_csv, with_ids, write_csv
from xaipipe.runner import get_logger, run
from xaipipe.settings import PdIceSettings


def main(smk):
    p = smk.params
    settings = PdIceSettings.from_params(p.pd, ranking=p.ranking, loss=p.loss, seed=p.seed, large_data=p.large_data)
    data = load_prepared(smk.input.table, smk.input.info, smk.input.split)
    # a user group ranks its columns (and one-hot groups) together at its place (docs/sage.md, "The user's feature groups")
    reliance = expand_user_groups(read_csv(smk.input.reliance), data.feature_groups, data.user_groups)
    top = settings.top_features(reliance)
    get_logger().info("top-%d variables by MR: %s; also for thesis figures: %s", settings.top_k, top, p.extra)
    # the 2-D PD's pair: the largest H² among the pairs of the top variables by MR (rule h_statistic),
    # else the top two by MR
    pair = strongest_h2_pair(read_csv(smk.input.h_statistic, keep_default_na=False, na_values=[""]), top)
    get_logger().info("2-D PD of %s (largest H²; the top two by MR: %s)", pair, top[:2])
    # a forest store: one block of trees at a time; multiclass: every class (a `class` column)
    out = pd_ice_tables(open_model(smk.input.model), data, settings, top=top, extra=p.extra, pair=pair)
    ids = {"dataset": data.dataset, "model": smk.wildcards.family}
    for name, frame in out.to_frames().items():
        write_csv(smk.output[name], with_ids(frame, **ids))


run(snakemake, main)  # noqa: F821
