"""PD / ICE / c-ICE / d-ICE against scikit-learn's ``partial_dependence`` and brute force."""

from __future__ import annotations

import math
import warnings
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from scipy.stats.mstats import mquantiles
from sklearn.ensemble import GradientBoostingClassifier, GradientBoostingRegressor, RandomForestClassifier
from sklearn.inspection import partial_dependence as sk_pd
from sklearn.linear_model import LogisticRegression

from xaipipe.config import PdIceSettings
from xaipipe.explain import pdp
from xaipipe.explain.pdp import pd_ice_tables
from xaipipe.models.output import LOGIT_EPS


# --------------------------------------------------------------------------- #
# fixtures: small data and models (fast)
# --------------------------------------------------------------------------- #
@pytest.fixture(scope="module")
def reg_data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 4))
    y = X[:, 0] * X[:, 1] + np.sin(2 * X[:, 2]) + 0.1 * rng.normal(size=120)
    return X, y


@pytest.fixture(scope="module")
def regressor(reg_data):
    X, y = reg_data
    return GradientBoostingRegressor(n_estimators=30, max_depth=3, random_state=0).fit(X, y)


@pytest.fixture(scope="module")
def clf_data():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(150, 3))
    y = (X[:, 0] + X[:, 1] * X[:, 2] + 0.5 * rng.normal(size=150) > 0).astype(int)
    return X, y


@pytest.fixture(scope="module")
def classifier(clf_data):
    X, y = clf_data
    return GradientBoostingClassifier(n_estimators=25, max_depth=2, random_state=0).fit(X, y)


def brute_ice(f, X, cols, G):
    """Oracle: one model call per (observation, grid point)."""
    G = np.asarray(G, dtype=float).reshape(len(G), -1)
    out = np.empty((X.shape[0], G.shape[0]))
    for i in range(X.shape[0]):
        for k in range(G.shape[0]):
            row = X[i].copy()
            row[cols] = G[k]
            out[i, k] = f(row[None, :])[0]
    return out


# --------------------------------------------------------------------------- #
# grids
# --------------------------------------------------------------------------- #
def test_uniform_grid_is_sklearns_grid(reg_data, regressor):
    X, _ = reg_data
    for res, perc in [(20, (0.05, 0.95)), (7, (0.0, 1.0)), (50, (0.1, 0.8))]:
        sk = sk_pd(regressor, X, [2], method="brute", grid_resolution=res, percentiles=perc)
        np.testing.assert_allclose(pdp.feature_grid(X[:, 2], res, "uniform", perc), sk["grid_values"][0])


def test_grid_uses_unique_values_when_few():
    x = np.array([3.0, 1.0, 2.0, 3.0, 1.0, 5.0])
    np.testing.assert_array_equal(pdp.feature_grid(x, resolution=10), [1.0, 2.0, 3.0, 5.0])
    np.testing.assert_array_equal(pdp.feature_grid(x, resolution=10, kind="quantile"), [1.0, 2.0, 3.0, 5.0])
    # 4 distinct values and resolution 4: not "fewer", so a grid is built
    assert pdp.feature_grid(x, resolution=4).size == 4


def test_quantile_grid_splits_the_data_evenly():
    x = np.random.default_rng(2).exponential(size=2000)  # skewed: uniform grid would be uneven
    g = pdp.feature_grid(x, resolution=11, kind="quantile", percentiles=(0.0, 1.0))
    assert g.size == 11 and np.all(np.diff(g) > 0)
    assert g[0] == x.min() and g[-1] == x.max()
    counts = np.histogram(x, bins=g)[0]  # brute-force count per interval
    assert np.all(np.abs(counts - 200) <= 3)
    g2 = pdp.feature_grid(x, resolution=5, kind="quantile", percentiles=(0.1, 0.9))
    np.testing.assert_allclose(g2[[0, -1]], mquantiles(x, prob=[0.1, 0.9]))


