"""SAGE (xaipipe.explain.sage) against its definition, a known truth and its own standard error.

Oracles: the exact Shapley values of the loss-reduction game over every coalition (brute force on
a few variables, the same marginal imputer: the mean over the background rows), the closed-form
Shapley effects of the Friedman #1 DGP (SAGE of the true regression function under squared loss
with independent inputs: Owen 2014, Song, Nelson & Staum 2016), model reliance's ranking, and the
spread of fresh runs for the reported SE. Rows are sorted by a feature or by the response
(adversarial row order).
"""

from __future__ import annotations

import itertools
import math
from types import SimpleNamespace

import numpy as np
import pytest
from sklearn.ensemble import GradientBoostingClassifier, GradientBoostingRegressor
from sklearn.linear_model import LinearRegression

from xaipipe.config import SageSettings
from xaipipe.data.simulated import get_dgp, simulate
from xaipipe.explain.sage import SAGE_COLUMNS, sage_importance, sage_table
from xaipipe.losses import log_loss, squared_error


def exact_sage(predict, X, y, background, players, loss):
    """Shapley values of v(S) = mean loss(f_empty) - mean loss(f_S), f_S(x) = mean_b f(x_S, b_rest)."""
    d = len(players)

    def value(S):
        cols = [c for j in S for c in players[j]]
        Z = np.repeat(background[np.newaxis], len(X), axis=0).copy()  # (n, m, p)
        Z[:, :, cols] = X[:, np.newaxis, cols]
        out = np.asarray(predict(Z.reshape(-1, X.shape[1])))
        out = out.reshape(len(X), len(background), *out.shape[1:]).mean(axis=1)
        return -float(np.mean(loss(y, out[np.newaxis])))

    v = {S: value(S) for r in range(d + 1) for S in itertools.combinations(range(d), r)}
    phi = np.zeros(d)
    for j in range(d):
        others = [k for k in range(d) if k != j]
        for r in range(d):
            for S in itertools.combinations(others, r):
                w = math.factorial(r) * math.factorial(d - r - 1) / math.factorial(d)
                phi[j] += w * (v[tuple(sorted(S + (j,)))] - v[S])
    return phi, v


