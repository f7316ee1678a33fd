"""Smoke tests of the PD / ICE figures: each renders to a PNG in the thesis style."""

from __future__ import annotations

import numpy as np
import pytest

from xaipipe.explain import pdp
from xaipipe.plots.pdp import plot_centered_ice, plot_dice, plot_ice, plot_pd_2d
from xaipipe.plots.style import figure_style, save_figure


def _model(A):
    return np.sin(A[:, 0]) * (1 + A[:, 1]) + 0.5 * A[:, 2] + A[:, 3]


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.normal(size=(80, 2)), np.eye(3)[rng.integers(0, 3, 80)]])
    names = ["age", "cement", "Sex_F", "Sex_I", "Sex_M"]
    effs = [pdp.explain_feature(_model, X, j, feature_names=names, resolution=25) for j in (0, 1)]
    group = pdp.explain_feature(
        _model, X, "Sex", feature_names=names, feature_groups={"Sex": ["Sex_F", "Sex_I", "Sex_M"]}
    )
    pair = pdp.explain_pair(_model, X, ("age", "cement"), feature_names=names, resolution=8)
    return effs, group, pair


def _render(fig, path):
    from matplotlib.figure import Figure

    assert isinstance(fig, Figure)
    save_figure(fig, path)
    assert path.is_file() and path.stat().st_size > 1000
    with open(path, "rb") as fh:
        assert fh.read(8) == b"\x89PNG\r\n\x1a\n"


def test_ice_plot_draws_curves_pd_and_rug(data, tmp_path):
    from matplotlib.collections import LineCollection

    effs, _, _ = data
    with figure_style():
        fig = plot_ice(effs, max_curves=30)
        axes = fig.axes
        assert len(axes) == 2 and axes[0].get_xlabel() == "age"
        ice = [c for c in axes[0].collections if isinstance(c, LineCollection) and c.get_label() == "ICE"]
        assert len(ice) == 1 and len(ice[0].get_segments()) == 30
        pd_line = [ln for ln in axes[0].lines if ln.get_label() == "PD"][0]
        assert pd_line.get_linestyle() == "--"
        np.testing.assert_allclose(pd_line.get_ydata(), effs[0].pd)
        rug = [c for c in axes[0].collections if c is not ice[0]]
        assert len(rug[0].get_segments()) == 9  # the deciles
        _render(fig, tmp_path / "ice.png")


def test_centered_and_both_rows(data, tmp_path):
    effs, group, _ = data
    with figure_style():
        fig = plot_centered_ice(effs[0])
        line = [ln for ln in fig.axes[0].lines if ln.get_label() == "centered PD"][0]
        np.testing.assert_allclose(line.get_ydata(), effs[0].pd_centered)
        assert line.get_ydata()[effs[0].anchor] == 0.0
        _render(fig, tmp_path / "cice.png")
        fig = plot_ice(effs + [group], centered="both", title="ICE and c-ICE")
        assert len(fig.axes) == 6
        assert [t.get_text() for t in fig.axes[2].get_xticklabels()] == ["Sex_F", "Sex_I", "Sex_M"]
        _render(fig, tmp_path / "both.png")
    with pytest.raises(ValueError, match="centered"):
        plot_ice(effs, centered="yes")


def test_dice_plot_from_table(data, tmp_path):
    effs, group, _ = data
    table = pdp.effects_table(effs + [group], max_curves=40)
    with figure_style():
        fig = plot_dice(table, features=["age", "cement"])
        assert len(fig.axes) == 4
        sd_line = fig.axes[2].lines[0]  # bottom row, first column
        np.testing.assert_allclose(sd_line.get_ydata(), effs[0].d_ice_sd)
        _render(fig, tmp_path / "dice.png")
        with pytest.raises(ValueError, match="one-hot"):
            plot_dice(group)
        fig = plot_ice(table)  # all three features from the table
        assert len(fig.axes) == 3
        _render(fig, tmp_path / "ice_table.png")


def test_pd_2d_plot(data, tmp_path):
    _, _, pair = data
    with figure_style():
        fig = plot_pd_2d(pair, title="two-way PD")
        ax = fig.axes[0]
        assert ax.get_xlabel() == "age" and ax.get_ylabel() == "cement"
        _render(fig, tmp_path / "pd2d.png")
        fig = plot_pd_2d(pdp.pair_table(pair))
        _render(fig, tmp_path / "pd2d_table.png")
