"""Tests of xaipipe.explain.shapley against independent oracles.

Oracles: the models' own predict / predict_proba (local accuracy), brute-force
Shapley values over all coalitions (model-agnostic explainers), closed forms
(Linear SHAP, naive Bayes, TreeSHAP of stumps), shap's own C++ TreeSHAP on the
parsed XGBoost trees, and shap.TreeExplainer on the unchunked forest.
"""

from __future__ import annotations

import itertools
import json
import math
from types import SimpleNamespace

import joblib
import numpy as np
import pandas as pd
import pytest
import shap
import xgboost as xgb
from sklearn.ensemble import GradientBoostingRegressor, RandomForestClassifier, RandomForestRegressor
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import MinMaxScaler, PolynomialFeatures

from xaipipe.config import ShapSettings
from xaipipe.explain.shapley import (
    ShapOptions,
    ShapResult,
    ShapTables,
    auto_algorithm,
    forest_chunks,
    global_importance,
    interaction_frame,
    result_metadata,
    row_frame,
    shap_tables,
    shap_values,
    tidy_frame,
)
from xaipipe.models.families import make_estimator

P = 5
N_TEST = 24


# --------------------------------------------------------------------------- #
# data and oracles
# --------------------------------------------------------------------------- #
@pytest.fixture(scope="module")
def reg_data():
    rng = np.random.default_rng(11)
    X = rng.normal(size=(260, P))
    y = X[:, 0] + 2 * np.sin(X[:, 1]) + X[:, 2] * X[:, 3] + 0.3 * rng.normal(size=260)
    return X[:200], y[:200], X[200 : 200 + N_TEST]


@pytest.fixture(scope="module")
def clf_data():
    rng = np.random.default_rng(12)
    X = rng.normal(size=(260, P))
    score = X[:, 0] - X[:, 1] + 0.8 * X[:, 2] * X[:, 3] + 0.7 * rng.normal(size=260)
    y = (score > 0).astype(int)
    return X[:200], y[:200], X[200 : 200 + N_TEST]


def _log_odds_from_proba(model, X):
    """Independent log-odds oracle: log p1 - log p0 from predict_proba."""
    proba = model.predict_proba(X)
    assert np.all((proba > 1e-12) & (proba < 1 - 1e-12)), "oracle needs unsaturated probabilities"
    return np.log(proba[:, 1]) - np.log(proba[:, 0])


def brute_force_shapley(f, x, background):
    """Exact interventional Shapley values (000 eq. 3.6) by enumerating coalitions.

    v(S) = mean_b f(x_S, b_notS); phi_j = sum_S |S|!(p-|S|-1)!/p! (v(S+j) - v(S)).
    Returns (phi, v(empty))."""
    p = len(x)
    cache = {}

    def v(S):
        key = tuple(sorted(S))
        if key not in cache:
            Z = background.copy()
            Z[:, list(key)] = x[list(key)]
            cache[key] = float(np.mean(f(Z)))
        return cache[key]

    phi = np.zeros(p)
    for j in range(p):
        others = [k for k in range(p) if k != j]
        for r in range(p):
            w = math.factorial(r) * math.factorial(p - r - 1) / math.factorial(p)
            for S in itertools.combinations(others, r):
                phi[j] += w * (v(S + (j,)) - v(S))
    return phi, v(())


def _background(result, X_background):
    idx = result.details["background_index"]
    return X_background if idx is None else X_background[idx]


# --------------------------------------------------------------------------- #
# local accuracy for every family / algorithm
# --------------------------------------------------------------------------- #
REG_CASES = [
    ("linear_regression", {}, "linear_explainer", "interventional"),
    ("decision_tree", {"max_depth": 6}, "tree_explainer", "tree_path_dependent"),
    ("random_forest", {"n_estimators": 15}, "tree_explainer", "tree_path_dependent"),
    ("gradient_boosting", {"n_estimators": 20}, "tree_explainer", "tree_path_dependent"),
    ("xgboost", {"n_estimators": 20, "max_depth": 3}, "xgboost_pred_contribs", "tree_path_dependent"),
]


