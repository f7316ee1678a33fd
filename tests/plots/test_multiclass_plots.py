"""Figures of multiclass models: PD of every class or of one, one-vs-rest ROC / PR, SHAP of one class
and the stacked bar, the comparison figures."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from sklearn.datasets import make_classification  # noqa: E402
from sklearn.metrics import average_precision_score, roc_auc_score  # noqa: E402

from xaipipe.config import CVSettings, PdIceSettings, ShapSettings  # noqa: E402
from xaipipe.explain.pdp import pd_ice_tables  # noqa: E402
from xaipipe.explain.shapley import shap_tables  # noqa: E402
from xaipipe.models.comparison import comparison_tables  # noqa: E402
from xaipipe.models.families import make_estimator  # noqa: E402
from xaipipe.models.fitting import fit_best  # noqa: E402
from xaipipe.plots.comparison import COMPARISON_FIGURES, comparison_figures  # noqa: E402
from xaipipe.plots.curves import plot_ovr_curves  # noqa: E402
from xaipipe.plots.pdp import pd_ice_figures  # noqa: E402
from xaipipe.plots.shap import shap_figures  # noqa: E402

CLASSES = ["a", "b", "c"]


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(n_samples=240, n_features=4, n_informative=3, n_redundant=0, n_classes=3, random_state=5)
    return X[:180], y[:180], X[180:], y[180:]


@pytest.fixture(scope="module")
def model(data):
    X, y, _, _ = data
    return make_estimator("gradient_boosting", "classification", {"n_estimators": 8}, random_state=0).fit(X, y)


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


def test_pd_figures_of_every_class_and_of_one(data, model):
    _, _, Xt, _ = data
    split = SimpleNamespace(
        X_test=Xt, features=["f0", "f1", "f2", "f3"], feature_groups=None, test_rows=None, task="classification"
    )
    split.classes = CLASSES
    settings = PdIceSettings(
        task="classification",
        seed=0,
        resolution=5,
        smooth=0,
        pair_resolution=3,
        max_batch_rows=100_000,
        classification_output="auto",
        large_data=None,
    )
    curves, pairs = pd_ice_tables(model, split, settings, top=["f0", "f1"])
    every = pd_ice_figures(curves, pairs)
    assert set(every) == {"ice", "c_ice", "d_ice", "pd_2d"}
    ax = every["ice"].axes[0]
    assert [line.get_label() for line in ax.get_lines()][:3] == CLASSES  # one PD line per class
    assert len(every["pd_2d"].axes) == 3 + 1  # a panel per class and the colour bar
    one = pd_ice_figures(curves, pairs, figure_class="b")
    assert "class b" in one["ice"]._suptitle.get_text()
    with pytest.raises(ValueError, match="explain.figure_class"):
        pd_ice_figures(curves, pairs, figure_class="z")


def test_ovr_curves_report_sklearns_auc_and_ap(data, model):
    _, _, Xt, yt = data
    P = model.predict_proba(Xt)
    fig = plot_ovr_curves({"gb": (yt, P)}, kind="roc", classes=CLASSES)
    for k, ax in enumerate(fig.axes[:3]):
        label = [t.get_text() for t in ax.get_legend().get_texts()][0]
        assert f"{roc_auc_score(yt == k, P[:, k]):.2f}" in label
    fig = plot_ovr_curves({"gb": (yt, P)}, kind="precision_recall", classes=CLASSES)
    label = [t.get_text() for t in fig.axes[2].get_legend().get_texts()][0]
    assert f"{average_precision_score(yt == 2, P[:, 2]):.2f}" in label
    with pytest.raises(ValueError, match="K > 2"):
        plot_ovr_curves({"gb": (yt, P[:, :2])})


def test_shap_figures_of_a_multiclass_result(data, model):
    X, _, Xt, _ = data
    split = SimpleNamespace(
        X_test=Xt,
        X_train=X,
        test_rows=np.arange(len(Xt)),
        features=["f0", "f1", "f2", "f3"],
        feature_groups=None,
        classes=CLASSES,
        dataset="d",
    )
    settings = ShapSettings(
        family="gradient_boosting", seed=0, max_rows=12, max_rows_random_forest=None, background_size=None
    )
    out = shap_tables(model, split, replace(settings, large_data=None))
    figs = shap_figures(out.result, title="d / gb")
    assert set(figs) == {"bar", "beeswarm", "dependence", "waterfall_high", "waterfall_low", "waterfall_near_base"}
    bar = figs["bar"].axes[0]
    assert [t.get_text() for t in bar.get_legend().get_texts()] == CLASSES  # stacked: every class
    assert "class a" in figs["beeswarm"].axes[0].get_title() or "class a" in figs["beeswarm"]._suptitle.get_text()
    one = shap_figures(out.result, title="d / gb", figure_class="c")
    assert one["bar"].axes[0].get_legend() is None  # one class: shap's own bar plot


def test_comparison_figures_of_multiclass_predictions(data):
    X, y, Xt, yt = data
    preds = {}
    for family, params in (("logistic_regression", {"C": 1.0}), ("xgboost", {"n_estimators": 5})):
        split = SimpleNamespace(X_train=X, y_train=y, X_test=Xt, y_test=yt, test_rows=np.arange(len(yt)), dataset="")
        settings = CVSettings(task="classification", family=family, seed=0, beta=1.0)
        preds[family] = fit_best(split, settings, params)[2]
    pairs, test_loss = comparison_tables(preds, dataset="d", n_bootstrap=50, random_state=0)
    figs = comparison_figures(preds, pairs, test_loss, n_bootstrap=50, random_state=0, dataset="d", classes=CLASSES)
    assert tuple(figs) == COMPARISON_FIGURES["classification"]
    assert len([ax for ax in figs["roc"].axes if ax.get_legend() is not None]) == 3  # one panel per class
