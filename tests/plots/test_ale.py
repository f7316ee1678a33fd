"""Figures of issue 35, round 2: PD beside ALE, the second-order ALE, predictive multiplicity, and the
thesis-style PD-vs-ALE figure of stored results; each rendered and saved, drawn from the tables."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from sklearn.ensemble import GradientBoostingRegressor

from xaipipe.config import AleSettings
from xaipipe.explain.dependence import ale_tables
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
    from xaipipe.explain.interactions import shap_interaction_summary
    from xaipipe.plots.interactions import shap_interaction_figures

    iv = np.random.default_rng(2).normal(size=(10, 3, 3))
    with figure_style():
        figs = shap_interaction_figures(shap_interaction_summary(iv + iv.transpose(0, 2, 1)), title="t")
        assert set(figs) == {"matrix", "summary"} and all(
            f.axes[0].has_data() or f.axes[0].images for f in figs.values()
        )
        empty = shap_interaction_figures(None)
        assert not any(f.axes[0].has_data() for f in empty.values())
