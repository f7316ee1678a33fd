"""Rule simulation_truth: the pipeline's estimates on the simulated datasets beside the DGP's truth."""

import pandas as pd

from xaipipe.config import CorrelatedSettings
from xaipipe.explain import DEPENDENT_ESTIMATORS
from xaipipe.io import read_csv, read_json, write_csv
from xaipipe.runner import get_logger, run
from xaipipe.studies import correlated_truth_table, truth_table


def _read(path, dataset, family):
    table = read_csv(path, keep_default_na=False, na_values=[""])
    return table.assign(dataset=dataset, family=family)


def main(smk):
    out, later = [], []
    for dataset, sidecar_path, prepared_path in zip(smk.params.datasets, smk.input.sidecars, smk.input.prepared):
        simulation = read_json(sidecar_path)["simulation"]
        parts = [p for p in smk.params.parts if p["dataset"] == dataset]
        tables = {}
        for key in ("reliance", "curves", "learner_pd", "learner_pfi"):
            found = [_read(p["tables"][key], dataset, p["family"]) for p in parts if key in p["tables"]]
            tables[key] = pd.concat(found, ignore_index=True) if found else None
        rel = tables["reliance"]
        if rel is not None:  # MR under dependent features (issue 35): compared after all the others
            dependent = rel["estimator"].isin(DEPENDENT_ESTIMATORS)
            # a cluster of grouped MR ("x1+x2") is no input of the DGP: no truth here
            later.append(
                (dataset, simulation, rel[dependent & ~rel["feature"].astype(str).str.contains("+", regex=False)])
            )
            tables["reliance"] = rel[~dependent]
        data = read_csv(prepared_path)
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
    # conditional and grouped MR on the simulated datasets (independent inputs: their truth is the
    # marginal one), then the correlated variants (issue 35): their rows after all the others
    for dataset, simulation, rel in later:
        if len(rel):
            out.append(
                truth_table(
                    simulation["dgp"],
                    dataset=dataset,
                    noise_sd=simulation["noise_sd"],
                    random_state=int(smk.params.seed),
                    reliance=rel.reset_index(drop=True),
                )
            )
    correlated = CorrelatedSettings.from_params(smk.params.settings)
    for dataset, sidecar_path in zip(smk.params.datasets, smk.input.sidecars):
        best = smk.params.correlated.get(dataset) or {}
        if not best:
            continue
        out.append(
            correlated_truth_table(
                read_json(sidecar_path)["simulation"],
                correlated,
                dataset=dataset,
                best_params={f: read_json(path)["params"] for f, path in best.items()},
            )
        )
        get_logger().info("%s: %d rows of its correlated variant", dataset, len(out[-1]))
    write_csv(smk.output.table, pd.concat(out, ignore_index=True))


run(snakemake, main)  # noqa: F821
