"""The regional-effects figure: one panel per split variable with a curve per first-level region,
drawn from the rule's tables; a model without heterogeneity draws one panel that says so."""

from __future__ import annotations

import numpy as np
from sklearn.linear_model import LinearRegression

from tests.explain.pdp.test_regional import _Gate
from xaipipe.explain.pdp import regional_effects
from xaipipe.plots.regional import plot_regional_effects
from xaipipe.plots.style import figure_style, save_figure


def test_the_figure_draws_each_region(tmp_path):
    X = np.random.default_rng(0).uniform(0, 1, (600, 3))
    out = regional_effects(_Gate(), X, feature_names=["x1", "x2", "x3"], top_k=2)
    with figure_style():
        fig = plot_regional_effects(out.regions, out.curves, title="gate", target_unit="dB")
        assert len(fig.axes) == out.heterogeneity["split"].sum() == 2
        first = out.regions[(out.regions["feature"] == "x1") & (out.regions["level"] == 1)]
        assert len(fig.axes[0].lines) == 1 + len(first)
        assert "explained" in fig.axes[0].get_title() and "dB" in fig.axes[0].get_ylabel()
        save_figure(fig, tmp_path / "r.pdf", tmp_path / "r.png")
    assert (tmp_path / "r.png").stat().st_size > 1000


def test_no_heterogeneity_draws_one_panel_that_says_so():
    X = np.random.default_rng(1).normal(size=(200, 2))
    out = regional_effects(LinearRegression().fit(X, X @ [1.0, 2.0]), X, feature_names=["a", "b"])
    with figure_style():
        fig = plot_regional_effects(out.regions, out.curves)
    assert len(fig.axes) == 1 and "no region" in fig.axes[0].texts[0].get_text()
