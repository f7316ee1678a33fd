"""Figures of learner-SHAP importance and learner-ALE with corrected and naive intervals (issue 45).

Inputs: the tables of :func:`xaipipe.explain.learner.learner_shap_table` and
:func:`~xaipipe.explain.learner.learner_ale_table` (``learner_shap.csv``,
``learner_ale.csv`` of one dataset and model). Same encoding as :mod:`xaipipe.plots.learner`: the
corrected interval (Nadeau & Bengio) thin / light, the naive one thick / dark inside it. What the
intervals cover (the ``estimand`` column): the expectation over training sets of ``n_train`` rows
of the refitted learner's SHAP importance / ALE.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

from .learner import _one_model, interval_bars, plot_learner_pd, with_coverage

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["learner_effect_figures", "plot_learner_shap"]

_SHAP_NEEDED = ["feature", "mean", "ci_low", "ci_high", "ci_low_naive", "ci_high_naive"]
_OUTPUTS = {"prediction": "prediction", "log_odds": "log-odds", "probability": "probability", "margin": "margin"}


def _empty(message: str):
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5.0, 1.6))
    ax.axis("off")
    ax.text(0.5, 0.5, message, ha="center", va="center", wrap=True)
    return fig


def plot_learner_shap(table: pd.DataFrame, *, show_naive: bool = True, title: str | None = None):
    """Learner-SHAP importance bars (mean |SHAP value| over refits) with corrected and naive intervals.

    Parameters
    ----------
    table : DataFrame
        :data:`xaipipe.explain.learner.LEARNER_SHAP_COLUMNS` of one model.
    show_naive : bool, default True
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
        Bars from 0 to ``mean``, most important on top; the x label names the SHAP output space.

    Raises
    ------
    ValueError, TypeError
        Missing columns, several models, a variable twice.
    """
    frame = _one_model(table, _SHAP_NEEDED, "learner-SHAP table")
    if frame["feature"].duplicated().any():
        raise ValueError("a feature appears twice in the learner-SHAP table")
    output = str(frame["output"].iloc[0]) if "output" in frame else ""
    return interval_bars(
        frame,
        _SHAP_NEEDED[1:],
        ref=0.0,
        xlabel=f"mean |SHAP value| ({_OUTPUTS.get(output, output or 'model output')})",
        label="learner-SHAP importance",
        show_naive=show_naive,
        title=title,
    )


def learner_effect_figures(
    shap: pd.DataFrame, ale: pd.DataFrame, *, title: str = "", max_features: int = 6, coverage: dict | None = None
) -> dict[str, Figure]:
    """The ``learner_figures`` rule's learner-SHAP bars and learner-ALE bands.

    Parameters
    ----------
    shap, ale : DataFrame
        ``learner_shap.csv`` / ``learner_ale.csv`` of one model (empty: a figure saying so).
    title : str
    max_features : int, default 6
        ALE panels: the variables with the largest learner-SHAP importance (table order without it).
    coverage : dict kind -> str, optional
        As :func:`xaipipe.plots.learner.learner_figures`.

    Returns
    -------
    dict
        ``learner_shap``, ``learner_ale`` -> Figure.
    """
    note = "not computed (config key explain.learner.effects)"
    out = {
        "learner_shap": plot_learner_shap(
            shap, title=with_coverage(f"{title}: learner-SHAP importance", coverage, "learner_shap")
        )
        if len(shap)
        else _empty(f"learner-SHAP importance {note}")
    }
    if not len(ale):
        out["learner_ale"] = _empty(f"learner-ALE {note}")
        return out
    features = list(pd.unique(ale["feature"]))
    if len(shap):
        rank = shap.sort_values("mean", ascending=False, kind="stable")["feature"].tolist()
        features = [f for f in rank if f in set(features)] + [f for f in features if f not in set(rank)]
    out["learner_ale"] = plot_learner_pd(
        ale,
        features=features[:max_features],
        title=with_coverage(f"{title}: learner-ALE", coverage, "learner_ale"),
        quantity="ALE",
    )
    return out
