"""Settings of the explain steps (xaipipe.config): learner, large data, SHAP, PD / ICE, MR, ALE, H²
and LIME -- the values read from the config, the cross-key checks (each error names its config key)
and the params round trip; the behaviour that moved to the steps (refit design, variable ranking,
LIME rows, the large-data table) checked against the same values."""

from __future__ import annotations

import dataclasses

import pandas as pd
import pytest

from xaipipe.config import (
    LARGE_DATA_POLICIES,
    AleSettings,
    HStatisticSettings,
    LargeDataSettings,
    LearnerSettings,
    LimeSettings,
    PdIceSettings,
    RelianceSettings,
    ShapSettings,
)
from xaipipe.config.shap import shap_algorithm
from xaipipe.explain.large_data import large_data_rows_table, large_data_table
from xaipipe.explain.learner import RefitDesign, refit_design
from xaipipe.explain.reliance import ranked_features
from xaipipe.models.families import FAMILIES, get_family

TASKS = ("regression", "classification")


def _round_trip(s):
    """The script's settings from the rule's one param: the parse-time ones."""
    p = s.to_params()
    assert type(s).from_params(p) == s
    assert all(not isinstance(v, tuple) for v in p.values())  # JSON-like: lists, not tuples
    return p


# ----------------------------------------------------------------------------- LearnerSettings


@pytest.mark.parametrize("task", TASKS)
def test_learner_settings_are_the_learner_section_and_the_keys_it_borrows(config, task):
    config["explain"]["figure_class"] = "b"
    config["estimator_options"]["gradient_boosting"] = {"subsample": 0.5}
    s = LearnerSettings.from_config(config, task, "gradient_boosting")
    learner = config["explain"]["learner"]
    for key in ("n_refits", "fraction", "resolution", "grid", "pfi_estimator", "n_repeats", "confidence"):
        assert getattr(s, key) == learner[key]
    assert s.percentiles == tuple(learner["percentiles"]) and s.options == {"subsample": 0.5}
    assert (s.task, s.family, s.seed, s.top_k) == (task, "gradient_boosting", config["seed"], 2)
    assert s.loss == config["explain"]["reliance"]["losses"][task][0]
    assert s.ranking_estimator == config["explain"]["reliance"]["ranking"]["estimator"]
    assert s.ranking_quantity == config["explain"]["reliance"]["ranking"]["quantity"]
    assert s.figure_class == "b"
    # explain.learner.families chooses the jobs: no field (a new family reruns no existing job)
    assert "families" not in _round_trip(s)
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.n_refits = 3  # frozen


def test_learner_families_must_be_registered(config):
    config["explain"]["learner"]["families"] = ["gradient_boosting", "gradient_bosting"]
    with pytest.raises(
        ValueError, match="config key explain.learner.families: unknown model family 'gradient_bosting'"
    ):
        LearnerSettings.from_config(config, "regression")


@pytest.mark.parametrize("percentiles", [[0.9, 0.1], [0.5, 0.5]])
def test_learner_percentiles_must_increase(config, percentiles):
    config["explain"]["learner"]["percentiles"] = percentiles
    with pytest.raises(ValueError, match=r"config key explain.learner.percentiles \(\[0.\d, 0.\d\]\): the first"):
        LearnerSettings.from_config(config, "regression")
    with pytest.raises(ValueError, match="config key explain.learner.percentiles"):
        LearnerSettings(percentiles=tuple(percentiles))
    with pytest.raises(ValueError, match="task must be"):
        LearnerSettings.from_config(config, "ranking")


def test_learner_settings_give_the_refit_design(config):
    s = LearnerSettings.from_config(config, "classification")
    d = refit_design(s, stratify=True)
    assert isinstance(d, RefitDesign) and d.stratify and d.reseed and not refit_design(s).stratify
    assert (d.n_refits, d.fraction, d.resolution, d.kind) == (s.n_refits, s.fraction, s.resolution, s.grid)
    assert (d.percentiles, d.pfi_estimator, d.n_repeats, d.random_state) == (
        s.percentiles,
        s.pfi_estimator,
        s.n_repeats,
        s.seed,
    )


# ----------------------------------------------------------------------------- LargeDataSettings


