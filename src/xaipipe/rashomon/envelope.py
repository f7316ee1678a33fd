"""PD envelopes over a Rashomon set: the partial dependence of every member, and its pointwise range.

Partial dependence (Friedman 2001, §8.2) of each member of :math:`\\hat{\\mathcal R}(\\epsilon)`
from one batched pass per fitted group (:mod:`xaipipe.rashomon.refit`), and the
envelope ``[min, max]`` of the curves at every grid point beside the reference
model's curve.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..explain.reliance import features_from_groups
from ..models.prefix import member_predictor
from .refit import FittedGroup
from .sets import CROSS_FAMILY, select_set

__all__ = [
    "CurveOptions",
    "members_partial_dependence",
    "pd_envelope",
    "pd_envelope_table",
    "selected_groups",
    "members_curves",
]


def members_partial_dependence(
    groups: Sequence[FittedGroup],
    X,
    columns: Sequence[int],
    grid,
    *,
    class_index: int = 1,
    max_batch_rows: int = 100_000,
) -> pd.DataFrame:
    """Partial dependence of every member, one batched pass per fitted group.

    PD (Friedman 2001, §8.2): :math:`\\bar f_S(z_k) = \\frac1N \\sum_i f(z_k,
    x_C^{(i)})`. The ``N × K`` stacked rows (every observation at every grid
    point, grid-point major as :func:`xaipipe.explain.pdp.ice_curves`) are passed
    in chunks to the group's predict-many callable
    (:func:`xaipipe.models.prefix.member_predictor`), which returns all
    ``n_estimators`` prefixes at once, so the cost is one pass per fitted group,
    not per member.

    Parameters
    ----------
    groups : sequence of FittedGroup
    X : array-like of shape (N, p)
    columns : sequence of int
        Column(s) set jointly to each grid point (one feature or a one-hot group).
    grid : array-like of shape (K,) or (K, len(columns))
    class_index : int, default 1
        Probability column for classifiers (1: the positive class of a binary model;
        ``k``: class ``k`` of a multiclass model).
    max_batch_rows : int

    Returns
    -------
    DataFrame
        One row per member × grid point: ``family``, ``config_id``,
        ``grid_index``, ``pd`` (model output units: target units or probability).

    Raises
    ------
    ValueError
        Invalid columns or grid.
    """
    Xv = np.asarray(X.to_numpy() if hasattr(X, "to_numpy") else X, dtype=np.float64)
    cols = [int(c) for c in columns]
    if not cols or min(cols) < 0 or max(cols) >= Xv.shape[1] or len(set(cols)) != len(cols):
        raise ValueError(f"columns must be distinct indices in [0, {Xv.shape[1]}), got {columns!r}")
    Gm = np.asarray(grid, dtype=np.float64)
    if Gm.ndim == 1:
        Gm = Gm[:, None]
    if Gm.ndim != 2 or Gm.shape[1] != len(cols) or Gm.shape[0] == 0 or not np.isfinite(Gm).all():
        raise ValueError(f"grid must be finite with shape (K,) or (K, {len(cols)})")
    n, K = Xv.shape[0], Gm.shape[0]
    total = n * K
    frames = []
    for grp in groups:
        predict = member_predictor(grp.model, grp.n_estimators or None)
        sums = None
        for start in range(0, total, int(max_batch_rows)):
            stop = min(start + int(max_batch_rows), total)
            k, i = np.divmod(np.arange(start, stop), n)
            chunk = Xv[i]
            chunk[:, cols] = Gm[k]
            out = np.asarray(predict(chunk), dtype=np.float64)
            if out.ndim == 3:
                out = out[..., class_index]
            if sums is None:
                sums = np.zeros((out.shape[0], K))
            # rows are grid-point major: contiguous runs of one grid point
            starts = np.flatnonzero(np.r_[True, k[1:] != k[:-1]])
            sums[:, k[starts]] += np.add.reduceat(out, starts, axis=1)
        pdv = sums / n
        m = pdv.shape[0]
        frames.append(
            pd.DataFrame(
                {
                    "family": grp.family,
                    "config_id": np.repeat(np.asarray(grp.config_ids, dtype=object), K),
                    "grid_index": np.tile(np.arange(K), m),
                    "pd": pdv.ravel(),
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


def pd_envelope(
    pd_members: pd.DataFrame,
    reference: tuple[str, str],
    members: pd.DataFrame | None = None,
    grid=None,
) -> pd.DataFrame:
    """Pointwise envelope of PD curves across a Rashomon set.

    Parameters
    ----------
    pd_members : DataFrame
        :func:`members_partial_dependence` output.
    reference : (family, config_id)
        The reference model.
    members : DataFrame with ``family``, ``config_id``, optional
        Restrict to these members (e.g. :func:`select_set` at one ε); default all.
    grid : array-like of shape (K,) or sequence of labels, optional
        Grid values (or level labels of a one-hot group) added as column ``x``.

    Returns
    -------
    DataFrame
        One row per grid point: ``grid_index``, ``x`` (if ``grid``), ``pd_min``,
        ``pd_max`` (pointwise min / max over the members), ``pd_reference``,
        ``n_members``.

    Raises
    ------
    ValueError
        The reference is not among the curves, or ``grid`` has the wrong length.
    """
    frame = pd_members
    if members is not None:
        keys = set(zip(members["family"].astype(str), members["config_id"].astype(str)))
        mask = [(f, c) in keys for f, c in zip(frame["family"].astype(str), frame["config_id"].astype(str))]
        frame = frame[np.asarray(mask, dtype=bool)]
    ref = frame[
        (frame["family"].astype(str) == str(reference[0])) & (frame["config_id"].astype(str) == str(reference[1]))
    ]
    if ref.empty:
        raise ValueError(f"reference {reference!r} has no PD curve among the members")
    agg = frame.groupby("grid_index")["pd"].agg(["min", "max"]).rename(columns={"min": "pd_min", "max": "pd_max"})
    agg["pd_reference"] = ref.set_index("grid_index")["pd"]
    agg["n_members"] = frame[["family", "config_id"]].drop_duplicates().shape[0]
    agg = agg.reset_index()
    if grid is not None:
        values = list(np.asarray(grid).tolist()) if np.ndim(grid) == 1 else list(grid)
        if len(values) != len(agg):
            raise ValueError(f"grid has {len(values)} values for {len(agg)} grid points")
        agg.insert(1, "x", [values[i] for i in agg["grid_index"]])
    return agg


def envelope_variables(
    members: pd.DataFrame,
    *,
    scope: str,
    epsilon: float,
    top_k: int = 2,
    estimator: str = "permutation",
    quantity: str = "mr_ratio",
) -> tuple[pd.DataFrame, tuple[str, str], list[str]]:
    """The members, reference model and variables of a PD envelope.

    Parameters
    ----------
    members, scope, epsilon
        As :func:`~xaipipe.rashomon.sets.select_set`: the member table
        (:func:`~xaipipe.rashomon.members.member_table`), a family name or ``"cross_family"``, the ε.
    top_k : int, default 2
    estimator : str
        MR estimator that ranks the variables.
    quantity : str, default "mr_ratio"

    Returns
    -------
    selection : DataFrame
        Rows of ``R(ε)`` of ``scope`` (:func:`select_set`).
    reference : (family, config_id)
        The scope's reference model.
    variables : list of str
        The reference model's ``top_k`` variables by ``quantity``, largest first.

    Raises
    ------
    ValueError
        ``top_k < 1``, an empty selection or no reference rows for ``estimator``.
    """
    if top_k < 1:
        raise ValueError(f"top_k must be >= 1, got {top_k!r}")
    sel = select_set(members, scope, epsilon)
    kind = CROSS_FAMILY if scope == CROSS_FAMILY else "family"
    ref_rows = sel[sel[f"is_reference_{kind}"].astype(bool) & (sel["estimator"] == estimator)]
    if ref_rows.empty:
        raise ValueError(f"no reference rows for estimator {estimator!r}")
    ref_key = (str(ref_rows["family"].iloc[0]), str(ref_rows["config_id"].iloc[0]))
    top = ref_rows.sort_values(quantity, ascending=False)["feature"].head(top_k).tolist()
    return sel, ref_key, top


def selected_groups(groups: Sequence[FittedGroup], selection: pd.DataFrame) -> list[FittedGroup]:
    """The fitted groups restricted to the members in ``selection`` (columns ``family``, ``config_id``).

    Groups without a selected member are dropped; the others keep only their selected
    prefixes, in their own order.
    """
    keys = set(zip(selection["family"].astype(str), selection["config_id"].astype(str)))
    chosen = []
    for g in groups:
        idx = [i for i, c in enumerate(g.config_ids) if (g.family, c) in keys]
        if idx:
            chosen.append(
                FittedGroup(
                    g.family,
                    g.base_params,
                    [g.n_estimators[i] for i in idx] if g.n_estimators else [],
                    [g.config_ids[i] for i in idx],
                    g.model,
                    g.fit_time_s,
                )
            )
    return chosen


def variable_grid(
    Xv: np.ndarray,
    columns: Sequence[int],
    feature_names: Sequence[str],
    *,
    resolution: int,
    percentiles: tuple[float, float],
) -> tuple[np.ndarray, list]:
    """Grid of one variable and its labels: quantiles of a numeric column
    (:func:`xaipipe.explain.pdp.feature_grid`) or the levels of a one-hot group
    (:func:`xaipipe.explain.pdp.onehot_grid`, labelled by level name, ``"(none)"`` for the
    all-zero reference level)."""
    from ..explain.pdp import feature_grid, onehot_grid

    cols = list(columns)
    if len(cols) > 1:
        grid = onehot_grid(Xv[:, cols])
        names = [feature_names[c] for c in cols]
        return grid, [names[int(np.argmax(v))] if v.any() else "(none)" for v in grid]
    grid = feature_grid(Xv[:, cols[0]], resolution, percentiles=percentiles)
    return grid, grid


def members_curves(
    groups: Sequence[FittedGroup],
    X,
    *,
    feature_names: Sequence[str],
    feature_groups: Mapping[str, Sequence[str]] | None = None,
    variables: Sequence[str] | None = None,
    resolution: int = 30,
    percentiles: tuple[float, float] = (0.05, 0.95),
    max_batch_rows: int = 100_000,
    skip_invalid: bool = False,
    class_index: int = 1,
) -> pd.DataFrame:
    """PD curves of every member of ``groups`` for several variables.

    Parameters
    ----------
    groups : sequence of FittedGroup
    X : array-like of shape (N, p)
    feature_names, feature_groups
        Variables (:func:`xaipipe.explain.reliance.features_from_groups`: a one-hot
        group is one variable).
    variables : sequence of str, optional
        Default: every variable, in column order.
    resolution, percentiles
        Grid of a numeric variable (:func:`variable_grid`).
    max_batch_rows : int
    skip_invalid : bool, default False
        Leave out a variable whose grid cannot be built (a column group that is not
        one-hot) instead of raising.
    class_index : int, default 1
        Probability column of classifiers (:func:`members_partial_dependence`).

    Returns
    -------
    DataFrame
        ``feature`` + the :func:`members_partial_dependence` rows, variable-major
        (empty when ``groups`` is).

    Raises
    ------
    ValueError
        A variable without a grid (unless ``skip_invalid``).
    """
    spec = features_from_groups(feature_names, feature_groups)
    Xv = np.asarray(X.to_numpy() if hasattr(X, "to_numpy") else X, dtype=np.float64)
    frames = []
    for feature in list(spec) if variables is None else list(variables):
        if not groups:
            break
        cols = spec[feature]
        try:
            grid, _ = variable_grid(Xv, cols, feature_names, resolution=resolution, percentiles=percentiles)
        except ValueError:
            if skip_invalid:
                continue
            raise
        pdm = members_partial_dependence(groups, Xv, cols, grid, class_index=class_index, max_batch_rows=max_batch_rows)
        pdm.insert(0, "feature", feature)
        frames.append(pdm)
    if not frames:
        return pd.DataFrame(columns=["feature", "family", "config_id", "grid_index", "pd"])
    return pd.concat(frames, ignore_index=True)


@dataclass(frozen=True)
class CurveOptions:
    """How :func:`pd_envelope_table` computes a member's PD curve (its ``curve_options=``).

    Attributes
    ----------
    resolution : int, default 30
        Grid points of a numeric variable (:func:`variable_grid`).
    percentiles : (float, float), default (0.05, 0.95)
        Grid range of a numeric variable, as quantiles of ``X``'s column.
    class_index : int, default 1
        Probability column of classifiers (1: a binary model's positive class; a
        multiclass model's chosen class, config key ``explain.figure_class``).
    max_batch_rows : int, default 100000
        Rows per batched prediction (:func:`members_partial_dependence`); memory only.
    """

    resolution: int = 30
    percentiles: tuple[float, float] = (0.05, 0.95)
    class_index: int = 1
    max_batch_rows: int = 100_000


def pd_envelope_table(
    groups: Sequence[FittedGroup] | None,
    members: pd.DataFrame,
    X,
    *,
    scope: str,
    epsilon: float,
    feature_names: Sequence[str],
    feature_groups: Mapping[str, Sequence[str]] | None = None,
    top_k: int = 2,
    estimator: str = "permutation",
    quantity: str = "mr_ratio",
    curves: Sequence[pd.DataFrame] | None = None,
    curve_options: CurveOptions | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """PD envelopes of the ``top_k`` variables of a Rashomon set, ready to save.

    The variables are the reference model's ``top_k`` by ``quantity``
    (``estimator``); grids come from :func:`xaipipe.explain.pdp.feature_grid`
    (numeric variables) or :func:`xaipipe.explain.pdp.onehot_grid` (one-hot
    groups, labelled by level). Only the members of ``R(ε)`` of ``scope`` are
    evaluated, one batched pass per fitted group.

    Parameters
    ----------
    groups : sequence of FittedGroup or None
        The refitted members (None with ``curves``).
    curves : sequence of DataFrame, optional
        Instead of ``groups``: :func:`members_curves` of the selected members, computed
        elsewhere (e.g. one frame per family by the ``rashomon_refit`` jobs) for (at
        least) the chosen variables, in the order of the groups. The result is the
        same as from the groups themselves.
    curve_options : CurveOptions, optional
        The grid of each variable, the probability column of classifiers and the batch size
        (default ``CurveOptions()``).

    Returns
    -------
    envelope : DataFrame
        ``feature`` + the :func:`pd_envelope` columns (``x`` = grid value or
        level label) + ``scope``, ``epsilon``.
    curves : DataFrame
        ``feature`` + the :func:`members_partial_dependence` rows of the members.

    Raises
    ------
    ValueError
        ``top_k < 1``, an empty selection, neither or both of ``groups`` and
        ``curves``, or a selected member without a curve.
    """
    if (groups is None) == (curves is None):
        raise ValueError("give either groups or curves")
    opts = CurveOptions() if curve_options is None else curve_options
    sel, ref_key, top = envelope_variables(
        members, scope=scope, epsilon=epsilon, top_k=top_k, estimator=estimator, quantity=quantity
    )
    spec = features_from_groups(feature_names, feature_groups)
    Xv = np.asarray(X.to_numpy() if hasattr(X, "to_numpy") else X, dtype=np.float64)
    chosen = selected_groups(groups, sel) if groups is not None else None
    envs, out = [], []
    for feature in top:
        cols = spec[feature]
        grid, labels = variable_grid(Xv, cols, feature_names, resolution=opts.resolution, percentiles=opts.percentiles)
        if chosen is not None:
            pdm = members_partial_dependence(
                chosen, Xv, cols, grid, class_index=opts.class_index, max_batch_rows=opts.max_batch_rows
            )
            pdm.insert(0, "feature", feature)
        else:
            parts = [p for p in (c[c["feature"] == feature] for c in curves if len(c)) if len(p)]
            pdm = pd.concat(parts, ignore_index=True) if parts else None
            wanted = sel[["family", "config_id"]].astype(str).drop_duplicates()
            got = set() if pdm is None else set(zip(pdm["family"].astype(str), pdm["config_id"].astype(str)))
            lost = [k for k in zip(wanted["family"], wanted["config_id"]) if k not in got]
            if lost:
                raise ValueError(f"no PD curve of variable {feature!r} for member {lost[0]} (of {len(lost)})")
        env = pd_envelope(pdm, ref_key, grid=labels)
        env.insert(0, "feature", feature)
        envs.append(env)
        out.append(pdm)
    envelope = pd.concat(envs, ignore_index=True)
    envelope["scope"] = scope
    envelope["epsilon"] = float(epsilon)
    return envelope, pd.concat(out, ignore_index=True)
