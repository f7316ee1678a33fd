"""A user's table as it comes (issue 32): bad tables stop before any fit with one line naming the
dataset and the column or key; a table with missing values runs end to end under `impute` and
`drop_rows`; the manifest of a plain clone says so.

Cost (2 cores, nice'd, under the load of other jobs): the bad-input test ~1 min (two dry runs and one
run of the data rules of eleven datasets), the missing-values run ~5 min (two datasets, three families
in all, the small configuration's grids) plus ~10 s for the report.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys

import joblib
import numpy as np
import pandas as pd
import pytest

from tests.conftest import REPO

from .conftest import copy_workflow, snakemake

pytestmark = pytest.mark.integration

BASE = ["--configfile", "config/config.yaml", "tests/configs/small.yaml", "tests/configs/tiny.yaml", "own.yaml"]


def frame(n: int, seed: int = 7) -> pd.DataFrame:
    """y = 2 x1 + 0.5 x2 + 3 [region = north] + noise (the README's worked example)."""
    rng = np.random.default_rng(seed)
    region = rng.choice(["north", "south", "east"], size=n)
    x1, x2 = rng.normal(size=n), rng.uniform(0, 10, size=n)
    y = 2 * x1 + 0.5 * x2 + 3 * (region == "north") + rng.normal(scale=0.3, size=n)
    return pd.DataFrame({"x1": x1, "region": region, "x2": x2, "y": y})


def entry(name: str, **keys) -> str:
    keys = {"source": f"{{kind: file, path: data/{name}.csv}}", "task": "regression", "target": "y", **keys}
    return f"  {name}:\n" + "".join(f"    {k}: {v}\n" for k, v in keys.items())


def last_error(log) -> str:
    """The exception line that the script runner logs last."""
    lines = [ln for ln in log.read_text().splitlines() if re.match(r"^[\w.]+(Error|Exception): ", ln)]
    assert lines, log.read_text()[-2000:]
    return lines[-1]


# --------------------------------------------------------------------------- #
# Bad inputs: one line, nothing fitted
# --------------------------------------------------------------------------- #
def bad_tables(data) -> dict:
    """dataset -> (extra keys, the rule that must fail, words its one error line must hold)."""
    ok = frame(60)
    ok.to_csv(data / "few_rows.csv", index=False)  # rewritten below; a valid table to start from
    cases = {}

    text = "x1,value,x2,value,y\n" + "\n".join(f"{i},{i % 3},{i},{i % 5},{i % 7}" for i in range(40)) + "\n"
    (data / "dup_header.csv").write_text(text)
    cases["dup_header"] = ({}, "canonical", ["duplicate column name(s) 'value' (columns 2, 4)"])

    ok.to_csv(data / "unknown_target.csv", index=False)
    cases["unknown_target"] = ({"target": "price", "categorical": "[region]"}, "canonical", ["target 'price'"])

    ok.to_csv(data / "wrong_sha.csv", index=False)
    sha = hashlib.sha256(b"something else").hexdigest()
    cases["wrong_sha"] = (
        {"source": f"{{kind: file, path: data/wrong_sha.csv, sha256: {sha}}}", "categorical": "[region]"},
        "canonical",
        ["checksum mismatch", "wrong_sha.csv"],
    )

    na = ok.copy()
    na.loc[[3, 8], "x2"] = np.nan
    na.to_csv(data / "na_error.csv", index=False)
    cases["na_error"] = ({"categorical": "[region]"}, "prepare", ["['x2'] contain missing values", "missing"])

    const = ok.assign(x2=1.5)
    const.to_csv(data / "constant.csv", index=False)
    cases["constant"] = ({"categorical": "[region]"}, "prepare", ["['x2'] are constant"])

    ok.to_csv(data / "text_column.csv", index=False)
    cases["text_column"] = ({}, "prepare", ["non-numeric feature(s) ['region']", "categorical"])

    yes_no = ok.assign(y=np.where(ok["y"] > ok["y"].median(), "yes", "no"))
    yes_no.to_csv(data / "yes_no.csv", index=False)
    cases["yes_no"] = (
        {"task": "classification", "categorical": "[region]", "families": "[logistic_regression]"},
        "prepare",
        ["give datasets.yes_no.positive_class", "['no', 'yes']"],
    )

    ok.assign(region_north=np.arange(60.0)).to_csv(data / "collision.csv", index=False)
    cases["collision"] = ({"categorical": "[region]"}, "prepare", ["one-hot column 'region_north'", "collides"])

    frame(12).to_csv(data / "few_rows.csv", index=False)
    cases["few_rows"] = ({"categorical": "[region]"}, "split", ["12 rows are too few", "split.cv_folds"])

    few = ok.assign(y=np.where(np.arange(60) < 5, "rare", "common"))
    few.to_csv(data / "few_class.csv", index=False)
    cases["few_class"] = (
        {
            "task": "classification",
            "positive_class": "rare",
            "categorical": "[region]",
            "families": "[logistic_regression]",
        },
        "split",
        ["class 1 (positive_class 'rare') of the target 'y' has 5 row(s)", "split.cv_folds"],
    )
    return cases


def test_bad_inputs_stop_before_any_fit(tmp_path):
    work = copy_workflow(tmp_path / "repo")
    data = work / "data"
    data.mkdir()
    cases = bad_tables(data)
    config = "version: bad\ndatasets:\n  airfoil: {enabled: false}\n"
    for name, (keys, _, _) in cases.items():
        keys = {"families": "[linear_regression]", **keys}
        config += entry(name, **keys)
    (work / "own.yaml").write_text(config)
    # every dataset's CV of its one family: the targets that must never be reached
    targets = [
        f"results/bad/models/{d}/cv/{'logistic_regression' if 'families' in k else 'linear_regression'}.csv"
        for d, (k, _, _) in cases.items()
    ]
    proc = snakemake(work, "--cores", "2", "-k", *targets, *BASE, check=False)
    assert proc.returncode != 0
    assert not (work / "results" / "bad" / "models").exists(), "something was fitted"
    assert not (work / "logs" / "bad" / "models").exists()
    for dataset, (_, rule, words) in cases.items():
        line = last_error(work / "logs" / "bad" / "data" / rule / f"{dataset}.log")
        assert f"'{dataset}'" in line or f"datasets.{dataset}" in line, line
        for word in words:
            assert word in line, (dataset, line)
        later = {"canonical": ("prepare", "split"), "prepare": ("split",), "split": ()}[rule]
        for step in later:
            assert not (work / "logs" / "bad" / "data" / step / f"{dataset}.log").exists(), (dataset, step)

    # a key typo: one line with the suggestion, no schema dump, at workflow start
    (work / "own.yaml").write_text(
        "version: bad\ndatasets:\n  airfoil: {enabled: false}\n" + entry("text_column").replace("target:", "targte:")
    )
    proc = snakemake(work, "-n", *BASE, check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert "datasets.text_column: unknown key 'targte' (did you mean 'target'?)" in out
    assert "Failed validating" not in out and "'description'" not in out
    # a file that does not exist: the run does not start, the message names the file
    (work / "own.yaml").write_text(
        "version: bad\ndatasets:\n  airfoil: {enabled: false}\n"
        + entry("nowhere", source="{kind: file, path: data/nowhere.csv}", categorical="[region]")
    )
    proc = snakemake(work, "-n", *BASE, check=False)
    assert proc.returncode != 0 and "data/nowhere.csv" in proc.stdout + proc.stderr


# --------------------------------------------------------------------------- #
# Missing values end to end, in a plain clone
# --------------------------------------------------------------------------- #
OWN = """\
version: own
datasets:
  airfoil: {enabled: false}
  my_impute:
    source: {kind: file, path: data/my_impute.csv}
    task: regression
    target: y
    categorical: [region]
    missing: impute
    families: [linear_regression, gradient_boosting]
  my_drop:
    source: {kind: file, path: data/my_drop.csv}
    task: regression
    target: y
    categorical: [region]
    missing: drop_rows
    families: [linear_regression]
threads: {rashomon: 1}
rashomon: {epsilons: [0.0, 0.05], epsilon: 0.05, estimators: [permutation]}
"""


def with_missing(n: int, seed: int) -> pd.DataFrame:
    out = frame(n, seed)
    rng = np.random.default_rng(seed + 1)
    out.loc[rng.random(n) < 0.1, "x1"] = np.nan
    out.loc[rng.random(n) < 0.05, "x2"] = np.nan
    out.loc[rng.random(n) < 0.08, "region"] = None
    out.loc[rng.random(n) < 0.03, "y"] = np.nan
    return out


@pytest.fixture(scope="module")
def missing_run(tmp_path_factory, mirror_dir):
    """The study on two tables with missing values, run in a git clone that imports its own src/."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    work = copy_workflow(tmp_path_factory.mktemp("missing") / "repo")
    shutil.copyfile(REPO / ".gitignore", work / ".gitignore")
    for args in (["init", "-q"], ["add", "-A"], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "c"]):
        subprocess.run(["git", "-C", str(work), *args], check=True, capture_output=True)
    (work / "data").mkdir()
    with_missing(200, 7).to_csv(work / "data" / "my_impute.csv", index=False)
    with_missing(150, 9).to_csv(work / "data" / "my_drop.csv", index=False)
    (work / "own.yaml").write_text(OWN)
    env = {**os.environ, "PYTHONPATH": str(work / "src")}  # as `pip install -e .` in the clone would
    env.pop("XAIPIPE_TMPDIR", None)
    args = [sys.executable, "-m", "snakemake", *BASE, "--config", f"uci_mirror={mirror_dir}"]
    for extra in (["--cores", "2"], ["--report", "report.html"]):
        proc = subprocess.run([*args, *extra], cwd=work, capture_output=True, text=True, env=env, timeout=1800)
        assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    return work


def test_impute_and_drop_rows_give_every_result(missing_run):
    res = missing_run / "results" / "own"
    source = with_missing(200, 7)
    info = json.loads((res / "data" / "my_impute" / "prepared.json").read_text())
    assert info["missing"]["policy"] == "impute" and info["missing"]["rows_dropped"] == int(source["y"].isna().sum())
    assert info["missing"]["imputed"]["region"] == int((source["region"].isna() & source["y"].notna()).sum())
    drop = json.loads((res / "data" / "my_drop" / "prepared.json").read_text())
    kept = with_missing(150, 9).notna().all(axis=1)
    assert drop["n_rows"] == int(kept.sum()) and drop["missing"]["rows_dropped"] == int((~kept).sum())
    assert "removed" in (missing_run / "logs" / "own" / "data" / "prepare" / "my_drop.log").read_text()

    metrics = pd.read_csv(res / "tables" / "test_metrics.csv").set_index(["dataset", "model"])
    assert metrics.loc[("my_impute", "linear_regression"), "r2"] > 0.8
    assert metrics.loc[("my_drop", "linear_regression"), "r2"] > 0.9
    mr = pd.read_csv(res / "tables" / "model_reliance.csv")
    mine = mr[(mr.dataset == "my_impute") & (mr.estimator == "permutation")]
    assert set(mine["feature"]) == {"x1", "region", "x2"} and np.isfinite(mine["mr_difference"]).all()
    figures = res / "figures" / "my_impute"
    for name in ("model_reliance", "ice", "shap_bar", "learner_pd"):
        assert (figures / "gradient_boosting" / f"{name}.pdf").stat().st_size > 1000, name
    assert (figures / "rashomon" / "rid.pdf").stat().st_size > 1000
    assert (missing_run / "report.html").stat().st_size > 100_000


def test_every_fit_imputes_from_its_own_training_rows(missing_run):
    """The CV table equals scikit-learn's cross_validate of Pipeline(imputer, model) on the same folds
    (the imputer refitted on each fold's training rows), and the saved model's test predictions are
    those of the model on the test rows imputed with the training split's fill values."""
    from sklearn.base import clone
    from sklearn.linear_model import LinearRegression
    from sklearn.model_selection import cross_validate
    from sklearn.pipeline import Pipeline

    from xaipipe.data.impute import make_imputer
    from xaipipe.data.prepare import load_prepared

    d = missing_run / "results" / "own" / "data" / "my_impute"
    data = load_prepared(d / "prepared.csv", d / "prepared.json", d / "split.json")
    assert np.isnan(data.X_train_raw).any() and not np.isnan(data.X_test).any()
    imputer = make_imputer(data.features, data.feature_groups)
    pipe = Pipeline([("impute", imputer), ("model", LinearRegression())])
    oracle = cross_validate(pipe, data.X_train_raw, data.y_train, cv=data.folds, scoring="neg_root_mean_squared_error")
    cv = pd.read_csv(missing_run / "results" / "own" / "models" / "my_impute" / "cv" / "linear_regression.csv")
    np.testing.assert_allclose(cv.sort_values("fold")["rmse"], -oracle["test_score"], rtol=1e-10)
    model = joblib.load(
        missing_run / "results" / "own" / "models" / "my_impute" / "fitted" / "linear_regression.joblib"
    )
    fitted = clone(pipe).fit(data.X_train_raw, data.y_train)
    np.testing.assert_allclose(model.predict(data.X_test), fitted.predict(data.X_test_raw), rtol=1e-10)


def test_manifest_of_a_plain_clone(missing_run):
    manifest = json.loads((missing_run / "results" / "own" / "manifest.json").read_text())
    head = subprocess.run(["git", "-C", str(missing_run), "rev-parse", "HEAD"], capture_output=True, text=True)
    assert manifest["git"]["commit"] == head.stdout.strip()
    assert manifest["git"]["dirty"] is False and manifest["git"]["changed"] == []
    assert {"data/my_drop.csv", "data/my_impute.csv", "own.yaml"} <= set(manifest["git"]["untracked"])
    assert manifest["xaipipe"] == {"path": str((missing_run / "src" / "xaipipe").resolve()), "from_checkout": True}
