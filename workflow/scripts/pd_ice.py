"""Rule pd_ice: PD / ICE / c-ICE / d-ICE of the top-k variables by MR and the 2-D PD of the top pair."""
import _src  # noqa: F401  (puts the package in src/ on sys.path)
import pandas as pd

from xaipipe.data.prepare import load_prepared
from xaipipe.explain.pdp import effects_table, explain_feature, explain_pair, pair_table
from xaipipe.explain.summary import top_features
from xaipipe.io import read_joblib, with_ids, write_csv
from xaipipe.runner import get_logger, run


def main(smk):
    cfg = smk.params.pd
    data = load_prepared(smk.input.table, smk.input.info, smk.input.split)
    model = read_joblib(smk.input.model)
    reliance = pd.read_csv(smk.input.reliance)
    top = top_features(reliance, cfg["top_k"], estimator=smk.params.ranking["estimator"],
                       loss=smk.params.loss, quantity=smk.params.ranking["quantity"])
    extra = [f for f in smk.params.extra if f not in top]  # variables of thesis figures
    get_logger().info("top-%d variables by MR: %s; also for thesis figures: %s", cfg["top_k"], top, extra)
    output = "predict" if data.task == "regression" else cfg["classification_output"]
    common = dict(feature_names=data.features, output=output, kind=cfg["grid"],
                  percentiles=tuple(cfg["percentiles"]), max_batch_rows=cfg["max_batch_rows"])
    effects = [
        explain_feature(model, data.X_test, name, feature_groups=data.feature_groups, resolution=cfg["resolution"],
                        anchor=cfg["anchor"], smooth=cfg["smooth"], row_ids=data.test_rows, **common)
        for name in top + extra
    ]
    curves = effects_table(effects, max_curves=cfg["max_curves"], random_state=0)
    # rank by MR (1 = largest); 0 for variables computed only for a thesis figure
    curves.insert(0, "rank", curves["feature"].map({name: i + 1 for i, name in enumerate(top)}).fillna(0).astype(int))
    ids = {"dataset": data.dataset, "model": smk.wildcards.family}
    write_csv(smk.output.curves, with_ids(curves, **ids))
    numeric = [f for f in top if f not in data.feature_groups]
    if len(numeric) >= 2:
        pairs = pair_table(explain_pair(model, data.X_test, tuple(numeric[:2]),
                                        resolution=cfg["pair_resolution"], **common))
    else:  # fewer than two numeric top variables: no 2-D PD
        pairs = pd.DataFrame(columns=["feature_1", "feature_2", "value_1", "value_2", "pd"])
    write_csv(smk.output.pairs, with_ids(pairs, **ids))


run(snakemake, main)  # noqa: F821