@pytest.mark.parametrize(
    "x, kwargs, match",
    [
        (np.ones(10), {}, "constant"),
        (np.arange(10.0), {"resolution": 1}, ">= 2"),
        (np.arange(10.0), {"percentiles": (0.9, 0.1)}, "lo < hi"),
        (np.arange(10.0), {"percentiles": (0.0, 1.5)}, "lo < hi"),
        (np.arange(10.0), {"kind": "log"}, "kind"),
        (np.array([0.0, np.nan, 1.0]), {}, "NaN"),
        (np.zeros((3, 2)), {}, "1-D"),
        (np.r_[np.zeros(200), np.arange(1.0, 5.0)], {"resolution": 3}, "too close|further apart"),
    ],
)
def test_feature_grid_errors(x, kwargs, match):
    with pytest.raises(ValueError, match=match):
        pdp.feature_grid(x, **kwargs)


def test_onehot_grid_levels():
    A = np.array([[1, 0, 0], [0, 0, 1], [0, 0, 1]])
    np.testing.assert_array_equal(pdp.onehot_grid(A), np.eye(3))  # unobserved level 2 kept
    B = np.array([[0, 0], [1, 0], [0, 1]])  # drop-first coding: reference row of zeros
    np.testing.assert_array_equal(pdp.onehot_grid(B), [[0, 0], [1, 0], [0, 1]])
    with pytest.raises(ValueError, match="0/1"):
        pdp.onehot_grid([[0.5, 0.5]])
    with pytest.raises(ValueError, match="more than one"):
        pdp.onehot_grid([[1, 1], [0, 1]])


def test_deciles_are_sklearn_rug():
    x = np.random.default_rng(3).gamma(2.0, size=333)
    np.testing.assert_allclose(pdp.deciles(x), mquantiles(x, prob=np.arange(0.1, 1.0, 0.1)))


# --------------------------------------------------------------------------- #
# PD / ICE vs scikit-learn
# --------------------------------------------------------------------------- #
def test_regressor_pd_and_ice_equal_sklearn(reg_data, regressor):
    X, _ = reg_data
    for j in (0, 2):
        grid = pdp.feature_grid(X[:, j], resolution=15, kind="quantile")  # non-uniform custom grid
        sk = sk_pd(regressor, X, [j], method="brute", kind="both", custom_values={j: grid})
        ice = pdp.ice_curves(regressor, X, j, grid, max_batch_rows=500)
        np.testing.assert_allclose(sk["grid_values"][0], grid)
        np.testing.assert_allclose(ice, sk["individual"][0], rtol=0, atol=1e-12)
        np.testing.assert_allclose(pdp.partial_dependence(regressor, X, j, grid), sk["average"][0], atol=1e-12)


def test_classifier_probability_pd_and_ice_equal_sklearn(clf_data, classifier):
    X, _ = clf_data
    grid = pdp.feature_grid(X[:, 0], resolution=12)
    sk = sk_pd(
        classifier, X, [0], method="brute", kind="both", response_method="predict_proba", custom_values={0: grid}
    )
    ice = pdp.ice_curves(classifier, X, 0, grid, output="proba", max_batch_rows=333)
    assert ice.shape == (X.shape[0], grid.size)
    assert np.all((ice >= 0) & (ice <= 1))
    np.testing.assert_allclose(ice, sk["individual"][0], atol=1e-12)
    np.testing.assert_allclose(pdp.partial_dependence(classifier, X, 0, grid), sk["average"][0], atol=1e-12)


def test_logit_output_equals_decision_function_pd(clf_data):
    X, y = clf_data
    model = LogisticRegression().fit(X, y)  # decision_function = log-odds of class 1
    grid = pdp.feature_grid(X[:, 1], resolution=9)
    sk = sk_pd(
        model, X, [1], method="brute", kind="individual", response_method="decision_function", custom_values={1: grid}
    )
    np.testing.assert_allclose(pdp.ice_curves(model, X, 1, grid, output="logit"), sk["individual"][0], atol=1e-8)


