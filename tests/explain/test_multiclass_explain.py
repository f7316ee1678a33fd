"""Multiclass models in the explain layer: MR losses, the tree engine, PD / ICE and SHAP per class,
LIME and the SHAP check of one class -- against scikit-learn, shap and plain computations."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
import shap
from sklearn import metrics as skm
from sklearn.datasets import make_classification
from sklearn.inspection import partial_dependence as sk_partial_dependence

from xaipipe.config import PdIceSettings, ShapSettings
from xaipipe.explain.classes import class_choice
from xaipipe.explain.lime import compare_lime_shap, lime_explanations
from xaipipe.explain.pdp import pd_ice_tables
from xaipipe.explain.reliance import RelianceOptions, grouped_mean_abs_shap, model_reliance
from xaipipe.explain.shapley import ShapClasses, class_result, kernel_vs_tree_shap, shap_tables, shap_values
from xaipipe.losses import log_loss, zero_one
from xaipipe.models.families import make_estimator

FAMILIES = {
    "logistic_regression": {"C": 1.0},
    "decision_tree": {"max_depth": 4},
    "random_forest": {"n_estimators": 6},
    "extra_trees": {"n_estimators": 6},
    "gradient_boosting": {"n_estimators": 6},
    "xgboost": {"n_estimators": 6, "max_depth": 3},
    "gaussian_nb": {},
    "qda": {"reg_param": 0.01},
    "knn": {"n_neighbors": 7},
}


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(n_samples=300, n_features=4, n_informative=4, n_redundant=0, n_classes=3, random_state=1)
    return X[:240], y[:240], X[240:], y[240:]


@pytest.fixture(scope="module")
def models(data):
    X, y, _, _ = data
    return {f: make_estimator(f, "classification", p, random_state=0).fit(X, y) for f, p in FAMILIES.items()}


def test_losses_are_sklearns_per_row(data, models):
    _, _, Xt, yt = data
    P = models["gaussian_nb"].predict_proba(Xt)
    out = np.stack([P, models["knn"].predict_proba(Xt)])  # two members (m, n, K)
    ll = log_loss(yt, out)
    assert ll.shape == (2, len(yt))
    assert ll[0].mean() == pytest.approx(skm.log_loss(yt, P), rel=1e-14)
    assert np.isfinite(ll[1]).all()  # kNN's probabilities of 0 are clipped, as sklearn clips
    assert zero_one(yt, out)[0].mean() == pytest.approx(1 - skm.accuracy_score(yt, P.argmax(axis=1)))


@pytest.mark.parametrize("family", ["random_forest", "extra_trees", "gradient_boosting"])
@pytest.mark.parametrize("estimator", ["permutation", "e_switch", "e_divide"])
def test_tree_engine_is_bitwise_the_generic_path(data, models, family, estimator):
    _, _, Xt, yt = data
    kw = dict(estimator=estimator, loss="log_loss", random_state=3, n_estimators=[2, 6])
    if estimator != "e_switch":
        kw["n_repeats"] = 3
    a = model_reliance(models[family], Xt, yt, method="generic", **kw)
    b = model_reliance(models[family], Xt, yt, method="engine", **kw)
    np.testing.assert_array_equal(a.e_orig, b.e_orig)
    np.testing.assert_array_equal(a.e_switch, b.e_switch)


def test_permutation_mr_is_sklearns_permutation_importance(data, models):
    from sklearn.inspection import permutation_importance

    from xaipipe.explain.reliance import sklearn_permutations

    _, _, Xt, yt = data
    ref = permutation_importance(models["xgboost"], Xt, yt, scoring="neg_log_loss", n_repeats=4, random_state=5)
    got = model_reliance(
        models["xgboost"], Xt, yt, options=RelianceOptions(permutations=sklearn_permutations(len(yt), 4, 5))
    )
    np.testing.assert_allclose(got.mr_difference()[0], ref.importances, rtol=1e-6, atol=1e-7)


def test_pd_per_class_is_sklearns_partial_dependence(data, models):
    _, _, Xt, _ = data
    model = models["random_forest"]
    names = ["f0", "f1", "f2", "f3"]
    split = SimpleNamespace(
        X_test=Xt, features=names, feature_groups=None, test_rows=None, task="classification", classes=["a", "b", "c"]
    )
    settings = PdIceSettings(
        task="classification",
        seed=0,
        resolution=5,
        smooth=0,
        max_curves=None,
        pair_resolution=3,
        max_batch_rows=100_000,
        classification_output="proba",
        large_data=None,
    )
    curves, pairs = pd_ice_tables(model, split, settings, top=["f0", "f2"])
    assert list(pd.unique(curves["class"])) == ["a", "b", "c"] and list(pd.unique(pairs["class"])) == ["a", "b", "c"]
    for k, label in enumerate(["a", "b", "c"]):
        line = curves[(curves["class"] == label) & (curves.feature == "f0") & (curves.kind == "pd")]
        grid = line["grid_value"].to_numpy()
        ref = sk_partial_dependence(
            model, Xt, [0], custom_values={0: grid}, response_method="predict_proba", kind="average"
        )
        np.testing.assert_allclose(line["value"].to_numpy(), ref["average"][k], rtol=1e-12)
    # the binary path of the same function has no class column
    binary = make_estimator("gaussian_nb", "classification", {}, random_state=0).fit(Xt, Xt[:, 0] > 0)
    auto = replace(settings, resolution=4, max_curves=1000, pair_resolution=20, classification_output="auto")
    plain, _ = pd_ice_tables(binary, SimpleNamespace(**{**vars(split), "classes": None}), auto, top=["f0"])
    assert "class" not in plain.columns


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_shap_per_class_adds_up_to_the_class_output(data, models, family):
    X, _, Xt, _ = data
    model = models[family]
    for k in range(3):
        res = shap_values(model, Xt[:8], X_background=X, class_index=k, background_size=30, random_state=0)
        assert res.details["class_index"] == k
        err = np.abs(res.base_values + res.values.sum(axis=1) - res.model_output)
        assert err.max() < 1e-5
        if res.output == "probability":
            np.testing.assert_allclose(res.model_output, model.predict_proba(Xt[:8])[:, k], rtol=1e-12)


def test_shap_per_class_matches_shaps_own_multiclass_output(data, models):
    X, _, Xt, _ = data
    # trees and forests: shap's TreeExplainer returns (n, p, K) probabilities
    for family in ("random_forest", "decision_tree"):
        ref = shap.TreeExplainer(models[family], feature_perturbation="tree_path_dependent").shap_values(Xt[:6])
        for k in range(3):
            got = shap_values(models[family], Xt[:6], class_index=k)
            np.testing.assert_allclose(got.values, np.asarray(ref)[..., k], rtol=1e-10, atol=1e-12)
    # XGBoost: its own pred_contribs of the class's margin
    import xgboost as xgb

    contribs = models["xgboost"].get_booster().predict(xgb.DMatrix(Xt[:6]), pred_contribs=True)
    got = shap_values(models["xgboost"], Xt[:6], class_index=2)
    np.testing.assert_array_equal(got.values, contribs[:, 2, :-1].astype(float))
    # multinomial logistic regression: shap's LinearExplainer (n, p, K) on the scaled model
    pipe = models["logistic_regression"]
    Bt, Zt = pipe[:-1].transform(X), pipe[:-1].transform(Xt[:6])
    lin = shap.LinearExplainer(pipe[-1], shap.maskers.Independent(Bt, max_samples=len(Bt)))
    got = shap_values(pipe, Xt[:6], X_background=X, class_index=1)
    np.testing.assert_allclose(got.values, np.asarray(lin.shap_values(Zt))[..., 1], rtol=1e-10, atol=1e-12)


def test_gradient_boosting_class_shap_is_the_sum_of_its_trees(data, models):
    """shap reads binary gradient boosting only; a class's raw score is the initial score plus
    learning_rate times its trees, so its TreeSHAP values are the sum of the trees' (shap's own
    TreeExplainer of each fitted regression tree, by additivity)."""
    _, _, Xt, _ = data
    gb = models["gradient_boosting"]
    X32 = Xt[:6].astype(np.float32).astype(float)
    for k in range(3):
        ref = sum(
            gb.learning_rate * shap.TreeExplainer(tree, feature_perturbation="tree_path_dependent").shap_values(X32)
            for tree in gb.estimators_[:, k]
        )
        got = shap_values(gb, Xt[:6], class_index=k)
        np.testing.assert_allclose(got.values, ref, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(got.model_output, gb.decision_function(Xt[:6])[:, k], rtol=1e-14)


def test_shap_tables_stack_every_class(data, models):
    X, _, Xt, _ = data
    names = ["f0", "f1", "f2", "f3"]
    split = SimpleNamespace(
        X_test=Xt,
        X_train=X,
        test_rows=np.arange(100, 160),
        features=names,
        feature_groups=None,
        classes=["a", "b", "c"],
        dataset="d",
    )
    settings = ShapSettings(
        family="xgboost", seed=0, max_rows=5, max_rows_random_forest=None, background_size=None, large_data=None
    )
    out = shap_tables(models["xgboost"], split, settings)
    assert isinstance(out.result, ShapClasses)
    assert list(out.values.columns[:3]) == ["dataset", "model", "class"]
    assert len(out.values) == 3 * 5 * 4 and len(out.interactions) == 3 * 5 * 16
    assert out.meta["classes"] == ["a", "b", "c"] and len(out.meta["per_class"]) == 3
    assert class_result(out.result, "b").details["class"] == "b"
    assert class_result(out.result).details["class"] == "a"
    with pytest.raises(ValueError, match="explain.figure_class"):
        class_result(out.result, "z")
    assert class_choice(None, "a") == {} and class_choice(["a", "b", "c"], "c") == {"class_index": 2}
    # the ranking measure: per class mean |SHAP|, summed over the classes
    total = grouped_mean_abs_shap(out.values).set_index("feature")["mean_abs_shap"]
    per_class = out.values.assign(a=out.values["shap_value"].abs()).groupby(["class", "feature"])["a"].mean()
    np.testing.assert_allclose(total[names].to_numpy(), per_class.groupby(level=1).sum()[names].to_numpy())


@pytest.mark.parametrize("family", ["xgboost", "gradient_boosting", "random_forest"])
def test_shap_check_of_one_class(data, models, family):
    X, _, Xt, _ = data
    check = kernel_vs_tree_shap(models[family], Xt[:3], X, n_samples=[14], background_size=20, class_index=1)
    row = check.summary.iloc[0]
    assert row["exhaustive"] and row["max_abs_difference"] < 1e-6  # 2**4 - 2 coalitions: KernelSHAP is exact
    assert check.details["class_index"] == 1


@pytest.mark.parametrize("family", ["xgboost", "random_forest", "knn"])
def test_lime_of_one_class_sees_the_shap_output(data, models, family):
    X, _, Xt, _ = data
    res = shap_values(models[family], Xt[:10], X_background=X, class_index=2, background_size=20)
    lime = lime_explanations(models[family], Xt[:10], X, rows=[0, 4], output=res.output, num_samples=300, class_index=2)
    table = compare_lime_shap(lime, res)  # raises when LIME's f(x) differs from SHAP's model output
    assert len(table) == 2 * 4 and lime.details["class_index"] == 2
