"""Workflow tables of one fitted model under dependent features and interactions (issue 35, round 2).

The rules ``ale``, ``h_statistic``, ``shap_interaction_summary`` and the hook of ``model_reliance``
call one function each (``workflow/scripts/*.py``); the methods are in :mod:`xaipipe.explain.ale`,
:mod:`xaipipe.explain.interactions` and :mod:`xaipipe.explain.reliance` (conditional and grouped MR),
and ``docs/methods_dependent_features.md`` says where each quantity lands in the results.

* :func:`ale_tables` -- first-order ALE of **every** variable (numeric: quantile bins; a one-hot group:
  one categorical variable, levels in the order of Apley & Zhu) with the partial dependence at the
  same grid beside it (``pd``; ``pd_centred`` centred exactly as the ALE, so that the two curves
  coincide for a model additive in the variable with independent features, and differ where PD
  extrapolates), and the second-order ALE of one pair (the pair of the 2-D PD).
* :func:`h_statistic_table` -- Friedman's H² of every variable (total) and of the pairs of the top
  variables by MR, on a row subsample with its bootstrap SE.
* :func:`shap_interaction_tables` -- the mean |SHAP interaction value| pair table and matrix from the
  long ``shap_interactions.csv``.
* :func:`dependent_reliance_rows` -- the conditional-permutation (cs-PFI) and correlation-grouped MR
  rows appended to ``model_reliance.csv`` (same columns as the marginal estimators' rows).
* :func:`dependent_ranking_agreement` -- the rows appended to the ranking-agreement table: Spearman
  correlations of the conditional and grouped rankings with MR, mean |SHAP| and split gain.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import NamedTuple

import numpy as np
import pandas as pd

from ..config.dependence import AleSettings, HStatisticSettings
from ..config.reliance import RelianceSettings
from ..data.prepare import importance_groups
from .ale import ALE_COLUMNS, _predict_stacked, accumulated_local_effects, accumulated_local_effects_2d
from .classes import class_choice
from .pdp import effect_function
from .pdp._grid import NO_LEVEL, _check_X, onehot_grid
from .ranking import ranked_features
from .summary import RANKING_MEASURES, RELIANCE_FIRST, ranking_agreement

__all__ = [
    "ALE_TABLE_COLUMNS",
    "ALE_2D_COLUMNS",
    "DEPENDENT_ESTIMATORS",
    "AleTables",
    "ale_tables",
    "h_statistic_table",
    "shap_interaction_tables",
    "dependent_reliance_rows",
    "dependent_ranking_agreement",
]

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
#: Estimators of :func:`dependent_reliance_rows` (``explain.reliance.dependent.estimators``).
DEPENDENT_ESTIMATORS = ("conditional_permutation", "grouped_permutation")


def _variables(names: Sequence[str], groups: Mapping[str, Sequence[str]] | None) -> list[tuple[str, list[int], bool]]:
    """(name, columns, is_group) of every variable, a one-hot group at its first column's position."""
    from .reliance import features_from_groups

    feats = features_from_groups(list(names), groups)
    gset = set(groups or {})
    return [(k, list(v), k in gset) for k, v in feats.items()]


def _centre(values: np.ndarray, counts: np.ndarray, kind: str, centering: str) -> np.ndarray:
    """Centre a curve on the ALE grid exactly as :func:`~xaipipe.explain.ale.accumulated_local_effects`
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
        :func:`~xaipipe.explain.ale.accumulated_local_effects`; the PD is centred the same way),
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
        decreasing MR of the settings' ranking (:func:`xaipipe.explain.ranking.ranked_features`).
    ranking : sequence of str
        Variables by decreasing MR instead (the ``rank`` column: 1 = largest; 0 = not ranked).
    pair : (str, str), optional
        The pair of the second-order ALE (the 2-D PD's pair); ``None`` or a pair with a
        non-numeric variable: no second-order table (no rows).

    Returns
    -------
    AleTables
        ``ale``: one row per grid point of every variable, :data:`ALE_TABLE_COLUMNS` (the ALE table
        of :meth:`~xaipipe.explain.ale.ALEResult.to_frame`, ``pd`` the partial dependence at the
        edge / level in output units, ``pd_centred`` centred as the ALE); ``ale_2d``:
        :data:`ALE_2D_COLUMNS`; ``skipped``: variables without an ALE (constant on ``X_test``, or a
        group that is not one-hot).

    Raises
    ------
    ValueError
        Invalid ``X_test``, names, options or model output (as the ALE functions);
        ``figure_class`` not a class; both ``reliance`` and ``ranking``.
    """
    from ..models.forest_store import plans_predictions, predict_in_one_pass

    if reliance is not None:
        if len(ranking):
            raise ValueError("give at most one of reliance (the model's MR table) and ranking")
        ranking = ranked_features(reliance, settings)
    if plans_predictions(model):  # a forest store: every prediction in one pass over its blocks
        return predict_in_one_pass(model, lambda m: ale_tables(m, data, settings, ranking=ranking, pair=pair))
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


