"""Model reliance under dependent features: the rows of the ``model_reliance`` rule by the conditional
(cs-PFI) and correlation-grouped estimators (:mod:`._conditional`), and their ranking agreement.

* :func:`dependent_reliance_rows` -- the conditional-permutation (cs-PFI) and correlation-grouped MR
  rows appended to ``model_reliance.csv`` (same columns as the marginal estimators' rows).
* :func:`dependent_ranking_agreement` -- the rows appended to the ranking-agreement table: Spearman
  correlations of the conditional and grouped rankings with MR, mean |SHAP| and split gain.

``docs/methods_dependent_features.md`` says where each quantity lands in the results.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

import numpy as np
import pandas as pd

from ...config.reliance import RelianceSettings
from ...data.prepare import importance_groups
from ...io import with_ids
from ._base import RelianceOptions
from ._conditional import conditional_model_reliance, grouped_model_reliance
from ._tables import RANKING_MEASURES, RELIANCE_FIRST, ranking_agreement

__all__ = ["DEPENDENT_ESTIMATORS", "dependent_reliance_rows", "dependent_ranking_agreement"]

#: Estimators of :func:`dependent_reliance_rows` (``explain.reliance.dependent.estimators``).
DEPENDENT_ESTIMATORS = ("conditional_permutation", "grouped_permutation")


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
        as :func:`xaipipe.explain.reliance.reliance_report`) for both estimators: each repeat on its
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
        :data:`xaipipe.explain.reliance.RELIANCE_FIRST` then the rest.
    n_jobs : int or None, default 1
        Worker processes; results do not depend on it.

    Returns
    -------
    DataFrame
        Same columns as :func:`xaipipe.explain.reliance.reliance_tables`'s reliance table.

    Raises
    ------
    ValueError
        Unknown estimator; invalid inputs (as the estimators).
    """
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
        The ranking table of :func:`xaipipe.explain.reliance.ranking_tables` (``dataset``, ``model``,
        ``feature``, ``model_reliance``, ``mean_abs_shap``, ``split_gain``).
    loss, quantity
        Which MR rows (the ranking's loss and quantity).

    Returns
    -------
    DataFrame
        The columns of the ranking-agreement table, one row per model and pair of measures among
        ``conditional_reliance`` (the ``conditional_permutation`` rows), ``grouped_reliance`` (each
        variable takes the grouped MR of its correlation cluster) and the three measures of
        :data:`xaipipe.explain.reliance.RANKING_MEASURES`: the new measure against the old ones, then
        the two new ones against each other. No rows for a model without those estimators.
    """
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
