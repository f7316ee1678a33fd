"""model_output: every output against the estimator's own predict / predict_proba /
decision_function; exact log-odds (logistic regression, naive Bayes, QDA) against
their definitions, the clipped logit otherwise."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.special import logit as sp_logit
from sklearn.datasets import load_breast_cancer, load_diabetes, load_iris
from sklearn.linear_model import LinearRegression

from xaipipe.models.families import final_estimator, make_estimator
from xaipipe.models.output import LOGIT_EPS, OUTPUTS, logit, model_output


@pytest.fixture(scope="module")
def clf():
    X, y = load_breast_cancer(return_X_y=True)
    X = X[:, :6]
    return X[:300], y[:300], X[300:]


@pytest.fixture(scope="module")
def reg():
    X, y = load_diabetes(return_X_y=True)
    return X[:300], y[:300], X[300:]


def _fit(family, task, data, params=None):
    X, y, _ = data
    return make_estimator(family, task, params or {}, random_state=0).fit(X, y)


@pytest.mark.parametrize(
    "family", ["linear_regression", "decision_tree", "random_forest", "gradient_boosting", "xgboost"]
)
def test_regressor_outputs(family, reg):
    model = _fit(
        family, "regression", reg, {} if family in ("linear_regression", "decision_tree") else {"n_estimators": 5}
    )
    X = reg[2]
    np.testing.assert_array_equal(model_output(model)(X), model.predict(X))
    np.testing.assert_array_equal(model_output(model, "predict")(X), model.predict(X))
    assert model_output(model)(X).dtype == model.predict(X).dtype  # what the model returns (float32 for XGBoost)
    if family == "linear_regression":
        with pytest.raises(ValueError, match="needs predict_proba"):
            model_output(model, "proba")
        with pytest.raises(ValueError, match="needs predict_proba"):
            model_output(model, "logit")


@pytest.mark.parametrize(
    "family",
    [
        "logistic_regression",
        "decision_tree",
        "random_forest",
        "gradient_boosting",
        "xgboost",
        "gaussian_nb",
        "qda",
        "knn",
    ],
)
def test_classifier_probability_outputs(family, clf):
    params = {"n_estimators": 5} if family in ("random_forest", "gradient_boosting", "xgboost") else {}
    if family == "qda":
        params = {"reg_param": 0.1}  # radius, perimeter and area are nearly collinear
    model = _fit(family, "classification", clf, params)
    X = clf[2]
    proba = model.predict_proba(X)
    np.testing.assert_array_equal(model_output(model)(X), proba)
    np.testing.assert_array_equal(model_output(model, "predict_proba")(X), proba)
    p1 = model_output(model, "proba")(X)
    assert p1.dtype == np.float64 and p1.shape == (len(X),)
    np.testing.assert_array_equal(p1, np.asarray(proba[:, 1], dtype=np.float64))
    np.testing.assert_array_equal(model_output(model, "proba", class_index=0)(X), np.asarray(proba[:, 0], float))
    with pytest.raises(ValueError, match="class labels"):
        model_output(model, "predict")
    with pytest.raises(ValueError, match="class_index=2"):
        model_output(model, "proba", class_index=2)(X)


@pytest.mark.parametrize("family", ["logistic_regression", "gaussian_nb", "qda"])
def test_exact_log_odds(family, clf):
    Xtr, ytr, X = clf
    model = _fit(
        family,
        "classification",
        clf,
        {"C": 10.0} if family == "logistic_regression" else {"reg_param": 0.1} if family == "qda" else {},
    )
    f = model_output(model, "logit")
    got = f(X)
    est = final_estimator(model)
    if family == "logistic_regression":
        Z = model[:-1].transform(X)
        expected = Z @ est.coef_[0] + est.intercept_[0]  # the linear predictor
        assert f.source == "decision_function"
    elif family == "gaussian_nb":
        # the class-conditional normal log densities plus the log priors (Hastie et al. 2009, eq. 6.33)
        jll = [
            np.log(est.class_prior_[k])
            - 0.5 * np.sum(np.log(2 * np.pi * est.var_[k]))
            - 0.5 * np.sum((X - est.theta_[k]) ** 2 / est.var_[k], axis=1)
            for k in (0, 1)
        ]
        expected = jll[1] - jll[0]
        assert f.source == "joint_log_likelihood"
    else:
        Z = model[:-1].transform(X)
        log_post = []
        for k in (0, 1):  # log pi_k - 0.5 log|Sigma_k| - 0.5 Mahalanobis^2 (the common constant cancels)
            S = est.scalings_[k]
            R = est.rotations_[k]
            maha = np.sum(((Z - est.means_[k]) @ R / np.sqrt(S)) ** 2, axis=1)
            log_post.append(np.log(est.priors_[k]) - 0.5 * np.sum(np.log(S)) - 0.5 * maha)
        expected = log_post[1] - log_post[0]
        assert f.source == "decision_function"
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-9)
    # unclipped: beyond the clipping bound where the model is that sure
    bound = sp_logit(1 - LOGIT_EPS)
    assert np.abs(got).max() > bound
    clipped = model_output(model, "logit", exact_log_odds=False)(X)
    assert np.abs(clipped).max() <= bound + 1e-9
    p = np.clip(model.predict_proba(X)[:, 1], LOGIT_EPS, 1 - LOGIT_EPS)
    np.testing.assert_allclose(clipped, np.log(p) - np.log1p(-p), rtol=1e-12)
    moderate = np.abs(got) < 10  # where the probabilities are not clipped both agree
    np.testing.assert_allclose(clipped[moderate], got[moderate], rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("family", ["decision_tree", "random_forest", "gradient_boosting", "xgboost", "knn"])
def test_clipped_logit_otherwise(family, clf):
    params = {"n_estimators": 5} if family in ("random_forest", "gradient_boosting", "xgboost") else {}
    model = _fit(family, "classification", clf, params)
    X = clf[2]
    f = model_output(model, "logit")
    assert not hasattr(f, "source")
    p = np.clip(np.asarray(model.predict_proba(X)[:, 1], dtype=np.float64), LOGIT_EPS, 1 - LOGIT_EPS)
    np.testing.assert_array_equal(f(X), logit(p))
    np.testing.assert_allclose(f(X), sp_logit(p), rtol=1e-10)
    g = model_output(model, "logit", clip=0.01)(X)
    assert np.abs(g).max() <= sp_logit(0.99) + 1e-12


def test_multiclass_logit_is_clipped_one_vs_rest():
    X, y = load_iris(return_X_y=True)
    model = make_estimator("logistic_regression", "classification", {}, random_state=0).fit(X, y)
    f = model_output(model, "logit", class_index=2)
    p = np.clip(model.predict_proba(X)[:, 2], LOGIT_EPS, 1 - LOGIT_EPS)
    np.testing.assert_array_equal(f(X), logit(p))  # no exact log-odds for more than two classes


def test_named_columns_and_errors(reg):
    Xtr, ytr, X = reg
    names = [f"c{i}" for i in range(Xtr.shape[1])]
    model = LinearRegression().fit(pd.DataFrame(Xtr, columns=names), ytr)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an ndarray is given the fitted column names
        out = model_output(model)(X)
    np.testing.assert_array_equal(out, model.predict(pd.DataFrame(X, columns=names)))
    with pytest.raises(ValueError, match="output must be one of"):
        model_output(model, "margin")
    with pytest.raises(TypeError, match="fitted estimator with predict"):
        model_output(object())
    assert OUTPUTS == ("auto", "predict", "predict_proba", "proba", "logit")
