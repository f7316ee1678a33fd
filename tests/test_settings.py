"""Settings objects: the cross-key checks of the Rashomon, learner, CV and bootstrap steps (each
error names its config key) and the params the rules pass, in milliseconds (no Snakemake)."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from xaipipe.schema import validate_config
from xaipipe.settings import (
    LARGE_DATA_POLICIES,
    AleSettings,
    BootstrapSettings,
    CorrelatedSettings,
    CoverageSettings,
    CVSettings,
    HStatisticSettings,
    LargeDataSettings,
    LearnerSettings,
    LimeSettings,
    PdIceSettings,
    RashomonSettings,
    RelianceSettings,
    ShapSettings,
    abalone_study_shards,
    check_family,
    sample_size_checks,
)

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def default_config():
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    return validate_config(config, REPO / "workflow" / "schemas" / "config.schema.yaml") or config


@pytest.fixture
def config(default_config):
    return copy.deepcopy(default_config)


def test_the_params_are_the_rashomon_section_and_the_keys_it_borrows(config):
    s = RashomonSettings.from_config(config, "classification")
    p = s.to_params()
    assert p["metric"] == config["selection"]["classification"]
    assert p["loss"] == config["explain"]["reliance"]["losses"]["classification"][0]
    assert p["seed"] == config["seed"] and p["options"] == config["estimator_options"]
    for key in ("epsilon_mode", "epsilon", "epsilons", "scopes", "estimators", "n_repeats", "e_switch_max_rows"):
        assert p[key] == config["rashomon"][key]
    assert p["pd"] == config["rashomon"]["pd"]
    # JSON-like: lists, not tuples (Snakemake's params trigger compares them)
    assert all(not isinstance(v, tuple) for v in p.values())
    with pytest.raises(AttributeError):
        s.epsilon = 2.0  # frozen


def test_epsilon_must_be_one_of_the_epsilons(config):
    config["rashomon"]["epsilon"] = 0.25
    with pytest.raises(ValueError, match=r"config key rashomon.epsilon \(0.25\) must be one of rashomon.epsilons"):
        RashomonSettings.from_config(config, "regression")


@pytest.mark.parametrize(
    ("path", "key"),
    [
        (("refit_jobs",), "rashomon.refit_jobs"),
        (("bootstrap", "families"), "rashomon.bootstrap.families"),
    ],
)
def test_family_keys_name_registered_families(config, path, key):
    section = config["rashomon"]
    for part in path[:-1]:
        section = section[part]
    section[path[-1]] = ["random_forrest"]
    with pytest.raises(ValueError, match=f"config key {key}: unknown model family 'random_forrest'"):
        RashomonSettings.from_config(config, "regression")


def test_a_sampled_family_must_support_its_task(config):
    config["rashomon"]["sample"]["families"] = {"regression": {"logistic_regression": {"n": 3}}}
    with pytest.raises(
        ValueError, match="rashomon.sample.families.regression.logistic_regression: .* does not support"
    ):
        RashomonSettings.from_config(config, "regression")


def test_unknown_task_and_check_family():
    with pytest.raises(ValueError, match="task must be"):
        RashomonSettings.from_config({}, "ranking")
    check_family("grids.regression.random_forest", "random_forest", "regression")
    with pytest.raises(ValueError, match="config key x: unknown model family 'nope'"):
        check_family("x", "nope")


def test_params_round_trip(config):
    s = RashomonSettings.from_config(config, "regression")
    assert RashomonSettings.from_params(s.to_params()) == s


# ----------------------------------------------------------------------------- LearnerSettings


def _learner_rule_params(config, task):
    """The learner rule's params (workflow/rules/explain.smk) for a dataset of ``task``."""
    explain = config["explain"]
    return {
        "learner": explain["learner"],
        "cv": {"task": task, "seed": config["seed"], "options": {}, "grid": {}, "selection": "rmse"},
        "ranking": explain["reliance"]["ranking"],
        "loss": explain["reliance"]["losses"][task][0],
        "top_k": explain["pd"]["top_k"],
        "figure_class": explain["figure_class"],
    }


@pytest.mark.parametrize("task", ["regression", "classification"])
def test_learner_settings_are_the_learner_section_and_the_keys_it_borrows(config, task):
    config["explain"]["figure_class"] = "b"
    s = LearnerSettings.from_config(config, task)
    learner = config["explain"]["learner"]
    for key in ("n_refits", "fraction", "resolution", "grid", "pfi_estimator", "n_repeats", "confidence"):
        assert getattr(s, key) == learner[key]
    assert s.percentiles == tuple(learner["percentiles"]) and s.families == tuple(learner["families"])
    assert (s.task, s.seed, s.top_k) == (task, config["seed"], config["explain"]["pd"]["top_k"])
    assert s.loss == config["explain"]["reliance"]["losses"][task][0]
    assert s.ranking_estimator == config["explain"]["reliance"]["ranking"]["estimator"]
    assert s.ranking_quantity == config["explain"]["reliance"]["ranking"]["quantity"]
    assert s.figure_class == "b"
    # the script's settings (from the rule's params) are the parse-time ones
    assert LearnerSettings.from_params(_learner_rule_params(config, task)) == s
    with pytest.raises(AttributeError):
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
        LearnerSettings.from_params(_learner_rule_params(config, "regression"))
    with pytest.raises(ValueError, match="task must be"):
        LearnerSettings.from_config(config, "ranking")


