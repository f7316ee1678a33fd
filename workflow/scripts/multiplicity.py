"""Rule multiplicity: predictive multiplicity of every Rashomon scope (ε grid, exact ε-path, per test row) and its figure."""

import pandas as pd

from xaipipe.data.prepare import load_prepared
from xaipipe.io import read_npy, write_csv
from xaipipe.plots.multiplicity import plot_multiplicity
from xaipipe.plots.style import figure_style, save_figure
from xaipipe.rashomon.multiplicity import multiplicity_tables
from xaipipe.runner import run


def main(smk):
    p = smk.params
    data = load_prepared(smk.input.table, smk.input.info, smk.input.split)
    out = multiplicity_tables(
        read_npy(smk.input.predictions),
        pd.read_csv(smk.input.index, dtype={"family": str, "config_id": str}),
        pd.read_csv(smk.input.members, dtype={"family": str, "config_id": str}),
        task=data.task,
        epsilons=p.epsilons,
        default_epsilon=p.epsilon,
        row_ids=data.test_rows,
        y_true=data.y_test,
        capacity=p.multiplicity["capacity"] and data.task == "classification",
        dataset=data.dataset,
    )
    write_csv(smk.output.summary, out["multiplicity"])
    write_csv(smk.output.path, out["path"])
    write_csv(smk.output.rows, out["rows"])
    with figure_style(smk.input.style):
        fig = plot_multiplicity(
            out["rows"],
            out["multiplicity"],
            scope=p.scope,
            max_rows=p.multiplicity["figure_rows"],
            title=f"{data.dataset}: predictive multiplicity of the Rashomon sets",
        )
        save_figure(fig, smk.output.pdf, smk.output.png)


run(snakemake, main)  # noqa: F821
