"""Rule illustration: one table of the thesis' chapter 2-3 illustrations on the seed's simulated data."""

from xaipipe.data import simulate
from xaipipe.io import write_csv
from xaipipe.runner import get_logger, run
from xaipipe.studies import ILLUSTRATIONS, illustration_table


def main(smk):
    name, data, seed = smk.params.illustration, dict(smk.params.data), int(smk.params.seed)
    frame = None
    if ILLUSTRATIONS[name][1]:
        frame = simulate(
            data["dgp"], n=int(data["n"]), p=int(data["p"]), noise_sd=float(data["noise_sd"]), random_state=seed
        )
    table = illustration_table(
        name, frame, test_size=float(data["test_size"]), random_state=seed, **dict(smk.params.options)
    )
    get_logger().info("%s: %d rows", name, len(table))
    write_csv(smk.output.table, table)


run(snakemake, main)  # noqa: F821
