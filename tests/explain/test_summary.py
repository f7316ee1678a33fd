"""Workflow-level interpretation summaries."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.datasets import load_diabetes
from sklearn.ensemble import GradientBoostingRegressor
from sklearn.linear_model import LinearRegression

from xaipipe.explain.summary import (
    grouped_mean_abs_shap,
    ranking_agreement,
    reliance_report,
    split_gain_or_nan,
    top_features,
)


@pytest.fixture(scope="module")
def data():
    X, y = load_diabetes(return_X_y=True)
    names = [f"x{i}" for i in range(X.shape[1])]
    return X[:300], y[:300], X[300:], y[300:], names


def test_reliance_report_rows_and_e_switch_subsample(data):
    Xtr, ytr, Xte, yte, names = data
    gb = GradientBoostingRegressor(n_estimators=20, random_state=0).fit(Xtr, ytr)
    table = reliance_report(gb, Xte, yte, feature_names=names, feature_groups={"g": ["x0", "x1"]},
                            n_repeats=3, e_switch_max_rows=50, random_state=1)
    assert len(table) == 3 * 9  # three estimators x (8 single features + one group)
    assert set(table["feature"]) == {"g"} | {f"x{i}" for i in range(2, 10)}
    sw = table[table.estimator == "e_switch"]
    assert (sw["n_samples"] == 50).all() and (sw["algorithm"] == "all_pairs").all()
    perm = table[table.estimator == "permutation"]
    assert (perm["n_repeats"] == 3).all() and perm["mr_difference_se"].notna().all()
    again = reliance_report(gb, Xte, yte, feature_names=names, feature_groups={"g": ["x0", "x1"]},
                            n_repeats=3, e_switch_max_rows=50, random_state=1)
    pd.testing.assert_frame_equal(table, again)


def test_linear_model_uses_the_closed_form_on_all_rows(data):
    Xtr, ytr, Xte, yte, names = data
    lin = LinearRegression().fit(Xtr, ytr)
    table = reliance_report(lin, Xte, yte, feature_names=names, estimators=["e_switch"], e_switch_max_rows=10)
    assert (table["algorithm"] == "linear_closed_form").all() and (table["n_samples"] == len(yte)).all()


def test_top_features_orders_by_quantity():
    table = pd.DataFrame({"estimator": "permutation", "loss": "squared_error",
                          "feature": ["a", "b", "c"], "mr_difference": [1.0, 3.0, 2.0], "mr_ratio": [9, 1, 2]})
    assert top_features(table, 2, estimator="permutation", loss="squared_error") == ["b", "c"]
    assert top_features(table, 1, estimator="permutation", loss="squared_error", quantity="mr_ratio") == ["a"]
    with pytest.raises(ValueError, match="e_divide"):
        top_features(table, 1, estimator="e_divide", loss="squared_error")


def test_split_gain_not_applicable_for_linear(data):
    Xtr, ytr, _, _, names = data
    out = split_gain_or_nan(LinearRegression().fit(Xtr, ytr), names)
    assert (out["kind"] == "not_applicable").all() and out["split_gain"].isna().all()
    gb = GradientBoostingRegressor(n_estimators=5, random_state=0).fit(Xtr, ytr)
    assert split_gain_or_nan(gb, names)["split_gain"].sum() == pytest.approx(1.0)


def test_grouped_mean_abs_shap_sums_group_members_per_row():
    long = pd.DataFrame({"row": [0, 0, 0, 1, 1, 1], "feature": ["a_1", "a_2", "b"] * 2,
                         "shap_value": [1.0, -3.0, 2.0, 0.5, 0.5, -1.0]})
    out = grouped_mean_abs_shap(long, {"a": ["a_1", "a_2"]}).set_index("feature")["mean_abs_shap"]
    assert out["a"] == pytest.approx((2.0 + 1.0) / 2) and out["b"] == pytest.approx(1.5)


def test_ranking_agreement_is_scipy_spearman():
    rng = np.random.default_rng(0)
    imp = pd.DataFrame({"m": rng.normal(size=8), "s": rng.normal(size=8), "g": np.nan})
    out = ranking_agreement(imp, ["m", "s", "g"])
    ms = out[(out.measure_1 == "m") & (out.measure_2 == "s")].iloc[0]
    assert ms["spearman"] == pytest.approx(stats.spearmanr(imp["m"], imp["s"]).statistic)
    assert out[out.measure_2 == "g"]["spearman"].isna().all()
