"""Rule learner: learner-PD / learner-PFI of one family's best configuration (Molnar et al. 2023)."""
import _src  # noqa: F401  (puts the package in src/ on sys.path)
import pandas as pd

from xaipipe.data.prepare import load_prepared
from xaipipe.explain.learner import estimator_factory, learner_pd_pfi
from xaipipe.explain.reliance import features_from_groups
from xaipipe.explain.summary import top_features
from xaipipe.io import read_json, with_ids, write_csv
from xaipipe.runner import get_logger, run


def main(smk):
    cfg = smk.params.learner
    p = smk.params.cv
    data = load_prepared(smk.input.table, smk.input.info, smk.input.split)
    best = read_json(smk.input.best)
    top = top_features(pd.read_csv(smk.input.reliance), smk.params.top_k,
                       estimator=smk.params.ranking["estimator"], loss=smk.params.loss,
                       quantity=smk.params.ranking["quantity"])
    get_logger().info("learner-PD for %s; %d refits", top, cfg["n_refits"])
    result = learner_pd_pfi(
        estimator_factory(smk.wildcards.family, p["task"], best["params"], options=p["options"]),
        data.X_train, data.y_train,
        feature_names=data.features, features=features_from_groups(data.features, data.feature_groups),
        pd_features=top, n_refits=cfg["n_refits"], fraction=cfg["fraction"], resolution=cfg["resolution"],
        kind=cfg["grid"], percentiles=tuple(cfg["percentiles"]), pfi_estimator=cfg["pfi_estimator"],
        n_repeats=cfg["n_repeats"], confidence=cfg["confidence"], random_state=p["seed"], n_jobs=smk.threads,
    )
    ids = {"dataset": data.dataset, "model": smk.wildcards.family}
    write_csv(smk.output.pd, with_ids(result.pd, **ids))
    write_csv(smk.output.pfi, with_ids(result.pfi, **ids))
    write_csv(smk.output.pd_refits, with_ids(result.pd_refits, **ids))
    write_csv(smk.output.pfi_refits, with_ids(result.pfi_refits, **ids))


run(snakemake, main)  # noqa: F821
