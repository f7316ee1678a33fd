"""Rule rashomon_refit: member refits, MR and PD curves of one family's Rashomon-set members."""

import pandas as pd

from xaipipe.config import RashomonSettings
from xaipipe.data import load_prepared
from xaipipe.explain import class_choice
from xaipipe.io import read_csv, write_joblib
from xaipipe.models import forest_block_setting
from xaipipe.rashomon import rashomon_refit
from xaipipe.runner import get_logger, run


def main(smk):
    settings = RashomonSettings.from_params(smk.params.settings)
    data = load_prepared(smk.input.table, smk.input.info, smk.input.split)
    summary = pd.concat([read_csv(path) for path in smk.input.summaries], ignore_index=True)
    out = rashomon_refit(
        data,
        settings,
        summary,
        families=[smk.wildcards.family],
        n_jobs=smk.threads,
        # large forests: refitted in blocks of trees into scratch forest stores, read a block at a time
        forest_blocks=forest_block_setting(smk.config.get("large_data")),  # memory only: results are equal
        # a multiclass model's PD envelope: the class of explain.figure_class (default the first); binary: class 1
        pd_class_index=class_choice(data.classes, settings.figure_class).get("class_index", 1),
    )
    get_logger().info("%d member reliance rows from %d fitted groups", len(out.reliance), out.n_groups)
    # pickled, not CSV: the rashomon job combines the frames with their dtypes
    write_joblib(smk.output.refit, out.to_dict())


run(snakemake, main)  # noqa: F821
