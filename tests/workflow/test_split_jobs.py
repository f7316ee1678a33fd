"""Split jobs (tests/configs/split_jobs.yaml): a family's CV split into cv_shard jobs (config key
cv_shards) gives the unsplit cv, cv_summary and best files, and member refits in rashomon_refit jobs
(config key rashomon.refit_jobs) give the one-job Rashomon tables (the tiny configuration's clean
run is the reference)."""

from __future__ import annotations

import shutil

import pytest

from tests.workflow.conftest import copy_workflow, result_differences, snakemake

pytestmark = pytest.mark.integration

FILES = (
    "cv/gradient_boosting.csv",
    "cv/gradient_boosting_summary.csv",
    "best/gradient_boosting.json",
    "cv/linear_regression.csv",
    "best/linear_regression.json",
)
RASHOMON = (
    "sets.csv",
    "members.csv",
    "mcr.csv",
    "mcr_path.csv",
    "linear_exact.csv",
    "pd_envelope.csv",
    "pd_curves.csv",
    "member_predictions.npy",
    "member_predictions_index.csv",
)


def test_split_cv_equals_the_unsplit_cv(clean_tiny_run, mirror_dir, tmp_path):
    work = copy_workflow(tmp_path / "repo")
    args = [
        "--configfile",
        "config/config.yaml",
        "tests/configs/small.yaml",
        "tests/configs/tiny.yaml",
        "tests/configs/split_jobs.yaml",
        "--config",
        f"uci_mirror={mirror_dir}",
    ]
    models, rashomon = "results/tiny/models/airfoil", "results/tiny/rashomon/airfoil"
    snakemake(work, *[f"{models}/{f}" for f in FILES], *[f"{rashomon}/{f}" for f in RASHOMON], "--cores", "2", *args)
    # gradient boosting (2 grid prefix groups + 3 sampled replicates): 3 jobs of whole fit units;
    # linear regression has one fit unit: its 4 jobs deal the 5 folds
    shards = sorted(p.name for p in (work / models / "cv" / "shards").iterdir())
    assert shards == [f"gradient_boosting_{i}.joblib" for i in range(3)] + [
        f"linear_regression_{i}.joblib" for i in range(4)
    ]
    assert (work / "logs/tiny/benchmarks/cv/airfoil/gradient_boosting_2.tsv").is_file()
    # gradient boosting and the sampled ridge configurations: one rashomon_refit job each (the
    # other families' refits run in the rashomon job)
    refits = sorted(p.name for p in (work / rashomon / "refit").iterdir())
    assert refits == ["gradient_boosting.joblib", "ridge.joblib"]
    assert (work / "logs/tiny/benchmarks/rashomon/refit/airfoil/ridge.tsv").is_file()
    # the combined files equal the clean run's (apart from measured times)
    for name, root in (("ref", clean_tiny_run), ("split", work)):
        for f in [f"{models}/{f}" for f in FILES] + [f"{rashomon}/{f}" for f in RASHOMON]:
            (tmp_path / name / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(root / f, tmp_path / name / f)
    assert result_differences(tmp_path / "ref", tmp_path / "split") == []
    # ... and are not empty: the envelope came from the refit jobs' curves
    assert len((tmp_path / "split" / rashomon / "pd_envelope.csv").read_text().splitlines()) > 2
