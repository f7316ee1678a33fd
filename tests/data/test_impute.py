"""The group-aware imputer: medians and most frequent levels from the fitted rows only."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.impute import SimpleImputer
from sklearn.pipeline import Pipeline

from xaipipe.data.impute import MissingValueImputer, impute_rows, make_imputer


def table(n=60, seed=0):
    """x0, x1 numeric; a 3-level one-hot group in columns 2..4; NaN scattered (whole group for a level)."""
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.normal(size=n), rng.exponential(size=n), np.eye(3)[rng.choice(3, n, p=[0.3, 0.3, 0.4])]])
    X[rng.random(n) < 0.2, 0] = np.nan
    X[rng.random(n) < 0.1, 1] = np.nan
    X[rng.random(n) < 0.15, 2:5] = np.nan
    return X


def test_numeric_columns_get_the_training_median():
    X = table()
    imp = MissingValueImputer(groups=[(2, 3, 4)]).fit(X)
    np.testing.assert_array_equal(imp.statistics_[:2], np.nanmedian(X[:, :2], axis=0))
    oracle = SimpleImputer(strategy="median").fit(X[:, :2])
    np.testing.assert_array_equal(imp.transform(X)[:, :2], oracle.transform(X[:, :2]))


def test_a_group_gets_its_most_frequent_level_as_one_pattern():
    X = table()
    observed = ~np.isnan(X[:, 2:5]).any(axis=1)
    counts = X[observed, 2:5].sum(axis=0)
    level = int(np.argmax(counts))
    imp = MissingValueImputer(groups=[(2, 3, 4)]).fit(X)
    assert imp.levels_ == [level]
    out = imp.transform(X)
    np.testing.assert_array_equal(out[~observed, 2:5], np.tile(np.eye(3)[level], ((~observed).sum(), 1)))
    np.testing.assert_array_equal(out[observed], np.where(np.isnan(X[observed]), out[observed], X[observed]))
    assert np.all(out[:, 2:5].sum(axis=1) == 1)  # every row has exactly one level
    # a column-wise most-frequent imputer on the dummies would give rows without any level
    naive = SimpleImputer(strategy="most_frequent").fit_transform(X[:, 2:5])
    assert (naive.sum(axis=1) == 0).any()


def test_ties_go_to_the_first_level_and_empty_columns_keep_their_place():
    X = np.array([[1.0, 0.0, np.nan], [0.0, 1.0, np.nan], [np.nan, np.nan, np.nan]])
    imp = MissingValueImputer(groups=[(0, 1)]).fit(X)
    assert imp.levels_ == [0]
    np.testing.assert_array_equal(imp.transform(X), [[1, 0, 0], [0, 1, 0], [1, 0, 0]])


def test_fill_values_come_from_the_fitted_rows_only():
    X = table(200, seed=1)
    fit_rows, other_rows = X[:50], X[50:]
    a, b = impute_rows(MissingValueImputer(groups=[(2, 3, 4)]), fit_rows, other_rows)
    stats = np.nanmedian(fit_rows[:, :2], axis=0)
    assert not np.allclose(stats, np.nanmedian(X[:, :2], axis=0))  # the test can tell the two apart
    for rows, out in ((fit_rows, a), (other_rows, b)):
        for j in (0, 1):
            np.testing.assert_array_equal(out[np.isnan(rows[:, j]), j], stats[j])
    same = impute_rows(None, fit_rows, other_rows)
    assert same[0] is fit_rows and same[1] is other_rows


def test_it_is_a_scikit_learn_transformer():
    X = table()
    imp = make_imputer(["x0", "x1", "g_a", "g_b", "g_c"], {"g": ["g_a", "g_b", "g_c"]})
    assert imp.get_params() == {"groups": ((2, 3, 4),)}
    assert clone(imp).get_params() == imp.get_params()
    pipe = Pipeline([("impute", imp), ("scale", SimpleImputer())]).fit(X)  # usable as a Pipeline step
    assert not np.isnan(pipe.transform(X)).any()
    with pytest.raises(ValueError, match="features"):
        MissingValueImputer().fit(X).transform(X[:, :3])
    with pytest.raises(ValueError, match="disjoint"):
        MissingValueImputer(groups=[(0, 1), (1, 2)]).fit(X)


def test_sklearn_estimator_checks():
    from sklearn.utils.estimator_checks import check_estimator

    check_estimator(MissingValueImputer())
