"""Per-feature and per-pair effects: the PD / ICE / c-ICE / d-ICE of one variable (private)."""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from ._curves import (
    _is_classifier,
    anchor_index,
    centered_ice,
    derivative_sd,
    ice_curves,
    ice_derivatives,
    partial_dependence,
    partial_dependence_2d,
)
from ._grid import (
    DEFAULT_MAX_BATCH_ROWS,
    NO_LEVEL,
    _check_1d,
    _check_columns,
    _check_grid_axis,
    _check_X,
    deciles,
    feature_grid,
    onehot_grid,
)


@dataclass(frozen=True)
class FeatureEffect:
    """PD, ICE, c-ICE and d-ICE of one feature (or one-hot group).

    Attributes
    ----------
    feature : str
        Feature or group name.
    grid : ndarray of shape (n_grid,)
        Grid values (feature units); for a one-hot group the level index
        ``0..n_levels-1``.
    levels : tuple of str or None
        Level names of a one-hot group (``"(none)"`` for the all-zero level),
        None for a numeric feature.
    rows : ndarray of shape (n_rows,)
        Observation identifiers of the ICE curves.
    ice, c_ice : ndarray of shape (n_rows, n_grid)
    pd, pd_centered : ndarray of shape (n_grid,)
        PD over all observations and the PD centred at the anchor.
    anchor : int
        Grid index of the c-ICE anchor.
    d_ice : ndarray of shape (n_rows, n_grid) or None
    d_pd, d_ice_sd : ndarray of shape (n_grid,) or None
        Derivative of the PD and the standard deviation of the d-ICE curves;
        None for a one-hot group.
    deciles : ndarray of shape (9,) or (0,)
        Deciles of the observed feature values (empty for a group).
    output : str
        Model output (``"predict"``, ``"proba"``, ``"logit"`` or ``"callable"``).
    """

    feature: str
    grid: np.ndarray
    levels: tuple | None
    rows: np.ndarray
    ice: np.ndarray
    pd: np.ndarray
    c_ice: np.ndarray
    pd_centered: np.ndarray
    anchor: int
    d_ice: np.ndarray | None
    d_pd: np.ndarray | None
    d_ice_sd: np.ndarray | None
    deciles: np.ndarray = field(default_factory=lambda: np.empty(0))
    output: str = "predict"

    @property
    def categorical(self) -> bool:
        return self.levels is not None


@dataclass(frozen=True)
class PairEffect:
    """Two-way PD of a pair of variables (numeric features or one-hot groups).

    Attributes
    ----------
    feature_1, feature_2 : str
    values_1 : ndarray of shape (n_1,)
        Grid of ``feature_1``: feature units, or the level index ``0..n_levels-1``
        of a one-hot group.
    values_2 : ndarray of shape (n_2,)
    pd : ndarray of shape (n_1, n_2)
    deciles_1, deciles_2 : ndarray of shape (9,) or (0,)
        Empty for a group.
    output : str
    levels_1, levels_2 : tuple of str or None
        Level names of a one-hot group (as :attr:`FeatureEffect.levels`), None for
        a numeric feature.
    """

    feature_1: str
    feature_2: str
    values_1: np.ndarray
    values_2: np.ndarray
    pd: np.ndarray
    deciles_1: np.ndarray = field(default_factory=lambda: np.empty(0))
    deciles_2: np.ndarray = field(default_factory=lambda: np.empty(0))
    output: str = "predict"
    levels_1: tuple | None = None
    levels_2: tuple | None = None

    @property
    def categorical(self) -> tuple[bool, bool]:
        """Whether ``feature_1`` / ``feature_2`` is a one-hot group."""
        return self.levels_1 is not None, self.levels_2 is not None


def _output_label(model, output: str) -> str:
    if not hasattr(model, "predict"):
        return "callable"
    if output == "auto":
        return "proba" if _is_classifier(model) else "predict"
    return output


