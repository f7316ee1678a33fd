"""Rule rashomon_effects: PD and ALE of every member of the figure scope's largest Rashomon set."""

import pandas as pd

from xaipipe.config import MemberEffectsSettings
from xaipipe.data import load_prepared
from xaipipe.explain import class_choice
from xaipipe.io import read_csv, write_csv
from xaipipe.rashomon import member_effects
from xaipipe.runner import get_logger, run


def main(smk):
    settings = MemberEffectsSettings.from_params(smk.params.settings)
    data = load_prepared(smk.input.table, smk.input.info, smk.input.split)
    summary = pd.concat([read_csv(path) for path in smk.input.summaries], ignore_index=True)
    out = member_effects(
        data,
        settings.rashomon,
        summary,
        n_bins=settings.ale_bins,
        centering=settings.ale_centering,
        # as the rashomon rule's PD envelope: a multiclass model's explain.figure_class; binary: class 1
        class_index=class_choice(data.classes, settings.rashomon.figure_class).get("class_index", 1),
        n_jobs=smk.threads,
    )
    get_logger().info("%d effect rows of %d members", len(out), out[["family", "config_id"]].drop_duplicates().shape[0])
    write_csv(smk.output.effects, out)


run(snakemake, main)  # noqa: F821
