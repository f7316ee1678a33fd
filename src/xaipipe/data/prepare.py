"""The prepared table of one dataset as the steps read it: :func:`load_prepared` (its split,
imputer and variable groups, :class:`PreparedData`) and the groups MR, MCR, SHAP and SAGE play as
one variable (:func:`variable_groups`, :func:`importance_groups`, :func:`expand_user_groups`).

The preparation step itself (canonical table -> prepared table, the thesis' choices) is
:func:`xaipipe.data.preparation.prepare_table`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..io import read_csv

__all__ = [
    "PreparedData",
    "check_features",
    "load_prepared",
    "variable_groups",
    "expand_user_groups",
    "importance_groups",
]


def check_features(frame: pd.DataFrame, dataset: str, columns: list[str], *, allow_missing: bool = False) -> None:
    """Reject columns that are all-NaN, contain NaN (unless ``allow_missing``), or are constant.

    Parameters
    ----------
    allow_missing : bool, default False
        Some missing values are allowed (``missing: impute``); a column is then
        constant when its observed values are.

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
    some_nan = [] if allow_missing else [c for c in columns if frame[c].isna().any()]
    if some_nan:
        counts = {c: int(frame[c].isna().sum()) for c in some_nan}
        raise ValueError(
            f"dataset {dataset!r}: column(s) {some_nan} contain missing values ({counts} rows); set "
            f"datasets.{dataset}.missing to drop_rows or impute (config/README.md), or drop the column(s) in "
            f"datasets.{dataset}.drop"
        )
    constant = [c for c in columns if frame[c].nunique(dropna=allow_missing) <= 1]
    if constant:
        raise ValueError(
            f"dataset {dataset!r}: column(s) {constant} are constant and carry no information; "
            f"drop them in config datasets.{dataset}.drop"
        )


def variable_groups(
    feature_groups: Mapping[str, list[str]] | None, user_groups: Mapping[str, list[str]] | None
) -> dict[str, list[str]]:
    """The groups played as one variable by MR, MCR, conditional MR, SHAP (summed) and SAGE: the
    user's groups and the one-hot groups that no user group holds (a user group holds a one-hot
    group whole, :func:`xaipipe.data.preparation.resolve_user_groups`). Without user groups: the one-hot groups, unchanged.
    """
    user = {str(g): list(cols) for g, cols in (user_groups or {}).items()}
    held = {c for cols in user.values() for c in cols}
    out = {str(g): list(cols) for g, cols in (feature_groups or {}).items() if not held & set(cols)}
    out.update(user)
    return out


def importance_groups(data: Any) -> dict | None:
    """The groups that MR, MCR, conditional MR, SHAP and SAGE play as one variable for ``data``: its
    :attr:`PreparedData.variable_groups` (one-hot and user groups), or the ``feature_groups`` of an
    object without them (a data object built by hand: one-hot groups only)."""
    groups = getattr(data, "variable_groups", None)
    return groups if groups is not None else getattr(data, "feature_groups", None)


def expand_user_groups(
    table: pd.DataFrame, feature_groups: Mapping[str, list[str]] | None, user_groups: Mapping[str, list[str]] | None
) -> pd.DataFrame:
    """A table of variables (``feature`` column: MR, MCR members) as the steps that explain one
    column or one categorical at a time see it (PD / ICE, ALE, H², learner-PD, the Rashomon PD
    envelope).

    A user group has no 1-D PD (its columns move together only in the data), so each row of a
    user group is replaced by one row per variable of it that those steps can explain -- each of
    its numeric columns and each one-hot group it holds, in column order -- with the group's other
    values copied: a ranking by MR ranks the group's columns together at the group's place.
    Without user groups the table itself is returned.
    """
    if not user_groups:
        return table
    level_of = {c: g for g, cols in (feature_groups or {}).items() for c in cols}
    parts = []
    for _, row in table.iterrows():
        members = user_groups.get(str(row["feature"]))
        names = [row["feature"]] if members is None else list(dict.fromkeys(level_of.get(c, c) for c in members))
        for name in names:
            parts.append({**row.to_dict(), "feature": name})
    return pd.DataFrame(parts, columns=table.columns)