def _resolve_feature(
    feature, n_features: int, names: list[str] | None, groups: Mapping[str, Sequence] | None
) -> tuple[str, list[int], bool]:
    """(name, column indices, is_group)."""

    def index_of(item) -> int:
        if isinstance(item, str):
            if names is None or item not in names:
                raise ValueError(f"unknown feature {item!r}" + ("" if names else " (pass feature_names to use names)"))
            return names.index(item)
        return _check_columns(item, n_features)[0]

    def name_of(j: int) -> str:
        return names[j] if names else f"x{j}"

    if isinstance(feature, str) and groups and feature in groups:
        cols = [index_of(c) for c in groups[feature]]
        if len(cols) < 1:
            raise ValueError(f"feature group {feature!r} is empty")
        return feature, _check_columns(cols, n_features), True
    if isinstance(feature, (str, numbers.Integral)):
        j = index_of(feature)
        return name_of(j), [j], False
    cols = _check_columns([index_of(c) for c in feature], n_features)
    return "+".join(name_of(j) for j in cols), cols, True


@dataclass(frozen=True)
class EffectOptions:
    """The rarely changed options of :func:`explain_feature`, in one keyword.

    Parameters
    ----------
    kind : str, default "uniform"
        :func:`feature_grid`'s kind of a numeric feature's grid (without an explicit ``grid``).
    percentiles : (float, float), default (0.05, 0.95)
        :func:`feature_grid`'s range.
    smooth, polyorder : int, default 2, 2
        d-ICE smoother (:func:`ice_derivatives`).
    max_batch_rows : int
        See :func:`ice_curves`.
    """

    kind: str = "uniform"
    percentiles: tuple[float, float] = (0.05, 0.95)
    smooth: int = 2
    polyorder: int = 2
    max_batch_rows: int = DEFAULT_MAX_BATCH_ROWS


def explain_feature(
    model,
    X,
    feature,
    *,
    feature_names: Sequence[str] | None = None,
    feature_groups: Mapping[str, Sequence] | None = None,
    output: str = "auto",
    class_index: int = 1,
    grid=None,
    resolution: int = 100,
    anchor: str | float = "min",
    row_ids=None,
    options: EffectOptions | None = None,
) -> FeatureEffect:
    """ICE, PD, c-ICE, d-ICE and decile rug of one feature or one-hot group.

    Parameters
    ----------
    model : callable or fitted estimator
        See :func:`effect_function`.
    X : array-like or DataFrame of shape (n_samples, n_features)
        Data whose rows give the ICE curves (the pipeline uses the test split).
    feature : int, str or sequence
        Column index, column name, name of a group in ``feature_groups``, or a
        sequence of columns forming a one-hot group.
    feature_names : sequence of str, optional
        Column names (taken from ``X.columns`` for a DataFrame).
    feature_groups : mapping of str to sequence, optional
        One-hot groups, name -> member columns (names or indices), as
        ``PreparedData.feature_groups``.
    output, class_index
        See :func:`effect_function`.
    grid : array-like of shape (n_grid,), optional
        Explicit grid for a numeric feature (strictly increasing); otherwise
        :func:`feature_grid` with ``resolution`` and ``options.kind``, ``options.percentiles``.
        Groups always use :func:`onehot_grid`.
    resolution : int, default 100
        Grid points of a numeric feature without ``grid``.
    anchor : {"min", "max"} or float, default "min"
        c-ICE anchor (:func:`anchor_index`; a quantile of the observed feature).
        For a group: "min" / "max" = first / last level.
    row_ids : array-like of int, shape (n_samples,), optional
        Identifiers of the rows of ``X`` (default ``0..n-1``; e.g. the row
        numbers of the test split in the prepared table).
    options : EffectOptions, optional
        The rarely changed options (:class:`EffectOptions`: the grid's ``kind`` and
        ``percentiles``, the d-ICE smoother's ``smooth`` and ``polyorder``, ``max_batch_rows``).
        None: ``EffectOptions()``.

    Returns
    -------
    FeatureEffect

    Raises
    ------
    ValueError, TypeError
        Invalid inputs (see the functions above); a quantile anchor for a group.
    """
    opts = EffectOptions() if options is None else options
    kind, percentiles, smooth, polyorder = opts.kind, opts.percentiles, opts.smooth, opts.polyorder
    max_batch_rows = opts.max_batch_rows
    Xv, _, x_names = _check_X(X)
    names = list(feature_names) if feature_names is not None else x_names
    if names is not None and len(names) != Xv.shape[1]:
        raise ValueError(f"feature_names has {len(names)} names for {Xv.shape[1]} columns")
    name, cols, is_group = _resolve_feature(feature, Xv.shape[1], names, feature_groups)
    n = Xv.shape[0]
    rows = np.arange(n) if row_ids is None else np.asarray(row_ids)
    if rows.shape != (n,) or not np.issubdtype(rows.dtype, np.integer):
        raise ValueError(f"row_ids must be integers of shape ({n},), got {rows.dtype} {rows.shape}")
    kwargs = dict(output=output, class_index=class_index, max_batch_rows=max_batch_rows)
    label = _output_label(model, output)

    if is_group:
        G = onehot_grid(Xv[:, cols])
        level_names = [names[j] if names else f"x{j}" for j in cols]
        levels = _group_levels(G, level_names)
        ice = ice_curves(model, X, cols, G, **kwargs)
        if anchor == "min":
            a = 0
        elif anchor == "max":
            a = G.shape[0] - 1
        else:
            raise ValueError(f"a one-hot group's anchor must be 'min' or 'max', got {anchor!r}")
        c_ice = centered_ice(ice, a)
        pd_ = ice.mean(axis=0)
        return FeatureEffect(
            feature=name,
            grid=np.arange(G.shape[0], dtype=np.float64),
            levels=levels,
            rows=rows,
            ice=ice,
            pd=pd_,
            c_ice=c_ice,
            pd_centered=pd_ - pd_[a],
            anchor=a,
            d_ice=None,
            d_pd=None,
            d_ice_sd=None,
            deciles=np.empty(0),
            output=label,
        )

    x = Xv[:, cols[0]]
    g = (
        feature_grid(x, resolution=resolution, kind=kind, percentiles=percentiles)
        if grid is None
        else _check_grid_axis(grid)
    )
    ice = ice_curves(model, X, cols, g, **kwargs)
    a = anchor_index(g, anchor, x)
    pd_ = ice.mean(axis=0)
    d_ice = ice_derivatives(ice, g, smooth=smooth, polyorder=polyorder)
    return FeatureEffect(
        feature=name,
        grid=g,
        levels=None,
        rows=rows,
        ice=ice,
        pd=pd_,
        c_ice=centered_ice(ice, a),
        pd_centered=pd_ - pd_[a],
        anchor=a,
        d_ice=d_ice,
        d_pd=d_ice.mean(axis=0),
        d_ice_sd=derivative_sd(d_ice) if n > 1 else np.zeros(g.size),
        deciles=deciles(x),
        output=label,
    )


