"""The SAGE figure (xaipipe.plots.sage): bars ± 1.96 SE in SAGE order beside MR of the same variables."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import pytest

from xaipipe.plots.sage import Z95, plot_sage


def _tables():
    sage = pd.DataFrame(
        {
            "feature": ["a", "g", "c"],
            "sage": [0.2, 1.0, -0.01],
            "sage_se": [0.02, 0.05, 0.01],
            "loss": "squared_error",
            "converged": True,
        }
    )
    mr = pd.DataFrame(
        {
            "feature": ["a", "g", "c"] * 2,
            "estimator": ["permutation"] * 3 + ["e_divide"] * 3,
            "loss": "squared_error",
            "mr_difference": [0.5, 0.3, 0.0, 9, 9, 9],
            "mr_difference_se": [0.05, 0.03, 0.01, 1, 1, 1],
        }
    )
    return sage, mr


def test_bars_in_sage_order_with_95_intervals_and_mr_ranks():
    sage, mr = _tables()
    fig = plot_sage(sage, mr, title="d / m")
    left, right = fig.axes
    assert [t.get_text() for t in left.get_yticklabels()] == ["g", "a", "c"]
    widths = [p.get_width() for p in left.patches]
    assert widths == pytest.approx([1.0, 0.2, -0.01])
    assert [p.get_width() for p in right.patches] == pytest.approx([0.3, 0.5, 0.0])  # permutation rows, SAGE order
    assert [t.get_text() for t in right.texts] == ["#2", "#1", "#3"]
    segments = left.collections[0].get_segments()  # the error bars: ± 1.96 SE
    assert np.ptp(segments[0][:, 0]) == pytest.approx(2 * Z95 * 0.05)
    assert "1.96" in left.get_xlabel()


def test_mismatched_tables_are_refused():
    sage, mr = _tables()
    with pytest.raises(ValueError, match="variables differ"):
        plot_sage(sage, mr[mr["feature"] != "c"])
    with pytest.raises(ValueError, match="no MR rows"):
        plot_sage(sage, mr, estimator="e_switch")
