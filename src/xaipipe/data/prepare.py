"""Preparation of a canonical table into a model-ready table (the thesis' choices).

Per dataset, configurable in the ``datasets`` config section:

* ``drop``: columns removed (thesis: ``attack-angle`` for Airfoil,
  ``free_sulfur_dioxide`` for Wine Quality; 001 §5.1, §5.3);
* ``one_hot``: categorical columns expanded to one 0/1 column per level,
  recorded as a *feature group* so that model reliance can permute them together
  (thesis: Abalone's ``Sex`` -> ``Sex_F``, ``Sex_I``, ``Sex_M``);
* ``variant`` (Wine Quality): ``white`` (the thesis' 4898 wines), ``red``, or
  ``both`` with a ``color_red`` 0/1 feature;
* ``positive_class`` (Breast Cancer): the diagnosis coded 1 (``M``, malignant).

The correlation matrix (Pearson) is computed on the numeric columns *before*
``drop`` (the thesis chose the drops from it: Figs 5.1, 5.4, 5.7).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np
import pandas as pd

__all__ = ["PreparedData", "prepare_table", "correlation_matrix", "check_features", "load_prepared"]


def check_features(frame: pd.DataFrame, dataset: str, columns: list[str]) -> None:
    """Reject columns that are all-NaN, contain NaN, or are constant.

    Raises
    ------
    ValueError
        Naming the dataset and the offending column(s).
    """
    all_nan = [c for c in columns if frame[c].isna().all()]
    if all_nan:
        raise ValueError(f"dataset {dataset!r}: column(s) {all_nan} are entirely NaN; drop them in config datasets.{dataset}.drop")
    some_nan = [c for c in columns if frame[c].isna().any()]
    if some_nan:
        raise ValueError(f"dataset {dataset!r}: column(s) {some_nan} contain missing values")
    constant = [c for c in columns if frame[c].nunique(dropna=False) <= 1]
    if constant:
        raise ValueError(
            f"dataset {dataset!r}: column(s) {constant} are constant and carry no information; "
            f"drop them in config datasets.{dataset}.drop"
        )


def prepare_table(
    canonical: pd.DataFrame, sidecar: Mapping[str, Any], options: Mapping[str, Any] | None = None
) -> tuple[pd.DataFrame, dict, pd.DataFrame]:
    """Apply the preparation choices of ``options`` to a canonical table.

    Parameters
    ----------
    canonical : DataFrame
        Output of :func:`xaipipe.data.sources.load_canonical`.
    sidecar : mapping
        Its sidecar (task, target, column roles).
    options : mapping
        The dataset's entry of the ``datasets`` config section (keys ``drop``,
        ``one_hot``, ``variant``, ``positive_class``; all optional).

    Returns
    -------
    prepared : DataFrame
        Columns ``row_id`` (row of the canonical table), the features (float64)
        and the target (float64 for regression, int 0/1 for classification).
    info : dict
        ``dataset``, ``task``, ``target``, ``features``, ``feature_groups``
        (group name -> member columns, one-hot groups only), ``dropped``,
        ``one_hot``, ``variant``, ``positive_class``, ``n_rows``, ``class_counts``.
    correlation_input : DataFrame
        Numeric columns before ``drop`` (target included), for
        :func:`correlation_matrix`.

    Raises
    ------
    ValueError
        Unknown columns in ``drop`` / ``one_hot``, unknown ``variant`` or
        ``positive_class``, non-numeric features left, NaN or constant columns.
    """
    options = dict(options or {})
    dataset = sidecar["dataset"]
    task = sidecar["task"]
    target = sidecar["target"]
    features = list(sidecar["feature_columns"])
    frame = canonical.copy()
    frame.insert(0, "row_id", np.arange(len(frame), dtype=np.int64))

    variant = options.get("variant")
    if dataset == "wine_quality":
        variant = variant or "white"
        if variant not in ("white", "red", "both"):
            raise ValueError(f"datasets.wine_quality.variant must be white, red or both, got {variant!r}")
        if variant != "both":
            frame = frame[frame["color"] == variant]
        else:
            frame["color_red"] = (frame["color"] == "red").astype(float)
            features = features + ["color_red"]
    elif variant is not None:
        raise ValueError(f"datasets.{dataset}.variant is only defined for wine_quality")

    positive = options.get("positive_class")
    class_counts = None
    if task == "classification":
        positive = positive or "M"
        levels = sorted(frame[target].unique())
        if positive not in levels:
            raise ValueError(f"datasets.{dataset}.positive_class {positive!r} is not a level of {target!r} {levels}")
        frame[target] = (frame[target] == positive).astype(np.int64)
        class_counts = {str(k): int(v) for k, v in frame[target].value_counts().sort_index().items()}
    elif positive is not None:
        raise ValueError(f"datasets.{dataset}.positive_class is only defined for classification datasets")

    numeric_before_drop = [c for c in features + [target] if pd.api.types.is_numeric_dtype(frame[c])]
    correlation_input = frame[numeric_before_drop].reset_index(drop=True)

    drop = list(options.get("drop") or [])
    unknown = [c for c in drop if c not in features]
    if unknown:
        raise ValueError(f"datasets.{dataset}.drop names unknown column(s) {unknown}; features are {features}")
    features = [c for c in features if c not in drop]

    one_hot = list(options.get("one_hot") or [])
    unknown = [c for c in one_hot if c not in features]
    if unknown:
        raise ValueError(f"datasets.{dataset}.one_hot names unknown column(s) {unknown}; features are {features}")
    groups: dict[str, list[str]] = {}
    for col in one_hot:
        levels = sorted(frame[col].astype(str).unique())
        members = [f"{col}_{lvl}" for lvl in levels]
        for lvl, name in zip(levels, members):
            frame[name] = (frame[col].astype(str) == lvl).astype(float)
        pos = features.index(col)
        features = features[:pos] + members + features[pos + 1 :]
        groups[col] = members

    non_numeric = [c for c in features if not pd.api.types.is_numeric_dtype(frame[c])]
    if non_numeric:
        raise ValueError(
            f"dataset {dataset!r}: non-numeric feature(s) {non_numeric}; list them in datasets.{dataset}.one_hot or drop"
        )
    check_features(frame, dataset, features)
    prepared = frame[["row_id"] + features + [target]].reset_index(drop=True)
    prepared[features] = prepared[features].astype(np.float64)
    if task == "regression":
        prepared[target] = prepared[target].astype(np.float64)
    info = {
        "dataset": dataset,
        "task": task,
        "target": target,
        "features": features,
        "feature_groups": groups,
        "dropped": drop,
        "one_hot": one_hot,
        "variant": variant,
        "positive_class": positive,
        "n_rows": int(len(prepared)),
        "class_counts": class_counts,
    }
    return prepared, info, correlation_input


def correlation_matrix(frame: pd.DataFrame) -> pd.DataFrame:
    """Pearson correlation matrix (``pandas.DataFrame.corr``), variables in column order.

    Returns a square DataFrame with a leading ``variable`` column so that it
    round-trips through CSV.
    """
    corr = frame.corr(method="pearson")
    corr.insert(0, "variable", corr.index)
    return corr.reset_index(drop=True)


@dataclass
class PreparedData:
    """Model-ready arrays of one dataset, split as recorded in ``split.json``.

    Attributes
    ----------
    X_train, X_test : ndarray of shape (n, p), float64
    y_train, y_test : ndarray of shape (n,)
    folds : list of (train_idx, valid_idx)
        Positions into ``X_train`` of the K cross-validation folds.
    features : list of str
    feature_groups : dict
    task : str
    target : str
    dataset : str
    train_rows, test_rows : ndarray
        Row positions in ``prepared.csv``.
    """

    X_train: np.ndarray
    X_test: np.ndarray
    y_train: np.ndarray
    y_test: np.ndarray
    folds: list
    features: list
    feature_groups: dict
    task: str
    target: str
    dataset: str
    train_rows: np.ndarray
    test_rows: np.ndarray


def load_prepared(prepared_csv, prepared_json, split_json) -> PreparedData:
    """Load ``prepared.csv`` + ``prepared.json`` + ``split.json`` into arrays."""
    from ..io import read_json
    from .split import folds_from_split

    info = read_json(prepared_json)
    split = read_json(split_json)
    frame = pd.read_csv(prepared_csv)
    missing = [c for c in info["features"] + [info["target"]] if c not in frame.columns]
    if missing:
        raise ValueError(f"{prepared_csv}: missing columns {missing} listed in {prepared_json}")
    X = frame[info["features"]].to_numpy(dtype=np.float64)
    y = frame[info["target"]].to_numpy()
    y = y.astype(np.int64) if info["task"] == "classification" else y.astype(np.float64)
    train = np.asarray(split["train"], dtype=np.int64)
    test = np.asarray(split["test"], dtype=np.int64)
    return PreparedData(
        X_train=X[train],
        X_test=X[test],
        y_train=y[train],
        y_test=y[test],
        folds=folds_from_split(split),
        features=list(info["features"]),
        feature_groups=dict(info.get("feature_groups") or {}),
        task=info["task"],
        target=info["target"],
        dataset=info["dataset"],
        train_rows=train,
        test_rows=test,
    )
