"""Rule dependence_figures: PD beside ALE, the second-order ALE, and Friedman's H² (total and pairs)
(kinds: xaipipe.plots.catalog)."""

from xaipipe.io import read_csv
from xaipipe.plots import draw_figures, figure_style, save_figures
from xaipipe.runner import run
from xaipipe.studies import importance_captions


def main(smk):
    ale = read_csv(smk.input.ale, keep_default_na=False, na_values=[""])
    title = f"{smk.wildcards.dataset} / {smk.wildcards.family}"
    if "class" in ale.columns and len(ale):  # multiclass: the tables hold explain.figure_class
        title += f" / class {ale['class'].iloc[0]}"
    inputs = {
        "ale": ale,
        "ale_2d": read_csv(smk.input.ale_2d),
        "table": read_csv(smk.input.h_statistic),  # the H² table
        "max_features": smk.params.figure_features,
        "max_display": smk.params.max_display,
        "title": title,
        "target_unit": smk.params.get("target_unit"),
        # the H² bootstrap SE's coverage on the dataset's twin, where `snakemake twins` has run
        "coverage": importance_captions(
            read_csv(smk.input.twins[0]) if len(smk.input.twins) else None, smk.wildcards.dataset, smk.wildcards.family
        ),
    }
    with figure_style(smk.input.style):
        save_figures("dependence_figures", draw_figures("dependence_figures", inputs), smk.output)


run(snakemake, main)  # noqa: F821