def _group_levels(G: np.ndarray, level_names: Sequence[str]) -> tuple:
    return tuple(NO_LEVEL if not row.any() else level_names[int(np.argmax(row))] for row in G)


def explain_pair(
    model,
    X,
    pair,
    *,
    feature_names: Sequence[str] | None = None,
    feature_groups: Mapping[str, Sequence] | None = None,
    output: str = "auto",
    class_index: int = 1,
    grids=None,
    resolution: int = 20,
    kind: str = "uniform",
    percentiles: tuple[float, float] = (0.05, 0.95),
    max_batch_rows: int = DEFAULT_MAX_BATCH_ROWS,
) -> PairEffect:
    """Two-way PD of a pair of variables on a 2-D grid: numeric features or one-hot groups.

    Friedman (2001) §8.2 with :math:`x_S` the pair:
    :math:`\\bar f(z^1_a, z^2_b) = \\frac1N \\sum_i \\hat f(z^1_a, z^2_b, x_C^{(i)})`. The grid
    of a one-hot group is its level vectors (:func:`onehot_grid`): the point of level
    ``l`` sets that level's column to 1 and the group's other columns to 0, so that,
    as in :func:`explain_feature`, no row with two levels set is made. Category x
    numeric gives one PD curve over the numeric grid per level; category x category
    a table of level pairs.

    Parameters
    ----------
    model, X, feature_names, feature_groups, output, class_index, max_batch_rows
        As :func:`explain_feature`.
    pair : (int, str or sequence, int, str or sequence)
        The two variables (distinct, no column shared): column indices or names,
        names of groups in ``feature_groups``, or sequences of columns forming a
        one-hot group.
    grids : (array-like, array-like), optional
        Explicit grids of numeric features (None for a group, whose grid is
        always its levels); otherwise :func:`feature_grid` of each numeric
        feature with ``resolution`` (default 20 per axis), ``kind`` and
        ``percentiles``.

    Returns
    -------
    PairEffect
        ``values_*`` of a group: the level index; ``levels_*``: the level names.

    Raises
    ------
    ValueError
        ``pair`` not two variables, a column shared by both, an explicit grid for
        a group, or invalid grids / groups (:func:`onehot_grid`).
    """
    Xv, _, x_names = _check_X(X)
    names = list(feature_names) if feature_names is not None else x_names
    if isinstance(pair, (str, numbers.Integral)) or len(list(pair)) != 2:
        raise ValueError(f"pair must be two features, got {pair!r}")
    resolved = [_resolve_feature(p, Xv.shape[1], names, feature_groups) for p in pair]
    (n1, c1, g1_is_group), (n2, c2, g2_is_group) = resolved
    if set(c1) & set(c2):
        raise ValueError(f"pair names the same feature twice: {pair!r}")
    if g1_is_group or g2_is_group:
        return _explain_pair_groups(
            model,
            X,
            Xv,
            resolved,
            names,
            grids=grids,
            resolution=resolution,
            kind=kind,
            percentiles=percentiles,
            output=output,
            class_index=class_index,
            max_batch_rows=max_batch_rows,
        )
    x1, x2 = Xv[:, c1[0]], Xv[:, c2[0]]
    if grids is None:
        g1 = feature_grid(x1, resolution=resolution, kind=kind, percentiles=percentiles)
        g2 = feature_grid(x2, resolution=resolution, kind=kind, percentiles=percentiles)
    else:
        g1, g2 = (_check_1d(g, "grid") for g in grids)
    pd2 = partial_dependence_2d(
        model,
        X,
        (c1[0], c2[0]),
        g1,
        g2,
        output=output,
        class_index=class_index,
        max_batch_rows=max_batch_rows,
    )
    return PairEffect(
        feature_1=n1,
        feature_2=n2,
        values_1=g1,
        values_2=g2,
        pd=pd2,
        deciles_1=deciles(x1),
        deciles_2=deciles(x2),
        output=_output_label(model, output),
    )


