"""One matplotlib style for every figure, and atomic PDF + PNG output."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

__all__ = ["STYLE_FILE", "DIVERGING_CMAP", "SEQUENTIAL_CMAP", "figure_style", "save_figure"]

#: Default style file (fonts, sizes, Okabe-Ito colour-blind-safe palette).
STYLE_FILE = Path(__file__).with_name("thesis.mplstyle")
#: Diverging colour map for signed quantities (correlations, SHAP values).
DIVERGING_CMAP = "RdBu_r"
#: Sequential colour map (colour-blind safe, perceptually uniform).
SEQUENTIAL_CMAP = "cividis"


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
