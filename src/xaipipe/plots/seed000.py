"""000 Figs 4.1 and 4.2: a preview of the data and the feature importance before SHAP.

Seed 000 (§4.1.1) opens its practical chapter with

* Fig. 4.1, "Previsualización de los datos": the variable to predict drawn
  against each explanatory variable separately (from which, the text says, no
  information can be read) - :func:`plot_response_vs_features`, one small panel
  per feature: for a binary response, the feature's distribution in each class
  (box plots, since a 0/1 response against a continuous feature is two lines of
  points); for a continuous response, a scatter plot;
* Fig. 4.2, "Resultados importancia de características previo a SHAP": the
  model's *Feature Importance* (FI, built into the tree model: split-gain /
  impurity importance) and its *Permutation Feature Importance* (PFI, the loss
  increase when a feature is permuted), "which features are most important to
  the model and which affect its accuracy most" - :func:`plot_importance_before_shap`,
  two bar panels side by side from a table of both.

The seed's data are private; the pipeline draws these figures on Breast Cancer
(docs/shap_lime.md).  Inputs are DataFrames (stored results), outputs Figures.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from .style import figure_style

__all__ = ["plot_response_vs_features", "plot_importance_before_shap"]


def plot_response_vs_features(
    frame: pd.DataFrame,
    target: str,
    features: Sequence[str] | None = None,
    *,
    kind: str = "auto",
    n_cols: int = 6,
    max_points: int = 2000,
    random_state: int = 0,
    title: str | None = None,
):
    """000 Fig. 4.1: the response against each feature, one small panel per feature.

    Parameters
    ----------
    frame : DataFrame
        The prepared table (features and target columns).
    target : str
        Response column.
    features : sequence of str, optional
        Default: every column except ``target`` and ``row_id``.
    kind : {"auto", "box", "scatter"}, default="auto"
        ``"box"``: box plots of the feature per response class (x = class, y =
        feature); ``"scatter"``: feature (x) against response (y).  ``"auto"``:
        box for a response with at most 10 distinct values, else scatter.
    n_cols : int, default=6
        Panels per row.
    max_points : int, default=2000
        Scatter plots draw a seeded subsample of at most this many rows.
    random_state : int, default=0
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
        One axes per feature (unused grid cells hidden), titled by the feature.

    Raises
    ------
    ValueError
        Missing columns (named), non-numeric features, bad ``kind`` / ``n_cols``.
    """
    import matplotlib.pyplot as plt

    if not isinstance(frame, pd.DataFrame):
        raise ValueError(f"frame must be a DataFrame, got {type(frame).__name__}")
    if target not in frame.columns:
        raise ValueError(f"target column {target!r} not in the table; columns: {list(frame.columns)}")
    if features is None:
        features = [c for c in frame.columns if c not in (target, "row_id")]
    features = list(features)
    missing = [c for c in features if c not in frame.columns]
    if missing or not features:
        raise ValueError(f"feature columns {missing} not in the table" if missing else "no features to draw")
    non_numeric = [c for c in features if not pd.api.types.is_numeric_dtype(frame[c])]
    if non_numeric:
        raise ValueError(f"feature columns {non_numeric} are not numeric")
    if kind not in ("auto", "box", "scatter"):
        raise ValueError(f"kind must be 'auto', 'box' or 'scatter', got {kind!r}")
    if isinstance(n_cols, bool) or not isinstance(n_cols, (int, np.integer)) or n_cols < 1:
        raise ValueError(f"n_cols must be a positive integer, got {n_cols!r}")
    y = frame[target]
    if kind == "auto":
        kind = "box" if y.nunique() <= 10 else "scatter"
    n_cols = min(int(n_cols), len(features))
    n_rows = math.ceil(len(features) / n_cols)
    with figure_style():
        fig, axes = plt.subplots(
            n_rows, n_cols, figsize=(2.1 * n_cols, 1.9 * n_rows), squeeze=False, layout="constrained"
        )
        colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
        if kind == "scatter":
            take = np.arange(len(frame))
            if len(frame) > max_points:
                take = np.sort(np.random.default_rng(random_state).choice(len(frame), max_points, replace=False))
        classes = sorted(y.unique().tolist()) if kind == "box" else None
        for ax, col in zip(axes.flat, features):
            if kind == "box":
                groups = [frame.loc[y == c, col].to_numpy(dtype=float) for c in classes]
                ax.boxplot(groups, tick_labels=[str(c) for c in classes], widths=0.6, flierprops={"markersize": 2})
                ax.set_xlabel(target, fontsize="x-small")
            else:
                ax.scatter(
                    frame[col].to_numpy()[take], y.to_numpy()[take], s=3, alpha=0.4, color=colors[0], linewidths=0
                )
                ax.set_ylabel(target, fontsize="x-small")
            ax.set_title(col, fontsize="small")
            ax.tick_params(labelsize="x-small")
        for ax in list(axes.flat)[len(features) :]:
            ax.set_visible(False)
        if title:
            fig.suptitle(title)
    return fig


def plot_importance_before_shap(
    importance: pd.DataFrame,
    *,
    feature: str = "feature",
    builtin: str = "builtin_importance",
    permutation: str = "permutation_importance",
    permutation_std: str | None = None,
    builtin_label: str = "feature importance (split gain)",
    permutation_label: str = "permutation feature importance",
    max_display: int = 15,
    title: str | None = None,
):
    """000 Fig. 4.2: built-in feature importance (FI) and permutation importance (PFI) side by side.

    Parameters
    ----------
    importance : DataFrame
        One row per feature with the two importances (e.g. the pipeline's
        split-gain table joined with model reliance / PFI on the test rows).
    feature, builtin, permutation : str
        Column names of the feature, FI and PFI.
    permutation_std : str, optional
        Column with the PFI's standard deviation over repeats (error bars).
    builtin_label, permutation_label : str
        Axis labels (state the units: split gain, loss increase, ratio...).
    max_display : int, default=15
        Features per panel, the largest first (each panel sorted by its own
        importance, as the seed's two separate bar charts).
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
        Two axes: FI (left) and PFI (right).

    Raises
    ------
    ValueError
        Missing columns (named), duplicate features, non-finite importances.
    """
    import matplotlib.pyplot as plt

    if not isinstance(importance, pd.DataFrame):
        raise ValueError(f"importance must be a DataFrame, got {type(importance).__name__}")
    cols = [feature, builtin, permutation] + ([permutation_std] if permutation_std else [])
    missing = [c for c in cols if c not in importance.columns]
    if missing:
        raise ValueError(f"importance table lacks columns {missing}; columns: {list(importance.columns)}")
    if importance[feature].duplicated().any():
        raise ValueError(f"duplicate features in column {feature!r}")
    values = importance[cols[1:]].to_numpy(dtype=float)
    if not np.all(np.isfinite(values)):
        raise ValueError("importances must be finite")
    if isinstance(max_display, bool) or not isinstance(max_display, (int, np.integer)) or max_display < 1:
        raise ValueError(f"max_display must be a positive integer, got {max_display!r}")
    k = min(int(max_display), len(importance))
    with figure_style():
        fig, axes = plt.subplots(1, 2, figsize=(9.5, 0.3 * k + 1.3), layout="constrained")
        colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
        for ax, col, label, color in [
            (axes[0], builtin, builtin_label, colors[0]),
            (axes[1], permutation, permutation_label, colors[1 % len(colors)]),
        ]:
            top = importance.iloc[np.argsort(-importance[col].to_numpy(dtype=float), kind="stable")[:k]][::-1]
            err = top[permutation_std].to_numpy(dtype=float) if (permutation_std and col == permutation) else None
            ax.barh(np.arange(k), top[col].to_numpy(dtype=float), xerr=err, color=color)
            ax.set_yticks(np.arange(k), [str(f) for f in top[feature]])
            ax.set_xlabel(label)
        axes[0].set_title("FI", loc="left")
        axes[1].set_title("PFI", loc="left")
        if title:
            fig.suptitle(title)
    return fig
