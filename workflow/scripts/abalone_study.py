"""Rule abalone_study: seed 001 Table 4.1, the 324 gradient boosting models on Abalone."""
import yaml

from xaipipe.data.prepare import load_prepared
from xaipipe.io import write_csv
from xaipipe.runner import get_logger, run
from xaipipe.studies.abalone import table_4_1


def main(smk):
    study = smk.params.study
    data = load_prepared(smk.input.table, smk.input.info, smk.input.split)
    with open(smk.input.reference, encoding="utf-8") as fh:
        published = yaml.safe_load(fh)["abalone_rashomon_top15"]["rows"]
    summary, comparison, pattern = table_4_1(
        data.X_train, data.y_train, data.folds, published, grid=study["grid"], transform=study["transform"],
        dataset=data.dataset, family=study["family"], random_state=smk.params.seed, n_jobs=smk.threads,
    )
    get_logger().info("best: %s", summary.iloc[0].to_dict())
    write_csv(smk.output.summary, summary)
    write_csv(smk.output.comparison, comparison)
    write_csv(smk.output.pattern, pattern)


run(snakemake, main)  # noqa: F821