# ----------------------------------------------------------------------------- CVSettings


def _old_cv_params(config, task, family):
    """The params.cv that common.smk's cv_params built before CVSettings (the rerun trigger's values)."""
    sample = config["rashomon"]["sample"]
    sampled = sample["families"] if sample["enabled"] else {}
    params = {
        "task": task,
        "grid": config["grids"][task].get(family),
        "sample": sampled.get(task, {}).get(family),
        "options": config["estimator_options"].get(family, {}),
        "selection": config["selection"][task],
        "seed": config["seed"],
    }
    if task == "classification":
        params["beta"] = config["metrics"]["beta"]
    return params


def test_cv_params_are_the_rules_params_of_before(config):
    config["metrics"]["beta"] = 2.0
    sampled = config["rashomon"]["sample"]["families"]
    pairs = [(t, f) for t in ("regression", "classification") for f in {**config["grids"][t], **sampled.get(t, {})}]
    assert ("regression", "ridge") in pairs and "ridge" not in config["grids"]["regression"]
    for task, family in pairs:
        s = CVSettings.from_config(config, task, family)
        params = s.to_params()
        assert params == _old_cv_params(config, task, family)
        assert list(params) == list(_old_cv_params(config, task, family))  # same keys, same order
        assert CVSettings.from_params(params, family) == s
        assert s.beta == (2.0 if task == "classification" else 1.0)
    ridge = CVSettings.from_config(config, "regression", "ridge")
    assert ridge.grid is None and ridge.sample == sampled["regression"]["ridge"]  # only sampled
    config["rashomon"]["sample"]["enabled"] = False
    assert CVSettings.from_config(config, "regression", "decision_tree").sample is None
    assert CVSettings.from_config(config, "regression", "decision_tree").to_params() == _old_cv_params(
        config, "regression", "decision_tree"
    )
    with pytest.raises(ValueError, match="model family 'ridge' has no grid there and no random search"):
        CVSettings.from_config(config, "regression", "ridge")


def test_cv_settings_checks_name_the_config_key(config):
    with pytest.raises(ValueError, match="config key grids.regression: model family 'lasso_typo' has no grid"):
        CVSettings.from_config(config, "regression", "lasso_typo")
    config["grids"]["regression"]["logistic_regression"] = {"C": [1.0]}
    with pytest.raises(ValueError, match="grids.regression.logistic_regression: .* does not support regression"):
        CVSettings.from_config(config, "regression", "logistic_regression")
    with pytest.raises(ValueError, match="task must be"):
        CVSettings.from_config(config, "ranking", "decision_tree")


# ----------------------------------------------------------------------------- BootstrapSettings


def test_bootstrap_settings_are_the_bootstrap_section_and_the_rashomon_step(config):
    config["rashomon"]["bootstrap"].update(n_bootstrap=7, n_shards=3, mr_data="test", estimator="e_divide")
    s = BootstrapSettings.from_config(config, "classification")
    b = config["rashomon"]["bootstrap"]
    assert s.rashomon == RashomonSettings.from_config(config, "classification")
    for key in ("n_bootstrap", "mr_data", "estimator", "n_repeats", "confidence", "n_shards"):
        assert getattr(s, key) == b[key]
    assert s.families == tuple(b["families"])
    # the scripts' settings (from the rules' params) are the parse-time ones
    assert BootstrapSettings.from_params(s.rashomon.to_params(), b) == s
    # resamples dealt round-robin to min(n_shards, n_bootstrap) jobs: each once
    assert s.jobs == 3 and [list(s.shard_resamples(k)) for k in range(3)] == [[0, 3, 6], [1, 4], [2, 5]]
    config["rashomon"]["bootstrap"]["n_shards"] = 50
    s = BootstrapSettings.from_config(config, "classification")
    assert s.jobs == 7 and sorted(i for k in range(s.jobs) for i in s.shard_resamples(k)) == list(range(7))


def test_bootstrap_families_are_checked(config):
    config["rashomon"]["bootstrap"]["families"] = ["xgbost"]
    with pytest.raises(ValueError, match="config key rashomon.bootstrap.families: unknown model family 'xgbost'"):
        BootstrapSettings.from_config(config, "regression")


