"""Rule pd_ice: PD / ICE / c-ICE / d-ICE of the top-k variables by MR and the 2-D PD of the top pair."""

import pandas as pd

from xaipipe.config import PdIceSettings
from xaipipe.data import load_prepared
from xaipipe.explain import pd_ice_tables
from xaipipe.io import open_model, with_ids, write_csv
from xaipipe.runner import get_logger, run


def main(smk):
    settings = PdIceSettings.from_params(smk.params.settings)
    data = load_prepared(smk.input.table, smk.input.info, smk.input.split)
    reliance = pd.read_csv(smk.input.reliance)  # the top_k variables by MR
    # a forest store: one block of trees at a time; multiclass: every class (a `class` column)
    out = pd_ice_tables(open_model(smk.input.model), data, settings, reliance=reliance, extra=smk.params.extra)
    top = out.curves.loc[out.curves["rank"] > 0, "feature"].unique().tolist()
    get_logger().info("top-%d variables by MR: %s; also for thesis figures: %s", settings.top_k, top, smk.params.extra)
    ids = {"dataset": data.dataset, "model": smk.wildcards.family}
    for name, frame in out.to_frames().items():
        write_csv(smk.output[name], with_ids(frame, **ids))


run(snakemake, main)  # noqa: F821
