"""Workflow-level interpretation summaries."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.datasets import load_diabetes
from sklearn.ensemble import GradientBoostingRegressor
from sklearn.linear_model import LinearRegression

from xaipipe.config import LargeDataSettings, RelianceSettings
from xaipipe.explain.reliance import (
    RANKING_MEASURES,
    RELIANCE_FIRST,
    grouped_mean_abs_shap,
    ranking_agreement,
    ranking_tables,
    reliance_report,
    reliance_tables,
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
    table = reliance_report(
        gb,
        Xte,
        yte,
        feature_names=names,
        feature_groups={"g": ["x0", "x1"]},
        n_repeats=3,
        e_switch_max_rows=50,
        random_state=1,
    )
    assert len(table) == 3 * 9  # three estimators x (8 single features + one group)
    assert set(table["feature"]) == {"g"} | {f"x{i}" for i in range(2, 10)}
    sw = table[table.estimator == "e_switch"]
    assert (sw["n_samples"] == 50).all() and (sw["algorithm"] == "all_pairs").all()
    perm = table[table.estimator == "permutation"]
    assert (perm["n_repeats"] == 3).all() and perm["mr_difference_se"].notna().all()
    again = reliance_report(
        gb,
        Xte,
        yte,
        feature_names=names,
        feature_groups={"g": ["x0", "x1"]},
        n_repeats=3,
        e_switch_max_rows=50,
        random_state=1,
    )
    pd.testing.assert_frame_equal(table, again)


def test_linear_model_uses_the_closed_form_on_all_rows(data):
    Xtr, ytr, Xte, yte, names = data
    lin = LinearRegression().fit(Xtr, ytr)
    table = reliance_report(lin, Xte, yte, feature_names=names, estimators=["e_switch"], e_switch_max_rows=10)
    assert (table["algorithm"] == "linear_closed_form").all() and (table["n_samples"] == len(yte)).all()


def test_top_features_orders_by_quantity():
    table = pd.DataFrame(
        {
            "estimator": "permutation",
            "loss": "squared_error",
            "feature": ["a", "b", "c"],
            "mr_difference": [1.0, 3.0, 2.0],
            "mr_ratio": [9, 1, 2],
        }
    )
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
    long = pd.DataFrame(
        {"row": [0, 0, 0, 1, 1, 1], "feature": ["a_1", "a_2", "b"] * 2, "shap_value": [1.0, -3.0, 2.0, 0.5, 0.5, -1.0]}
    )
    out = grouped_mean_abs_shap(long, {"a": ["a_1", "a_2"]}).set_index("feature")["mean_abs_shap"]
    assert out["a"] == pytest.approx((2.0 + 1.0) / 2) and out["b"] == pytest.approx(1.5)


def test_ranking_agreement_is_scipy_spearman():
    rng = np.random.default_rng(0)
    imp = pd.DataFrame({"m": rng.normal(size=8), "s": rng.normal(size=8), "g": np.nan})
    out = ranking_agreement(imp, ["m", "s", "g"])
    ms = out[(out.measure_1 == "m") & (out.measure_2 == "s")].iloc[0]
    assert ms["spearman"] == pytest.approx(stats.spearmanr(imp["m"], imp["s"]).statistic)
    assert out[out.measure_2 == "g"]["spearman"].isna().all()


def test_reliance_tables_wrap_the_report_and_split_gain(data):
    Xtr, ytr, Xte, yte, names = data
    gb = GradientBoostingRegressor(n_estimators=10, random_state=0).fit(Xtr, ytr)
    kw = dict(
        feature_names=names, feature_groups={"g": ["x0", "x1"]}, n_repeats=2, e_switch_max_rows=40, random_state=3
    )
    split = SimpleNamespace(
        X_test=Xte, y_test=yte, features=names, feature_groups={"g": ["x0", "x1"]}, dataset="diabetes"
    )
    settings = RelianceSettings(seed=3, n_repeats=2, e_switch_max_rows=40, large_data=None)
    table, gain = reliance_tables(gb, split, settings, family="gradient_boosting")
    report = reliance_report(gb, Xte, yte, **kw)
    assert list(table.columns[: len(RELIANCE_FIRST)]) == RELIANCE_FIRST
    assert (table["dataset"] == "diabetes").all() and (table["model"] == "gradient_boosting").all()
    pd.testing.assert_frame_equal(table.drop(columns=["dataset", "model"])[list(report.columns)], report)
    assert list(gain.columns[:2]) == ["dataset", "model"]
    pd.testing.assert_frame_equal(
        gain.drop(columns=["dataset", "model"]), split_gain_or_nan(gb, names, {"g": ["x0", "x1"]})
    )
    assert gain["feature"].tolist() == ["g"] + names[2:]


def _shap_long(features, values):
    rows = np.arange(values.shape[0])
    return pd.DataFrame(
        {"row": np.repeat(rows, len(features)), "feature": np.tile(features, len(rows)), "shap_value": values.ravel()}
    )


def test_ranking_tables_per_model():
    rel = pd.DataFrame(
        {
            "dataset": "toy",
            "model": ["gb"] * 6,
            "feature": ["a", "g", "c"] * 2,
            "estimator": ["permutation"] * 3 + ["e_divide"] * 3,
            "loss": "squared_error",
            "mr_difference": [3.0, 1.0, 2.0, 9.0, 9.0, 9.0],
            "mr_ratio": 1.0,
        }
    )
    gain = pd.DataFrame({"feature": ["a", "g", "c"], "split_gain": [0.5, 0.2, 0.3]})
    shap = _shap_long(["a", "g_1", "g_2", "c"], np.array([[1.0, 2.0, -0.5, 0.1], [-3.0, 1.0, 1.0, 0.3]]))
    lin = rel.assign(model="lin", mr_difference=[1.0, 2.0, 3.0, 0, 0, 0])
    no_gain = gain.assign(split_gain=np.nan)
    importances, agreement = ranking_tables(
        [rel, lin], [gain, no_gain], [shap, shap], dataset="toy", feature_groups={"g": ["g_1", "g_2"]}
    )
    gb = importances[importances["model"] == "gb"].set_index("feature")
    assert list(importances.columns[:2]) == ["dataset", "model"]
    assert gb["model_reliance"].to_dict() == {"a": 3.0, "g": 1.0, "c": 2.0}  # permutation rows only
    assert gb["mean_abs_shap"].to_dict() == pytest.approx({"a": 2.0, "g": 1.75, "c": 0.2})  # (|2 - 0.5| + |1 + 1|) / 2
    assert gb["model_reliance_rank"].to_dict() == {"a": 1, "g": 3, "c": 2}
    assert gb["mean_abs_shap_rank"].to_dict() == {"a": 1, "g": 2, "c": 3}
    assert gb["split_gain_rank"].to_dict() == {"a": 1, "g": 3, "c": 2}
    assert importances[importances["model"] == "lin"]["split_gain_rank"].isna().all()
    for model, imp in importances.groupby("model"):
        ref = ranking_agreement(imp.reset_index(drop=True), RANKING_MEASURES)
        got = agreement[agreement["model"] == model].drop(columns=["dataset", "model"]).reset_index(drop=True)
        pd.testing.assert_frame_equal(got, ref)
    # another estimator / quantity
    imp2, _ = ranking_tables(
        [rel],
        [gain],
        [shap],
        dataset="toy",
        feature_groups={"g": ["g_1", "g_2"]},
        estimator="e_divide",
        quantity="mr_ratio",
    )
    assert (imp2["model_reliance"] == 1.0).all() and (imp2["model_reliance_rank"] == 1).all()


def test_large_data_policy_of_the_model_reliance_rule(data):
    """The rule's MR table through LargeDataSettings: at or below min_rows test rows bitwise the table
    without the policy; above it (a tiny threshold) permutation / e_divide on subsamples of
    reliance_rows rows (n_samples, algorithm), their SE honest in scale, e_switch rows unchanged but
    for the SE of their subsample."""
    Xtr, ytr, Xte, yte, names = data
    gb = GradientBoostingRegressor(n_estimators=20, random_state=0).fit(Xtr, ytr)
    n = len(yte)  # 142 test rows
    split = SimpleNamespace(X_test=Xte, y_test=yte, features=names, feature_groups=None, dataset="d")
    settings = RelianceSettings(seed=1, n_repeats=5, e_switch_max_rows=50, large_data=None)
    base, gain = reliance_tables(gb, split, settings, family="gradient_boosting")
    off = LargeDataSettings(min_rows=n, reliance_rows=40, shap_rows=None, pd_rows=None)
    assert off.rows("reliance", n) is None
    same, same_gain = reliance_tables(gb, split, replace(settings, large_data=off), family="gradient_boosting")
    pd.testing.assert_frame_equal(same, base, check_exact=True)
    pd.testing.assert_frame_equal(same_gain, gain, check_exact=True)
    on = LargeDataSettings(min_rows=100, reliance_rows=40, shap_rows=None, pd_rows=None)
    table, _ = reliance_tables(gb, split, replace(settings, large_data=on), family="gradient_boosting")
    assert list(table.columns) == list(base.columns)
    sub = table[table.estimator != "e_switch"]
    assert (sub["n_samples"] == 40).all() and set(sub["algorithm"]) == {
        "subsampled_permutations",
        "subsampled_halvings",
    }
    se = ["mr_ratio_se", "mr_difference_se"]
    sw, base_sw = (t[t.estimator == "e_switch"].reset_index(drop=True) for t in (table, base))
    pd.testing.assert_frame_equal(sw.drop(columns=se), base_sw.drop(columns=se), check_exact=True)
    assert base_sw[se].isna().all().all() and sw[se].notna().all().all()  # e_switch's subsample SE
    np.testing.assert_array_equal(table["e_orig"], base["e_orig"])  # e_orig on every test row
    # the subsample adds error: the subsampled SE exceeds the all-rows one for the important variables
    top = base[base.estimator == "permutation"].nlargest(3, "mr_difference")["feature"]
    sel = lambda t: t[(t.estimator == "permutation") & t.feature.isin(top)]["mr_difference_se"].to_numpy()  # noqa: E731
    assert np.all(sel(table) > sel(base))
