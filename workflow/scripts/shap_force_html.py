"""Rule shap_force_html: the interactive stacked force plot of one model's explained test rows."""

from xaipipe.explain import class_result
from xaipipe.io import read_joblib
from xaipipe.plots import save_force_html
from xaipipe.runner import run


def main(smk):
    result = class_result(
        read_joblib(smk.input.result), smk.params.get("figure_class")
    )  # a multiclass model: one class
    save_force_html(result, smk.output.html, random_state=smk.params.seed)


run(snakemake, main)  # noqa: F821
