"""Smoke and content tests of the SHAP figures (000 Figs 4.3-4.8)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from xaipipe.explain.shapley import global_importance, shap_values  # noqa: E402
from xaipipe.models.families import make_estimator  # noqa: E402
from xaipipe.plots.shap import (  # noqa: E402
    interaction_partner,
    local_rows,
    plot_shap_bar,
    plot_shap_beeswarm,
    plot_shap_dependence,
    plot_shap_local,
    plot_shap_waterfall,
    to_explanation,
)
from xaipipe.plots.style import figure_style, save_figure  # noqa: E402

NAMES = ["alpha", "beta", "gamma", "delta", "eps", "zeta"]


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(400, len(NAMES)))
    # one strong interaction: gamma * delta
    y = X[:, 0] + 0.5 * X[:, 1] + 3 * X[:, 2] * X[:, 3] + 0.1 * rng.normal(size=400)
    return X[:300], y[:300], X[300:]


@pytest.fixture(scope="module")
def xgb_result(data):
    Xtr, ytr, Xte = data
    model = make_estimator("xgboost", "regression", {"n_estimators": 60, "max_depth": 3}, random_state=0).fit(Xtr, ytr)
    return model, shap_values(model, Xte, feature_names=NAMES, interactions=True)


@pytest.fixture(scope="module")
def gbm_result(data):
    Xtr, ytr, Xte = data
    model = make_estimator("gradient_boosting", "regression", {"n_estimators": 60}, random_state=0).fit(Xtr, ytr)
    return model, shap_values(model, Xte, feature_names=NAMES)


def _save(fig, tmp_path, name):
    assert isinstance(fig, Figure)
    path = tmp_path / f"{name}.png"
    with figure_style():
        save_figure(fig, path)
    assert path.stat().st_size > 5000
    return path


def test_to_explanation(xgb_result):
    _, r = xgb_result
    e = to_explanation(r)
    np.testing.assert_array_equal(e.values, r.values)
    np.testing.assert_array_equal(e.base_values, r.base_values)
    np.testing.assert_array_equal(e.data, r.data)
    assert list(e.feature_names) == NAMES


def test_local_rows_follow_model_output(xgb_result, data):
    model, r = xgb_result
    pred = model.predict(data[2])  # independent of the SHAP values
    rows = local_rows(r)
    assert rows["high"] == int(np.argmax(pred)) and rows["low"] == int(np.argmin(pred))
    assert rows["near_base"] == int(np.argmin(np.abs(pred - r.base_values[0])))
    assert pred[rows["low"]] < r.base_values[0] < pred[rows["high"]]


def test_interaction_partner(xgb_result, gbm_result):
    # exact interaction values (XGBoost) and shap's heuristic (GBM) both find gamma <-> delta
    assert interaction_partner(xgb_result[1], "gamma") == "delta"
    assert interaction_partner(xgb_result[1], 3) == "gamma"
    assert gbm_result[1].interaction_values is None
    assert interaction_partner(gbm_result[1], "gamma") == "delta"
    assert interaction_partner(gbm_result[1], "delta") == "gamma"
    with pytest.raises(ValueError, match="unknown feature"):
        interaction_partner(gbm_result[1], "omega")


def test_bar_plot_shows_mean_abs_shap(xgb_result, tmp_path):
    _, r = xgb_result
    fig = plot_shap_bar(r, max_display=len(NAMES), title="bar")
    ax = fig.axes[0]
    widths = sorted((p.get_width() for p in ax.patches), reverse=True)
    np.testing.assert_allclose(widths, global_importance(r)["mean_abs_shap"], rtol=1e-6)
    assert "prediction" in ax.get_xlabel()
    _save(fig, tmp_path, "bar")


def test_beeswarm_orders_features_by_importance(gbm_result, tmp_path):
    _, r = gbm_result
    fig = plot_shap_beeswarm(r, max_display=4)
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_yticklabels()]
    top = list(global_importance(r)["feature"][:3])
    assert labels[-3:][::-1] == top  # most important at the top
    assert labels[0].startswith("Sum of 3 other")
    _save(fig, tmp_path, "beeswarm")


def test_dependence_plot_coloured_by_partner(xgb_result, tmp_path):
    _, r = xgb_result
    fig = plot_shap_dependence(r, ["gamma", "alpha"])
    main = [ax for ax in fig.axes if ax.get_ylabel().startswith("SHAP value of")]
    assert [ax.get_xlabel() for ax in main] == ["gamma", "alpha"]
    colour_labels = {ax.get_ylabel() for ax in fig.axes} - {ax.get_ylabel() for ax in main}
    assert "delta" in colour_labels  # colour bar of the gamma panel
    _save(fig, tmp_path, "dependence")
    fig2 = plot_shap_dependence(r, 0, interaction_feature=None)
    assert len(fig2.axes) >= 1
    _save(fig2, tmp_path, "dependence_plain")


def _dot_offsets(fig):
    return [np.asarray(c.get_offsets()).copy() for ax in fig.axes for c in ax.collections if len(c.get_offsets())]


@pytest.mark.parametrize("kind", ["beeswarm", "dependence"])
def test_shap_dot_plots_are_reproducible(xgb_result, tmp_path, kind):
    # shap.plots.beeswarm / scatter shuffle (and jitter) the dots with NumPy's global random
    # state; unseeded, two drawings of one result differed and every rerun rewrote the figure
    _, r = xgb_result

    def draw(**kw):
        if kind == "beeswarm":
            return plot_shap_beeswarm(r, max_display=4, **kw)
        return plot_shap_dependence(r, ["gamma", "alpha"], **kw)

    np.random.seed(123)
    before = np.random.get_state()
    first, second, other = draw(), draw(), draw(random_state=1)
    after = np.random.get_state()
    assert before[0] == after[0] and np.array_equal(before[1], after[1]) and before[2:] == after[2:]
    a, b, c = _dot_offsets(first), _dot_offsets(second), _dot_offsets(other)
    assert a and len(a) == len(b) == len(c)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert not all(np.array_equal(x, z) for x, z in zip(a, c))  # the seed is what orders the dots
    paths = []
    for name, fig in [("first", first), ("second", second)]:
        path = tmp_path / f"{kind}_{name}.pdf"
        with figure_style():
            save_figure(fig, path)
        paths.append(path)
    assert paths[0].read_bytes() == paths[1].read_bytes()
    plt.close("all")


def test_waterfall_and_local_plots(xgb_result, tmp_path):
    _, r = xgb_result
    figs = plot_shap_local(r, max_display=5)
    assert set(figs) == {"high", "low", "near_base"}
    rows = local_rows(r)
    for kind, fig in figs.items():
        assert f"row {int(r.row_index[rows[kind]])}" in fig.axes[0].get_title(loc="left")
        _save(fig, tmp_path, f"waterfall_{kind}")
    fig = plot_shap_waterfall(r, 0)
    _save(fig, tmp_path, "waterfall_0")


def test_plot_input_errors(xgb_result):
    _, r = xgb_result
    with pytest.raises(ValueError, match="row"):
        plot_shap_waterfall(r, r.n_rows)
    with pytest.raises(ValueError, match="max_display"):
        plot_shap_bar(r, max_display=0)
    with pytest.raises(ValueError, match="unknown feature"):
        plot_shap_dependence(r, "omega")
    with pytest.raises(TypeError):
        plot_shap_beeswarm(r.values)
    plt.close("all")
