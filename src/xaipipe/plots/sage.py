"""The SAGE figure: SAGE values with their Monte-Carlo intervals beside MR's ranking (issue 45).

Takes one model's ``sage.csv`` (:func:`xaipipe.explain.sage.sage_table`) and its
``model_reliance.csv``; draws with the current matplotlib style (wrap calls in
:func:`xaipipe.plots.style.figure_style`) and returns the Figure.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ._common import with_coverage

__all__ = ["plot_sage"]

#: two-sided normal quantile of the intervals drawn (the SE is a Monte-Carlo SE of a mean of
#: i.i.d. permutation samples)
Z95 = 1.959963984540054


def plot_sage(
    sage: pd.DataFrame,
    reliance: pd.DataFrame,
    *,
    estimator: str = "permutation",
    quantity: str = "mr_difference",
    title: str | None = None,
    coverage: dict | None = None,
):
    """SAGE bars (± 1.96 SE) and, in the same variable order, the model's MR with its rank.

    Parameters
    ----------
    sage : DataFrame
        One model's SAGE rows (``feature``, ``sage``, ``sage_se``, ``loss``, ``converged``).
    reliance : DataFrame
        The same model's MR rows (``estimator``, ``loss``, ``feature``, ``quantity`` and
        ``{quantity}_se`` when present); the rows of ``estimator`` and of SAGE's loss are drawn.
    estimator, quantity : str
        The MR that ranks the variables (``explain.reliance.ranking``).
    title : str, optional
    coverage : dict, optional
        ``coverage["sage"]``: a caption line below the title, the interval's coverage on the
        dataset's twin (:func:`xaipipe.studies.twin_table.importance_captions`).

    Returns
    -------
    matplotlib.figure.Figure
        Left SAGE bars, right the MR bars with each variable's MR rank, in one variable order.

    Raises
    ------
    ValueError
        Several models or losses in ``sage``, a duplicated variable, no MR rows of ``estimator``
        and SAGE's loss, or variables that differ between the two tables.
    """
    import matplotlib.pyplot as plt

    if sage["feature"].duplicated().any() or sage["loss"].nunique() != 1:
        raise ValueError("sage: expected the rows of one model (each variable once, one loss)")
    loss = str(sage["loss"].iloc[0])
    mr = reliance[(reliance["estimator"] == estimator) & (reliance["loss"] == loss)]
    if mr.empty:
        raise ValueError(f"no MR rows for estimator={estimator!r} and SAGE's loss {loss!r}")
    if set(mr["feature"].astype(str)) != set(sage["feature"].astype(str)):
        raise ValueError(
            f"variables differ: SAGE {sorted(sage['feature'].astype(str))}, MR {sorted(mr['feature'].astype(str))}"
        )
    frame = sage.sort_values(["sage", "feature"], ascending=[False, True], kind="stable")
    names = frame["feature"].astype(str).to_numpy()
    mr = mr.set_index(mr["feature"].astype(str)).reindex(names)
    mr_rank = mr[quantity].rank(ascending=False, method="min").astype(int)
    y = np.arange(len(names))
    fig, (left, right) = plt.subplots(1, 2, sharey=True, figsize=(7.5, max(2.0, 0.3 * len(names) + 1.4)))
    left.barh(
        y,
        frame["sage"],
        xerr=Z95 * frame["sage_se"].to_numpy(dtype=float),
        color="C2",
        ecolor="black",
        capsize=2,
        height=0.7,
        error_kw={"elinewidth": 0.8},
    )
    left.axvline(0.0, color="0.3", linestyle="--", linewidth=0.8)
    left.set_yticks(y, names)
    left.set_ylim(len(names) - 0.5, -0.5)
    converged = bool(frame["converged"].all()) if "converged" in frame else True
    left.set_xlabel(f"SAGE ({loss} reduction)\n(bars: ± 1.96 Monte-Carlo s.e.{'' if converged else '; NOT converged'})")
    left.set_title("SAGE (marginal)")
    err = mr[f"{quantity}_se"].to_numpy(dtype=float) if f"{quantity}_se" in mr else None
    if err is not None and not np.isfinite(err).any():
        err = None
    right.barh(
        y,
        mr[quantity].to_numpy(dtype=float),
        xerr=None if err is None else np.where(np.isfinite(err), err, 0.0),
        color="C0",
        ecolor="black",
        capsize=2,
        height=0.7,
        error_kw={"elinewidth": 0.8},
    )
    for yy, rank in zip(y, mr_rank):
        right.annotate(f"#{rank}", (1.0, yy), xycoords=("axes fraction", "data"), ha="right", va="center", size=7)
    right.axvline(0.0, color="0.3", linestyle="--", linewidth=0.8)
    right.set_xlabel(f"MR {quantity} ({estimator})\n(#: MR rank; bars: ± Monte-Carlo s.e.)")
    right.set_title("Model reliance")
    title = with_coverage(title, coverage, "sage")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig
