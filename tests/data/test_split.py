"""Train/test split and CV folds stored as row indices."""

from __future__ import annotations

import numpy as np
from sklearn.model_selection import KFold, StratifiedKFold, train_test_split

from xaipipe.data.split import folds_from_split, make_split


def test_regression_split_and_folds_match_sklearn():
    y = np.random.default_rng(0).normal(size=103)
    split = make_split(y, "regression", test_size=0.2, n_folds=5, random_state=7)
    train, test = train_test_split(np.arange(103), test_size=0.2, random_state=7)
    assert split["train"] == sorted(train.tolist()) and split["test"] == sorted(test.tolist())
    assert not set(split["train"]) & set(split["test"])
    ours = folds_from_split(split)
    ref = list(KFold(5, shuffle=True, random_state=7).split(np.zeros(len(train))))
    for (tr, va), (rtr, rva) in zip(ours, ref):
        np.testing.assert_array_equal(tr, rtr)
        np.testing.assert_array_equal(va, rva)


def test_classification_split_is_stratified():
    y = np.array([0] * 357 + [1] * 212)
    split = make_split(y, "classification", test_size=0.2, n_folds=5, random_state=1)
    test = np.asarray(split["test"])
    assert split["stratified"] is True and len(test) == 114
    assert abs(y[test].mean() - y.mean()) < 0.01
    ytr = y[np.asarray(split["train"])]
    ref = list(StratifiedKFold(5, shuffle=True, random_state=1).split(np.zeros(len(ytr)), ytr))
    for (_tr, va), (_rtr, rva) in zip(folds_from_split(split), ref):
        np.testing.assert_array_equal(va, rva)
        assert abs(ytr[va].mean() - ytr.mean()) < 0.02


def test_split_is_deterministic_and_seed_dependent():
    y = np.arange(50.0)
    a = make_split(y, "regression", test_size=0.2, n_folds=3, random_state=3)
    b = make_split(y, "regression", test_size=0.2, n_folds=3, random_state=3)
    c = make_split(y, "regression", test_size=0.2, n_folds=3, random_state=4)
    assert a == b and a["test"] != c["test"]
