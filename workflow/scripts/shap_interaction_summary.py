"""Rule shap_interaction_summary: mean |SHAP interaction value| per pair from the SHAP job's interaction values, and its figures."""

import pandas as pd

from xaipipe.explain.dependence import shap_interaction_tables
from xaipipe.io import read_json, with_ids, write_csv
from xaipipe.plots.interactions import plot_shap_interaction_matrix, plot_shap_interaction_summary
from xaipipe.plots.style import figure_style, save_figure
from xaipipe.runner import run


def main(smk):
    meta = read_json(smk.input.meta)
    pairs, matrix, summary = shap_interaction_tables(pd.read_csv(smk.input.interactions))
    ids = {"dataset": meta["dataset"], "model": meta["model"]}
    write_csv(smk.output.pairs, with_ids(pairs, **ids))
    write_csv(smk.output.matrix, with_ids(matrix, **ids))
    label = str(meta.get("output") or "model output").replace("_", "-")  # prediction / log-odds
    title = f"{meta['dataset']} / {meta['model']}"
    k = smk.params.max_display
    with figure_style(smk.input.style):
        fig = plot_shap_interaction_matrix(summary, max_display=k, output_label=label, title=title)
        save_figure(fig, smk.output.matrix_pdf, smk.output.matrix_png)
        fig = plot_shap_interaction_summary(summary, max_display=k, output_label=label, title=title)
        save_figure(fig, smk.output.summary_pdf, smk.output.summary_png)


run(snakemake, main)  # noqa: F821