@dataclass
class PreparedData:
    """Model-ready arrays of one dataset, split as recorded in ``split.json``.

    Attributes
    ----------
    X_train, X_test : ndarray of shape (n, p), float64
        Features. Without missing values: the prepared table's. With missing values
        (``missing: impute``): imputed by :attr:`imputer` fitted on the training split
        (:func:`load_prepared`), the features every explanation (MR, PD / ICE, SHAP,
        LIME), every refit on the whole training split and the inference tables use.
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
    X_train_raw, X_test_raw : ndarray of shape (n, p), float64
        The features as prepared, NaN where a value is missing: what fits on parts of the
        training split (CV folds, bootstrap resamples, learner refits) take, with
        ``imputer`` fitted on their own training rows. The same arrays as ``X_train`` /
        ``X_test`` when nothing is missing.
    imputer : MissingValueImputer or None
        The dataset's imputer, unfitted (clone it for each fit); None when nothing is
        missing.
    missing : dict or None
        ``prepared.json``'s ``missing`` record (policy and counts), None under ``error``.
    user_groups : dict
        The user's feature groups (``prepared.json``'s ``user_groups``; empty when none are
        declared): name -> member columns. :attr:`variable_groups` merges them with the one-hot
        groups; ``feature_groups`` keeps the one-hot groups only (what PD / ICE, ALE, H², LIME,
        the imputer and the inference tables treat as one categorical variable).
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

    X_train_raw: np.ndarray | None = None
    X_test_raw: np.ndarray | None = None
    imputer: Any = None
    missing: dict | None = None
    user_groups: dict = field(default_factory=dict)

    @property
    def variable_groups(self) -> dict:
        """Groups played as one variable by MR, MCR, conditional MR, SHAP (summed) and SAGE
        (:func:`variable_groups`): ``feature_groups`` itself when there are no user groups."""
        return variable_groups(self.feature_groups, self.user_groups) if self.user_groups else self.feature_groups

    def __post_init__(self):
        if self.X_train_raw is None:
            self.X_train_raw = self.X_train
        if self.X_test_raw is None:
            self.X_test_raw = self.X_test


def load_prepared(prepared_csv, prepared_json, split_json) -> PreparedData:
    """Load ``prepared.csv`` + ``prepared.json`` + ``split.json`` into arrays.

    When the features have missing values (``missing: impute``), ``X_train`` and
    ``X_test`` are imputed by :class:`~xaipipe.data.impute.MissingValueImputer` fitted on
    the training rows, ``X_train_raw`` / ``X_test_raw`` keep the NaN and ``imputer`` is
    the unfitted imputer for fits on parts of the training split.
    """
    from ..io import read_json
    from .split import folds_from_split

    info = read_json(prepared_json)
    split = read_json(split_json)
    frame = read_csv(prepared_csv)
    missing = [c for c in info["features"] + [info["target"]] if c not in frame.columns]
    if missing:
        raise ValueError(f"{prepared_csv}: missing columns {missing} listed in {prepared_json}")
    X = frame[info["features"]].to_numpy(dtype=np.float64)
    y = frame[info["target"]].to_numpy()
    y = y.astype(np.int64) if info["task"] == "classification" else y.astype(np.float64)
    train = np.asarray(split["train"], dtype=np.int64)
    test = np.asarray(split["test"], dtype=np.int64)
    X_train, X_test = X[train], X[test]
    X_train_raw, X_test_raw, imputer = X_train, X_test, None
    if np.isnan(X).any():
        policy = (info.get("missing") or {}).get("policy", "error")
        if policy != "impute":
            raise ValueError(
                f"{prepared_csv}: dataset {info['dataset']!r} has missing feature values but its missing-value "
                f"policy is {policy!r}; rerun its prepare rule"
            )
        from sklearn.base import clone

        from .impute import make_imputer

        imputer = make_imputer(info["features"], info.get("feature_groups"))
        fitted = clone(imputer).fit(X_train_raw)
        X_train, X_test = fitted.transform(X_train_raw), fitted.transform(X_test_raw)
    return PreparedData(
        X_train=X_train,
        X_test=X_test,
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
        X_train_raw=X_train_raw,
        X_test_raw=X_test_raw,
        imputer=imputer,
        missing=info.get("missing"),
        user_groups={g: list(cols) for g, cols in (info.get("user_groups") or {}).items()},
    )