def test_large_data_defaults_leave_the_thesis_datasets_alone(config):
    """Default: min_rows 10 000 test rows; the thesis datasets (at most 1 300 test rows: Wine's
    4 898 x 0.2 rounded up is 980, Abalone's 836, the 6 497-row red + white table's 1 300) are below."""
    s = LargeDataSettings.from_config(config)
    assert (s.min_rows, s.reliance_rows, s.shap_rows, s.pd_rows) == (10000, 2000, 1000, 2000)
    for n in (1, 980, 1300, 10000):
        assert not s.applies(n) and all(s.rows(policy, n) is None for policy in LARGE_DATA_POLICIES)
        rows = large_data_rows_table(s, n)
        assert [r["policy"] for r in rows] == list(LARGE_DATA_POLICIES)
        assert all(not r["applied"] and r["rows_used"] == n and r["error_reported"] == "" for r in rows)
    assert s.applies(10001) and s.rows("reliance", 10001) == 2000 == s.rows("reliance", 100_000)
    assert s.rows("shap", 10001) == 1000 and s.rows("pd", 10001) == 2000
    (row,) = [r for r in large_data_rows_table(s, 20000) if r["policy"] == "reliance"]
    assert row["applied"] and row["rows_used"] == 2000 and row["config_key"] == "large_data.reliance_rows"
    assert row["min_rows"] == 10000 and row["n_rows"] == 20000 and "mr_*_se" in row["error_reported"]


def test_large_data_params_round_trip_and_a_null_policy_is_off(config):
    config["large_data"]["reliance_rows"] = None
    s = LargeDataSettings.from_config(config)
    p = s.to_params()
    assert p == {"min_rows": 10000, "reliance_rows": None, "shap_rows": 1000, "pd_rows": 2000, "shap_trees": 100}
    assert LargeDataSettings.from_params(p) == s
    assert s.rows("reliance", 10**6) is None and s.rows("shap", 10**6) == 1000
    with pytest.raises(ValueError, match="unknown large-data policy 'shapp'"):
        s.rows("shapp", 10)


@pytest.mark.parametrize("key", ["reliance_rows", "shap_rows", "pd_rows"])
def test_large_data_rows_must_not_exceed_min_rows(config, key):
    config["large_data"][key] = 20000
    with pytest.raises(
        ValueError, match=rf"config key large_data.{key} \(20000\) must be at most large_data.min_rows \(10000\)"
    ):
        LargeDataSettings.from_config(config)


def test_large_data_schema_rejects_unknown_keys_and_small_values(default_config):
    import copy

    from tests.config.conftest import SCHEMA
    from xaipipe.schema import validate_config

    for section, message in (({"min_row": 5}, "min_row"), ({"reliance_rows": 1}, "reliance_rows")):
        bad = copy.deepcopy(default_config)
        bad["large_data"] = section
        with pytest.raises(Exception, match=message):
            validate_config(bad, SCHEMA)


def test_large_data_table_of_a_dataset(config):
    """explain/<dataset>/large_data.csv: the dataset, then one row per policy."""
    config["large_data"].update(min_rows=100, reliance_rows=100, shap_rows=None, pd_rows=80)
    frame = large_data_table(LargeDataSettings.from_config(config), "mine", 150)
    assert list(frame.columns[:3]) == ["dataset", "policy", "config_key"]
    assert frame["policy"].tolist() == list(LARGE_DATA_POLICIES) and (frame["dataset"] == "mine").all()
    assert frame.set_index("policy")["applied"].to_dict() == {"reliance": True, "shap": False, "pd": True}
    assert frame.set_index("policy")["rows_used"].to_dict() == {"reliance": 100, "shap": 150, "pd": 80}


# ----------------------------------------------------------------------------- ShapSettings


def test_shap_settings_are_the_section_and_the_family_s_override(config):
    """Each family's settings: the explain.shap keys, the seed, the large-data group and its own
    algorithm override only ("auto" where another family is overridden: no rerun of its SHAP job)."""
    families = sorted({f for t in TASKS for f in config["grids"][t]})
    config["explain"]["shap"]["max_rows"] = 25
    plain = {f: ShapSettings.from_config(config, f).to_params() for f in families}
    config["explain"]["shap"]["algorithm"] = {"random_forest": "permutation", "xgboost": "auto"}
    for family in families:
        s = ShapSettings.from_config(config, family)
        p = _round_trip(s)
        assert (p == plain[family]) is (family != "random_forest")
        assert p["algorithm"] == shap_algorithm(family, config["explain"]["shap"]["algorithm"])
    s = ShapSettings.from_config(config, "random_forest")
    assert (s.algorithm, s.seed) == ("permutation", config["seed"])
    assert s.max_rows == 25 and s.max_rows_random_forest == config["explain"]["shap"]["max_rows_random_forest"]
    assert s.large_data == LargeDataSettings.from_config(config)
    assert s.to_params()["large_data"] == s.large_data.to_params()  # nested as a dict
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.max_rows = 3  # frozen