@pytest.mark.parametrize("family,params,algorithm,perturbation", REG_CASES)
def test_local_accuracy_regression(reg_data, family, params, algorithm, perturbation):
    Xtr, ytr, Xte = reg_data
    model = make_estimator(family, "regression", params, random_state=0).fit(Xtr, ytr)
    r = shap_values(model, Xte, X_background=Xtr)
    assert (r.algorithm, r.output, r.link, r.feature_perturbation) == (
        algorithm,
        "prediction",
        "identity",
        perturbation,
    )
    assert r.values.shape == (N_TEST, P) and r.base_values.shape == (N_TEST,)
    assert r.values.dtype == np.float64
    oracle = model.predict(Xte)
    recon = r.base_values + r.values.sum(axis=1)
    atol = 1e-6 * np.abs(oracle).max() if family == "xgboost" else 1e-9  # float32 sums
    np.testing.assert_allclose(recon, oracle, rtol=1e-6, atol=atol)
    assert r.background_size == (len(Xtr) if family == "linear_regression" else 0)
    # SHAP values are not trivially zero
    assert np.abs(r.values).mean() > 1e-3


CLF_CASES = [
    ("logistic_regression", {"C": 1.0}, "linear_explainer", "log_odds", len(range(200))),
    ("decision_tree", {"max_depth": 5}, "tree_explainer", "probability", 0),
    ("random_forest", {"n_estimators": 15}, "tree_explainer", "probability", 0),
    ("gradient_boosting", {"n_estimators": 20}, "tree_explainer", "log_odds", 0),
    ("xgboost", {"n_estimators": 20, "max_depth": 3}, "xgboost_pred_contribs", "log_odds", 0),
    ("gaussian_nb", {}, "permutation", "log_odds", 30),
    ("qda", {"reg_param": 0.1}, "permutation", "log_odds", 30),
    ("knn", {"n_neighbors": 7}, "permutation", "log_odds", 30),
]


@pytest.mark.parametrize("family,params,algorithm,output,bg", CLF_CASES)
def test_local_accuracy_classification(clf_data, family, params, algorithm, output, bg):
    Xtr, ytr, Xte = clf_data
    model = make_estimator(family, "classification", params, random_state=0).fit(Xtr, ytr)
    r = shap_values(model, Xte, X_background=Xtr, background_size=30, random_state=3)
    assert (r.algorithm, r.output) == (algorithm, output)
    assert r.link == ("logit" if output == "log_odds" else "identity")
    assert r.background_size == bg or (family == "logistic_regression" and r.background_size == 30)
    recon = r.base_values + r.values.sum(axis=1)
    if family == "xgboost":
        oracle = model.predict(Xte, output_margin=True).astype(np.float64)
        atol = 1e-6 * np.abs(oracle).max()
    elif output == "probability":
        oracle, atol = model.predict_proba(Xte)[:, 1], 1e-12
    elif family == "knn":
        p1 = np.clip(model.predict_proba(Xte)[:, 1], 1e-6, 1 - 1e-6)
        oracle, atol = np.log(p1 / (1 - p1)), 1e-9
        assert r.details["log_odds_source"].startswith("clipped_probability")
    else:
        oracle, atol = _log_odds_from_proba(model, Xte), 1e-8
    np.testing.assert_allclose(recon, oracle, rtol=1e-6, atol=atol)
    assert np.abs(r.values).mean() > 1e-3
    if algorithm == "permutation":
        # base value = mean over the recorded background of the explained output
        B = _background(r, Xtr)
        assert len(B) == 30
        if family == "knn":
            pb = np.clip(model.predict_proba(B)[:, 1], 1e-6, 1 - 1e-6)
            expected_base = np.mean(np.log(pb / (1 - pb)))
        else:
            expected_base = np.mean(_log_odds_from_proba(model, B))
        np.testing.assert_allclose(r.base_values, expected_base, rtol=1e-9, atol=1e-9)


def test_knn_probability_link(clf_data):
    Xtr, ytr, Xte = clf_data
    model = make_estimator("knn", "classification", {"n_neighbors": 5}, random_state=0).fit(Xtr, ytr)
    r = shap_values(
        model, Xte[:6], X_background=Xtr, background_size=20, options=ShapOptions(link="identity", n_permutations=2)
    )
    assert (r.output, r.link) == ("probability", "identity")
    np.testing.assert_allclose(r.base_values + r.values.sum(1), model.predict_proba(Xte[:6])[:, 1], atol=1e-12)