def test_a_rashomon_key_is_a_settings_field_or_another_rules_key():
    """The rashomon section of the schema is split without remainder: each key with a default is a
    field of RashomonSettings (read by from_config by its name, passed on by to_params) or a key of
    another rule (settings._NOT_STEP_KEYS); so a new key of the step is one field, the schema,
    config/config.yaml and config/README.md."""
    import dataclasses

    from xaipipe.settings import _BORROWED, _NOT_STEP_KEYS

    schema = yaml.safe_load((REPO / "workflow" / "schemas" / "config.schema.yaml").read_text())
    section = schema["properties"]["rashomon"]["properties"]
    step = [f.name for f in dataclasses.fields(RashomonSettings) if f.name not in _BORROWED]
    assert sorted(step + list(_NOT_STEP_KEYS)) == sorted(section)
    assert all("default" in section[key] for key in step)
    readme = (REPO / "config" / "README.md").read_text()
    assert all(f"rashomon.{key}" in readme for key in step)


def test_a_new_rashomon_field_is_read_and_passed_on(config):
    """from_config / to_params / from_params handle any field by its name: a subclass with one more
    field (as a new key would add) reads it from the section and round-trips it."""
    import dataclasses

    @dataclasses.dataclass(frozen=True)
    class WithKey(RashomonSettings):
        new_key: tuple = ()

    config["rashomon"]["new_key"] = [1, 2]
    s = WithKey.from_config(config, "regression")
    assert s.new_key == (1, 2) and s.to_params()["new_key"] == [1, 2]
    assert list(s.to_params())[-1] == "new_key" and WithKey.from_params(s.to_params()) == s


def test_learner_settings_give_the_refit_design(config):
    from xaipipe.explain.learner import RefitDesign

    s = LearnerSettings.from_config(config, "classification")
    d = s.design(stratify=True)
    assert isinstance(d, RefitDesign) and d.stratify and d.reseed and not s.design().stratify
    assert (d.n_refits, d.fraction, d.resolution, d.kind) == (s.n_refits, s.fraction, s.resolution, s.grid)
    assert (d.percentiles, d.pfi_estimator, d.n_repeats, d.random_state) == (
        s.percentiles,
        s.pfi_estimator,
        s.n_repeats,
        s.seed,
    )


# ----------------------------------------------------------------------------- CoverageSettings


def _old_coverage_params(config):
    """common.smk's coverage_params before CoverageSettings (the coverage rule's params of before)."""
    cov, rashomon = config["coverage"], config["rashomon"]
    learner = dict(cov["learner"])
    families = learner.pop("families")
    for key in ("n_refits", "fraction", "pfi_estimator", "n_repeats"):
        if learner.get(key) is None:
            learner[key] = config["explain"]["learner"][key]
    mcr = dict(cov["mcr"])
    for key in ("epsilon_mode", "epsilons"):
        if mcr.get(key) is None:
            mcr[key] = rashomon[key]
    mcr.pop("epsilon")
    mcr.pop("enabled")
    return {
        "dgp": cov["dgp"],
        "n": cov["n"],
        "p": cov["p"],
        "noise_sd": cov["noise_sd"],
        "n_repetitions": cov["n_repetitions"],
        "test_size": config["split"]["test_size"],
        "cv_folds": config["split"]["cv_folds"],
        "learners": families,
        "learner_config": learner,
        "rashomon_config": mcr if cov["mcr"]["enabled"] else False,
        "options": config["estimator_options"],
        "nominal": cov["nominal"],
        "random_state": config["seed"],
    }


def test_coverage_params_are_the_rules_params_of_before(config):
    s = CoverageSettings.from_config(config)
    assert repr(s.to_params()) == repr(_old_coverage_params(config))  # Snakemake's params trigger: no rerun
    assert s.epsilon == (config["coverage"]["mcr"]["epsilon"] or config["rashomon"]["epsilon"])
    config["coverage"]["mcr"]["enabled"] = False
    config["coverage"]["learner"]["n_refits"] = 4
    s = CoverageSettings.from_config(config)
    assert s.rashomon_config is False and s.learner_config["n_refits"] == 4
    assert repr(s.to_params()) == repr(_old_coverage_params(config))
    assert "coverage_audit" in CoverageSettings.to_params.__doc__ and s.to_params()["random_state"] == config["seed"]
    # the script's settings from the rule's params: the parse-time ones (the figure's epsilon apart)
    assert CoverageSettings.from_params(s.to_params(), epsilon=s.epsilon) == s
    assert CoverageSettings.from_params(s.to_params()).epsilon is None


