"""One matplotlib style for every figure, and atomic PDF + PNG output."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

__all__ = [
    "STYLE_FILE",
    "DIVERGING_CMAP",
    "SEQUENTIAL_CMAP",
    "QUALITATIVE_CMAPS",
    "figure_style",
    "qualitative_colours",
    "save_figure",
]

#: Default style file (fonts, sizes, Okabe-Ito colour-blind-safe palette).
STYLE_FILE = Path(__file__).with_name("thesis.mplstyle")
#: Diverging colour map for signed quantities (correlations, SHAP values).
DIVERGING_CMAP = "RdBu_r"
#: Sequential colour map (colour-blind safe, perceptually uniform).
SEQUENTIAL_CMAP = "cividis"
#: Qualitative colour maps of :func:`qualitative_colours` past the style's colour cycle (60 colours).
QUALITATIVE_CMAPS = ("tab20", "tab20b", "tab20c")
_LINESTYLES = ("-", "--", "-.", ":")


def qualitative_colours(n: int) -> list[tuple[str, str]] | None:
    """``n`` distinct (colour, line style) pairs for the levels of one variable, or None.

    None while ``n`` fits the current style's colour cycle (the thesis style: 8 Okabe-Ito colours),
    so that figures of few levels keep the cycle's colours; otherwise the colours of
    :data:`QUALITATIVE_CMAPS`, ``tab20``'s ten dark hues before its ten light ones (neighbouring
    levels differ in hue), then ``tab20b`` and ``tab20c``; past 60 levels the line style changes
    with each round of colours.

    Raises
    ------
    ValueError
        ``n < 0``.
    """
    import matplotlib as mpl
    from matplotlib.colors import to_hex

    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    cycle = mpl.rcParams["axes.prop_cycle"].by_key().get("color", [])
    if n <= len(cycle):
        return None
    tab20 = [to_hex(c) for c in mpl.colormaps["tab20"].colors]
    colours = tab20[0::2] + tab20[1::2]
    for name in QUALITATIVE_CMAPS[1:]:
        colours += [to_hex(c) for c in mpl.colormaps[name].colors]
    k = len(colours)
    return [(colours[i % k], _LINESTYLES[(i // k) % len(_LINESTYLES)]) for i in range(n)]


@contextlib.contextmanager
def figure_style(style: str | os.PathLike | None = None) -> Iterator[None]:
    """Context manager applying the thesis style (or ``style``, a .mplstyle path).

    Uses the non-interactive Agg backend, so figures render without a display.
    """
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    with plt.style.context(str(style or STYLE_FILE)):
        yield


def save_figure(fig, *paths: str | os.PathLike) -> None:
    """Save ``fig`` to every path (format from the suffix, e.g. .pdf and .png)
    atomically, then close it. PDF metadata dates are fixed so that re-rendering
    the same figure gives the same bytes."""
    import matplotlib.pyplot as plt

    from ..io import atomic_path

    try:
        for path in paths:
            kwargs = {}
            if str(path).endswith(".pdf"):
                kwargs["metadata"] = {"CreationDate": None, "ModDate": None, "Producer": None, "Creator": None}
            elif str(path).endswith(".png"):
                kwargs["metadata"] = {"Software": None}
            with atomic_path(path) as tmp:
                fig.savefig(tmp, **kwargs)
    finally:
        plt.close(fig)
