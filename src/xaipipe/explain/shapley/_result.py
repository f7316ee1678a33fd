"""The result of :func:`~xaipipe.explain.shapley.shap_values` and its tidy tables."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..pdp import NO_LEVEL  # the label of a one-hot group's all-zero row, as in the PD tables

__all__ = [
    "NO_LEVEL",
    "GroupedShapResult",
    "ShapClasses",
    "ShapResult",
    "class_result",
    "global_importance",
    "importance_subsample_se",
    "interaction_frame",
    "level_labels",
    "result_metadata",
    "row_frame",
    "tidy_frame",
]


@dataclass(frozen=True)
class ShapResult:
    """SHAP values of ``n`` explained rows and ``p`` features.

    Attributes
    ----------
    values : ndarray of shape (n, p), float64
        SHAP value of each row and feature, in the units of ``output``.
    base_values : ndarray of shape (n,), float64
        Base value ``phi_0`` per row (the expected model output).
    data : ndarray of shape (n, p), float64
        Feature values of the explained rows (original, unscaled units).
    feature_names : tuple of str, length p
    row_index : ndarray of shape (n,), int64
        Position of each explained row in the ``X`` given to
        :func:`shap_values` (differs from ``arange(n)`` when ``max_rows`` was
        used).
    model_output : ndarray of shape (n,), float64
        The model output computed directly from the model, to which
        ``base_values + values.sum(1)`` adds up.
    output : {"prediction", "log_odds", "probability", "margin"}
        What ``model_output`` is: the regression prediction, the log-odds of
        class 1, the class-1 probability, or the raw margin of an XGBoost
        objective without identity / logit link.
    link : str
        ``g`` such that ``model_output = g(prediction)``: ``"identity"`` or
        ``"logit"`` (``"objective:<name>"`` for other XGBoost margins).
    algorithm : str
        One of :data:`ALGORITHMS`.
    feature_perturbation : {"tree_path_dependent", "interventional"}
    background_size : int
        Number of background rows used (0 for path-dependent TreeSHAP).
    estimator : str
        Class name of the explained (final) estimator.
    interaction_values : ndarray of shape (n, p, p) or None
        SHAP interaction values (tree models, ``interactions=True``); row ``i``
        sums over the last axis to ``values[i]``.
    details : dict
        Algorithm settings (seeds, chunking, evaluation budget, additivity
        error, ``background_index`` = positions of the background rows in
        ``X_background`` or None for all rows, ...), JSON-serialisable.
    """

    values: np.ndarray
    base_values: np.ndarray
    data: np.ndarray
    feature_names: tuple
    row_index: np.ndarray
    model_output: np.ndarray
    output: str
    link: str
    algorithm: str
    feature_perturbation: str
    background_size: int
    estimator: str
    interaction_values: np.ndarray | None = None
    details: dict = field(default_factory=dict)

    @property
    def n_rows(self) -> int:
        return int(self.values.shape[0])

    @property
    def n_features(self) -> int:
        return int(self.values.shape[1])

    @property
    def output_label(self) -> str:
        """Human-readable output space, for axis labels."""
        if "class_index" in self.details:  # one class of a multiclass model
            name = self.details.get("class", self.details["class_index"])
            return {
                "log_odds": f"log-odds of class {name} (vs the rest)",
                "probability": f"probability of class {name}",
                "margin": f"margin of class {name} (softmax score)",
            }.get(self.output, f"{self.output} of class {name}")
        return {
            "prediction": "prediction",
            "log_odds": "log-odds of class 1",
            "probability": "probability of class 1",
            "margin": "margin",
        }.get(self.output, self.output)


@dataclass(frozen=True)
class ShapClasses:
    """SHAP values of a multiclass model: one :class:`ShapResult` per class.

    Attributes
    ----------
    classes : tuple of str
        Class labels in code order (``results[k]`` explains class ``k``).
    results : tuple of ShapResult
        Each with ``details["class_index"] == k`` and ``details["class"]`` its label.
    """

    classes: tuple
    results: tuple

    def __post_init__(self):
        if len(self.classes) != len(self.results) or len(self.classes) < 3:
            raise ValueError(f"need one ShapResult per class of K > 2 classes, got {len(self.results)} results")


def class_result(result, figure_class=None) -> ShapResult:
    """The :class:`ShapResult` a one-output figure draws.

    Parameters
    ----------
    result : ShapResult or ShapClasses
        A binary classifier's or regressor's result is returned as is.
    figure_class : str or None
        A multiclass model's class label (config key ``explain.figure_class``);
        None: its first class in code order.

    Raises
    ------
    ValueError
        ``figure_class`` is not one of the classes (the message lists them).
    """
    if isinstance(result, ShapResult):
        return result
    if not isinstance(result, ShapClasses):
        raise TypeError(f"expected a ShapResult or ShapClasses, got {type(result).__name__}")
    if figure_class is None:
        return result.results[0]
    labels = [str(c) for c in result.classes]
    if str(figure_class) not in labels:
        raise ValueError(f"config key explain.figure_class: {figure_class!r} is not a class; classes are {labels}")
    return result.results[labels.index(str(figure_class))]


@dataclass(frozen=True)
class GroupedShapResult(ShapResult):
    """SHAP values of ``q`` variables (one-hot groups summed) of ``n`` explained rows.

    A :class:`ShapResult` whose ``values``, ``data``, ``feature_names`` and
    ``interaction_values`` are per *variable*: an ungrouped column is its own
    variable; a group (``feature_groups``) is one variable, at the position of its
    first column (:func:`xaipipe.explain.reliance.features_from_groups`). Every other
    attribute is the column result's.

    Attributes
    ----------
    values : ndarray of shape (n, q)
        ``values[:, g] = columns.values[:, G].sum(axis=1)`` for a group ``G``; the
        column's value for an ungrouped column.
    data : ndarray of shape (n, q)
        For a one-hot group: the level code, the position of the row's level in
        ``levels[g]`` (float); NaN for a group that is not one-hot.
    interaction_values : ndarray of shape (n, q, q) or None
        Sums over the blocks of the column interaction matrix,
        ``Phi[i, g, h] = sum_{j in G, k in H} columns.interaction_values[i, j, k]``;
        row ``i`` still sums over the last axis to ``values[i]``.
    columns : ShapResult
        The per-column result the values were summed from (the model's columns:
        nothing is lost).
    feature_groups : dict of str -> tuple of str
        The groups applied (group -> member columns, in column order).
    levels : dict of str -> tuple of str
        Per one-hot group its level labels: :data:`NO_LEVEL` first when a row has
        no level set, then the member column names in column order (the labels of
        :func:`xaipipe.explain.pdp.explain_feature`).
    """

    columns: ShapResult | None = None
    feature_groups: dict = field(default_factory=dict)
    levels: dict = field(default_factory=dict)


def level_labels(result: ShapResult) -> np.ndarray | None:
    """Level label of every row of every one-hot group, ``""`` elsewhere.

    Returns
    -------
    ndarray of shape (n, q), dtype object, or None
        None when ``result`` has no one-hot group (not a :class:`GroupedShapResult`,
        or none of its groups is one-hot).
    """
    if not isinstance(result, GroupedShapResult) or not result.levels:
        return None
    out = np.full(result.values.shape, "", dtype=object)
    for g, name in enumerate(result.feature_names):
        labels = result.levels.get(name)
        if labels is not None:
            out[:, g] = np.asarray(labels, dtype=object)[result.data[:, g].astype(np.int64)]
    return out


def _check_result(result: ShapResult) -> None:
    if not isinstance(result, ShapResult):
        raise TypeError(f"expected a ShapResult, got {type(result).__name__}")


def tidy_frame(result: ShapResult) -> pd.DataFrame:
    """Long table: one row per explained row x feature.

    Returns
    -------
    DataFrame with ``n * p`` rows and columns ``row`` (position in ``X``),
    ``feature``, ``feature_value``, ``shap_value``, ``base_value`` and
    ``model_output`` (both repeated per feature), ordered by row then feature
    (the model's feature order). Units: those of ``result.output``.

    For a result grouped by :func:`~xaipipe.explain.shapley.group_shap_result`
    with a one-hot group, ``feature`` names the variables (the group, not its
    columns), ``feature_value`` of a group is its level code and a ``level``
    column after ``feature_value`` names the level (the member column set to 1,
    ``"(none)"`` for none; ``""`` for the other variables), as ``grid_value`` and
    ``level`` of the PD tables.
    """
    _check_result(result)
    n, p = result.values.shape
    frame = pd.DataFrame(
        {
            "row": np.repeat(result.row_index, p),
            "feature": np.tile(np.asarray(result.feature_names, dtype=object), n),
            "feature_value": result.data.reshape(-1),
            "shap_value": result.values.reshape(-1),
            "base_value": np.repeat(result.base_values, p),
            "model_output": np.repeat(result.model_output, p),
        }
    )
    labels = level_labels(result)
    if labels is not None:
        frame.insert(3, "level", labels.reshape(-1))
    return frame


def row_frame(result: ShapResult) -> pd.DataFrame:
    """One row per explained row: ``row``, ``base_value``, ``shap_sum``,
    ``model_output`` and ``additivity_error`` (= base + sum - output)."""
    _check_result(result)
    shap_sum = result.values.sum(axis=1)
    return pd.DataFrame(
        {
            "row": result.row_index,
            "base_value": result.base_values,
            "shap_sum": shap_sum,
            "model_output": result.model_output,
            "additivity_error": result.base_values + shap_sum - result.model_output,
        }
    )


def global_importance(result: ShapResult) -> pd.DataFrame:
    """Mean |SHAP| per feature (000 Fig. 4.6), most important first.

    Returns
    -------
    DataFrame with columns ``feature``, ``mean_abs_shap``, ``mean_shap`` and
    ``rank`` (1 = largest mean |SHAP|; ties keep the model's feature order).
    For a grouped result the features are the variables: a group's
    ``mean_abs_shap`` is the mean over rows of ``|sum of its columns' values|``,
    not the sum of its columns' mean |SHAP| (which counts opposite signs as
    importance).
    """
    _check_result(result)
    mean_abs = np.abs(result.values).mean(axis=0)
    order = np.argsort(-mean_abs, kind="stable")
    return pd.DataFrame(
        {
            "feature": [result.feature_names[j] for j in order],
            "mean_abs_shap": mean_abs[order],
            "mean_shap": result.values.mean(axis=0)[order],
            "rank": np.arange(1, len(order) + 1),
        }
    )


def importance_subsample_se(importance: pd.DataFrame, values: pd.DataFrame, n_total: int) -> pd.DataFrame:
    r"""``importance`` with the Monte-Carlo SE of mean |SHAP| and mean SHAP over a row subsample.

    Where the explained rows are a simple random sample (without replacement) of ``m`` of the
    ``n_total`` test rows (the large-data policy ``large_data.shap_rows``), ``mean_abs_shap`` and
    ``mean_shap`` estimate the means over all test rows with standard error (Cochran 1977,
    *Sampling Techniques*, eq. 2.12; the finite-population correction ``1 - m/n``)

    .. math:: SE = \frac{s}{\sqrt m} \sqrt{1 - \frac{m}{n}},

    ``s`` the sample standard deviation (``ddof=1``) of ``|φ_j|`` (or ``φ_j``) over the explained
    rows; each row's SHAP values are exact, so this is the whole Monte-Carlo error of the table.

    Parameters
    ----------
    importance : DataFrame
        :func:`global_importance` (with ``class`` for a multiclass model).
    values : DataFrame
        :func:`tidy_frame` of the same result (``feature``, ``shap_value``; ``class``).
    n_total : int
        Test rows the subsample was drawn from.

    Returns
    -------
    DataFrame
        ``importance`` (same row order) with ``mean_abs_shap_se``, ``mean_shap_se``, ``n_rows``
        (rows explained) and ``n_test_rows`` appended.
    """
    keys = [k for k in ("class", "feature") if k in importance.columns]
    v = values.assign(abs_shap=values["shap_value"].abs())
    g = v.groupby(keys, sort=False)
    m = g["shap_value"].count()
    fpc = np.sqrt(np.clip(1 - m / int(n_total), 0.0, None) / m)
    se = pd.DataFrame(
        {
            "mean_abs_shap_se": g["abs_shap"].std(ddof=1) * fpc,
            "mean_shap_se": g["shap_value"].std(ddof=1) * fpc,
            "n_rows": m.astype(int),
        }
    ).reset_index()
    out = importance.merge(se, on=keys, how="left", validate="one_to_one")
    out["n_test_rows"] = int(n_total)
    return out


def result_metadata(result: ShapResult) -> dict:
    """JSON-serialisable description of how ``result`` was computed.

    A grouped result (:class:`~xaipipe.explain.shapley.GroupedShapResult`) adds
    ``feature_groups``, ``levels``, ``column_names`` and ``n_columns``; its
    ``feature_names`` / ``n_features`` are the variables.
    """
    _check_result(result)

    def clean(v):
        if isinstance(v, dict):
            return {str(k): clean(x) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return [clean(x) for x in v]
        if isinstance(v, np.generic):
            return v.item()
        if isinstance(v, float) and not math.isfinite(v):
            return None
        return v

    meta = {
        "estimator": result.estimator,
        "algorithm": result.algorithm,
        "output": result.output,
        "link": result.link,
        "feature_perturbation": result.feature_perturbation,
        "background_size": result.background_size,
        "n_rows": result.n_rows,
        "n_features": result.n_features,
        "feature_names": list(result.feature_names),
        "interaction_values": result.interaction_values is not None,
        "base_value_mean": float(result.base_values.mean()),
        "details": result.details,
    }
    columns = getattr(result, "columns", None)  # a GroupedShapResult: the groups and the columns summed
    if columns is not None:
        meta.update(
            feature_groups={g: list(m) for g, m in result.feature_groups.items()},
            levels={g: list(v) for g, v in result.levels.items()},
            column_names=list(columns.feature_names),
            n_columns=columns.n_features,
        )
    return clean(meta)


def interaction_frame(result: ShapResult) -> pd.DataFrame:
    """SHAP interaction values as a long table: one row per explained row x feature pair.

    Returns
    -------
    DataFrame with columns ``row`` (position in ``X``), ``feature_1``, ``feature_2``,
    ``interaction_value`` (``n * p * p`` rows, row-major); empty with those columns
    when ``result`` has no interaction values. For a grouped result the pairs are
    of variables: a group's entries are sums over its block of the column
    interaction matrix.
    """
    _check_result(result)
    if result.interaction_values is None:
        return pd.DataFrame(columns=["row", "feature_1", "feature_2", "interaction_value"])
    iv = result.interaction_values
    n, p, _ = iv.shape
    names = list(result.feature_names)
    return pd.DataFrame(
        {
            "row": np.repeat(result.row_index, p * p),
            "feature_1": np.tile(np.repeat(names, p), n),
            "feature_2": np.tile(names, n * p),
            "interaction_value": iv.reshape(-1),
        }
    )