def test_coverage_checks_name_the_config_key(config):
    config["coverage"]["mcr"]["epsilon"] = 0.3
    config["coverage"]["mcr"]["epsilons"] = [0.0, 1.0]
    with pytest.raises(ValueError, match=r"config key coverage.mcr.epsilon \(0.3\) must be one of the coverage eps"):
        CoverageSettings.from_config(config)
    config["coverage"]["mcr"]["enabled"] = False  # not checked when the MCR part is off
    assert CoverageSettings.from_config(config).epsilon == 0.3
    config["coverage"]["learner"]["families"] = {"logistic_regression": {}}
    with pytest.raises(
        ValueError, match="coverage.learner.families.logistic_regression: .* does not support regression"
    ):
        CoverageSettings.from_config(config)


def test_large_data_defaults_leave_the_thesis_datasets_alone(config):
    """Default: min_rows 10 000 test rows; the thesis datasets (at most 1 300 test rows: Wine's
    4 898 x 0.2 rounded up is 980, Abalone's 836, the 6 497-row red + white table's 1 300) are below."""
    s = LargeDataSettings.from_config(config)
    assert (s.min_rows, s.reliance_rows, s.shap_rows, s.pd_rows) == (10000, 2000, 1000, 2000)
    for n in (1, 980, 1300, 10000):
        assert not s.applies(n) and all(s.rows(policy, n) is None for policy in LARGE_DATA_POLICIES)
        rows = s.table_rows(n)
        assert [r["policy"] for r in rows] == list(LARGE_DATA_POLICIES)
        assert all(not r["applied"] and r["rows_used"] == n and r["error_reported"] == "" for r in rows)
    assert s.applies(10001) and s.rows("reliance", 10001) == 2000 == s.rows("reliance", 100_000)
    assert s.rows("shap", 10001) == 1000 and s.rows("pd", 10001) == 2000
    (row,) = [r for r in s.table_rows(20000) if r["policy"] == "reliance"]
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
    from xaipipe.schema import validate_config

    for section, message in (({"min_row": 5}, "min_row"), ({"reliance_rows": 1}, "reliance_rows")):
        bad = copy.deepcopy(default_config)
        bad["large_data"] = section
        with pytest.raises(Exception, match=message):
            validate_config(bad, REPO / "workflow" / "schemas" / "config.schema.yaml")


def test_large_data_table_of_a_dataset(config):
    """explain/<dataset>/large_data.csv: the dataset, then one row per policy."""
    config["large_data"].update(min_rows=100, reliance_rows=100, shap_rows=None, pd_rows=80)
    frame = LargeDataSettings.from_config(config).table("mine", 150)
    assert list(frame.columns[:3]) == ["dataset", "policy", "config_key"]
    assert frame["policy"].tolist() == list(LARGE_DATA_POLICIES) and (frame["dataset"] == "mine").all()
    assert frame.set_index("policy")["applied"].to_dict() == {"reliance": True, "shap": False, "pd": True}
    assert frame.set_index("policy")["rows_used"].to_dict() == {"reliance": 100, "shap": 150, "pd": 80}


# ----------------------------------------------------------------------------- ShapSettings


def _old_shap_params(config, family):
    """common.smk's shap_params before ShapSettings (the shap rule's params.shap of before)."""
    from xaipipe.explain.shap_check import shap_algorithm

    shap = config["explain"]["shap"]
    params = {k: v for k, v in shap.items() if k != "algorithm"}
    algorithm = shap_algorithm(family, shap["algorithm"])
    if algorithm != "auto":
        params["algorithm"] = algorithm
    return params


def test_shap_params_are_the_rules_params_of_before(config):
    """params.shap keeps its repr (Snakemake's params trigger: no SHAP job reruns), with and without
    an algorithm override, and the script's settings (from the params) are the parse-time ones."""
    families = sorted({f for t in ("regression", "classification") for f in config["grids"][t]})
    config["explain"]["shap"]["max_rows"] = 25
    for overrides in ({}, {"random_forest": "permutation", "xgboost": "auto"}):
        config["explain"]["shap"]["algorithm"] = overrides
        for family in families:
            s = ShapSettings.from_config(config, family)
            assert repr(s.to_params()) == repr(_old_shap_params(config, family))
            back = ShapSettings.from_params(
                s.to_params(), family=family, seed=config["seed"], large_data=s.large_data.to_params()
            )
            assert back == s
    s = ShapSettings.from_config(config, "random_forest")
    assert (s.algorithm, s.to_params()["algorithm"], s.seed) == ("permutation", "permutation", config["seed"])
    assert s.max_rows == 25 and s.max_rows_random_forest == config["explain"]["shap"]["max_rows_random_forest"]
    assert s.large_data == LargeDataSettings.from_config(config)
    with pytest.raises(AttributeError):
        s.max_rows = 3  # frozen


def test_shap_interaction_values_follow_the_algorithm(config):
    """Interaction values: explain.shap.interactions and the family's algorithm xgboost_pred_contribs
    (the registry's where not overridden) -- the families of common.smk's shap_interaction_families."""
    from xaipipe.models.families import get_family

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
    bare = ShapSettings.from_params(s.to_params(), family="xgboost", seed=1)
    assert bare.large_data is None and bare.large_data_rows(10**6) is None


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


