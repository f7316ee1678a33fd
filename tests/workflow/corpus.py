"""A corpus of tables of the shapes researchers bring, made here (no download): each is one
`datasets:` entry of a user's config and runs through the whole workflow in
tests/workflow/test_corpus.py.

=================  ==============  ===========================================================
dataset            task            shape
=================  ==============  ===========================================================
``mixed_wide``     regression      50 numeric columns + a 5-level and a 35-level text column, an
                                   ID column excluded with ``columns: {id: [...]}``: p >= 50
``rare_binary``    binary          4 % positives (``yes`` / ``no``), a 4-level text column
``three_class``    3 classes       a text column, missing values in numeric and text columns
                                   under ``missing: impute``, classes coded in a chosen order
                                   (``class_order``); a multiclass EBM
``seven_class``    7 classes       missing values under ``missing: drop_rows``; the SHAP check
                                   and LIME explain its XGBoost model
``missing_reg``    regression      missing values in two numeric columns and a text column
                                   under ``missing: impute``; an EBM
``one_feature``    regression      degenerate but valid (issue 52): one feature, one family with
                                   one configuration (a Rashomon set of one member)
``two_features``   binary          degenerate but valid: two features, two families
=================  ==============  ===========================================================

Every table is seeded and sorted by its response (adversarial row order: the split must not
depend on it). The responses depend on few columns, so the tests can check that the pipeline
finds them.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

#: The corpus' config entries (one per table; tiny grids come from tests/configs/small.yaml).
CORPUS_CONFIG = """\
version: corpus
datasets:
  airfoil: {enabled: false}
  mixed_wide:
    source: {kind: file, path: data/mixed_wide.csv}
    task: regression
    target: y
    categorical: [region, city]
    columns: {id: [record_id]}
    families: [linear_regression, gradient_boosting]
  rare_binary:
    source: {kind: file, path: data/rare_binary.csv}
    task: classification
    target: outcome
    positive_class: "yes"
    categorical: [segment]
    families: [logistic_regression, gradient_boosting]
  three_class:
    source: {kind: file, path: data/three_class.csv}
    task: classification
    target: species
    categorical: [site]
    class_order: [virginica, setosa, versicolor]
    missing: impute
    families: [logistic_regression, gradient_boosting, ebm]
  seven_class:
    source: {kind: file, path: data/seven_class.csv}
    task: classification
    target: grade
    missing: drop_rows
    families: [logistic_regression, xgboost]
  missing_reg:
    source: {kind: file, path: data/missing_reg.csv}
    task: regression
    target: y
    categorical: [kind]
    missing: impute
    families: [linear_regression, gradient_boosting, ebm]
  one_feature:
    source: {kind: file, path: data/one_feature.csv}
    task: regression
    target: y
    families: [linear_regression]
  two_features:
    source: {kind: file, path: data/two_features.csv}
    task: classification
    target: label
    positive_class: pos
    families: [logistic_regression, gradient_boosting]
threads: {rashomon: 1}
rashomon: {epsilons: [0.0, 0.05], epsilon: 0.05, estimators: [permutation]}
explain:
  shap_check: {dataset: seven_class, family: xgboost}
  lime: {dataset: seven_class, family: xgboost}