# --------------------------------------------------------------------------- #
# XGBoost: native pred_contribs vs shap and vs a closed form
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("task", ["regression", "classification"])
def test_xgboost_contribs_match_shap_tree_explainer(reg_data, clf_data, task):
    Xtr, ytr, Xte = reg_data if task == "regression" else clf_data
    model = make_estimator("xgboost", task, {"n_estimators": 30, "max_depth": 4}, random_state=0).fit(Xtr, ytr)
    r = shap_values(model, Xte)
    # shap's TreeExplainer (it delegates to XGBoost's C++ for path-dependent SHAP) ...
    explainer = shap.TreeExplainer(model)
    np.testing.assert_allclose(r.values, explainer.shap_values(Xte), atol=1e-5)
    # ... and shap's own C++ TreeSHAP on the trees it parsed from the booster (an
    # independent implementation; model_type="internal" disables the delegation).
    internal = shap.TreeExplainer(model)
    internal.model.model_type = "internal"
    np.testing.assert_allclose(r.values, internal.shap_values(Xte, check_additivity=False), atol=1e-5)


def test_xgboost_stumps_closed_form(reg_data):
    """TreeSHAP of a stump on feature j: leaf(x) - cover-weighted mean leaf, all to j."""
    Xtr, ytr, Xte = reg_data
    model = xgb.XGBRegressor(n_estimators=15, max_depth=1, learning_rate=0.3, tree_method="hist").fit(Xtr, ytr)
    r = shap_values(model, Xte)
    trees = model.get_booster().trees_to_dataframe()
    expected = np.zeros((len(Xte), P))
    for _, t in trees.groupby("Tree"):
        root = t[t["Node"] == 0].iloc[0]
        if root["Feature"] == "Leaf":
            continue
        j = int(root["Feature"][1:])
        yes = t[t["ID"] == root["Yes"]].iloc[0]
        no = t[t["ID"] == root["No"]].iloc[0]
        mean_leaf = (yes["Cover"] * yes["Gain"] + no["Cover"] * no["Gain"]) / (yes["Cover"] + no["Cover"])
        go_yes = Xte[:, j].astype(np.float32) < np.float32(root["Split"])
        expected[:, j] += np.where(go_yes, yes["Gain"], no["Gain"]) - mean_leaf
    np.testing.assert_allclose(r.values, expected, atol=1e-5)


@pytest.mark.parametrize("task", ["regression", "classification"])
def test_xgboost_interaction_values(reg_data, clf_data, task):
    Xtr, ytr, Xte = reg_data if task == "regression" else clf_data
    if task == "regression":  # a target whose only interaction is x2 * x3
        ytr = Xtr[:, 0] + 3 * Xtr[:, 2] * Xtr[:, 3]
    model = make_estimator("xgboost", task, {"n_estimators": 30, "max_depth": 4}, random_state=0).fit(Xtr, ytr)
    r = shap_values(model, Xte, interactions=True)
    assert r.interaction_values.shape == (N_TEST, P, P)
    np.testing.assert_allclose(r.interaction_values.sum(axis=2), r.values, atol=1e-5)
    np.testing.assert_allclose(r.interaction_values, r.interaction_values.transpose(0, 2, 1), atol=1e-6)
    if task == "regression":
        # the x2-x3 pair is the strongest off-diagonal interaction
        off = np.abs(r.interaction_values).mean(0)
        np.fill_diagonal(off, 0)
        assert set(np.unravel_index(np.argmax(off), off.shape)) == {2, 3}


def test_sklearn_tree_interaction_values(reg_data):
    Xtr, ytr, Xte = reg_data
    model = GradientBoostingRegressor(n_estimators=15, max_depth=3, random_state=0).fit(Xtr, ytr)
    r = shap_values(model, Xte[:8], interactions=True)
    assert r.interaction_values.shape == (8, P, P)
    np.testing.assert_allclose(r.interaction_values.sum(axis=2), r.values, atol=1e-10)


# --------------------------------------------------------------------------- #
# random forests: chunking over trees is exact
# --------------------------------------------------------------------------- #
def test_forest_chunks():
    assert forest_chunks(10, 4) == [(0, 4), (4, 8), (8, 10)]
    assert forest_chunks(3, 10) == [(0, 3)]


