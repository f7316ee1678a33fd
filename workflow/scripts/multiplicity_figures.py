"""Rule multiplicity_figures: the widest viable prediction ranges and multiplicity along the exact ε-path
(kinds: xaipipe.plots.catalog)."""

from xaipipe.io import read_csv
from xaipipe.plots import draw_figures, figure_style, save_figures
from xaipipe.runner import run


def main(smk):
    inputs = {
        "rows": read_csv(smk.input.rows),
        "summary": read_csv(smk.input.summary),
        "path": read_csv(smk.input.path),  # the exact ε-path: every entry ε of a member
        "scope": smk.params.scope,
        "max_rows": smk.params.figure_rows,
        "title": f"{smk.wildcards.dataset}: predictive multiplicity of the Rashomon sets",
        "epsilon_mode": smk.params.epsilon_mode,
        "metric": smk.params.metric,
        "target_unit": smk.params.get("target_unit"),
    }
    with figure_style(smk.input.style):
        save_figures("multiplicity_figures", draw_figures("multiplicity_figures", inputs), smk.output)


run(snakemake, main)  # noqa: F821
