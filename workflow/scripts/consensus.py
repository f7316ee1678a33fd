"""Rule consensus: the partial order of the variables by MR that every Rashomon-set member agrees on."""

import pandas as pd

from xaipipe.explain.reliance import features_from_groups
from xaipipe.io import read_json, write_csv
from xaipipe.rashomon.consensus import consensus_tables
from xaipipe.runner import run


def main(smk):
    info = read_json(smk.input.info)
    out = consensus_tables(
        pd.read_csv(smk.input.members, dtype={"family": str, "config_id": str}),
        pd.read_csv(smk.input.mcr),
        pd.read_csv(smk.input.linear_exact),
        features=list(features_from_groups(info["features"], info.get("feature_groups"))),  # one-hot groups as one
        dataset=smk.wildcards.dataset,
    )
    write_csv(smk.output.consensus, out.pairs)
    write_csv(smk.output.summary, out.summary)


run(snakemake, main)  # noqa: F821
