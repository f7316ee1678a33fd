"""Rule simulation_truth: the pipeline's estimates on the simulated datasets beside the DGP's truth."""

import pandas as pd

from xaipipe.io import read_json, write_csv
from xaipipe.runner import get_logger, run
from xaipipe.studies.simulation import truth_table


def _read(path, dataset, family):
    table = pd.read_csv(path, keep_default_na=False, na_values=[""])
    return table.assign(dataset=dataset, family=family)


def main(smk):
    out = []
    for dataset, sidecar_path, prepared_path in zip(smk.params.datasets, smk.input.sidecars, smk.input.prepared):
        simulation = read_json(sidecar_path)["simulation"]
        parts = [p for p in smk.params.parts if p["dataset"] == dataset]
        tables = {}
        for key in ("reliance", "curves", "learner_pd", "learner_pfi"):
            found = [_read(p["tables"][key], dataset, p["family"]) for p in parts if key in p["tables"]]
            tables[key] = pd.concat(found, ignore_index=True) if found else None
        data = pd.read_csv(prepared_path)
        out.append(
            truth_table(
                simulation["dgp"],
                dataset=dataset,
                data=data,
                noise_sd=simulation["noise_sd"],
                random_state=int(smk.params.seed),
                **tables,
            )
        )
        get_logger().info("%s: %d estimates beside the truth", dataset, len(out[-1]))
    write_csv(smk.output.table, pd.concat(out, ignore_index=True))


run(snakemake, main)  # noqa: F821
