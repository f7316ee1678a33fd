"""Rule multiplicity: predictive multiplicity of every Rashomon scope (ε grid, exact ε-path, per test row)."""

import numpy as np

from xaipipe.data import load_prepared
from xaipipe.io import read_csv, write_csv
from xaipipe.rashomon import multiplicity_tables
from xaipipe.runner import run


def main(smk):
    p = smk.params
    data = load_prepared(smk.input.table, smk.input.info, smk.input.split)
    out = multiplicity_tables(
        np.load(smk.input.predictions, allow_pickle=False),
        read_csv(smk.input.index, dtype={"family": str, "config_id": str}),
        read_csv(smk.input.members, dtype={"family": str, "config_id": str}),
        task=data.task,
        epsilons=p.epsilons,
        default_epsilon=p.epsilon,
        row_ids=data.test_rows,
        y_true=data.y_test,
        capacity=p.capacity and data.task == "classification",
        dataset=data.dataset,
    )
    write_csv(smk.output.summary, out.multiplicity)
    write_csv(smk.output.path, out.path)
    write_csv(smk.output.rows, out.rows)


run(snakemake, main)  # noqa: F821
