"""Rule illustration_tree: Fig 2.1's regression tree of Diabetes (fitted model + node table)."""

from xaipipe.data import read_canonical
from xaipipe.io import read_json, write_csv, write_joblib
from xaipipe.runner import run
from xaipipe.studies import fit_diabetes_tree, tree_table


def main(smk):
    options = dict(smk.params.options)
    frame = read_canonical(smk.input.table, read_json(smk.input.sidecar)) if "table" in smk.input.keys() else None
    tree = fit_diabetes_tree(
        frame,
        features=tuple(options["features"]),
        target=options["target"],
        max_depth=int(options["max_depth"]),
        random_state=int(smk.params.seed),
    )
    write_joblib(smk.output.model, tree)
    write_csv(smk.output.table, tree_table(tree))


run(snakemake, main)  # noqa: F821
