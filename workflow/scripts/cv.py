"""Rule cv: K-fold CV of one family's grid with exact shared-prefix evaluation."""
import _src  # noqa: F401  (puts the package in src/ on sys.path)
from xaipipe.data.prepare import load_prepared
from xaipipe.io import write_csv, write_json
from xaipipe.models.cv import cross_validate_grid, select_best, summarize_cv
from xaipipe.models.grid import expand_grid
from xaipipe.runner import get_logger, run


def main(smk):
    p = smk.params.cv
    data = load_prepared(smk.input.table, smk.input.info, smk.input.split)
    table = cross_validate_grid(
        smk.wildcards.family, p["task"], p["grid"], data.X_train, data.y_train, data.folds,
        seed=p["seed"], options=p["options"], n_jobs=smk.threads,
    )
    table.insert(0, "dataset", data.dataset)
    summary = summarize_cv(table.drop(columns="dataset"), p["task"])
    summary.insert(0, "dataset", data.dataset)
    best = select_best(summary, p["selection"])
    params = expand_grid(p["grid"])[int(best["config_index"])]  # original types
    failed = summary.loc[summary["status"] == "failed", "config_id"].tolist()
    if failed:
        get_logger().warning("%d configuration(s) failed: %s", len(failed), failed)
    write_csv(smk.output.cv, table)
    write_csv(smk.output.summary, summary)
    write_json(smk.output.best, {
        "dataset": data.dataset,
        "task": p["task"],
        "family": smk.wildcards.family,
        "params": params,
        "config_id": best["config_id"],
        "selection_metric": p["selection"],
        "cv_mean": best[f"{p['selection']}_mean"],
        "cv_std": best[f"{p['selection']}_std"],
        "n_configs": int(len(summary)),
        "n_failed": len(failed),
        "failed_configs": failed,
        "seed": p["seed"],
        "options": p["options"],
    })


run(snakemake, main)  # noqa: F821
