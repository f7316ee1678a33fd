"""Smoke tests of the RID figures: they render to PNG, the boxes are the RID's
weighted quantiles, the MCR segments its percentile intervals, bad input is
rejected. Tables are built by hand (no model fitting)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from xaipipe.plots.bootstrap import plot_rid, plot_rid_cdf, plot_set_sizes
from xaipipe.plots.style import figure_style, save_figure
from xaipipe.rashomon.rid import mcr_per_resample, mcr_summary, rid_summary


def _reliance():
    """4 resamples with sets of 1, 2, 3, 2 members; feature 'a' more important than 'b'."""
    rng = np.random.default_rng(0)
    rows = []
    for b, size in enumerate([1, 2, 3, 2]):
        for k in range(size):
            for f, centre in (("a", 3.0), ("b", 1.2)):
                ratio = centre + rng.normal(0, 0.2)
                rows.append(
                    {
                        "bootstrap": b,
                        "family": "gradient_boosting",
                        "config_id": f"c{k}",
                        "feature": f,
                        "estimator": "permutation",
                        "loss": "squared_error",
                        "e_orig": 1.0,
                        "e_switch": ratio,
                        "mr_ratio": ratio,
                        "mr_difference": ratio - 1.0,
                        "set_size": size,
                        "weight": 1.0 / size,
                    }
                )
    return pd.DataFrame(rows)


def test_rid_boxes_are_weighted_quantiles_and_mcr_segments(tmp_path):
    rel = _reliance()
    mcr = mcr_per_resample(rel)
    with figure_style():
        fig = plot_rid(rel, mcr, confidence=0.9)
        ax = fig.axes[0]
        assert [t.get_text() for t in ax.get_yticklabels()] == ["a", "b"]
        summ = rid_summary(rel, probs=(0.05, 0.25, 0.5, 0.75, 0.95)).set_index("feature")
        boxes = sorted(ax.patches, key=lambda p: p.get_y())
        for box, f in zip(boxes, ["a", "b"]):
            assert box.get_x() == pytest.approx(summ.loc[f, "q0.25"])
            assert box.get_x() + box.get_width() == pytest.approx(summ.loc[f, "q0.75"])
        ms = mcr_summary(mcr, confidence=0.9)
        ms = ms[ms.quantity == "mr_ratio"].set_index("feature")
        lines = {tuple(np.round(ln.get_xdata(), 9)) for ln in ax.get_lines()}
        for f in ("a", "b"):
            assert tuple(np.round([ms.loc[f, "mcr_minus_low"], ms.loc[f, "mcr_minus_high"]], 9)) in lines
            assert tuple(np.round([ms.loc[f, "mcr_plus_low"], ms.loc[f, "mcr_plus_high"]], 9)) in lines
        out = tmp_path / "rid.png"
        save_figure(fig, out)
    assert out.stat().st_size > 5000


def test_rid_cdf_and_set_sizes_render(tmp_path):
    rel = _reliance()
    sizes = pd.DataFrame({"bootstrap": range(4), "set_size": [1, 2, 3, 2], "n_models": 60})
    with figure_style():
        fig = plot_rid_cdf(rel, quantity="mr_difference")
        ys = [ln.get_ydata() for ln in fig.axes[0].get_lines() if len(ln.get_ydata()) > 2]
        assert len(ys) == 2
        for y in ys:
            assert y[0] == 0.0 and y[-1] == pytest.approx(1.0) and (np.diff(y) >= -1e-12).all()
        save_figure(fig, tmp_path / "cdf.png")
        fig = plot_set_sizes(sizes)
        assert [p.get_height() for p in fig.axes[0].patches] == [1, 2, 3, 2]
        save_figure(fig, tmp_path / "sizes.png")
    assert (tmp_path / "cdf.png").stat().st_size > 3000
    assert (tmp_path / "sizes.png").stat().st_size > 2000


def test_rid_plots_reject_bad_input():
    rel = _reliance()
    with figure_style():
        with pytest.raises(ValueError):
            plot_rid(rel, quantity="shap")
        with pytest.raises(ValueError):
            plot_rid(rel, confidence=1.0)
        with pytest.raises(ValueError):
            plot_rid(rel.assign(weight=1.0))  # weights must sum to 1 per resample
        with pytest.raises(ValueError):
            plot_rid(pd.concat([rel.assign(dataset="x"), rel.assign(dataset="y")]))
        with pytest.raises(ValueError):
            plot_rid_cdf(rel, features=["zzz"])
        with pytest.raises(ValueError):
            plot_set_sizes(pd.DataFrame({"bootstrap": [0]}))