def h_statistic_table(
    model, data, settings: HStatisticSettings, *, reliance: pd.DataFrame | None = None, top: Sequence[str] = ()
) -> pd.DataFrame:
    """The ``h_statistic`` rule: Friedman's H² of every variable and of every pair of ``top``.

    :func:`xaipipe.explain.interactions.h_statistic` with ``features`` = every variable (one-hot
    groups whole) and ``pairs`` = the pairs of ``top`` (the top variables by MR), on a seeded
    subsample of the test rows with bootstrap resamples of it for the SE.

    Parameters
    ----------
    model : fitted estimator or callable
        A forest store: as :func:`ale_tables` (one pass over its blocks).
    data : PreparedData
        As :func:`ale_tables`: ``X_test``, ``features``, ``feature_groups``, ``classes``.
    settings : HStatisticSettings
        :meth:`xaipipe.config.HStatisticSettings.from_config` (config section
        ``explain.interactions``): :attr:`~xaipipe.config.HStatisticSettings.rows` (``n_rows``, a
        forest family's ``n_rows_random_forest``; None: all rows), ``n_bootstrap``, ``seed``,
        ``output``, ``max_batch_rows`` and ``figure_class`` (as :func:`ale_tables`: a classifier's
        output is the probability or log-odds of that class; a multiclass table gets a first
        column ``class``).
    reliance : DataFrame, optional
        The model's MR table (``model_reliance.csv``): ``top`` is then its ``settings.top_k``
        variables by the settings' ranking (:func:`xaipipe.explain.ranking.ranked_features`).
    top : sequence of str
        The top variables by MR instead.

    Returns
    -------
    DataFrame
        :data:`xaipipe.explain.interactions.H_COLUMNS` with ``rank`` (the MR rank of a total row's
        variable, 1 = largest, 0 = not in ``top``; pairwise rows: 0) first.

    Raises
    ------
    ValueError
        ``figure_class`` not a class; as :func:`~xaipipe.explain.interactions.h_statistic`; both
        ``reliance`` and ``top``.
    """
    from ..models.forest_store import plans_predictions, predict_in_one_pass

    if reliance is not None:
        if len(top):
            raise ValueError("give at most one of reliance (the model's MR table) and top")
        top = ranked_features(reliance, settings, settings.top_k)
    if plans_predictions(model):  # a forest store: every prediction in one pass over its blocks
        return predict_in_one_pass(model, lambda m: h_statistic_table(m, data, settings, top=top))
    from .interactions import h_statistic

    choice = class_choice(data.classes, settings.figure_class)
    feature_names, feature_groups = list(data.features), data.feature_groups
    variables = [name for name, _, _ in _variables(feature_names, feature_groups)]
    pairs = list(combinations([t for t in top if t in variables], 2))
    res = h_statistic(
        model,
        data.X_test,
        features=variables,
        pairs=pairs,
        feature_names=feature_names,
        feature_groups=feature_groups,
        output=settings.output,
        class_index=choice.get("class_index", 1),
        n_rows=settings.rows,
        n_bootstrap=settings.n_bootstrap,
        random_state=settings.seed,
        max_batch_rows=settings.max_batch_rows,
    )
    table = res.to_frame()
    rank = {v: i + 1 for i, v in enumerate(top)}
    table.insert(0, "rank", [rank.get(f, 0) if k == "total" else 0 for k, f in zip(table["kind"], table["feature"])])
    if data.classes is not None:  # multiclass: the explained class, first column
        table.insert(0, "class", str(data.classes[choice["class_index"]]))
    return table


def shap_interaction_tables(interactions: pd.DataFrame, figure_class=None):
    """The SHAP interaction summary of one model from its long ``shap_interactions.csv``.

    Returns
    -------
    (pairs, matrix, summary)
        ``pairs``: :meth:`~xaipipe.explain.interactions.ShapInteractionSummary.to_frame` (one row per
        pair, strongest first); ``matrix``: one row per ordered pair ``feature_1``, ``feature_2``
        (diagonal included: main effects), ``mean_abs_interaction``, ``mean_interaction``;
        ``summary``: the :class:`~xaipipe.explain.interactions.ShapInteractionSummary` (for the
        figures). Tables without rows and ``summary = None`` when the model has no interaction
        values (an empty table). A multiclass model's table (a ``class`` column, one block per
        class, as :func:`~xaipipe.explain.shapley.shap_tables` writes it): both tables per class
        with ``class`` as their first column, in the table's class order, and ``summary`` that of
        ``figure_class`` (config key ``explain.figure_class``; None: the first class).

    Raises
    ------
    ValueError
        ``figure_class`` is not one of the table's classes (the message lists them).
    """
    from .interactions import shap_interaction_summary

    pair_cols = ["feature_1", "feature_2", "mean_abs_interaction", "mean_abs_pair", "mean_interaction", "share"]
    pair_cols += ["rank", "n_rows"]
    matrix_cols = ["feature_1", "feature_2", "mean_abs_interaction", "mean_interaction", "n_rows"]
    if interactions is None or interactions.empty:
        return pd.DataFrame(columns=pair_cols), pd.DataFrame(columns=matrix_cols), None
    if "class" in interactions.columns:  # multiclass: one summary per class
        labels = [str(c) for c in pd.unique(interactions["class"])]
        chosen = labels[0] if figure_class is None else str(figure_class)
        if chosen not in labels:
            raise ValueError(f"config key explain.figure_class: {figure_class!r} is not a class; classes are {labels}")
        key = interactions["class"].astype(str)
        pairs, matrices, summary = [], [], None
        for label in labels:
            p_k, m_k, s_k = shap_interaction_tables(interactions[key == label].drop(columns="class"))
            pairs.append(p_k.assign(**{"class": label})[["class", *pair_cols]])
            matrices.append(m_k.assign(**{"class": label})[["class", *matrix_cols]])
            summary = s_k if label == chosen else summary
        return pd.concat(pairs, ignore_index=True), pd.concat(matrices, ignore_index=True), summary
    s = shap_interaction_summary(interactions)
    names = list(s.matrix.index)
    a, b = np.meshgrid(np.arange(len(names)), np.arange(len(names)), indexing="ij")
    matrix = pd.DataFrame(
        {
            "feature_1": [names[i] for i in a.ravel()],
            "feature_2": [names[j] for j in b.ravel()],
            "mean_abs_interaction": s.matrix.to_numpy().ravel(),
            "mean_interaction": s.signed.to_numpy().ravel(),
            "n_rows": s.n_rows,
        }
    )
    return s.to_frame()[pair_cols], matrix, s


