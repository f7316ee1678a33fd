"""Rule model_reliance: MR of one fitted model on the test set (every estimator x loss) and split gain."""
import _src  # noqa: F401  (puts the package in src/ on sys.path)
from xaipipe.data.prepare import load_prepared
from xaipipe.explain.summary import reliance_report, split_gain_or_nan
from xaipipe.io import read_joblib, with_ids, write_csv
from xaipipe.runner import run

FIRST = ["dataset", "model", "feature", "estimator", "mr_ratio", "mr_difference"]


def main(smk):
    cfg = smk.params.reliance
    data = load_prepared(smk.input.table, smk.input.info, smk.input.split)
    model = read_joblib(smk.input.model)
    table = reliance_report(
        model, data.X_test, data.y_test, feature_names=data.features, feature_groups=data.feature_groups,
        estimators=cfg["estimators"], losses=smk.params.losses, n_repeats=cfg["n_repeats"],
        e_switch_max_rows=cfg["e_switch_max_rows"], seed=smk.params.seed, n_jobs=smk.threads,
    )
    ids = {"dataset": data.dataset, "model": smk.wildcards.family}
    table = with_ids(table, **ids)
    write_csv(smk.output.reliance, table[FIRST + [c for c in table.columns if c not in FIRST]])
    gain = split_gain_or_nan(model, data.features, data.feature_groups)
    write_csv(smk.output.split_gain, with_ids(gain, **ids))


run(snakemake, main)  # noqa: F821
