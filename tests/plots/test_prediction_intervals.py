"""The Rashomon prediction-interval figure: drawn from the rule's table, three panels, the kink where
the exact linear set's mean correction turns negative, and an empty table refused."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tests.rashomon.test_prediction_intervals import _members, _prepared
from xaipipe.plots.prediction_intervals import kink_slack, plot_prediction_intervals
from xaipipe.plots.style import figure_style, save_figure
from xaipipe.rashomon.prediction_intervals import prediction_interval_tables


def test_the_figure_and_its_kink(tmp_path):
    data = _prepared(n_train=300, n_test=300, seed=11)
    P, index, members = _members(data)
    t = prediction_interval_tables(data, P, index, members, epsilons=[0.0, 1.0], default_epsilon=1.0, n_splits=5)
    intervals = t.intervals
    path = intervals[(intervals["scope"] == "linear_exact") & intervals["epsilon"].isna()]
    kink = kink_slack(path)
    ordered = path.sort_values("relative_slack")
    assert (ordered.loc[ordered["relative_slack"] < kink, "correction"] > 0).all()
    assert ordered.loc[ordered["relative_slack"] == kink, "correction"].iloc[0] <= 0
    with figure_style():
        fig = plot_prediction_intervals(intervals, title="toy", target_unit="dB")
        assert len(fig.axes) == 3
        assert any(np.allclose(line.get_xdata(), kink) for line in fig.axes[0].lines)
        assert "dB" in fig.axes[0].get_ylabel()
        save_figure(fig, tmp_path / "pi.pdf", tmp_path / "pi.png")
    assert (tmp_path / "pi.png").stat().st_size > 1000


def test_no_kink_when_the_range_never_covers_alone():
    path = pd.DataFrame({"relative_slack": [0.0, 1.0, 2.0], "correction": [2.0, 1.0, 0.5]})
    assert np.isnan(kink_slack(path))


def test_an_empty_table_is_refused():
    with pytest.raises(ValueError, match="no rows"):
        plot_prediction_intervals(pd.DataFrame())