def test_logit_is_finite_for_certain_predictions(clf_data):
    X, y = clf_data
    rf = RandomForestClassifier(n_estimators=5, random_state=0).fit(X, y)
    grid = pdp.feature_grid(X[:, 0], resolution=5)
    p = pdp.ice_curves(rf, X, 0, grid, output="proba")
    assert np.any((p == 0) | (p == 1))
    z = pdp.ice_curves(rf, X, 0, grid, output="logit")
    bound = math.log((1 - LOGIT_EPS) / LOGIT_EPS)
    assert np.all(np.isfinite(z)) and np.all(np.abs(z) <= bound + 1e-9)


def test_pd_2d_equals_sklearn(reg_data, regressor, clf_data, classifier):
    X, _ = reg_data
    g1 = pdp.feature_grid(X[:, 0], resolution=6)
    g2 = pdp.feature_grid(X[:, 1], resolution=4, kind="quantile")
    sk = sk_pd(regressor, X, (0, 1), method="brute", custom_values={0: g1, 1: g2})
    ours = pdp.partial_dependence_2d(regressor, X, (0, 1), g1, g2, max_batch_rows=1000)
    assert ours.shape == (6, 4)
    np.testing.assert_allclose(ours, sk["average"][0], atol=1e-12)
    Xc, _ = clf_data
    h1, h2 = pdp.feature_grid(Xc[:, 2], resolution=5), pdp.feature_grid(Xc[:, 1], resolution=3)
    sk = sk_pd(classifier, Xc, (2, 1), method="brute", custom_values={2: h1, 1: h2}, response_method="predict_proba")
    np.testing.assert_allclose(pdp.partial_dependence_2d(classifier, Xc, (2, 1), h1, h2), sk["average"][0], atol=1e-12)
    pair = pdp.explain_pair(regressor, X, (0, 1), grids=(g1, g2))
    np.testing.assert_allclose(pair.pd, ours)


# --------------------------------------------------------------------------- #
# batching
# --------------------------------------------------------------------------- #
class CountingRegressor:
    """Estimator wrapper that records the size of every predict call."""

    def __init__(self, model):
        self.model = model
        self.calls: list[int] = []

    def predict(self, X):
        self.calls.append(len(X))
        return self.model.predict(X)


@pytest.mark.parametrize("batch", [1, 7, 29, 30, 31, 211, 10**6])
def test_batching_is_exact_and_call_count_bounded(reg_data, regressor, batch):
    X, _ = reg_data
    X = X[:30]
    grid = pdp.feature_grid(X[:, 2], resolution=7)
    counter = CountingRegressor(regressor)
    ice = pdp.ice_curves(counter, X, 2, grid, max_batch_rows=batch)
    total = X.shape[0] * grid.size
    assert len(counter.calls) == math.ceil(total / batch)
    assert max(counter.calls) <= batch and sum(counter.calls) == total
    np.testing.assert_allclose(ice, brute_ice(regressor.predict, X, [2], grid), atol=1e-12)


def test_batched_callable_and_2d_call_counts(reg_data):
    X, _ = reg_data
    calls = []

    def f(A):
        calls.append(len(A))
        return A[:, 0] * A[:, 1] + A[:, 3]

    g1, g2 = np.linspace(-1, 1, 5), np.linspace(0, 2, 4)
    pd2 = pdp.partial_dependence_2d(f, X, (0, 1), g1, g2, max_batch_rows=250)
    assert len(calls) == math.ceil(X.shape[0] * 20 / 250) and max(calls) <= 250
    # additive in x3, bilinear in (x0, x1): PD = a * b + mean(x3)
    np.testing.assert_allclose(pd2, np.outer(g1, g2) + X[:, 3].mean(), atol=1e-12)
    calls.clear()
    pdp.explain_feature(f, X, 0, resolution=11, options=pdp.EffectOptions(max_batch_rows=10**6))
    assert calls == [X.shape[0] * 11]  # one call for everything


def test_model_output_shape_is_checked(reg_data):
    X, _ = reg_data
    with pytest.raises(ValueError, match="shape"):
        pdp.ice_curves(lambda A: A[:, :2], X, 0, [0.0, 1.0])
    with pytest.raises(ValueError, match="NaN"):
        pdp.ice_curves(lambda A: np.full(len(A), np.nan), X, 0, [0.0, 1.0])


# --------------------------------------------------------------------------- #
# centered ICE
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("anchor", ["min", "max", 0.5, 0.25])
def test_centered_ice_is_zero_at_anchor(reg_data, regressor, anchor):
    X, _ = reg_data
    eff = pdp.explain_feature(regressor, X, 2, resolution=15, anchor=anchor)
    a = eff.anchor
    assert np.all(eff.c_ice[:, a] == 0.0) and eff.pd_centered[a] == 0.0
    np.testing.assert_allclose(eff.c_ice, eff.ice - eff.ice[:, [a]])
    np.testing.assert_allclose(eff.pd_centered, eff.c_ice.mean(axis=0), atol=1e-12)
    if anchor == "min":
        assert a == 0
    elif anchor == "max":
        assert a == eff.grid.size - 1
    else:  # nearest grid point to the quantile of the observed feature (brute force)
        target = mquantiles(X[:, 2], prob=[anchor])[0]
        assert abs(eff.grid[a] - target) == np.min(np.abs(eff.grid - target))


def test_anchor_index_by_hand():
    grid = np.array([0.0, 1.0, 2.0, 3.0, 4.0])
    x = np.arange(11.0)  # median 5 -> nearest grid point 4; 20 % quantile 2 -> index 2
    assert pdp.anchor_index(grid, 0.5, x) == 4
    assert pdp.anchor_index(grid, 0.2, x) == 2
    assert pdp.anchor_index(grid, 0.5) == 2
    for bad in ["median", 1.5, -0.1, True]:
        with pytest.raises(ValueError, match="anchor"):
            pdp.anchor_index(grid, bad)
    with pytest.raises(ValueError, match="out of range"):
        pdp.centered_ice(np.zeros((2, 5)), 5)


# --------------------------------------------------------------------------- #
# derivative ICE
# --------------------------------------------------------------------------- #
def test_derivative_of_sine_matches_cosine():
    grid = np.linspace(0.0, 2 * np.pi, 80)
    X = np.column_stack([np.zeros(5), np.arange(5.0)])
    ice = pdp.ice_curves(lambda A: np.sin(A[:, 0]) + A[:, 1], X, 0, grid)
    exact = np.broadcast_to(np.cos(grid), (5, grid.size))
    raw = pdp.ice_derivatives(ice, grid, smooth=0)
    np.testing.assert_allclose(raw, exact, atol=5e-3)
    # local quadratic, 7-point window: O(h^2) inside, shifted windows at the ends
    smooth = pdp.ice_derivatives(ice, grid, smooth=3)
    np.testing.assert_allclose(smooth[:, 3:-3], exact[:, 3:-3], atol=1e-2)
    np.testing.assert_allclose(smooth, exact, atol=3e-2)


def test_local_polynomial_exact_for_quadratics_on_nonuniform_grid():
    rng = np.random.default_rng(4)
    grid = np.sort(rng.uniform(-2, 3, size=25))
    coef = rng.normal(size=(6, 3))
    curves = coef[:, [0]] + coef[:, [1]] * grid + coef[:, [2]] * grid**2
    exact = coef[:, [1]] + 2 * coef[:, [2]] * grid
    for smooth in (1, 2, 5, 40):  # 40 > grid: window capped at the whole grid
        np.testing.assert_allclose(pdp.ice_derivatives(curves, grid, smooth=smooth), exact, atol=1e-8)
    raw = pdp.ice_derivatives(curves, grid, smooth=0)  # central differences: exact inside
    np.testing.assert_allclose(raw[:, 1:-1], exact[:, 1:-1], atol=1e-8)
    # polyorder 1 is exact for lines only
    lines = coef[:, [0]] + coef[:, [1]] * grid
    np.testing.assert_allclose(
        pdp.ice_derivatives(lines, grid, smooth=3, polyorder=1), np.broadcast_to(coef[:, [1]], lines.shape), atol=1e-9
    )


