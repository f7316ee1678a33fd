"""The result of :func:`~xaipipe.explain.shapley.shap_values` and its tidy tables."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

__all__ = [
    "ShapClasses",
    "ShapResult",
    "class_choice",
    "class_result",
    "global_importance",
    "interaction_frame",
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
    """
    _check_result(result)
    n, p = result.values.shape
    return pd.DataFrame(
        {
            "row": np.repeat(result.row_index, p),
            "feature": np.tile(np.asarray(result.feature_names, dtype=object), n),
            "feature_value": result.data.reshape(-1),
            "shap_value": result.values.reshape(-1),
            "base_value": np.repeat(result.base_values, p),
            "model_output": np.repeat(result.model_output, p),
        }
    )


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


def result_metadata(result: ShapResult) -> dict:
    """JSON-serialisable description of how ``result`` was computed."""
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

    return clean(
        {
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
    )


def interaction_frame(result: ShapResult) -> pd.DataFrame:
    """SHAP interaction values as a long table: one row per explained row x feature pair.

    Returns
    -------
    DataFrame with columns ``row`` (position in ``X``), ``feature_1``, ``feature_2``,
    ``interaction_value`` (``n * p * p`` rows, row-major); empty with those columns
    when ``result`` has no interaction values.
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


def class_choice(classes, figure_class=None) -> dict:
    """Keyword arguments choosing the explained class of a one-output step (LIME, the SHAP check).

    Parameters
    ----------
    classes : sequence of str or None
        A multiclass dataset's labels in code order (``prepared.json``); None for
        regression and binary classification.
    figure_class : str, optional
        Config key ``explain.figure_class``; None: the first class.

    Returns
    -------
    dict
        ``{}`` without classes, else ``{"class_index": k}``.

    Raises
    ------
    ValueError
        ``figure_class`` is not one of ``classes``.
    """
    if classes is None:
        return {}
    labels = [str(c) for c in classes]
    if figure_class is None:
        return {"class_index": 0}
    if str(figure_class) not in labels:
        raise ValueError(f"config key explain.figure_class: {figure_class!r} is not a class; classes are {labels}")
    return {"class_index": labels.index(str(figure_class))}
