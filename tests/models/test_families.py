"""The model-family registry: every family builds the right estimator for its tasks,
``family_of`` finds the family of fitted models (Pipelines included), registration
rejects duplicates and names the config key in its errors, and a family added as one
registry entry at run time goes through the whole pipeline: cross-validation,
refit, model reliance, SHAP values and Rashomon sets / MCR."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import xgboost as xgb
from interpret.glassbox import ExplainableBoostingClassifier, ExplainableBoostingRegressor
from sklearn.datasets import load_breast_cancer, load_diabetes
from sklearn.discriminant_analysis import QuadraticDiscriminantAnalysis
from sklearn.ensemble import (
    ExtraTreesClassifier,
    ExtraTreesRegressor,
    GradientBoostingClassifier,
    GradientBoostingRegressor,
    HistGradientBoostingRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)
from sklearn.linear_model import ElasticNet, Lasso, LinearRegression, LogisticRegression, Ridge
from sklearn.model_selection import GridSearchCV, KFold
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVR
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from xaipipe.models.families import (
    FAMILIES,
    Family,
    families_for_task,
    family_of,
    final_estimator,
    get_family,
    make_estimator,
    register_config_families,
    register_family,
)

R, C = "regression", "classification"
EXPECTED = {
    "linear_regression": {R: LinearRegression},
    "ridge": {R: Ridge},
    "lasso": {R: Lasso},
    "elastic_net": {R: ElasticNet},
    "logistic_regression": {C: LogisticRegression},
    "decision_tree": {R: DecisionTreeRegressor, C: DecisionTreeClassifier},
    "random_forest": {R: RandomForestRegressor, C: RandomForestClassifier},
    "extra_trees": {R: ExtraTreesRegressor, C: ExtraTreesClassifier},
    "gradient_boosting": {R: GradientBoostingRegressor, C: GradientBoostingClassifier},
    "xgboost": {R: xgb.XGBRegressor, C: xgb.XGBClassifier},
    "gaussian_nb": {C: GaussianNB},
    "qda": {C: QuadraticDiscriminantAnalysis},
    "knn": {C: KNeighborsClassifier},
    "ebm": {R: ExplainableBoostingRegressor, C: ExplainableBoostingClassifier},
}
#: Fixed options that keep a test fit short (an EBM's default pairs and 14 bags: a minute here).
FAST_OPTIONS = {"ebm": {"interactions": 0, "outer_bags": 2, "max_rounds": 200}}
SCALED = {"ridge", "lasso", "elastic_net", "logistic_regression", "qda", "knn"}
LINEAR = {"linear_regression", "ridge", "lasso", "elastic_net", "logistic_regression"}
PREFIX = {"random_forest": "forest", "extra_trees": "forest", "gradient_boosting": "boosting", "xgboost": "xgboost"}
ENGINE = {"random_forest", "extra_trees", "gradient_boosting"}
LOG_ODDS = {
    "logistic_regression": "decision_function",
    "qda": "decision_function",
    "gaussian_nb": "joint_log_likelihood",
    "ebm": "decision_function",
}


@pytest.fixture()
def registry():
    """Restores the registry after a test that registers families."""
    saved = dict(FAMILIES)
    yield FAMILIES
    FAMILIES.clear()
    FAMILIES.update(saved)


@pytest.fixture(scope="module")
def data():
    Xr, yr = load_diabetes(return_X_y=True)
    Xc, yc = load_breast_cancer(return_X_y=True)
    return {R: (Xr[:120], yr[:120]), C: (Xc[:160, :5], yc[:160])}


# ----------------------------------------------------------------------------- built-in families


def test_registry_holds_the_built_in_families():
    assert list(FAMILIES) == list(EXPECTED)
    for name, classes in EXPECTED.items():
        fam = get_family(name)
        assert fam.name == name and fam.tasks == frozenset(classes) and fam.label
        assert fam.classes() == tuple(classes[t] for t in fam.estimators)
        assert fam.prefix == PREFIX.get(name) and fam.ensemble == (name in PREFIX)
        assert fam.engine == (name in ENGINE) and fam.scaled == (name in SCALED)
        assert fam.log_odds == LOG_ODDS.get(name)
        assert fam.depth_chains == (name == "decision_tree")
        assert fam.linear == (name in LINEAR)
    assert families_for_task(R) == [n for n, c in EXPECTED.items() if R in c]
    assert families_for_task(C) == [n for n, c in EXPECTED.items() if C in c]
    with pytest.raises(KeyError, match="unknown model family 'svm'.*known families"):
        get_family("svm")


@pytest.mark.parametrize("name", list(EXPECTED))
def test_every_family_builds_and_fits_for_its_tasks(name, data):
    fam = get_family(name)
    for task, cls in EXPECTED[name].items():
        est = make_estimator(name, task, {}, random_state=7, n_jobs=2, options=FAST_OPTIONS.get(name))
        model = final_estimator(est)
        assert type(model) is cls
        if name in SCALED:
            assert isinstance(est, Pipeline) and [s for s, _ in est.steps] == ["scale", "model"]
            assert isinstance(est.steps[0][1], StandardScaler)
        else:
            assert est is model
        params = model.get_params()
        if fam.seeded:
            assert params["random_state"] == 7
        if fam.threaded:
            assert params["n_jobs"] == 2
        for key, value in fam.defaults.items():
            assert params[key] == value
        X, y = data[task]
        if fam.threaded:
            model.set_params(n_jobs=1)  # 2 shared cores: no oversubscription while fitting
        fitted = est.fit(X, y)
        assert family_of(fitted) is fam  # round trip on the fitted estimator (Pipelines included)
    for task in {R, C} - set(EXPECTED[name]):
        with pytest.raises(ValueError, match=f"{name}.*does not support task '{task}'"):
            make_estimator(name, task, {}, random_state=0)


def test_make_estimator_options_and_grid_values():
    est = make_estimator(
        "gradient_boosting", R, {"max_depth": 2}, random_state=1, options={"max_depth": 5, "subsample": 0.5}
    )
    assert est.get_params()["max_depth"] == 2 and est.get_params()["subsample"] == 0.5  # grid wins
    est = make_estimator("random_forest", R, {"random_state": 9, "n_jobs": 3}, random_state=1, n_jobs=2)
    assert est.get_params()["random_state"] == 9 and est.get_params()["n_jobs"] == 3  # explicit wins
    est = make_estimator("xgboost", R, {"tree_method": "exact"}, random_state=0)
    assert est.get_params()["tree_method"] == "exact"


def test_family_of_unregistered_and_subclasses():
    assert family_of(SVR()) is None
    assert family_of(Pipeline([("scale", StandardScaler()), ("model", SVR())])) is None
    assert (
        family_of(Pipeline([("scale", StandardScaler()), ("model", RandomForestRegressor())])).name == "random_forest"
    )

    class MyForest(RandomForestRegressor):
        pass

    assert family_of(MyForest()).name == "random_forest"  # isinstance fallback


# ----------------------------------------------------------------------------- registration


def test_register_family_rejects_duplicates(registry):
    knn = get_family("knn")
    assert register_family(knn) is knn  # the same entry again is harmless
    other = Family("knn", "kNN", {C: "sklearn.neighbors:KNeighborsClassifier"}, scaled=False)
    with pytest.raises(ValueError, match="'knn' is already registered"):
        register_family(other)
    assert get_family("knn") is knn
    register_family(other, replace=True)
    assert get_family("knn") is other
    with pytest.raises(TypeError, match="expected a Family"):
        register_family({"name": "x"})


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(estimators={}), "estimators must map tasks"),
        (dict(estimators={"ranking": "sklearn.svm:SVR"}), "estimators must map tasks"),
        (dict(prefix="tree"), "prefix must be one of"),
        (dict(shap_algorithm="exact"), "shap_algorithm must be one of"),
        (dict(split_gain="gini"), "split_gain must be"),
        (dict(log_odds="logit"), "log_odds must be"),
        (dict(name=""), "non-empty string"),
    ],
)
def test_family_fields_are_validated(kwargs, match):
    args = dict(name="svr", label="SVR", estimators={R: "sklearn.svm:SVR"})
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        Family(**args)


def test_register_config_families(registry, data):
    names = register_config_families(
        {
            "svr": {"estimators": {R: "sklearn.svm:SVR"}, "scaled": True, "defaults": {"C": 3.0}},
            "ridge": {"estimators": {R: "sklearn.linear_model:Ridge"}, "label": "Ridge regression", "linear": True},
        }
    )
    assert names == ["svr", "ridge"]
    svr = get_family("svr")
    assert svr.label == "svr" and svr.shap_algorithm == "permutation" and svr.prefix is None
    est = make_estimator("svr", R, {}, random_state=0)
    assert isinstance(est, Pipeline) and final_estimator(est).get_params()["C"] == 3.0
    X, y = data[R]
    assert family_of(est.fit(X, y)) is svr
    assert get_family("ridge").label == "Ridge regression"
    # an entry for a built-in family replaces it
    register_config_families({"knn": {"estimators": {C: "sklearn.neighbors:KNeighborsClassifier"}}})
    assert get_family("knn").scaled is False and get_family("knn").label == "knn"
    assert register_config_families(None) == [] and register_config_families({}) == []


@pytest.mark.parametrize(
    "entry, match",
    [
        (
            {"estimators": {R: "sklearn.svm:SVR"}, "colour": "red"},
            r"config key families\.bad: unknown field\(s\) \['colour'\]",
        ),
        ({"estimators": {R: "sklearn.svm:SVR"}, "prefix": "tree"}, r"config key families\.bad: .*prefix must be"),
        ({"estimators": {"ranking": "sklearn.svm:SVR"}}, r"config key families\.bad: .*estimators must map tasks"),
        ({"label": "no estimators"}, r"config key families\.bad: "),
    ],
)
def test_register_config_families_errors_name_the_key(registry, entry, match):
    with pytest.raises(ValueError, match=match):
        register_config_families({"bad": entry})
    assert "bad" not in FAMILIES


def test_unimportable_estimator_class_names_the_family(registry):
    register_family(Family("ghost", "Ghost", {R: "sklearn.nowhere:Ghost"}))
    with pytest.raises(ValueError, match="family 'ghost': cannot import 'sklearn.nowhere:Ghost'"):
        make_estimator("ghost", R, {}, random_state=0)
    assert family_of(LinearRegression()).name == "linear_regression"  # a broken entry is skipped


# ----------------------------------------------------------------------------- a new family, end to end

HGB = "hist_gradient_boosting"
HGB_GRID = {"max_iter": [10, 25], "max_depth": [2, 3]}


@pytest.fixture()
def hgb_family():
    """scikit-learn's HistGradientBoostingRegressor as one registry entry (no prefix
    sharing, model-agnostic SHAP), unregistered afterwards."""
    fam = register_family(
        Family(
            HGB,
            "Histogram Gradient Boosting",
            {R: "sklearn.ensemble:HistGradientBoostingRegressor"},
            seeded=True,
            prefix=None,
            shap_algorithm="permutation",
        )
    )
    yield fam
    del FAMILIES[HGB]


def test_new_family_goes_through_the_pipeline(hgb_family):
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1):  # HistGradientBoosting's OpenMP threads on 2 shared cores: 10x slower
        _new_family_pipeline(hgb_family)


def _new_family_pipeline(hgb_family):
    from types import SimpleNamespace

    from xaipipe.config import RashomonSettings
    from xaipipe.explain.reliance import RelianceOptions, model_reliance, random_permutations
    from xaipipe.explain.shapley import ShapOptions, auto_algorithm, shap_values
    from xaipipe.models.cv import cross_validate_grid, select_best, summarize_cv
    from xaipipe.models.fitting import fit_group
    from xaipipe.models.grid import expand_grid
    from xaipipe.rashomon.sets import rashomon_set, set_sizes
    from xaipipe.rashomon.study import rashomon_reliance

    X, y = load_diabetes(return_X_y=True)
    Xtr, ytr, Xte, yte = X[:150], y[:150], X[150:190], y[150:190]
    folds = list(KFold(3, shuffle=True, random_state=0).split(Xtr))

    # cross-validation: every fold score bitwise GridSearchCV's
    table = cross_validate_grid(HGB, R, HGB_GRID, Xtr, ytr, folds, random_state=0)
    summary = summarize_cv(table, R)
    gs = GridSearchCV(
        HistGradientBoostingRegressor(random_state=0),
        HGB_GRID,
        cv=folds,
        scoring="neg_root_mean_squared_error",
        refit=False,
    ).fit(Xtr, ytr)
    ref = pd.DataFrame(gs.cv_results_["params"]).assign(score=-gs.cv_results_["mean_test_score"])
    for i, cfg in enumerate(expand_grid(HGB_GRID)):
        row = ref[(ref["max_iter"] == cfg["max_iter"]) & (ref["max_depth"] == cfg["max_depth"])]
        assert summary.loc[i, "rmse_mean"] == row["score"].item()
    assert (summary["family"] == HGB).all() and (summary["status"] == "ok").all()

    # refit of the best configuration
    best = select_best(summary, "rmse")
    params = {k: int(best[k]) for k in HGB_GRID}
    fit = fit_group(HGB, R, params, Xtr, ytr, random_state=0)
    alone = HistGradientBoostingRegressor(random_state=0, **params).fit(Xtr, ytr)
    assert fit.ok and family_of(fit.estimator) is hgb_family
    np.testing.assert_array_equal(fit.estimator.predict(Xte), alone.predict(Xte))
    model = fit.estimator

    # model reliance (the generic path: no engine support) against a hand-made permutation loop
    perms = random_permutations(len(yte), 3, X.shape[1], random_state=0)
    mr = model_reliance(model, Xte, yte, options=RelianceOptions(permutations=perms))
    assert mr.method == "generic" and mr.loss == "squared_error"
    e_orig = np.mean((yte - model.predict(Xte)) ** 2)
    np.testing.assert_allclose(mr.e_orig, [e_orig], rtol=1e-12)
    for j in range(X.shape[1]):
        losses = []
        for r in range(3):
            Z = Xte.copy()
            Z[:, j] = Xte[perms[j, r], j]
            losses.append(np.mean((yte - model.predict(Z)) ** 2))
        np.testing.assert_allclose(mr.e_switch[0, j], losses, rtol=1e-12)
    with pytest.raises(TypeError, match="no tree-engine support"):
        model_reliance(model, Xte, yte, method="engine")

    # SHAP values: the registry's algorithm, locally accurate
    assert auto_algorithm(model) == "permutation"
    res = shap_values(
        model, Xte[:4], X_background=Xtr, background_size=20, options=ShapOptions(n_permutations=2), random_state=0
    )
    assert res.algorithm == "permutation" and res.values.shape == (4, X.shape[1])
    np.testing.assert_allclose(res.base_values + res.values.sum(axis=1), model.predict(Xte[:4]), atol=1e-8)

    # Rashomon set and MCR with another family: the new family is a scope and a member
    tree = summarize_cv(
        cross_validate_grid("decision_tree", R, {"max_depth": [2, 3]}, Xtr, ytr, folds, random_state=0), R
    )
    both = pd.concat([summary, tree], ignore_index=True)
    rs = rashomon_set(both, metric="rmse", epsilon=10.0)
    assert set(rs.members["family"]) == {HGB, "decision_tree"} and rs.size == 6
    sizes = set_sizes(both, metric="rmse", epsilons=[0.0, 10.0])
    assert list(sizes["scope"].unique()) == ["decision_tree", HGB, "cross_family"]
    wide = sizes[sizes["epsilon"] == 10.0].set_index("scope")
    assert wide.loc[HGB, f"size_{HGB}"] == 4 and wide.loc["cross_family", f"size_{HGB}"] == 4
    assert wide.loc["cross_family", "size"] == 6 and np.isnan(wide.loc["decision_tree", f"size_{HGB}"])
    settings = RashomonSettings(
        task=R,
        metric="rmse",
        seed=0,
        options={},
        loss="squared_error",
        epsilon_mode="relative",
        epsilon=10.0,
        epsilons=(0.0, 10.0),
        scopes=("family", "cross_family"),
        estimators=("permutation",),
        n_repeats=3,
        e_switch_max_rows=400,
        figure_scope="cross_family",
    )
    data = SimpleNamespace(
        X_train=Xtr, y_train=ytr, X_test=Xte, y_test=yte, features=None, feature_groups=None, dataset=None
    )
    members, mcr, groups = rashomon_reliance(data, settings, both)
    assert HGB in set(mcr["scope"]) and {HGB, "decision_tree"} <= set(members["family"])
    hgb_groups = [g for g in groups if g.family == HGB]
    assert len(hgb_groups) == 4 and all(g.n_estimators == [] for g in hgb_groups)  # no prefix sharing
    for g in hgb_groups:
        rows = members[(members["family"] == HGB) & (members["config_id"] == g.config_ids[0])]
        own = model_reliance(g.model, Xte, yte, options=RelianceOptions(permutations=perms)).to_frame()
        np.testing.assert_array_equal(rows["mr_ratio"].to_numpy(), own["mr_ratio"].to_numpy())


def test_new_family_in_worker_processes(hgb_family):
    """Workers (joblib's loky) start with the built-in registry: they receive the resolved Family."""
    from xaipipe.models.cv import cross_validate_grid
    from xaipipe.rashomon.refit import fit_member_groups

    X, y = load_diabetes(return_X_y=True)
    folds = list(KFold(2, shuffle=True, random_state=0).split(X[:100]))
    serial = cross_validate_grid(HGB, R, {"max_iter": [5, 10]}, X[:100], y[:100], folds, random_state=0)
    parallel = cross_validate_grid(HGB, R, {"max_iter": [5, 10]}, X[:100], y[:100], folds, random_state=0, n_jobs=2)
    pd.testing.assert_frame_equal(
        serial.drop(columns=["fit_time_s", "predict_time_s"]), parallel.drop(columns=["fit_time_s", "predict_time_s"])
    )
    members = pd.DataFrame({"family": HGB, "config_id": ["max_iter=5", "max_iter=10"]})
    groups = fit_member_groups(members, R, X[:100], y[:100], random_state=0, n_jobs=2)
    assert [g.config_ids for g in groups] == [["max_iter=5"], ["max_iter=10"]]


# --------------------------------------------------------------------------- #
# A config family's class, checked at start-up (issue 52, item 3)
# --------------------------------------------------------------------------- #
def test_config_family_classes_are_checked_before_any_job():
    from xaipipe.models.families import check_family_classes

    def register(name, estimators, **fields):
        register_config_families({name: {"estimators": estimators, **fields}})
        return name

    try:
        check_family_classes(register("svr", {"regression": "sklearn.svm:SVR", "classification": "sklearn.svm:SVC"}))
        cases = {
            register("popen", {"regression": "subprocess:Popen"}): (
                "config key families.popen.estimators.regression: 'subprocess:Popen' is the class subprocess.Popen, "
                "not a scikit-learn estimator (a subclass of sklearn.base.BaseEstimator with fit and predict); a "
                "family's estimators name estimator classes"
            ),
            register("nowhere", {"regression": "no_such_module:Model"}): (
                "config key families.nowhere.estimators.regression: 'no_such_module:Model' cannot be imported "
                "(ModuleNotFoundError: No module named 'no_such_module')"
            ),
            register("swapped", {"regression": "sklearn.svm:SVC"}): (
                "config key families.swapped.estimators.regression: 'sklearn.svm:SVC' is not a regressor "
                "(scikit-learn's estimator type: 'classifier'); give it under estimators.classification if that is "
                "its task, or name another class"
            ),
            register("function", {"classification": "os:system"}): (
                "config key families.function.estimators.classification: 'os:system' is builtin_function_or_method, "
                "not a scikit-learn estimator (a subclass of sklearn.base.BaseEstimator with fit and predict); a "
                "family's estimators name estimator classes"
            ),
            register("scaler", {"regression": "sklearn.preprocessing:StandardScaler"}): (
                "config key families.scaler.estimators.regression: 'sklearn.preprocessing:StandardScaler' has no "
                "predict method; a family's estimator fits and predicts"
            ),
        }
        for name, message in cases.items():
            with pytest.raises(ValueError) as info:
                check_family_classes(name)
            assert str(info.value) == message
        # a constructor that needs an argument: built with estimator_options
        name = register("column", {"regression": "sklearn.compose:TransformedTargetRegressor"})
        check_family_classes(name, {"regressor": None})
    finally:
        for name in ("svr", "popen", "nowhere", "swapped", "function", "scaler", "column"):
            FAMILIES.pop(name, None)
