"""The linear_exact scope: the exact MCR of all linear models on the test split, ε carried over from the grid sets."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import load_diabetes
from sklearn.linear_model import LinearRegression

from xaipipe.explain.reliance import RelianceOptions, model_reliance
from xaipipe.rashomon.linear import LINEAR_EXACT_COLUMNS, linear_exact_scope, linear_loss_bound


@pytest.fixture(scope="module")
def diabetes():
    X, y = load_diabetes(return_X_y=True, scaled=False)
    rng = np.random.default_rng(0)
    test = np.sort(rng.choice(len(y), 90, replace=False))
    train = np.setdiff1d(np.arange(len(y)), test)
    names = ["AGE", "SEX", "BMI", "BP", "S1", "S2", "S3", "S4", "S5", "S6"]
    return X[train], y[train], X[test], y[test], names


def test_loss_bound_modes():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(50, 2))
    y = X @ [1.0, -2.0] + rng.normal(size=50)
    coef, b0 = np.array([1.0, -2.0]), 0.0
    r2 = (y - X @ coef) ** 2
    e, bound = linear_loss_bound(X, y, coef, b0, 2.0, "se")
    assert e == pytest.approx(r2.mean()) and bound == pytest.approx(r2.mean() + 2 * r2.std(ddof=1) / np.sqrt(50))
    assert linear_loss_bound(X, y, coef, b0, 0.1, "relative")[1] == pytest.approx(1.21 * e)
    assert linear_loss_bound(X, y, coef, b0, 0.5, "absolute")[1] == pytest.approx((np.sqrt(e) + 0.5) ** 2)
    with pytest.raises(ValueError):
        linear_loss_bound(X, y, coef, b0, -1.0, "se")


def test_scope_brackets_the_reference_and_is_nested(diabetes):
    Xtr, ytr, Xte, yte, names = diabetes
    mcr, path, detail = linear_exact_scope(
        Xtr, ytr, Xte, yte, epsilons=[0.0, 1.0, 2.0], feature_names=names, path_points=5, dataset="diabetes"
    )
    assert set(mcr["scope"]) == {"linear_exact"} and set(mcr["epsilon"]) == {0.0, 1.0, 2.0}
    assert (mcr["estimator"] == "e_switch").all() and mcr["n_members"].isna().all()
    ols = LinearRegression().fit(Xtr, ytr)
    exact = model_reliance(
        ols, Xte, yte, estimator="e_switch", method="linear", options=RelianceOptions(feature_names=names)
    ).to_frame()
    ratio = mcr[mcr["quantity"] == "mr_ratio"].merge(
        exact[["feature", "mr_ratio"]].rename(columns={"mr_ratio": "mr_ratio_ols"}), on="feature"
    )
    np.testing.assert_allclose(ratio["mr_reference"], ratio["mr_ratio_ols"], rtol=1e-8)  # the reference is OLS
    assert (ratio["mcr_minus"] <= ratio["mr_reference"] + 1e-9).all()
    assert (ratio["mr_reference"] <= ratio["mcr_plus"] + 1e-9).all()
    for (_, _q), part in mcr.groupby(["feature", "quantity"]):
        part = part.sort_values("epsilon")
        assert part["mcr_minus"].is_monotonic_decreasing and part["mcr_plus"].is_monotonic_increasing
        assert part["loss_bound"].is_monotonic_increasing
    # the path holds the table's epsilons and more points in between
    assert set(mcr["epsilon"]) <= set(path["epsilon"]) and path["epsilon"].nunique() >= 5
    assert len(detail) == len(mcr) and {"coef_argmin", "coef_argmax", "converged"} <= set(detail.columns)
    # the columns that a dataset without the scope writes as a header-only linear_exact.csv
    assert list(detail.columns) == list(LINEAR_EXACT_COLUMNS)
    assert detail["converged"].all()