def test_shap_interaction_values_follow_the_algorithm(config):
    """Interaction values: explain.shap.interactions and the family's algorithm xgboost_pred_contribs
    (the registry's where not overridden) -- the families of common.smk's shap_interaction_families."""
    assert ShapSettings.from_config(config, "xgboost").interaction_values
    assert get_family("xgboost").shap_algorithm == "xgboost_pred_contribs"
    assert not ShapSettings.from_config(config, "random_forest").interaction_values
    config["explain"]["shap"]["algorithm"] = {"xgboost": "permutation"}
    assert not ShapSettings.from_config(config, "xgboost").interaction_values
    config["explain"]["shap"]["algorithm"] = {}
    config["explain"]["shap"]["interactions"] = False
    assert not ShapSettings.from_config(config, "xgboost").interaction_values


def test_shap_large_data_group(config):
    """The large-data group: shap_rows where the test rows exceed min_rows, else None; none without it."""
    s = ShapSettings.from_config(config, "xgboost")
    assert s.large_data_rows(10_000) is None and s.large_data_rows(10_001) == config["large_data"]["shap_rows"]
    config["large_data"]["shap_rows"] = None
    assert ShapSettings.from_config(config, "xgboost").large_data_rows(10**6) is None
    bare = ShapSettings.from_params({**s.to_params(), "large_data": None})
    assert bare.large_data is None and bare.large_data_rows(10**6) is None and bare.large_data_trees(10**6) is None


def test_shap_checks_name_the_config_key(config):
    config["explain"]["shap"]["algorithm"] = {"xgbost": "permutation"}
    with pytest.raises(ValueError, match="config key explain.shap.algorithm: unknown model family 'xgbost'"):
        ShapSettings.from_config(config, "xgboost")
    config["explain"]["shap"]["algorithm"] = {"xgboost": "treeshap"}
    with pytest.raises(ValueError, match="explain.shap.algorithm.xgboost: unknown algorithm 'treeshap'"):
        ShapSettings.from_config(config, "random_forest")
    config["explain"]["shap"]["algorithm"] = {}
    config["large_data"]["shap_rows"] = 20000
    with pytest.raises(ValueError, match="config key large_data.shap_rows"):
        ShapSettings.from_config(config, "xgboost")


# ----------------------------------------------------------------------------- PdIceSettings


@pytest.mark.parametrize("task", TASKS)
def test_pd_settings_are_the_pd_section_and_the_keys_it_borrows(config, task):
    """The explain.pd keys by name, the MR ranking and loss, the seed and the large-data group; the
    script's settings from the rule's one param are the parse-time ones."""
    s = PdIceSettings.from_config(config, task)
    p = _round_trip(s)
    explain = config["explain"]
    assert {key: p[key] for key in explain["pd"]} == explain["pd"]
    assert (p["ranking"], p["loss"], p["seed"]) == (
        explain["reliance"]["ranking"],
        explain["reliance"]["losses"][task][0],
        config["seed"],
    )
    assert p["large_data"] == LargeDataSettings.from_config(config).to_params() and s.percentiles == (0.0, 1.0)
    assert s.output("regression") == "predict" and s.output("classification") == explain["pd"]["classification_output"]
    assert s.output() == s.output(task)
    assert s.large_data_rows(10_000) is None and s.large_data_rows(10_001) == config["large_data"]["pd_rows"]
    assert PdIceSettings.from_params({**p, "large_data": None}).large_data_rows(10**6) is None
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.top_k = 5  # frozen


def test_pd_top_features_rank_by_the_configured_mr(config):
    """ranked_features: the top_k variables by the ranking estimator / quantity at the task's loss,
    ties by name (checked against a sort by hand)."""
    config["explain"]["pd"]["top_k"] = 2
    config["explain"]["reliance"]["ranking"] = {"estimator": "e_divide", "quantity": "mr_ratio"}
    s = PdIceSettings.from_config(config, "classification")
    rows = [
        ("e_divide", "log_loss", "a", 1.5),
        ("e_divide", "log_loss", "b", 3.0),
        ("e_divide", "log_loss", "c", 1.5),
        ("e_divide", "zero_one", "d", 9.0),
        ("permutation", "log_loss", "e", 9.0),
    ]
    table = pd.DataFrame(rows, columns=["estimator", "loss", "feature", "mr_ratio"])
    assert ranked_features(table, s, s.top_k) == ["b", "a"]


def test_pd_percentiles_must_increase(config):
    config["explain"]["pd"]["percentiles"] = [0.9, 0.1]
    with pytest.raises(ValueError, match=r"config key explain.pd.percentiles \(\[0.9, 0.1\]\): the first"):
        PdIceSettings.from_config(config, "regression")
    with pytest.raises(ValueError, match="task must be"):
        PdIceSettings.from_config(config, "ranking")


