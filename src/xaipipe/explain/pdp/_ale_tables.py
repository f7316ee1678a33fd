"""The ``ale`` rule's tables: ALE beside PD of every variable, and the second-order ALE of one pair.

:func:`ale_tables` -- first-order ALE (:mod:`._ale`) of **every** variable (numeric: quantile bins; a
one-hot group: one categorical variable, levels in the order of Apley & Zhu) with the partial
dependence at the same grid beside it (``pd``; ``pd_centred`` centred exactly as the ALE, so that the
two curves coincide for a model additive in the variable with independent features, and differ where
PD extrapolates), and the second-order ALE of one pair (the pair of the 2-D PD).
``docs/methods_dependent_features.md`` says where each quantity lands in the results.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

import numpy as np
import pandas as pd

from ...config.dependence import AleSettings
from ...models import forest_store  # the module: benchmarks/store_one_pass.py swaps plans_predictions
from ..classes import class_choice
from ..reliance import features_from_groups, ranked_features
from ._ale import ALE_COLUMNS, _predict_stacked, accumulated_local_effects, accumulated_local_effects_2d
from ._curves import effect_function
from ._grid import NO_LEVEL, _check_X, onehot_grid

__all__ = ["ALE_TABLE_COLUMNS", "ALE_2D_COLUMNS", "AleTables", "ale_tables"]

#: Columns of ``ale.csv`` after ``dataset``, ``model``: the ALE table, its PD, the variable's MR rank.
ALE_TABLE_COLUMNS = ["rank", *ALE_COLUMNS[:-2], "pd", "pd_centred", "centering", "output"]
#: Columns of ``ale_2d.csv`` after ``dataset``, ``model``.
ALE_2D_COLUMNS = [
    "feature_1",
    "feature_2",
    "position_1",
    "position_2",
    "value_1",
    "value_2",
    "ale",
    "n_rows",
    "imputed",
    "output",
]


def _variables(names: Sequence[str], groups: Mapping[str, Sequence[str]] | None) -> list[tuple[str, list[int], bool]]:
    """(name, columns, is_group) of every variable, a one-hot group at its first column's position."""
    feats = features_from_groups(list(names), groups)
    gset = set(groups or {})
    return [(k, list(v), k in gset) for k, v in feats.items()]


def _centre(values: np.ndarray, counts: np.ndarray, kind: str, centering: str) -> np.ndarray:
    """Centre a curve on the ALE grid exactly as :func:`~xaipipe.explain.pdp.accumulated_local_effects`
    centres the ALE: numeric ``ale_plot`` the trapezoid mean over the bins, ``paper`` the upper edges,
    categorical the level shares."""
    n = counts.sum()
    if kind == "categorical":
        return values - float((counts * values).sum() / n)
    if centering == "paper":
        return values - float((counts * values[1:]).sum() / n)
    return values - float((counts * (values[:-1] + values[1:]) / 2.0).sum() / n)


def _pd_on_grid(f, wrap, Xv: np.ndarray, cols: list[int], points: np.ndarray, batch: int) -> np.ndarray:
    """Partial dependence at each grid point: the mean model output with ``cols`` set to the point."""
    blocks = []
    for z in points:
        Z = Xv.copy()
        Z[:, cols] = z
        blocks.append(Z)
    return np.array([float(y.mean()) for y in _predict_stacked(f, wrap, blocks, batch)])