def test_a_shap_key_is_a_settings_field():
    """Each key of the schema's explain.shap section is a field of ShapSettings (read by its name;
    a new key: the schema, config/config.yaml, config/README.md and one field)."""
    import dataclasses

    from xaipipe.settings import _SHAP_BORROWED

    schema = yaml.safe_load((REPO / "workflow" / "schemas" / "config.schema.yaml").read_text())
    section = schema["properties"]["explain"]["properties"]["shap"]["properties"]
    assert sorted(f.name for f in dataclasses.fields(ShapSettings) if f.name not in _SHAP_BORROWED) == sorted(section)


# ----------------------------------------------------------------------------- PdIceSettings


@pytest.mark.parametrize("task", ["regression", "classification"])
def test_pd_params_are_the_rules_params_of_before(config, task):
    """params.pd is the explain.pd section, repr and key order included (the pd_ice rule passed
    config["explain"]["pd"]); the script's settings from the rule's params are the parse-time ones."""
    s = PdIceSettings.from_config(config, task)
    assert repr(s.to_params()) == repr(config["explain"]["pd"])
    explain = config["explain"]
    back = PdIceSettings.from_params(
        s.to_params(),
        ranking=explain["reliance"]["ranking"],
        loss=explain["reliance"]["losses"][task][0],
        seed=config["seed"],
        large_data=LargeDataSettings.from_config(config).to_params(),
    )
    assert back == s and s.percentiles == (0.0, 1.0) and s.loss == explain["reliance"]["losses"][task][0]
    assert s.output("regression") == "predict" and s.output("classification") == explain["pd"]["classification_output"]
    assert s.large_data_rows(10_000) is None and s.large_data_rows(10_001) == config["large_data"]["pd_rows"]
    assert PdIceSettings.from_params(s.to_params(), ranking={}, loss="x", seed=0).large_data_rows(10**6) is None
    with pytest.raises(AttributeError):
        s.top_k = 5  # frozen


def test_pd_top_features_rank_by_the_configured_mr(config):
    """top_features: the top_k variables by the ranking estimator / quantity at the task's loss, ties
    by name (checked against a sort by hand)."""
    import pandas as pd

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
    assert s.top_features(table) == ["b", "a"]


def test_pd_percentiles_must_increase(config):
    config["explain"]["pd"]["percentiles"] = [0.9, 0.1]
    with pytest.raises(ValueError, match=r"config key explain.pd.percentiles \(\[0.9, 0.1\]\): the first"):
        PdIceSettings.from_config(config, "regression")
    with pytest.raises(ValueError, match="task must be"):
        PdIceSettings.from_config(config, "ranking")


def test_a_pd_key_is_a_settings_field():
    """Each key of the schema's explain.pd section is a field of PdIceSettings (read by its name)."""
    import dataclasses

    from xaipipe.settings import _PD_BORROWED

    schema = yaml.safe_load((REPO / "workflow" / "schemas" / "config.schema.yaml").read_text())
    section = schema["properties"]["explain"]["properties"]["pd"]["properties"]
    assert [f.name for f in dataclasses.fields(PdIceSettings) if f.name not in _PD_BORROWED] == list(section)


# ----------------------------------------------------------------------------- RelianceSettings


@pytest.mark.parametrize("task", ["regression", "classification"])
def test_reliance_params_are_the_rules_params_of_before(config, task):
    """params.reliance is the explain.reliance section and params.losses the task's list, repr and
    key order included (the model_reliance rule passed them as is); from_params gives the same
    settings."""
    s = RelianceSettings.from_config(config, task)
    section = config["explain"]["reliance"]
    assert repr(s.to_params()) == repr(section)
    assert repr(list(s.task_losses)) == repr(section["losses"][task])
    back = RelianceSettings.from_params(
        s.to_params(),
        losses=section["losses"][task],
        seed=config["seed"],
        large_data=LargeDataSettings.from_config(config).to_params(),
    )
    assert back == s and s.seed == config["seed"] and s.estimators == tuple(section["estimators"])
    assert s.large_data_rows(10_000) is None and s.large_data_rows(10_001) == config["large_data"]["reliance_rows"]
    assert RelianceSettings.from_params(s.to_params(), losses=["x"], seed=0).large_data_rows(10**6) is None
    with pytest.raises(AttributeError):
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


def test_a_reliance_key_is_a_settings_field():
    """Each key of the schema's explain.reliance section is a field of RelianceSettings (by name)."""
    import dataclasses

    from xaipipe.settings import _RELIANCE_BORROWED

    schema = yaml.safe_load((REPO / "workflow" / "schemas" / "config.schema.yaml").read_text())
    section = schema["properties"]["explain"]["properties"]["reliance"]["properties"]
    assert [f.name for f in dataclasses.fields(RelianceSettings) if f.name not in _RELIANCE_BORROWED] == list(section)


