"""The one-standard-error ε rule, the exact ε-path of MCR, distinct configurations, bootstrap interval labels."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from xaipipe.rashomon.mcr import mcr_interval, mcr_path, mcr_table
from xaipipe.rashomon.members import member_table
from xaipipe.rashomon.rid import mcr_summary, min_resamples
from xaipipe.rashomon.sets import (
    configuration_key,
    cv_standard_error,
    hyperparameter_setting_key,
    rashomon_scopes,
    rashomon_set,
)


def _summary():
    # two families; rmse_std is ddof=0 over 5 folds
    return pd.DataFrame(
        {
            "family": ["gb", "gb", "gb", "gb", "lin"],
            "config_id": [
                "learning_rate=0.1;n_estimators=10",
                "learning_rate=0.1;n_estimators=20",
                "learning_rate=0.2;n_estimators=10",
                "learning_rate=0.3;n_estimators=10",
                "default",
            ],
            "status": "ok",
            "n_folds": 5,
            "rmse_mean": [1.00, 1.01, 1.05, 1.30, 1.02],
            "rmse_std": [0.10, 0.10, 0.12, 0.1, 0.2],
        }
    )


def test_cv_standard_error_uses_the_sample_standard_deviation():
    folds = np.array([1.1, 0.9, 1.0, 1.2, 0.8])
    row = {"rmse_std": folds.std(ddof=0), "n_folds": 5}
    assert cv_standard_error(row, "rmse") == pytest.approx(folds.std(ddof=1) / np.sqrt(5), rel=1e-12)
    assert np.isnan(cv_standard_error({"rmse_std": 0.1}, "rmse"))


def test_se_mode_bounds_the_loss_by_epsilon_standard_errors():
    s = _summary()
    se = 0.10 / np.sqrt(4)  # reference: gb lr=0.1 k=10, std 0.10 (ddof=0), K=5
    rs = rashomon_set(s, metric="rmse", epsilon=1.0, mode="se")
    assert rs.reference["config_id"] == "learning_rate=0.1;n_estimators=10"
    assert rs.loss_bound == pytest.approx(1.0 + se)
    assert set(rs.members["config_id"]) == {
        "learning_rate=0.1;n_estimators=10",
        "learning_rate=0.1;n_estimators=20",
        "default",
    }  # 1.05 > 1.05? no: 1.0 + 0.05 = 1.05 exactly -> in
    # the gap is in SE units
    np.testing.assert_allclose(rs.table["gap"], (s["rmse_mean"] - 1.0) / se)
    summ = rs.summary()
    assert summ["epsilon_abs"] == pytest.approx(se) and summ["loss_bound"] == rs.threshold
    assert summ["n_configurations"] == 2 and summ["families"] == "gb;lin" and summ["n_families"] == 2
    with pytest.raises(ValueError, match="standard error"):
        rashomon_set(s.assign(rmse_std=0.0), metric="rmse", epsilon=1.0, mode="se")


def test_prefixes_of_one_configuration_count_once():
    assert configuration_key("gb", "learning_rate=0.1;n_estimators=10") == configuration_key(
        "gb", "learning_rate=0.1;n_estimators=20"
    )
    assert configuration_key("gb", "learning_rate=0.1;n_estimators=10") != configuration_key(
        "xgb", "learning_rate=0.1;n_estimators=10"
    )


def test_random_state_replicates_are_configurations_but_one_hyperparameter_setting():
    a = "learning_rate=0.1;n_estimators=10;random_state=1"
    assert configuration_key("gb", a) != configuration_key("gb", "learning_rate=0.1;n_estimators=10;random_state=2")
    assert hyperparameter_setting_key("gb", a) == hyperparameter_setting_key(
        "gb", "learning_rate=0.1;n_estimators=20;random_state=2"
    )
    assert hyperparameter_setting_key("gb", a) != hyperparameter_setting_key("gb", "learning_rate=0.2;random_state=1")
    assert hyperparameter_setting_key("gb", a) != hyperparameter_setting_key("xgb", a)
    # a set of 2 prefixes x 2 replicates of one setting, another setting and a linear model
    s = pd.DataFrame(
        {
            "family": ["gb"] * 5 + ["lin"],
            "config_id": [
                "learning_rate=0.1;n_estimators=10;random_state=1",
                "learning_rate=0.1;n_estimators=20;random_state=1",
                "learning_rate=0.1;n_estimators=10;random_state=7",
                "learning_rate=0.1;n_estimators=20;random_state=7",
                "learning_rate=0.2;n_estimators=10;random_state=1",
                "default",
            ],
            "status": "ok",
            "n_folds": 5,
            "rmse_mean": [1.00, 1.01, 1.02, 1.03, 1.04, 1.05],
            "rmse_std": 0.2,
        }
    )
    epsilons = [0.0, 0.15, 1.0]
    sets = rashomon_scopes(s, metric="rmse", epsilon=1.0, mode="se")
    summ = sets["cross_family"].summary()
    assert (summ["size"], summ["n_configurations"], summ["n_hyperparameter_settings"]) == (6, 4, 3)
    members = _members(s, sets, epsilons)
    table = mcr_table(members, sets, epsilons=epsilons)
    path = mcr_path(members, sets, epsilon_max=1.0)
    cross = table[(table["scope"] == "cross_family") & (table["feature"] == "a") & (table["quantity"] == "mr_ratio")]
    # se = 0.2 * sqrt(5/4) / sqrt(5) = 0.1: eps 0.15 admits rmse <= 1.015 (two prefixes of one replicate)
    assert cross[["n_members", "n_configurations", "n_hyperparameter_settings"]].values.tolist() == [
        [1, 1, 1],
        [2, 1, 1],
        [6, 4, 3],
    ]
    steps = path[(path["scope"] == "cross_family") & (path["feature"] == "a") & (path["quantity"] == "mr_ratio")]
    # replicate 7 enters at gap 0.2: a new configuration, the same hyperparameter setting
    assert steps[["n_members", "n_configurations", "n_hyperparameter_settings"]].values.tolist() == [
        [1, 1, 1],
        [2, 1, 1],
        [3, 2, 1],
        [4, 2, 1],
        [5, 3, 2],
        [6, 4, 3],
    ]


def _members(s, sets, epsilons):
    rng = np.random.default_rng(0)
    rows = []
    for fam, cid in zip(s["family"], s["config_id"]):
        for feat in ("a", "b"):
            e_orig = 1.0
            e_sw = 1.0 + rng.uniform(0, 2)
            rows.append(
                {
                    "family": fam,
                    "config_id": cid,
                    "feature": feat,
                    "estimator": "permutation",
                    "loss": "squared_error",
                    "e_orig": e_orig,
                    "e_switch": e_sw,
                    "mr_ratio": e_sw / e_orig,
                    "mr_difference": e_sw - e_orig,
                }
            )
    return member_table(sets, pd.DataFrame(rows), epsilons=epsilons, dataset="toy")


def test_exact_path_matches_brute_force_min_max_at_every_epsilon():
    s = _summary()
    epsilons = [0.0, 1.0, 2.0, 8.0]
    sets = rashomon_scopes(s, metric="rmse", epsilon=8.0, mode="se")
    members = _members(s, sets, epsilons)
    path = mcr_path(members, sets, epsilon_max=8.0)
    for scope, rs in sets.items():
        part = path[(path["scope"] == scope) & (path["quantity"] == "mr_ratio") & (path["feature"] == "a")]
        gaps = rs.table.set_index(["family", "config_id"])["gap"]
        # a step at each distinct entry epsilon, starting at 0
        assert part["epsilon"].iloc[0] == 0.0 and part["epsilon"].is_monotonic_increasing
        np.testing.assert_allclose(part["epsilon_abs"], part["loss_bound"] - rs.reference["loss"], rtol=0, atol=1e-15)
        np.testing.assert_allclose(part["epsilon_abs"], part["epsilon"] * rs.reference_se, rtol=1e-12)
        for eps in np.linspace(0, 8, 33):  # the step function agrees with a brute-force set at any epsilon
            inset = [k for k, g in gaps.items() if g <= eps + 1e-12]
            vals = members[(members["feature"] == "a") & members.set_index(["family", "config_id"]).index.isin(inset)][
                "mr_ratio"
            ]
            if scope != "cross_family":
                vals = members[
                    (members["feature"] == "a")
                    & (members["family"] == scope)
                    & members.set_index(["family", "config_id"]).index.isin(inset)
                ]["mr_ratio"]
            step = part[part["epsilon"] <= eps + 1e-12].iloc[-1]
            assert step["mcr_minus"] == pytest.approx(vals.min()) and step["mcr_plus"] == pytest.approx(vals.max())
            assert step["n_members"] == len(
                set(vals.index.map(lambda i: tuple(members.loc[i, ["family", "config_id"]])))
            )
    # the table at the grid epsilons agrees with the path
    table = mcr_table(members, sets, epsilons=epsilons)
    for rec in table.itertuples(index=False):
        part = path[
            (path["scope"] == rec.scope)
            & (path["feature"] == rec.feature)
            & (path["quantity"] == rec.quantity)
            & (path["epsilon"] <= rec.epsilon)
        ]  # membership is gap <= epsilon, exactly
        assert part.iloc[-1]["mcr_minus"] == pytest.approx(rec.mcr_minus)
        assert part.iloc[-1]["mcr_plus"] == pytest.approx(rec.mcr_plus)
        assert rec.loss_bound == pytest.approx(sets[rec.scope].threshold_at(rec.epsilon))


def test_mcr_interval_leaves_out_undefined_values():
    assert mcr_interval([2.0, np.nan, 0.5, np.inf, 0.5]) == (2, 0, 2)
    assert mcr_interval([np.nan]) == (-1, -1, 1)


def test_bootstrap_intervals_say_what_they_are():
    rng = np.random.default_rng(1)

    def table(B):
        return pd.DataFrame(
            {
                "bootstrap": np.arange(B),
                "feature": "a",
                "quantity": "mr_ratio",
                "mcr_minus": rng.normal(1, 0.1, B),
                "mcr_plus": rng.normal(2, 0.1, B),
                "set_size": 3,
            }
        )

    assert min_resamples(0.95) == 41 and min_resamples(0.9) == 21
    t10 = table(10)
    small = mcr_summary(t10, confidence=0.95).iloc[0]
    assert small["interval"] == "range" and np.isnan(small["confidence"])
    assert small["mcr_minus_low"] == t10["mcr_minus"].min() and small["mcr_plus_high"] == t10["mcr_plus"].max()
    t60 = table(60)
    big = mcr_summary(t60, confidence=0.95).iloc[0]
    assert big["interval"] == "percentile" and big["confidence"] == 0.95
    assert big["mcr_minus_low"] == pytest.approx(np.quantile(t60["mcr_minus"], 0.025))
    assert t60["mcr_minus"].min() < big["mcr_minus_low"]