def _pd_on_grid_se(f, wrap, Xv, cols, points, batch, n_total: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_pd_on_grid` on the subsample ``Xv`` (``m`` rows) and the Monte-Carlo SE of each point's
    mean as an estimate of the mean over ``n_total`` rows: ``sd / sqrt(m) * sqrt(1 - m / n_total)``
    (simple random sampling without replacement; Cochran 1977, eq. 2.12)."""
    blocks = []
    for z in points:
        Z = Xv.copy()
        Z[:, cols] = z
        blocks.append(Z)
    outs = _predict_stacked(f, wrap, blocks, batch)
    m = Xv.shape[0]
    fpc = np.sqrt(max(1.0 - m / n_total, 0.0) / m)
    return np.array([float(y.mean()) for y in outs]), np.array([float(np.std(y, ddof=1)) * fpc for y in outs])


class AleTables(NamedTuple):
    """The outputs of the ``ale`` rule (:func:`ale_tables`); a named triple, so that
    ``ale, ale_2d, skipped = ale_tables(...)`` unpacks it.

    Attributes
    ----------
    ale : DataFrame
        ``ale.csv`` without its ids: one row per grid point of every variable.
    ale_2d : DataFrame
        ``ale_2d.csv`` without its ids: the second-order ALE of the pair.
    skipped : list of str
        Variables without an ALE (constant on the rows, or a group that is not one-hot).
    """

    ale: pd.DataFrame
    ale_2d: pd.DataFrame
    skipped: list[str]

    def to_frames(self) -> dict[str, pd.DataFrame]:
        """The tables by the rule's output names (``ale``, ``ale_2d``)."""
        return {"ale": self.ale, "ale_2d": self.ale_2d}


def _varies(Xv, cols, is_group: bool):
    """``(whether the variable takes at least two values in Xv, a one-hot group's grid or None)``."""
    if is_group:
        try:
            grid = onehot_grid(Xv[:, cols])
        except ValueError:
            return False, None
        return np.unique(Xv[:, cols], axis=0).shape[0] >= 2, grid
    return np.unique(Xv[:, cols[0]]).size >= 2, None


def ale_tables(
    model,
    data,
    settings: AleSettings,
    *,
    reliance: pd.DataFrame | None = None,
    ranking: Sequence[str] = (),
    pair: Sequence[str] | None = None,
) -> AleTables:
    """The ``ale`` rule: ALE and PD of every variable on one grid, and the second-order ALE of a pair.

    Parameters
    ----------
    model : fitted estimator or callable
        A forest store (:func:`xaipipe.io.open_model`) predicts one block of trees at a time, and
        all of this function's predictions come from one pass over its blocks
        (:func:`xaipipe.models.forest_store.predict_in_one_pass`; the tables are bitwise the same).
    data : PreparedData
        The dataset's split (:func:`xaipipe.data.prepare.load_prepared`; any object with these
        attributes): ``X_test`` (array-like of shape (n, p): the rows, as PD/ICE), ``features``,
        ``feature_groups`` (one-hot groups: one categorical variable each; a group that is not
        one-hot has no ALE, named in ``skipped``) and ``classes`` (labels of a multiclass model in
        code order, else None: a classifier explains class 1).
    settings : AleSettings
        :meth:`xaipipe.config.AleSettings.from_config` (config section ``explain.ale``):
        ``n_bins``, ``pair_bins`` (quantile bins of a numeric variable, 1-D and per axis of the
        pair), ``centering`` (``ale_plot`` / ``paper``:
        :func:`~xaipipe.explain.pdp.accumulated_local_effects`; the PD is centred the same way),
        ``output`` (:func:`xaipipe.explain.pdp.effect_function`), ``max_batch_rows`` (most rows per
        model call), ``figure_class`` (a multiclass model's explained class, config key
        ``explain.figure_class``: :func:`~xaipipe.explain.classes.class_choice`; both tables then
        get a first column ``class``), ``seed`` and the large-data group: where the test split has
        more than ``large_data.min_rows`` rows (:meth:`~xaipipe.config.AleSettings.large_data_rows`,
        ``m = large_data.pd_rows``) and ``n > m``, the ``pd`` column (``n x (K + 1)`` model calls
        per variable, the rule's largest cost) is averaged over a seeded subsample of ``m`` rows
        (``np.sort(np.random.default_rng(seed).choice(n, m, replace=False))``), on the grid of the
        ALE of all rows, and the table gets two last columns: ``pd_se``, the Monte-Carlo SE of
        ``pd`` against the all-rows PD (:func:`_pd_on_grid_se`), and ``pd_rows`` (``m``). The ALE
        (2-3 model calls per row and variable) and the second-order ALE keep every row;
        ``pd_centred`` is the subsample PD centred as before (no SE column). Off: unchanged tables.
    reliance : DataFrame, optional
        The model's MR table (``model_reliance.csv``): ``ranking`` is then every variable by
        decreasing MR of the settings' ranking (:func:`xaipipe.explain.reliance.ranked_features`).
    ranking : sequence of str
        Variables by decreasing MR instead (the ``rank`` column: 1 = largest; 0 = not ranked).
    pair : (str, str), optional
        The pair of the second-order ALE (the 2-D PD's pair); ``None`` or a pair with a
        non-numeric variable: no second-order table (no rows).

    Returns
    -------
    AleTables
        ``ale``: one row per grid point of every variable, :data:`ALE_TABLE_COLUMNS` (the ALE table
        of :meth:`~xaipipe.explain.pdp.ALEResult.to_frame`, ``pd`` the partial dependence at the
        edge / level in output units, ``pd_centred`` centred as the ALE); ``ale_2d``:
        :data:`ALE_2D_COLUMNS`; ``skipped``: variables without an ALE (constant on ``X_test``, or a
        group that is not one-hot).

    Raises
    ------
    ValueError
        Invalid ``X_test``, names, options or model output (as the ALE functions);
        ``figure_class`` not a class; both ``reliance`` and ``ranking``.
    """
    if reliance is not None:
        if len(ranking):
            raise ValueError("give at most one of reliance (the model's MR table) and ranking")
        ranking = ranked_features(reliance, settings)
    if forest_store.plans_predictions(model):  # a forest store: every prediction in one pass over its blocks
        return forest_store.predict_in_one_pass(
            model, lambda m: ale_tables(m, data, settings, ranking=ranking, pair=pair)
        )
    choice = class_choice(data.classes, settings.figure_class)
    class_index = choice.get("class_index", 1)
    output, n_bins, centering, max_batch_rows = (
        settings.output,
        settings.n_bins,
        settings.centering,
        settings.max_batch_rows,
    )
    feature_groups = data.feature_groups
    Xv, wrap, _ = _check_X(data.X_test)
    names = list(data.features)
    f = effect_function(model, output, class_index)
    rank = {v: i + 1 for i, v in enumerate(ranking)}
    frames, skipped = [], []
    n = Xv.shape[0]
    sub = None  # large-data policy: the PD's rows
    large_data_rows = settings.large_data_rows(n)  # None at or below large_data.min_rows test rows
    if large_data_rows is not None and n > int(large_data_rows):
        sub = Xv[np.sort(np.random.default_rng(settings.seed).choice(n, int(large_data_rows), replace=False))]
    for name, cols, is_group in _variables(names, feature_groups):
        varies, grid = _varies(Xv, cols, is_group)
        if not varies:
            skipped.append(name)
            continue
        res = accumulated_local_effects(
            model,
            Xv,
            name,
            feature_names=names,
            feature_groups=feature_groups,
            output=output,
            class_index=class_index,
            n_bins=n_bins,
            centering=centering,
            max_batch_rows=max_batch_rows,
        )
        if is_group:
            label_rows = {(NO_LEVEL if not row.any() else names[cols[int(np.argmax(row))]]): row for row in grid}
            points = np.array([label_rows[lv] for lv in res.levels])
        else:
            points = res.values[:, None]
        if sub is None:
            pdv = _pd_on_grid(f, wrap, Xv, cols, points, max_batch_rows)
        else:
            pdv, pd_se = _pd_on_grid_se(f, wrap, sub, cols, points, max_batch_rows, n)
        table = res.to_frame()
        table["pd"] = pdv
        table["pd_centred"] = _centre(pdv, res.n_rows, res.kind, centering)
        table.insert(0, "rank", rank.get(name, 0))
        table = table[ALE_TABLE_COLUMNS]
        if sub is not None:
            table = table.assign(pd_se=pd_se, pd_rows=sub.shape[0])
        frames.append(table)
    columns = ALE_TABLE_COLUMNS + ([] if sub is None else ["pd_se", "pd_rows"])
    ale = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=columns)
    ale_2d = pd.DataFrame(columns=ALE_2D_COLUMNS)
    groups = set(feature_groups or {})
    if pair is not None and len(pair) == 2 and not set(pair) & groups and all(p in names for p in pair):
        res2 = accumulated_local_effects_2d(
            model,
            Xv,
            tuple(pair),
            feature_names=names,
            output=output,
            class_index=class_index,
            n_bins=settings.pair_bins,
            max_batch_rows=max_batch_rows,
        )
        ale_2d = res2.to_frame()[ALE_2D_COLUMNS]
    if data.classes is not None:  # multiclass: the explained class, first column
        for table in (ale, ale_2d):
            table.insert(0, "class", str(data.classes[class_index]))
    return AleTables(ale, ale_2d, skipped)
