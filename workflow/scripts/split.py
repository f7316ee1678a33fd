"""Rule split: train/test rows and CV folds."""

import pandas as pd

from xaipipe.data.split import make_split
from xaipipe.io import read_json, write_json
from xaipipe.runner import run


def main(smk):
    info = read_json(smk.input.info)
    y = pd.read_csv(smk.input.table)[info["target"]].to_numpy()
    split = make_split(
        y, info["task"], test_size=smk.params.test_size, n_folds=smk.params.cv_folds, random_state=smk.params.seed
    )
    write_json(smk.output.split, split)


run(snakemake, main)  # noqa: F821