# ----------------------------------------------------------------------------- sample_size_checks


def _old_sample_size_checks(config, task, families, sampled):
    """common.smk's sample_size_checks before xaipipe.settings.sample_size_checks (the split rule's
    params.checks of before), written out with the CV params of the rules."""
    from xaipipe.models.cv import fit_configurations

    out = {}
    boot = config["rashomon"]["bootstrap"]
    if boot["enabled"] and [f for f in boot["families"] if f in families]:
        out["bootstrap"] = {"n_bootstrap": boot["n_bootstrap"], "random_state": config["seed"]}
    learner = config["explain"]["learner"]
    if any(f in learner["families"] for f in families):
        out["learner"] = {
            "n_refits": learner["n_refits"],
            "fraction": learner["fraction"],
            "random_state": config["seed"],
        }
    rows = {}
    for family in dict.fromkeys(families + sampled):
        p = _old_cv_params(config, task, family)
        configs = fit_configurations(family, p["grid"], sample=p["sample"], random_state=p["seed"])
        n_grid = len(fit_configurations(family, p["grid"])) if p["grid"] is not None else 0
        default = p["options"].get("n_neighbors")
        values = [(c.get("n_neighbors", default), i < n_grid) for i, c in enumerate(configs)]
        values = [(int(v), g) for v, g in values if v is not None]
        if values:
            largest, from_grid = max(values)
            key = f"grids.{task}.{family}.n_neighbors" if from_grid else f"rashomon.sample.families.{task}.{family}"
            rows[f"n_neighbors = {largest} of {key}"] = largest
    if rows:
        out["min_fit_rows"] = rows
    return out


def test_sample_size_checks_are_the_split_rules_params_of_before(config):
    """The split rule's params.checks: the same dict (repr) as common.smk built, for every task with
    all, some and no families of the bootstrap / learner, with the random search on and off."""
    sampled_all = config["rashomon"]["sample"]["families"]
    cases = []
    for task in ("regression", "classification"):
        grid = list(config["grids"][task])
        sampled = [f for f in sampled_all.get(task, {}) if f not in config["grids"][task]]
        cases += [(task, grid, sampled), (task, grid[:1], []), (task, ["knn"] if "knn" in grid else grid[-1:], sampled)]
    for enabled in (True, False):
        config["rashomon"]["sample"]["enabled"] = enabled
        config["rashomon"]["bootstrap"]["enabled"] = enabled
        for task, families, sampled in cases:
            sampled = sampled if enabled else []
            got = sample_size_checks(config, task, families, sampled)
            assert repr(got) == repr(_old_sample_size_checks(config, task, families, sampled))


def test_sample_size_checks_name_the_n_neighbors_source(config):
    """kNN: the largest n_neighbors of the grid, or of the random search when a draw is larger (the
    key then names the search); no kNN, no min_fit_rows."""
    config["grids"]["classification"]["knn"] = {"n_neighbors": [3, 7]}
    config["rashomon"]["sample"]["enabled"] = False
    out = sample_size_checks(config, "classification", ["knn"])
    assert out["min_fit_rows"] == {"n_neighbors = 7 of grids.classification.knn.n_neighbors": 7}
    config["rashomon"]["sample"]["enabled"] = True
    config["rashomon"]["sample"]["families"]["classification"] = {
        "knn": {"n_iter": 5, "distributions": {"n_neighbors": {"randint": [50, 60]}}}
    }
    ((key, value),) = sample_size_checks(config, "classification", ["knn"])["min_fit_rows"].items()
    assert key == f"n_neighbors = {value} of rashomon.sample.families.classification.knn" and 50 <= value < 60
    assert "min_fit_rows" not in sample_size_checks(config, "regression", ["decision_tree"])
    config["explain"]["learner"]["families"] = ["decision_tree"]
    assert sample_size_checks(config, "regression", ["decision_tree"])["learner"] == {
        "n_refits": config["explain"]["learner"]["n_refits"],
        "fraction": config["explain"]["learner"]["fraction"],
        "random_state": config["seed"],
    }
    with pytest.raises(ValueError, match="task must be"):
        sample_size_checks(config, "ranking", ["knn"])


