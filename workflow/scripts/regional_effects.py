"""Rule regional_effects: the regional PD of the variables whose ICE curves fan out most (effector)."""

from xaipipe.config import RegionalSettings
from xaipipe.data import load_prepared
from xaipipe.explain import regional_effects_tables
from xaipipe.io import open_model, with_ids, write_csv
from xaipipe.runner import get_logger, run


def main(smk):
    settings = RegionalSettings.from_params(smk.params.settings)
    data = load_prepared(smk.input.table, smk.input.info, smk.input.split)
    out = regional_effects_tables(open_model(smk.input.model), data, settings)
    split = out.heterogeneity.loc[out.heterogeneity["split"], "feature"].tolist()
    get_logger().info("regions of %s: %d regions", split, len(out.regions))
    ids = {"dataset": data.dataset, "model": smk.wildcards.family}
    for name, frame in out.to_frames().items():
        write_csv(smk.output[name], with_ids(frame, **ids))


run(snakemake, main)  # noqa: F821
