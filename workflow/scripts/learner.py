"""Rule learner: learner-PD / learner-PFI of one family's best configuration (Molnar et al. 2023)."""

import pandas as pd

from xaipipe.data.prepare import load_prepared
from xaipipe.explain.learner import learner_tables
from xaipipe.explain.summary import top_features
from xaipipe.io import read_json, write_csv
from xaipipe.runner import get_logger, run


def main(smk):
    cfg, p, rank = smk.params.learner, smk.params.cv, smk.params.ranking
    data = load_prepared(smk.input.table, smk.input.info, smk.input.split)
    top = top_features(
        pd.read_csv(smk.input.reliance),
        smk.params.top_k,
        estimator=rank["estimator"],
        loss=smk.params.loss,
        quantity=rank["quantity"],
    )
    get_logger().info("learner-PD for %s; %d refits", top, cfg["n_refits"])
    tables = learner_tables(
        smk.wildcards.family,
        p["task"],
        read_json(smk.input.best)["params"],
        data.X_train_raw,  # missing values stay: each refit imputes from its own training rows
        data.y_train,
        dataset=data.dataset,
        pd_features=top,
        feature_names=data.features,
        feature_groups=data.feature_groups,
        options=p["options"],
        n_refits=cfg["n_refits"],
        fraction=cfg["fraction"],
        resolution=cfg["resolution"],
        kind=cfg["grid"],
        percentiles=cfg["percentiles"],
        pfi_estimator=cfg["pfi_estimator"],
        n_repeats=cfg["n_repeats"],
        confidence=cfg["confidence"],
        random_state=p["seed"],
        n_jobs=smk.threads,
        classes=data.classes,  # multiclass: stratified refits, the PD of explain.figure_class
        pd_class=smk.params.get("figure_class"),
        imputer=data.imputer,
    )
    for name, frame in tables.items():
        write_csv(smk.output[name], frame)


run(snakemake, main)  # noqa: F821