def test_cv_shards_are_at_most_the_fit_units(config):
    """CVSettings.shards: 1 for cv_shards <= 1, else the wanted jobs capped at n_fit_units (the
    common.smk rule of before), for a prefix-group family, a depth-chain family and a sampled one."""
    from xaipipe.models.cv import n_fit_units

    for task, family in (("regression", "gradient_boosting"), ("regression", "decision_tree"), ("regression", "ridge")):
        s = CVSettings.from_config(config, task, family)
        units = n_fit_units(family, s.grid, sample=s.sample, random_state=s.seed)
        assert units >= 2
        assert s.shards(0) == s.shards(1) == 1
        assert s.shards(2) == 2 and s.shards(units + 5) == units
        # with the folds: (unit, fold) pairs past the units, at most units x folds
        assert s.shards(units + 1, 5) == units + 1 and s.shards(5 * units + 3, 5) == 5 * units
    rf = CVSettings.from_config(config, "regression", "random_forest")
    assert n_fit_units("random_forest", rf.grid) == 1  # one prefix group: 100 .. 2000 trees
    assert rf.shards(5, config["split"]["cv_folds"]) == 5 and rf.shards(5) == 1


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


@pytest.mark.parametrize("task", ["regression", "classification"])
def test_ale_params_are_the_rules_params_of_before(config, task):
    """params.ale is the explain.ale section (repr and key order) and the other params of the ale
    rule are the expressions it had; the script's settings from them are the parse-time ones."""
    config["explain"]["pd"]["classification_output"] = "logit"  # not the default: the task decides
    config["explain"]["figure_class"] = "b"
    s = AleSettings.from_config(config, task)
    assert repr(s.to_params()) == repr(config["explain"]["ale"])
    old = _old_dependence_params(config, task)
    new = {key: getattr(s, key) for key in old}
    assert repr(new) == repr(old)
    assert LargeDataSettings.from_config(config).to_params() == s.large_data.to_params()
    back = AleSettings.from_params(s.to_params(), **old, large_data=LargeDataSettings.from_config(config).to_params())
    assert back == s and s.output == ("predict" if task == "regression" else "logit")
    assert s.large_data_rows(10_000) is None and s.large_data_rows(10_001) == config["large_data"]["pd_rows"]
    assert AleSettings.from_params(s.to_params(), **old).large_data_rows(10**6) is None
    with pytest.raises(AttributeError):
        s.n_bins = 5  # frozen


def test_ale_ranked_features_are_every_variable_by_the_configured_mr(config):
    """ranked_features: all rows of the task's loss and ranking estimator by decreasing quantity (the
    rule's top_features(reliance, len(reliance), ...) of before), checked against a sort by hand."""
    import pandas as pd

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
    assert s.ranked_features(table) == ["b", "a", "c"]


@pytest.mark.parametrize("task", ["regression", "classification"])
def test_h_statistic_params_are_the_rules_params_of_before(config, task):
    """params.interactions is the explain.interactions section, params.n_rows the rule's expression of
    before for every registered family (forests: n_rows_random_forest), the other params as before."""
    from xaipipe.models.families import FAMILIES, get_family

    config["explain"]["interactions"]["n_rows"] = 250
    config["explain"]["interactions"]["n_rows_random_forest"] = 120
    forests = 0
    for family in sorted(FAMILIES):
        s = HStatisticSettings.from_config(config, task, family)
        assert repr(s.to_params()) == repr(config["explain"]["interactions"])
        old_n_rows = config["explain"]["interactions"][
            ("n_rows_random_forest" if get_family(family).prefix == "forest" else "n_rows")
        ]
        assert s.rows == old_n_rows
        forests += s.rows == 120
        old = _old_dependence_params(config, task)
        assert repr({key: getattr(s, key) for key in old}) == repr(old)
        assert HStatisticSettings.from_params(s.to_params(), family=family, **old) == s
    assert forests >= 2  # random forests and extra trees
    s = HStatisticSettings.from_params(config["explain"]["interactions"], family=None, **old)
    assert s.rows == 250  # no family: n_rows
    config["explain"]["interactions"]["top_k"] = 2
    import pandas as pd

    table = pd.DataFrame(
        [("permutation", old["loss"], f, v) for f, v in (("a", 1.0), ("b", 3.0), ("c", 2.0))],
        columns=["estimator", "loss", "feature", config["explain"]["reliance"]["ranking"]["quantity"]],
    )
    assert HStatisticSettings.from_config(
        config, task, "ridge" if task == "regression" else "logistic_regression"
    ).top_features(table) == ["b", "c"]


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


@pytest.mark.parametrize(("cls", "section"), [(AleSettings, "ale"), (HStatisticSettings, "interactions")])
def test_an_ale_or_interactions_key_is_a_settings_field(cls, section):
    """Each key of the schema's explain.ale / explain.interactions section is a field of its
    settings (read by its name), in the schema's order."""
    import dataclasses

    from xaipipe.settings import _DEPENDENCE_BORROWED

    schema = yaml.safe_load((REPO / "workflow" / "schemas" / "config.schema.yaml").read_text())
    keys = list(schema["properties"]["explain"]["properties"][section]["properties"])
    assert [f.name for f in dataclasses.fields(cls) if f.name not in _DEPENDENCE_BORROWED] == keys


