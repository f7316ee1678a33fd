"""Figures of PD / ICE / c-ICE / d-ICE and two-way PD (thesis Figs 4.3-4.5, 5.3, 5.6, 5.9).

Conventions (thesis 001 §5, as scikit-learn's ``PartialDependenceDisplay``):
ICE curves thin, light and translucent; the PD dashed and dark; the deciles of
the observed feature values as a rug of ticks on the x axis. The centered PD of
a c-ICE plot is highlighted in vermillion (the thesis' "curva de PDP centrada"
in red, Fig 4.5). d-ICE plots follow ICEbox's ``plot.dice``: the derivative
curves on top, the standard deviation of the derivatives (interaction
indicator) below, on a shared x axis (Goldstein et al. 2015, "Derivative ICE plot").

Every function accepts :class:`~xaipipe.explain.pdp.FeatureEffect` /
:class:`~xaipipe.explain.pdp.PairEffect` objects or the tidy tables of
:func:`~xaipipe.explain.pdp.effects_table` / :func:`~xaipipe.explain.pdp.pair_table`,
and returns a matplotlib Figure; callers apply
:func:`xaipipe.plots.style.figure_style` and save with
:func:`xaipipe.plots.style.save_figure`.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..explain.pdp import FeatureEffect, PairEffect, effect_from_table, pair_from_table
from ._common import finish, placeholder
from .style import SEQUENTIAL_CMAP, qualitative_colours
from .units import with_unit, wrap_label

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "OUTPUT_LABELS",
    "pd_ice_figures",
    "plot_centered_ice",
    "plot_class_pd",
    "plot_class_pd_2d",
    "plot_dice",
    "plot_ice",
    "plot_pd_2d",
]

#: Okabe-Ito colours of the thesis style.
ICE_COLOUR = "#56B4E9"  # sky blue ("celeste claro")
PD_COLOUR = "#000000"
CENTRED_PD_COLOUR = "#D55E00"  # vermillion
SD_COLOUR = "#0072B2"

#: y-axis label per model output.
OUTPUT_LABELS = {
    "predict": "prediction",
    "proba": "predicted probability of class 1",
    "logit": "predicted log-odds of class 1",
    "callable": "model output",
    "": "model output",
}


def _as_effects(effects, features: Sequence[str] | None) -> list[FeatureEffect]:
    if isinstance(effects, pd.DataFrame):
        names = list(features) if features is not None else list(pd.unique(effects["feature"]))
        return [effect_from_table(effects, f) for f in names]
    if isinstance(effects, FeatureEffect):
        effects = [effects]
    out = list(effects)
    if not out:
        raise ValueError("no effects to plot")
    for e in out:
        if not isinstance(e, FeatureEffect):
            raise TypeError(f"expected FeatureEffect or an effects table, got {type(e).__name__}")
    if features is not None:
        by_name = {e.feature: e for e in out}
        missing = [f for f in features if f not in by_name]
        if missing:
            raise ValueError(f"features {missing} not among {sorted(by_name)}")
        out = [by_name[f] for f in features]
    return out


def _subset(n: int, max_curves: int | None, random_state: int) -> np.ndarray:
    if max_curves is None or n <= max_curves:
        return np.arange(n)
    if max_curves < 1:
        raise ValueError(f"max_curves must be >= 1 or None, got {max_curves}")
    return np.sort(np.random.default_rng(random_state).choice(n, size=max_curves, replace=False))


def _rug(ax, values) -> None:
    values = np.asarray(values, dtype=float)
    if values.size:
        ax.vlines(values, 0.0, 0.05, transform=ax.get_xaxis_transform(), color="0.2", linewidth=0.9)


def _ylabel(effect: FeatureEffect, ylabel: str | None, centered: bool, target_unit: str | None = None) -> str:
    base = ylabel or with_unit(OUTPUT_LABELS.get(effect.output, "model output"), effect.output, target_unit)
    return wrap_label(f"centered {base}" if centered else base)


def _pd_label(output: str, target_unit: str | None) -> str:
    """The colour-bar label of a 2-D PD: ``"PD (prediction, MPa)"``."""
    return wrap_label(f"PD ({with_unit(OUTPUT_LABELS.get(output, 'model output'), output, target_unit, inner=True)})")


def _draw_curves(
    ax, effect: FeatureEffect, curves, line, line_label, line_colour, keep, alpha, curve_label: str = "ICE"
) -> None:
    """ICE-like curves + one summary line on ``ax`` (numeric or one-hot feature)."""
    curves = np.asarray(curves)[keep]
    if effect.categorical:
        k = effect.grid.size
        rng = np.random.default_rng(0)
        jitter = rng.uniform(-0.18, 0.18, size=curves.shape)
        ax.scatter(
            (np.arange(k)[None, :] + jitter).ravel(),
            curves.ravel(),
            s=3,
            color=ICE_COLOUR,
            alpha=alpha,
            linewidths=0,
            label=curve_label,
        )
        for j in range(k):
            ax.hlines(
                line[j],
                j - 0.3,
                j + 0.3,
                colors=line_colour,
                linestyles="--",
                linewidth=2.0,
                label=line_label if j == 0 else None,
            )
        ax.set_xticks(np.arange(k), effect.levels, rotation=30 if k > 3 else 0)
        ax.set_xlim(-0.6, k - 0.4)
    else:
        segs = [np.column_stack([effect.grid, c]) for c in curves]
        from matplotlib.collections import LineCollection

        ax.add_collection(LineCollection(segs, colors=ICE_COLOUR, linewidths=0.5, alpha=alpha, label=curve_label))
        ax.plot(effect.grid, line, color=line_colour, linestyle="--", linewidth=2.0, label=line_label)
        ax.autoscale_view()
        _rug(ax, effect.deciles)


def plot_ice(
    effects,
    *,
    features: Sequence[str] | None = None,
    centered: bool | str = False,
    max_curves: int | None = 500,
    random_state: int = 0,
    alpha: float = 0.25,
    ylabel: str | None = None,
    title: str | None = None,
    target_unit: str | None = None,
):
    """ICE curves with the PD (Figs 4.3-4.4, 5.3, 5.6, 5.9), one panel per feature.

    Parameters
    ----------
    effects : FeatureEffect, sequence of FeatureEffect, or DataFrame
        Results of :func:`~xaipipe.explain.pdp.explain_feature`, or an
        :func:`~xaipipe.explain.pdp.effects_table`.
    features : sequence of str, optional
        Features to draw and their order (default: all, in input order).
    centered : bool or "both", default False
        False: ICE + PD. True: c-ICE + centered PD (:func:`plot_centered_ice`).
        ``"both"``: ICE on a first row, c-ICE on a second.
    max_curves : int or None, default 500
        Draw at most this many curves per panel (seeded random subset).
    random_state : int, default 0
    alpha : float, default 0.25
        Opacity of the curves.
    ylabel, title : str, optional
        Default y label from the model output (e.g. "prediction").
    target_unit : str, optional
        The dataset's ``target_unit`` (registry), added to the default y label
        (:func:`xaipipe.plots.units.with_unit`: "prediction (MPa)").

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        Unknown ``centered`` value, unknown features or an empty input.
    """
    import matplotlib.pyplot as plt

    if centered not in (False, True, "both"):
        raise ValueError(f"centered must be False, True or 'both', got {centered!r}")
    effs = _as_effects(effects, features)
    modes = [False, True] if centered == "both" else [bool(centered)]
    ncol, nrow = len(effs), len(modes)
    fig, axes = plt.subplots(nrow, ncol, figsize=(3.2 * ncol + 0.6, 2.9 * nrow + 0.4), squeeze=False)
    for c, eff in enumerate(effs):
        keep = _subset(eff.ice.shape[0], max_curves, random_state)
        for r, mode in enumerate(modes):
            ax = axes[r, c]
            if mode:
                _draw_curves(
                    ax,
                    eff,
                    eff.c_ice,
                    eff.pd_centered,
                    "centered PD",
                    CENTRED_PD_COLOUR,
                    keep,
                    alpha,
                    curve_label="c-ICE",
                )
                ax.axhline(0.0, color="0.5", linewidth=0.6, linestyle=":")
            else:
                _draw_curves(ax, eff, eff.ice, eff.pd, "PD", PD_COLOUR, keep, alpha)
            ax.set_xlabel(eff.feature)
            if c == 0:
                ax.set_ylabel(_ylabel(eff, ylabel, mode, target_unit))
    for r in range(nrow):
        handles, labels = axes[r, 0].get_legend_handles_labels()
        if handles:
            axes[r, -1].legend(handles[:2], labels[:2], loc="best")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


def plot_centered_ice(effects, **kwargs):
    """Centered ICE curves with the centered PD highlighted (Fig 4.5).

    Same parameters as :func:`plot_ice` (with ``centered=True``).

    Returns
    -------
    matplotlib.figure.Figure
    """
    kwargs["centered"] = True
    return plot_ice(effects, **kwargs)


def plot_dice(
    effects,
    *,
    features: Sequence[str] | None = None,
    max_curves: int | None = 500,
    random_state: int = 0,
    alpha: float = 0.25,
    ylabel: str | None = None,
    title: str | None = None,
    target_unit: str | None = None,
):
    """d-ICE curves and, below, the standard deviation of the derivatives.

    Goldstein et al. (2015), "Derivative ICE plot" / ICEbox ``plot.dice``: top panel the
    derivative curves (light) and the derivative of the PD (dashed); bottom
    panel the standard deviation of the derivatives across curves at each grid
    point (0 where :math:`x_S` does not interact with the other features in the
    model). One column per numeric feature.

    Parameters
    ----------
    effects : FeatureEffect, sequence of FeatureEffect, or DataFrame
        With d-ICE results (numeric features; one-hot groups are rejected).
    features, max_curves, random_state, alpha, ylabel, title, target_unit
        As :func:`plot_ice` (a derivative is in ``target_unit`` per unit of the feature).

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        An effect without d-ICE curves (a one-hot group).
    """
    import matplotlib.pyplot as plt

    effs = _as_effects(effects, features)
    bad = [e.feature for e in effs if e.d_ice is None or e.d_ice_sd is None]
    if bad:
        raise ValueError(f"no d-ICE results for {bad} (one-hot groups have no derivative)")
    ncol = len(effs)
    fig, axes = plt.subplots(
        2,
        ncol,
        figsize=(3.2 * ncol + 0.6, 4.4),
        squeeze=False,
        sharex="col",
        gridspec_kw={"height_ratios": [3, 1.3]},
    )
    for c, eff in enumerate(effs):
        keep = _subset(eff.d_ice.shape[0], max_curves, random_state)
        top, bottom = axes[0, c], axes[1, c]
        d_pd = eff.d_pd if eff.d_pd is not None else eff.d_ice.mean(axis=0)
        _draw_curves(top, eff, eff.d_ice, d_pd, "d-PD", PD_COLOUR, keep, alpha, curve_label="d-ICE")
        top.axhline(0.0, color="0.5", linewidth=0.6, linestyle=":")
        bottom.plot(eff.grid, eff.d_ice_sd, color=SD_COLOUR, linewidth=1.4)
        bottom.set_ylim(bottom=0.0, top=max(float(np.max(eff.d_ice_sd)) * 1.1, 1e-12))
        _rug(bottom, eff.deciles)
        bottom.set_xlabel(eff.feature)
        if c == 0:
            base = ylabel or OUTPUT_LABELS.get(eff.output, "model output")
            label = f"d({base}) / d(feature)"
            if ylabel is None and target_unit and eff.output in ("predict", "prediction"):
                label += "\n" + textwrap.fill(f"({target_unit} per unit of the feature)", 30)
            elif ylabel is None:
                label = with_unit(label, eff.output, target_unit)
            top.set_ylabel(label)
            bottom.set_ylabel("s.d. of derivatives")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    if handles:
        axes[0, -1].legend(handles[:2], labels[:2], loc="best")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


def plot_pd_2d(
    pair,
    *,
    feature_1: str | None = None,
    feature_2: str | None = None,
    levels: int = 12,
    zlabel: str | None = None,
    title: str | None = None,
    target_unit: str | None = None,
):
    """Two-way PD: a filled contour map with contour lines and decile rugs (two numeric
    features), one PD curve per level (a one-hot group and a numeric feature), or a
    heat map of the level pairs (two groups).

    Parameters
    ----------
    pair : PairEffect or DataFrame
        Result of :func:`~xaipipe.explain.pdp.explain_pair`, or a
        :func:`~xaipipe.explain.pdp.pair_table` (then ``feature_1`` and
        ``feature_2`` are required when it holds several pairs).
    feature_1, feature_2 : str, optional
    levels : int, default 12
        Number of contour levels (two numeric features).
    zlabel, title : str, optional
        Colour-bar label, or y-axis label of the per-level curves (default from the
        model output), and title.
    target_unit : str, optional
        The dataset's ``target_unit``, added to the default ``zlabel`` ("PD (prediction, MPa)").
        The per-level curves of a group with more levels than the style's colour cycle take the
        distinct colours of :func:`xaipipe.plots.style.qualitative_colours`.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        A table with several pairs and no ``feature_1`` / ``feature_2``, or a grid
        smaller than 2 x 2.
    """
    import matplotlib.pyplot as plt

    if isinstance(pair, pd.DataFrame):
        if feature_1 is None or feature_2 is None:
            pairs = pair[["feature_1", "feature_2"]].drop_duplicates()
            if len(pairs) != 1:
                raise ValueError("the table holds several pairs: pass feature_1 and feature_2")
            feature_1, feature_2 = pairs.iloc[0]
        pair = pair_from_table(pair, feature_1, feature_2)
    if not isinstance(pair, PairEffect):
        raise TypeError(f"expected PairEffect or a pair table, got {type(pair).__name__}")
    zlabel = zlabel or _pd_label(pair.output, target_unit)
    if any(pair.categorical):
        return _plot_pd_2d_levels(pair, zlabel=zlabel, title=title)
    if pair.values_1.size < 2 or pair.values_2.size < 2:
        raise ValueError("a two-way PD plot needs at least 2 grid values per feature")
    fig, ax = plt.subplots(figsize=(4.6, 3.8))
    # pd[a, b] is at (values_1[a], values_2[b]): feature_1 on x, feature_2 on y.
    Z = np.asarray(pair.pd).T
    cs = ax.contourf(pair.values_1, pair.values_2, Z, levels=levels, cmap=SEQUENTIAL_CMAP)
    lines = ax.contour(pair.values_1, pair.values_2, Z, levels=cs.levels, colors="k", linewidths=0.4)
    ax.clabel(lines, inline=True, fontsize=6, fmt="%.3g")
    _rug(ax, pair.deciles_1)
    if pair.deciles_2.size:
        ax.hlines(pair.deciles_2, 0.0, 0.05, transform=ax.get_yaxis_transform(), color="0.2", linewidth=0.9)
    ax.set_xlabel(pair.feature_1)
    ax.set_ylabel(pair.feature_2)
    fig.colorbar(cs, ax=ax, label=zlabel)
    return finish(fig, ax, title)


#: Line styles of the classes in :func:`plot_class_pd` (with the colour cycle of the style).
_CLASS_STYLES = ("-", "--", "-.", ":")
#: What :func:`plot_class_pd` draws per ``kind`` of the PD / ICE table.
_CLASS_KINDS = {"pd": "PD", "pd_centered": "centered PD", "d_pd": "d-PD (derivative of the PD)"}


def _class_labels(frame: pd.DataFrame) -> list[str]:
    return list(dict.fromkeys(frame["class"].astype(str)))


def plot_class_pd(curves: pd.DataFrame, kind: str = "pd", *, title: str | None = None):
    """The PD of every class of a multiclass model, one panel per variable (one line per class).

    Parameters
    ----------
    curves : DataFrame
        A multiclass ``pd_ice.csv`` (:func:`xaipipe.explain.pdp.pd_ice_tables` with
        ``classes``: a ``class`` column); variables with ``rank > 0`` in rank order.
    kind : {"pd", "pd_centered", "d_pd"}, default "pd"
        The PD, the centered PD (at the c-ICE anchor), or the derivative of the PD
        (numeric variables only).
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
        A row of panels; a one-hot group shows its levels on the x axis (points
        joined per class). ICE curves are left out: with ``K`` classes they would be
        ``K`` clouds on one axes (``explain.figure_class`` draws them for one class).

    Raises
    ------
    ValueError
        No ``class`` column, unknown ``kind`` or no variable to draw.
    """
    import matplotlib.pyplot as plt

    if "class" not in curves.columns:
        raise ValueError("plot_class_pd needs a multiclass table (a 'class' column)")
    if kind not in _CLASS_KINDS:
        raise ValueError(f"kind must be one of {list(_CLASS_KINDS)}, got {kind!r}")
    ranked = curves[curves["rank"] > 0]
    names = ranked.drop_duplicates("feature").sort_values("rank", kind="stable")["feature"].tolist()
    if kind == "d_pd":
        names = [f for f in names if (ranked[(ranked["feature"] == f)]["kind"] == "d_pd").any()]
    if not names:
        raise ValueError(f"no variable with {kind!r} rows to draw")
    labels = _class_labels(curves)
    colours = qualitative_colours(len(labels))  # None: the style's cycle with _CLASS_STYLES
    fig, axes = plt.subplots(1, len(names), figsize=(3.4 * len(names) + 1.4, 3.1), squeeze=False)
    for ax, name in zip(axes[0], names):
        for c, label in enumerate(labels):
            part = ranked[(ranked["feature"] == name) & (ranked["class"].astype(str) == label)]
            line = part[part["kind"] == kind]
            grid = line["grid_value"].to_numpy(dtype=float)
            levels = ["" if pd.isna(v) else str(v) for v in line["level"]]
            style = _CLASS_STYLES[c % len(_CLASS_STYLES)]
            kw = {"linestyle": style} if colours is None else {"color": colours[c][0], "linestyle": colours[c][1]}
            if any(levels):
                ax.plot(np.arange(grid.size), line["value"], marker="o", label=label, **kw)
                ax.set_xticks(np.arange(grid.size), levels, rotation=30 if grid.size > 3 else 0)
            else:
                ax.plot(grid, line["value"], linewidth=1.6, label=label, **kw)
                dec = part[part["kind"] == "decile"]["grid_value"].to_numpy(dtype=float)
                if c == 0:
                    _rug(ax, dec)
        ax.set_xlabel(name)
    axes[0, 0].set_ylabel(f"{_CLASS_KINDS[kind]} of each class")
    axes[0, -1].legend(title="class", loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.suptitle(title or f"{_CLASS_KINDS[kind]} of every class (ICE of one class: explain.figure_class)")
    fig.tight_layout()
    return fig


def _draw_pd_2d_levels(ax, pair: PairEffect, label: str, *, vmin=None, vmax=None):
    """Draw a pair with a one-hot group on ``ax``: per-level curves over the numeric
    feature's grid, or a level x level heat map (returned, for a colour bar)."""
    cat_1, cat_2 = pair.categorical
    if cat_1 and cat_2:
        Z = np.asarray(pair.pd).T  # feature_1 on x, feature_2 on y
        image = ax.imshow(Z, cmap=SEQUENTIAL_CMAP, aspect="auto", origin="lower", vmin=vmin, vmax=vmax)
        mid = (np.nanmin(Z) + np.nanmax(Z)) / 2
        for (b, a), z in np.ndenumerate(Z):
            ax.text(a, b, f"{z:.3g}", ha="center", va="center", fontsize=7, color="white" if z < mid else "black")
        ax.set_xticks(np.arange(pair.values_1.size), pair.levels_1, rotation=30 if pair.values_1.size > 3 else 0)
        ax.set_yticks(np.arange(pair.values_2.size), pair.levels_2)
        ax.set_xlabel(pair.feature_1)
        ax.set_ylabel(pair.feature_2)
        return image
    # the group's levels as curves over the numeric feature's grid: pd[level, k]
    pd_ = np.asarray(pair.pd) if cat_1 else np.asarray(pair.pd).T
    group, levels = (pair.feature_1, pair.levels_1) if cat_1 else (pair.feature_2, pair.levels_2)
    numeric, grid, rug = (
        (pair.feature_2, pair.values_2, pair.deciles_2) if cat_1 else (pair.feature_1, pair.values_1, pair.deciles_1)
    )
    colours = qualitative_colours(len(levels))
    for i, (level, curve) in enumerate(zip(levels, pd_)):
        kwargs = {} if colours is None else {"color": colours[i][0], "linestyle": colours[i][1]}
        ax.plot(grid, curve, label=str(level), **kwargs)
    _rug(ax, rug)
    ax.set_xlabel(numeric)
    ax.set_ylabel(label)
    if len(levels) > 8:  # many levels: the legend beside the axes
        ax.legend(title=group, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=7)
    else:
        ax.legend(title=group, loc="best")
    return None


