"""Model reliance (``model_reliance``): losses vs scikit-learn, permutation estimator vs
sklearn.inspection.permutation_importance, e_divide / e_switch vs their
definitions (hand-computed and brute force), the linear closed form, feature
groups, the multi-member (prefix / predict-many) path vs separately fitted models,
and the choice of path (``method``)."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_breast_cancer, load_diabetes
from sklearn.ensemble import GradientBoostingClassifier, GradientBoostingRegressor
from sklearn.inspection import permutation_importance
from sklearn.linear_model import LinearRegression, LogisticRegression, Ridge
from sklearn.metrics import log_loss as sk_log_loss
from sklearn.metrics import mean_squared_error
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MinMaxScaler, StandardScaler
from sklearn.tree import DecisionTreeRegressor

from xaipipe.explain.reliance import (
    METHODS,
    RELIANCE_COLUMNS,
    RelianceOptions,
    RelianceResult,
    conditional_model_reliance,
    e_switch_rows,
    features_from_groups,
    linear_coefficients,
    model_reliance,
    random_permutations,
    resolve_features,
    sklearn_permutations,
)
from xaipipe.explain.reliance._linear import linear_e_switch
from xaipipe.losses import log_loss, squared_error, zero_one
from xaipipe.models.prefix import member_predictor

RTOL = 1e-12


@pytest.fixture(scope="module")
def reg():
    X, y = load_diabetes(return_X_y=True)
    return X[:120], y[:120]


@pytest.fixture(scope="module")
def clf():
    X, y = load_breast_cancer(return_X_y=True)
    return X[:150, :6], y[:150]


@pytest.fixture(scope="module")
def gb_reg(reg):
    X, y = reg
    return GradientBoostingRegressor(n_estimators=9, max_depth=2, random_state=0).fit(X, y)


def _close(a, b, rtol=RTOL):
    a, b = np.asarray(a, float), np.asarray(b, float)
    np.testing.assert_allclose(a, b, rtol=rtol, atol=rtol * np.abs(b).max())


# ----------------------------------------------------------------------------- losses


def test_losses_match_sklearn_metrics():
    rng = np.random.default_rng(0)
    y = rng.normal(size=50)
    pred = rng.normal(size=(3, 50))
    se = squared_error(y, pred)
    assert se.shape == (3, 50)
    for k in range(3):
        _close(se[k].mean(), mean_squared_error(y, pred[k]))

    yb = rng.integers(0, 2, size=40)
    p = rng.uniform(size=(2, 40))
    p[0, :3] = [0.0, 1.0, 0.5]  # clipping and a tie
    for dtype in (np.float64, np.float32):
        pp = p.astype(dtype)
        ll = log_loss(yb, pp)
        for k in range(2):
            _close(ll[k].mean(), sk_log_loss(yb, pp[k]), rtol=1e-6 if dtype == np.float32 else RTOL)
        # (m, n, 2) predict_proba output: column 1 is used, same result
        proba = np.stack([1 - pp, pp], axis=-1)
        np.testing.assert_array_equal(log_loss(yb, proba), ll)

    zo = zero_one(yb, p)
    expected = ((p > 0.5).astype(int) != yb).astype(float)  # p = 0.5 -> class 0
    np.testing.assert_array_equal(zo, expected)
    proba = np.stack([1 - p, p], axis=-1)
    proba[1, 5] = [0.3, 0.3]  # unnormalised tie -> argmax picks class 0
    expected[1, 5] = float(yb[5] != 0)
    np.testing.assert_array_equal(zero_one(yb, proba), expected)


def test_loss_errors():
    y = np.array([0, 1, 1])
    with pytest.raises(ValueError, match="labels 0/1"):
        log_loss(np.array([0, 2, 1]), np.full((1, 3), 0.5))
    with pytest.raises(ValueError, match="only binary"):  # 2-D output: the class-1 probability of a binary model
        log_loss(y, np.full((1, 3, 1), 0.5))
    with pytest.raises(ValueError, match=r"labels 0\.\.2"):  # 3 classes: labels 0..2
        log_loss(np.array([0, 3, 1]), np.full((1, 3, 3), 1 / 3))
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        zero_one(np.array([0, 2, 1]), np.full((1, 3, 3), 1.5))
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        zero_one(y, np.array([[0.2, 1.5, 0.1]]))
    with pytest.raises(ValueError, match="n_members"):
        squared_error(y, np.zeros(3))
    with pytest.raises(ValueError, match="n_members"):
        squared_error(y, np.zeros((1, 3, 2)))


# ----------------------------------------------------------------------------- sklearn agreement


def test_permutation_equals_sklearn_permutation_importance_regression(reg, gb_reg):
    X, y = reg
    R = 4
    ref = permutation_importance(gb_reg, X, y, scoring="neg_mean_squared_error", n_repeats=R, random_state=7)
    perms = sklearn_permutations(len(y), R, 7)
    arrays = model_reliance(
        member_predictor(gb_reg), X, y, options=RelianceOptions(permutations=perms)
    )  # a predict-many callable
    assert isinstance(arrays, RelianceResult) and arrays.method == "generic"
    _close(arrays.mr_difference()[0], ref.importances)  # every repeat, every feature
    fitted = model_reliance(
        gb_reg, X, y, options=RelianceOptions(permutations=perms)
    )  # the fitted model: the tree engine
    assert fitted.method == "engine" and fitted.n_estimators is None
    np.testing.assert_array_equal(fitted.e_switch, arrays.e_switch)
    table = fitted.to_frame()
    assert list(table.columns) == RELIANCE_COLUMNS
    _close(table["mr_difference"], ref.importances_mean)
    # sklearn's std has ddof=0, ours ddof=1
    _close(table["mr_difference_std"] * np.sqrt((R - 1) / R), ref.importances_std)
    _close(table["mr_difference_se"], table["mr_difference_std"] / np.sqrt(R))
    assert (table["algorithm"] == "given_permutations").all()


def test_permutation_equals_sklearn_for_classifier_log_loss_and_accuracy(clf):
    X, y = clf
    model = make_pipeline(StandardScaler(), LogisticRegression(C=0.5, max_iter=2000)).fit(X, y)
    perms = sklearn_permutations(len(y), 3, 11)
    ref = permutation_importance(model, X, y, scoring="neg_log_loss", n_repeats=3, random_state=11)
    table = model_reliance(
        model, X, y, options=RelianceOptions(permutations=perms)
    ).to_frame()  # loss defaults to log_loss
    assert (table["loss"] == "log_loss").all()
    _close(table["mr_difference"], ref.importances_mean)
    ref = permutation_importance(model, X, y, scoring="accuracy", n_repeats=3, random_state=11)
    table = model_reliance(model, X, y, options=RelianceOptions(permutations=perms), loss="zero_one").to_frame()
    _close(table["mr_difference"], ref.importances_mean)


# ----------------------------------------------------------------------------- multi-member path


def test_prefix_members_equal_separately_fitted_models(reg):
    X, y = reg
    ks = [1, 4, 9]
    big = GradientBoostingRegressor(n_estimators=9, max_depth=2, random_state=3).fit(X, y)
    perms = random_permutations(len(y), 3, X.shape[1], random_state=5)
    for estimator, kw in [
        ("permutation", {"options": RelianceOptions(permutations=perms)}),
        ("e_divide", {"random_state": 5}),
    ]:
        result = model_reliance(big, X, y, n_estimators=ks, estimator=estimator, **kw)
        assert result.n_estimators == ks and result.e_switch.shape[:2] == (len(ks), X.shape[1])
        many = result.to_frame()
        assert list(many.columns) == RELIANCE_COLUMNS[:1] + ["n_estimators"] + RELIANCE_COLUMNS[1:]
        assert many["n_estimators"].tolist() == list(np.repeat(ks, X.shape[1]))
        for i, k in enumerate(ks):
            small = GradientBoostingRegressor(n_estimators=k, max_depth=2, random_state=3).fit(X, y)
            one = model_reliance(small, X, y, estimator=estimator, **kw).to_frame()
            part = many[many["member"] == i]
            for col in ("e_orig", "e_switch", "mr_ratio", "mr_difference"):
                _close(part[col], one[col])
            if estimator == "permutation":
                _close(part["mr_ratio_se"], one["mr_ratio_se"])


def test_prefix_members_classifier(clf):
    X, y = clf
    ks = [2, 6]
    big = GradientBoostingClassifier(n_estimators=6, max_depth=2, random_state=1).fit(X, y)
    perms = random_permutations(len(y), 2, 1, random_state=0)[0]  # shared by all features
    generic = model_reliance(
        big, X, y, n_estimators=ks, loss="log_loss", options=RelianceOptions(permutations=perms), method="generic"
    )
    assert generic.method == "generic"
    many = generic.to_frame()
    for i, k in enumerate(ks):
        small = GradientBoostingClassifier(n_estimators=k, max_depth=2, random_state=1).fit(X, y)
        one = model_reliance(small, X, y, options=RelianceOptions(permutations=perms)).to_frame()
        _close(many.loc[many["member"] == i, "mr_ratio"], one["mr_ratio"])
    # the predict-many callable of the same members gives the same arrays
    callable_ = model_reliance(
        member_predictor(big, ks), X, y, loss="log_loss", options=RelianceOptions(permutations=perms)
    )
    np.testing.assert_array_equal(callable_.e_switch, generic.e_switch)
    np.testing.assert_array_equal(callable_.e_orig, generic.e_orig)


def test_one_predict_pass_per_data_set_and_batching_invariance(reg, gb_reg):
    X, y = reg
    n, G, R = len(y), 3, 2
    calls = []

    def predict(Z):
        calls.append(len(Z))
        return member_predictor(gb_reg, [3, 9])(Z)

    kw = dict(features=[0, 2, 8], n_repeats=R, random_state=1)
    unbatched = model_reliance(predict, X, y, options=RelianceOptions(max_rows_per_batch=n), **kw).to_frame()
    assert calls == [n] * (1 + G * R)
    calls.clear()
    stacked = model_reliance(predict, X, y, options=RelianceOptions(max_rows_per_batch=3 * n), **kw).to_frame()
    assert sum(calls) == n * (1 + G * R) and len(calls) == 3
    # per-data-set sums do not depend on how data sets are stacked
    pd.testing.assert_frame_equal(unbatched, stacked)


# ----------------------------------------------------------------------------- e_divide / e_switch


def _linear_predict(coefs, intercepts):
    coefs, intercepts = np.atleast_2d(coefs), np.atleast_1d(intercepts)
    return lambda Z: intercepts[:, None] + coefs @ np.asarray(Z, float).T


def test_e_divide_hand_computed():
    # f(x) = 1 + 2 x1 + 3 x2; n = 5 so h = 2 and row 4 is unused by e_divide.
    X = np.array([[1, 0], [2, 1], [0, 2], [3, 1], [5, 5]], dtype=float)
    y = np.array([3, 9, 7, 10, 25], dtype=float)
    predict = _linear_predict([[2, 3], [0, 3]], [1, 1])
    # the identity permutation gives the file-order halving (rows 0,1 | rows 2,3)
    file_order = np.arange(5)[None, None, :]
    r = model_reliance(
        predict, X, y, estimator="e_divide", features={"x1": [0]}, options=RelianceOptions(permutations=file_order)
    )
    assert r.algorithm == "given_halvings"
    t = r.to_frame()
    # member 0: original fits 3, 8, 7, 10, 26 -> squared errors 0, 1, 0, 0, 1 -> e_orig = 2/5.
    # Swapped x1: rows 0,1 take x1 of rows 2,3 (0, 3); rows 2,3 take x1 of rows 0,1 (1, 2):
    # fits 1, 10, 9, 8 vs y 3, 9, 7, 10 -> 4, 1, 4, 4 -> e_divide = 13/4.
    m0 = t.iloc[0]
    assert m0["e_orig"] == pytest.approx(0.4, rel=RTOL)
    assert m0["e_switch"] == pytest.approx(3.25, rel=RTOL)
    assert m0["mr_ratio"] == pytest.approx(8.125, rel=RTOL)
    assert m0["mr_difference"] == pytest.approx(2.85, rel=RTOL)
    # member 1 ignores x1: fits 1+3*x2 = 1, 4, 7, 4, 16 -> errors 4, 25, 0, 36, 81; no reliance.
    m1 = t.iloc[1]
    assert m1["e_orig"] == pytest.approx(146 / 5, rel=RTOL)
    assert m1["e_switch"] == pytest.approx((4 + 25 + 0 + 36) / 4, rel=RTOL)
    assert np.isnan(m1["mr_ratio_se"]) and m1["n_repeats"] == 1 and m1["n_samples"] == 5


def _brute_e_switch(f, X, y, cols, loss):
    n = len(y)
    total = 0.0
    for i in range(n):  # donor of the switched columns
        for j in range(n):  # recipient: y_j and the other columns
            if i != j:
                x = X[j].copy()
                x[cols] = X[i, cols]
                total += loss(y[j : j + 1], f(x[None]))[0, 0]
    return total / (n * (n - 1))


def test_e_switch_chunked_equals_brute_force_definition():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(7, 3))
    y = rng.normal(size=7)

    def f(Z):  # two nonlinear members
        return np.stack([np.sin(Z[:, 0]) * Z[:, 1] + Z[:, 2] ** 2, np.tanh(Z @ [1.0, -2.0, 0.5])])

    groups = {"a": [0], "bc": [1, 2]}
    expected = [
        [_brute_e_switch(lambda z: f(z)[k : k + 1], X, y, c, squared_error) for c in groups.values()] for k in range(2)
    ]
    results = []
    for rows in (6, 13, 10_000):  # one donor per chunk, two donors per chunk, everything at once
        t = model_reliance(
            f, X, y, estimator="e_switch", features=groups, options=RelianceOptions(max_rows_per_batch=rows)
        ).to_frame()
        _close(t["e_switch"].to_numpy().reshape(2, 2), expected)
        results.append(t["e_switch"].to_numpy())
        assert (t["algorithm"] == "all_pairs").all()
    _close(results[0], results[2])


def test_linear_closed_form_equals_all_pairs(reg):
    X, y = reg
    X, y = X[:60], y[:60]
    feats = {"age": [0], "bmi_bp": [2, 3], "s": [4, 5, 6]}
    for model in (
        LinearRegression().fit(X, y),
        make_pipeline(StandardScaler(), Ridge(alpha=3.0)).fit(X, y),
        make_pipeline(MinMaxScaler(), StandardScaler(with_mean=False), LinearRegression()).fit(X, y),
    ):
        b, b0 = linear_coefficients(model)
        _close(X @ b + b0, model.predict(X), rtol=1e-10)
        auto = model_reliance(model, X, y, estimator="e_switch", features=feats)  # auto: the closed form
        assert auto.method == "linear" and auto.algorithm == "linear_closed_form"
        closed = model_reliance(model, X, y, estimator="e_switch", features=feats, method="linear").to_frame()
        pairs = model_reliance(model, X, y, estimator="e_switch", features=feats, method="generic").to_frame()
        pd.testing.assert_frame_equal(auto.to_frame(), closed)
        assert (closed["algorithm"] == "linear_closed_form").all() and (pairs["algorithm"] == "all_pairs").all()
        _close(closed["e_switch"], pairs["e_switch"], rtol=1e-10)
        np.testing.assert_array_equal(closed["e_orig"], pairs["e_orig"])  # e_orig from predict either way
    # several members with explicit coefficients: the closed form itself
    B = np.array([[1.0, -2.0, 0.5] + [0.0] * 7, [0.0, 1.0, 3.0] + [0.1] * 7]) * 50
    b0 = np.array([150.0, 140.0])
    predict = _linear_predict(B, b0)
    cols = list(resolve_features(feats, X.shape[1]).values())
    closed = linear_e_switch(X, y, B, b0, cols)
    assert closed.shape == (2, len(feats))
    pairs = model_reliance(predict, X, y, estimator="e_switch", features=feats)
    _close(closed, pairs.e_switch[:, :, 0], rtol=1e-10)
    with pytest.raises(TypeError):
        linear_coefficients(DecisionTreeRegressor().fit(X, y))
    with pytest.raises(TypeError, match="needs estimator='e_switch'"):
        model_reliance(DecisionTreeRegressor().fit(X, y), X, y, estimator="e_switch", method="linear")
    lin = LinearRegression().fit(X, y)
    with pytest.raises(TypeError, match="needs estimator='e_switch'"):
        model_reliance(lin, X, y, estimator="permutation", method="linear")
    with pytest.raises(TypeError, match="needs estimator='e_switch'"):
        model_reliance(lin, X, y, estimator="e_switch", loss=lambda yy, out: np.abs(yy - out), method="linear")
    with pytest.raises(ValueError, match="predict-many callable"):
        model_reliance(predict, X, y, estimator="e_switch", method="linear")
    # auto falls back to all pairs where the closed form does not apply (loss, estimator)
    other = model_reliance(lin, X, y, estimator="e_divide", features=feats)
    assert other.method == "generic" and other.algorithm == "random_halvings"


def test_permutation_expectation_over_all_permutations():
    """E over uniform permutations = (1/n) e_orig + (1 - 1/n) e_switch (exact for all n! perms)."""
    rng = np.random.default_rng(2)
    X = rng.normal(size=(5, 2))
    y = rng.normal(size=5)
    tree = DecisionTreeRegressor(max_depth=3, random_state=0).fit(rng.normal(size=(40, 2)), rng.normal(size=40))
    perms = np.array(list(itertools.permutations(range(5))))
    perm = model_reliance(tree, X, y, options=RelianceOptions(permutations=perms), features={"x0": [0]}).to_frame()
    switch = model_reliance(tree, X, y, estimator="e_switch", features={"x0": [0]}).to_frame()
    n = 5
    expected = switch["e_orig"] / n + (1 - 1 / n) * switch["e_switch"]
    _close(perm["e_switch"], expected)
    assert perm["n_repeats"].iloc[0] == 120


# ----------------------------------------------------------------------------- randomness, groups


def test_default_permutations_are_seeded_generator_draws(reg, gb_reg):
    X, y = reg
    predict = member_predictor(gb_reg)
    a = model_reliance(predict, X, y, features=[1, 2], n_repeats=3, random_state=42).to_frame()
    b = model_reliance(predict, X, y, features=[1, 2], n_repeats=3, random_state=42).to_frame()
    c = model_reliance(
        predict,
        X,
        y,
        features=[1, 2],
        n_repeats=3,
        options=RelianceOptions(permutations=random_permutations(len(y), 3, 2, random_state=42)),
    ).to_frame()
    d = model_reliance(predict, X, y, features=[1, 2], n_repeats=3, random_state=43).to_frame()
    # the fitted model (tree engine) draws the same permutations
    e = model_reliance(gb_reg, X, y, features=[1, 2], n_repeats=3, random_state=42).to_frame()
    pd.testing.assert_frame_equal(a, b)
    pd.testing.assert_frame_equal(a, e)
    pd.testing.assert_series_equal(a["e_switch"], c["e_switch"])
    assert not np.allclose(a["e_switch"], d["e_switch"])
    assert (a["algorithm"] == "random_permutations").all() and (a["n_repeats"] == 3).all()
    assert list(a.columns) == RELIANCE_COLUMNS


def test_feature_group_is_permuted_jointly():
    rng = np.random.default_rng(0)
    n = 30
    level = rng.integers(0, 3, size=n)
    onehot = np.eye(3)[level]
    X = np.column_stack([rng.normal(size=n), onehot, rng.normal(size=n)])
    y = X[:, 0] + 2 * onehot[:, 1] - onehot[:, 2] + rng.normal(scale=0.1, size=n)
    w = np.array([1.0, 0.0, 2.0, -1.0, 0.3])

    def predict(Z):
        assert np.all(Z[:, 1:4].sum(axis=1) == 1), "one-hot rows broken: group not permuted jointly"
        return (Z @ w)[None]

    feats = features_from_groups(["a", "Sex_F", "Sex_I", "Sex_M", "b"], {"Sex": ["Sex_F", "Sex_I", "Sex_M"]})
    assert feats == {"a": [0], "Sex": [1, 2, 3], "b": [4]}
    perms = random_permutations(n, 2, 3, random_state=9)
    t = model_reliance(predict, X, y, features=feats, options=RelianceOptions(permutations=perms)).to_frame()
    assert t["feature"].tolist() == ["a", "Sex", "b"]
    # oracle: permute the rows of the group's columns by hand
    for g, cols in enumerate(feats.values()):
        losses = []
        for r in range(2):
            Xp = X.copy()
            Xp[:, cols] = X[perms[g, r]][:, cols]
            losses.append(np.mean((y - Xp @ w) ** 2))
        _close(t["e_switch"].iloc[g], np.mean(losses))
    # names resolve through DataFrame columns too
    frame = pd.DataFrame(X, columns=["a", "Sex_F", "Sex_I", "Sex_M", "b"])
    t2 = model_reliance(
        predict,
        frame,
        y,
        features={"Sex": ["Sex_F", "Sex_I", "Sex_M"]},
        options=RelianceOptions(permutations=perms[1:2]),
    ).to_frame()
    _close(t2["e_switch"], t["e_switch"].iloc[1])
    # feature_groups= builds the same variables from the column names (prepared.json's groups)
    t3 = model_reliance(
        predict,
        frame,
        y,
        options=RelianceOptions(feature_groups={"Sex": ["Sex_F", "Sex_I", "Sex_M"]}, permutations=perms),
    ).to_frame()
    pd.testing.assert_frame_equal(t3, t)
    t4 = model_reliance(
        predict,
        X,
        y,
        options=RelianceOptions(
            feature_names=list(frame.columns), feature_groups={"Sex": ["Sex_F", "Sex_I", "Sex_M"]}, permutations=perms
        ),
    ).to_frame()
    pd.testing.assert_frame_equal(t4, t)


def test_zero_loss_gives_infinite_ratio():
    X = np.arange(12, dtype=float).reshape(6, 2)
    y = X[:, 0] * 2.0
    t = model_reliance(lambda Z: (Z[:, 0] * 2.0)[None], X, y, estimator="e_divide").to_frame()
    assert t["e_orig"].iloc[0] == 0 and np.isinf(t["mr_ratio"].iloc[0]) and np.isnan(t["mr_ratio"].iloc[1])


# ----------------------------------------------------------------------------- validation


def test_validation_errors(reg):
    X, y = reg
    X, y = X[:20], y[:20]
    predict = _linear_predict(np.ones(10), 0.0)
    with pytest.raises(ValueError, match="out of range"):
        model_reliance(predict, X, y, features={"bad": [10]})
    with pytest.raises(ValueError, match="no columns"):
        model_reliance(predict, X, y, features={"empty": []})
    with pytest.raises(ValueError, match="unknown feature name"):
        resolve_features({"g": ["nope"]}, 10, [f"c{i}" for i in range(10)])
    with pytest.raises(ValueError, match="twice"):
        model_reliance(predict, X, y, features={"g": [1, 1]})
    with pytest.raises(ValueError, match="permutation of range"):
        model_reliance(predict, X, y, options=RelianceOptions(permutations=np.zeros((2, 20), dtype=int)))
    with pytest.raises(ValueError, match="shape"):
        model_reliance(predict, X, y, options=RelianceOptions(permutations=np.tile(np.arange(19), (2, 1))))
    with pytest.raises(ValueError, match="n_repeats=3"):
        model_reliance(predict, X, y, n_repeats=3, options=RelianceOptions(permutations=np.tile(np.arange(20), (2, 1))))
    with pytest.raises(ValueError, match="unknown estimator"):
        model_reliance(predict, X, y, estimator="e_perm")
    with pytest.raises(ValueError, match="unknown loss"):
        model_reliance(predict, X, y, loss="mae")
    with pytest.raises(ValueError, match="apply to estimator='permutation' or 'e_divide'"):
        model_reliance(predict, X, y, estimator="e_switch", n_repeats=5)
    with pytest.raises(ValueError, match="predict must return"):
        model_reliance(lambda Z: Z @ np.ones(10), X, y)
    with pytest.raises(ValueError, match="y must have shape"):
        model_reliance(predict, X, y[:-1])
    with pytest.raises(ValueError, match="max_rows_per_batch"):
        model_reliance(predict, X, y, options=RelianceOptions(max_rows_per_batch=0))
    with pytest.raises(ValueError, match="labels 0/1"):
        model_reliance(lambda Z: np.full((1, len(Z)), 0.5), X, y, loss="log_loss")
    with pytest.raises(ValueError, match="is in groups"):
        features_from_groups(["a", "b", "c"], {"g": ["a", "b"], "h": ["b", "c"]})
    with pytest.raises(ValueError, match="not a column"):
        features_from_groups(["a", "b"], {"g": ["a", "z"]})
    with pytest.raises(ValueError, match="either features or feature_groups"):
        model_reliance(predict, X, y, features=[0], options=RelianceOptions(feature_groups={"g": ["x0", "x1"]}))
    with pytest.raises(ValueError, match="unknown method"):
        model_reliance(predict, X, y, method="fast")
    with pytest.raises(ValueError, match="predict-many callable"):
        model_reliance(predict, X, y, method="engine")
    with pytest.raises(ValueError, match="predict-many callable"):
        model_reliance(predict, X, y, n_estimators=[1])
    with pytest.raises(ValueError, match="n_repeats must be >= 1"):
        model_reliance(predict, X, y, n_repeats=0)
    with pytest.raises(TypeError, match="n_repeats must be an integer"):
        model_reliance(predict, X, y, n_repeats=2.5)
    with pytest.raises(TypeError, match="no tree-engine support"):
        model_reliance(LinearRegression().fit(X, y), X, y, method="engine")
    assert METHODS == ("auto", "engine", "generic", "linear")


@pytest.mark.parametrize("kind", ["rf_reg", "gb_reg", "rf_clf", "gb_clf", "et_reg", "et_clf"])
@pytest.mark.parametrize("estimator", ["permutation", "e_divide", "e_switch"])
def test_engine_equals_generic_path(kind, estimator, reg, clf):
    # method="engine" (the tree engine, with threads) must give the generic predict path's
    # table bitwise; method="auto" takes the engine except for e_divide.
    from sklearn.ensemble import (
        ExtraTreesClassifier,
        ExtraTreesRegressor,
        RandomForestClassifier,
        RandomForestRegressor,
    )

    X, y = reg if kind.endswith("reg") else clf
    model = {
        "rf_reg": RandomForestRegressor(n_estimators=15, max_depth=4, random_state=0),
        "gb_reg": GradientBoostingRegressor(n_estimators=15, max_depth=3, random_state=0),
        "rf_clf": RandomForestClassifier(n_estimators=15, max_depth=4, random_state=0),
        "gb_clf": GradientBoostingClassifier(n_estimators=15, max_depth=3, random_state=0),
        "et_reg": ExtraTreesRegressor(n_estimators=15, max_depth=4, random_state=0),
        "et_clf": ExtraTreesClassifier(n_estimators=15, max_depth=4, random_state=0),
    }[kind].fit(X, y)
    losses = ["squared_error"] if kind.endswith("reg") else ["log_loss", "zero_one"]
    kw = {"n_repeats": 4, "random_state": 1} if estimator != "e_switch" else {}
    for loss in losses:
        fast = model_reliance(model, X[:60], y[:60], estimator=estimator, loss=loss, n_jobs=2, method="engine", **kw)
        slow = model_reliance(model, X[:60], y[:60], estimator=estimator, loss=loss, method="generic", **kw)
        auto = model_reliance(model, X[:60], y[:60], estimator=estimator, loss=loss, **kw)
        assert (fast.method, slow.method) == ("engine", "generic")
        assert auto.method == "engine"  # e_divide with several halvings too
        pd.testing.assert_frame_equal(fast.to_frame(), slow.to_frame(), check_exact=True)
        pd.testing.assert_frame_equal(auto.to_frame(), slow.to_frame(), check_exact=True)


def test_pipeline_wrapped_forest_takes_the_generic_path(reg):
    from sklearn.ensemble import RandomForestRegressor

    X, y = reg
    wrapped = make_pipeline(
        StandardScaler(with_mean=False, with_std=False),  # the identity
        RandomForestRegressor(n_estimators=5, max_depth=3, random_state=0),
    ).fit(X, y)
    rf = wrapped[-1]
    perms = random_permutations(len(y), 2, X.shape[1], random_state=0)
    a = model_reliance(wrapped, X, y, options=RelianceOptions(permutations=perms))
    assert a.method == "generic"
    np.testing.assert_array_equal(
        a.e_switch, model_reliance(rf, X, y, options=RelianceOptions(permutations=perms)).e_switch
    )
    with pytest.raises(TypeError, match="no tree-engine support"):
        model_reliance(wrapped, X, y, method="engine")


def test_result_arrays_and_frame(reg, gb_reg):
    X, y = reg
    res = model_reliance(
        gb_reg, X, y, features={"a": [0], "bc": [1, 2]}, n_repeats=3, random_state=0, n_estimators=[2, 9]
    )
    m, G, R = res.e_switch.shape
    assert (m, G, R) == (2, 2, 3) and res.e_orig.shape == (2,) and res.features == ["a", "bc"]
    assert res.n_samples == len(y) and res.estimator == "permutation" and not res.deterministic
    np.testing.assert_array_equal(res.mr_ratio(), res.e_switch / res.e_orig[:, None, None])
    np.testing.assert_array_equal(res.mr_difference(), res.e_switch - res.e_orig[:, None, None])
    frame = res.to_frame()
    assert len(frame) == m * G and frame["member"].tolist() == [0, 0, 1, 1]
    assert frame["n_estimators"].tolist() == [2, 2, 9, 9] and (frame["n_repeats"] == R).all()
    np.testing.assert_array_equal(frame["e_switch"], res.e_switch.mean(axis=2).ravel())
    np.testing.assert_array_equal(frame["mr_ratio"], res.mr_ratio().mean(axis=2).ravel())
    np.testing.assert_allclose(frame["mr_difference_std"], res.mr_difference().std(axis=2, ddof=1).ravel())
    np.testing.assert_allclose(frame["mr_ratio_se"], res.mr_ratio().std(axis=2, ddof=1).ravel() / np.sqrt(R))


def test_max_samples_is_the_seeded_e_switch_subsample():
    """``max_samples`` = e_switch on ``np.sort(default_rng(seed).choice(n, k))`` rows (the config key
    ``e_switch_max_rows``); the linear closed form keeps every row; other estimators refuse it."""
    from sklearn.linear_model import LinearRegression
    from sklearn.tree import DecisionTreeRegressor

    rng = np.random.default_rng(3)
    X = rng.normal(size=(50, 3))
    y = X[:, 0] - 2 * X[:, 1] + rng.normal(scale=0.1, size=50)
    tree = DecisionTreeRegressor(max_depth=3, random_state=0).fit(X, y)
    capped = model_reliance(
        tree, X, y, estimator="e_switch", options=RelianceOptions(max_samples=20), random_state=5
    ).to_frame()
    rows = np.sort(np.random.default_rng(5).choice(50, 20, replace=False))
    sub = model_reliance(tree, X[rows], y[rows], estimator="e_switch").to_frame()
    pd.testing.assert_frame_equal(capped, sub)
    assert (capped["n_samples"] == 20).all()
    lin = LinearRegression().fit(X, y)
    full = model_reliance(lin, X, y, estimator="e_switch").to_frame()
    pd.testing.assert_frame_equal(
        model_reliance(lin, X, y, estimator="e_switch", options=RelianceOptions(max_samples=20)).to_frame(), full
    )
    with pytest.raises(ValueError, match="max_samples applies to estimator='e_switch'"):
        model_reliance(tree, X, y, estimator="permutation", options=RelianceOptions(max_samples=20))


def test_reliance_options_default_is_the_plain_call(reg, gb_reg):
    """``options=RelianceOptions()`` (every field at its default) is the call without ``options``, and
    the ``e_switch`` row cap is the one seeded draw :func:`e_switch_rows` documents."""
    X, y = reg
    for estimator in ("permutation", "e_divide", "e_switch"):
        kw = {"estimator": estimator, "random_state": 3} | ({} if estimator == "e_switch" else {"n_repeats": 3})
        plain = model_reliance(gb_reg, X, y, **kw).to_frame()
        pd.testing.assert_frame_equal(plain, model_reliance(gb_reg, X, y, options=RelianceOptions(), **kw).to_frame())
    n = X.shape[0]
    rows = e_switch_rows(n, 40, 5)
    assert np.array_equal(rows, np.sort(np.random.default_rng(5).choice(n, 40, replace=False)))
    assert e_switch_rows(n, n, 5) is None
    with pytest.raises(ValueError, match="max_samples"):
        e_switch_rows(n, 1, 5)
    capped = model_reliance(gb_reg, X, y, estimator="e_switch", random_state=5, options=RelianceOptions(max_samples=40))
    sub = model_reliance(gb_reg, X[rows], y[rows], estimator="e_switch")
    np.testing.assert_array_equal(capped.e_switch, sub.e_switch)
    assert capped.n_samples == 40


def test_conditional_rejects_options_it_does_not_use(reg, gb_reg):
    X, y = reg
    for options in (RelianceOptions(permutations=np.arange(len(y))[None]), RelianceOptions(switch_matrix=True)):
        with pytest.raises(ValueError, match="conditional_model_reliance draws its own permutations"):
            conditional_model_reliance(gb_reg, X, y, X, options=options)
