"""Rendering of the interaction figures (SHAP interaction matrix and summary, H-statistic)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from xaipipe.explain.pdp import h_statistic  # noqa: E402
from xaipipe.explain.shapley import shap_interaction_summary
from xaipipe.plots.interactions import (  # noqa: E402
    plot_h_statistic,
    plot_shap_interaction_matrix,
    plot_shap_interaction_summary,
)
from xaipipe.plots.style import figure_style, save_figure  # noqa: E402


def _top_label(fig) -> str:
    ax = fig.axes[0]
    ticks = dict(zip(ax.get_yticks(), (t.get_text() for t in ax.get_yticklabels())))
    return ticks[max(ticks)]


def _save(fig, tmp_path, name):
    assert isinstance(fig, Figure)
    with figure_style():
        save_figure(fig, tmp_path / f"{name}.png", tmp_path / f"{name}.pdf")
    assert (tmp_path / f"{name}.png").stat().st_size > 5000


@pytest.fixture(scope="module")
def summary():
    rng = np.random.default_rng(0)
    iv = rng.normal(size=(50, 5, 5))
    iv = (iv + iv.transpose(0, 2, 1)) / 2
    iv[:, 1, 3] = iv[:, 3, 1] = 5 * rng.normal(size=50)  # the strongest pair
    return shap_interaction_summary(iv, ["a", "b", "c", "d", "e"])


def test_interaction_matrix_renders(summary, tmp_path):
    fig = plot_shap_interaction_matrix(summary, max_display=4, title="t")
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert len(labels) == 4 and {"b", "d"} <= set(labels)
    assert np.ma.getmaskarray(ax.images[0].get_array()).sum() == 4  # blank diagonal
    _save(fig, tmp_path, "matrix")
    full = plot_shap_interaction_matrix(summary, include_main_effects=True)
    assert not np.ma.getmaskarray(full.axes[0].images[0].get_array()).any()
    _save(full, tmp_path, "matrix_full")
    with pytest.raises(TypeError):
        plot_shap_interaction_matrix(summary.matrix)
    with pytest.raises(ValueError):
        plot_shap_interaction_matrix(summary, max_display=0)


def test_interaction_summary_renders_from_result_and_table(summary, tmp_path):
    fig = plot_shap_interaction_summary(summary, max_display=3)
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert _top_label(fig) == "b × d" and len(labels) == 3  # strongest on top
    _save(fig, tmp_path, "summary")
    again = plot_shap_interaction_summary(summary.to_frame(), max_display=3)
    assert [t.get_text() for t in again.axes[0].get_yticklabels()] == labels
    with pytest.raises(ValueError):
        plot_shap_interaction_summary(summary.matrix)


def test_h_statistic_renders(tmp_path):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(80, 3))
    r = h_statistic(lambda Z: Z[:, 0] * Z[:, 1] + Z[:, 2], X, n_rows=40, n_bootstrap=10)
    _save(plot_h_statistic(r), tmp_path, "h_total")
    fig = plot_h_statistic(r.to_frame(), kind="pairwise", unnormalised=True)
    assert _top_label(fig) == "x0 × x1"
    _save(fig, tmp_path, "h_pairs")
    with pytest.raises(ValueError):
        plot_h_statistic(r, kind="three_way")


def test_h2_above_one_is_hatched_with_the_reason(tmp_path):
    """H² > 1 (computed from the value itself) is flagged in the figure: hatched bar and a note that it
    inherits PD's extrapolation under correlated features; values <= 1 are drawn as before."""
    import pandas as pd

    from xaipipe.plots.interactions import H2_ABOVE_ONE_COLOUR, H2_ABOVE_ONE_NOTE

    table = pd.DataFrame(
        {
            "kind": ["pairwise"] * 3,
            "feature": ["a:b", "a:c", "b:c"],
            "feature_1": ["a", "a", "b"],
            "feature_2": ["b", "c", "c"],
            "h2": [1.12, 0.4, 0.05],
            "h2_se": [0.19, 0.05, 0.01],
            "n_rows": 300,
        }
    )
    fig = plot_h_statistic(table, kind="pairwise")
    bars = fig.axes[0].patches
    flagged = [b for b in bars if b.get_hatch()]
    assert len(flagged) == 1 and np.isclose(flagged[0].get_width(), 1.12)
    assert matplotlib.colors.to_hex(flagged[0].get_facecolor()) == H2_ABOVE_ONE_COLOUR.lower()
    assert H2_ABOVE_ONE_NOTE in fig.axes[0].get_xlabel() and "extrapolation" in H2_ABOVE_ONE_NOTE
    _save(fig, tmp_path, "h2_above_one")
    plain = plot_h_statistic(table.assign(h2=[0.9, 0.4, 0.05]), kind="pairwise")
    assert not any(b.get_hatch() for b in plain.axes[0].patches)
    assert "\n" not in plain.axes[0].get_xlabel()