def test_smoothing_parameter_reduces_noise():
    rng = np.random.default_rng(5)
    grid = np.linspace(0, 1, 101)
    noisy = np.sin(3 * grid)[None, :] + 0.01 * rng.normal(size=(20, 101))
    err = {
        s: np.sqrt(np.mean((pdp.ice_derivatives(noisy, grid, smooth=s) - 3 * np.cos(3 * grid)) ** 2)) for s in (0, 2, 6)
    }
    assert err[6] < err[2] < err[0]


def test_dice_sd_zero_for_additive_and_equal_to_sd_of_partner_for_product(reg_data):
    X, _ = reg_data
    additive = pdp.explain_feature(lambda A: np.sin(A[:, 0]) + A[:, 1] ** 2 - A[:, 2], X, 0, resolution=20)
    assert np.max(additive.d_ice_sd) < 1e-10
    np.testing.assert_allclose(additive.d_pd, additive.d_ice.mean(axis=0))
    for smooth in (0, 2):
        prod = pdp.explain_feature(
            lambda A: A[:, 0] * A[:, 1], X, 0, resolution=20, options=pdp.EffectOptions(smooth=smooth)
        )
        # d/dx0 (x0 * x1) = x1 exactly, for every curve: s.d. across curves = s.d. of x1
        np.testing.assert_allclose(prod.d_ice, np.repeat(X[:, [1]], 20, axis=1), atol=1e-10)
        np.testing.assert_allclose(prod.d_ice_sd, np.full(20, np.std(X[:, 1], ddof=1)), rtol=1e-10)


def test_dice_sd_fitted_stumps_vs_interaction_model():
    rng = np.random.default_rng(6)
    X = rng.uniform(-1, 1, size=(300, 3))
    y_add = np.sin(3 * X[:, 0]) + X[:, 1] ** 2 + 0.05 * rng.normal(size=300)
    y_int = X[:, 0] * X[:, 1] * 3 + 0.05 * rng.normal(size=300)
    stumps = GradientBoostingRegressor(n_estimators=40, max_depth=1, random_state=0).fit(X, y_add)
    inter = GradientBoostingRegressor(n_estimators=40, max_depth=3, random_state=0).fit(X, y_int)
    e_add = pdp.explain_feature(stumps, X[:100], 0, resolution=25, options=pdp.EffectOptions(smooth=2))
    e_int = pdp.explain_feature(inter, X[:100], 0, resolution=25, options=pdp.EffectOptions(smooth=2))
    assert np.max(e_add.d_ice_sd) < 1e-9 * max(1.0, np.max(np.abs(e_add.d_ice)))
    # true derivative 3 * x1 has s.d. 3 / sqrt(3) ~ 1.7 across curves
    assert np.mean(e_int.d_ice_sd) > 0.3


def test_derivative_input_errors():
    with pytest.raises(ValueError, match="increasing"):
        pdp.ice_derivatives(np.zeros((2, 3)), [0.0, 2.0, 1.0])
    with pytest.raises(ValueError, match="grid columns"):
        pdp.ice_derivatives(np.zeros((2, 4)), [0.0, 1.0, 2.0])
    with pytest.raises(ValueError, match=">= 1"):
        pdp.ice_derivatives(np.zeros((2, 3)), [0.0, 1.0, 2.0], smooth=1, polyorder=0)
    with pytest.raises(ValueError, match="more than 1"):
        pdp.derivative_sd(np.zeros((1, 3)))


