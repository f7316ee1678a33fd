"""Multiclass models: metrics, CV, test predictions, shared prefixes, the paired comparison, the
confusion table -- against scikit-learn's metrics and plain refits."""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from sklearn import metrics as skm
from sklearn.datasets import make_classification

from xaipipe.config import CVSettings
from xaipipe.models.comparison import (
    class_probabilities,
    compare_families,
    reject_option_curves,
    row_losses,
)
from xaipipe.models.cv import cross_validate_grid
from xaipipe.models.families import make_estimator
from xaipipe.models.fitting import fit_best
from xaipipe.models.metrics import CLASSIFICATION_METRICS, classification_metrics, multiclass_metrics
from xaipipe.models.prefix import prefix_predictions
from xaipipe.report import tables


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(n_samples=360, n_features=5, n_informative=4, n_redundant=0, n_classes=4, random_state=0)
    return X[:280], y[:280], X[280:], y[280:]


@pytest.fixture(scope="module")
def proba(data):
    X, y, Xt, yt = data
    model = make_estimator("logistic_regression", "classification", {"C": 1.0}, random_state=0).fit(X, y)
    return yt, model.predict_proba(Xt)


def test_multiclass_metrics_are_sklearns(proba):
    y, P = proba
    out = classification_metrics(y, P, confusion=True, beta=2.0)  # K > 2 columns: the multiclass metrics
    assert set(CLASSIFICATION_METRICS) <= set(out)
    yhat = P.argmax(axis=1)
    labels = [0, 1, 2, 3]
    assert out["log_loss"] == pytest.approx(skm.log_loss(y, P), rel=1e-15)
    assert out["roc_auc"] == pytest.approx(skm.roc_auc_score(y, P, multi_class="ovr", average="macro"), rel=1e-15)
    assert out["brier"] == pytest.approx(np.mean(np.sum((P - np.eye(4)[y]) ** 2, axis=1)), rel=1e-12)
    assert out["error_rate"] == pytest.approx(1 - skm.accuracy_score(y, yhat))
    assert out["balanced_accuracy"] == pytest.approx(skm.balanced_accuracy_score(y, yhat))
    assert out["precision"] == pytest.approx(skm.precision_score(y, yhat, average="macro"))
    assert out["recall"] == pytest.approx(skm.recall_score(y, yhat, average="macro"))
    assert out["f1"] == pytest.approx(skm.f1_score(y, yhat, average="macro"))
    assert out["f_beta"] == pytest.approx(skm.fbeta_score(y, yhat, beta=2.0, average="macro"))
    # specificity of class k = recall of "not k" in the one-vs-rest problem, macro-averaged
    spec = [skm.recall_score(y != k, yhat != k) for k in labels]
    assert out["specificity"] == pytest.approx(np.mean(spec))
    np.testing.assert_array_equal(out["confusion_matrix"], skm.confusion_matrix(y, yhat, labels=labels))
    # a class missing from y_true: AUC undefined, everything else defined
    keep = y != 3
    partial = multiclass_metrics(y[keep], P[keep])
    assert np.isnan(partial["roc_auc"]) and np.isfinite(partial["log_loss"])
    with pytest.raises(ValueError, match="labels must lie in 0..3"):
        multiclass_metrics(np.full(len(y), 4), P)


def test_cv_of_a_multiclass_grid_with_shared_prefixes(data):
    X, y, _, _ = data
    folds = [(np.arange(0, 200), np.arange(200, 280)), (np.arange(80, 280), np.arange(0, 80))]
    table = cross_validate_grid(
        "gradient_boosting", "classification", {"n_estimators": [3, 6]}, X, y, folds, random_state=0
    )
    for (_, row), (train, valid) in zip(table[table.n_estimators == 3].iterrows(), folds):
        plain = make_estimator("gradient_boosting", "classification", {"n_estimators": 3}, random_state=0)
        P = plain.fit(X[train], y[train]).predict_proba(X[valid])
        assert row["log_loss"] == skm.log_loss(y[valid], P, labels=[0, 1, 2, 3])  # bitwise: the exact prefix


@pytest.mark.parametrize(
    "family, params",
    [
        ("random_forest", {"n_estimators": 9}),
        ("extra_trees", {"n_estimators": 9}),
        ("gradient_boosting", {"n_estimators": 9}),
        ("xgboost", {"n_estimators": 9, "max_depth": 3}),
    ],
)
def test_prefix_predictions_are_bitwise_refits(data, family, params):
    X, y, Xt, _ = data
    full = make_estimator(family, "classification", params, random_state=0).fit(X, y)
    got = prefix_predictions(full, Xt, [2, 5, 9])
    assert got.shape == (3, len(Xt), 4)
    for i, k in enumerate([2, 5, 9]):
        ref = make_estimator(family, "classification", dict(params, n_estimators=k), random_state=0).fit(X, y)
        np.testing.assert_array_equal(got[i], ref.predict_proba(Xt))


def _split(data):
    X, y, Xt, yt = data
    return SimpleNamespace(X_train=X, y_train=y, X_test=Xt, y_test=yt, test_rows=np.arange(len(yt)), dataset="")


def _settings(family):
    """The fit rule's settings of a classifier (seed 0, F1 as the f_beta column)."""
    return CVSettings(task="classification", family=family, seed=0, beta=1.0)


def test_fit_best_writes_every_class_probability(data):
    X, y, Xt, yt = data
    model, record, pred = fit_best(_split(data), _settings("xgboost"), {"n_estimators": 5})
    P = class_probabilities(pred)
    np.testing.assert_array_equal(P, model.predict_proba(Xt).astype(float))
    np.testing.assert_array_equal(pred["y_pred"], P.argmax(axis=1))
    assert record["metrics"]["log_loss"] == pytest.approx(skm.log_loss(yt, P))
    assert np.asarray(record["metrics"]["confusion_matrix"]).shape == (4, 4)


