"""Chapter 2-3 figures: each renders to a PNG in the thesis style and draws the table it is given."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from xaipipe.data.simulated import simulate
from xaipipe.plots import illustrations as pl
from xaipipe.plots.style import figure_style, save_figure
from xaipipe.studies import illustrations as il


@pytest.fixture(scope="module")
def split():
    return il.simulated_split(simulate(n=150, random_state=2), random_state=2)


def _args(s):
    return s["X_train"], s["y_train"], s["X_test"], s["y_test"]


def _render(fig, path):
    from matplotlib.figure import Figure

    assert isinstance(fig, Figure)
    save_figure(fig, path)
    assert path.is_file() and path.stat().st_size > 1000
    with open(path, "rb") as fh:
        assert fh.read(8) == b"\x89PNG\r\n\x1a\n"


def _line(ax, label):
    (line,) = [ln for ln in ax.lines if ln.get_label() == label]
    return line


def test_regression_tree_figure_shows_the_splits(tmp_path):
    tree = il.fit_diabetes_tree()
    with figure_style():
        fig = pl.plot_regression_tree(tree)
        texts = [t.get_text() for t in fig.axes[0].texts]
        assert any("BMI <= 27.25" in t for t in texts) and any("AGE <= 57.5" in t for t in texts)
        assert any("value = 99.69" in t for t in texts)
        assert len([t for t in texts if "samples" in t]) == tree.tree_.node_count
        _render(fig, tmp_path / "tree.png")


def test_pruning_figure_draws_both_errors_on_a_symlog_axis(split, tmp_path):
    path = il.pruning_path(*_args(split), max_alphas=30)
    with figure_style():
        fig = pl.plot_pruning_path(path.sample(frac=1.0, random_state=0))  # any row order
        ax = fig.axes[0]
        assert ax.get_xscale() == "symlog"
        np.testing.assert_array_equal(_line(ax, "training").get_xdata(), path["alpha"])
        np.testing.assert_array_equal(_line(ax, "test").get_ydata(), path["test_mse"])
        best = next(ln for ln in ax.lines if ln.get_label().startswith("min test MSE"))
        assert best.get_ydata()[0] == path["test_mse"].min()
        _render(fig, tmp_path / "prune.png")
    with pytest.raises(ValueError, match="lacks columns"):
        pl.plot_pruning_path(path.drop(columns="test_mse"))


def test_oob_figure_one_oob_and_one_test_line_per_forest(split, tmp_path):
    curve = il.oob_curve(*_args(split), n_estimators=15, max_features=(1.0, 1 / 3))
    with figure_style():
        fig = pl.plot_oob_curve(curve)
        labels = [ln.get_label() for ln in fig.axes[0].lines]
        assert labels == [
            "bagging: OOB",
            "bagging: test",
            "random forest (max_features=0.333): OOB",
            "random forest (max_features=0.333): test",
        ]
        np.testing.assert_array_equal(fig.axes[0].lines[0].get_ydata(), curve["oob_mse"].iloc[:15])
        _render(fig, tmp_path / "oob.png")


def test_loss_figure_draws_three_losses_and_the_threshold(tmp_path):
    losses = il.loss_functions(delta=1.5)
    with figure_style():
        fig = pl.plot_loss_functions(losses)
        ax = fig.axes[0]
        huber = next(ln for ln in ax.lines if ln.get_label().startswith("Huber"))
        np.testing.assert_array_equal(huber.get_ydata(), losses["huber"])
        vertical = [ln for ln in ax.lines if len(set(np.atleast_1d(ln.get_xdata()))) == 1]
        assert sorted(float(np.atleast_1d(ln.get_xdata())[0]) for ln in vertical) == [-1.5, 1.5]
        _render(fig, tmp_path / "loss.png")


def test_depth_figure(split, tmp_path):
    depths = il.boosting_depth_curve(*_args(split), depths=(1, 2, 4), n_estimators=20)
    with figure_style():
        fig = pl.plot_boosting_depth(depths)
        ax = fig.axes[0]
        np.testing.assert_array_equal(_line(ax, "test").get_ydata(), depths["test_mse"])
        assert "n_estimators = 20" in ax.get_title()
        _render(fig, tmp_path / "depth.png")


def test_shrinkage_figure_marks_early_stopping_on_each_panel(split, tmp_path):
    curves = il.boosting_staged_curves(
        *_args(split), learning_rates=(0.05, 0.5), n_estimators=80, n_iter_no_change=3, max_depth=2
    )
    stops = curves[curves["early_stop"]]
    assert len(stops) >= 1
    with figure_style():
        fig = pl.plot_boosting_shrinkage(curves)
        left, right = fig.axes
        assert left.get_yscale() == "log" and right.get_title() == "test MSE"
        for ax, col in ((left, "train_mse"), (right, "test_mse")):
            marks = [ln for ln in ax.lines if ln.get_label() == "early stop"]
            assert len(marks) == len(stops)
            got = sorted((float(m.get_xdata()[0]), float(m.get_ydata()[0])) for m in marks)
            assert got == sorted(zip(stops["iteration"].astype(float), stops[col]))
        legend = [t.get_text() for t in right.get_legend().get_texts()]
        assert legend == [r"$\lambda$ = 0.05", r"$\lambda$ = 0.5", "early stop"]
        _render(fig, tmp_path / "shrinkage.png")
    with pytest.raises(ValueError, match="is empty"):
        pl.plot_boosting_shrinkage(curves.iloc[:0])
    with pytest.raises(TypeError):
        pl.plot_boosting_shrinkage(pd.Series([1.0]))