@pytest.mark.parametrize("kind", ["regression", "classification"])
def test_chunked_forest_equals_unchunked(reg_data, clf_data, kind):
    Xtr, ytr, Xte = reg_data if kind == "regression" else clf_data
    cls = RandomForestRegressor if kind == "regression" else RandomForestClassifier
    forest = cls(n_estimators=23, random_state=0).fit(Xtr, ytr)  # fully grown trees
    whole = shap_values(forest, Xte, options=ShapOptions(chunk_size=23))
    chunked = shap_values(forest, Xte, options=ShapOptions(chunk_size=5))
    assert whole.details["n_chunks"] == 1 and chunked.details["n_chunks"] == 5
    np.testing.assert_allclose(chunked.values, whole.values, rtol=0, atol=1e-10)
    np.testing.assert_allclose(chunked.base_values, whole.base_values, rtol=0, atol=1e-10)
    # the unchunked result is shap's TreeExplainer on the whole forest
    direct = np.asarray(shap.TreeExplainer(forest).shap_values(Xte))
    direct = direct[..., 1] if direct.ndim == 3 else direct
    np.testing.assert_allclose(whole.values, direct, rtol=0, atol=1e-12)
    # the forest is left intact
    assert len(forest.estimators_) == 23


def test_chunked_forest_parallel(reg_data):
    """The n_jobs > 1 code path (threads here, to keep the test fast; loky
    processes by default) combines the chunks exactly like the serial one."""
    Xtr, ytr, Xte = reg_data
    forest = RandomForestRegressor(n_estimators=12, random_state=1).fit(Xtr, ytr)
    serial = shap_values(forest, Xte, options=ShapOptions(chunk_size=4))
    with joblib.parallel_config(backend="threading"):
        parallel = shap_values(forest, Xte, options=ShapOptions(chunk_size=4), n_jobs=2)
    np.testing.assert_array_equal(parallel.values, serial.values)
    np.testing.assert_array_equal(parallel.base_values, serial.base_values)
    assert parallel.details["n_jobs"] == 2


