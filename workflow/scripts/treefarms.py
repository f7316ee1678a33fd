"""Rule treefarms: the exact sparse-tree Rashomon set (TreeFARMS) of a binary classification dataset."""

from xaipipe.config import TreeFarmsSettings
from xaipipe.data import load_prepared
from xaipipe.io import read_csv, write_csv, write_json
from xaipipe.rashomon import treefarms_scope
from xaipipe.runner import get_logger, run


def main(smk):
    s = TreeFarmsSettings.from_params(smk.params.settings)
    data = load_prepared(smk.input.table, smk.input.info, smk.input.split)
    out = treefarms_scope(
        data,
        epsilons=s.rashomon.epsilons,
        regularization=s.regularization,
        depth_budget=s.depth_budget,
        n_thresholds=s.n_thresholds,
        max_trees=s.max_trees,
        n_repeats=s.n_repeats,
        seed=s.rashomon.seed,
        default_epsilon=s.rashomon.epsilon,
        grid_members=read_csv(smk.input.members, dtype={"family": str, "config_id": str}),
        options=dict(s.rashomon.options.get("decision_tree", {})),
    )
    sizes = dict(zip(out.summary["epsilon"], out.summary["n_trees"]))
    get_logger().info("TreeFARMS sets (epsilon: trees): %s", sizes)
    for name, frame in out.to_frames().items():
        write_csv(smk.output[name], frame)
    write_json(smk.output.timbertrek, out.decision_paths)


run(snakemake, main)  # noqa: F821