def _regression_data(n=300, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    X[:, 3] = 0.8 * X[:, 0] + 0.6 * rng.normal(size=n)  # a correlated pair
    y = 2 * X[:, 0] + X[:, 1] * X[:, 2] + 0.5 * X[:, 3] + rng.normal(scale=0.5, size=n)
    order = np.argsort(X[:, 0], kind="stable")  # rows sorted by a feature
    return X[order], y[order]


@pytest.fixture(scope="module")
def regression_case():
    X, y = _regression_data()
    model = GradientBoostingRegressor(n_estimators=60, max_depth=3, random_state=0).fit(X[:200], y[:200])
    return model, X[200:], y[200:], X[:200:10]  # 100 rows explained (sorted), 20 background rows


def test_estimator_matches_exact_shapley_values_of_the_loss_game(regression_case):
    model, X, y, bg = regression_case
    exact, v = exact_sage(model.predict, X, y, bg, [[0], [1], [2], [3]], squared_error)
    res = sage_importance(
        model, X, y, bg, loss="squared_error", feature_names=list("abcd"), threshold=0.01, max_permutations=8192
    )
    assert res.features == ("a", "b", "c", "d")
    assert np.all(res.se > 0)
    z = np.abs(res.values - exact) / res.se
    assert z.max() < 4.0, (res.values, exact, res.se)
    # efficiency: the exact values add up to the loss of the mean prediction minus the model's loss
    assert exact.sum() == pytest.approx(res.loss_mean_prediction - res.loss_model, rel=1e-9)
    assert v[(0, 1, 2, 3)] - v[()] == pytest.approx(exact.sum(), rel=1e-12)


def test_groups_are_one_player_and_log_loss_is_the_projects():
    rng = np.random.default_rng(3)
    n = 260
    X = rng.normal(size=(n, 5))
    logits = 1.5 * X[:, 0] - X[:, 1] + 0.8 * (X[:, 2] + X[:, 3])
    y = (logits + rng.logistic(size=n) > 0).astype(int)
    order = np.argsort(y, kind="stable")  # rows sorted by the response
    X, y = X[order], y[order]
    model = GradientBoostingClassifier(n_estimators=40, random_state=0).fit(X[::2], y[::2])
    Xe, ye, bg = X[1::2], y[1::2], X[::2][:24]
    groups = {"pair": ["x2", "x3"]}
    names = [f"x{j}" for j in range(5)]
    players = [[0], [1], [2, 3], [4]]
    exact, _ = exact_sage(model.predict_proba, Xe, ye, bg, players, log_loss)
    res = sage_importance(
        model, Xe, ye, bg, loss="log_loss", feature_names=names, feature_groups=groups, threshold=0.01,
        max_permutations=8192, random_state=5,
    )  # fmt: skip
    assert res.features == ("x0", "x1", "pair", "x4")
    assert np.all(np.abs(res.values - exact) < 4 * res.se + 1e-12), (res.values, exact, res.se)
    assert exact.sum() == pytest.approx(res.loss_mean_prediction - res.loss_model, rel=1e-9)


def test_reported_se_matches_the_spread_of_fresh_runs():
    """SE honesty: 40 runs of 256 permutations each (the cap, no convergence stop) with fresh seeds."""
    X, y = _regression_data(n=400, seed=11)
    model = LinearRegression().fit(X[:300], y[:300])
    runs = [
        sage_importance(
            model,
            X[300:],
            y[300:],
            X[:300:15],
            loss="mse",
            feature_names=list("abcd"),
            threshold=1e-9,
            batch_size=256,
            max_permutations=256,
            random_state=seed,
        )  # fmt: skip
        for seed in range(40)
    ]
    values = np.array([r.values for r in runs])
    se = np.array([r.se for r in runs])
    assert all(r.n_permutations == 256 and not r.converged for r in runs)
    ratio = np.sqrt(np.mean(se**2, axis=0)) / values.std(axis=0, ddof=1)  # per variable
    pooled = np.sqrt(np.mean(se**2)) / np.sqrt(np.mean(values.var(axis=0, ddof=1)))
    assert 0.8 <= pooled <= 1.25, (pooled, ratio)
    assert np.all((ratio > 0.6) & (ratio < 1.6)), ratio


class _TrueFunction:
    """The DGP's regression function as a fitted regressor (for the truth of SAGE)."""

    _estimator_type = "regressor"

    def __init__(self, dgp):
        self.dgp = dgp

    def predict(self, X):
        return self.dgp.f(X)


def friedman1_sage_truth(p: int = 10) -> np.ndarray:
    """Shapley effects of Friedman #1 on U(-1, 1)^p: SAGE of f* under squared loss (independent inputs).

    v(S) = Var E[f*(X) | X_S]; the additive terms 5 x3², 5 x4, 2.5 x5 get their variances,
    x1 and x2 split the variance of 10 sin(pi u1 u2) (symmetric), the others 0.
    """
    dgp = get_dgp("friedman1")
    var_x3, var_x4, var_x5 = 25 * (1 / 5 - 1 / 9), 25 / 3, 6.25 / 3
    sine = dgp.variance() - var_x3 - var_x4 - var_x5
    return np.array([sine / 2, sine / 2, var_x3, var_x4, var_x5] + [0.0] * (p - 5))


def test_sage_of_the_true_friedman1_function_is_its_shapley_effects():
    frame = simulate("friedman1", n=3000, p=10, noise_sd=1.0, random_state=4).sort_values("y")  # sorted by y
    X, y = frame.drop(columns="y").to_numpy(), frame["y"].to_numpy()
    rows, background = np.arange(0, 3000, 2), np.arange(1, 3000, 16)  # every 2nd row; 188 others
    truth = friedman1_sage_truth()
    res = sage_importance(
        _TrueFunction(get_dgp("friedman1")), X[rows], y[rows], X[background], loss="squared_error",
        feature_names=[f"x{j}" for j in range(1, 11)], threshold=0.03, max_permutations=8192,
    )  # fmt: skip
    # irrelevant variables: exactly 0 (f* does not read them)
    assert np.all(res.values[5:] == 0) and np.all(res.se[5:] == 0)
    # active ones: the Shapley effects, up to the MC SE, the 1 500 rows and the 188 background rows
    assert np.all(np.abs(res.values[:5] - truth[:5]) < 4 * res.se[:5] + 0.6), (res.values, truth)
    assert list(np.argsort(-res.values[:5])) in ([3, 0, 1, 4, 2], [3, 1, 0, 4, 2], [3, 0, 1, 2, 4], [3, 1, 0, 2, 4])


def test_fitted_model_on_friedman1_irrelevant_near_zero_and_ranked_as_by_mr():
    from xaipipe.explain.reliance import RelianceOptions, model_reliance

    frame = simulate("friedman1", n=800, p=10, noise_sd=1.0, random_state=2)
    frame = frame.sort_values("x4", kind="stable")  # sorted by the strongest variable
    X, y = frame.drop(columns="y").to_numpy(), frame["y"].to_numpy()
    train, test = np.arange(len(y)) % 4 != 0, np.arange(len(y)) % 4 == 0
    model = GradientBoostingRegressor(n_estimators=200, max_depth=3, random_state=0).fit(X[train], y[train])
    names = [f"x{j}" for j in range(1, 11)]
    # the background must be a random sample: the first training rows would all have small x4
    background = X[train][np.random.default_rng(0).choice(int(train.sum()), size=32, replace=False)]
    res = sage_importance(
        model, X[test], y[test], background, loss="squared_error", feature_names=names, threshold=0.05
    )
    assert res.converged
    truth = friedman1_sage_truth()
    # irrelevant x6..x10 ~ 0: a fitted model may use them a little (and lose on the test rows by it),
    # so the bound is on the size, not on the SE
    assert np.all(np.abs(res.values[5:]) < 0.03 * truth.max())
    assert np.all(res.values[:5] > 10 * np.abs(res.values[5:]).max())
    mr = model_reliance(
        model, X[test], y[test], options=RelianceOptions(feature_names=names), n_repeats=10, random_state=0
    ).to_frame()
    top_sage = {names[j] for j in np.argsort(-res.values)[:5]}
    top_mr = set(mr.sort_values("mr_difference", ascending=False)["feature"].head(5))
    assert top_sage == top_mr == {"x1", "x2", "x3", "x4", "x5"}
    assert names[int(np.argmax(res.values))] == "x4" == mr.loc[mr["mr_difference"].idxmax(), "feature"]


def test_same_seed_same_values_and_row_order_does_not_matter_beyond_its_se(regression_case):
    model, X, y, bg = regression_case
    kw = dict(loss="squared_error", feature_names=list("abcd"), threshold=0.02, random_state=9)
    a = sage_importance(model, X, y, bg, **kw)
    b = sage_importance(model, X, y, bg, **kw)
    assert np.array_equal(a.values, b.values) and np.array_equal(a.se, b.se)
    perm = np.random.default_rng(0).permutation(len(y))
    c = sage_importance(model, X[perm], y[perm], bg, **kw)
    assert np.all(np.abs(a.values - c.values) < 4 * np.hypot(a.se, c.se))


def test_sage_table_columns_groups_row_cap_and_background():
    X, y = _regression_data(n=300, seed=5)
    model = LinearRegression().fit(X[:200], y[:200])
    data = SimpleNamespace(
        X_train=X[:200], X_test=X[200:], y_test=y[200:], features=["a", "b", "c", "d"],
        variable_groups={"bc": ["b", "c"]}, task="regression", dataset="toy",
    )  # fmt: skip
    settings = SageSettings(seed=3, background_size=16, max_rows=50, threshold=0.05)
    table = sage_table(model, data, settings, family="linear_regression")
    assert tuple(table.columns) == SAGE_COLUMNS
    assert table["feature"].tolist() == ["a", "bc", "d"]
    assert set(table["n_rows"]) == {50} and set(table["background"]) == {16}
    assert set(table["loss"]) == {"squared_error"} and set(table["model"]) == {"linear_regression"}
    assert table["converged"].all() and (table["convergence_ratio"] < 0.05).all()
    assert table.loc[table["feature"] == "a", "sage"].item() > table.loc[table["feature"] == "d", "sage"].item()


def test_bad_inputs_name_the_problem(regression_case):
    model, X, y, bg = regression_case
    with pytest.raises(ValueError, match="threshold"):
        sage_importance(model, X, y, bg, loss="mse", feature_names=list("abcd"), threshold=1.5)
    with pytest.raises(ValueError, match="do not agree"):
        sage_importance(model, X, y, bg[:, :3], loss="mse", feature_names=list("abcd"))
    with pytest.raises(ValueError, match="unknown loss"):
        sage_importance(model, X, y, bg, loss="hinge", feature_names=list("abcd"))
    with pytest.raises(ValueError, match="member 'z'"):
        sage_importance(model, X, y, bg, loss="mse", feature_names=list("abcd"), feature_groups={"g": ["a", "z"]})
