"""Rule abalone_study: seed 001 Table 4.1, the 324 gradient boosting models on Abalone."""
import _src  # noqa: F401  (puts the package in src/ on sys.path)
import pandas as pd
import yaml

from xaipipe.data.prepare import load_prepared
from xaipipe.io import write_csv
from xaipipe.rashomon.abalone import compare_with_published, ranking_pattern, thesis_study
from xaipipe.runner import get_logger, run


def main(smk):
    study = smk.params.study
    data = load_prepared(smk.input.table, smk.input.info, smk.input.split)
    table = thesis_study(data.X_train, data.y_train, data.folds, study["grid"], transform=study["transform"],
                         seed=smk.params.seed, n_jobs=smk.threads)
    get_logger().info("best: %s", table.iloc[0].to_dict())
    with open(smk.input.reference, encoding="utf-8") as fh:
        published = pd.DataFrame(yaml.safe_load(fh)["abalone_rashomon_top15"]["rows"])
    summary = table.copy()
    summary.insert(0, "family", "gradient_boosting")
    summary.insert(0, "dataset", data.dataset)
    summary["status"] = summary.get("status", "ok")
    write_csv(smk.output.summary, summary)
    write_csv(smk.output.comparison, compare_with_published(table, published))
    ours = ranking_pattern(table).assign(source="reproduced")
    theirs = ranking_pattern(published.rename(columns={"cv_rmse": "rmse_mean"})).assign(source="published")
    write_csv(smk.output.pattern, pd.concat([ours, theirs], ignore_index=True))


run(snakemake, main)  # noqa: F821
