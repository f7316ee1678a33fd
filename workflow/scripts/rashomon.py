"""Rules rashomon / abalone_study_mcr: Rashomon sets, member MR and MCR of one model class."""

import numpy as np
import pandas as pd

from xaipipe.config import RashomonSettings
from xaipipe.data import load_prepared
from xaipipe.explain import class_choice
from xaipipe.io import atomic_path, read_csv, read_joblib, write_csv
from xaipipe.models import forest_block_setting
from xaipipe.rashomon import mcr_study
from xaipipe.runner import get_logger, run


def main(smk):
    settings = RashomonSettings.from_params(smk.params.settings)
    data = load_prepared(smk.input.table, smk.input.info, smk.input.split)
    summary = pd.concat([read_csv(path) for path in smk.input.summaries], ignore_index=True)
    # rashomon.refit_jobs: some families' refits came from rashomon_refit jobs (None: all here)
    refits = [read_joblib(path) for path in smk.input.get("refits", [])] or None
    out = mcr_study(
        data,
        settings,
        summary,
        refits=refits,
        n_jobs=smk.threads,
        # large forests: refitted in blocks of trees into scratch forest stores, read a block at a time
        forest_blocks=forest_block_setting(smk.config.get("large_data")),  # memory only: results are equal
        # a multiclass model's PD envelope: the class of explain.figure_class (default the first); binary: class 1
        pd_class_index=class_choice(data.classes, settings.figure_class).get("class_index", 1),
    )
    get_logger().info("%d member rows from %d fitted groups", len(out.members), out.n_groups)
    if data.classes is not None:  # multiclass: the envelope is one class's probability; name it
        choice = class_choice(data.classes, settings.figure_class)
        out.envelope.insert(1, "class", data.classes[choice["class_index"]])
    frames = out.to_frames()
    for name in ("sets", "members", "mcr", "path", "envelope", "curves", "linear_exact"):
        if name in smk.output.keys():
            write_csv(smk.output[name], frames[name])
    if "predictions" in smk.output.keys():  # the members' test predictions (issue 35: multiplicity)
        with atomic_path(smk.output.predictions) as tmp, open(tmp, "wb") as fh:  # .npy: the same array, the same bytes
            np.save(fh, out.predictions, allow_pickle=False)
        write_csv(smk.output.prediction_index, frames["prediction_index"])


run(snakemake, main)  # noqa: F821
