"""Rule lime: LIME weights beside the SHAP values of the force-plot rows and a seeded sample of test rows."""

import numpy as np

from xaipipe.data.prepare import load_prepared
from xaipipe.explain.lime import compare_lime_shap, lime_explanations, lime_shap_summary
from xaipipe.explain.shapley import class_result
from xaipipe.io import open_model, read_joblib, write_csv
from xaipipe.plots.lime import plot_lime_vs_shap
from xaipipe.plots.shap_force import force_rows
from xaipipe.plots.style import figure_style, save_figure
from xaipipe.runner import run


def main(smk):
    cfg, seed = smk.params.lime, smk.params.seed
    data = load_prepared(smk.input.table, smk.input.info, smk.input.split)
    shap = class_result(read_joblib(smk.input.shap), smk.params.get("figure_class"))  # a multiclass model: one class
    named = {k: int(shap.row_index[i]) for k, i in force_rows(shap).items()}  # positions in X_test
    others = np.setdiff1d(shap.row_index, list(named.values()))
    extra = np.random.default_rng(seed).choice(others, size=min(cfg["n_rows"], len(others)), replace=False)
    rows = sorted({*named.values(), *map(int, extra)})
    lime = lime_explanations(
        open_model(smk.input.model),  # a forest store: one block of trees at a time
        data.X_test,
        data.X_train,
        rows=rows,
        feature_names=data.features,
        output=shap.output,  # SHAP's output space
        feature_groups=data.feature_groups,  # a one-hot group is one categorical LIME feature, as in SHAP
        num_samples=cfg["num_samples"],
        random_state=seed,
        class_index=shap.details.get("class_index"),
    )
    comparison = compare_lime_shap(lime, shap)
    ids = {"dataset": data.dataset, "family": smk.wildcards.family}
    role = {v: k for k, v in named.items()}
    write_csv(smk.output.comparison, comparison.assign(**ids))
    summary = lime_shap_summary(comparison)
    summary.insert(1, "force_plot_row", summary["row"].map(role).fillna(""))
    write_csv(smk.output.summary, summary.assign(**ids))
    with figure_style(smk.input.style):
        fig = plot_lime_vs_shap(comparison, named, title=f"{data.dataset} / {smk.wildcards.family}: LIME and SHAP")
        save_figure(fig, smk.output.pdf, smk.output.png)


run(snakemake, main)  # noqa: F821
