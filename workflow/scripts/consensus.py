"""Rule consensus: the partial order of the variables by MR that every Rashomon-set member agrees on
(and the exact order of all linear models of the linear_exact scope)."""

from xaipipe.data import load_prepared
from xaipipe.io import read_csv, write_csv
from xaipipe.rashomon import consensus_study
from xaipipe.runner import run


def main(smk):
    out = consensus_study(
        load_prepared(smk.input.table, smk.input.info, smk.input.split),
        read_csv(smk.input.members, dtype={"family": str, "config_id": str}),
        read_csv(smk.input.mcr),
        read_csv(smk.input.linear_exact),
    )
    write_csv(smk.output.consensus, out.pairs)
    write_csv(smk.output.summary, out.summary)


run(snakemake, main)  # noqa: F821