"""

DATASETS = ("mixed_wide", "rare_binary", "three_class", "seven_class", "missing_reg", "one_feature", "two_features")


def mixed_wide(n: int = 240, seed: int = 1) -> pd.DataFrame:
    """y = 3 x01 - 2 x02 + 2 [region = r3] + city effect (35 levels, 1 for the first 5) + noise."""
    rng = np.random.default_rng(seed)
    cols = {f"x{j:02d}": rng.normal(size=n) for j in range(1, 51)}
    region = rng.choice([f"r{k}" for k in range(1, 6)], size=n)
    city = np.array([f"c{k:02d}" for k in range(35)])[np.arange(n) % 35]
    rng.shuffle(city)
    y = (
        3 * cols["x01"]
        - 2 * cols["x02"]
        + 2 * (region == "r3")
        + np.isin(city, [f"c{k:02d}" for k in range(5)])
        + rng.normal(scale=0.5, size=n)
    )
    frame = pd.DataFrame({"record_id": [f"id{i:05d}" for i in range(n)], **cols, "region": region, "city": city})
    frame["y"] = y
    return frame.sort_values("y", kind="stable").reset_index(drop=True)


def rare_binary(n: int = 1000, seed: int = 6) -> pd.DataFrame:
    """40 positives among 1000 rows: the rows with the largest u + [segment = s1] + noise (seed 6:
    7, 18, 7 and 8 positives in segments s0..s3, so no segment separates the classes)."""
    rng = np.random.default_rng(seed)
    segment = rng.choice(["s0", "s1", "s2", "s3"], size=n)
    u, v, w = rng.normal(size=(3, n))
    score = u + 1.0 * (segment == "s1") + 1.0 * rng.normal(size=n)
    positive = score >= np.sort(score)[-40]
    frame = pd.DataFrame({"u": u, "segment": segment, "v": v, "w": w, "outcome": np.where(positive, "yes", "no")})
    return frame.sort_values("outcome", kind="stable").reset_index(drop=True)


def _with_missing(frame: pd.DataFrame, columns, share: float, rng) -> pd.DataFrame:
    frame = frame.copy()
    for col in columns:
        rows = rng.choice(len(frame), size=int(share * len(frame)), replace=False)
        frame.loc[rows, col] = np.nan
    return frame


def three_class(n: int = 360, seed: int = 3) -> pd.DataFrame:
    """Three species with class means on a and b; 8 % of a, c and site missing."""
    rng = np.random.default_rng(seed)
    species = np.repeat(["setosa", "versicolor", "virginica"], n // 3)
    centre = {"setosa": (-2.0, 0.0), "versicolor": (0.0, 2.0), "virginica": (2.0, 0.0)}
    a = np.array([centre[s][0] for s in species]) + rng.normal(size=n)
    b = np.array([centre[s][1] for s in species]) + rng.normal(size=n)
    frame = pd.DataFrame(
        {"a": a, "b": b, "c": rng.normal(size=n), "site": rng.choice(["north", "south"], size=n), "species": species}
    )
    frame["site"] = frame["site"].astype(object)
    return _with_missing(frame, ["a", "c", "site"], 0.08, rng)


def seven_class(n: int = 840, seed: int = 4) -> pd.DataFrame:
    """Grades A..G from thresholds of 2 z1 + z2 + noise; 3 % of z3 missing (rows dropped)."""
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(n, 4))
    score = 2 * z[:, 0] + z[:, 1] + 0.3 * rng.normal(size=n)
    grade = np.array(list("ABCDEFG"))[np.searchsorted(np.quantile(score, np.arange(1, 7) / 7), score)]
    frame = pd.DataFrame({f"z{j + 1}": z[:, j] for j in range(4)} | {"grade": grade})
    frame = _with_missing(frame, ["z3"], 0.03, rng)
    return frame.sort_values("grade", kind="stable").reset_index(drop=True)


def missing_reg(n: int = 260, seed: int = 5) -> pd.DataFrame:
    """y = 2 p + q + 1.5 [kind = k2] + noise; 10 % of p and q and 5 % of kind missing."""
    rng = np.random.default_rng(seed)
    p, q, r = rng.normal(size=(3, n))
    kind = rng.choice(["k1", "k2", "k3"], size=n)
    y = 2 * p + q + 1.5 * (kind == "k2") + rng.normal(scale=0.5, size=n)
    frame = pd.DataFrame({"p": p, "q": q, "r": r, "kind": kind, "y": y})
    frame["kind"] = frame["kind"].astype(object)
    frame = _with_missing(frame, ["p", "q"], 0.10, rng)
    return _with_missing(frame, ["kind"], 0.05, rng)


def one_feature(n: int = 200, seed: int = 11) -> pd.DataFrame:
    """y = 1.5 dose + noise: one feature."""
    rng = np.random.default_rng(seed)
    dose = rng.uniform(-2, 2, n)
    frame = pd.DataFrame({"dose": dose, "y": 1.5 * dose + rng.normal(0, 0.5, n)})
    return frame.sort_values("y", kind="stable").reset_index(drop=True)


def two_features(n: int = 200, seed: int = 12) -> pd.DataFrame:
    """P(pos) = logistic(2 a - b): two features."""
    rng = np.random.default_rng(seed)
    a, b = rng.normal(size=(2, n))
    label = np.where(rng.uniform(size=n) < 1 / (1 + np.exp(-(2 * a - b))), "pos", "neg")
    return pd.DataFrame({"a": a, "b": b, "label": label}).sort_values("label", kind="stable").reset_index(drop=True)


TABLES = {
    "mixed_wide": mixed_wide,
    "rare_binary": rare_binary,
    "three_class": three_class,
    "seven_class": seven_class,
    "missing_reg": missing_reg,
    "one_feature": one_feature,
    "two_features": two_features,
}


def write_corpus(folder: Path) -> dict[str, Path]:
    """Write every table of the corpus as ``<folder>/<dataset>.csv``."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = {}
    for name, make in TABLES.items():
        paths[name] = folder / f"{name}.csv"
        make().to_csv(paths[name], index=False)
    return paths
