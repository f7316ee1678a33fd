"""Rule abalone_study: seed 001 Table 4.1 (the 324 gradient boosting models on Abalone) from the CV shards."""

import yaml

from xaipipe.io import read_csv, read_json, write_csv
from xaipipe.runner import get_logger, run
from xaipipe.studies import table_4_1_from_shards


def main(smk):
    study = smk.params.study
    with open(smk.input.reference, encoding="utf-8") as fh:
        published = yaml.safe_load(fh)["abalone_rashomon_top15"]["rows"]
    summary, comparison, pattern = table_4_1_from_shards(
        [read_csv(path) for path in smk.input.shards],
        published,
        grid=study["grid"],
        transform=study["transform"],
        dataset=read_json(smk.input.info)["dataset"],
        family=study["family"],
    )
    get_logger().info("best: %s", summary.iloc[0].to_dict())
    write_csv(smk.output.summary, summary)
    write_csv(smk.output.comparison, comparison)
    write_csv(smk.output.pattern, pattern)


run(snakemake, main)  # noqa: F821
