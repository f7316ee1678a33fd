"""Rule split: train/test rows and CV folds, checked against what the study's fits need; the logit
table's separation and rare-level risk (classification), before any fit."""

from xaipipe.data import load_prepared, make_checked_split
from xaipipe.io import read_csv, read_json, write_json
from xaipipe.models import logit_risks
from xaipipe.runner import get_logger, run


def main(smk):
    info = read_json(smk.input.info)
    y = read_csv(smk.input.table)[info["target"]].to_numpy()
    split = make_checked_split(
        y,
        info["task"],
        test_size=smk.params.test_size,
        n_folds=smk.params.cv_folds,
        random_state=smk.params.seed,
        dataset=info["dataset"],
        target=info["target"],
        positive_class=info.get("positive_class"),
        **smk.params.checks,
    )
    write_json(smk.output.split, split)
    checks = {"dataset": info["dataset"], "task": info["task"], "logit": None, "warnings": []}
    if info["task"] == "classification":  # the rows and design of the logit table (rule logit)
        data = load_prepared(smk.input.table, smk.input.info, smk.output.split)
        checks["logit"] = logit_risks(
            data.X_train,
            data.y_train,
            data.features,
            dataset=data.dataset,
            feature_groups=data.feature_groups,
            classes=data.classes or ["0", "1"],
            penalized=smk.params.penalized,
        )
        checks["warnings"] = checks["logit"].pop("warnings")
    for line in checks["warnings"]:
        get_logger().warning(line)
    write_json(smk.output.checks, checks)


run(snakemake, main)  # noqa: F821
