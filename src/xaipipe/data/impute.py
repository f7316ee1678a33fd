"""Imputation of missing feature values, fitted on each fit's own training rows.

A dataset with ``missing: impute`` (config/README.md) keeps its missing values in
``prepared.csv`` (empty cells; every one-hot column of a categorical row whose level is
missing is empty). Every fit of the pipeline fills them with
:class:`MissingValueImputer` fitted on that fit's training rows only (the CV folds'
training rows, the training split for the refits and the Rashomon-set members, each
bootstrap resample, each learner refit), so no validation or test row informs the
values that replace a missing entry (docs/own_data.md):

* a numeric column: the median of its observed training values
  (:class:`sklearn.impute.SimpleImputer` ``strategy="median"``);
* a categorical column (a one-hot group): its most frequent observed level
  (:class:`~sklearn.impute.SimpleImputer` ``strategy="most_frequent"`` on the level
  codes; ties go to the first level in the group's order, i.e. alphabetical), written as
  that level's 0/1 pattern: its column 1, the group's other columns 0. A column-wise
  imputer on the dummies would give a row of all zeros whenever no level has a majority.

A column without any observed value in the training rows is filled with 0 (numeric) or
the group's first level (``keep_empty_features=True``), so the number of columns never
changes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.impute import SimpleImputer
from sklearn.utils.validation import check_is_fitted, validate_data

__all__ = ["MissingValueImputer", "impute_rows", "make_imputer"]


class MissingValueImputer(TransformerMixin, BaseEstimator):
    """Median of numeric columns, most frequent level of one-hot groups (a scikit-learn transformer).

    Parameters
    ----------
    groups : sequence of sequence of int, default ()
        Column positions of each one-hot group (the dummies of one categorical
        variable, in level order). Every other column is numeric.

    Attributes
    ----------
    statistics_ : ndarray of shape (n_features,)
        The value that replaces a missing entry of each column: the numeric column's
        training median; for a group's columns the 0/1 pattern of its most frequent level.
    levels_ : list of int
        Per group, the position (in the group) of the level it imputes.
    n_features_in_ : int

    Notes
    -----
    A row counts as missing in a group when any of the group's columns is NaN; the
    whole group is then set to the imputed level's pattern.
    """

    def __init__(self, groups: Sequence[Sequence[int]] = ()):
        self.groups = groups

    def _split(self, n_features: int) -> tuple[list[list[int]], list[int]]:
        groups = [[int(j) for j in g] for g in self.groups]
        members = [j for g in groups for j in g]
        if any(not 0 <= j < n_features for j in members) or len(set(members)) != len(members):
            raise ValueError(
                f"groups must be disjoint column positions in [0, {n_features}), got {[list(g) for g in self.groups]}"
            )
        in_group = set(members)
        return groups, [j for j in range(n_features) if j not in in_group]

    def fit(self, X, y=None):
        """Learn the fill values from ``X`` (training rows, NaN for missing values).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : ignored

        Returns
        -------
        self
        """
        X = validate_data(self, X, dtype=np.float64, ensure_all_finite="allow-nan", reset=True)
        groups, numeric = self._split(X.shape[1])
        stats = np.zeros(X.shape[1], dtype=np.float64)
        if numeric:
            imputer = SimpleImputer(strategy="median", keep_empty_features=True).fit(X[:, numeric])
            stats[numeric] = imputer.statistics_
        levels = []
        for g in groups:
            block = X[:, g]
            observed = ~np.isnan(block).any(axis=1)
            codes = np.full((X.shape[0], 1), np.nan)
            codes[observed, 0] = np.argmax(block[observed], axis=1)
            level = int(SimpleImputer(strategy="most_frequent", keep_empty_features=True).fit(codes).statistics_[0])
            stats[g] = 0.0
            stats[g[level]] = 1.0
            levels.append(level)
        self.statistics_ = stats
        self.levels_ = levels
        return self

    def transform(self, X):
        """``X`` with every missing value replaced (a copy, float64).

        Raises
        ------
        ValueError
            ``X`` has another number of columns than the data of :meth:`fit`.
        """
        check_is_fitted(self, "statistics_")
        X = validate_data(self, X, dtype=np.float64, ensure_all_finite="allow-nan", reset=False, copy=True)
        groups, numeric = self._split(X.shape[1])
        for j in numeric:
            column = X[:, j]
            column[np.isnan(column)] = self.statistics_[j]
        for g in groups:
            rows = np.isnan(X[:, g]).any(axis=1)
            if rows.any():
                X[np.ix_(rows, g)] = self.statistics_[g]
        return X

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags


def make_imputer(features: Sequence[str], feature_groups: Mapping[str, Sequence[str]] | None) -> MissingValueImputer:
    """The (unfitted) imputer of a prepared dataset: its one-hot groups by column position.

    Parameters
    ----------
    features : sequence of str
        The prepared table's feature columns (``prepared.json`` ``features``).
    feature_groups : mapping
        Group name -> member columns (``prepared.json`` ``feature_groups``).
    """
    position = {f: j for j, f in enumerate(features)}
    return MissingValueImputer(
        groups=tuple(tuple(position[c] for c in cols) for cols in (feature_groups or {}).values())
    )


def impute_rows(imputer: MissingValueImputer | None, X_fit: np.ndarray, *X_other: np.ndarray) -> tuple:
    """Fit a clone of ``imputer`` on the training rows ``X_fit`` of one fit; impute them and ``X_other``.

    Parameters
    ----------
    imputer : MissingValueImputer or None
        The dataset's imputer (:attr:`xaipipe.data.prepare.PreparedData.imputer`); None:
        nothing is missing, the arrays are returned as they are (the same objects).
    X_fit : ndarray of shape (n, p)
        The fit's training rows: the only rows whose values the fill values come from.
    *X_other : ndarray of shape (m, p)
        Rows the fit predicts or explains (validation fold, out-of-bag rows, test split).

    Returns
    -------
    tuple of ndarray
        ``(X_fit, *X_other)`` imputed.
    """
    if imputer is None:
        return (X_fit, *X_other)
    from sklearn.base import clone

    fitted = clone(imputer).fit(X_fit)
    return (fitted.transform(X_fit), *(fitted.transform(X) for X in X_other))
