"""Smoke tests of the learner-PD / learner-PFI figures: they render to PNG, the
bands and error bars are the table's intervals, bad input is rejected."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from xaipipe.plots.learner import plot_learner_pd, plot_learner_pfi
from xaipipe.plots.style import figure_style, save_figure


def _pd_table():
    rows = []
    for name, levels in (("a", None), ("b", None), ("Sex", ["Sex_F", "Sex_I", "Sex_M"])):
        n = 3 if levels else 5
        for i in range(n):
            m = float(i) if name == "a" else float(i) ** 2
            rows.append(
                {
                    "feature": name,
                    "grid_index": i,
                    "grid_value": float(i) / 2 if not levels else float(i),
                    "level": levels[i] if levels else "",
                    "output": "predict",
                    "mean": m,
                    "ci_low": m - 0.4,
                    "ci_high": m + 0.4,
                    "ci_low_naive": m - 0.1,
                    "ci_high_naive": m + 0.1,
                    "n_refits": 10,
                    "n_train": 190,
                    "n_test": 110,
                    "confidence": 0.95,
                }
            )
    return pd.DataFrame(rows)


def _pfi_table():
    rows = []
    for name, m in (("a", 0.2), ("b", 0.9), ("c", -0.01)):
        rows.append(
            {
                "feature": name,
                "estimator": "permutation",
                "loss": "squared_error",
                "mr_difference_mean": m,
                "mr_difference_ci_low": m - 0.3,
                "mr_difference_ci_high": m + 0.3,
                "mr_difference_ci_low_naive": m - 0.05,
                "mr_difference_ci_high_naive": m + 0.05,
                "mr_ratio_mean": 1 + m,
                "mr_ratio_ci_low": 1 + m - 0.2,
                "mr_ratio_ci_high": 1 + m + 0.2,
                "mr_ratio_ci_low_naive": 1 + m - 0.02,
                "mr_ratio_ci_high_naive": 1 + m + 0.02,
                "n_refits": 10,
                "n_train": 190,
                "n_test": 110,
                "confidence": 0.95,
            }
        )
    return pd.DataFrame(rows)


def _band_extent(poly):
    ys = poly.get_paths()[0].vertices[:, 1]
    return round(float(ys.min()), 9), round(float(ys.max()), 9)


def test_learner_pd_panels_bands_and_levels(tmp_path):
    table = _pd_table()
    with figure_style():
        fig = plot_learner_pd(table, ncols=2, truth={"b": lambda z: (2 * z) ** 2})
        visible = [ax for ax in fig.axes if ax.get_visible()]
        assert len(visible) == 3 and len(fig.axes) == 4
        ax_b = visible[1]
        bands = [c for c in ax_b.collections if type(c).__name__ in ("PolyCollection", "FillBetweenPolyCollection")]
        assert len(bands) == 2  # corrected and naive
        assert _band_extent(bands[0]) == (-0.4, 16.4)
        assert _band_extent(bands[1]) == (-0.1, 16.1)
        truth = [ln for ln in ax_b.get_lines() if ln.get_linestyle() == "--"]
        np.testing.assert_allclose(truth[0].get_ydata(), [0, 1, 4, 9, 16])
        ax_sex = visible[2]
        assert [t.get_text() for t in ax_sex.get_xticklabels()] == ["Sex_F", "Sex_I", "Sex_M"]
        out = tmp_path / "learner_pd.png"
        save_figure(fig, out)
    assert out.stat().st_size > 5000


def test_learner_pd_without_naive_and_bad_input(tmp_path):
    with figure_style():
        fig = plot_learner_pd(_pd_table(), features=["a"], show_naive=False)
        bands = [c for c in fig.axes[0].collections if "Poly" in type(c).__name__]
        assert len(bands) == 1
        save_figure(fig, tmp_path / "a.png")
        with pytest.raises(ValueError):
            plot_learner_pd(_pd_table(), features=["zzz"])
        with pytest.raises(ValueError):
            plot_learner_pd(_pd_table().drop(columns="ci_low"))
        with pytest.raises(ValueError):
            plot_learner_pd(pd.concat([_pd_table().assign(model="rf"), _pd_table().assign(model="gb")]))
        with pytest.raises(ValueError):
            plot_learner_pd(_pd_table(), truth={"a": [1.0, 2.0]})
        with pytest.raises(ValueError):
            plot_learner_pd(_pd_table(), ncols=0)


@pytest.mark.parametrize("measure, ref", [("mr_difference", 0.0), ("mr_ratio", 1.0)])
def test_learner_pfi_bars_sorted_with_both_intervals(tmp_path, measure, ref):
    with figure_style():
        fig = plot_learner_pfi(_pfi_table(), measure=measure)
        ax = fig.axes[0]
        assert [t.get_text() for t in ax.get_yticklabels()] == ["b", "a", "c"]
        assert {round(p.get_x(), 9) for p in ax.patches} == {ref}
        widths = []
        for cont in ax.containers:
            if type(cont).__name__ == "ErrorbarContainer":
                segs = cont.lines[2][0].get_segments()
                widths.append(sorted(round(s[1][0] - s[0][0], 9) for s in segs))
        half = 0.3 if measure == "mr_difference" else 0.2
        naive = 0.05 if measure == "mr_difference" else 0.02
        assert sorted(widths) == sorted([[2 * half] * 3, [2 * naive] * 3])
        out = tmp_path / f"pfi_{measure}.png"
        save_figure(fig, out)
    assert out.stat().st_size > 3000


def test_learner_pfi_rejects_bad_input():
    with figure_style():
        with pytest.raises(ValueError):
            plot_learner_pfi(_pfi_table(), measure="shap")
        with pytest.raises(ValueError):
            plot_learner_pfi(pd.concat([_pfi_table(), _pfi_table()]))
        with pytest.raises(TypeError):
            plot_learner_pfi([1, 2])
