"""Smoke tests of the model-reliance figures: they render to PNG, bars are sorted
by importance, error bars come from the uncertainty columns, bad input is rejected."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from matplotlib.container import BarContainer

from xaipipe.plots.reliance import plot_model_reliance, plot_reliance_vs_split_gain
from xaipipe.plots.style import figure_style, save_figure


def _table(members=1, estimator="permutation"):
    rows = []
    for m in range(members):
        for name, ratio, se in [("a", 1.2, 0.05), ("b", 3.0, 0.2), ("c", 0.98, 0.01), ("Sex", 1.6, 0.1)]:
            rows.append(
                {
                    "member": m,
                    "feature": name,
                    "estimator": estimator,
                    "loss": "squared_error",
                    "mr_ratio": ratio + m,
                    "mr_difference": (ratio - 1) * 10,
                    "mr_ratio_se": se if estimator == "permutation" else np.nan,
                    "mr_difference_se": se * 10 if estimator == "permutation" else np.nan,
                    "mr_ratio_std": se * 3,
                    "mr_difference_std": se * 30,
                }
            )
    return pd.DataFrame(rows)


def _bars(ax):
    return next(c for c in ax.containers if isinstance(c, BarContainer))


def _bar_ends(ax):
    """Value at the end of each bar, top bar first (bars start at the reference value)."""
    bars = sorted(ax.patches, key=lambda p: p.get_y())  # top of the (inverted) axis first
    return [round(p.get_x() + p.get_width(), 9) for p in bars]


def _bar_starts(ax):
    return {round(p.get_x(), 9) for p in ax.patches}


def test_reliance_bars_render_sorted_with_error_bars(tmp_path):
    with figure_style():
        fig = plot_model_reliance(_table(), title="test")
        ax = fig.axes[0]
        assert _bar_ends(ax) == [3.0, 1.6, 1.2, 0.98]
        assert _bar_starts(ax) == {1.0}  # ratio bars start at MR = 1 (no reliance)
        assert [t.get_text() for t in ax.get_yticklabels()] == ["b", "Sex", "a", "c"]
        lo, hi = ax.get_ylim()
        assert lo > hi  # most important on top
        errbar = _bars(ax).errorbar
        assert errbar is not None
        segs = errbar.lines[2][0].get_segments()
        half_widths = sorted(round((s[1][0] - s[0][0]) / 2, 9) for s in segs)
        assert half_widths == [0.01, 0.05, 0.1, 0.2]
        out = tmp_path / "mr.png"
        save_figure(fig, out)
    assert out.stat().st_size > 1000


def test_difference_without_uncertainty_has_no_error_bars(tmp_path):
    with figure_style():
        fig = plot_model_reliance(_table(estimator="e_switch"), value="mr_difference", error="se")
        ax = fig.axes[0]
        assert _bars(ax).errorbar is None
        assert _bar_ends(ax) == [20.0, 6.0, 2.0, -0.2]
        assert _bar_starts(ax) == {0.0}
        assert "error bars" not in ax.get_xlabel()
        save_figure(fig, tmp_path / "diff.png")
    assert (tmp_path / "diff.png").is_file()


def test_side_by_side_uses_reliance_order(tmp_path):
    split = pd.DataFrame({"feature": ["a", "b", "c", "Sex"], "split_gain": [0.4, 0.3, 0.2, 0.1], "kind": "mdi"})
    with figure_style():
        fig = plot_reliance_vs_split_gain(_table(2), split, member=1, error="std")
        left, right = fig.axes
        assert _bar_ends(left) == [4.0, 2.6, 2.2, 1.98]
        assert _bar_ends(right) == [0.3, 0.1, 0.4, 0.2]  # b, Sex, a, c
        save_figure(fig, tmp_path / "side.png")
    assert (tmp_path / "side.png").stat().st_size > 1000


def test_plot_input_errors():
    with figure_style():
        with pytest.raises(ValueError, match="member"):
            plot_model_reliance(_table(2))
        with pytest.raises(ValueError, match="value must be"):
            plot_model_reliance(_table(), value="importance")
        with pytest.raises(ValueError, match="error must be"):
            plot_model_reliance(_table(), error="ci")
        split = pd.DataFrame({"feature": ["a", "b"], "split_gain": [0.5, 0.5]})
        with pytest.raises(ValueError, match="variables differ"):
            plot_reliance_vs_split_gain(_table(), split)


def _dependent_table():
    """Marginal, conditional and grouped MR rows of one model (as model_reliance.csv holds them)."""
    rows = []
    marginal = {"a": (8.0, 0.1), "b": (0.5, 0.05), "c": (2.0, 0.1)}  # a, b correlated: a + b one cluster
    conditional = {"a": (0.2, 0.02), "b": (0.01, 0.01), "c": (1.9, 0.1)}
    grouped = {"a+b": (9.0, 0.2), "c": (2.0, 0.1)}
    for est, values in (
        ("permutation", marginal),
        ("conditional_permutation", conditional),
        ("grouped_permutation", grouped),
    ):
        for loss, scale in (("squared_error", 1.0), ("absolute_error", 0.1)):
            for feature, (v, se) in values.items():
                rows.append(
                    {
                        "feature": feature,
                        "estimator": est,
                        "loss": loss,
                        "mr_difference": v * scale,
                        "mr_difference_se": se * scale,
                        "mr_ratio": 1 + v * scale,
                        "mr_ratio_se": se * scale,
                    }
                )
    rows.append({"feature": "a", "estimator": "e_divide", "loss": "squared_error", "mr_difference": 99.0})
    return pd.DataFrame(rows)


def test_marginal_conditional_and_grouped_reliance(tmp_path):
    from xaipipe.plots.reliance import dependent_reliance_figure, plot_dependent_reliance

    table = _dependent_table()
    with figure_style():
        fig = plot_dependent_reliance(table, loss="squared_error", title="t")
        left, right = fig.axes
        bars = [c for c in left.containers if isinstance(c, BarContainer)]
        assert [c.get_label() for c in bars] == ["marginal (permutation)", "conditional (within tree strata)"]
        names = [t.get_text() for t in left.get_yticklabels()]
        assert names == ["a", "c", "b"]  # by the larger of marginal and conditional MR
        np.testing.assert_allclose([p.get_width() for p in bars[0].patches], [8.0, 2.0, 0.5])
        np.testing.assert_allclose([p.get_width() for p in bars[1].patches], [0.2, 1.9, 0.01])
        errs = bars[0].errorbar.lines[2][0].get_segments()  # ±2 SE
        np.testing.assert_allclose([s[1][0] - s[0][0] for s in errs], [0.4, 0.4, 0.2])
        assert [t.get_text() for t in right.get_yticklabels()] == ["a + b", "c"]
        from xaipipe.plots.reliance import _cluster_label

        assert _cluster_label("radius1+perimeter1+area1+radius3") == "radius1 + perimeter1 + area1 +\nradius3"
        grouped = [c for c in right.containers if isinstance(c, BarContainer)][0]
        np.testing.assert_allclose([p.get_width() for p in grouped.patches], [9.0, 2.0])
        assert "±2 Monte-Carlo SE" in left.get_xlabel() and "squared_error" in left.get_xlabel()
        save_figure(fig, tmp_path / "dependent.png")
        assert (tmp_path / "dependent.png").stat().st_size > 1000
        # the other loss's rows; the ratio from 1
        fig = plot_dependent_reliance(table, loss="absolute_error", quantity="mr_ratio", max_display=2)
        assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == ["a", "c"]
        assert fig.axes[0].patches[0].get_x() == 1.0
        # no conditional or grouped rows: a figure saying so
        only = plot_dependent_reliance(table[table["estimator"] == "permutation"], loss="squared_error")
        assert "no conditional or grouped MR" in only.axes[0].texts[0].get_text()
        fig = dependent_reliance_figure(table, loss="squared_error", quantity="mr_difference", title="d / m")
        assert fig._suptitle.get_text() == "d / m: marginal vs conditional vs grouped MR"
    with pytest.raises(ValueError, match="permutation"):
        plot_dependent_reliance(table, loss="zero_one")
    with pytest.raises(ValueError, match="quantity"):
        plot_dependent_reliance(table, loss="squared_error", quantity="e_switch")
