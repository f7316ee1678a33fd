"""A user's table as it comes (issue 32): bad tables stop before any fit with one line naming the
dataset and the column or key. Tables with missing values under `impute` and `drop_rows`, multiclass
targets and the manifest of a plain clone run end to end in the corpus (tests/workflow/test_corpus.py).

Cost (2 cores): ~1.5 min (two dry runs and two runs of the data rules of sixteen and five datasets).
"""

from __future__ import annotations

import hashlib
import re

import numpy as np
import pandas as pd
import pytest

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


def error_lines(log) -> list[str]:
    """The lines of the last error the script runner logged (a DataCheckError: one line per problem)."""
    lines = log.read_text().splitlines()
    first = max(i for i, ln in enumerate(lines) if re.match(r"^[\w.]+(Error|Exception): ", ln))
    out = [lines[first].split(": ", 1)[1]]
    for ln in lines[first + 1 :]:
        if not ln.startswith("dataset "):
            break
        out.append(ln)
    return out


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
    cases["na_error"] = ({"categorical": "[region]"}, "prepare", ["column 'x2' has 2 missing value(s)", "missing"])

    three = ok.copy()  # NaN in the target, a categorical and a numeric column: one run names all three
    three.loc[[1, 4], "y"] = np.nan
    three.loc[[2], "region"] = None
    three.loc[[3, 5, 7], "x1"] = np.nan
    three.to_csv(data / "na_three.csv", index=False)
    cases["na_three"] = ({"categorical": "[region]"}, "prepare", ["the target 'y' has 2 missing value(s)"])

    const = ok.assign(x2=1.5)
    const.to_csv(data / "constant.csv", index=False)
    cases["constant"] = ({"categorical": "[region]"}, "prepare", ["column 'x2' is constant (every value 1.5)"])

    ok.to_csv(data / "text_column.csv", index=False)
    cases["text_column"] = ({}, "prepare", ["column 'region' is text", "categorical", "columns.other"])

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
    cases.update(second_pass_tables(data, ok))
    return cases


def second_pass_tables(data, ok) -> dict:
    """Issue 52's cases: each is also run again with the fix its message names (FIXES)."""
    cases = {}
    inf = ok.copy()
    inf.loc[3, "x1"], inf.loc[5, "x2"] = np.inf, -np.inf
    inf.to_csv(data / "infinite.csv", index=False)
    cases["infinite"] = (
        {"categorical": "[region]"},
        "prepare",
        ["column 'x1' has 1 infinite value(s) (inf) in 60 rows", "set datasets.infinite.missing to drop_rows"],
    )
    thousands = ok.assign(x2=[f"{1000 + 3.5 * i:,.1f}" for i in range(60)])
    thousands.to_csv(data / "thousands.csv", index=False)
    cases["thousands"] = (
        {"categorical": "[region]"},
        "prepare",
        ["column 'x2' is text, but 100% of its 60 values are numbers", "read_options.thousands: ','"],
    )
    marker = ok.assign(x2=ok["x2"].round(3).astype(str))
    marker.loc[[2, 7], "x2"] = "?"
    marker.to_csv(data / "marker.csv", index=False)
    cases["marker"] = (
        {"categorical": "[region]"},
        "prepare",
        ["2 are '?', a missing-value marker", "read_options.na_values: ['?'] and set datasets.marker.missing"],
    )
    frame(220).to_csv(data / "continuous_class.csv", index=False)
    cases["continuous_class"] = (
        {"task": "classification", "categorical": "[region]", "families": "[logistic_regression]"},
        "prepare",
        ["has 220 classes in 220 rows", "set datasets.continuous_class.task: regression"],
    )
    ok.assign(y=np.nan, response=ok["y"]).to_csv(data / "empty_target.csv", index=False)
    cases["empty_target"] = (
        {"categorical": "[region]", "missing": "impute"},
        "prepare",
        ["the target 'y' is missing in every one of the 60 rows", "datasets.empty_target.target must name"],
    )
    return cases


#: the fix each second-pass message names, as the entry's new keys
FIXES = {
    "infinite": {"missing": "drop_rows"},
    "thousands": {"source": "{kind: file, path: data/thousands.csv, read_options: {thousands: ','}}"},
    "marker": {
        "source": "{kind: file, path: data/marker.csv, read_options: {na_values: ['?']}}",
        "missing": "drop_rows",
    },
    "continuous_class": {"task": "regression", "families": "[linear_regression]"},
    "empty_target": {"target": "response", "drop": "[y]"},
}


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
        if dataset == "na_three":  # one error, one line per column, each with the dataset and the fix
            error = error_lines(work / "logs" / "bad" / "data" / rule / f"{dataset}.log")
            assert len(error) == 3 and all(ln.startswith("dataset 'na_three': ") for ln in error), error
            assert "column 'x1' has 3 missing value(s)" in error[1] and "column 'region' has 1" in error[2], error
            assert all("datasets.na_three.missing" in ln for ln in error), error
        for step in later:
            assert not (work / "logs" / "bad" / "data" / step / f"{dataset}.log").exists(), (dataset, step)

    # the second pass's fixes, followed as the messages say: every table prepares, with the values it holds
    config = "version: bad\ndatasets:\n  airfoil: {enabled: false}\n"
    for name, fix in FIXES.items():
        config += entry(name, **{"families": "[linear_regression]", **cases[name][0], **fix})
    (work / "own.yaml").write_text(config)
    proc = snakemake(work, "--cores", "2", *[f"results/bad/data/{d}/prepared.csv" for d in FIXES], *BASE, check=False)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    prepared = {d: pd.read_csv(work / "results" / "bad" / "data" / d / "prepared.csv") for d in FIXES}
    assert len(prepared["infinite"]) == 58 and np.isfinite(prepared["infinite"][["x1", "x2"]].to_numpy()).all()
    np.testing.assert_allclose(prepared["thousands"]["x2"], 1000 + 3.5 * np.arange(60))
    assert len(prepared["marker"]) == 58 and prepared["marker"]["x2"].dtype == np.float64
    assert prepared["continuous_class"]["y"].nunique() == 220
    assert len(prepared["empty_target"]) == 60 and "response" in prepared["empty_target"].columns

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
# Configs that mean what they say (issue 52, item 3)
# --------------------------------------------------------------------------- #
def test_configs_that_mean_what_they_say(tmp_path):
    import subprocess
    import sys

    work = copy_workflow(tmp_path / "repo")
    (work / "data").mkdir()
    frame(60).to_csv(work / "data" / "mine.csv", index=False)
    mine = entry("mine", categorical="[region]", families="[linear_regression]")
    head = "version: cfg\ndatasets:\n  airfoil: {enabled: false}\n"

    def dry(*files, check=False):
        proc = snakemake(work, "-n", "--configfile", *files, check=check)
        return proc.returncode, proc.stdout + proc.stderr

    # a second datasets: block (PyYAML would keep it and drop the first): an error with file and lines
    (work / "own.yaml").write_text(head + mine + "datasets:\n  concrete: {enabled: false}\n")
    rc, out = dry("config/config.yaml", "own.yaml")
    assert rc != 0
    assert f"{work / 'own.yaml'}, line 10: duplicate key 'datasets' (first at line 2); YAML keeps only the last" in out
    # invalid YAML in a --configfile: Snakemake stops before the workflow; the check names file and line
    (work / "own.yaml").write_text(head.replace("false}", "false"))
    rc, out = dry("config/config.yaml", "own.yaml")
    assert rc != 0 and "Config file is not valid JSON or YAML" in out
    check = subprocess.run(
        [sys.executable, "-m", "xaipipe.config_files", "own.yaml"], cwd=work, capture_output=True, text=True
    )
    assert check.returncode == 1 and check.stderr.startswith("error: own.yaml, line 4, column 1: not valid YAML")
    # invalid YAML in config/config.yaml itself: named with its line before Snakemake reads it
    text = (work / "config" / "config.yaml").read_text()
    (work / "config" / "config.yaml").write_text(text.replace("version:", "version: [", 1))
    (work / "own.yaml").write_text(head + mine)
    rc, out = dry("own.yaml")
    assert rc != 0 and "config/config.yaml, line " in out and "not valid YAML" in out
    (work / "config" / "config.yaml").write_text(text)
    # the defaults given after the user's file: a warning that names the keys it sets back; the run goes on
    rc, out = dry("own.yaml", "config/config.yaml", check=True)
    assert f"config: {work / 'config' / 'config.yaml'}, given after {work / 'own.yaml'}, sets back its defaults " in out
    assert "over version (line 1)" in out
    # --configfile given twice: Snakemake drops the first list; the warning gives the command that reads both
    proc = snakemake(work, "-n", "--configfile", "own.yaml", "--configfile", "config/config.yaml")
    assert (
        "config: --configfile is given 2 times: Snakemake reads only the files of the last one (config/config.yaml), "
        "so own.yaml is not read at all; give every file after one --configfile: --configfile config/config.yaml "
        "own.yaml" in proc.stdout + proc.stderr
    )
    # a later user's file replacing the dataset's target: a warning naming both files and lines
    (work / "later.yaml").write_text("datasets:\n  mine:\n    target: x2\n")
    rc, out = dry("config/config.yaml", "own.yaml", "later.yaml", check=True)
    assert (
        f"config: datasets.mine.target in {work / 'own.yaml'} line 7 ('y') is replaced by datasets.mine.target" in out
    )
    # a foreign class as a family stops at start-up, before any job: nothing runs, nothing is written
    (work / "marker.txt").unlink(missing_ok=True)
    (work / "own.yaml").write_text(
        head
        + entry("mine", categorical="[region]", families="[popen]")
        + "families:\n  popen:\n    estimators: {regression: 'subprocess:Popen'}\n"
    )
    proc = snakemake(work, "--cores", "1", "--configfile", "config/config.yaml", "own.yaml", check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert "config key families.popen.estimators.regression: 'subprocess:Popen' is the class subprocess.Popen, " in out
    assert not (work / "marker.txt").exists() and not (work / "results").exists()
