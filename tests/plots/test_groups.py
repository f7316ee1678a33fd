"""Figures of a one-hot group as one variable: SHAP bar, beeswarm, dependence, waterfall and force
plots, the 2-D PD with a group (category x numeric, category x category), LIME beside SHAP."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from matplotlib.colors import to_hex  # noqa: E402

from xaipipe.config import PdIceSettings  # noqa: E402
from xaipipe.explain import pdp  # noqa: E402
from xaipipe.explain.pdp import pd_ice_tables  # noqa: E402
from xaipipe.explain.shapley import global_importance, group_shap_result, shap_values  # noqa: E402
from xaipipe.models.families import make_estimator  # noqa: E402
from xaipipe.plots.pdp import pd_ice_figures, plot_pd_2d  # noqa: E402
from xaipipe.plots.shap import (  # noqa: E402
    plot_shap_bar,
    plot_shap_beeswarm,
    plot_shap_dependence,
    plot_shap_waterfall,
    shap_figures,
    to_explanation,
)
from xaipipe.plots.shap_force import plot_shap_force, save_force_html  # noqa: E402
from xaipipe.plots.style import STYLE_FILE, figure_style, save_figure  # noqa: E402

NAMES = ["Length", "Sex_F", "Sex_I", "Sex_M", "Shell"]
GROUPS = {"Sex": ["Sex_F", "Sex_I", "Sex_M"]}
LEVELS = ("Sex_F", "Sex_I", "Sex_M")


@pytest.fixture(scope="module")
def fitted():
    rng = np.random.default_rng(8)
    n = 260
    level = rng.integers(0, 3, n)
    X = np.column_stack([rng.normal(size=n), np.eye(3)[level], rng.normal(size=n)])
    y = X[:, 0] + np.array([1.0, -2.0, 0.5])[level] + X[:, 4] * (level == 1) + 0.1 * rng.normal(size=n)
    model = make_estimator("gradient_boosting", "regression", {"n_estimators": 40}, random_state=0).fit(
        X[:200], y[:200]
    )
    result = group_shap_result(shap_values(model, X[200:], feature_names=NAMES), GROUPS)
    return model, X, result, level[200:]


def _render(fig, path):
    with figure_style():
        save_figure(fig, path)
    assert path.stat().st_size > 3000


def test_bar_and_beeswarm_name_the_group(fitted, tmp_path):
    _, _, r, level = fitted
    fig = plot_shap_bar(r)
    labels = {t.get_text() for t in fig.axes[0].get_yticklabels()}
    assert "Sex" in labels and not labels & set(LEVELS)
    widths = sorted((p.get_width() for p in fig.axes[0].patches), reverse=True)
    np.testing.assert_allclose(widths, global_importance(r)["mean_abs_shap"], rtol=1e-6)
    _render(fig, tmp_path / "bar.png")
    with figure_style(STYLE_FILE):
        fig = plot_shap_beeswarm(r)
        colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    ax = fig.axes[0]
    ticks = {t.get_text(): y for t, y in zip(ax.get_yticklabels(), ax.get_yticks())}
    assert set(ticks) == {"Length", "Sex", "Shell"}
    # the group's dots: one per row, each coloured by that row's level (matched on the SHAP value)
    (dots,) = [
        c
        for c in ax.collections
        if len(c.get_offsets()) == r.n_rows and np.allclose(c.get_offsets()[:, 1], ticks["Sex"], atol=0.45)
    ]
    drawn = sorted(zip(np.asarray(dots.get_offsets())[:, 0], (to_hex(c) for c in dots.get_facecolors())))
    want = sorted(zip(r.values[:, 1], (to_hex(colours[k]) for k in level)))
    assert drawn == want
    legend = [t.get_text().strip() for t in ax.get_legend().get_texts()]
    assert legend == ["Sex", *LEVELS]
    _render(fig, tmp_path / "beeswarm.png")


def test_beeswarm_with_the_group_below_other_rows(fitted, tmp_path):
    # shap draws the rows bottom-up; an uncoloured row drawn before coloured ones broke shap 0.51
    _, _, r, level = fitted
    small = dataclasses.replace(r, values=r.values * np.array([1.0, 0.01, 1.0]))
    with figure_style(STYLE_FILE):
        fig = plot_shap_beeswarm(small)
        colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()][0] == "Sex"  # the bottom row
    faces = {
        to_hex(c)
        for coll in ax.collections
        if len(coll.get_offsets()) == r.n_rows and np.allclose(coll.get_offsets()[:, 1], 0.0, atol=0.45)
        for c in coll.get_facecolors()
    }
    assert faces == {to_hex(colours[k]) for k in set(level)}
    _render(fig, tmp_path / "beeswarm_low.png")


def test_beeswarm_legend_has_one_line_per_group(fitted, tmp_path):
    model, X, _, _ = fitted
    rng = np.random.default_rng(2)
    big = rng.integers(0, 2, len(X))
    Xb = np.column_stack([X, np.eye(2)[big]])
    y = model.predict(X) + 1.5 * big
    two = make_estimator("gradient_boosting", "regression", {"n_estimators": 30}, random_state=0).fit(Xb, y)
    names = NAMES + ["big_no", "big_yes"]
    r = group_shap_result(shap_values(two, Xb[:40], feature_names=names), {**GROUPS, "big": ["big_no", "big_yes"]})
    with figure_style(STYLE_FILE):
        fig = plot_shap_beeswarm(r)
    legend = fig.axes[0].get_legend()
    # column by column: the group names, then the first levels, ... (a blank pads the shorter line)
    texts = [t.get_text() for t in legend.get_texts()]
    assert texts == ["Sex", "big", "Sex_F", "big_no", "Sex_I", "big_yes", "Sex_M", ""]
    assert legend._ncols == 4
    _render(fig, tmp_path / "beeswarm_two_groups.png")


def test_dependence_of_the_group_has_its_levels_on_x(fitted, tmp_path):
    _, _, r, level = fitted
    fig = plot_shap_dependence(r, ["Sex", "Shell"], interaction_feature="auto")
    main = [ax for ax in fig.axes if ax.get_ylabel().startswith("SHAP value of")]
    assert [ax.get_xlabel() for ax in main] == ["Sex", "Shell"]
    assert main[0].get_ylabel() == "SHAP value of Sex"
    ticks = {t.get_text(): x for t, x in zip(main[0].get_xticklabels(), main[0].get_xticks())}
    assert ticks == {name: float(k) for k, name in enumerate(LEVELS)}  # each label at its level code
    # the y of the group panel: the group's SHAP values; x: the level codes up to shap's jitter
    xy = np.vstack([c.get_offsets() for c in main[0].collections if len(c.get_offsets()) == r.n_rows])
    np.testing.assert_allclose(np.sort(xy[:, 1]), np.sort(r.values[:, 1]))
    assert np.all(np.abs(xy[:, 0] - np.round(xy[:, 0])) < 0.5)
    _render(fig, tmp_path / "dependence.png")
    # coloured by the group: shap's categorical colour bar names the levels
    fig = plot_shap_dependence(r, "Shell", interaction_feature="Sex")
    bars = [ax for ax in fig.axes if ax.get_ylabel() == "Sex"]
    assert len(bars) == 1 and {t.get_text() for t in bars[0].get_yticklabels()} == set(LEVELS)
    _render(fig, tmp_path / "dependence_by_sex.png")


def test_waterfall_and_force_name_the_level(fitted, tmp_path):
    _, _, r, level = fitted
    fig = plot_shap_waterfall(r, 0)
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert f"{LEVELS[level[0]]} = Sex" in labels
    _render(fig, tmp_path / "waterfall.png")
    fig = plot_shap_force(r, 0, contribution_threshold=0.0)
    texts = [t.get_text() for ax in fig.axes for t in ax.texts]
    assert f"Sex = {LEVELS[level[0]]}" in texts
    _render(fig, tmp_path / "force.png")
    save_force_html(r, tmp_path / "force.html")
    html = (tmp_path / "force.html").read_text()
    assert '"featureNames": ["Length", "Sex", "Shell"]' in html and f'"value": "{LEVELS[level[0]]}"' in html
    e = to_explanation(r)
    np.testing.assert_array_equal(e.data, r.data)
    assert list(e.display_data[:, 1]) == [LEVELS[k] for k in level]
    figs = shap_figures(r, top_k=2, title="t")
    assert set(figs) == {"bar", "beeswarm", "dependence", "waterfall_high", "waterfall_low", "waterfall_near_base"}
    plt.close("all")


def test_pd_2d_category_by_numeric_draws_one_curve_per_level(fitted, tmp_path):
    model, X, _, _ = fitted
    pair = pdp.explain_pair(model, X, ("Shell", "Sex"), feature_names=NAMES, feature_groups=GROUPS, resolution=7)
    with figure_style():
        fig = plot_pd_2d(pdp.pair_table(pair), title="PD")
    ax = fig.axes[0]
    assert ax.get_xlabel() == "Shell" and ax.get_ylabel().startswith("PD (")
    assert ax.get_legend().get_title().get_text() == "Sex"
    assert [t.get_text() for t in ax.get_legend().get_texts()] == list(LEVELS)
    lines = [ln for ln in ax.lines if ln.get_label() in LEVELS]
    assert len(lines) == 3
    for k, ln in enumerate(lines):
        np.testing.assert_allclose(ln.get_xdata(), pair.values_1)
        np.testing.assert_allclose(ln.get_ydata(), pair.pd[:, k])  # pd[shell, level]
    _render(fig, tmp_path / "pd2d_levels.png")


def test_pd_2d_category_by_category_heat_map(fitted, tmp_path):
    model, X, _, _ = fitted
    Xb = np.column_stack([X, (X[:, 0] > 0).astype(float), (X[:, 0] <= 0).astype(float)])
    names = NAMES + ["big_yes", "big_no"]
    groups = {**GROUPS, "big": ["big_yes", "big_no"]}

    def f(Z):
        return model.predict(Z[:, :5]) + 2.0 * Z[:, 5]

    pair = pdp.explain_pair(f, Xb, ("Sex", "big"), feature_names=names, feature_groups=groups)
    with figure_style():
        fig = plot_pd_2d(pair)
    ax = fig.axes[0]
    assert ax.get_xlabel() == "Sex" and ax.get_ylabel() == "big"
    assert [t.get_text() for t in ax.get_xticklabels()] == list(LEVELS)
    assert [t.get_text() for t in ax.get_yticklabels()] == ["big_yes", "big_no"]
    np.testing.assert_allclose(ax.images[0].get_array(), pair.pd.T)
    assert {t.get_text() for t in ax.texts} == {f"{v:.3g}" for v in pair.pd.ravel()}
    _render(fig, tmp_path / "pd2d_heat.png")


def _split(X):
    """The test rows ``X`` of the pd_ice entry (the model's own output: a "classification" task
    with classification_output "auto")."""
    return SimpleNamespace(
        X_test=X, features=NAMES, feature_groups=GROUPS, test_rows=None, task="classification", classes=None
    )


def _pd_settings(**fields):
    return PdIceSettings(
        task="classification",
        seed=0,
        resolution=6,
        smooth=0,
        max_batch_rows=100_000,
        classification_output="auto",
        large_data=None,
        **fields,
    )


def test_pd_figures_rule_draws_the_group_pair(fitted, tmp_path):
    model, X, _, _ = fitted
    curves, pairs = pd_ice_tables(model, _split(X), _pd_settings(pair_resolution=5), top=["Sex", "Shell"])
    assert not pairs.empty and set(pairs["feature_1"]) == {"Sex"}
    path = tmp_path / "pd_2d.csv"
    pairs.to_csv(path, index=False)
    with figure_style():
        figs = pd_ice_figures(curves, pd.read_csv(path, keep_default_na=False, na_values=[""]))
    ax = figs["pd_2d"].axes[0]
    assert ax.get_xlabel() == "Shell" and [t.get_text() for t in ax.get_legend().get_texts()] == list(LEVELS)
    plt.close("all")


def test_thesis_pd_figure_of_a_group_names_its_levels(fitted, tmp_path):
    from xaipipe.report.thesis import render_figure

    model, X, _, _ = fitted
    curves, _ = pd_ice_tables(model, _split(X), _pd_settings(pair_resolution=3), top=["Sex", "Shell"])
    path = tmp_path / "pd_ice.csv"
    curves.to_csv(path, index=False)
    with figure_style():
        fig = render_figure({"kind": "pd", "features": ["Sex", "Shell"], "title": "PD"}, {"curves": str(path)})
    group_ax, numeric_ax = fig.axes
    assert [t.get_text() for t in group_ax.get_xticklabels()] == list(LEVELS)
    effect = pdp.explain_feature(model, X, "Sex", feature_names=NAMES, feature_groups=GROUPS)
    np.testing.assert_allclose(group_ax.lines[0].get_ydata(), effect.pd, rtol=1e-12)
    assert numeric_ax.get_xlabel() == "Shell" and len(numeric_ax.lines[0].get_xdata()) == 6
    plt.close("all")