# --------------------------------------------------------------------------- #
# one-hot groups, names, DataFrames, model outputs
# --------------------------------------------------------------------------- #
def test_onehot_group_ice_brute_force():
    rng = np.random.default_rng(7)
    level = rng.integers(0, 3, size=40)
    onehot = np.eye(3)[level]
    X = np.column_stack([rng.normal(size=40), onehot])
    names = ["w", "Sex_F", "Sex_I", "Sex_M"]

    def f(A):
        return A[:, 0] * (1 + A[:, 1]) + 2 * A[:, 3]

    eff = pdp.explain_feature(f, X, "Sex", feature_names=names, feature_groups={"Sex": ["Sex_F", "Sex_I", "Sex_M"]})
    assert eff.levels == ("Sex_F", "Sex_I", "Sex_M") and eff.categorical
    np.testing.assert_array_equal(eff.grid, [0.0, 1.0, 2.0])
    np.testing.assert_allclose(eff.ice, brute_ice(f, X, [1, 2, 3], np.eye(3)))
    assert eff.d_ice is None and eff.d_ice_sd is None and eff.deciles.size == 0
    assert np.all(eff.c_ice[:, 0] == 0)
    with pytest.raises(ValueError, match="'min' or 'max'"):
        pdp.explain_feature(f, X, "Sex", feature_names=names, feature_groups={"Sex": [1, 2, 3]}, anchor=0.5)
    # drop-first coding: the all-zero reference level is part of the grid
    X2 = X[:, [0, 2, 3]]

    def f2(A):
        return A[:, 0] + 3 * A[:, 1] - A[:, 2]

    eff2 = pdp.explain_feature(f2, X2, [1, 2], feature_names=["w", "Sex_I", "Sex_M"])
    assert eff2.levels == (pdp.NO_LEVEL, "Sex_I", "Sex_M") and eff2.feature == "Sex_I+Sex_M"
    np.testing.assert_allclose(eff2.ice, brute_ice(f2, X2, [1, 2], [[0, 0], [1, 0], [0, 1]]))
    np.testing.assert_allclose(eff2.pd_centered, [0.0, 3.0, -1.0])


