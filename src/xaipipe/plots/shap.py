"""SHAP figures of 000 ch. 4 (Figs 4.3-4.8), drawn by ``shap.plots`` in the project style.

Every function takes a :class:`~xaipipe.explain.shapley.ShapResult` and returns
a :class:`matplotlib.figure.Figure` created under
:func:`xaipipe.plots.style.figure_style`; save it with
:func:`xaipipe.plots.style.save_figure` (inside ``figure_style()`` so that the
style's ``savefig`` settings apply).

=====================================  =======================================
000 figure                             function
=====================================  =======================================
4.3-4.5 force plots (high / low /      :func:`plot_shap_waterfall` on the rows
near-base prediction)                  of :func:`local_rows`, or
                                       :func:`plot_shap_local` for all three
4.6 bar plot of mean |SHAP|            :func:`plot_shap_bar`
4.7 summary plot                       :func:`plot_shap_beeswarm`
4.8 dependence plots                   :func:`plot_shap_dependence`
=====================================  =======================================

Departure from 000: the thesis shows shap's interactive *force* plots for the
local explanations; we draw *waterfall* plots (same quantities: the base value,
the SHAP value of each feature and the model output, read top-down instead of
along one axis), which render reliably to PDF with matplotlib and stay legible
with 30 features.  The dependence plot colours the points by the feature that
interacts most with the plotted one: by mean |SHAP interaction value| when the
result has interaction values (Lundberg et al. 2020, Nat. Mach. Intell. 2:56-67),
otherwise by shap's heuristic :func:`shap.utils.approximate_interactions`, as
the shap library does for 000 Fig. 4.8.

``shap.plots.beeswarm`` and ``shap.plots.scatter`` (shap 0.51) shuffle the
drawing order of the dots, and ``beeswarm`` jitters their stacking, with NumPy's
*global* random state and take no seed.  Unseeded, every rerun of a figure rule
wrote different PDF and PNG bytes for the same SHAP values.  Both functions here
therefore seed that global state with ``random_state`` for the duration of the
shap call and restore it afterwards (``shapley._global_numpy_seed``), so the same
result always gives the same figure and the caller's random stream is untouched.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from ..explain.shapley import ShapClasses, ShapResult, class_result, level_labels
from ..explain.shapley._algorithms import _global_numpy_seed
from .style import SEQUENTIAL_CMAP, figure_style, qualitative_colours
from .units import REGRESSION_OUTPUTS, with_unit

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "to_explanation",
    "local_rows",
    "interaction_partner",
    "plot_shap_bar",
    "plot_shap_class_bar",
    "plot_shap_beeswarm",
    "plot_shap_dependence",
    "plot_shap_waterfall",
    "plot_shap_local",
    "shap_figures",
]

#: Labels of the rows chosen by :func:`local_rows`, in 000's order (Figs 4.3-4.5).
LOCAL_ROW_KINDS = ("high", "low", "near_base")


def _check_result(result) -> None:
    if not isinstance(result, ShapResult):
        raise TypeError(f"expected a ShapResult, got {type(result).__name__}")


def _feature_index(result: ShapResult, feature: str | int) -> int:
    if isinstance(feature, (int, np.integer)) and not isinstance(feature, bool):
        if not 0 <= feature < result.n_features:
            raise ValueError(f"feature index {feature} out of range [0, {result.n_features})")
        return int(feature)
    try:
        return result.feature_names.index(str(feature))
    except ValueError:
        raise ValueError(f"unknown feature {feature!r}; known: {list(result.feature_names)}") from None


def _max_display(max_display: int) -> int:
    if isinstance(max_display, bool) or not isinstance(max_display, (int, np.integer)) or max_display < 1:
        raise ValueError(f"max_display must be a positive integer, got {max_display!r}")
    return int(max_display)


def _display_data(result: ShapResult):
    """Feature values with a one-hot group's level label in place of its level code
    (object array), or None when the result has no one-hot group."""
    labels = level_labels(result)
    if labels is None:
        return None
    shown = result.data.astype(object)
    grouped = labels != ""
    shown[grouped] = labels[grouped]
    return shown


def to_explanation(result: ShapResult, *, group_data: str = "code"):
    """The result as a :class:`shap.Explanation` (values (n, p), base values (n,),
    data (n, p), feature names), for shap's plotting functions.

    For a grouped result with a one-hot group (:func:`~xaipipe.explain.shapley.group_shap_result`)
    the Explanation also has ``display_data``: the feature values with each group's
    level label (the member column set to 1) in place of its level code; shap writes
    those labels in waterfall and force plots and on the axis of a scatter plot.
    ``group_data="label"`` puts the labels in ``data`` as well (an object array):
    shap's beeswarm then draws the group's dots in grey, uncoloured, since a level
    has no low-to-high order.
    """
    import shap

    _check_result(result)
    if group_data not in ("code", "label"):
        raise ValueError(f"group_data must be 'code' or 'label', got {group_data!r}")
    shown = _display_data(result)
    return shap.Explanation(
        values=result.values,
        base_values=result.base_values,
        data=shown if (shown is not None and group_data == "label") else result.data,
        display_data=shown,
        feature_names=list(result.feature_names),
    )


def local_rows(result: ShapResult) -> dict[str, int]:
    """Positions (into the result's arrays) of the rows of 000 Figs 4.3-4.5.

    Returns
    -------
    dict
        ``"high"``: largest model output; ``"low"``: smallest model output;
        ``"near_base"``: model output closest to its base value. Ties go to the
        first row. Use ``result.row_index[pos]`` for the position in ``X``.
    """
    _check_result(result)
    out = result.model_output
    return {
        "high": int(np.argmax(out)),
        "low": int(np.argmin(out)),
        "near_base": int(np.argmin(np.abs(out - result.base_values))),
    }


def interaction_partner(result: ShapResult, feature: str | int) -> str | None:
    """Name of the feature that interacts most with ``feature``.

    With interaction values ``Phi`` (n, p, p): ``argmax_{k != j} mean_i
    |Phi[i, j, k]|`` (Lundberg et al. 2020). Without them: the first feature
    other than ``j`` in :func:`shap.utils.approximate_interactions` (correlation
    of ``j``'s SHAP values with the other feature within bins of ``x_j``).
    None when there is only one feature.
    """
    _check_result(result)
    j = _feature_index(result, feature)
    if result.n_features < 2:
        return None
    if result.interaction_values is not None:
        strength = np.abs(result.interaction_values[:, j, :]).mean(axis=0)
        strength[j] = -np.inf
        return result.feature_names[int(np.argmax(strength))]
    import shap

    order = shap.utils.approximate_interactions(j, result.values, result.data)
    k = next(int(k) for k in order if int(k) != j)
    return result.feature_names[k]


def row_title(result: ShapResult, i: int, what: str, unit: str) -> str:
    """``"<what> - row <id>: f(x) = <output> (<unit>)"``: the title of a local figure of row ``i``."""
    return f"{what} - row {int(result.row_index[i])}: f(x) = {result.model_output[i]:.3g} ({unit})"


def _unit_label(result: ShapResult, target_unit: str | None) -> str:
    """The result's output space with the dataset's ``target_unit`` (``"prediction, MPa"``)."""
    return with_unit(result.output_label, result.output, target_unit, inner=True)


def _set_title(fig, ax, title: str | None) -> None:
    if title:
        ax.set_title(title)


def _restyle(fig) -> None:
    """Bring shap's hard-coded tick and axis-label font sizes back to the style's."""
    import matplotlib.pyplot as plt

    for ax in fig.axes:
        ax.tick_params(axis="x", labelsize=plt.rcParams["xtick.labelsize"])
        ax.tick_params(axis="y", labelsize=plt.rcParams["ytick.labelsize"])
        ax.xaxis.label.set_size(plt.rcParams["axes.labelsize"])
        ax.yaxis.label.set_size(plt.rcParams["axes.labelsize"])


def plot_shap_bar(
    result: ShapResult, *, max_display: int = 15, title: str | None = None, target_unit: str | None = None
):
    """Mean |SHAP value| per feature (000 Fig. 4.6) with ``shap.plots.bar``.

    Parameters
    ----------
    result : ShapResult
    max_display : int, default=15
        Features shown; the rest are summed into one bar.
    title : str, optional
    target_unit : str, optional
        The dataset's ``target_unit`` (registry) on the axis (:func:`xaipipe.plots.units.with_unit`).

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib.pyplot as plt
    import shap

    _check_result(result)
    k = min(_max_display(max_display), result.n_features)
    with figure_style():
        fig, ax = plt.subplots(figsize=(6.3, 0.3 * k + 1.2))
        shap.plots.bar(to_explanation(result), max_display=k, ax=ax, show=False)
        ax.set_xlabel(f"mean(|SHAP value|) ({_unit_label(result, target_unit)})")
        _restyle(fig)
        _set_title(fig, ax, title)
    return fig


def plot_shap_beeswarm(
    result: ShapResult,
    *,
    max_display: int = 15,
    title: str | None = None,
    random_state: int = 0,
    target_unit: str | None = None,
):
    """Summary (beeswarm) plot of the SHAP values (000 Fig. 4.7), ``shap.plots.beeswarm``.

    One row per feature (largest mean |SHAP| on top), one dot per explained
    row at its SHAP value, coloured by the feature's value (low to high, the
    project's sequential colour map). A one-hot group of a grouped result is one
    row (its SHAP value, the sum of its columns'); its levels have no low-to-high
    order, so its dots are coloured by the row's level with the style's
    categorical colours (Okabe-Ito; a group with more levels, the distinct colours of
    :func:`xaipipe.plots.style.qualitative_colours`), named in a legend below the axes
    (:func:`_colour_group_rows`).

    Parameters
    ----------
    result : ShapResult
    max_display : int, default=15
        Rows drawn: the features of largest mean |SHAP value|, the others summed into a last row.
    title : str, optional
    random_state : int, default=0
        Seed of the dots' drawing order and stacking jitter (shap draws them from
        NumPy's global random state, which is restored afterwards): the same
        result and seed give the same figure.
    target_unit : str, optional
        As :func:`plot_shap_bar`.

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib.pyplot as plt
    import shap

    _check_result(result)
    k = min(_max_display(max_display), result.n_features)
    cmap = plt.get_cmap(SEQUENTIAL_CMAP)
    if level_labels(result) is not None:
        # shap 0.51 draws an uncoloured row by rebinding its `color` to `cmap.colors` (a list) for
        # every later row, which then fails; the same colours as a LinearSegmentedColormap have no
        # `.colors` attribute
        from matplotlib.colors import LinearSegmentedColormap

        cmap = LinearSegmentedColormap.from_list(SEQUENTIAL_CMAP, cmap(np.linspace(0.0, 1.0, cmap.N)), N=cmap.N)
    with figure_style():
        fig, ax = plt.subplots(figsize=(6.3, 0.3 * k + 1.3))
        with _global_numpy_seed(random_state):
            shap.plots.beeswarm(
                to_explanation(result, group_data="label"),
                max_display=k,
                ax=ax,
                show=False,
                plot_size=None,
                color=cmap,
                s=10,
            )
        _colour_group_rows(ax, result)
        ax.set_xlabel(f"SHAP value ({_unit_label(result, target_unit)})")
        _restyle(fig)
        _set_title(fig, ax, title)
    return fig


def _colour_group_rows(ax, result: ShapResult) -> None:
    """Colour the beeswarm dots of each one-hot group by level, with a legend.

    shap draws a group's row (labels in ``data``: not numeric) as one grey scatter
    of all rows, in an order it shuffles. Each dot is given back its level by its
    SHAP value: dots with equal values are exchangeable, so the rows with that
    value hand out their levels in any order and every (value, level) pair is
    drawn as often as it occurs.
    """
    import matplotlib.pyplot as plt
    from matplotlib.collections import PathCollection
    from matplotlib.lines import Line2D
    from matplotlib.transforms import offset_copy

    labels = level_labels(result)
    if labels is None:
        return
    cycle = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    rows = {t.get_text(): y for t, y in zip(ax.get_yticklabels(), ax.get_yticks())}
    legend_rows = []  # per group: its name, then a dot per level
    for g, name in enumerate(result.feature_names):
        levels = result.levels.get(name)
        if levels is None or name not in rows:
            continue
        many = qualitative_colours(len(levels))  # more levels than the cycle: distinct colours
        colours = cycle if many is None else [c for c, _ in many]
        y = rows[name]
        found = [
            c
            for c in ax.collections
            if isinstance(c, PathCollection)
            and len(c.get_offsets()) == result.n_rows
            and np.all(np.abs(np.asarray(c.get_offsets())[:, 1] - y) < 0.5)
        ]
        if len(found) != 1:
            continue
        pool: dict[float, list[int]] = {}
        for value, code in zip(result.values[:, g], result.data[:, g]):
            pool.setdefault(float(value), []).append(int(code))
        codes = [pool[float(x)].pop() for x in np.asarray(found[0].get_offsets())[:, 0]]
        found[0].set_facecolors([colours[k] for k in codes])
        legend_rows.append(
            [Line2D([], [], linestyle="none", label=name)]
            + [
                Line2D([], [], linestyle="none", marker="o", markersize=4, color=colours[k], label=str(level))
                for k, level in enumerate(levels)
            ]
        )
    if legend_rows:
        # below the axes (shap's colour bar holds the right side), one line per group: matplotlib
        # fills a legend column by column, so the entries go in column-major order, padded
        width = max(len(row) for row in legend_rows)
        blank = Line2D([], [], linestyle="none", label="")
        handles = [row[c] if c < len(row) else blank for c in range(width) for row in legend_rows]
        below = offset_copy(ax.transAxes, fig=ax.figure, y=-34, units="points")  # under the x label
        ax.legend(
            handles=handles,
            loc="upper center",
            bbox_to_anchor=(0.5, 0.0),
            bbox_transform=below,
            ncol=width,
            handletextpad=0.2,
            columnspacing=1.0,
            borderaxespad=0,
        )


def plot_shap_dependence(
    result: ShapResult,
    features: str | int | Sequence[str | int],
    *,
    interaction_feature: str | int | None = "auto",
    title: str | None = None,
    random_state: int = 0,
    target_unit: str | None = None,
):
    """SHAP dependence plots (000 Fig. 4.8) with ``shap.plots.scatter``.

    Parameters
    ----------
    result : ShapResult
    features : str, int or sequence of them
        Feature(s) to plot, one panel each: x = feature value, y = its SHAP value.
        A one-hot group of a grouped result has its levels on the x axis (tick
        labels: the level names) and its SHAP value, the sum of its columns', on y.
    interaction_feature : "auto", str, int or None, default="auto"
        Colour of the points: ``"auto"`` = :func:`interaction_partner` of each
        plotted feature; a feature name / index = that feature; None = no colour.
        A group colours by level (shap's categorical colour bar, labelled by level).
    title : str, optional
        Figure title.
    random_state : int, default=0
        Seed of the dots' drawing order (shap shuffles it with NumPy's global
        random state, which is restored afterwards): the same result and seed
        give the same figure.
    target_unit : str, optional
        The dataset's ``target_unit`` (registry) on the y axes: "SHAP value of x (MPa)" (regression),
        "SHAP value of x (log-odds of malignant)" (a classifier).

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        Unknown feature names or out-of-range indices, empty ``features``.
    """
    import matplotlib.pyplot as plt
    import shap

    _check_result(result)
    if isinstance(features, (str, int, np.integer)):
        features = [features]
    idx = [_feature_index(result, f) for f in features]
    if not idx:
        raise ValueError("features is empty")
    if interaction_feature not in ("auto", None):
        fixed = _feature_index(result, interaction_feature)
    expl = to_explanation(result)
    with figure_style():
        fig, axes = plt.subplots(1, len(idx), figsize=(3.9 * len(idx), 3.2), squeeze=False, layout="constrained")
        for ax, j in zip(axes[0], idx):
            if interaction_feature == "auto":
                partner = interaction_partner(result, j)
                k = None if partner is None else result.feature_names.index(partner)
            elif interaction_feature is None:
                k = None
            else:
                k = fixed
            kwargs = {"color": expl[:, k], "cmap": plt.get_cmap(SEQUENTIAL_CMAP)} if k is not None else {}
            with _global_numpy_seed(random_state):
                shap.plots.scatter(expl[:, j], ax=ax, show=False, dot_size=10, hist=True, **kwargs)
            ylabel = f"SHAP value of {result.feature_names[j]}"
            if target_unit:  # a regression's unit alone ("MPa"), a classifier's "log-odds of malignant"
                unit = target_unit if result.output in REGRESSION_OUTPUTS else _unit_label(result, target_unit)
                ylabel += f"\n({unit})"
            ax.set_ylabel(ylabel)
        _restyle(fig)
        if title:
            fig.suptitle(title)
    return fig


def plot_shap_waterfall(
    result: ShapResult, row: int, *, max_display: int = 12, title: str | None = None, target_unit: str | None = None
):
    """Waterfall plot of one explained row (000 Figs 4.3-4.5), ``shap.plots.waterfall``.

    Starts at the base value ``E[f(X)]`` and adds the SHAP value of each feature
    (largest |SHAP| first; the rest summed) up to the model output ``f(x)``.

    Parameters
    ----------
    result : ShapResult
    row : int
        Position in the result's arrays (e.g. from :func:`local_rows`), not in ``X``.
    max_display : int, default=12
    title : str, optional
    target_unit : str, optional
        The dataset's ``target_unit`` (registry) in the default title.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        If ``row`` is out of range.
    """
    import matplotlib.pyplot as plt
    import shap

    _check_result(result)
    if isinstance(row, bool) or not isinstance(row, (int, np.integer)) or not 0 <= row < result.n_rows:
        raise ValueError(f"row must be an integer in [0, {result.n_rows}), got {row!r}")
    k = min(_max_display(max_display), result.n_features)
    with figure_style():
        plt.figure()  # shap.plots.waterfall draws on the current figure
        shap.plots.waterfall(to_explanation(result)[int(row)], max_display=k, show=False)
        fig = plt.gcf()
        ax = fig.axes[0]
        label = title or (
            f"row {int(result.row_index[row])}: f(x) = {result.model_output[row]:.3g} "
            f"({_unit_label(result, target_unit)})"
        )
        ax.set_title(label, loc="left")
    return fig


def plot_shap_local(result: ShapResult, *, max_display: int = 12, target_unit: str | None = None) -> dict[str, Figure]:
    """Waterfall plots of the high, low and near-base rows of :func:`local_rows` (titles with the
    dataset's ``target_unit``, as :func:`plot_shap_bar`).

    Returns
    -------
    dict
        ``{"high": Figure, "low": Figure, "near_base": Figure}``.
    """
    rows = local_rows(result)
    names = {"high": "highest output", "low": "lowest output", "near_base": "output nearest the base value"}
    unit = _unit_label(result, target_unit)
    return {
        kind: plot_shap_waterfall(
            result, rows[kind], max_display=max_display, title=row_title(result, rows[kind], names[kind], unit)
        )
        for kind in LOCAL_ROW_KINDS
    }


def plot_shap_class_bar(result: ShapClasses, *, max_display: int = 15, title: str | None = None):
    """Mean |SHAP value| of every class of a multiclass model, stacked per feature.

    The total length of a bar is the sum over the classes of the class's mean
    |SHAP| (shap's multi-output bar plot); features sorted by it, largest on top.

    Parameters
    ----------
    result : ShapClasses
    max_display : int, default=15
        Features shown (the largest totals).
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib.pyplot as plt

    if not isinstance(result, ShapClasses):
        raise TypeError(f"expected ShapClasses, got {type(result).__name__}")
    names = list(result.results[0].feature_names)
    per_class = np.array([np.abs(r.values).mean(axis=0) for r in result.results])  # (K, p)
    order = np.argsort(-per_class.sum(axis=0), kind="stable")[: _max_display(max_display)][::-1]
    outputs = sorted({r.output for r in result.results})
    with figure_style():
        fig, ax = plt.subplots(figsize=(6.3, 0.3 * len(order) + 1.4))
        left = np.zeros(len(order))
        for label, row in zip(result.classes, per_class):
            ax.barh(np.arange(len(order)), row[order], left=left, label=str(label))
            left += row[order]
        ax.set_yticks(np.arange(len(order)), [names[j] for j in order])
        ax.set_xlabel(f"mean(|SHAP value|), stacked over the classes ({', '.join(outputs)} of each class)")
        ax.legend(title="class", loc="lower right")
        _set_title(fig, ax, title)
        fig.tight_layout()
    return fig


def shap_figures(
    result, *, top_k: int = 2, title: str = "", figure_class=None, target_unit: str | None = None
) -> dict[str, Figure]:
    """The ``shap_figures`` rule: bar, beeswarm, dependence (top ``top_k`` by mean |SHAP|) and waterfalls.

    Parameters
    ----------
    result : ShapResult or ShapClasses
        A multiclass model's :class:`ShapClasses`: the bar plot stacks every class
        (:func:`plot_shap_class_bar`) unless ``figure_class`` is given; the other
        figures draw one class, ``figure_class`` (config key ``explain.figure_class``)
        or by default the first class in code order, named in the titles.
    top_k : int
    title : str
    figure_class : str, optional
    target_unit : str, optional
        The dataset's ``target_unit`` (registry) on the SHAP-value axes and in the waterfalls'
        titles (:func:`xaipipe.plots.units.with_unit`).

    Returns
    -------
    dict
        ``bar``, ``beeswarm``, ``dependence``, ``waterfall_high``, ``waterfall_low``,
        ``waterfall_near_base`` -> Figure.
    """
    from ..explain.shapley import global_importance

    if isinstance(result, ShapClasses):
        one = class_result(result, figure_class)
        label = f"{title} (class {one.details['class']})"
        figs = shap_figures(one, top_k=top_k, title=label, target_unit=target_unit)
        if figure_class is None:
            figs["bar"].clf()
            import matplotlib.pyplot as plt

            plt.close(figs["bar"])
            figs["bar"] = plot_shap_class_bar(result, title=f"{title}: mean |SHAP| of every class")
        return figs

    top = global_importance(result).sort_values("rank")["feature"].head(top_k).tolist()
    unit = {"target_unit": target_unit}
    figs = {
        "bar": plot_shap_bar(result, title=f"{title}: mean |SHAP|", **unit),
        "beeswarm": plot_shap_beeswarm(result, title=f"{title}: SHAP values", **unit),
        "dependence": plot_shap_dependence(result, top, title=f"{title}: SHAP dependence", **unit),
    }
    for kind, fig in plot_shap_local(result, **unit).items():
        figs[f"waterfall_{kind}"] = fig
    return figs