def _explain_pair_groups(
    model,
    X,
    Xv: np.ndarray,
    resolved,
    names,
    *,
    grids,
    resolution: int,
    kind: str,
    percentiles,
    output: str,
    class_index: int,
    max_batch_rows: int,
) -> PairEffect:
    """:func:`explain_pair` with a one-hot group on one axis or both (its level vectors as grid)."""
    axes = []
    for k, (name, cols, is_group) in enumerate(resolved):
        given = None if grids is None else grids[k]
        if is_group:
            if given is not None:
                raise ValueError(f"{name!r} is a one-hot group; its grid is its levels and cannot be given")
            G = onehot_grid(Xv[:, cols])
            level_names = [names[j] if names else f"x{j}" for j in cols]
            axes.append((name, cols, G, np.arange(G.shape[0], dtype=np.float64), _group_levels(G, level_names)))
        else:
            x = Xv[:, cols[0]]
            g = (
                feature_grid(x, resolution=resolution, kind=kind, percentiles=percentiles)
                if given is None
                else _check_1d(given, "grid")
            )
            axes.append((name, cols, g[:, None], g, None))
    (n1, c1, G1, v1, l1), (n2, c2, G2, v2, l2) = axes
    # every grid point of the pair: feature_1's value (vector) then feature_2's, feature_2 varying fastest
    G = np.hstack([np.repeat(G1, G2.shape[0], axis=0), np.tile(G2, (G1.shape[0], 1))])
    pd2 = partial_dependence(
        model, X, list(c1) + list(c2), G, output=output, class_index=class_index, max_batch_rows=max_batch_rows
    ).reshape(G1.shape[0], G2.shape[0])
    return PairEffect(
        feature_1=n1,
        feature_2=n2,
        values_1=v1,
        values_2=v2,
        pd=pd2,
        deciles_1=np.empty(0) if l1 is not None else deciles(Xv[:, c1[0]]),
        deciles_2=np.empty(0) if l2 is not None else deciles(Xv[:, c2[0]]),
        output=_output_label(model, output),
        levels_1=l1,
        levels_2=l2,
    )
