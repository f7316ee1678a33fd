"""Rule shap_interaction_summary: mean |SHAP interaction value| per pair from the SHAP job's interaction values, and its figures."""

from xaipipe.explain import shap_interaction_tables
from xaipipe.io import read_csv, read_json, with_ids, write_csv
from xaipipe.plots import draw_figures, figure_style, save_figures, with_unit
from xaipipe.runner import run


def main(smk):
    meta = read_json(smk.input.meta)
    pairs, matrix, summary = shap_interaction_tables(
        read_csv(smk.input.interactions), figure_class=smk.params.figure_class
    )
    ids = {"dataset": meta["dataset"], "model": meta["model"]}
    write_csv(smk.output.pairs, with_ids(pairs, **ids))
    write_csv(smk.output.matrix, with_ids(matrix, **ids))
    output = str(meta.get("output") or "model output")
    label = output.replace("_", "-")  # prediction / log-odds
    if not meta.get("classes") and output != "prediction":
        label += " of class 1"
    label = with_unit(label, output, smk.params.target_unit, inner=True)  # e.g. log-odds of malignant
    title = f"{meta['dataset']} / {meta['model']}"
    if meta.get("classes"):  # multiclass: the figures draw explain.figure_class (default: the first class)
        title += f" / class {smk.params.figure_class if smk.params.figure_class is not None else meta['classes'][0]}"
    inputs = {"summary": summary, "max_display": smk.params.max_display, "output_label": label, "title": title}
    with figure_style(smk.input.style):
        save_figures("shap_interaction_summary", draw_figures("shap_interaction_summary", inputs), smk.output)


run(snakemake, main)  # noqa: F821
