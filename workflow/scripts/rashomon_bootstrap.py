"""Rule rashomon_bootstrap: Rashomon importance distribution and MCR endpoint intervals (Donnelly et al. 2023)."""
import _src  # noqa: F401  (puts the package in src/ on sys.path)
from xaipipe.data.prepare import load_prepared
from xaipipe.explain.reliance import features_from_groups
from xaipipe.io import with_ids, write_csv
from xaipipe.rashomon.bootstrap import bootstrap_rashomon, mcr_summary, rid_summary
from xaipipe.runner import run


def main(smk):
    p, b = smk.params.rashomon, smk.params.bootstrap
    data = load_prepared(smk.input.table, smk.input.info, smk.input.split)
    result = bootstrap_rashomon(
        data.X_train, data.y_train, task=p["task"], grids=smk.params.grids, epsilon=p["epsilon"],
        epsilon_mode=p["epsilon_mode"], metric=p["metric"], n_bootstrap=b["n_bootstrap"], mr_data=b["mr_data"],
        **({"X_test": data.X_test, "y_test": data.y_test} if b["mr_data"] == "test" else {}),
        features=features_from_groups(data.features, data.feature_groups), feature_names=data.features,
        mr_estimator=b["estimator"], mr_loss=p["loss"], n_repeats=b["n_repeats"], options=p["options"],
        seed=p["seed"], random_state=p["seed"], n_jobs=smk.threads,
    )
    d = data.dataset
    write_csv(smk.output.models, with_ids(result.models, dataset=d))
    write_csv(smk.output.reliance, with_ids(result.reliance, dataset=d))
    write_csv(smk.output.sizes, with_ids(result.sizes, dataset=d))
    write_csv(smk.output.mcr, with_ids(result.mcr, dataset=d))
    write_csv(smk.output.rid, with_ids(rid_summary(result.reliance), dataset=d))
    write_csv(smk.output.mcr_summary, with_ids(mcr_summary(result.mcr, confidence=b["confidence"]), dataset=d))


run(snakemake, main)  # noqa: F821
