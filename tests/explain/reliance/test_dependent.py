"""Model reliance under dependent features, the ``model_reliance`` rule's extra rows
(xaipipe.explain.reliance.dependent_reliance_rows) and their ranking agreement
(dependent_ranking_agreement), against the estimators they wrap and recomputed correlations."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.linear_model import LinearRegression

from tests.explain._dependent_data import GROUPS, NAMES, dependent_data
from xaipipe.config import LargeDataSettings, RelianceSettings
from xaipipe.explain.reliance import (
    RelianceOptions,
    conditional_model_reliance,
    dependent_ranking_agreement,
    dependent_reliance_rows,
    model_reliance,
    ranking_tables,
    reliance_tables,
)

MR = RelianceSettings(seed=7, n_repeats=10, large_data=None)


def _mr_split(X, y, n_train):
    """Training rows ``X[:n_train]``, test rows the rest: the MR entries' data object."""
    return SimpleNamespace(
        X_train=X[:n_train], X_test=X[n_train:], y_test=y[n_train:], features=NAMES, feature_groups=GROUPS, dataset="d"
    )


def _reliance_rows(m):
    """The ``reliance`` policy with cap ``m``, applying above ``m`` test rows."""
    return LargeDataSettings(min_rows=m, reliance_rows=m, shap_rows=None, pd_rows=None, shap_trees=None)


def _reliance(model, X, y, n_train, estimators=("permutation",)):
    split = _mr_split(X, y, n_train)
    rel, gain = reliance_tables(model, split, replace(MR, estimators=tuple(estimators)), family="f")
    dep = dependent_reliance_rows(model, split, MR, family="f", columns=list(rel.columns))
    return rel, gain, dep


def test_dependent_rows_have_the_columns_of_the_marginal_rows():
    X, y = dependent_data(n=500, seed=6)
    lr = LinearRegression().fit(X[:300], y[:300])
    rel, _, dep = _reliance(lr, X, y, 300)
    assert list(dep.columns) == list(rel.columns)
    assert dep["estimator"].tolist() == ["conditional_permutation"] * 4 + ["grouped_permutation"] * 3
    grouped = dep[dep.estimator == "grouped_permutation"].set_index("feature")
    assert list(grouped.index) == ["a+b", "c", "S"]  # |r(a, b)| > 0.9: one cluster
    cond = dep[dep.estimator == "conditional_permutation"].set_index("feature")["mr_difference"]
    marg = rel.set_index("feature")["mr_difference"]
    # a is nearly a function of b: its conditional MR is far below the marginal one; c, only partly
    # predictable from S, keeps a good share of it
    assert cond["a"] < 0.1 * marg["a"] and cond["c"] > 0.25 * marg["c"]
    # the clusters permuted jointly: model_reliance with those groups and the same seed, bitwise
    ref = model_reliance(
        lr, X[300:], y[300:], features={"a+b": [0, 1], "c": [2], "S": [3, 4, 5]}, options=RelianceOptions(feature_names=NAMES),
        estimator="permutation", n_repeats=10, random_state=7,
    ).to_frame().set_index("feature")  # fmt: skip
    np.testing.assert_array_equal(grouped["mr_difference"].to_numpy(), ref["mr_difference"].to_numpy())


def test_grouped_rows_equal_the_permutation_rows_without_clusters():
    X, y = dependent_data(n=400, seed=8, coupling=2.0)  # weakly correlated a, b: every cluster one variable
    lr = LinearRegression().fit(X[:200], y[:200])
    rel, _, dep = _reliance(lr, X, y, 200)
    grouped = dep[dep.estimator == "grouped_permutation"].drop(columns=["estimator"]).reset_index(drop=True)
    perm = rel.drop(columns=["estimator"]).reset_index(drop=True)
    pd.testing.assert_frame_equal(grouped, perm)


