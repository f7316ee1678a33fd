"""Regional effects (effector's regional PD): a planted interaction x1 * 1[x2 > 0.5] splits on x2 at 0.5
and leaves no heterogeneity (brute force: the leaves' ICE curves are parallel), an additive model has
no heterogeneity and no split, the Friedman #1 interaction x1 x x2 is found from a fitted model, and
the table function follows its settings."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from sklearn.ensemble import GradientBoostingRegressor
from sklearn.linear_model import LinearRegression, LogisticRegression

from xaipipe.config import RegionalSettings
from xaipipe.explain.pdp import ice_curves, regional_effects, regional_effects_tables
from xaipipe.explain.pdp._regional import REGION_COLUMNS


class _Gate:
    """f(x) = x1 * 1[x2 > 0.5]: x1's effect switched on by x2."""

    def predict(self, X):
        X = np.asarray(X)
        return X[:, 0] * (X[:, 1] > 0.5)


def test_a_planted_gate_splits_on_its_switch_at_its_threshold():
    rng = np.random.default_rng(0)
    X = rng.uniform(0, 1, (2000, 3))
    out = regional_effects(_Gate(), X, feature_names=["x1", "x2", "x3"], top_k=1)
    assert out.heterogeneity.set_index("feature").loc["x3", "heterogeneity"] == 0.0  # no effect at all
    regions = out.regions
    first = regions[regions["level"] == 1]
    assert set(first["split_feature"]) == {"x2"}
    threshold = first["upper"].dropna().iloc[0]
    assert threshold == pytest.approx(0.5, abs=0.01)
    assert regions["explained"].iloc[0] > 0.9
    # brute force: on each side of the threshold the ICE curves of x1 are parallel (the same up to a constant)
    grid = np.linspace(0, 1, 11)
    for side in (X[:, 1] < threshold - 0.01, X[:, 1] > threshold + 0.01):
        ice = ice_curves(_Gate(), X[side][:200], 0, grid)
        centred = ice - ice[:, :1]
        assert np.ptp(centred, axis=0).max() < 1e-12


def test_an_additive_model_has_no_heterogeneity_and_no_region():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(300, 4))
    model = LinearRegression().fit(X, X @ [1.0, -2.0, 0.5, 3.0])
    out = regional_effects(model, X, feature_names=list("abcd"), top_k=2)
    assert (out.heterogeneity["heterogeneity"] == 0).all() and not out.heterogeneity["split"].any()
    assert out.regions.empty and list(out.regions.columns) == list(REGION_COLUMNS)
    assert out.curves.empty


def test_the_friedman_interaction_is_found_from_a_fitted_model():
    """Friedman #1: 10 sin(pi x1 x2) + 20 (x3 - 0.5)^2 + 10 x4 + 5 x5; only x1 and x2 interact, so the
    two most heterogeneous variables are x1 and x2 and each splits on the other."""
    rng = np.random.default_rng(2)
    X = rng.uniform(0, 1, (1000, 6))
    y = 10 * np.sin(np.pi * X[:, 0] * X[:, 1]) + 20 * (X[:, 2] - 0.5) ** 2 + 10 * X[:, 3] + 5 * X[:, 4]
    model = GradientBoostingRegressor(n_estimators=200, max_depth=3, random_state=0).fit(X, y + rng.normal(size=1000))
    names = [f"x{j}" for j in range(1, 7)]
    out = regional_effects(model, X, feature_names=names, top_k=2, n_instances=400, seed=3)
    top = out.heterogeneity.sort_values("rank")["feature"].head(2).tolist()
    assert set(top) == {"x1", "x2"}
    first = out.regions[out.regions["level"] == 1]
    assert dict(zip(first["feature"], first["split_feature"])) == {"x1": "x2", "x2": "x1"}
    assert (out.regions["explained"] > 0.3).all()
    curves = out.curves
    assert set(curves["region"][curves["feature"] == "x1"]) == set(
        out.regions["region"][out.regions["feature"] == "x1"]
    )


def test_a_classifier_explains_its_probability_and_the_table_function_reads_its_settings():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(400, 3))
    y = (X[:, 0] * X[:, 1] + 0.3 * rng.normal(size=400) > 0).astype(int)
    model = LogisticRegression().fit(np.column_stack([X, X[:, 0] * X[:, 1]]), y)

    class _Product:  # the logistic model on (x1, x2, x3, x1 x2): an interaction through the product
        classes_ = model.classes_
        _estimator_type = "classifier"

        def predict(self, Z):
            return model.predict(np.column_stack([Z, Z[:, 0] * Z[:, 1]]))

        def predict_proba(self, Z):
            return model.predict_proba(np.column_stack([Z, Z[:, 0] * Z[:, 1]]))

    data = SimpleNamespace(X_test=X, features=["a", "b", "c"], task="classification")
    out = regional_effects_tables(_Product(), data, RegionalSettings(top_k=1, n_instances=300, resolution=7))
    assert out.heterogeneity["split"].sum() == 1
    assert out.curves.groupby("region").size().eq(7).all()
    assert list(out.to_frames()) == ["heterogeneity", "regions", "curves"]


def test_a_binary_variable_is_split_and_drawn_at_its_levels():
    """A 0/1 column (one level of a one-hot group) whose effect another variable switches: its
    regions' PD is evaluated at 0 and 1 only (effector refuses other values of an ordinal variable)."""
    rng = np.random.default_rng(6)
    X = np.column_stack([rng.integers(0, 2, 800).astype(float), rng.uniform(-1, 1, 800), rng.normal(size=800)])

    class _Switch:
        def predict(self, Z):
            Z = np.asarray(Z)
            return Z[:, 0] * np.sign(Z[:, 1])

    out = regional_effects(_Switch(), X, feature_names=["flag", "u", "noise"], top_k=2)
    assert set(out.heterogeneity.loc[out.heterogeneity["split"], "feature"]) == {"flag", "u"}
    assert set(out.curves.loc[out.curves["feature"] == "flag", "x"]) == {0.0, 1.0}
    first = out.regions[(out.regions["feature"] == "flag") & (out.regions["level"] == 1)]
    assert set(first["split_feature"]) == {"u"} and first["upper"].dropna().abs().max() < 0.1  # u's sign


def test_bad_inputs_raise():
    X = np.zeros((5, 2))
    with pytest.raises(ValueError, match="feature names"):
        regional_effects(_Gate(), X, feature_names=["a"])
    with pytest.raises(ValueError, match="top_k"):
        regional_effects(_Gate(), X, feature_names=["a", "b"], top_k=0)
