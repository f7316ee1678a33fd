"""Rendering of the interaction figures (SHAP interaction matrix and summary, H-statistic)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from xaipipe.explain.interactions import h_statistic, shap_interaction_summary  # noqa: E402
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