def test_dataframe_input_and_names(reg_data):
    X, y = reg_data
    cols = ["a", "b", "c", "d"]
    df = pd.DataFrame(X, columns=cols)
    model = GradientBoostingRegressor(n_estimators=10, random_state=0).fit(df, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "X does not have valid feature names"
        eff = pdp.explain_feature(model, df, "c", resolution=8, options=pdp.EffectOptions(max_batch_rows=100))
    assert eff.feature == "c"
    ref = pdp.ice_curves(model.predict, df, 2, eff.grid)
    np.testing.assert_allclose(eff.ice, ref)
    with pytest.raises(ValueError, match="unknown feature"):
        pdp.explain_feature(model, df, "zz")


def test_effect_function_choices_and_errors(reg_data, regressor, clf_data, classifier):
    X, _ = reg_data
    Xc, _ = clf_data
    np.testing.assert_allclose(pdp.effect_function(classifier)(Xc), classifier.predict_proba(Xc)[:, 1])
    np.testing.assert_allclose(pdp.effect_function(classifier, class_index=0)(Xc), classifier.predict_proba(Xc)[:, 0])
    with pytest.raises(ValueError, match="class_index"):
        pdp.effect_function(classifier, class_index=2)(Xc)
    with pytest.raises(ValueError, match="class labels"):
        pdp.effect_function(classifier, "predict")
    with pytest.raises(ValueError, match="predict_proba"):
        pdp.effect_function(regressor, "proba")
    with pytest.raises(ValueError, match="used as is"):
        pdp.effect_function(np.sum, "logit")
    with pytest.raises(ValueError, match="output must be"):
        pdp.effect_function(regressor, "margin")
    with pytest.raises(TypeError, match="callable"):
        pdp.effect_function(42)
    with pytest.raises(ValueError, match="max_batch_rows"):
        pdp.ice_curves(regressor, X, 0, [0.0, 1.0], max_batch_rows=0)
    with pytest.raises(ValueError, match="out of range"):
        pdp.ice_curves(regressor, X, 9, [0.0, 1.0])
    with pytest.raises(ValueError, match="feature columns"):
        pdp.ice_curves(regressor, X, [0, 1], [0.0, 1.0])
    with pytest.raises(ValueError, match="NaN"):
        pdp.ice_curves(regressor, np.where(X > 2, np.nan, X), 0, [0.0, 1.0])


# --------------------------------------------------------------------------- #
# tidy tables
# --------------------------------------------------------------------------- #
def test_effects_table_layout_subsample_and_round_trip(reg_data, regressor, tmp_path):
    X, _ = reg_data
    ids = np.arange(1000, 1000 + X.shape[0])
    effs = [pdp.explain_feature(regressor, X, j, resolution=10, row_ids=ids) for j in (0, 3)]
    full = pdp.effects_table(effs)
    assert list(full.columns) == ["feature", "grid_value", "level", "kind", "row", "value"]
    assert set(full["kind"]) == set(pdp.TABLE_KINDS)
    counts = full[full.feature == "x0"]["kind"].value_counts()
    assert counts["ice"] == counts["c_ice"] == counts["d_ice"] == X.shape[0] * 10
    assert counts["pd"] == counts["d_ice_sd"] == 10 and counts["decile"] == 9
    assert set(full.loc[full.kind == "ice", "row"]) == set(ids)
    assert set(full.loc[full.kind == "pd", "row"]) == {-1}

    small = pdp.effects_table(effs, max_curves=25, random_state=3)
    x0 = small[small.feature == "x0"]
    kept = {k: set(x0.loc[x0.kind == k, "row"]) for k in ("ice", "c_ice", "d_ice")}
    assert len(kept["ice"]) == 25 and kept["ice"] == kept["c_ice"] == kept["d_ice"]
    np.testing.assert_allclose(x0.loc[x0.kind == "pd", "value"], effs[0].pd)  # PD from all rows

    path = tmp_path / "pdp.csv"
    full.to_csv(path, index=False)
    back = pdp.effect_from_table(pd.read_csv(path), "x3")
    e = effs[1]
    for name in ("grid", "ice", "pd", "c_ice", "pd_centered", "d_ice", "d_pd", "d_ice_sd", "deciles"):
        np.testing.assert_allclose(getattr(back, name), getattr(e, name), rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(back.rows, ids)
    assert back.anchor == e.anchor and back.levels is None


def test_effects_table_group_levels():
    X = np.column_stack([np.arange(6.0), np.eye(3)[[0, 1, 2, 0, 1, 2]]])
    eff = pdp.explain_feature(lambda A: A[:, 0] + A[:, 2], X, [1, 2, 3], feature_names=["v", "A", "B", "C"])
    t = pdp.effects_table(eff)
    assert set(t["kind"]) == {"pd", "ice", "c_ice", "pd_centered"}
    assert list(t.loc[t.kind == "pd", "level"]) == ["A", "B", "C"]
    np.testing.assert_allclose(t.loc[t.kind == "pd", "value"], np.arange(6.0).mean() + np.array([0, 1, 0]))
    back = pdp.effect_from_table(t, "A+B+C")
    assert back.levels == ("A", "B", "C")


def test_pair_table_round_trip(reg_data, regressor):
    X, _ = reg_data
    pair = pdp.explain_pair(regressor, X, (1, 2), resolution=4)
    t = pdp.pair_table(pair)
    assert list(t.columns) == ["feature_1", "feature_2", "value_1", "value_2", "pd"] and len(t) == 16
    # brute-force the cell (a=2, b=3) from the table against the model
    row = t[(t.value_1 == pair.values_1[2]) & (t.value_2 == pair.values_2[3])]
    Xm = X.copy()
    Xm[:, 1], Xm[:, 2] = pair.values_1[2], pair.values_2[3]
    np.testing.assert_allclose(row["pd"].item(), regressor.predict(Xm).mean(), atol=1e-12)
    back = pdp.pair_from_table(t, "x1", "x2")
    np.testing.assert_allclose(back.pd, pair.pd)
    with pytest.raises(ValueError, match="not in table"):
        pdp.pair_from_table(t, "x2", "x1")


def test_pd_ice_tables_wraps_effects_and_pairs():
    rng = np.random.default_rng(3)
    n = 60
    level = rng.integers(0, 3, n)
    X = np.column_stack([rng.normal(size=(n, 3)), np.eye(3)[level]])
    names = ["x0", "x1", "x2", "g_a", "g_b", "g_c"]
    y = X[:, 0] * X[:, 1] + X[:, 4] - X[:, 5] + 0.1 * rng.normal(size=n)
    model = GradientBoostingRegressor(n_estimators=20, max_depth=2, random_state=0).fit(X, y)
    groups = {"g": ["g_a", "g_b", "g_c"]}
    split = SimpleNamespace(
        X_test=X, features=names, feature_groups=groups, test_rows=np.arange(n) + 100, task="regression", classes=None
    )
    settings = PdIceSettings(
        seed=0,
        resolution=7,
        grid="uniform",
        percentiles=(0.0, 1.0),
        anchor="min",
        smooth=0,
        max_curves=25,
        pair_resolution=4,
        max_batch_rows=100_000,
        large_data=None,
    )
    curves, pairs = pd_ice_tables(model, split, settings, top=["g", "x1", "x0"], extra=["x2", "x1"])
    # the variables: the top ones ranked 1.., the extra ones (not already on top) rank 0
    ranks = curves.drop_duplicates("feature").set_index("feature")["rank"].to_dict()
    assert ranks == {"g": 1, "x1": 2, "x0": 3, "x2": 0}
    assert list(curves.columns) == ["rank", "feature", "grid_value", "level", "kind", "row", "value"]
    effects = [
        pdp.explain_feature(
            model,
            X,
            f,
            feature_names=names,
            feature_groups=groups,
            resolution=7,
            options=pdp.EffectOptions(kind="uniform", percentiles=(0.0, 1.0), smooth=0),
            anchor="min",
            row_ids=np.arange(n) + 100,
        )
        for f in ["g", "x1", "x0", "x2"]
    ]
    pd.testing.assert_frame_equal(curves.drop(columns="rank"), pdp.effects_table(effects, max_curves=25))
    ice = curves[(curves["feature"] == "x1") & (curves["kind"] == "ice")]
    assert ice["row"].nunique() == 25 and ice["row"].min() >= 100
    # PD by brute force on the table's grid
    line = curves[(curves["feature"] == "x1") & (curves["kind"] == "pd")]
    for g, v in zip(line["grid_value"], line["value"]):
        Z = X.copy()
        Z[:, 1] = g
        assert v == pytest.approx(model.predict(Z).mean(), rel=1e-12)
    np.testing.assert_allclose(line["grid_value"], np.linspace(X[:, 1].min(), X[:, 1].max(), 7), rtol=1e-12)
    # the two-way PD of the first two top variables: here the group g and x1 (levels x grid)
    assert list(pairs.columns) == ["feature_1", "feature_2", "value_1", "value_2", "level_1", "level_2", "pd"]
    assert set(zip(pairs["feature_1"], pairs["feature_2"])) == {("g", "x1")} and len(pairs) == 3 * 4
    for _, r in pairs.iloc[[0, 5, 11]].iterrows():
        Z = X.copy()
        Z[:, 3:6], Z[:, 1] = np.eye(3)[int(r["value_1"])], r["value_2"]
        assert r["level_1"] == names[3 + int(r["value_1"])] and r["level_2"] == ""
        assert r["pd"] == pytest.approx(model.predict(Z).mean(), rel=1e-12)
    # two numeric top variables: the table and its columns as before
    split.test_rows = None
    _, numeric = pd_ice_tables(model, split, settings, top=["x1", "x0", "g"])
    assert list(numeric.columns) == ["feature_1", "feature_2", "value_1", "value_2", "pd"]
    assert set(zip(numeric["feature_1"], numeric["feature_2"])) == {("x1", "x0")} and len(numeric) == 16
    for _, r in numeric.iloc[[0, 5, 15]].iterrows():
        Z = X.copy()
        Z[:, 1], Z[:, 0] = r["value_1"], r["value_2"]
        assert r["pd"] == pytest.approx(model.predict(Z).mean(), rel=1e-12)
    ref = pdp.pair_table(
        pdp.explain_pair(
            model, X, ("x1", "x0"), feature_names=names, resolution=4, kind="uniform", percentiles=(0.0, 1.0)
        )
    )
    pd.testing.assert_frame_equal(numeric, ref)
    # fewer than two variables on top: no pair, the table keeps its columns
    _, none = pd_ice_tables(model, split, settings, top=["x0"])
    assert none.empty and list(none.columns) == list(numeric.columns)