def dependent_reliance_rows(
    model,
    data,
    settings: RelianceSettings,
    *,
    family: str,
    columns: Sequence[str] | None = None,
    n_jobs: int | None = 1,
) -> pd.DataFrame:
    """Rows of ``model_reliance.csv`` for MR under dependent features, appended after the marginal ones.

    For every loss, then every estimator of ``estimators``:

    * ``"conditional_permutation"``: :func:`~xaipipe.explain.reliance.conditional_model_reliance`
      (cs-PFI; strata: the leaves of a ``DecisionTreeRegressor(max_depth, min_samples_leaf)`` fitted
      on ``X_train`` to predict the variable from the others; ``n_repeats`` within-leaf
      permutations of the test rows);
    * ``"grouped_permutation"``: :func:`~xaipipe.explain.reliance.grouped_model_reliance` (the
      variables clustered by ``|r| >= correlation_threshold`` on ``X_train``, ``linkage``; each
      cluster permuted jointly ``n_repeats`` times; a cluster's ``feature`` joins its members with
      ``+``; a single-variable cluster is the ``permutation`` estimator's variable, and when every
      cluster is a single variable the rows equal the ``permutation`` rows bitwise).

    Both are seeded by ``random_state`` (the marginal estimators' seed) and use the tree engine where
    :func:`~xaipipe.explain.reliance.model_reliance` does.

    Parameters
    ----------
    model : fitted estimator
    data : PreparedData
        The dataset's split (:func:`xaipipe.data.prepare.load_prepared`; any object with these
        attributes): ``X_test``, ``y_test`` (the MR rows), ``X_train`` (strata and correlations are
        learned on it, never on the test rows), ``features``, ``feature_groups``, ``dataset``.
    settings : RelianceSettings
        :meth:`xaipipe.config.RelianceSettings.from_config`: ``dependent`` (config section
        ``explain.reliance.dependent``: ``estimators``, ``max_depth``, ``min_samples_leaf``,
        ``correlation_threshold``, ``linkage``), ``losses``, ``n_repeats``, ``seed`` (the
        marginal estimators') and the large-data group: ``large_data.reliance_rows`` above
        ``large_data.min_rows`` test rows (:meth:`~xaipipe.config.RelianceSettings.large_data_rows`,
        as :func:`xaipipe.explain.summary.reliance_report`) for both estimators: each repeat on its
        own seeded subsample of recipient rows, ``e_orig`` on all rows, and the ``*_se`` columns
        the Monte-Carlo SE of subsample and permutation together.
        ``grouped_permutation``: ``model_reliance(..., subsample_rows=)`` (with single-variable
        clusters the rows still equal the subsampled ``permutation`` rows);
        ``conditional_permutation``: ``conditional_model_reliance(..., subsample_rows=)`` (the
        donors from a permutation of all test rows within their strata).
    family : str
        The ``model`` column.
    columns : sequence of str, optional
        The column order of the marginal rows (``model_reliance.csv``); default
        :data:`xaipipe.explain.summary.RELIANCE_FIRST` then the rest.
    n_jobs : int or None, default 1
        Worker processes; results do not depend on it.

    Returns
    -------
    DataFrame
        Same columns as :func:`xaipipe.explain.summary.reliance_tables`'s reliance table.

    Raises
    ------
    ValueError
        Unknown estimator; invalid inputs (as the estimators).
    """
    from ..io import with_ids
    from .reliance import RelianceOptions, conditional_model_reliance, grouped_model_reliance

    X, y, X_train, dataset = data.X_test, data.y_test, data.X_train, data.dataset
    feature_names, feature_groups = data.features, importance_groups(data)  # one-hot and user groups
    dep, losses, n_repeats, random_state = settings.dependent, settings.losses, settings.n_repeats, settings.seed
    estimators, max_depth, min_samples_leaf = dep["estimators"], dep["max_depth"], dep["min_samples_leaf"]
    correlation_threshold, linkage = dep["correlation_threshold"], dep["linkage"]
    # -- large-data inputs (settings.large_data): None at or below large_data.min_rows test rows --
    reliance_rows = settings.large_data_rows(len(y))
    bad = [e for e in estimators if e not in DEPENDENT_ESTIMATORS]
    if bad:
        raise ValueError(f"unknown dependent-feature estimator(s) {bad}; known: {list(DEPENDENT_ESTIMATORS)}")
    names = list(feature_names)
    frames = []
    for loss in losses:
        # the arguments both estimators take
        common = dict(n_repeats=n_repeats, random_state=random_state, loss=loss, n_jobs=n_jobs)
        for est in estimators:
            if est == "conditional_permutation":
                res = conditional_model_reliance(
                    model,
                    X,
                    y,
                    X_train,
                    options=RelianceOptions(
                        feature_groups=feature_groups, feature_names=names, subsample_rows=reliance_rows
                    ),
                    max_depth=max_depth,
                    min_samples_leaf=min_samples_leaf,
                    **common,
                )
            else:
                res = grouped_model_reliance(
                    model,
                    X,
                    y,
                    X_train,
                    threshold=correlation_threshold,
                    linkage=linkage,
                    feature_groups=feature_groups,
                    feature_names=names,
                    estimator="permutation",
                    options=RelianceOptions(subsample_rows=reliance_rows),
                    **common,
                )
            frames.append(res.to_frame().drop(columns=["member"]))
    table = with_ids(pd.concat(frames, ignore_index=True), dataset=dataset, model=family)
    order = (
        list(columns) if columns is not None else RELIANCE_FIRST + [c for c in table.columns if c not in RELIANCE_FIRST]
    )
    missing = [c for c in order if c not in table.columns]
    if missing:
        raise ValueError(f"the dependent-feature MR rows lack the columns {missing} of model_reliance.csv")
    return table[order]


