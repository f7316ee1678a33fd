"""Rule lime: LIME weights beside the SHAP values of the force-plot rows and a seeded sample of test rows."""

from xaipipe.config import LimeSettings
from xaipipe.data import load_prepared
from xaipipe.explain import class_result, lime_tables
from xaipipe.io import open_model, read_joblib, write_csv
from xaipipe.plots import figure_style, force_rows, plot_lime_vs_shap, save_figure
from xaipipe.runner import run


def main(smk):
    settings = LimeSettings.from_params(smk.params.settings)
    data = load_prepared(smk.input.table, smk.input.info, smk.input.split)
    shap = class_result(read_joblib(smk.input.shap), settings.figure_class)  # a multiclass model: one class
    named = {k: int(shap.row_index[i]) for k, i in force_rows(shap).items()}  # positions in X_test
    # a forest store: one block of trees at a time
    out = lime_tables(open_model(smk.input.model), data, shap, settings, named=named)
    ids = {"dataset": data.dataset, "family": smk.wildcards.family}
    write_csv(smk.output.comparison, out.comparison.assign(**ids))
    write_csv(smk.output.summary, out.summary.assign(**ids))
    with figure_style(smk.input.style):
        fig = plot_lime_vs_shap(out.comparison, named, title=f"{data.dataset} / {smk.wildcards.family}: LIME and SHAP")
        save_figure(fig, smk.output.pdf, smk.output.png)


run(snakemake, main)  # noqa: F821
