"""Smoke tests of the Rashomon / MCR figures: they render to PNG from the real
tables, draw what they claim (one row per variable, reference marked, ranks),
and reject bad selections."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from xaipipe.config import RashomonSettings
from xaipipe.explain.pdp import feature_grid, onehot_grid
from xaipipe.models.cv import cross_validate_grid, summarize_cv
from xaipipe.plots.rashomon import (
    plot_epsilon_sensitivity,
    plot_mcr_intervals,
    plot_member_reliance,
    plot_pd_envelope,
    plot_rank_heatmap,
)
from xaipipe.plots.style import figure_style, save_figure
from xaipipe.rashomon.envelope import CurveOptions, members_partial_dependence, pd_envelope, pd_envelope_table
from xaipipe.rashomon.sets import select_set
from xaipipe.rashomon.study import rashomon_reliance

EPS = [0.0, 0.05, 0.5]
NAMES = ["a", "b", "s_F", "s_M"]


@pytest.fixture(scope="module")
def tables():
    rng = np.random.default_rng(2)
    n = 120
    X = rng.normal(size=(n, 4))
    X[:, 2] = rng.integers(0, 2, n)
    X[:, 3] = 1 - X[:, 2]
    y = X[:, 0] + 0.5 * X[:, 1] ** 2 + X[:, 2] + 0.3 * rng.normal(size=n)
    folds = [(np.flatnonzero(np.arange(90) % 3 != k), np.flatnonzero(np.arange(90) % 3 == k)) for k in range(3)]
    parts = []
    for fam, grid in [
        ("gradient_boosting", {"n_estimators": [5, 10, 20], "max_depth": [1, 2]}),
        ("decision_tree", {"max_depth": [2, 4]}),
    ]:
        s = summarize_cv(
            cross_validate_grid(fam, "regression", grid, X[:90], y[:90], folds, random_state=0), "regression"
        )
        parts.append(s)
    summary = pd.concat(parts, ignore_index=True)
    data = SimpleNamespace(
        X_train=X[:90],
        y_train=y[:90],
        X_test=X[90:],
        y_test=y[90:],
        features=NAMES,
        feature_groups={"s": ["s_F", "s_M"]},
        dataset="toy",
    )
    settings = RashomonSettings(
        task="regression",
        metric="rmse",
        seed=0,
        options={},
        loss="squared_error",
        epsilon_mode="relative",
        epsilon=EPS[-1],
        epsilons=tuple(EPS),
        scopes=("family", "cross_family"),
        estimators=("permutation",),
        n_repeats=3,
        e_switch_max_rows=400,
        figure_scope="cross_family",
    )
    members, mcr, groups = rashomon_reliance(data, settings, summary)
    return dict(members=members, mcr=mcr, groups=groups, X=X[90:])


def _render(fig, tmp_path, name):
    path = tmp_path / f"{name}.png"
    save_figure(fig, path)
    assert path.stat().st_size > 5000
    return path


def test_member_reliance(tables, tmp_path):
    with figure_style():
        fig = plot_member_reliance(tables["members"], scope="cross_family", epsilon=0.5, title="t")
        ax = fig.axes[0]
        assert [t.get_text() for t in ax.get_yticklabels()] != []
        assert sorted(t.get_text() for t in ax.get_yticklabels()) == ["a", "b", "s"]
        labels = [h.get_label() for h in ax.get_legend().legend_handles]
        assert labels == ["members", "reference model"]
        _render(fig, tmp_path, "members")


def test_rank_heatmap(tables, tmp_path):
    members = tables["members"]
    with figure_style():
        fig = plot_rank_heatmap(members, scope="gradient_boosting", epsilon=0.5)
        image = fig.axes[0].images[0].get_array()
        n = select_set(members, "gradient_boosting", 0.5)[["config_id"]].drop_duplicates().shape[0]
        assert image.shape == (n, 3)
        assert set(np.unique(image)) <= {1.0, 2.0, 3.0}
        assert (np.sort(image, axis=1)[:, 0] == 1).all()  # every member has a rank-1 variable
        _render(fig, tmp_path, "ranks")
        fig = plot_rank_heatmap(members, scope="cross_family", epsilon=0.5, max_members=2)
        assert fig.axes[0].images[0].get_array().shape[0] == 2
        _render(fig, tmp_path, "ranks2")
    with pytest.raises(ValueError, match="max_members"):
        plot_rank_heatmap(members, scope="cross_family", epsilon=0.5, max_members=0)


def test_mcr_intervals_and_sensitivity(tables, tmp_path):
    mcr = tables["mcr"]
    with figure_style():
        fig = plot_mcr_intervals(mcr, scope="cross_family", epsilon=0.05, quantity="mr_difference")
        segs = fig.axes[0].collections[0].get_segments()
        assert len(segs) == 3 and all(s[0][0] <= s[1][0] for s in segs)
        _render(fig, tmp_path, "mcr")
        fig = plot_epsilon_sensitivity(mcr, scope="cross_family", ncols=2)
        assert sum(ax.get_visible() for ax in fig.axes) == 3
        _render(fig, tmp_path, "eps")
    with pytest.raises(ValueError, match="quantity"):
        plot_mcr_intervals(mcr, scope="cross_family", epsilon=0.05, quantity="gain")
    with pytest.raises(ValueError, match="no rows"):
        plot_mcr_intervals(mcr, scope="knn", epsilon=0.05)
    with pytest.raises(ValueError, match="unknown features"):
        plot_epsilon_sensitivity(mcr, scope="cross_family", features=["zzz"])


def test_pd_envelope(tables, tmp_path):
    members, groups, X = tables["members"], tables["groups"], tables["X"]
    sel = select_set(members, "cross_family", 0.5)
    ref = sel[sel["is_reference_cross_family"]].iloc[0]
    envs, curves = {}, {}
    grid = feature_grid(X[:, 0], 15)
    pdm = members_partial_dependence(groups, X, [0], grid)
    envs["a"], curves["a"] = pd_envelope(pdm, (ref["family"], ref["config_id"]), members=sel, grid=grid), pdm
    levels = onehot_grid(X[:, 2:4])
    pdm = members_partial_dependence(groups, X, [2, 3], levels)
    envs["s"] = pd_envelope(
        pdm, (ref["family"], ref["config_id"]), members=sel, grid=[f"level {i}" for i in range(len(levels))]
    )
    with figure_style():
        fig = plot_pd_envelope(envs, curves=curves)
        assert len(fig.axes) == 2
        _render(fig, tmp_path, "pd")
    with pytest.raises(ValueError, match="no envelopes"):
        plot_pd_envelope({})
    with pytest.raises(ValueError, match="'x'"):
        plot_pd_envelope({"a": envs["a"].drop(columns="x")})


def test_pd_envelope_table_round_trip(tables, tmp_path):
    env, curves = pd_envelope_table(
        tables["groups"],
        tables["members"],
        tables["X"],
        scope="cross_family",
        epsilon=0.5,
        feature_names=NAMES,
        feature_groups={"s": ["s_F", "s_M"]},
        top_k=3,
        curve_options=CurveOptions(resolution=10),
    )
    assert set(env["feature"]) == {"a", "b", "s"}
    assert env.loc[env["feature"] == "s", "x"].tolist() == ["s_F", "s_M"]
    assert (env["pd_min"] <= env["pd_reference"] + 1e-12).all() and (env["pd_reference"] <= env["pd_max"] + 1e-12).all()
    n = select_set(tables["members"], "cross_family", 0.5)[["family", "config_id"]].drop_duplicates().shape[0]
    assert (env["n_members"] == n).all()
    path = tmp_path / "env.csv"
    env.to_csv(path, index=False)
    back = pd.read_csv(path)  # mixed numeric / label x column, as the figure rule reads it
    with figure_style():
        fig = plot_pd_envelope(back, curves=curves)
        assert len(fig.axes) == 3
        _render(fig, tmp_path, "pd_table")
    with pytest.raises(ValueError, match="top_k"):
        pd_envelope_table(
            tables["groups"],
            tables["members"],
            tables["X"],
            scope="cross_family",
            epsilon=0.5,
            feature_names=NAMES,
            top_k=0,
        )