def _plot_pd_2d_levels(pair: PairEffect, *, zlabel: str | None, title: str | None):
    """:func:`plot_pd_2d` of a pair with a one-hot group: per-level curves or a level x level heat map."""
    import matplotlib.pyplot as plt

    label = zlabel or _pd_label(pair.output, None)
    cat_1, cat_2 = pair.categorical
    if cat_1 and cat_2:
        fig, ax = plt.subplots(figsize=(1.0 + 0.6 * pair.values_1.size + 1.2, 1.0 + 0.45 * pair.values_2.size))
    else:
        fig, ax = plt.subplots(figsize=(4.6, 3.4))
    image = _draw_pd_2d_levels(ax, pair, label)
    if image is not None:
        fig.colorbar(image, ax=ax, label=label)
    return finish(fig, ax, title)


def plot_class_pd_2d(pairs: pd.DataFrame, *, levels: int = 12, title: str | None = None):
    """The 2-D PD of every class of a multiclass model, one panel per class (shared colour scale).

    Parameters
    ----------
    pairs : DataFrame
        A multiclass ``pd_2d.csv`` (one pair; a ``class`` column).
    levels : int, default 12
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
        One panel per class (filled contours, or level cells for a one-hot group) and one colour
        bar shared by all panels.

    Raises
    ------
    ValueError
        No ``class`` column or a grid smaller than 2 x 2.
    """
    import matplotlib.pyplot as plt

    if "class" not in pairs.columns:
        raise ValueError("plot_class_pd_2d needs a multiclass table (a 'class' column)")
    labels = _class_labels(pairs)
    effects = []
    for label in labels:
        part = pairs[pairs["class"].astype(str) == label]
        f1, f2 = part[["feature_1", "feature_2"]].iloc[0]
        effects.append(pair_from_table(part.drop(columns="class"), f1, f2))
    if any(e.values_1.size < 2 or e.values_2.size < 2 for e in effects):
        raise ValueError("a two-way PD plot needs at least 2 grid values per feature")
    lo = min(float(np.min(e.pd)) for e in effects)
    hi = max(float(np.max(e.pd)) for e in effects)
    if any(any(e.categorical) for e in effects):  # a one-hot group in the pair: its levels per class
        fig, axes = plt.subplots(1, len(effects), figsize=(3.6 * len(effects) + 1.2, 3.4), squeeze=False)
        image = None
        for ax, label, e in zip(axes[0], labels, effects):
            image = _draw_pd_2d_levels(ax, e, "PD of the class", vmin=lo, vmax=hi)
            ax.set_title(f"class {label}")
        if image is not None:
            fig.colorbar(image, ax=list(axes[0]), label="PD of the class")
        if title:
            fig.suptitle(title)
        return fig
    bounds = np.linspace(lo, hi if hi > lo else lo + 1e-12, levels + 1)
    fig, axes = plt.subplots(1, len(effects), figsize=(3.3 * len(effects) + 1.2, 3.4), squeeze=False)
    for ax, label, e in zip(axes[0], labels, effects):
        cs = ax.contourf(e.values_1, e.values_2, np.asarray(e.pd).T, levels=bounds, cmap=SEQUENTIAL_CMAP)
        ax.set_title(f"class {label}")
        ax.set_xlabel(e.feature_1)
    axes[0, 0].set_ylabel(effects[0].feature_2)
    fig.colorbar(cs, ax=list(axes[0]), label="PD of the class")
    if title:
        fig.suptitle(title)
    return fig