# ----------------------------------------------------------------------------- RelianceSettings


@pytest.mark.parametrize("task", TASKS)
def test_reliance_settings_are_the_reliance_section_and_the_task_s_losses(config, task):
    """The explain.reliance keys by name, the task's losses (not the other task's: a change of those
    reruns no job of this task), the seed and the large-data group; round trip."""
    s = RelianceSettings.from_config(config, task)
    section = config["explain"]["reliance"]
    p = _round_trip(s)
    for key in ("estimators", "n_repeats", "e_switch_max_rows", "dependent"):
        assert p[key] == section[key]
    assert p["losses"] == section["losses"][task] and s.seed == config["seed"] and "ranking" not in p
    assert s.estimators == tuple(section["estimators"])
    other = "classification" if task == "regression" else "regression"
    config["explain"]["reliance"]["losses"][other] = ["zero_one"] if other == "classification" else ["absolute_error"]
    assert RelianceSettings.from_config(config, task) == s
    assert s.large_data_rows(10_000) is None and s.large_data_rows(10_001) == config["large_data"]["reliance_rows"]
    assert RelianceSettings.from_params({**p, "large_data": None}).large_data_rows(10**6) is None
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.n_repeats = 5  # frozen


def test_reliance_ranking_estimator_must_be_computed(config):
    config["explain"]["reliance"]["estimators"] = ["e_divide", "e_switch"]
    with pytest.raises(
        ValueError, match=r"config key explain.reliance.ranking.estimator \('permutation'\) must be one of"
    ):
        RelianceSettings.from_config(config, "regression")
    config["explain"]["reliance"]["ranking"]["estimator"] = "e_divide"
    assert RelianceSettings.from_config(config, "regression").estimators == ("e_divide", "e_switch")
    with pytest.raises(ValueError, match="task must be"):
        RelianceSettings.from_config(config, "ranking")


# ----------------------------------------------------------------------------- AleSettings, HStatisticSettings


def _old_dependence_params(config, task):
    """The params the ale and h_statistic rules shared before their settings (dependence.smk)."""
    return {
        "output": "predict" if task == "regression" else config["explain"]["pd"]["classification_output"],
        "max_batch_rows": config["explain"]["pd"]["max_batch_rows"],
        "ranking": config["explain"]["reliance"]["ranking"],
        "loss": config["explain"]["reliance"]["losses"][task][0],
        "figure_class": config["explain"]["figure_class"],
        "seed": config["seed"],
    }


@pytest.mark.parametrize("task", TASKS)
def test_ale_settings_carry_the_rules_params_of_before(config, task):
    """The explain.ale keys and the values of the ale rule's other params of before; round trip."""
    config["explain"]["pd"]["classification_output"] = "logit"  # not the default: the task decides
    config["explain"]["figure_class"] = "b"
    s = AleSettings.from_config(config, task)
    p = _round_trip(s)
    assert {key: p[key] for key in config["explain"]["ale"]} == config["explain"]["ale"]
    old = _old_dependence_params(config, task)
    assert {key: p[key] for key in old} == old
    assert p["large_data"] == LargeDataSettings.from_config(config).to_params()
    assert s.output == ("predict" if task == "regression" else "logit")
    assert s.large_data_rows(10_000) is None and s.large_data_rows(10_001) == config["large_data"]["pd_rows"]
    assert AleSettings.from_params({**p, "large_data": None}).large_data_rows(10**6) is None
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.n_bins = 5  # frozen


def test_ale_ranked_features_are_every_variable_by_the_configured_mr(config):
    """ranked_features without k: all rows of the task's loss and ranking estimator by decreasing
    quantity (the rule's top_features(reliance, len(reliance), ...) of before), checked by hand."""
    config["explain"]["reliance"]["ranking"] = {"estimator": "e_divide", "quantity": "mr_ratio"}
    s = AleSettings.from_config(config, "classification")
    rows = [
        ("e_divide", "log_loss", "a", 1.5),
        ("e_divide", "log_loss", "b", 3.0),
        ("e_divide", "log_loss", "c", 0.5),
        ("e_divide", "zero_one", "d", 9.0),
        ("permutation", "log_loss", "e", 9.0),
    ]
    table = pd.DataFrame(rows, columns=["estimator", "loss", "feature", "mr_ratio"])
    assert ranked_features(table, s) == ["b", "a", "c"]


