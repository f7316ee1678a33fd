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


def _as(effect, output):
    """The effect as the pipeline's tables hold it: its output code (a callable model gives "callable")."""
    import dataclasses

    return dataclasses.replace(effect, output=output)


def test_effect_axes_carry_the_target_unit(data, tmp_path):
    from xaipipe.plots.pdp import pd_ice_figures

    effs, _, pair = data
    effs, pair = [_as(e, "predict") for e in effs], _as(pair, "predict")
    with figure_style():
        assert plot_ice(effs, target_unit="MPa").axes[0].get_ylabel() == "prediction (MPa)"
        assert plot_ice(effs).axes[0].get_ylabel() == "prediction"  # no unit: as before
        assert plot_ice(effs, centered=True, target_unit="MPa").axes[0].get_ylabel() == "centered prediction (MPa)"
        dice = plot_dice(effs, target_unit="MPa")
        assert dice.axes[0].get_ylabel() == "d(prediction) / d(feature)\n(MPa per unit of the feature)"
        fig = plot_pd_2d(pair, target_unit="MPa")
        assert fig.axes[-1].get_ylabel() == "PD (prediction, MPa)"  # the colour bar
        _render(fig, tmp_path / "pd2d_unit.png")
        curves = pdp.effects_table(effs, max_curves=20)
        curves.insert(0, "rank", curves["feature"].map({"age": 1, "cement": 2}))
        figs = pd_ice_figures(curves, pdp.pair_table(pair), target_unit="rings", output="predict")
        assert pd_ice_figures(curves, pdp.pair_table(pair))["ice"].axes[0].get_ylabel() == "model output"
        assert figs["ice"].axes[0].get_ylabel() == "prediction (rings)"
        assert figs["c_ice"].axes[0].get_ylabel() == "centered prediction (rings)"
        assert "rings per unit of the feature" in figs["d_ice"].axes[0].get_ylabel().replace("\n", " ")
        assert figs["pd_2d"].axes[-1].get_ylabel() == "PD (prediction, rings)"
        # a classifier's probability: the class named by the unit
        proba = _as(effs[0], "proba")
        assert plot_ice(proba, target_unit="malignant").axes[0].get_ylabel() == "predicted probability of malignant"
        label = plot_dice(proba, target_unit="malignant").axes[0].get_ylabel()
        assert label == "d(predicted probability of malignant) / d(feature)"


def test_eleven_levels_get_eleven_distinct_colours(tmp_path):
    """A one-hot group of 11 levels beside a numeric feature: one PD curve per level, no colour twice
    (the thesis style's cycle has 8 colours); 8 levels keep the style's cycle."""
    from matplotlib.colors import to_hex

    from xaipipe.plots.style import qualitative_colours

    rng = np.random.default_rng(3)
    k, n = 11, 300
    codes = rng.integers(0, k, n)
    X = np.column_stack([rng.normal(size=n), np.eye(k)[codes]])
    names = ["x"] + [f"G_{i}" for i in range(k)]
    weights = np.linspace(-1, 1, k)
    pair = pdp.explain_pair(
        lambda A: A[:, 0] * (A[:, 1:] @ weights),
        X,
        ("x", "G"),
        feature_names=names,
        feature_groups={"G": names[1:]},
        resolution=6,
    )
    with figure_style():
        assert qualitative_colours(8) is None and len({c for c, _ in qualitative_colours(11)}) == 11
        fig = plot_pd_2d(_as(pair, "predict"), target_unit="dB")
        lines = [ln for ln in fig.axes[0].lines if ln.get_label().startswith("G_")]
        assert len(lines) == k
        assert len({to_hex(ln.get_color()) for ln in lines}) == k
        assert fig.axes[0].get_ylabel() == "PD (prediction, dB)"
        _render(fig, tmp_path / "eleven_levels.png")
    assert len({(c, s) for c, s in qualitative_colours(70)}) == 70  # past 60: a new line style