def _multiclass_figures(curves: pd.DataFrame, pairs: pd.DataFrame, figure_class) -> dict:
    """:func:`pd_ice_figures` of a multiclass table: one class's figures, or every class's PD."""

    labels = _class_labels(curves)
    if figure_class is not None:
        label = str(figure_class)
        if label not in labels:
            raise ValueError(f"config key explain.figure_class: {figure_class!r} is not a class; classes are {labels}")
        one = curves[curves["class"].astype(str) == label].drop(columns="class")
        pair = pairs[pairs["class"].astype(str) == label].drop(columns="class") if len(pairs) else pairs
        figs = pd_ice_figures(one, pair.drop(columns="class", errors="ignore"))
        for fig in figs.values():
            fig.suptitle(f"class {label}", fontsize="small")
        return figs

    ranked = curves[curves["rank"] > 0]
    has_derivative = (ranked["kind"] == "d_pd").any()
    return {
        "ice": plot_class_pd(curves, "pd"),
        "c_ice": plot_class_pd(curves, "pd_centered"),
        "d_ice": plot_class_pd(curves, "d_pd")
        if has_derivative
        else placeholder("no d-PD: no numeric variable among the top-k"),
        "pd_2d": placeholder("no 2-D PD: fewer than two variables among the top-k")
        if pairs.empty
        else plot_class_pd_2d(pairs),
    }