def test_abalone_study_shards_are_common_smk_s_cap_of_before(config):
    """abalone_study_shards: min(n_shards, n_fit_units(family, grid)) (the STUDY_SHARDS line of
    common.smk before), below, at and above the grid's prefix groups."""
    from xaipipe.models.cv import n_fit_units

    study = config["rashomon"]["abalone_study"]
    units = n_fit_units(study["family"], study["grid"])
    assert units >= 2
    for wanted in (1, 2, units, units + 7):
        study["n_shards"] = wanted
        assert abalone_study_shards(config) == min(wanted, n_fit_units(study["family"], study["grid"]))
    study["family"] = "boosting"
    with pytest.raises(ValueError, match="config key rashomon.abalone_study.family: unknown model family"):
        abalone_study_shards(config)


# ----------------------------------------------------------------------------- LimeSettings


def test_lime_params_are_the_rules_params_of_before(config):
    """params.lime is the explain.lime section (repr, key order), params.seed / figure_class the
    rule's expressions of before; from_params gives the same settings."""
    config["explain"]["figure_class"] = 2
    s = LimeSettings.from_config(config)
    old = {"lime": config["explain"]["lime"], "seed": config["seed"], "figure_class": config["explain"]["figure_class"]}
    assert repr({"lime": s.to_params(), "seed": s.seed, "figure_class": s.figure_class}) == repr(old)
    assert LimeSettings.from_params(old["lime"], seed=old["seed"], figure_class=old["figure_class"]) == s
    assert s.num_samples == config["explain"]["lime"]["num_samples"] and s.family == config["explain"]["lime"]["family"]
    with pytest.raises(AttributeError):
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


def test_a_lime_key_is_a_settings_field():
    """Each key of the schema's explain.lime section is a field of LimeSettings (by name, in order)."""
    import dataclasses

    from xaipipe.settings import _LIME_BORROWED

    schema = yaml.safe_load((REPO / "workflow" / "schemas" / "config.schema.yaml").read_text())
    keys = list(schema["properties"]["explain"]["properties"]["lime"]["properties"])
    assert [f.name for f in dataclasses.fields(LimeSettings) if f.name not in _LIME_BORROWED] == keys


# ----------------------------------------------------------------------------- CorrelatedSettings


def _old_correlated_options(config):
    """The simulation_truth rule's params.correlated_options before CorrelatedSettings (simulation.smk)."""
    correlated = config["simulation_truth"]["correlated"]
    return {
        **{k: v for k, v in correlated.items() if k not in ("enabled", "families")},
        "reliance": {
            "n_repeats": config["explain"]["reliance"]["n_repeats"],
            **config["explain"]["reliance"]["dependent"],
        },
        "split": config["split"],
        "options": config["estimator_options"],
    }


def test_correlated_params_are_the_rules_params_of_before(config):
    config["explain"]["reliance"]["dependent"]["estimators"] = ["conditional_permutation"]
    config["estimator_options"]["ridge"] = {"solver": "svd"}
    s = CorrelatedSettings.from_config(config)
    assert repr(s.to_params()) == repr(_old_correlated_options(config))
    assert s.families == tuple(config["simulation_truth"]["correlated"]["families"]) and s.enabled is True
    back = CorrelatedSettings.from_params(s.to_params(), seed=config["seed"], families=s.families)
    assert back == s and s.seed == config["seed"] and s.dependent["linkage"] == "single"
    assert s.split["cv_folds"] == config["split"]["cv_folds"] and s.options["ridge"] == {"solver": "svd"}
    with pytest.raises(AttributeError):
        s.n = 5  # frozen


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("families", ["logistic_regression"], "simulation_truth.correlated.families: .* does not support regression"),
        ("families", ["lasso_regression"], "simulation_truth.correlated.families: unknown model family"),
        ("n", 10, r"config key simulation_truth.correlated.n \(10\) must be an integer of at least 20"),
        ("n_mc", 50, r"config key simulation_truth.correlated.n_mc \(50\) must be an integer of at least 100"),
        ("coupling_sd", 0.0, r"config key simulation_truth.correlated.coupling_sd \(0.0\) must be a positive"),
    ],
)
def test_correlated_checks_name_the_config_key(config, key, value, message):
    config["simulation_truth"]["correlated"][key] = value
    with pytest.raises(ValueError, match=message):
        CorrelatedSettings.from_config(config)


def test_a_correlated_key_is_a_settings_field():
    """Each key of the schema's simulation_truth.correlated section is a field of CorrelatedSettings."""
    import dataclasses

    from xaipipe.settings import _CORRELATED_BORROWED

    schema = yaml.safe_load((REPO / "workflow" / "schemas" / "config.schema.yaml").read_text())
    keys = list(schema["properties"]["simulation_truth"]["properties"]["correlated"]["properties"])
    assert [f.name for f in dataclasses.fields(CorrelatedSettings) if f.name not in _CORRELATED_BORROWED] == keys
