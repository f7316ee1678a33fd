"""Steps that many plot modules share: checking an input table, writing numbers into the cells of
a heatmap, finishing a one-axes figure (title, layout), and a figure that only says why there is
nothing to draw.

Each helper makes exactly the calls the plot functions made inline before, in the same order, so
a figure drawn through them has the same bytes.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

__all__ = ["annotate_cells", "check_table", "finish", "placeholder"]


def check_table(table, needed: Sequence[str], what: str, *, frame_name: str | None = None) -> pd.DataFrame:
    """``table`` itself once it is a non-empty DataFrame with every column of ``needed``.

    Parameters
    ----------
    table : DataFrame
    needed : sequence of str
        Columns that must be present.
    what : str
        The table's name in the errors about its columns and its size.
    frame_name : str, optional
        The name in the type error (default ``what``).

    Raises
    ------
    TypeError
        ``table`` is not a DataFrame.
    ValueError
        Missing columns (named) or no rows.
    """
    if not isinstance(table, pd.DataFrame):
        raise TypeError(f"{frame_name or what} must be a DataFrame, got {type(table).__name__}")
    missing = [c for c in needed if c not in table.columns]
    if missing or table.empty:
        raise ValueError(f"{what} lacks columns {missing}" if missing else f"{what} is empty")
    return table


def annotate_cells(ax, values: np.ndarray, label: Callable[[float], str], light: Callable[[float], bool]) -> None:
    """Write ``label(v)`` at the centre of every finite cell ``v`` of a heatmap ``values`` (row by
    row), in white where ``light(v)`` (a dark cell) and black elsewhere, font size 6."""
    for i in range(values.shape[0]):
        for j in range(values.shape[1]):
            if np.isfinite(values[i, j]):
                ax.text(
                    j,
                    i,
                    label(values[i, j]),
                    ha="center",
                    va="center",
                    fontsize=6,
                    color="white" if light(values[i, j]) else "black",
                )


#: Characters per line of a coverage caption below a figure's title (:func:`with_coverage`): about
#: the width of the narrowest figure (5 in) at the title's font size.
CAPTION_WIDTH = 76


def with_coverage(title: str | None, coverage, kind: str) -> str | None:
    """``title`` with the line of ``coverage[kind]`` below it, wrapped at :data:`CAPTION_WIDTH`
    characters (the interval's coverage on the dataset's twin:
    :func:`xaipipe.studies.twin_table.learner_captions`, ``reliance_captions``,
    ``importance_captions``) where the twin audit has run; the caption alone without a title."""
    line = (coverage or {}).get(kind)
    if not line:
        return title
    line = textwrap.fill(line, width=CAPTION_WIDTH, break_on_hyphens=False)
    return f"{title}\n{line}" if title else line


def finish(fig, ax, title: str | None):
    """Set ``ax``'s title when ``title`` is given, lay ``fig`` out tightly and return it."""
    if title:
        ax.set_title(title)
    fig.tight_layout()
    return fig


def placeholder(text: str, *, figsize: tuple[float, float] | None = None, title: str = "", **text_kw):
    """A figure that only says ``text`` (a figure kind with nothing to draw on this table).

    ``figsize`` None: matplotlib's default size; ``text_kw``: further ``Axes.text`` keywords (``va``);
    ``title``: a small axes title when given.
    """
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=figsize)
    ax.text(0.5, 0.5, text, ha="center", **text_kw)
    ax.set_axis_off()
    if title:
        ax.set_title(title, fontsize="small")
    return fig
