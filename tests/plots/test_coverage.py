"""The coverage figure: panels, the plotted points and error bars are the table's, bad input is rejected."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from xaipipe.plots.coverage import plot_coverage
from xaipipe.plots.style import figure_style, save_figure
from xaipipe.studies.coverage import COVERAGE_COLUMNS


def _table(families=("gradient_boosting",), epsilons=(1.0,)):
    rows = []
    base = dict(
        scope="",
        epsilon_mode="",
        epsilon=np.nan,
        grid_value=np.nan,
        n_intervals=100,
        n_repetitions=100,
        n=500,
        mean_width=1.0,
        mean_error=0.1,
    )
    for fam in families:
        for q in ("learner_pd", "learner_mr_ratio", "learner_mr_difference"):
            for interval, shift in (("corrected", 0.0), ("naive", -0.3)):
                for target, t_shift in (("f_star", -0.1), ("learner", 0.0)):
                    for c in (0.5, 0.8, 0.9, 0.95):
                        for feature in ("x1", "all"):
                            rows.append(
                                {
                                    **base,
                                    "quantity": q,
                                    "interval": interval,
                                    "target": target,
                                    "family": fam,
                                    "feature": feature,
                                    "nominal": c,
                                    "coverage": max(c + shift + t_shift, 0.0),
                                    "coverage_se": 0.02,
                                }
                            )
    for eps in epsilons:
        for q in ("mcr_ratio", "mcr_difference"):
            for scope in ("cross_family", "linear_exact"):
                for interval in ("mcr", "population_members"):
                    if scope == "linear_exact" and interval != "mcr":
                        continue
                    for k, feature in enumerate(("x1", "x2", "x6", "active", "irrelevant", "all")):
                        rows.append(
                            {
                                **base,
                                "quantity": q,
                                "interval": interval,
                                "target": "f_star",
                                "family": "",
                                "scope": scope,
                                "epsilon_mode": "se",
                                "epsilon": eps,
                                "feature": feature,
                                "nominal": np.nan,
                                "coverage": k / 10,
                                "coverage_se": 0.01 * (k + 1),
                            }
                        )
    return pd.DataFrame(rows)[COVERAGE_COLUMNS]


def _errorbar_points(ax):
    """(x, y) of the data lines of every errorbar container in ``ax``."""
    out = []
    for cont in ax.containers:
        line = cont.lines[0]
        out.append((np.asarray(line.get_xdata(), dtype=float), np.asarray(line.get_ydata(), dtype=float)))
    return out


def test_panels_points_and_error_bars(tmp_path):
    table = _table()
    with figure_style():
        fig = plot_coverage(table, epsilon=1.0)
        assert len(fig.axes) == 5  # three learner panels, two MCR panels
        ax_pd = fig.axes[0]
        pts = _errorbar_points(ax_pd)
        assert len(pts) == 4  # corrected / naive x f* / learner
        want = table[
            (table["quantity"] == "learner_pd")
            & (table["feature"] == "all")
            & (table["interval"] == "corrected")
            & (table["target"] == "f_star")
        ].sort_values("nominal")
        assert any(np.array_equal(x, want["nominal"]) and np.allclose(y, want["coverage"]) for x, y in pts)
        # error bars: +- 1.96 SE
        cont = ax_pd.containers[0]
        seg = cont.lines[2][0].get_segments()[0]
        np.testing.assert_allclose(abs(seg[1][1] - seg[0][1]), 2 * 1.96 * 0.02)
        ax_mcr = fig.axes[3]
        labels = [t.get_text() for t in ax_mcr.get_xticklabels()]
        assert labels == ["x1", "x2", "x6", "active", "irrelevant", "all"]
        ys = [y for _, y in _errorbar_points(ax_mcr)]
        assert len(ys) == 3  # cross_family (test split, population), linear_exact (test split)
        for y in ys:
            np.testing.assert_allclose(y, np.arange(6) / 10)
        out = tmp_path / "coverage.png"
        save_figure(fig, out, tmp_path / "coverage.pdf")
    assert out.stat().st_size > 10_000


def test_one_row_per_learner_family_and_only_mcr():
    with figure_style():
        fig = plot_coverage(_table(families=("gradient_boosting", "random_forest")), epsilon=1.0)
        assert len(fig.axes) == 8
        only_mcr = _table()
        only_mcr = only_mcr[only_mcr["quantity"].str.startswith("mcr")]
        assert len(plot_coverage(only_mcr).axes) == 2  # one epsilon: no need to name it


def test_bad_input():
    table = _table(epsilons=(0.5, 1.0))
    with figure_style():
        with pytest.raises(ValueError, match="several epsilons"):
            plot_coverage(table)
        with pytest.raises(ValueError, match="not in the table"):
            plot_coverage(table, epsilon=2.0)
        with pytest.raises(ValueError, match="lacks columns"):
            plot_coverage(table.drop(columns="coverage_se"))
        with pytest.raises(ValueError, match="empty"):
            plot_coverage(table.iloc[:0])
        with pytest.raises(TypeError):
            plot_coverage(table.to_dict())
        learner_only = table[table["quantity"].str.startswith("learner")]
        with pytest.raises(ValueError, match="no learner rows"):
            plot_coverage(learner_only, feature="x9")


def test_twin_coverage_draws_every_kind_the_table_has():
    # test loss, OLS and logit rows have no estimator: each still gets its line (a groupby that drops
    # NaN keys left those panels empty)
    from xaipipe.plots.coverage import plot_twin_coverage
    from xaipipe.studies.twin_table import TWIN_COVERAGE_COLUMNS

    rows = []
    kinds = [
        ("learner", "pd", "corrected", "permutation"),
        ("mr", "mr_difference", "se", "e_divide"),
        ("test_loss", "test_loss", "se", None),
        ("ols", "coefficient", "se", None),
    ]
    for kind, quantity, interval, estimator in kinds:
        for target in ("claimed", "planted"):
            for nominal in (0.5, 0.9, 0.95):
                rows.append(
                    {c: None for c in TWIN_COVERAGE_COLUMNS}
                    | {
                        "dataset": "toy",
                        "kind": kind,
                        "quantity": quantity,
                        "estimator": estimator,
                        "interval": interval,
                        "target": target,
                        "nominal": nominal,
                        "feature": "all",
                        "coverage": nominal - 0.02,
                        "coverage_se": 0.01,
                        "n_repetitions": 10,
                    }
                )
    fig = plot_twin_coverage(pd.DataFrame(rows, columns=TWIN_COVERAGE_COLUMNS))
    visible = [ax for ax in fig.axes if ax.get_visible()]
    assert len(visible) == 4
    for ax in visible:  # two targets -> two error-bar lines besides the diagonal
        assert len(ax.containers) == 2, ax.get_title()


def test_seven_twins_get_seven_colours():
    from matplotlib.colors import to_hex

    from xaipipe.plots.coverage import plot_twin_coverage
    from xaipipe.studies.twin_table import TWIN_COVERAGE_COLUMNS

    names = ["diabetes", "concrete", "breast_cancer", "simulated", "airfoil", "wine_quality", "abalone"]
    rows = [
        {c: None for c in TWIN_COVERAGE_COLUMNS}
        | {"dataset": d, "kind": "learner", "quantity": "pd", "estimator": "permutation", "interval": "corrected",
           "target": "claimed", "nominal": 0.95, "feature": "all", "coverage": 0.9, "coverage_se": 0.01,
           "n_repetitions": 10}
        for d in names
    ]  # fmt: skip
    fig = plot_twin_coverage(pd.DataFrame(rows, columns=TWIN_COVERAGE_COLUMNS))
    (ax,) = [a for a in fig.axes if a.get_visible()]
    colours = {to_hex(c.lines[0].get_color()) for c in ax.containers}
    assert len(ax.containers) == 7 and len(colours) == 7
