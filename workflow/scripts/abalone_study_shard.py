"""Rule abalone_study_cv: one shard of the Table 4.1 CV (some prefix groups of the grid, every fold)."""

from xaipipe.data import load_prepared
from xaipipe.io import write_csv
from xaipipe.runner import run
from xaipipe.studies import study_cv_shard


def main(smk):
    study = smk.params.study
    data = load_prepared(smk.input.table, smk.input.info, smk.input.split)
    summary = study_cv_shard(
        data.X_train,
        data.y_train,
        data.folds,
        grid=study["grid"],
        shard=int(smk.wildcards.shard),
        n_shards=smk.params.n_shards,
        transform=study["transform"],
        random_state=smk.params.seed,
        n_jobs=smk.threads,
    )
    # CSV (not joblib): its fit_time_s column is a measured time, which the result comparisons skip
    write_csv(smk.output.shard, summary)


run(snakemake, main)  # noqa: F821
