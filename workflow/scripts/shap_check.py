"""Rule shap_check: KernelSHAP against exact TreeSHAP on a seeded sample of test rows."""

import numpy as np

from xaipipe.data import importance_groups, load_prepared
from xaipipe.explain import class_choice, kernel_vs_tree_shap
from xaipipe.io import open_model, write_csv
from xaipipe.runner import run


def main(smk):
    cfg = smk.params.check
    data = load_prepared(smk.input.table, smk.input.info, smk.input.split)
    n = len(data.X_test)
    rows = np.sort(np.random.default_rng(smk.params.seed).choice(n, size=min(cfg["n_rows"], n), replace=False))
    check = kernel_vs_tree_shap(
        open_model(smk.input.model),  # a forest store: TreeSHAP a block of trees at a time, f(x) block by block
        data.X_test[rows],
        data.X_train,
        n_samples=cfg["n_samples"],
        background_size=cfg["background_size"],
        feature_names=data.features,
        feature_groups=importance_groups(data),  # by_feature per variable (one-hot and user groups), as the SHAP tables
        random_state=smk.params.seed,
        **class_choice(data.classes, smk.params.get("figure_class")),  # a multiclass model: one class
    )
    ids = {"dataset": data.dataset, "family": smk.wildcards.family}
    if data.classes is not None:
        ids["class"] = data.classes[check.details["class_index"]]
    write_csv(smk.output.summary, check.summary.assign(**ids, n_rows=len(rows)))
    write_csv(smk.output.by_feature, check.by_feature.assign(**ids))


run(snakemake, main)  # noqa: F821
