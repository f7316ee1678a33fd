"""Settings of the model, Rashomon and study steps (xaipipe.config): the cross-key checks (each
error names its config key), the values read from the config and the params round trip, in
milliseconds (no Snakemake); the jobs planned from them (xaipipe.models.planning,
xaipipe.studies.abalone)."""

from __future__ import annotations

import dataclasses

import pytest

from xaipipe.config import (
    BootstrapSettings,
    CorrelatedSettings,
    CoverageSettings,
    CVSettings,
    RashomonSettings,
    check_family,
    coverage_epsilon,
)
from xaipipe.models.cv import fit_configurations, n_fit_units
from xaipipe.models.planning import cv_shard_count, sample_size_checks
from xaipipe.studies.abalone import abalone_study_shards


def _json_like(value) -> bool:
    """Plain values only: dicts, lists, str, numbers, bool, None (what the params trigger compares)."""
    if isinstance(value, dict):
        return all(isinstance(k, str) and _json_like(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_json_like(v) for v in value)
    return value is None or isinstance(value, (str, int, float, bool))


def test_the_params_are_the_rashomon_section_and_the_keys_it_borrows(config):
    config["explain"]["figure_class"] = "b"
    s = RashomonSettings.from_config(config, "classification")
    p = s.to_params()
    assert p["metric"] == config["selection"]["classification"]
    assert p["loss"] == config["explain"]["reliance"]["losses"]["classification"][0]
    assert p["seed"] == config["seed"] and p["options"] == config["estimator_options"]
    for key in ("epsilon_mode", "epsilon", "epsilons", "scopes", "estimators", "n_repeats", "e_switch_max_rows"):
        assert p[key] == config["rashomon"][key]
    assert p["pd"] == config["rashomon"]["pd"] and p["figure_class"] == "b"
    # JSON-like: lists, not tuples (Snakemake's params trigger compares them)
    assert _json_like(p)
    with pytest.raises(dataclasses.FrozenInstanceError):
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
    with pytest.raises(ValueError, match="task must be"):
        RashomonSettings(task="ranking")
    check_family("grids.regression.random_forest", "random_forest", "regression")
    with pytest.raises(ValueError, match="config key x: unknown model family 'nope'"):
        check_family("x", "nope")


def test_params_round_trip(config):
    for task in ("regression", "classification"):
        s = RashomonSettings.from_config(config, task)
        assert RashomonSettings.from_params(s.to_params()) == s
    with pytest.raises(ValueError, match="unknown field"):
        RashomonSettings.from_params({"epsilonn": 1.0})


def test_a_new_rashomon_field_is_read_and_passed_on(config):
    """from_config / to_params / from_params handle any field by its name: a subclass with one more
    field (as a new key would add) reads it from the section and round-trips it."""

    @dataclasses.dataclass(frozen=True)
    class WithKey(RashomonSettings):
        new_key: tuple = ()

    config["rashomon"]["new_key"] = [1, 2]
    s = WithKey.from_config(config, "regression")
    assert s.new_key == (1, 2) and s.to_params()["new_key"] == [1, 2]
    assert list(s.to_params())[-1] == "new_key" and WithKey.from_params(s.to_params()) == s


# ----------------------------------------------------------------------------- CVSettings


def _old_cv_params(config, task, family):
    """The params.cv that common.smk's cv_params built before CVSettings: the values the settings
    carry (metrics.beta for classification only)."""
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


def test_cv_settings_carry_the_values_of_the_rules_params_of_before(config):
    config["metrics"]["beta"] = 3.0
    sampled = config["rashomon"]["sample"]["families"]
    pairs = [(t, f) for t in ("regression", "classification") for f in {**config["grids"][t], **sampled.get(t, {})}]
    assert ("regression", "ridge") in pairs and "ridge" not in config["grids"]["regression"]
    for task, family in pairs:
        s = CVSettings.from_config(config, task, family)
        params = s.to_params()
        old = _old_cv_params(config, task, family)
        assert {k: params[k] for k in old} == old and params["family"] == family
        assert CVSettings.from_params(params) == s and _json_like(params)
        # a regression family does not carry metrics.beta: changing it reruns no regression job
        assert s.beta == (3.0 if task == "classification" else None)
    ridge = CVSettings.from_config(config, "regression", "ridge")
    assert ridge.grid is None and ridge.sample == sampled["regression"]["ridge"]  # only sampled
    config["rashomon"]["sample"]["enabled"] = False
    assert CVSettings.from_config(config, "regression", "decision_tree").sample is None
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


def test_cv_shards_are_at_most_the_fit_units(config):
    """cv_shard_count: 1 for cv_shards <= 1, else the wanted jobs capped at n_fit_units (the
    common.smk rule of before), for a prefix-group family, a depth-chain family and a sampled one."""
    for task, family in (("regression", "gradient_boosting"), ("regression", "decision_tree"), ("regression", "ridge")):
        s = CVSettings.from_config(config, task, family)
        units = n_fit_units(family, s.grid, sample=s.sample, random_state=s.seed)
        assert units >= 2
        assert cv_shard_count(s, 0) == cv_shard_count(s, 1) == 1
        assert cv_shard_count(s, 2) == 2 and cv_shard_count(s, units + 5) == units
        # with the folds: (unit, fold) pairs past the units, at most units x folds
        assert cv_shard_count(s, units + 1, 5) == units + 1 and cv_shard_count(s, 5 * units + 3, 5) == 5 * units
    rf = CVSettings.from_config(config, "regression", "random_forest")
    assert n_fit_units("random_forest", rf.grid) == 1  # one prefix group: 100 .. 2000 trees
    assert cv_shard_count(rf, 5, config["split"]["cv_folds"]) == 5 and cv_shard_count(rf, 5) == 1


# ----------------------------------------------------------------------------- BootstrapSettings


def test_bootstrap_settings_are_the_bootstrap_section_and_the_rashomon_step(config):
    config["rashomon"]["bootstrap"].update(n_bootstrap=7, n_shards=3, mr_data="test", estimator="e_divide")
    s = BootstrapSettings.from_config(config, "classification")
    b = config["rashomon"]["bootstrap"]
    assert s.rashomon == RashomonSettings.from_config(config, "classification")
    for key in ("n_bootstrap", "mr_data", "estimator", "n_repeats", "confidence", "n_shards"):
        assert getattr(s, key) == b[key]
    assert s.families == tuple(b["families"])
    # the scripts' settings (from the rules' one param, the Rashomon settings nested) are the parse-time ones
    p = s.to_params()
    assert p["rashomon"] == s.rashomon.to_params() and _json_like(p)
    assert BootstrapSettings.from_params(p) == s
    # resamples dealt round-robin to min(n_shards, n_bootstrap) jobs: each once
    assert s.jobs == 3 and [list(s.shard_resamples(k)) for k in range(3)] == [[0, 3, 6], [1, 4], [2, 5]]
    config["rashomon"]["bootstrap"]["n_shards"] = 50
    s = BootstrapSettings.from_config(config, "classification")
    assert s.jobs == 7 and sorted(i for k in range(s.jobs) for i in s.shard_resamples(k)) == list(range(7))


def test_bootstrap_families_are_checked(config):
    config["rashomon"]["bootstrap"]["families"] = ["xgbost"]
    with pytest.raises(ValueError, match="config key rashomon.bootstrap.families: unknown model family 'xgbost'"):
        BootstrapSettings.from_config(config, "regression")


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
    assert s.to_params() == _old_coverage_params(config)
    assert coverage_epsilon(config) == (config["coverage"]["mcr"]["epsilon"] or config["rashomon"]["epsilon"])
    config["coverage"]["mcr"]["enabled"] = False
    config["coverage"]["learner"]["n_refits"] = 4
    s = CoverageSettings.from_config(config)
    assert s.rashomon_config is False and s.learner_config["n_refits"] == 4
    assert s.to_params() == _old_coverage_params(config)
    # the script's settings from the rule's params: the parse-time ones; the figure's epsilon is no
    # setting of the audit (changing it reruns no audit)
    assert CoverageSettings.from_params(s.to_params()) == s and _json_like(s.to_params())
    config["coverage"]["mcr"]["epsilon"] = 0.5
    assert CoverageSettings.from_config(config) == s


def test_coverage_checks_name_the_config_key(config):
    config["coverage"]["mcr"]["epsilon"] = 0.3
    config["coverage"]["mcr"]["epsilons"] = [0.0, 1.0]
    with pytest.raises(ValueError, match=r"config key coverage.mcr.epsilon \(0.3\) must be one of the coverage eps"):
        CoverageSettings.from_config(config)
    config["coverage"]["mcr"]["enabled"] = False  # not checked when the MCR part is off
    assert coverage_epsilon(config) == 0.3
    config["coverage"]["learner"]["families"] = {"logistic_regression": {}}
    with pytest.raises(
        ValueError, match="coverage.learner.families.logistic_regression: .* does not support regression"
    ):
        CoverageSettings.from_config(config)


# ----------------------------------------------------------------------------- sample_size_checks


def _old_sample_size_checks(config, task, families, sampled):
    """common.smk's sample_size_checks before it moved (the split rule's params.checks of before),
    written out with the CV params of the rules."""
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


def test_abalone_study_shards_are_common_smk_s_cap_of_before(config):
    """abalone_study_shards: min(n_shards, n_fit_units(family, grid)) (the STUDY_SHARDS line of
    common.smk before), below, at and above the grid's prefix groups."""
    study = config["rashomon"]["abalone_study"]
    units = n_fit_units(study["family"], study["grid"])
    assert units >= 2
    for wanted in (1, 2, units, units + 7):
        study["n_shards"] = wanted
        assert abalone_study_shards(config) == min(wanted, n_fit_units(study["family"], study["grid"]))
    study["family"] = "boosting"
    with pytest.raises(ValueError, match="config key rashomon.abalone_study.family: unknown model family"):
        abalone_study_shards(config)


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


def test_correlated_settings_carry_the_rules_params_of_before(config):
    config["explain"]["reliance"]["dependent"]["estimators"] = ["conditional_permutation"]
    config["estimator_options"]["ridge"] = {"solver": "svd"}
    s = CorrelatedSettings.from_config(config)
    old = _old_correlated_options(config)
    p = s.to_params()
    assert {k: p[k] for k in ("n", "coupling_sd", "n_mc", "split", "options")} == {
        k: old[k] for k in ("n", "coupling_sd", "n_mc", "split", "options")
    }
    assert {"n_repeats": p["n_repeats"], **p["dependent"]} == old["reliance"] and p["seed"] == config["seed"]
    assert CorrelatedSettings.from_params(p) == s and _json_like(p)
    assert s.dependent["linkage"] == "single" and s.options["ridge"] == {"solver": "svd"}
    # enabled / families choose the jobs: no fields, so adding a family reruns no existing job
    assert not {"enabled", "families"} & set(p)
    with pytest.raises(dataclasses.FrozenInstanceError):
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
