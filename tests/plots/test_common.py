"""The plot modules' shared steps: the input check names what is wrong, the heatmap numbers stand in
the finite cells only with a readable colour, the finishing step sets the title only when given."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from xaipipe.plots._common import annotate_cells, check_table, finish
from xaipipe.plots.style import figure_style


def test_check_table_returns_the_table_or_names_the_problem():
    table = pd.DataFrame({"a": [1.0], "b": [2.0]})
    assert check_table(table, ["a", "b"], "some table") is table
    with pytest.raises(TypeError, match="some table must be a DataFrame, got dict"):
        check_table({"a": [1.0]}, ["a"], "some table")
    with pytest.raises(TypeError, match="^coverage must be a DataFrame"):
        check_table([1.0], ["a"], "coverage table", frame_name="coverage")
    with pytest.raises(ValueError, match=r"some table lacks columns \['c'\]"):
        check_table(table, ["a", "c"], "some table")
    with pytest.raises(ValueError, match="some table is empty"):
        check_table(table.iloc[:0], ["a"], "some table")


def test_annotate_cells_writes_the_finite_cells_row_by_row():
    import matplotlib.pyplot as plt

    values = np.array([[1.0, np.nan], [3.0, 4.0]])
    with figure_style():
        fig, ax = plt.subplots()
        annotate_cells(ax, values, lambda v: f"{int(v)}", lambda v: v < 2)
    texts = ax.texts
    assert [t.get_text() for t in texts] == ["1", "3", "4"]  # NaN cell left blank
    assert [t.get_position() for t in texts] == [(0, 0), (0, 1), (1, 1)]  # (column, row)
    assert [t.get_color() for t in texts] == ["white", "black", "black"]
    assert {t.get_fontsize() for t in texts} == {6}
    plt.close(fig)


def test_finish_sets_a_given_title_only_and_returns_the_figure():
    import matplotlib.pyplot as plt

    with figure_style():
        fig, ax = plt.subplots()
        assert finish(fig, ax, "a title") is fig
        assert ax.get_title() == "a title"
        fig2, ax2 = plt.subplots()
        assert finish(fig2, ax2, None) is fig2
        assert ax2.get_title() == ""
    plt.close(fig)
    plt.close(fig2)


def test_row_title_names_the_row_its_output_and_unit():
    from types import SimpleNamespace

    from xaipipe.plots.shap import row_title

    result = SimpleNamespace(row_index=np.array([7, 42]), model_output=np.array([1.0, 12.3456]))
    assert row_title(result, 1, "highest output", "prediction, MPa") == (
        "highest output - row 42: f(x) = 12.3 (prediction, MPa)"
    )