def test_grouped_rows_under_the_large_data_policy():
    """reliance_rows (large_data.reliance_rows): grouped_permutation on the subsample design of the
    permutation rows (equal to them without clusters), conditional_permutation on its own
    subsample design (conditional_model_reliance(..., subsample_rows=)), e_orig on every row."""
    X, y = dependent_data(n=400, seed=8, coupling=2.0)
    lr = LinearRegression().fit(X[:200], y[:200])
    Xtr, Xte, yte = X[:200], X[200:], y[200:]
    split, sub = _mr_split(X, y, 200), replace(MR, large_data=_reliance_rows(50))
    rel, _ = reliance_tables(lr, split, replace(sub, estimators=("permutation",)), family="f")
    dep = dependent_reliance_rows(lr, split, sub, family="f", columns=list(rel.columns))
    full = dependent_reliance_rows(lr, split, MR, family="f", columns=list(rel.columns))
    grouped = dep[dep.estimator == "grouped_permutation"].drop(columns=["estimator"]).reset_index(drop=True)
    pd.testing.assert_frame_equal(grouped, rel.drop(columns=["estimator"]).reset_index(drop=True))
    assert (grouped["n_samples"] == 50).all() and (grouped["algorithm"] == "subsampled_permutations").all()
    cond = dep[dep.estimator == "conditional_permutation"].reset_index(drop=True)
    every = full[full.estimator == "conditional_permutation"].reset_index(drop=True)
    assert (cond["n_samples"] == 50).all() and (cond["algorithm"] == "subsampled_tree_strata_permutations").all()
    assert (every["n_samples"] == 200).all() and (every["algorithm"] == "tree_strata_permutations").all()
    pd.testing.assert_series_equal(cond["e_orig"], every["e_orig"])
    expected = conditional_model_reliance(
        lr,
        Xte,
        yte,
        Xtr,
        options=RelianceOptions(feature_groups=GROUPS, feature_names=NAMES, subsample_rows=50),
        n_repeats=10,
        random_state=7,
    ).to_frame()
    np.testing.assert_array_equal(cond["mr_difference"], expected["mr_difference"])
    assert cond["mr_difference_se"].notna().all()


def test_unknown_dependent_estimator_is_rejected():
    X, y = dependent_data(n=60)
    with pytest.raises(ValueError, match="unknown dependent-feature estimator"):
        dependent_reliance_rows(
            LinearRegression().fit(X, y),
            SimpleNamespace(X_train=X, X_test=X, y_test=y, features=NAMES, feature_groups=None, dataset="d"),
            replace(MR, dependent={**MR.dependent, "estimators": ["e_switch"]}),
            family="f",
        )


def test_ranking_agreement_rows_of_the_new_measures():
    X, y = dependent_data(n=500, seed=9)
    models = {"lr": LinearRegression().fit(X[:300], y[:300])}
    tables, gains, shaps = [], [], []
    for name, m in models.items():
        rel, gain, dep = _reliance(m, X, y, 300)
        tables.append(pd.concat([rel, dep], ignore_index=True).assign(model=name))
        gains.append(gain.assign(model=name))
        shap = pd.DataFrame(
            {"row": np.repeat(np.arange(5), 6), "feature": NAMES * 5, "shap_value": np.tile(np.arange(6.0), 5)}
        )
        shaps.append(shap)
    importances, agreement = ranking_tables(
        tables, gains, shaps, dataset="d", feature_groups=GROUPS, loss="squared_error"
    )
    extra = dependent_ranking_agreement(tables, importances, loss="squared_error")
    assert list(extra.columns) == list(agreement.columns)
    pairs = list(zip(extra.measure_1, extra.measure_2))
    assert pairs == [
        ("model_reliance", "conditional_reliance"),
        ("mean_abs_shap", "conditional_reliance"),
        ("split_gain", "conditional_reliance"),
        ("model_reliance", "grouped_reliance"),
        ("mean_abs_shap", "grouped_reliance"),
        ("split_gain", "grouped_reliance"),
        ("conditional_reliance", "grouped_reliance"),
    ]
    # the Spearman correlation of MR with conditional MR, recomputed
    rel = tables[0]
    cond = rel[rel.estimator == "conditional_permutation"].set_index("feature")["mr_difference"]
    marg = importances.set_index("feature")["model_reliance"]
    rho = stats.spearmanr(marg, cond.reindex(marg.index)).statistic
    assert extra["spearman"].iloc[0] == pytest.approx(rho)
    # grouped: a and b take the value of their cluster a+b
    grp = rel[rel.estimator == "grouped_permutation"].set_index("feature")["mr_difference"]
    rho_g = stats.spearmanr(marg, [grp["a+b"], grp["a+b"], grp["c"], grp["S"]]).statistic
    assert extra["spearman"].iloc[3] == pytest.approx(rho_g)
    assert np.isnan(extra["spearman"].iloc[2])  # no split gain for a linear model