def _cluster_value(values: pd.Series, variables: Sequence[str], separator: str = "+") -> pd.Series:
    """Each variable's value of the cluster that holds it (a cluster is named by its members joined
    with ``separator``; a one-hot group name can itself not contain it)."""
    member_of = {}
    for cluster in values.index:
        for v in str(cluster).split(separator):
            member_of[v] = cluster
    return pd.Series([values.get(member_of.get(v), np.nan) for v in variables], index=list(variables))


def dependent_ranking_agreement(
    reliance: Sequence[pd.DataFrame],
    importances: pd.DataFrame,
    *,
    loss: str,
    quantity: str = "mr_difference",
    separator: str = "+",
) -> pd.DataFrame:
    """Agreement of the rankings by conditional and correlation-grouped MR with the other measures.

    Parameters
    ----------
    reliance : sequence of DataFrames
        ``model_reliance.csv`` of each model of the dataset.
    importances : DataFrame
        The ranking table of :func:`xaipipe.explain.summary.ranking_tables` (``dataset``, ``model``,
        ``feature``, ``model_reliance``, ``mean_abs_shap``, ``split_gain``).
    loss, quantity
        Which MR rows (the ranking's loss and quantity).

    Returns
    -------
    DataFrame
        The columns of the ranking-agreement table, one row per model and pair of measures among
        ``conditional_reliance`` (the ``conditional_permutation`` rows), ``grouped_reliance`` (each
        variable takes the grouped MR of its correlation cluster) and the three measures of
        :data:`xaipipe.explain.summary.RANKING_MEASURES`: the new measure against the old ones, then
        the two new ones against each other. No rows for a model without those estimators.
    """
    from ..io import with_ids

    out = []
    for rel in reliance:
        rel = rel[rel["loss"] == loss]
        if rel.empty:
            continue
        model = rel["model"].iloc[0]
        imp = importances[importances["model"] == model].set_index("feature")
        if imp.empty:
            continue
        variables = list(imp.index)
        new = {}
        cond = rel[rel["estimator"] == "conditional_permutation"].set_index("feature")[quantity]
        if len(cond):
            new["conditional_reliance"] = cond.reindex(variables)
        grp = rel[rel["estimator"] == "grouped_permutation"].set_index("feature")[quantity]
        if len(grp):
            new["grouped_reliance"] = _cluster_value(grp, variables, separator)
        if not new:
            continue
        frame = imp[RANKING_MEASURES].copy()
        for k, v in new.items():
            frame[k] = v.to_numpy()
        pairs = [(m, n) for n in new for m in RANKING_MEASURES] + list(combinations(list(new), 2))
        rows = pd.concat([ranking_agreement(frame, [a, b]) for a, b in pairs], ignore_index=True)
        out.append(with_ids(rows, dataset=imp["dataset"].iloc[0], model=model))
    if not out:
        return pd.DataFrame(columns=["dataset", "model", "measure_1", "measure_2", "spearman", "p_value", "n_features"])
    return pd.concat(out, ignore_index=True)
