"""The ``shap`` rule's tables: :func:`shap_tables` and :class:`ShapTables`."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # scikit-learn is imported where used: the figure rules load this package without it
    import pandas as pd

from ...config.shap import ShapSettings
from ._algorithms import (
    _prefix_kind,
    auto_algorithm,
)
from ._groups import group_shap_result
from ._result import (
    GroupedShapResult,
    ShapClasses,
    global_importance,
    importance_subsample_se,
    interaction_frame,
    result_metadata,
    row_frame,
    tidy_frame,
)
from ._trees import forest_n_trees, tree_sample_se, tree_sample_shap
from ._values import shap_values

__all__ = ["ShapTables", "shap_tables"]


# --------------------------------------------------------------------------- #
# tidy outputs


@dataclass(frozen=True)
class ShapTables:
    """The outputs of the ``shap`` rule (:func:`shap_tables`).

    Attributes
    ----------
    values, rows, importance, interactions : DataFrame
        :func:`tidy_frame` with ``row_id``, :func:`row_frame` of the columns with ``row_id``,
        :func:`global_importance`, :func:`interaction_frame`; each with ``dataset`` and ``model``
        first (and ``class`` for a multiclass model).
    meta : dict
        The JSON record (``shap_meta.json``).
    result : ShapResult, GroupedShapResult or ShapClasses
        The saved result, without the estimator.
    """

    values: pd.DataFrame
    rows: pd.DataFrame
    importance: pd.DataFrame
    interactions: pd.DataFrame
    meta: dict
    result: Any

    #: The tables, in the order the rule writes them.
    FRAMES = ("values", "rows", "importance", "interactions")

    def to_frames(self) -> dict[str, pd.DataFrame]:
        """The tables by name (:data:`FRAMES`)."""
        return {name: getattr(self, name) for name in self.FRAMES}


def shap_tables(model, data, settings: ShapSettings, *, n_jobs: int = 1) -> ShapTables:
    """The ``shap`` rule: SHAP values of the test rows and their tables.

    Parameters
    ----------
    model : fitted estimator
        A forest store (:func:`xaipipe.io.open_model`) is explained one block of trees at a time.
    data : PreparedData
        The dataset's split (:func:`xaipipe.data.prepare.load_prepared`; any object with these
        attributes): ``X_test`` (rows to explain), ``X_train`` (the background rows),
        ``test_rows`` (row positions of the test rows in ``prepared.csv``: the ``row_id``
        column), ``features``, ``dataset`` (identifier column), ``feature_groups`` (one-hot
        groups of ``prepared.json``: the values, importance, interaction and meta tables and the
        saved result are per variable, a group's value being the sum of its columns'
        (:func:`group_shap_result`); ``rows`` sums all columns; None or empty: per column) and
        ``classes`` (the labels of a multiclass model in code order: every class is explained,
        :func:`shap_values` with ``class_index=k``, the same rows, background and seeds, and each
        table gets a ``class`` column after ``model``; None otherwise).
    settings : ShapSettings
        :meth:`xaipipe.config.ShapSettings.from_config` (config section ``explain.shap``):
        ``family`` (the ``model`` column), ``max_rows`` (explain at most this many test rows,
        seeded subsample), ``max_rows_random_forest`` (the row cap of families with the
        ``"forest"`` prefix kind, random forests and extra trees: exact TreeSHAP costs ~0.3-0.5 ms
        per deep tree per row), ``background_size``, ``algorithm`` and ``seed`` (as
        :func:`shap_values`' ``background_size``, ``algorithm``, ``random_state``),
        ``interactions`` (SHAP interaction values for families whose algorithm is
        ``xgboost_pred_contribs``; other tree models: not computed) and the large-data group
        ``large_data``: where the test split has more than ``large_data.min_rows`` rows
        (:meth:`~xaipipe.config.ShapSettings.large_data_rows`), explain a seeded subsample of
        at most ``large_data.shap_rows`` test rows, every family (the smaller of it and the caps
        above), and add to ``importance`` the Monte-Carlo SE of ``mean_abs_shap`` / ``mean_shap``
        as estimates over all test rows (:func:`importance_subsample_se`: ``mean_abs_shap_se``,
        ``mean_shap_se``, ``n_rows``, ``n_test_rows``) and to ``meta`` a ``large_data`` record.
        Off (the tables as without it) where it does not apply or the cap is at least
        ``len(data.X_test)``. Under the same threshold the large-data tree sample
        (``large_data.shap_trees``, :meth:`~xaipipe.config.ShapSettings.large_data_trees`): a
        random forest / extra trees of more trees is explained by a seeded random sample of this
        many of its trees, in ``_trees.TREE_GROUPS`` (10) groups
        (:func:`~xaipipe.explain.shapley._trees.tree_sample_shap`: an unbiased estimate of the
        forest's values, whose ``model_output`` is the sampled trees' mean prediction), and
        ``importance`` gets the delete-a-group jackknife SE of ``mean_abs_shap`` / ``mean_shap``
        (in quadrature with the row-subsample SE where that applies; ``n_trees``,
        ``n_trees_explained``); ``meta["large_data"]["trees"]`` records it. Any other family, or a
        forest of at most this many trees: off.
    n_jobs : int, default 1
        As :func:`shap_values`; results do not depend on it.

    Returns
    -------
    ShapTables
        ``values`` (:func:`tidy_frame` with ``row_id``), ``rows`` (:func:`row_frame`
        of the columns, with ``row_id``), ``importance`` (:func:`global_importance`),
        ``interactions`` (:func:`interaction_frame`), ``meta`` (JSON record),
        ``result`` (the :class:`ShapResult`, or with groups the
        :class:`GroupedShapResult` holding the column result in ``columns``, without
        the estimator name; for a multiclass model a :class:`ShapClasses` of those and
        the record's ``classes`` and ``per_class``), each table with ``dataset`` and
        ``model`` first.
    """
    X_test, X_train, test_rows, dataset = data.X_test, data.X_train, data.test_rows, data.dataset
    # one-hot and user groups: one variable each (their SHAP values summed)
    from ...data.prepare import importance_groups

    feature_names, feature_groups, classes = data.features, importance_groups(data), data.classes
    family, algorithm, random_state = settings.family, settings.algorithm, settings.seed
    max_rows, max_rows_forest = settings.max_rows, settings.max_rows_random_forest
    background_size, interactions = settings.background_size, settings.interactions
    # -- large-data inputs (settings.large_data): None at or below large_data.min_rows test rows --
    large_data_rows = settings.large_data_rows(len(X_test))
    large_data_trees = settings.large_data_trees(len(X_test))
    from ...io import with_ids

    if max_rows_forest and _prefix_kind(model) == "forest":
        max_rows = min(max_rows or len(X_test), max_rows_forest)
    if large_data_rows is not None and len(X_test) <= int(large_data_rows):
        large_data_rows = None  # no subsample to draw: the tables as without the policy
    if large_data_rows is not None:  # large-data policy: every family on a subsample
        max_rows = min(max_rows or len(X_test), int(large_data_rows))
    n_trees = forest_n_trees(model)
    if large_data_trees is not None and (n_trees is None or n_trees <= int(large_data_trees)):
        large_data_trees = None  # not a forest, or no fewer trees to explain: exact
    native = auto_algorithm(model) if algorithm == "auto" else algorithm
    shap_kwargs = dict(
        X_background=X_train,
        feature_names=feature_names,
        algorithm=algorithm,
        background_size=background_size,
        max_rows=max_rows,
        interactions=bool(interactions) and native == "xgboost_pred_contribs",
        n_jobs=n_jobs,
        random_state=random_state,
    )
    policies = dict(n_total=len(X_test), rows_cap=large_data_rows, trees_cap=large_data_trees)
    if classes is not None:
        out, tree_se = _class_tables(
            model,
            X_test,
            shap_kwargs,
            test_rows,
            dataset,
            family,
            [str(c) for c in classes],
            feature_groups,
            large_data_trees,
        )
        return _with_large_data_se(out, tree_se=tree_se, **policies)
    result, tree_groups = _explain(model, X_test, shap_kwargs, large_data_trees)
    tree_se = None if tree_groups is None else tree_sample_se(result, tree_groups, feature_groups)
    columns = result
    result = group_shap_result(columns, feature_groups)  # the same object without groups
    test_rows = np.asarray(test_rows)
    values = tidy_frame(result)  # row = position in the test set; row_id = row of prepared.csv
    values.insert(1, "row_id", test_rows[values["row"].to_numpy()])
    rows = row_frame(columns)  # the sum over all columns (= over all variables, up to rounding)
    rows.insert(1, "row_id", test_rows[rows["row"].to_numpy()])
    ids = {"dataset": dataset, "model": family}
    meta = result_metadata(result)
    meta.update({"dataset": dataset, "model": family, "test_rows_explained": test_rows[result.row_index].tolist()})
    saved = dataclasses.replace(result, estimator=None)
    if isinstance(result, GroupedShapResult):
        saved = dataclasses.replace(saved, columns=dataclasses.replace(columns, estimator=None))
    out = ShapTables(
        values=with_ids(values, **ids),
        rows=with_ids(rows, **ids),
        importance=with_ids(global_importance(result), **ids),
        interactions=with_ids(interaction_frame(result), **ids),
        meta=meta,
        result=saved,
    )
    return _with_large_data_se(out, tree_se=tree_se, **policies)


def _explain(model, X_test, settings: dict, trees_cap: int | None, class_index: int | None = None):
    """``shap_values`` of the model, or of a sample of its trees (``trees_cap``): (result, tree groups
    or None)."""
    extra = {} if class_index is None else {"class_index": class_index}
    if trees_cap is None:
        return shap_values(model, X_test, **settings, **extra), None
    options = {k: v for k, v in settings.items() if k != "random_state"}
    return tree_sample_shap(
        shap_values, model, X_test, int(trees_cap), random_state=settings["random_state"], **options, **extra
    )


def _with_large_data_se(
    out: ShapTables, *, n_total: int, rows_cap: int | None, trees_cap: int | None, tree_se=None
) -> ShapTables:
    """The large-data policies' additions to :func:`shap_tables`' output: the SE columns of
    ``importance`` (rows: :func:`importance_subsample_se`; trees: ``tree_se`` of
    :func:`~xaipipe.explain.shapley._trees.tree_sample_se`; both: combined in quadrature, the two
    samples being independent) and ``meta["large_data"]``. Neither policy: ``out`` unchanged."""
    if rows_cap is None and tree_se is None:
        return out
    importance = out.importance
    record: dict[str, Any] = {"policy": "shap"}
    if rows_cap is not None:
        importance = importance_subsample_se(importance, out.values, n_total)
        n_rows = int(importance["n_rows"].iloc[0]) if len(importance) else 0
        record.update(cap=int(rows_cap), n_rows=n_rows, n_test_rows=n_total)
    if tree_se is not None:
        keys = [k for k in ("class", "feature") if k in importance.columns]
        importance = importance.merge(tree_se, on=keys, how="left", validate="one_to_one")
        for col in ("mean_abs_shap_se", "mean_shap_se"):
            trees = importance.pop(f"{col}_trees")
            rows = importance[col] if col in importance.columns else 0.0
            importance[col] = np.sqrt(rows**2 + trees**2)
        details = out.meta.get("details") or out.meta["per_class"][0]["details"]
        importance["n_trees"] = int(details["n_trees"])
        importance["n_trees_explained"] = int(details["trees_explained"])
        record["trees"] = {
            "config_key": "large_data.shap_trees",
            "cap": int(trees_cap),
            "n_trees": int(details["n_trees"]),
            "trees_explained": int(details["trees_explained"]),
            "tree_groups": int(details["tree_groups"]),
        }
    return dataclasses.replace(out, importance=importance, meta={**out.meta, "large_data": record})


def _class_tables(
    model, X_test, settings, test_rows, dataset, family, classes, feature_groups=None, trees_cap=None
) -> tuple[ShapTables, pd.DataFrame | None]:
    """:func:`shap_tables` of a multiclass model: every class (its one-hot groups summed, as
    :func:`group_shap_result`), tables stacked with a ``class`` column; and the tree-sample SE per
    class and variable (None without ``trees_cap``)."""
    import dataclasses

    import pandas as pd

    from ...io import with_ids

    test_rows = np.asarray(test_rows)
    results, parts = [], {"values": [], "rows": [], "importance": [], "interactions": []}
    tree_se = []
    for k, label in enumerate(classes):
        columns, tree_groups = _explain(model, X_test, settings, trees_cap, class_index=k)
        if tree_groups is not None:
            tree_se.append(tree_sample_se(columns, tree_groups, feature_groups).assign(**{"class": label}))
        columns = dataclasses.replace(columns, estimator=None, details={**columns.details, "class": label})
        res = group_shap_result(columns, feature_groups)  # the same object without groups
        if isinstance(res, GroupedShapResult):
            res = dataclasses.replace(res, estimator=None, columns=columns)
        results.append(res)
        values = tidy_frame(res)
        values.insert(1, "row_id", test_rows[values["row"].to_numpy()])
        rows = row_frame(columns)  # the sum over all columns
        rows.insert(1, "row_id", test_rows[rows["row"].to_numpy()])
        for name, frame in (
            ("values", values),
            ("rows", rows),
            ("importance", global_importance(res)),
            ("interactions", interaction_frame(res)),
        ):
            frame.insert(0, "class", label)
            parts[name].append(frame)
    ids = {"dataset": dataset, "model": family}
    first = result_metadata(results[0])
    meta = {k: v for k, v in first.items() if k not in ("output", "base_value_mean", "details")}
    meta.update(
        {
            "output": results[0].output,
            "classes": classes,
            "per_class": [
                {"class": label, **{k: result_metadata(r)[k] for k in ("output", "base_value_mean", "details")}}
                for label, r in zip(classes, results)
            ],
            "dataset": dataset,
            "model": family,
            "test_rows_explained": test_rows[results[0].row_index].tolist(),
        }
    )
    tables = {
        name: with_ids(pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(), **ids)
        for name, frames in parts.items()
    }
    out = ShapTables(**tables, meta=meta, result=ShapClasses(classes=tuple(classes), results=tuple(results)))
    return out, (pd.concat(tree_se, ignore_index=True) if tree_se else None)