# --------------------------------------------------------------------------- #
# linear SHAP
# --------------------------------------------------------------------------- #
def test_linear_regression_closed_form(reg_data):
    Xtr, ytr, Xte = reg_data
    model = LinearRegression().fit(Xtr, ytr)
    r = shap_values(model, Xte, X_background=Xtr)
    mean = Xtr.mean(axis=0)
    np.testing.assert_allclose(r.values, model.coef_ * (Xte - mean), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(r.base_values, model.intercept_ + model.coef_ @ mean, rtol=1e-10)
    assert r.background_size == len(Xtr) and r.details["background_index"] is None


def test_scaled_logistic_equals_unscaled_linear_form(clf_data):
    Xtr, ytr, Xte = clf_data
    model = make_estimator("logistic_regression", "classification", {"C": 0.5}, random_state=0).fit(Xtr, ytr)
    r = shap_values(model, Xte, X_background=Xtr, background_size=50, random_state=7)
    scaler, logit = model.named_steps["scale"], model.named_steps["model"]
    coef_unscaled = logit.coef_[0] / scaler.scale_  # the same model on raw features
    B = _background(r, Xtr)
    assert r.background_size == 50 and len(B) == 50 and len(set(r.details["background_index"])) == 50
    np.testing.assert_allclose(r.values, coef_unscaled * (Xte - B.mean(0)), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(r.base_values, model.decision_function(B.mean(0)[None, :])[0], rtol=1e-9)
    assert r.data is not None and np.array_equal(r.data, Xte)  # reported in original units


def test_permutation_on_logistic_equals_linear_shap(clf_data):
    """The model-agnostic game is interventional on the log-odds: on a logistic
    model it must reproduce Linear SHAP (one antithetic pair is exact)."""
    Xtr, ytr, Xte = clf_data
    model = make_estimator("logistic_regression", "classification", {"C": 1.0}, random_state=0).fit(Xtr, ytr)
    kw = dict(X_background=Xtr, background_size=25, random_state=4)
    lin = shap_values(model, Xte[:6], **kw)
    perm = shap_values(model, Xte[:6], algorithm="permutation", **kw)
    assert perm.details["n_permutations"] == 1
    np.testing.assert_allclose(perm.values, lin.values, rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(perm.base_values, lin.base_values, rtol=1e-9, atol=1e-10)


# --------------------------------------------------------------------------- #
# model-agnostic explainers: exact cases against brute force / closed forms
# --------------------------------------------------------------------------- #
def test_permutation_exact_for_quadratic_log_odds(clf_data):
    """QDA log-odds are quadratic: one antithetic pair gives exact Shapley values."""
    Xtr, ytr, Xte = clf_data
    Xtr4, Xte4 = Xtr[:, :4], Xte[:5, :4]
    model = make_estimator("qda", "classification", {"reg_param": 0.05}, random_state=0).fit(Xtr4, ytr)
    r = shap_values(model, Xte4, X_background=Xtr4, background_size=15, random_state=1)
    assert r.details["n_permutations"] == 1 and r.details["log_odds_source"] == "decision_function"
    B = _background(r, Xtr4)
    for i in range(len(Xte4)):
        phi, base = brute_force_shapley(model.decision_function, Xte4[i], B)
        np.testing.assert_allclose(r.values[i], phi, rtol=1e-9, atol=1e-10)
        assert r.base_values[i] == pytest.approx(base, rel=1e-10, abs=1e-10)


def test_gaussian_nb_closed_form(clf_data):
    """Naive Bayes log-odds are additive: phi_j = g_j(x_j) - mean_b g_j(b_j)."""
    Xtr, ytr, Xte = clf_data
    model = GaussianNB().fit(Xtr, ytr)
    r = shap_values(model, Xte, X_background=Xtr, background_size=40)
    B = _background(r, Xtr)

    def g(Z):  # per-feature log-likelihood ratio, shape (n, p)
        out = 0.0
        for c, sign in ((1, 1.0), (0, -1.0)):
            mu, var = model.theta_[c], model.var_[c]
            out = out + sign * (-0.5 * np.log(2 * np.pi * var) - (Z - mu) ** 2 / (2 * var))
        return out

    np.testing.assert_allclose(r.values, g(Xte) - g(B).mean(0), rtol=1e-9, atol=1e-10)


def test_kernel_exact_when_all_coalitions_enumerated(clf_data):
    Xtr, ytr, Xte = clf_data
    X3, T3 = Xtr[:, :3], Xte[:4, :3]
    model = KNeighborsClassifier(n_neighbors=9).fit(X3, ytr)
    r = shap_values(
        model, T3, X_background=X3, algorithm="kernel", options=ShapOptions(n_coalitions=2**3), background_size=20
    )
    assert r.algorithm == "kernel"
    B = _background(r, X3)

    def f(Z):
        p = np.clip(model.predict_proba(Z)[:, 1], 1e-6, 1 - 1e-6)
        return np.log(p / (1 - p))

    for i in range(len(T3)):
        phi, base = brute_force_shapley(f, T3[i], B)
        np.testing.assert_allclose(r.values[i], phi, rtol=1e-7, atol=1e-8)
        assert r.base_values[i] == pytest.approx(base, rel=1e-9)


def test_permutation_exact_for_two_features_and_close_otherwise(clf_data):
    Xtr, ytr, Xte = clf_data
    # p = 2: the antithetic pair covers both orderings -> exact for any model
    model2 = KNeighborsClassifier(n_neighbors=9).fit(Xtr[:, :2], ytr)
    r2 = shap_values(
        model2, Xte[:4, :2], X_background=Xtr[:, :2], background_size=20, options=ShapOptions(n_permutations=1)
    )
    f2 = lambda Z: (
        np.log(np.clip(model2.predict_proba(Z)[:, 1], 1e-6, 1 - 1e-6))
        - np.log(np.clip(model2.predict_proba(Z)[:, 0], 1e-6, 1 - 1e-6))
    )
    B2 = _background(r2, Xtr[:, :2])
    for i in range(4):
        np.testing.assert_allclose(r2.values[i], brute_force_shapley(f2, Xte[i, :2], B2)[0], atol=1e-10)
    # p = 5, kNN (high-order interactions): a Monte Carlo estimate near the exact values
    model = KNeighborsClassifier(n_neighbors=15).fit(Xtr, ytr)
    r = shap_values(
        model, Xte[:3], X_background=Xtr, background_size=20, options=ShapOptions(n_permutations=20, link="identity")
    )
    B = _background(r, Xtr)
    exact = np.array([brute_force_shapley(lambda Z: model.predict_proba(Z)[:, 1], x, B)[0] for x in Xte[:3]])
    rel = np.linalg.norm(r.values - exact) / np.linalg.norm(exact)
    assert rel < 0.15, rel


def test_permutation_seeded_per_row_and_restores_rng(clf_data):
    """One seed per row of X: a row's values do not depend on which other rows
    are explained (so neither on max_rows nor on the split over n_jobs)."""
    Xtr, ytr, Xte = clf_data
    model = make_estimator("knn", "classification", {"n_neighbors": 5}, random_state=0).fit(Xtr, ytr)
    kw = dict(X_background=Xtr, background_size=15, options=ShapOptions(n_permutations=2), random_state=5)
    np.random.seed(123)
    state = np.random.get_state()
    full = shap_values(model, Xte, **kw)  # 24 rows -> 2 row blocks
    after = np.random.get_state()
    assert np.array_equal(state[1], after[1]) and state[2] == after[2]
    sub = shap_values(model, Xte, max_rows=5, **kw)
    np.testing.assert_array_equal(sub.values, full.values[sub.row_index])
    again = shap_values(model, Xte, **kw)
    np.testing.assert_array_equal(again.values, full.values)
    other = shap_values(model, Xte, **{**kw, "random_state": 6})
    assert not np.allclose(other.values, full.values)


# --------------------------------------------------------------------------- #
# options, validation, tidy output
# --------------------------------------------------------------------------- #
def test_max_rows_subsample(reg_data):
    Xtr, ytr, Xte = reg_data
    model = make_estimator("gradient_boosting", "regression", {"n_estimators": 10}, random_state=0).fit(Xtr, ytr)
    full = shap_values(model, Xte)
    sub = shap_values(model, Xte, max_rows=7, random_state=2)
    assert len(sub.row_index) == 7 and np.all(np.diff(sub.row_index) > 0)
    np.testing.assert_allclose(sub.values, full.values[sub.row_index], atol=1e-12)
    np.testing.assert_array_equal(sub.data, Xte[sub.row_index])
    again = shap_values(model, Xte, max_rows=7, random_state=2)
    np.testing.assert_array_equal(again.row_index, sub.row_index)
    assert sub.details["max_rows"] == 7 and sub.details["n_rows_in_X"] == N_TEST
    np.testing.assert_array_equal(shap_values(model, Xte, max_rows=100).row_index, np.arange(N_TEST))


def test_feature_names_from_dataframe(reg_data):
    Xtr, ytr, Xte = reg_data
    cols = [f"c{j}" for j in range(P)]
    model = LinearRegression().fit(pd.DataFrame(Xtr, columns=cols), ytr)
    r = shap_values(model, pd.DataFrame(Xte, columns=cols), X_background=Xtr)
    assert r.feature_names == tuple(cols)
    r2 = shap_values(model, Xte, X_background=Xtr)  # names from feature_names_in_
    assert r2.feature_names == tuple(cols)


@pytest.fixture(scope="module")
def small_models(reg_data, clf_data):
    Xr, yr, _ = reg_data
    Xc, yc, _ = clf_data
    return {
        "lin": LinearRegression().fit(Xr, yr),
        "knn": make_estimator("knn", "classification", {"n_neighbors": 3}, random_state=0).fit(Xc, yc),
        "rf": RandomForestClassifier(n_estimators=3, random_state=0).fit(Xc, yc),
        "multi": LogisticRegression().fit(Xc, np.arange(len(yc)) % 3),
        "poly": Pipeline([("poly", PolynomialFeatures(2)), ("m", LinearRegression())]).fit(Xr, yr),
        "minmax_logit": Pipeline([("s", MinMaxScaler()), ("m", LogisticRegression())]).fit(Xc, yc),
    }


@pytest.mark.parametrize(
    "model,kwargs,error,match",
    [
        ("lin", {"X": np.zeros((3, P + 1))}, ValueError, f"with {P} columns"),
        ("lin", {"X": np.full((3, P), np.nan)}, ValueError, "NaN"),
        ("lin", {"X": np.zeros(P)}, ValueError, "2D array"),  # scikit-learn's check_array
        ("lin", {"X_background": None}, ValueError, "X_background"),
        ("lin", {"X_background": np.zeros((4, 2))}, ValueError, f"X_background must be .* with {P} columns"),
        ("lin", {"algorithm": "magic"}, ValueError, "unknown algorithm"),
        ("lin", {"algorithm": "tree_explainer"}, ValueError, "tree_explainer"),
        ("lin", {"algorithm": "xgboost_pred_contribs"}, ValueError, "XGBoost"),
        ("lin", {"interactions": True}, ValueError, "tree models only"),
        ("lin", {"max_rows": 0}, ValueError, "max_rows"),
        ("lin", {"background_size": -2}, ValueError, "background_size"),
        ("lin", {"feature_names": ["a", "b"]}, ValueError, "feature_names"),
        ("lin", {"options": ShapOptions(link="logit")}, ValueError, "link"),
        ("knn", {"options": ShapOptions(link="probit")}, ValueError, "link"),
        ("knn", {"options": ShapOptions(proba_clip=0.7)}, ValueError, "proba_clip"),
        ("knn", {"algorithm": "linear_explainer"}, ValueError, "linear_explainer"),
        ("rf", {"options": ShapOptions(link="logit")}, ValueError, "probability|identity"),
        ("rf", {"options": ShapOptions(chunk_size=0)}, ValueError, "chunk_size"),
        ("multi", {}, ValueError, "class_index"),  # a multiclass model is explained one class at a time
        ("multi", {"class_index": 3}, ValueError, "class_index in 0..2"),
        ("multi", {"class_index": 1, "options": ShapOptions(link="logit")}, ValueError, "link must be 'auto'"),
        ("lin", {"class_index": 0}, ValueError, "regressor"),
        ("rf", {"class_index": 0}, ValueError, "class 1"),
        ("poly", {}, ValueError, "StandardScaler"),
        ("minmax_logit", {}, ValueError, "StandardScaler"),
    ],
)
def test_validation_errors(small_models, reg_data, model, kwargs, error, match):
    Xtr = reg_data[0]
    kw = {"X": Xtr[:3], "X_background": Xtr, **kwargs}
    with pytest.raises(error, match=match):
        shap_values(small_models[model], **kw)


def test_unfitted_model_raises(reg_data):
    with pytest.raises(NotFittedError):
        shap_values(LinearRegression(), reg_data[2], X_background=reg_data[0])


def test_tidy_outputs(reg_data):
    Xtr, ytr, Xte = reg_data
    model = make_estimator("xgboost", "regression", {"n_estimators": 10}, random_state=0).fit(Xtr, ytr)
    r = shap_values(model, Xte, max_rows=10, feature_names=list("abcde"))
    assert isinstance(r, ShapResult)
    long = tidy_frame(r)
    assert list(long.columns) == ["row", "feature", "feature_value", "shap_value", "base_value", "model_output"]
    assert len(long) == 10 * P
    wide = long.pivot(index="row", columns="feature", values="shap_value").loc[r.row_index, list("abcde")]
    np.testing.assert_array_equal(wide.to_numpy(), r.values)
    vals = long.pivot(index="row", columns="feature", values="feature_value").loc[r.row_index, list("abcde")]
    np.testing.assert_array_equal(vals.to_numpy(), Xte[r.row_index])
    rows = row_frame(r)
    assert list(rows["row"]) == list(r.row_index)
    assert np.abs(rows["additivity_error"]).max() < 1e-5
    imp = global_importance(r)
    assert list(imp["feature"]) == [list("abcde")[j] for j in np.argsort(-np.abs(r.values).mean(0), kind="stable")]
    assert np.all(np.diff(imp["mean_abs_shap"]) <= 0) and list(imp["rank"]) == list(range(1, P + 1))
    meta = result_metadata(r)
    text = json.dumps(meta)  # JSON-serialisable
    assert json.loads(text)["algorithm"] == "xgboost_pred_contribs"
    assert meta["output"] == "prediction" and meta["background_size"] == 0 and meta["n_rows"] == 10
    with pytest.raises(TypeError):
        tidy_frame(long)


def test_auto_algorithm_comes_from_the_registry(reg_data, clf_data):
    Xr, yr, _ = reg_data
    Xc, yc, _ = clf_data
    expected = {
        ("linear_regression", "regression"): "linear_explainer",
        ("logistic_regression", "classification"): "linear_explainer",
        ("decision_tree", "regression"): "tree_explainer",
        ("random_forest", "regression"): "tree_explainer",
        ("extra_trees", "classification"): "tree_explainer",
        ("gradient_boosting", "classification"): "tree_explainer",
        ("xgboost", "regression"): "xgboost_pred_contribs",
        ("gaussian_nb", "classification"): "permutation",
        ("qda", "classification"): "permutation",
        ("knn", "classification"): "permutation",
    }
    for (family, task), algorithm in expected.items():
        params = (
            {"n_estimators": 3} if family in ("random_forest", "extra_trees", "gradient_boosting", "xgboost") else {}
        )
        X, y = (Xr, yr) if task == "regression" else (Xc, yc)
        assert auto_algorithm(make_estimator(family, task, params, random_state=0).fit(X, y)) == algorithm
    from sklearn.svm import SVR

    assert auto_algorithm(SVR().fit(Xr, yr)) == "permutation"  # not a registered family


@pytest.mark.parametrize(
    "family,params,interactions",
    [
        ("xgboost", {"n_estimators": 8, "max_depth": 3}, True),
        ("random_forest", {"n_estimators": 4, "max_depth": 4}, False),
    ],
)
def test_shap_tables_wrap_shap_values(family, params, interactions, reg_data):
    Xtr, ytr, Xte = reg_data
    model = make_estimator(family, "regression", params, random_state=0).fit(Xtr, ytr)
    names = list("abcde")
    test_rows = np.arange(N_TEST) * 2 + 7  # positions in prepared.csv
    data = SimpleNamespace(
        X_test=Xte, X_train=Xtr, test_rows=test_rows, features=names, feature_groups=None, classes=None, dataset="toy"
    )
    settings = ShapSettings(
        family=family, seed=1, max_rows=20, max_rows_random_forest=12, background_size=None, large_data=None
    )
    out = shap_tables(model, data, settings)
    assert isinstance(out, ShapTables) and isinstance(out.meta, dict)
    ref = shap_values(
        model,
        Xte,
        X_background=Xtr,
        feature_names=names,
        max_rows=12 if family == "random_forest" else 20,
        interactions=interactions,
        random_state=1,
    )
    res = out.result
    assert res.estimator is None and res.algorithm == ref.algorithm
    np.testing.assert_array_equal(res.values, ref.values)
    np.testing.assert_array_equal(res.row_index, ref.row_index)
    assert list(out.to_frames()) == ["values", "rows", "importance", "interactions"]
    for frame in out.to_frames().values():
        assert list(frame.columns[:2]) == ["dataset", "model"]
        assert (frame["dataset"] == "toy").all() and (frame["model"] == family).all()
    values = out.values.drop(columns=["dataset", "model"])
    np.testing.assert_array_equal(values["row_id"], test_rows[values["row"]])
    pd.testing.assert_frame_equal(values.drop(columns="row_id"), tidy_frame(ref))
    rows = out.rows.drop(columns=["dataset", "model"])
    np.testing.assert_array_equal(rows["row_id"], test_rows[ref.row_index])
    pd.testing.assert_frame_equal(rows.drop(columns="row_id"), row_frame(ref))
    pd.testing.assert_frame_equal(out.importance.drop(columns=["dataset", "model"]), global_importance(ref))
    inter = out.interactions.drop(columns=["dataset", "model"])
    if interactions:  # only for the xgboost_pred_contribs families
        pd.testing.assert_frame_equal(inter, interaction_frame(ref))
        assert len(inter) == len(ref.row_index) * P * P
    else:
        assert inter.empty
    meta = out.meta
    json.dumps(meta)
    assert meta["dataset"] == "toy" and meta["model"] == family
    assert meta["test_rows_explained"] == test_rows[ref.row_index].tolist()
    assert meta["n_rows"] == len(ref.row_index)
