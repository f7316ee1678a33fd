"""Rule rashomon_effects: PD and ALE of every member of the figure scope's largest Rashomon set."""

import pandas as pd

from xaipipe.data.prepare import load_prepared
from xaipipe.explain.shapley import class_choice
from xaipipe.io import read_csv, write_csv
from xaipipe.rashomon.effects import member_effects
from xaipipe.runner import get_logger, run
from xaipipe.settings import RashomonSettings


def main(smk):
    data = load_prepared(smk.input.table, smk.input.info, smk.input.split)
    summary = pd.concat([read_csv(path) for path in smk.input.summaries], ignore_index=True)
    out = member_effects(
        data,
        RashomonSettings.from_params(smk.params.rashomon),
        summary,
        n_bins=smk.params.ale["n_bins"],
        centering=smk.params.ale["centering"],
        # as the rashomon rule's PD envelope: a multiclass model's explain.figure_class; binary: class 1
        class_index=class_choice(data.classes, smk.params.get("figure_class")).get("class_index", 1),
        n_jobs=smk.threads,
    )
    get_logger().info("%d effect rows of %d members", len(out), out[["family", "config_id"]].drop_duplicates().shape[0])
    write_csv(smk.output.effects, out)


run(snakemake, main)  # noqa: F821
