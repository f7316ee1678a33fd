"""Rule prediction_intervals: the Rashomon prediction intervals of every scope of a regression dataset."""

import numpy as np

from xaipipe.config import PredictionIntervalSettings
from xaipipe.data import load_prepared
from xaipipe.io import read_csv, write_csv
from xaipipe.rashomon import prediction_interval_tables
from xaipipe.runner import run


def main(smk):
    s = PredictionIntervalSettings.from_params(smk.params.settings)
    data = load_prepared(smk.input.table, smk.input.info, smk.input.split)
    keys = {"dtype": {"family": str, "config_id": str}}
    out = prediction_interval_tables(
        data,
        np.load(smk.input.predictions, allow_pickle=False),
        read_csv(smk.input.index, **keys),
        read_csv(smk.input.members, **keys),
        epsilons=s.rashomon.epsilons,
        default_epsilon=s.rashomon.epsilon,
        epsilon_mode=s.rashomon.epsilon_mode,
        level=s.level,
        n_splits=s.n_splits,
        max_slack=s.max_slack,
        path_points=s.path_points,
        seed=s.rashomon.seed,
    )
    write_csv(smk.output.intervals, out.intervals)
    write_csv(smk.output.rows, out.rows)


run(snakemake, main)  # noqa: F821
