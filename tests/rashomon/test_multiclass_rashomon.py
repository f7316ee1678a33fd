"""Multiclass targets in the Rashomon layer and the learner refits: stratified resamples, the PD
envelope of one class, MR of the members on the multiclass log loss."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from sklearn import metrics as skm
from sklearn.datasets import make_classification

from xaipipe.config import LearnerSettings
from xaipipe.data.resample import subsample_splits
from xaipipe.explain.learner import learner_tables
from xaipipe.explain.reliance import sklearn_permutations
from xaipipe.models.families import make_estimator
from xaipipe.rashomon.bootstrap import BootstrapReliance, bootstrap_indices, bootstrap_rashomon
from xaipipe.rashomon.envelope import members_partial_dependence
from xaipipe.rashomon.refit import FittedGroup, group_reliance


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(
        n_samples=200,
        n_features=4,
        n_informative=3,
        n_redundant=0,
        n_classes=3,
        weights=[0.8, 0.15, 0.05],
        random_state=2,
    )
    return X, y


def test_stratified_bootstrap_keeps_every_class_and_plain_is_unchanged(data):
    _, y = data
    plain = bootstrap_indices(len(y), 4, random_state=7)
    again = bootstrap_indices(len(y), 4, random_state=7, strata=None)
    for (a, b), (c, d) in zip(plain, again):
        np.testing.assert_array_equal(a, c)
        np.testing.assert_array_equal(b, d)
    for boot, oob in bootstrap_indices(len(y), 20, random_state=7, strata=y):
        assert len(boot) == len(y)
        np.testing.assert_array_equal(np.bincount(y[boot], minlength=3), np.bincount(y, minlength=3))
        assert set(oob) == set(range(len(y))) - set(boot)


def test_bootstrap_rashomon_of_a_multiclass_grid(data):
    X, y = data
    out = bootstrap_rashomon(
        X,
        y,
        task="classification",
        grids={"gradient_boosting": {"n_estimators": [3, 6], "max_depth": [2]}},
        epsilon=0.5,
        epsilon_mode="relative",
        n_bootstrap=3,
        reliance=BootstrapReliance(n_repeats=2),
        random_state=0,
    )
    assert (out.models["status"] == "ok").all() and np.isfinite(out.models["loss"]).all()
    assert set(out.reliance["loss"]) == {"log_loss"}


def test_member_reliance_and_pd_of_one_class(data):
    X, y = data
    gb = make_estimator("gradient_boosting", "classification", {"n_estimators": 6}, random_state=0).fit(X, y)
    grp = FittedGroup(family="gradient_boosting", base_params={}, n_estimators=[3, 6], config_ids=["a", "b"], model=gb)
    perms = sklearn_permutations(len(y), 2, 1)
    res = group_reliance(grp, X, y, estimator="permutation", loss="log_loss", permutations=perms)
    P = gb.predict_proba(X)
    assert res.e_orig[1] == pytest.approx(skm.log_loss(y, P), rel=1e-12)
    grid = np.array([-1.0, 0.0, 1.0])
    pdm = members_partial_dependence([grp], X, [0], grid, class_index=2)
    for g, v in enumerate(grid):
        Xg = X.copy()
        Xg[:, 0] = v
        assert pdm[(pdm.config_id == "b") & (pdm.grid_index == g)]["pd"].item() == pytest.approx(
            gb.predict_proba(Xg)[:, 2].mean(), rel=1e-12
        )


def test_stratified_subsamples_and_multiclass_learner(data):
    X, y = data
    splits = subsample_splits(len(y), 5, 0.6, random_state=3, strata=y)
    sizes = {len(train) for train, _ in splits}
    assert len(sizes) == 1  # the same n_1 for every refit
    for train, hold in splits:
        assert set(y[train]) == {0, 1, 2} and set(y[hold]) == {0, 1, 2}
    settings = LearnerSettings(
        task="classification",
        seed=0,
        n_refits=3,
        fraction=0.632,
        resolution=4,
        grid="uniform",
        percentiles=(0.0, 1.0),
        pfi_estimator="permutation",
        n_repeats=2,
        confidence=0.95,
        top_k=1,
        ranking_estimator="permutation",
        ranking_quantity="mr_difference",
        loss="log_loss",
        figure_class="c",
    )
    data = SimpleNamespace(
        X_train_raw=X,
        y_train=y,
        features=["f0", "f1", "f2", "f3"],
        feature_groups=None,
        classes=["a", "b", "c"],
        imputer=None,
        dataset="d",
    )
    tables = learner_tables(data, settings, "gradient_boosting", {"n_estimators": 5}, pd_features=["f0"]).to_frames()
    assert set(tables["pd"]["class"]) == {"c"} and set(tables["pfi"]["loss"]) == {"log_loss"}
    assert isinstance(tables["pd"], pd.DataFrame) and np.isfinite(tables["pfi"]["mr_difference_mean"]).all()