def test_strongest_shap_pair_against_brute_force():
    from xaipipe.plots.interactions import strongest_shap_pair

    rng = np.random.default_rng(5)
    for _ in range(20):
        p = int(rng.integers(2, 6))
        iv = rng.normal(size=(30, p, p))
        iv = (iv + iv.transpose(0, 2, 1)) / 2
        values = iv.sum(axis=2)
        best = max(
            ((j, k) for j in range(p) for k in range(j + 1, p)), key=lambda jk: np.abs(iv[:, jk[0], jk[1]]).mean()
        )
        j, k = strongest_shap_pair(iv, values)
        assert {j, k} == set(best)
        assert np.abs(values[:, j]).mean() >= np.abs(values[:, k]).mean()
    with pytest.raises(ValueError):
        strongest_shap_pair(np.zeros((5, 1, 1)), np.zeros((5, 1)))


def test_main_effect_and_interaction_dependence_of_the_strongest_pair(tmp_path):
    """xgboost on y = x0 * x1 + x2: the strongest SHAP pair is x0 x x1; the panels hold the SHAP value,
    the main effect Phi_jj and 2 Phi_jk of each variable of the pair against its value."""
    import xgboost

    from xaipipe.explain.shapley import shap_values
    from xaipipe.plots.interactions import plot_shap_interaction_dependence

    rng = np.random.default_rng(6)
    X = rng.uniform(-1, 1, size=(300, 4))
    y = X[:, 0] * X[:, 1] + X[:, 2]
    model = xgboost.XGBRegressor(n_estimators=60, max_depth=3, learning_rate=0.3, random_state=0).fit(X, y)
    result = shap_values(model, X[:80], feature_names=["x0", "x1", "x2", "x3"], interactions=True)
    Phi = result.interaction_values
    fig = plot_shap_interaction_dependence(result, title="t", target_unit="MPa")
    axes = [ax for ax in fig.axes if ax.get_title()]  # the six panels (colour bars have no title)
    assert len(axes) == 6
    j = result.feature_names.index(axes[0].get_xlabel())
    k = result.feature_names.index(axes[3].get_xlabel())
    assert {result.feature_names[j], result.feature_names[k]} == {"x0", "x1"}
    for ax, expected in zip(axes[:3], (result.values[:, j], Phi[:, j, j], 2 * Phi[:, j, k])):
        offsets = ax.collections[0].get_offsets()
        np.testing.assert_allclose(offsets[:, 0], result.data[:, j])
        np.testing.assert_allclose(offsets[:, 1], expected)
    # the decomposition the figure shows: phi_j = Phi_jj + sum over k != j of Phi_jk
    np.testing.assert_allclose(Phi[:, j, :].sum(axis=1), result.values[:, j], atol=1e-4)
    assert axes[0].get_ylabel() == "SHAP (prediction, MPa)"
    _save(fig, tmp_path, "shap_interaction_dependence")
    # without interaction values: a figure saying so
    import dataclasses

    empty = plot_shap_interaction_dependence(dataclasses.replace(result, interaction_values=None))
    assert not empty.axes[0].has_data() and "no SHAP interaction values" in empty.axes[0].texts[0].get_text()