def pd_ice_figures(
    curves: pd.DataFrame,
    pairs: pd.DataFrame,
    *,
    figure_class=None,
    target_unit: str | None = None,
    output: str | None = None,
) -> dict[str, Figure]:
    """The ``pd_figures`` rule: ICE + PD, c-ICE, d-ICE of the top variables and the 2-D PD.

    Parameters
    ----------
    curves : DataFrame
        ``pd_ice.csv`` (:func:`xaipipe.explain.pdp.pd_ice_tables`): variables with
        ``rank > 0`` are drawn in rank order (rank 0: only for thesis figures).
    pairs : DataFrame
        ``pd_2d.csv`` (the pair of the ``pd_ice`` rule: the largest H² among the top
        variables by MR, numeric or one-hot groups); empty when there are fewer than
        two top variables (a figure saying so is drawn).
    figure_class : str, optional
        Multiclass tables only (a ``class`` column; config key
        ``explain.figure_class``): draw the four figures of that class; None draws
        every class's PD, centered PD and d-PD (:func:`plot_class_pd`) and its 2-D
        PD (:func:`plot_class_pd_2d`).
    target_unit : str, optional
        The dataset's ``target_unit`` (registry) on every effect axis and colour bar
        (:func:`xaipipe.plots.units.with_unit`; binary and regression models).
    output : {"predict", "proba", "logit"}, optional
        The explained output, which the tables do not hold (the ``pd_ice`` rule's: ``predict`` for
        regression, ``explain.pd.classification_output`` otherwise); None: the axes say
        "model output".

    Returns
    -------
    dict
        ``ice``, ``c_ice``, ``d_ice``, ``pd_2d`` -> Figure. d-ICE is drawn for the
        numeric variables only (a one-hot group has no derivative; a figure saying
        so when none is numeric).

    Raises
    ------
    ValueError
        ``figure_class`` that is not a class of the table.
    """

    from ..explain.pdp import effect_from_table

    if "class" in curves.columns:
        return _multiclass_figures(curves, pairs, figure_class)

    ranked = curves[curves["rank"] > 0]
    order = ranked.drop_duplicates("feature").sort_values("rank")["feature"].tolist()
    effects = [_with_output(effect_from_table(curves, name), output) for name in order]
    numeric = [e for e in effects if e.d_ice is not None and e.d_ice_sd is not None]
    unit = {"target_unit": target_unit}
    return {
        "ice": plot_ice(effects, **unit),
        "c_ice": plot_centered_ice(effects, **unit),
        "d_ice": plot_dice(numeric, **unit)
        if numeric
        else placeholder("no d-ICE: no numeric variable among the top-k"),
        "pd_2d": placeholder("no 2-D PD: fewer than two variables among the top-k")
        if pairs.empty
        else plot_pd_2d(_with_output(_one_pair(pairs), output), **unit),
    }


def _with_output(effect, output: str | None):
    """The effect (a table's, whose ``output`` is "") with the explained output, for the axis labels."""
    import dataclasses

    return effect if output is None else dataclasses.replace(effect, output=output)


def _one_pair(pairs: pd.DataFrame) -> PairEffect:
    """The :class:`PairEffect` of a ``pd_2d.csv`` of one pair."""
    f1, f2 = pairs[["feature_1", "feature_2"]].iloc[0]
    return pair_from_table(pairs, f1, f2)
