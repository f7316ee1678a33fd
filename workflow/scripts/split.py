"""Rule split: train/test rows and CV folds, checked against what the study's fits need."""

import pandas as pd

from xaipipe.data import make_checked_split
from xaipipe.io import read_json, write_json
from xaipipe.runner import run


def main(smk):
    info = read_json(smk.input.info)
    y = pd.read_csv(smk.input.table)[info["target"]].to_numpy()
    split = make_checked_split(
        y,
        info["task"],
        test_size=smk.params.test_size,
        n_folds=smk.params.cv_folds,
        random_state=smk.params.seed,
        dataset=info["dataset"],
        target=info["target"],
        positive_class=info.get("positive_class"),
        **smk.params.checks,
    )
    write_json(smk.output.split, split)


run(snakemake, main)  # noqa: F821