def _predictions(data):
    out = {}
    for family, params in (("logistic_regression", {"C": 1.0}), ("gaussian_nb", {})):
        model, _, pred = fit_best(_split(data), _settings(family), params)
        out[family] = pred
    return out


def test_row_losses_and_paired_comparison(data):
    preds = _predictions(data)
    y = preds["gaussian_nb"]["y_true"].to_numpy()
    P = class_probabilities(preds["gaussian_nb"])
    assert row_losses(y, P, "log_loss").mean() == pytest.approx(skm.log_loss(y, P), rel=1e-14)
    table = compare_families(preds, dataset="d", n_bootstrap=300, random_state=1)
    row = table[table.loss == "log_loss"].iloc[0]
    la = row_losses(y, class_probabilities(preds[row.family_a]), "log_loss")
    lb = row_losses(y, class_probabilities(preds[row.family_b]), "log_loss")
    assert row["difference"] == pytest.approx(la.mean() - lb.mean(), rel=1e-12)
    # the paired bootstrap: the same resampled rows for both models (seed 003), by brute force
    idx = np.random.default_rng(1).integers(0, len(y), size=(300, len(y)))
    assert row["se"] == pytest.approx(np.std((la - lb)[idx].mean(axis=1), ddof=1), rel=1e-10)
    curves = reject_option_curves(preds)
    assert curves.loc[curves.risk == 1.0, "error_accepted"].tolist() == [
        float(np.mean(preds[f]["y_pred"] != y)) for f in sorted(preds)
    ]
    with pytest.raises(ValueError, match="labels 0..3"):
        row_losses(np.full(len(y), 5), P, "log_loss")


def test_confusion_table_of_a_multiclass_dataset_beside_a_binary_one(data):
    preds = _predictions(data)
    records = []
    for family, pred in preds.items():
        P = class_probabilities(pred)
        metrics = classification_metrics(pred["y_true"], P, confusion=True)
        records.append(
            {
                "dataset": "multi",
                "task": "classification",
                "model": family,
                "metrics": metrics,
                "n_train": 1,
                "n_test": 2,
            }
        )
    multi = tables.test_metrics_table(records, [])
    assert json.loads(multi["confusion_matrix"].iloc[0]) == records[0]["metrics"]["confusion_matrix"]
    binary = tables.test_metrics_table(
        [
            {
                "dataset": "bin",
                "task": "classification",
                "model": "m",
                "metrics": {"tn": 3, "fp": 1, "fn": 2, "tp": 4},
                "n_train": 1,
                "n_test": 10,
            }
        ],
        [],
    )
    assert "confusion_matrix" not in binary.columns  # a binary table keeps its columns
    _, _, confusion = tables.test_metric_tables([binary, multi])
    assert len(confusion[confusion.dataset == "bin"]) == 4 and len(confusion[confusion.dataset == "multi"]) == 32
    lr = confusion[confusion.model == "logistic_regression"].pivot(
        index="true_class", columns="predicted_class", values="count"
    )
    y = preds["logistic_regression"]["y_true"]
    yhat = preds["logistic_regression"]["y_pred"]
    np.testing.assert_array_equal(lr.to_numpy(), skm.confusion_matrix(y, yhat, labels=[0, 1, 2, 3]))
    assert pd.api.types.is_integer_dtype(confusion["count"])


def test_seven_classes_through_cv_mr_shap_and_the_logit_table():
    """A 7-class generated table, cheaply: CV of two families, MR on the multiclass log loss, SHAP of
    one class and the multinomial logit table, each against its scikit-learn / statsmodels value."""
    import statsmodels.api as sm

    from xaipipe.explain.reliance import model_reliance
    from xaipipe.explain.shapley import shap_values
    from xaipipe.models.mnlogit import mnlogit_inference

    X, y = make_classification(
        n_samples=700,
        n_features=6,
        n_informative=5,
        n_redundant=0,
        n_classes=7,
        n_clusters_per_class=1,
        flip_y=0.1,
        random_state=11,
    )
    folds = [(np.arange(0, 350), np.arange(350, 560)), (np.arange(210, 560), np.arange(0, 210))]
    for family, grid in (("xgboost", {"n_estimators": [4], "max_depth": [2]}), ("logistic_regression", {"C": [1.0]})):
        table = cross_validate_grid(family, "classification", grid, X[:560], y[:560], folds, random_state=0)
        assert (table["status"] == "ok").all() and table["log_loss"].notna().all()
    model = make_estimator("xgboost", "classification", {"n_estimators": 4, "max_depth": 2}, random_state=0)
    model.fit(X[:560], y[:560])
    mr = model_reliance(model, X[560:], y[560:], n_repeats=2, random_state=0)
    assert mr.e_orig[0] == pytest.approx(skm.log_loss(y[560:], model.predict_proba(X[560:]), labels=range(7)), rel=1e-6)
    res = shap_values(model, X[560:570], class_index=6)
    assert np.abs(res.base_values + res.values.sum(axis=1) - res.model_output).max() < 1e-5
    out = mnlogit_inference(X[:560], y[:560], [f"f{j}" for j in range(6)])
    assert len(out) == 6 * 7 and set(out["base_class"]) == {"0"}
    assert (out["separation"] == "none").all() and out["converged"].all()  # flip_y mixes the classes
    Z = (X[:560] - X[:560].mean(axis=0)) / X[:560].std(axis=0)
    ref = sm.MNLogit(y[:560], sm.add_constant(Z)).fit(disp=0, method="newton", maxiter=300)
    np.testing.assert_allclose(out["coefficient"], np.asarray(ref.params).T.ravel(), rtol=1e-5, atol=1e-7)
