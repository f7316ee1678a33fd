"""Rules rashomon / abalone_study_mcr: Rashomon sets, member MR and MCR of one model class."""
import _src  # noqa: F401  (puts the package in src/ on sys.path)
import pandas as pd

from xaipipe.data.prepare import load_prepared
from xaipipe.io import write_csv
from xaipipe.rashomon.mcr import pd_envelope_table, rashomon_reliance
from xaipipe.rashomon.sets import rashomon_path
from xaipipe.runner import get_logger, run

MCR_FIRST = ["dataset", "scope", "epsilon", "feature", "mcr_minus", "mcr_plus", "mr_reference", "n_members"]


def main(smk):
    p = smk.params.rashomon
    log = get_logger()
    data = load_prepared(smk.input.table, smk.input.info, smk.input.split)
    summary = pd.concat([pd.read_csv(path) for path in smk.input.summaries], ignore_index=True)
    members, mcr, groups = rashomon_reliance(
        summary, data.X_train, data.y_train, data.X_test, data.y_test,
        task=p["task"], metric=p["metric"], epsilons=p["epsilons"], epsilon_mode=p["epsilon_mode"],
        scopes=p["scopes"], feature_names=data.features, feature_groups=data.feature_groups,
        estimators=p["estimators"], loss=p["loss"], n_repeats=p["n_repeats"],
        e_switch_max_rows=p["e_switch_max_rows"], seed=p["seed"], options=p["options"],
        dataset=data.dataset, n_jobs=smk.threads,
    )
    log.info("%d member rows from %d fitted groups", len(members), len(groups))
    # eps-sensitivity of the sets of every scope
    sizes = []
    families = sorted(summary["family"].unique())
    scopes = ([(f, summary[summary["family"] == f]) for f in families] if "family" in p["scopes"] else [])
    if "cross_family" in p["scopes"] and len(families) > 1:
        scopes.append(("cross_family", summary))
    for name, part in scopes:
        table, _ = rashomon_path(part, metric=p["metric"], epsilons=p["epsilons"], mode=p["epsilon_mode"])
        sizes.append(table.assign(scope=name))
    sets = pd.concat(sizes, ignore_index=True)
    sets.insert(0, "dataset", data.dataset)
    # PD envelope over the default set of the figure scope
    scope = p["figure_scope"] if p["figure_scope"] in set(mcr["scope"]) else mcr["scope"].iloc[0]
    envelope, curves = pd_envelope_table(
        groups, members, data.X_test, scope=scope, epsilon=p["epsilon"], feature_names=data.features,
        feature_groups=data.feature_groups, top_k=p["pd"]["top_k"], estimator=p["estimators"][0],
        resolution=p["pd"]["resolution"], percentiles=(0.0, 1.0),
    )
    write_csv(smk.output.sets, sets)
    write_csv(smk.output.members, members)
    write_csv(smk.output.mcr, mcr[MCR_FIRST + [c for c in mcr.columns if c not in MCR_FIRST]])
    write_csv(smk.output.envelope, envelope)
    write_csv(smk.output.curves, curves)


run(snakemake, main)  # noqa: F821
