"""Preparation of a canonical table into a model-ready table (the thesis' choices).

The choices come from the dataset's registry entry (``config/datasets.yaml``,
recorded in the canonical sidecar) and its options in the ``datasets`` config
section:

* ``drop``: columns removed (thesis: ``attack-angle`` for Airfoil,
  ``free_sulfur_dioxide`` for Wine Quality; 001 §5.1, §5.3);
* ``categorical`` (registry) / ``one_hot`` (option, overrides the list):
  categorical columns expanded to one 0/1 column per level, recorded as a
  *feature group* so that model reliance can permute them together (thesis:
  Abalone's ``Sex`` -> ``Sex_F``, ``Sex_I``, ``Sex_M``);
* ``variant``: one of the entry's declared ``variants`` (Wine Quality: ``white``,
  the thesis' 4898 wines, ``red``, or ``both`` with a ``color_red`` 0/1 feature);
* ``positive_class`` (binary classification): the target value coded 1 (Breast
  Cancer: ``M``, malignant);
* ``class_order`` (classification with more than two classes): the target's
  labels in the order coded ``0 .. K-1`` (default: the labels sorted as text).
  A multiclass target is coded ``0 .. K-1`` and ``prepared.json`` records the
  labels (``classes``) and their codes (``class_coding``); a binary target keeps
  its 0/1 coding by ``positive_class`` and its record is unchanged
  (``docs/multiclass.md``).

The correlation matrix (Pearson) is computed on the numeric columns *before*
``drop`` (the thesis chose the drops from it: Figs 5.1, 5.4, 5.7).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

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
        raise ValueError(
            f"dataset {dataset!r}: column(s) {all_nan} are entirely NaN; drop them in config datasets.{dataset}.drop"
        )
    some_nan = [c for c in columns if frame[c].isna().any()]
    if some_nan:
        counts = {c: int(frame[c].isna().sum()) for c in some_nan}
        raise ValueError(
            f"dataset {dataset!r}: column(s) {some_nan} contain missing values ({counts} rows); impute or "
            f"remove them before, or drop the column(s) in config datasets.{dataset}.drop"
        )
    constant = [c for c in columns if frame[c].nunique(dropna=False) <= 1]
    if constant:
        raise ValueError(
            f"dataset {dataset!r}: column(s) {constant} are constant and carry no information; "
            f"drop them in config datasets.{dataset}.drop"
        )


_DEFAULT_POSITIVE = ({"0", "1"}, "1"), ({"False", "True"}, "True"), ({"false", "true"}, "true")


def _encode_target(frame: pd.DataFrame, dataset: str, target: str, positive: Any, order: Any = None) -> tuple:
    """Code a classification target in place: 0/1 for two classes, ``0 .. K-1`` for more.

    Returns ``(positive class or None, class counts, class labels or None)``: a binary
    target gives its positive class and ``None`` labels; a multiclass target gives
    ``None`` and its labels in code order (``order``, default sorted as text).
    """
    if frame[target].isna().any():
        raise ValueError(
            f"dataset {dataset!r}: the target {target!r} has {int(frame[target].isna().sum())} missing values"
        )
    levels = sorted(frame[target].astype(str).unique())
    if len(levels) < 2:
        raise ValueError(
            f"dataset {dataset!r}: the classification target {target!r} has a single class {levels}; "
            "a classifier needs two or more"
        )
    if len(levels) > 2:
        return (None, *_encode_multiclass(frame, dataset, target, levels, positive, order))
    if order is not None:
        raise ValueError(
            f"datasets.{dataset}.class_order is only defined for targets with more than two classes; "
            f"{target!r} has two {levels}: give datasets.{dataset}.positive_class instead"
        )
    if positive is None:
        positive = next((p for lv, p in _DEFAULT_POSITIVE if set(levels) == lv), None)
        if positive is None:
            raise ValueError(
                f"dataset {dataset!r}: give datasets.{dataset}.positive_class, the class of "
                f"{target!r} coded 1: one of {levels}"
            )
    positive = str(positive)
    if positive not in levels:
        raise ValueError(f"datasets.{dataset}.positive_class {positive!r} is not a level of {target!r} {levels}")
    frame[target] = (frame[target].astype(str) == positive).astype(np.int64)
    counts = {str(k): int(v) for k, v in frame[target].value_counts().sort_index().items()}
    return positive, counts, None


def _encode_multiclass(frame, dataset, target, levels, positive, order) -> tuple[dict, list[str]]:
    """``0 .. K-1`` coding of a target with ``K > 2`` classes (in place): counts by code and labels."""
    if positive is not None:
        raise ValueError(
            f"datasets.{dataset}.positive_class is only defined for binary targets; {target!r} has "
            f"{len(levels)} classes {levels[:10]}: remove the key (datasets.{dataset}.class_order orders the classes)"
        )
    if order is None:
        labels = levels
    else:
        labels = [str(c) for c in order]
        if sorted(labels) != levels or len(set(labels)) != len(labels):
            raise ValueError(
                f"datasets.{dataset}.class_order {labels} must list each class of {target!r} once: {levels}"
            )
    code = {label: k for k, label in enumerate(labels)}
    frame[target] = frame[target].astype(str).map(code).astype(np.int64)
    counts = {str(k): int(v) for k, v in frame[target].value_counts().sort_index().items()}
    return counts, labels


def prepare_table(
    canonical: pd.DataFrame, sidecar: Mapping[str, Any], options: Mapping[str, Any] | None = None
) -> tuple[pd.DataFrame, dict, pd.DataFrame]:
    """Apply the preparation choices of ``options`` to a canonical table.

    Parameters
    ----------
    canonical : DataFrame
        Output of :func:`xaipipe.data.sources.load_canonical`.
    sidecar : mapping
        Its sidecar: task, target, column roles, and the registry's declared
        ``categorical_columns``, ``positive_class``, ``variants``.
    options : mapping
        Keys ``drop``, ``one_hot`` (overrides the sidecar's categorical
        columns), ``variant``, ``positive_class`` (overrides the sidecar's),
        ``class_order`` (multiclass); all optional
        (:func:`xaipipe.data.registry.preparation_options`).

    Returns
    -------
    prepared : DataFrame
        Columns ``row_id`` (row of the canonical table), the features (float64)
        and the target (float64 for regression, int 0/1 for binary and
        ``0 .. K-1`` for multiclass classification).
    info : dict
        ``dataset``, ``task``, ``target``, ``features``, ``feature_groups``
        (group name -> member columns, one-hot groups only), ``dropped``,
        ``one_hot``, ``variant``, ``positive_class``, ``n_rows``, ``class_counts``
        (by code); multiclass targets also ``n_classes``, ``classes`` (labels in
        code order) and ``class_coding`` (label -> code).
    correlation_input : DataFrame
        Numeric columns before ``drop`` (target included), for
        :func:`correlation_matrix`.

    Raises
    ------
    ValueError
        Naming the dataset and the column or config key: unknown columns in
        ``drop`` / ``one_hot``, an unknown ``variant`` or ``positive_class``, a
        ``class_order`` that does not list every class once, ``positive_class``
        on a multiclass target, a classification target with one class or
        with missing values, a constant regression target, non-numeric features not declared
        categorical, NaN or constant columns.
    """
    options = dict(options or {})
    dataset = sidecar["dataset"]
    task = sidecar["task"]
    target = sidecar["target"]
    features = list(sidecar["feature_columns"])
    frame = canonical.copy()
    frame.insert(0, "row_id", np.arange(len(frame), dtype=np.int64))

    variant = options.get("variant")
    variants = sidecar.get("variants")
    if variants:
        choices = variants["options"]
        variant = variant or variants["default"]
        if variant not in choices:
            raise ValueError(f"datasets.{dataset}.variant must be one of {list(choices)}, got {variant!r}")
        column = variants["column"]
        rows = choices[variant].get("rows")
        if rows is not None:
            frame = frame[frame[column].isin(rows)]
        for name, level in (choices[variant].get("indicators") or {}).items():
            frame[name] = (frame[column] == level).astype(float)
            features = features + [name]
    elif variant is not None:
        raise ValueError(
            f"datasets.{dataset}.variant is only defined for datasets whose registry entry declares variants"
        )

    positive = options.get("positive_class", sidecar.get("positive_class"))
    class_counts = classes = None
    if task == "classification":
        positive, class_counts, classes = _encode_target(frame, dataset, target, positive, options.get("class_order"))
    elif positive is not None:
        raise ValueError(f"datasets.{dataset}.positive_class is only defined for classification datasets")
    elif options.get("class_order") is not None:
        raise ValueError(f"datasets.{dataset}.class_order is only defined for classification datasets")
    else:
        if frame[target].isna().any():
            raise ValueError(
                f"dataset {dataset!r}: the target {target!r} has {int(frame[target].isna().sum())} missing values"
            )
        if frame[target].nunique() <= 1:
            raise ValueError(f"dataset {dataset!r}: the regression target {target!r} is constant")

    numeric_before_drop = [c for c in features + [target] if pd.api.types.is_numeric_dtype(frame[c])]
    correlation_input = frame[numeric_before_drop].reset_index(drop=True)

    drop = list(options.get("drop") or [])
    unknown = [c for c in drop if c not in features]
    if unknown:
        raise ValueError(f"datasets.{dataset}.drop names unknown column(s) {unknown}; features are {features}")
    features = [c for c in features if c not in drop]

    if options.get("one_hot") is not None:
        one_hot = list(options["one_hot"])
        unknown = [c for c in one_hot if c not in features]
        if unknown:
            raise ValueError(f"datasets.{dataset}.one_hot names unknown column(s) {unknown}; features are {features}")
    else:
        one_hot = [c for c in sidecar.get("categorical_columns") or [] if c in features]
    check_features(frame, dataset, one_hot)
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
            f"dataset {dataset!r}: non-numeric feature(s) {non_numeric}; declare them in "
            f"datasets.{dataset}.categorical (one-hot encoded) or list them in datasets.{dataset}.drop"
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
    if classes is not None:  # multiclass only: a binary record keeps its keys
        info["n_classes"] = len(classes)
        info["classes"] = classes
        info["class_coding"] = {label: k for k, label in enumerate(classes)}
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
    classes : list of str or None
        Labels of a multiclass target in code order (``y == k`` is ``classes[k]``);
        None for regression and binary classification.
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
    classes: list | None = None

    @property
    def multiclass(self) -> bool:
        """True for a classification target with more than two classes."""
        return self.classes is not None


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
        classes=list(info["classes"]) if info.get("classes") else None,
    )