@pytest.mark.parametrize("task", TASKS)
def test_h_statistic_settings_carry_the_rules_params_of_before(config, task):
    """The explain.interactions keys, the rows of the rule's n_rows param of before for every
    registered family (forests: n_rows_random_forest), the other params as before; round trip."""
    config["explain"]["interactions"]["n_rows"] = 250
    config["explain"]["interactions"]["n_rows_random_forest"] = 120
    old = _old_dependence_params(config, task)
    forests = 0
    for family in sorted(FAMILIES):
        s = HStatisticSettings.from_config(config, task, family)
        p = _round_trip(s)
        assert {key: p[key] for key in config["explain"]["interactions"]} == config["explain"]["interactions"]
        old_n_rows = config["explain"]["interactions"][
            ("n_rows_random_forest" if get_family(family).prefix == "forest" else "n_rows")
        ]
        assert s.rows == old_n_rows
        forests += s.rows == 120
        assert {key: p[key] for key in old} == old and p["family"] == family
    assert forests >= 2  # random forests and extra trees
    assert dataclasses.replace(s, family=None).rows == 250  # no family: n_rows
    config["explain"]["interactions"]["top_k"] = 2
    table = pd.DataFrame(
        [("permutation", old["loss"], f, v) for f, v in (("a", 1.0), ("b", 3.0), ("c", 2.0))],
        columns=["estimator", "loss", "feature", config["explain"]["reliance"]["ranking"]["quantity"]],
    )
    s = HStatisticSettings.from_config(config, task, "ridge" if task == "regression" else "logistic_regression")
    assert ranked_features(table, s, s.top_k) == ["b", "c"]


@pytest.mark.parametrize(
    ("section", "key", "value", "message"),
    [
        ("ale", "centering", "middle", r"config key explain.ale.centering \('middle'\) must be 'ale_plot'"),
        ("ale", "n_bins", 0, r"config key explain.ale.n_bins \(0\) must be an integer of at least 1"),
        ("ale", "pair_bins", 2.5, r"config key explain.ale.pair_bins \(2.5\) must be an integer"),
        ("interactions", "n_bootstrap", 1, r"config key explain.interactions.n_bootstrap \(1\): one bootstrap"),
        ("interactions", "top_k", 1, r"config key explain.interactions.top_k \(1\) must be an integer of at least 2"),
        ("interactions", "n_rows", 1, r"config key explain.interactions.n_rows \(1\) must be .* at least 2 or null"),
        ("pd", "max_batch_rows", 0, r"config key explain.pd.max_batch_rows \(0\) must be an integer of at least 1"),
    ],
)
def test_dependence_checks_name_the_config_key(config, section, key, value, message):
    config["explain"][section][key] = value
    with pytest.raises(ValueError, match=message):
        if section != "interactions":
            AleSettings.from_config(config, "regression")
        if section != "ale":
            HStatisticSettings.from_config(config, "regression", "ridge")
    config["explain"]["interactions"]["n_rows"] = None  # null: every row
    if section == "ale":
        assert HStatisticSettings.from_config(config, "regression", "ridge").rows is None


def test_h_statistic_family_must_be_registered(config):
    with pytest.raises(ValueError, match="unknown model family 'forest'"):
        HStatisticSettings.from_config(config, "regression", "forest")
    with pytest.raises(ValueError, match="task must be"):
        AleSettings.from_config(config, "ranking")


# ----------------------------------------------------------------------------- LimeSettings


def test_lime_settings_are_the_lime_section_seed_and_figure_class(config):
    config["explain"]["figure_class"] = 2
    s = LimeSettings.from_config(config)
    p = _round_trip(s)
    assert {key: p[key] for key in config["explain"]["lime"]} == config["explain"]["lime"]
    assert (p["seed"], p["figure_class"]) == (config["seed"], 2)
    assert s.num_samples == config["explain"]["lime"]["num_samples"] and s.family == config["explain"]["lime"]["family"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.n_rows = 3  # frozen


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("num_samples", 5, r"config key explain.lime.num_samples \(5\) must be an integer of at least 10"),
        ("n_rows", -1, r"config key explain.lime.n_rows \(-1\) must be an integer of at least 0"),
        ("family", "xgb", r"config key explain.lime.family: unknown model family 'xgb'"),
    ],
)
def test_lime_checks_name_the_config_key(config, key, value, message):
    config["explain"]["lime"][key] = value
    with pytest.raises(ValueError, match=message):
        LimeSettings.from_config(config)
    if key == "family":  # off: the family is not looked up (the rule is not asked for)
        config["explain"]["lime"]["enabled"] = False
        assert LimeSettings.from_config(config).family == "xgb"
