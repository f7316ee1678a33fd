"""Rule test_metrics: all datasets' test metrics, best configurations, confusion matrices."""
import _src  # noqa: F401  (puts the package in src/ on sys.path)
import pandas as pd

from xaipipe.io import write_csv
from xaipipe.runner import run


def main(smk):
    table = pd.concat([pd.read_csv(p) for p in smk.input.tables], ignore_index=True)
    write_csv(smk.output.table, table)
    write_csv(smk.output.best, table[["dataset", "task", "model", "selection_metric", "cv_mean", "cv_std",
                                      "config_id", "n_train", "n_test"]])
    clf = table[table["task"] == "classification"]
    long = clf.melt(id_vars=["dataset", "model"], value_vars=["tn", "fp", "fn", "tp"],
                    var_name="cell", value_name="count")
    long["true_class"] = long["cell"].map({"tn": 0, "fp": 0, "fn": 1, "tp": 1})
    long["predicted_class"] = long["cell"].map({"tn": 0, "fp": 1, "fn": 0, "tp": 1})
    long["count"] = long["count"].astype(int)
    write_csv(smk.output.confusion, long[["dataset", "model", "true_class", "predicted_class", "count"]]
              .sort_values(["dataset", "model", "true_class", "predicted_class"]))


run(snakemake, main)  # noqa: F821
