"""Chapter 2-3 illustrations: each table against scikit-learn / scipy computed separately,
the seed's published numbers, and the properties the figures claim."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import special

from xaipipe.data.simulated import simulate
from xaipipe.studies import illustrations as il


@pytest.fixture(scope="module")
def split():
    return il.simulated_split(simulate(n=250, random_state=3), random_state=3)


def _args(s):
    return s["X_train"], s["y_train"], s["X_test"], s["y_test"]


def test_split_is_the_pipelines_split():
    from xaipipe.data.split import make_split

    frame = simulate(n=100, random_state=0)
    s = il.simulated_split(frame, random_state=42)
    ref = make_split(frame["y"].to_numpy(), "regression", test_size=0.2, n_folds=5, random_state=42)
    np.testing.assert_array_equal(s["train"], ref["train"])
    np.testing.assert_array_equal(s["test"], ref["test"])
    np.testing.assert_array_equal(s["X_test"], frame.iloc[ref["test"], :10].to_numpy())
    assert s["features"] == [f"x{j}" for j in range(1, 11)]


# ----------------------------------------------------------------------------- Fig 2.1
def test_diabetes_tree_reproduces_the_seeds_reading():
    """Seed 001 §2: first split on BMI; BMI <= 24.35 and age <= 57.5 -> 99.69."""
    tree = il.fit_diabetes_tree()
    nodes = il.tree_table(tree)
    assert nodes.loc[0, "feature"] == "BMI" and nodes.loc[0, "n_samples"] == 442
    assert nodes["is_leaf"].sum() == 8 and nodes["depth"].max() == 3
    bmi = nodes[(nodes["feature"] == "BMI") & (nodes["threshold"].round(2) == 24.35)]
    age = nodes[(nodes["parent"] == bmi["node"].iloc[0]) & (nodes["feature"] == "AGE")]
    assert age["threshold"].iloc[0] == 57.5
    leaf = nodes.loc[age["left"].iloc[0]]
    assert leaf["is_leaf"] and round(leaf["value"], 2) == 99.69
    # a leaf's value is the mean response of its rows
    from sklearn.datasets import load_diabetes

    raw = load_diabetes(scaled=False, as_frame=True)
    X = raw.data[["bmi", "age"]].set_axis(["BMI", "AGE"], axis=1)
    where = tree.apply(X)
    for _, node in nodes[nodes["is_leaf"]].iterrows():
        assert node["value"] == pytest.approx(raw.target[where == node["node"]].mean(), rel=1e-12)
        assert node["n_samples"] == (where == node["node"]).sum()


def test_diabetes_tree_from_the_pipelines_canonical_table(registry):
    from xaipipe.data.sources import load_canonical

    frame, _ = load_canonical(registry["diabetes"])  # scikit-learn's bundled files, checksummed
    pd.testing.assert_frame_equal(il.tree_table(il.fit_diabetes_tree(frame)), il.tree_table(il.fit_diabetes_tree()))
    with pytest.raises(ValueError, match="lacks columns"):
        il.fit_diabetes_tree(frame.drop(columns="BMI"))


# ----------------------------------------------------------------------------- Fig 2.2
def test_pruning_path_is_monotone_and_matches_the_path_impurities(split):
    path = il.pruning_path(*_args(split))
    assert np.all(np.diff(path["alpha"]) >= 0) and path["alpha"].iloc[0] == 0
    assert np.all(np.diff(path["n_leaves"]) <= 0) and np.all(np.diff(path["n_leaves"].iloc[:-1]) < 0)
    assert np.all(np.diff(path["train_mse"]) >= -1e-12)
    np.testing.assert_allclose(path["train_mse"], path["path_impurity"], rtol=1e-9, atol=1e-9)
    assert path["n_leaves"].iloc[-1] == 1 and path["depth"].iloc[-1] == 0
    root = split["y_train"].mean()
    assert path["test_mse"].iloc[-1] == pytest.approx(np.mean((split["y_test"] - root) ** 2))
    assert path["train_mse"].iloc[0] < 1e-12  # the maximal tree interpolates distinct rows
    few = il.pruning_path(*_args(split), max_alphas=7)
    assert len(few) == 7 and few["alpha"].iloc[[0, -1]].tolist() == path["alpha"].iloc[[0, -1]].tolist()
    pd.testing.assert_frame_equal(
        few.reset_index(drop=True), path[path["alpha"].isin(few["alpha"])].reset_index(drop=True)
    )


# ----------------------------------------------------------------------------- §3.1 OOB
def test_oob_curve_one_value_per_tree_count_and_equals_scikit_learn(split):
    from sklearn.ensemble import RandomForestRegressor

    Xtr, ytr, Xte, yte = _args(split)
    B = 40
    curve = il.oob_curve(Xtr, ytr, Xte, yte, n_estimators=B, max_features=(1.0, 0.5), random_state=1)
    for _, part in curve.groupby("max_features"):
        assert part["n_trees"].tolist() == list(range(1, B + 1))
        assert np.all(np.diff(part["n_oob_rows"]) >= 0)
    assert len(curve) == 2 * B
    n = len(ytr)
    first = curve[curve["n_trees"] == 1]["n_oob_rows"]
    assert ((first > 0.28 * n) & (first < 0.46 * n)).all()  # about 36.8 % of rows are out of bag
    for mf in (1.0, 0.5):
        part = curve[curve["max_features"] == str(mf)].set_index("n_trees")
        for b in (25, B):  # a smaller forest is a prefix of the larger one
            rf = RandomForestRegressor(n_estimators=b, max_features=mf, oob_score=True, random_state=1).fit(Xtr, ytr)
            assert part.loc[b, "n_oob_rows"] == n
            assert part.loc[b, "oob_mse"] == np.mean((ytr - rf.oob_prediction_) ** 2)
            assert part.loc[b, "test_mse"] == pytest.approx(np.mean((yte - rf.predict(Xte)) ** 2), rel=1e-12)
    no_test = il.oob_curve(Xtr, ytr, n_estimators=5, max_features=(1.0,), random_state=1)
    assert no_test["test_mse"].isna().all()
    np.testing.assert_array_equal(no_test["oob_mse"], curve[curve["max_features"] == "1.0"]["oob_mse"].iloc[:5])


# ----------------------------------------------------------------------------- Fig 3.1
def test_loss_functions_huber_is_huber_1964_and_the_seeds_formula_is_not():
    from sklearn._loss.loss import HuberLoss

    r = np.linspace(-4, 4, 801)
    t = il.loss_functions(r, delta=1.3)
    np.testing.assert_array_equal(t["squared"], 0.5 * r**2)
    np.testing.assert_array_equal(t["absolute"], np.abs(r))
    piecewise = np.where(np.abs(r) <= 1.3, 0.5 * r**2, 1.3 * (np.abs(r) - 0.65))
    np.testing.assert_allclose(t["huber"], piecewise, rtol=1e-15, atol=1e-15)
    sk = HuberLoss(delta=1.3).loss(y_true=r, raw_prediction=np.zeros_like(r))
    np.testing.assert_allclose(t["huber"], sk, rtol=1e-12)
    # continuous at |r| = delta; equal to the squared loss inside, below it outside
    eps = 1e-9
    at = il.loss_functions([1.3 - eps, 1.3 + eps, -1.3 - eps, -1.3 + eps], delta=1.3)["huber"].to_numpy()
    assert abs(at[0] - at[1]) < 1e-8 and abs(at[2] - at[3]) < 1e-8
    inside = np.abs(r) <= 1.3
    np.testing.assert_array_equal(t["huber"][inside], t["squared"][inside])
    assert np.all(t["huber"][~inside] < t["squared"][~inside])

    def seed_huber(x, d):  # seed 001 §3.2.1.2, as written
        return np.where(np.abs(x) <= d, x**2, 2 * d * np.abs(x) - 2 * d**2)

    jump = seed_huber(1.3 + eps, 1.3) - seed_huber(1.3 - eps, 1.3)
    assert jump == pytest.approx(-(1.3**2), abs=1e-6)  # discontinuous: drops by delta^2
    assert special.huber(1.3, 2.0) == pytest.approx(0.5 * (2 * 1.3 * 2.0 - 1.3**2))  # half of 2 delta |r| - delta^2
    with pytest.raises(ValueError, match="delta"):
        il.loss_functions(delta=0.0)


# ----------------------------------------------------------------------------- Fig 3.2
def test_boosting_depth_curve_against_separate_fits(split):
    from sklearn.ensemble import GradientBoostingRegressor

    Xtr, ytr, Xte, yte = _args(split)
    t = il.boosting_depth_curve(Xtr, ytr, Xte, yte, depths=(1, 3), n_estimators=40, random_state=2)
    assert t["max_depth"].tolist() == [1, 3]
    for _, row in t.iterrows():
        m = GradientBoostingRegressor(n_estimators=40, max_depth=int(row["max_depth"]), random_state=2).fit(Xtr, ytr)
        assert row["test_mse"] == np.mean((yte - m.predict(Xte)) ** 2)
        assert row["train_mse"] == np.mean((ytr - m.predict(Xtr)) ** 2)
        best = GradientBoostingRegressor(
            n_estimators=int(row["best_iteration"]), max_depth=int(row["max_depth"]), random_state=2
        ).fit(Xtr, ytr)
        assert row["best_test_mse"] == np.mean((yte - best.predict(Xte)) ** 2) <= row["test_mse"]
    assert t["train_mse"].iloc[1] < t["train_mse"].iloc[0]


# ----------------------------------------------------------------------------- Fig 3.3
def test_early_stopping_rule_on_hand_made_losses():
    assert il.early_stopping_iteration([5, 4, 3, 2, 1], 2) == 5  # never stops
    # k = 2: iteration 4 (3.0) is not better than either of the last two (3.0, 3.0) by tol -> stop at 4
    assert il.early_stopping_iteration([4.0, 3.0, 3.0, 3.0, 1.0], 2) == 4
    # ... but iteration 4 of this one is better than the older of the last two (3.5), so it goes on
    assert il.early_stopping_iteration([4.0, 3.5, 3.0, 3.0, 1.0], 2) == 5
    # better than the older of the last two is enough to continue
    assert il.early_stopping_iteration([4.0, 3.0, 3.5, 3.2, 3.6, 3.7], 2) == 5
    assert il.early_stopping_iteration([1.0, 1.0 - 5e-5], 1, tol=1e-4) == 2  # improvement below tol
    with pytest.raises(ValueError, match="n_iter_no_change"):
        il.early_stopping_iteration([1.0], 0)


def test_staged_curves_equal_separate_fits_and_early_stop_is_scikit_learns(split):
    from sklearn.ensemble import GradientBoostingRegressor
    from sklearn.model_selection import train_test_split

    Xtr, ytr, Xte, yte = _args(split)
    N = 120
    curves = il.boosting_staged_curves(
        Xtr, ytr, Xte, yte, learning_rates=(0.02, 0.3), n_estimators=N, max_depth=2, n_iter_no_change=5, random_state=4
    )
    assert len(curves) == 2 * N
    fit, val = train_test_split(np.arange(len(ytr)), random_state=4, test_size=0.1)
    assert (curves["n_fit"] == len(fit)).all() and (curves["n_validation"] == len(val)).all()
    for lr, part in curves.groupby("learning_rate"):
        part = part.set_index("iteration")
        for m in (1, 17, 60):
            sep = GradientBoostingRegressor(n_estimators=m, learning_rate=lr, max_depth=2, random_state=4).fit(
                Xtr[fit], ytr[fit]
            )
            assert part.loc[m, "test_mse"] == np.mean((yte - sep.predict(Xte)) ** 2)
            assert part.loc[m, "train_mse"] == np.mean((ytr[fit] - sep.predict(Xtr[fit])) ** 2)
            assert part.loc[m, "validation_mse"] == pytest.approx(
                np.mean((ytr[val] - sep.predict(Xtr[val])) ** 2), rel=1e-12
            )
        es = GradientBoostingRegressor(
            n_estimators=N, learning_rate=lr, max_depth=2, random_state=4, n_iter_no_change=5, validation_fraction=0.1
        ).fit(Xtr, ytr)
        marked = part.index[part["early_stop"]].tolist()
        if es.n_estimators_ < N:
            assert marked == [es.n_estimators_]
            # the marked point is on the curve of the model scikit-learn stopped
            assert part.loc[es.n_estimators_, "test_mse"] == np.mean((yte - es.predict(Xte)) ** 2)
        else:
            assert marked == []
        assert il.early_stopping_iteration(part["validation_mse"], 5) == es.n_estimators_
    fast = curves[curves["learning_rate"] == 0.3]
    assert fast["early_stop"].sum() == 1  # a large learning rate stops well before N
