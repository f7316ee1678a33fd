"""Figures of issue 35, round 2: PD beside ALE, the second-order ALE, predictive multiplicity, and the
thesis-style PD-vs-ALE figure of stored results; each rendered and saved, drawn from the tables."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from sklearn.ensemble import GradientBoostingRegressor

from xaipipe.config import AleSettings
from xaipipe.explain.pdp import ale_tables
from xaipipe.explain.pdp._grid import DEFAULT_MAX_BATCH_ROWS
from xaipipe.plots.ale import ale_figures, plot_ale_2d, plot_pd_vs_ale
from xaipipe.plots.multiplicity import plot_multiplicity
from xaipipe.plots.style import figure_style, save_figure
from xaipipe.rashomon.multiplicity import multiplicity_tables
from xaipipe.report.thesis import check_mapping, figure_sources, render_figure


def _save(fig, tmp_path, name):
    save_figure(fig, tmp_path / f"{name}.pdf", tmp_path / f"{name}.png")
    assert (tmp_path / f"{name}.png").stat().st_size > 1000


@pytest.fixture(scope="module")
def tables():
    rng = np.random.default_rng(0)
    n = 200
    a = rng.uniform(-1, 1, n)
    X = np.column_stack([a, a + 0.1 * rng.normal(size=n), rng.uniform(-1, 1, n), np.eye(3)[rng.integers(0, 3, n)]])
    y = X[:, 0] * X[:, 2] + X[:, 1] + X[:, 3] + 0.1 * rng.normal(size=n)
    names = ["a", "b", "c", "S_F", "S_I", "S_M"]
    gb = GradientBoostingRegressor(n_estimators=40, random_state=0).fit(X, y)
    split = SimpleNamespace(X_test=X, features=names, feature_groups={"S": names[3:]}, classes=None)
    settings = AleSettings(seed=0, output="auto", max_batch_rows=DEFAULT_MAX_BATCH_ROWS, n_bins=6, large_data=None)
    ale, ale_2d, _ = ale_tables(gb, split, settings, ranking=["c", "S", "a", "b"], pair=("a", "c"))
    return ale.assign(dataset="d", model="gradient_boosting"), ale_2d


def test_pd_vs_ale_draws_the_top_variables_in_rank_order(tables, tmp_path):
    ale, ale_2d = tables
    with figure_style():
        fig = plot_pd_vs_ale(ale, max_features=3, title="t")
        drawn = [ax.get_xlabel() for ax in fig.axes if ax.has_data()]
        assert drawn == ["c", "S (ALE order)", "a"]
        _save(fig, tmp_path, "ale")
        fig2 = plot_ale_2d(ale_2d, title="t")
        assert fig2.axes[0].get_xlabel() == "a" and fig2.axes[0].get_ylabel() == "c"
        _save(fig2, tmp_path, "ale_2d")
        figs = ale_figures(ale, ale_2d.iloc[:0])  # no pair: a figure saying so
        assert set(figs) == {"ale", "ale_2d"} and not figs["ale_2d"].axes[0].has_data()
    with pytest.raises(ValueError, match="no variable"):
        plot_pd_vs_ale(ale, ["nope"])


def test_thesis_pd_vs_ale_renders_from_the_stored_table(tables, tmp_path):
    ale, _ = tables
    path = tmp_path / "ale.csv"
    ale.to_csv(path, index=False)
    entry = {"kind": "pd_vs_ale", "dataset": "d", "model": "gradient_boosting", "features": ["a", "b"], "title": "T"}
    check_mapping({"figures": {"x": entry}})
    assert figure_sources(entry, "results/v1") == {"ale": "results/v1/explain/d/gradient_boosting/ale.csv"}
    with figure_style():
        fig = render_figure(entry, {"ale": str(path)})
        assert [ax.get_xlabel() for ax in fig.axes if ax.has_data()] == ["a", "b"]
        _save(fig, tmp_path, "thesis")


def test_multiplicity_figure(tmp_path):
    rng = np.random.default_rng(1)
    P = rng.uniform(0, 1, size=(4, 30))
    keys = pd.DataFrame({"family": ["A", "A", "B", "B"], "config_id": ["a1", "a2", "b1", "b2"]})
    members = pd.DataFrame(
        {
            "family": ["A", "A", "B", "B"],
            "config_id": ["a1", "a2", "b1", "b2"],
            "gap_family": [0.0, 0.4, 0.0, 0.7],
            "min_epsilon_family": [0.0, 0.5, 0.0, 1.0],
            "is_reference_family": [True, False, True, False],
            "gap_cross_family": [0.0, 0.4, 0.1, 0.9],
            "min_epsilon_cross_family": [0.0, 0.5, 0.5, 1.0],
            "is_reference_cross_family": [True, False, False, False],
        }
    )
    for task in ("regression", "classification"):
        out = multiplicity_tables(P, keys, members, task=task, epsilons=[0.0, 0.5, 1.0], default_epsilon=1.0)
        with figure_style():
            fig = plot_multiplicity(out.rows, out.multiplicity, scope="cross_family", max_rows=10, title=task)
            assert len(fig.axes[0].get_yticklabels()) == 10
            _save(fig, tmp_path, task)
    with pytest.raises(ValueError, match="max_rows"):
        plot_multiplicity(out.rows, out.multiplicity, scope="cross_family", max_rows=0)


def test_h_statistic_figures_without_pairs():
    from xaipipe.plots.interactions import h_statistic_figures

    table = pd.DataFrame(
        {"kind": ["total", "total"], "feature": ["a", "b"], "h2": [0.1, 0.2], "h2_se": [0.01, 0.02], "n_rows": 50}
    )
    with figure_style():
        figs = h_statistic_figures(table, title="t")
    assert figs["h_statistic"].axes[0].has_data() and not figs["h_statistic_pairs"].axes[0].has_data()


def test_shap_interaction_figures_with_and_without_values(tmp_path):
    from xaipipe.explain.shapley import shap_interaction_summary
    from xaipipe.plots.interactions import shap_interaction_figures

    iv = np.random.default_rng(2).normal(size=(10, 3, 3))
    with figure_style():
        figs = shap_interaction_figures(shap_interaction_summary(iv + iv.transpose(0, 2, 1)), title="t")
        assert set(figs) == {"matrix", "summary"} and all(
            f.axes[0].has_data() or f.axes[0].images for f in figs.values()
        )
        empty = shap_interaction_figures(None)
        assert not any(f.axes[0].has_data() for f in empty.values())


def _ale_2d_table(Z, empty):
    """An ``ale_2d.csv`` of one pair: values ``Z`` on a (K1, K2) grid of edges, ``empty`` cells (k, m >= 1)."""
    K1, K2 = Z.shape
    p1, p2 = np.meshgrid(np.arange(K1), np.arange(K2), indexing="ij")
    imputed = np.zeros((K1, K2), dtype=bool)
    for k, m in empty:
        imputed[k, m] = True
    return pd.DataFrame(
        {
            "feature_1": "a",
            "feature_2": "c",
            "position_1": p1.ravel(),
            "position_2": p2.ravel(),
            "value_1": p1.ravel() / (K1 - 1),
            "value_2": p2.ravel() / (K2 - 1),
            "ale": Z.ravel(),
            "n_rows": np.where(imputed.ravel() | (p1.ravel() == 0) | (p2.ravel() == 0), 0, 5),
            "imputed": imputed.ravel(),
            "output": "predict",
        }
    )


def test_ale_2d_colour_scale_spans_the_populated_cells_only(tmp_path):
    """A corner that only empty cells touch cannot set the colour scale (issue 43: one 2-D ALE's scale
    was set by an imputed cell); its value takes the end colour (the colour bar's arrows)."""
    from xaipipe.plots.ale import populated_corners

    Z = np.array(
        [[0.0, 0.1, -0.2, 0.0], [0.1, 0.3, -0.1, 0.0], [0.0, -0.4, 0.2, 0.0], [0.0, 0.0, 0.0, 9.0]]
    )  # 9.0: the corner (3, 3), touched only by the empty cell (3, 3)
    table = _ale_2d_table(Z, empty=[(3, 3)])
    mask = populated_corners(table)
    assert mask.shape == (4, 4) and not mask[3, 3] and mask[2, 2] and mask[0, 0]
    assert mask.sum() == 15  # every other corner touches a cell with rows
    # brute force: a corner is populated iff one of the (up to four) cells it is a corner of has rows
    for k in range(4):
        for m in range(4):
            cells = [(a, b) for a in (k, k + 1) for b in (m, m + 1) if 1 <= a <= 3 and 1 <= b <= 3]
            assert mask[k, m] == any((a, b) != (3, 3) for a, b in cells)
    with figure_style():
        fig = plot_ale_2d(table, target_unit="MPa")
        bar = fig.axes[-1]
        lo, hi = sorted(bar.get_ylim())
        assert np.isclose(hi, 0.4) and np.isclose(lo, -0.4)  # max |ALE| over populated corners
        assert bar.get_ylabel().startswith("second-order ALE (prediction, MPa)")
        assert "cells with rows" in bar.get_ylabel()
        _save(fig, tmp_path, "ale_2d_scale")
        # nothing empty: the scale is max |ALE| over every corner, as before, and the label unchanged
        fig = plot_ale_2d(_ale_2d_table(Z[:3, :3], empty=[]))
        assert np.isclose(max(np.abs(fig.axes[-1].get_ylim())), 0.4)
        assert fig.axes[-1].get_ylabel() == "second-order ALE (prediction)"


def test_pd_vs_ale_axis_carries_the_unit(tables):
    ale, _ = tables
    with figure_style():
        fig = plot_pd_vs_ale(ale, target_unit="rings")
    output = str(ale["output"].iloc[0])
    assert fig.axes[0].get_ylabel() == f"centred effect ({'prediction' if output == 'predict' else output}, rings)"


def test_multiplicity_figure_draws_the_exact_path_and_the_unit_of_epsilon(tmp_path):
    rng = np.random.default_rng(4)
    P = rng.uniform(0, 1, size=(5, 40))
    keys = pd.DataFrame({"family": ["A"] * 5, "config_id": [f"a{i}" for i in range(5)]})
    gaps = [0.0, 0.13, 0.41, 0.77, 1.6]
    members = keys.assign(
        gap_family=gaps,
        min_epsilon_family=[0.0, 0.5, 0.5, 1.0, 2.0],
        is_reference_family=[True, False, False, False, False],
    )
    out = multiplicity_tables(P, keys, members, task="regression", epsilons=[0.0, 1.0, 2.0], default_epsilon=1.0)
    assert len(out.path) == 5  # one step per member's entry ε: more points than the 3 of the grid
    with figure_style():
        fig = plot_multiplicity(
            out.rows, out.multiplicity, scope="A", path=out.path, epsilon_mode="se", metric="rmse", target_unit="MPa"
        )
        ax, bx = fig.axes
        assert bx.get_xlabel().startswith("ε (multiples of the SE of the reference's CV rmse)")
        assert ax.get_xlabel() == "prediction (MPa)"
        step = [ln for ln in bx.lines if ln.get_drawstyle() == "steps-post"]
        assert len(step) == 1
        np.testing.assert_allclose(step[0].get_xdata(), [*gaps, 2.0])
        np.testing.assert_allclose(step[0].get_ydata()[:-1], out.path["mean_width"])
        _save(fig, tmp_path, "multiplicity_path")
