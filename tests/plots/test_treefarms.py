"""The TreeFARMS figure: drawn from the rule's tables, one bar per variable for the exact set and one
for the grid where it has one, the set's size on a log axis; empty tables refused."""

from __future__ import annotations

import pandas as pd
import pytest

from tests.rashomon.test_treefarms import _data
from xaipipe.plots.style import figure_style, save_figure
from xaipipe.plots.treefarms import plot_treefarms
from xaipipe.rashomon.treefarms import treefarms_scope


def test_the_figure(tmp_path):
    out = treefarms_scope(_data(), epsilons=[0.0, 1.0], n_thresholds=1, n_repeats=2, max_trees=20)
    with figure_style():
        fig = plot_treefarms(out.summary, out.mcr, epsilon=1.0, title="toy")
        assert len(fig.axes) == 2 and fig.axes[1].get_yscale() == "log"
        assert len(fig.axes[0].get_yticklabels()) == 4
        save_figure(fig, tmp_path / "t.pdf", tmp_path / "t.png")
    assert (tmp_path / "t.png").stat().st_size > 1000
    with pytest.raises(ValueError, match="no rows"):
        plot_treefarms(pd.DataFrame(), out.mcr, epsilon=1.0)
    note = pd.DataFrame({"note": ["3 classes: TreeFARMS enumerates binary classification trees, so no set"]})
    with figure_style():
        fig = plot_treefarms(note, out.mcr.iloc[:0], epsilon=1.0)
    assert "3 classes" in fig.axes[0].texts[0].get_text()
