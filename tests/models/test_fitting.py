"""fit_group (the one fitter of CV, refits and bootstrap) and fit_best (the ``fit`` rule)
against scikit-learn fitted directly."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_diabetes
from sklearn.ensemble import GradientBoostingRegressor, RandomForestClassifier
from sklearn.metrics import confusion_matrix, log_loss, mean_squared_error

from xaipipe.config import CVSettings
from xaipipe.models.families import make_estimator
from xaipipe.models.fitting import GroupFit, fit_best, fit_group


@pytest.fixture(scope="module")
def reg():
    X, y = load_diabetes(return_X_y=True)
    return X[:200], y[:200], X[200:260], y[200:260]


@pytest.fixture(scope="module")
def clf():
    X, y = load_breast_cancer(return_X_y=True)
    return X[:300, :8], y[:300], X[300:380, :8], y[300:380]


def _rank_deficient():
    rng = np.random.default_rng(4)
    x = rng.normal(size=(80, 2))
    X = np.column_stack([x, x[:, 0]])  # a repeated column: QDA without shrinkage cannot fit
    return X, (x[:, 0] + 0.5 * rng.normal(size=80) > 0).astype(int)


def test_fit_group_fits_the_largest_n_estimators(reg):
    X, y, Xte, _ = reg
    fit = fit_group("gradient_boosting", "regression", {"max_depth": 2}, X, y, n_estimators=[3, 10, 5], random_state=4)
    assert isinstance(fit, GroupFit) and fit.ok and fit.message == "" and fit.fit_time_s > 0
    assert fit.estimator.n_estimators == 10 and fit.estimator.n_estimators_ == 10
    ref = GradientBoostingRegressor(n_estimators=10, max_depth=2, random_state=4).fit(X, y)
    np.testing.assert_array_equal(fit.estimator.predict(Xte), ref.predict(Xte))  # bitwise scikit-learn's fit
    # without n_estimators the configuration is fitted as given
    one = fit_group("gradient_boosting", "regression", {"max_depth": 2, "n_estimators": 7}, X, y, random_state=4)
    assert one.estimator.n_estimators == 7


def test_fit_group_options_and_threads(clf):
    X, y, Xte, _ = clf
    fit = fit_group(
        "random_forest",
        "classification",
        {"n_estimators": 5},
        X,
        y,
        random_state=1,
        options={"max_depth": 3, "n_estimators": 50},
        n_jobs=2,
    )
    est = fit.estimator
    assert est.max_depth == 3 and est.n_estimators == 5 and est.n_jobs == 2  # grid values win over options
    ref = RandomForestClassifier(n_estimators=5, max_depth=3, random_state=1).fit(X, y)
    est.set_params(n_jobs=1)  # scikit-learn's threaded predict_proba adds the trees in any order
    np.testing.assert_array_equal(est.predict_proba(Xte), ref.predict_proba(Xte))


def test_fit_group_linalg_error_becomes_a_message():
    X, y = _rank_deficient()
    fit = fit_group("qda", "classification", {"reg_param": 0.0}, X, y, random_state=0)
    assert fit.estimator is None and not fit.ok and fit.fit_time_s >= 0
    assert fit.message.startswith("LinAlgError: ") and "not full rank" in fit.message
    assert fit_group("qda", "classification", {"reg_param": 0.5}, X, y, random_state=0).ok
    with pytest.raises(ValueError):  # any other failure propagates
        fit_group("gradient_boosting", "regression", {"max_depth": -1}, X, y.astype(float), random_state=0)
    with pytest.raises(KeyError):
        fit_group("svm", "regression", {}, X, y, random_state=0)


def test_fit_best_regression(reg):
    X, y, Xte, yte = reg
    rows = np.arange(200, 260) * 3  # positions in prepared.csv
    split = SimpleNamespace(X_train=X, y_train=y, X_test=Xte, y_test=yte, test_rows=rows, dataset="diabetes")
    settings = CVSettings(family="random_forest", seed=2)
    est, record, pred = fit_best(split, settings, {"n_estimators": 6, "max_depth": 4}, n_jobs=2)
    assert est.n_jobs == 1  # the saved model predicts bitwise reproducibly
    ref = make_estimator("random_forest", "regression", {"n_estimators": 6, "max_depth": 4}, random_state=2).fit(X, y)
    np.testing.assert_array_equal(est.predict(Xte), ref.predict(Xte))
    assert {k: record[k] for k in ("dataset", "task", "model", "n_train", "n_test")} == {
        "dataset": "diabetes",
        "task": "regression",
        "model": "random_forest",
        "n_train": 200,
        "n_test": 60,
    }
    assert record["params"] == {"n_estimators": 6, "max_depth": 4} and record["fit_time_s"] > 0
    assert record["metrics"]["rmse"] == pytest.approx(np.sqrt(mean_squared_error(yte, ref.predict(Xte))), rel=1e-12)
    assert list(pred.columns) == ["row", "y_true", "y_pred"]
    np.testing.assert_array_equal(pred["row"], rows)
    np.testing.assert_array_equal(pred["y_true"], yte)
    np.testing.assert_array_equal(pred["y_pred"], ref.predict(Xte))


def test_fit_best_classification(clf):
    X, y, Xte, yte = clf
    split = SimpleNamespace(X_train=X, y_train=y, X_test=Xte, y_test=yte, test_rows=np.arange(len(yte)), dataset="")
    settings = CVSettings(task="classification", family="logistic_regression", seed=0, beta=1.0)
    est, record, pred = fit_best(split, settings, {"C": 0.5})
    proba = est.predict_proba(Xte)
    assert list(pred.columns) == ["row", "y_true", "proba_1", "y_pred"]
    np.testing.assert_array_equal(pred["proba_1"], proba[:, 1])
    np.testing.assert_array_equal(pred["y_pred"], proba.argmax(axis=1))
    m = record["metrics"]
    assert m["log_loss"] == pytest.approx(log_loss(yte, proba), rel=1e-12)
    tn, fp, fn, tp = confusion_matrix(yte, proba.argmax(axis=1), labels=[0, 1]).ravel()
    assert (m["tn"], m["fp"], m["fn"], m["tp"]) == (tn, fp, fn, tp)
    Xd, yd = _rank_deficient()
    with pytest.raises(np.linalg.LinAlgError):
        rank_deficient = SimpleNamespace(
            X_train=Xd, y_train=yd, X_test=Xd, y_test=yd, test_rows=np.arange(80), dataset=""
        )
        fit_best(rank_deficient, replace(settings, family="qda"), {"reg_param": 0.0})


def test_fit_best_takes_the_fit_rules_cv_settings(clf):
    """fit_best(data, CVSettings, params): the settings of the config (rule ``fit``'s params.cv)
    give the fit its estimator_options and seed and the test metrics metrics.beta -- against
    scikit-learn's estimator and fbeta_score; a FitResult whose to_frame() is the predictions."""
    from pathlib import Path
    from types import SimpleNamespace

    import yaml
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.metrics import fbeta_score

    from xaipipe.models.fitting import FitResult
    from xaipipe.schema import validate_config

    repo = Path(__file__).resolve().parents[2]
    config = yaml.safe_load((repo / "config" / "config.yaml").read_text())
    config = validate_config(config, repo / "workflow" / "schemas" / "config.schema.yaml") or config
    config["metrics"]["beta"] = 2.0
    config["seed"] = 7
    config["estimator_options"]["random_forest"] = {"max_features": 1}
    settings = CVSettings.from_params(CVSettings.from_config(config, "classification", "random_forest").to_params())
    X, y, Xte, yte = clf
    data = SimpleNamespace(
        X_train=X, y_train=y, X_test=Xte, y_test=yte, test_rows=np.arange(len(yte)) + 100, dataset="d"
    )
    out = fit_best(data, settings, {"n_estimators": 5, "max_depth": 3})
    assert isinstance(out, FitResult) and out.to_frame() is out.predictions
    ref = RandomForestClassifier(n_estimators=5, max_depth=3, max_features=1, random_state=7).fit(X, y)
    np.testing.assert_array_equal(out.predictions["proba_1"], ref.predict_proba(Xte)[:, 1])
    assert out.model.get_params()["max_features"] == 1 and out.model.get_params()["random_state"] == 7
    assert out.record["dataset"] == "d" and out.record["model"] == "random_forest"
    assert out.record["metrics"]["f_beta"] == pytest.approx(fbeta_score(yte, ref.predict(Xte), beta=2.0), rel=1e-12)
    np.testing.assert_array_equal(out.predictions["row"], np.arange(len(yte)) + 100)
