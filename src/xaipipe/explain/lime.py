"""LIME explanations of single rows, beside the SHAP values of the same rows (000 §3.1, §3.3.4).

LIME (Ribeiro, Singh & Guestrin 2016, KDD, "Why should I trust you?", eq. 1;
seed 000 §3.1, eq. 3.1) explains ``f`` at ``x`` by a linear surrogate ``g``
fitted to ``f`` on perturbed samples ``z`` weighted by their proximity
``pi_x(z)``: ``argmin_g L(f, g, pi_x) + Omega(g)``.  The ``lime`` package
(``lime.lime_tabular.LimeTabularExplainer``) fixes these heuristically:
``pi_x(z) = sqrt(exp(-d(x, z)^2 / w^2))`` with ``w = 0.75 sqrt(p)`` (its
default ``kernel_width``), squared loss, and a ridge penalty (``Ridge(alpha=1)``)
instead of Omega.  Seed 000's Teorema 3.14 (Lundberg & Lee 2017, Theorem 2)
says that only the Shapley kernel, squared loss and ``Omega = 0`` make the
surrogate's coefficients satisfy local accuracy, missingness and consistency,
i.e. be the SHAP values: LIME's choices do not, and :func:`compare_lime_shap`
shows by how much on real rows.

Representation: ``discretize_continuous=True`` (LIME's default, quartile bins
of the training rows).  The surrogate's inputs are then binary, ``z'_j = 1``
when the perturbed value of feature ``j`` falls in the same quartile as
``x_j``, and ``x`` itself is ``z' = (1, ..., 1)``; so LIME is an *additive
feature attribution* in the sense of Lundberg & Lee 2017 (Definition 1, the
setting of Theorem 2), exactly as SHAP is: ``g(x) = intercept + sum_j w_j``
against ``f(x) = phi_0 + sum_j phi_j``, and each weight ``w_j`` can be read
beside ``phi_j`` ("feature j at its value instead of elsewhere").  With
``discretize_continuous=False`` the weights are per training standard
deviation of ``x_j`` and the samples are centred on the training mean, not on
``x``; they are then slopes, not attributions, and are not comparable with
SHAP values one to one.  All ``p`` features are kept (``feature_selection =
"none"``).

Local accuracy gap: ``|g(x) - f(x)|`` with ``g(x)`` = LIME's ``local_pred``
(recomputed from the surrogate's intercept and weights and checked) and ``f(x)``
the model output at ``x``; the corresponding SHAP gap ``|phi_0 + sum phi - f(x)|``
is 0 by construction (checked numerically).  The surrogate's weighted R^2 on the
neighbourhood (LIME's ``score``) is kept as ``score``.

One-hot groups (``feature_groups``, e.g. Abalone's ``Sex`` -> ``Sex_F``, ``Sex_I``,
``Sex_M``): LIME on the 0/1 columns would draw each column independently from its
training frequencies, i.e. mostly rows with no level or two levels set, which the
model never saw. With ``feature_groups`` a group is one *categorical* LIME feature
instead (``categorical_features``; its values the level codes, named by
``categorical_names``): LIME draws a level from the training frequencies of the
levels, its interpretable input is "the row's level" (``condition`` ``"Sex=Sex_M"``),
and every drawn level is encoded back into the group's columns before the model is
called. Its weight is then read beside the group's SHAP value, the sum of its
columns' values (:func:`xaipipe.explain.shapley.group_shap_result`).

Output space: classifiers are explained in the log-odds of class 1 by default
(``output="log_odds"``: LIME in regression mode on the margin), the space of the
pipeline's SHAP values of XGBoost, gradient boosting and logistic regression;
``output="probability"`` is LIME's usual classification mode on
``predict_proba[:, 1]`` (compare it with SHAP values in probability).

Reproducibility: one ``LimeTabularExplainer`` per row, seeded with
``SeedSequence([7, random_state, position of the row in X])``, so a row's
explanation does not depend on the other rows and two runs are equal.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from ..config.lime import LimeSettings
from ..validation import check_matrix

__all__ = [
    "LimeOptions",
    "LimeResult",
    "LimeTables",
    "lime_explanations",
    "lime_frame",
    "compare_lime_shap",
    "lime_shap_summary",
    "lime_tables",
    "lime_rows",
]

#: Tolerance of the check that LIME's local_pred equals intercept + weights at x.
_LOCAL_PRED_RTOL = 1e-9


@dataclass(frozen=True)
class LimeResult:
    """LIME explanations of ``n`` rows and ``p`` features.

    Attributes
    ----------
    weights : ndarray of shape (n, p)
        Surrogate coefficient of each feature (units of ``output`` per unit of
        the interpretable input: the 0/1 bin indicator when discretised).
    intercept : ndarray of shape (n,)
    local_prediction : ndarray of shape (n,)
        ``g(x)``: LIME's ``local_pred``, the surrogate at the explained row.
    model_output : ndarray of shape (n,)
        ``f(x)`` in the space of ``output`` (what LIME's surrogate was fitted to).
    score : ndarray of shape (n,)
        Weighted R^2 of the surrogate on its neighbourhood sample.
    data : ndarray of shape (n, p)
        Feature values of the explained rows.
    conditions : tuple of tuple of str
        Per row and feature, LIME's description of the interpretable feature
        (e.g. ``"worst area > 1084.00"``; the feature name when not discretised).
    feature_names : tuple of str
    row_index : ndarray of shape (n,), int64
        Position of each row in the ``X`` given to :func:`lime_explanations`.
    output : {"log_odds", "probability", "prediction"}
    discretize_continuous : bool
    details : dict
        ``num_samples``, ``kernel_width``, ``discretizer``, ``random_state``, seeds,
        LIME mode, package version.
    """

    weights: np.ndarray
    intercept: np.ndarray
    local_prediction: np.ndarray
    model_output: np.ndarray
    score: np.ndarray
    data: np.ndarray
    conditions: tuple
    feature_names: tuple
    row_index: np.ndarray
    output: str
    discretize_continuous: bool
    details: dict = field(default_factory=dict)

    @property
    def local_accuracy_gap(self) -> np.ndarray:
        """``|g(x) - f(x)|`` per row, units of ``output``."""
        return np.abs(self.local_prediction - self.model_output)


def _model_input(estimator, Z: np.ndarray):
    names = getattr(estimator, "feature_names_in_", None)
    return pd.DataFrame(Z, columns=list(names)) if names is not None else Z


def _class_output_function(estimator, output: str, proba_clip: float, k: int):
    """``f(Z)`` of class ``k`` of a multiclass classifier, in SHAP's output space of that class
    (:func:`xaipipe.explain.shapley.shap_values` with ``class_index=k``): ``"margin"`` (the
    softmax score: XGBoost's margin, ``decision_function``), ``"probability"`` or ``"log_odds"``
    (one-vs-rest, ``logit`` of the clipped probability)."""
    from ..models.output import model_output

    classes = getattr(estimator, "classes_", None)
    if classes is None or len(classes) <= 2 or not 0 <= k < len(classes):
        raise ValueError(f"class_index={k} needs a multiclass classifier, got classes_={classes!r}")
    if output == "auto":
        output = "log_odds"
    if output == "probability":
        return model_output(estimator, "proba", class_index=k), output
    if output == "log_odds":
        return model_output(estimator, "logit", class_index=k, clip=proba_clip), output
    if output != "margin":
        raise ValueError(f"output must be 'auto', 'log_odds', 'probability' or 'margin' for a class, got {output!r}")
    try:
        import xgboost as xgb
    except ImportError:  # pragma: no cover - hard dependency
        xgb = None
    if xgb is not None and isinstance(estimator, xgb.XGBClassifier):
        return (lambda Z: np.asarray(estimator.predict(Z, output_margin=True), dtype=np.float64)[:, k]), output
    if not hasattr(estimator, "decision_function"):
        raise ValueError(f"output='margin' needs XGBoost or a decision_function; {type(estimator).__name__} has none")
    return (
        lambda Z: np.asarray(estimator.decision_function(_model_input(estimator, Z)), dtype=np.float64)[:, k]
    ), output


def _output_function(estimator, output: str, proba_clip: float, class_index: int | None = None):
    """``f(Z)`` of shape (m,) in ``output`` (log-odds, probability or prediction)."""
    from sklearn.base import is_classifier

    if class_index is not None:
        return _class_output_function(estimator, output, proba_clip, int(class_index))
    classifier = is_classifier(estimator)
    if output == "auto":
        output = "log_odds" if classifier else "prediction"
    if output == "prediction":
        if classifier:
            raise ValueError("output='prediction' is for regressors; use 'log_odds' or 'probability'")
        return (
            lambda Z: np.asarray(estimator.predict(_model_input(estimator, Z)), dtype=np.float64).reshape(-1)
        ), output
    if output not in ("log_odds", "probability"):
        raise ValueError(f"output must be 'auto', 'log_odds', 'probability' or 'prediction', got {output!r}")
    if not classifier:
        raise ValueError(f"output={output!r} needs a classifier, got {type(estimator).__name__}")
    classes = getattr(estimator, "classes_", None)
    if classes is None or not np.array_equal(np.asarray(classes), [0, 1]):
        raise ValueError(f"binary classifiers with classes [0, 1] only, got classes_={classes!r}")
    if output == "probability":
        return (
            lambda Z: np.asarray(estimator.predict_proba(_model_input(estimator, Z))[:, 1], dtype=np.float64)
        ), output
    try:
        import xgboost as xgb
    except ImportError:  # pragma: no cover - hard dependency
        xgb = None
    if xgb is not None and isinstance(estimator, xgb.XGBClassifier):
        return (lambda Z: np.asarray(estimator.predict(Z, output_margin=True), dtype=np.float64).reshape(-1)), output
    if hasattr(estimator, "decision_function"):  # logistic regression, gradient boosting, LDA / QDA: log-odds
        return (
            lambda Z: np.asarray(estimator.decision_function(_model_input(estimator, Z)), dtype=np.float64).reshape(-1)
        ), output

    def clipped(Z):
        p = np.asarray(estimator.predict_proba(_model_input(estimator, Z))[:, 1], dtype=np.float64)
        p = np.clip(p, proba_clip, 1.0 - proba_clip)
        return np.log(p) - np.log1p(-p)

    return clipped, output


@dataclass(frozen=True)
class LimeOptions:
    """The rarely changed options of :func:`lime_explanations`, in one keyword.

    Parameters
    ----------
    discretizer : {"quartile", "decile"}, default="quartile"
        LIME's discretizer (with ``discretize_continuous=True``).
    kernel_width : float, optional
        Default ``0.75 sqrt(p)`` (LIME's).
    proba_clip : float, default=1e-6
        ``eps`` of ``logit(clip(p, eps, 1 - eps))`` for classifiers with neither a
        margin nor a ``decision_function`` (naive Bayes, kNN, forests).
    """

    discretizer: str = "quartile"
    kernel_width: float | None = None
    proba_clip: float = 1e-6


def lime_explanations(
    estimator,
    X: Any,
    X_train: Any,
    *,
    rows: Sequence[int] | None = None,
    feature_names: Sequence[str] | None = None,
    output: str = "auto",
    num_samples: int = 5000,
    discretize_continuous: bool = True,
    feature_groups: Mapping[str, Sequence[str]] | None = None,
    random_state: int = 0,
    class_index: int | None = None,
    options: LimeOptions | None = None,
) -> LimeResult:
    """LIME explanations (``LimeTabularExplainer``) of rows of ``X``.

    Parameters
    ----------
    estimator : fitted estimator
        Any model of :mod:`xaipipe.models.families` (classifiers binary, classes [0, 1]).
    X : array-like of shape (n, p)
        Rows to explain from (the test rows).
    X_train : array-like of shape (m, p)
        Training rows: LIME's feature statistics, quartiles and sampling
        distribution.
    rows : sequence of int, optional
        Positions in ``X`` to explain (default: all), e.g. the force-plot rows
        ``result.row_index[force_rows(result)[kind]]``.
    feature_names : sequence of str, optional
        Defaults to ``X``'s columns or ``x0..x{p-1}``.
    output : {"auto", "log_odds", "probability", "prediction"}, default="auto"
        ``"auto"``: log-odds of class 1 for classifiers, the prediction for
        regressors (module docstring).
    num_samples : int, default=5000
        Neighbourhood size (LIME's default).
    discretize_continuous : bool, default=True
        LIME's default; see the module docstring for why it is the comparable
        choice.
    feature_groups : mapping of str -> sequence of str, optional
        One-hot groups (``prepared.json``): each is one categorical LIME feature
        (module docstring). The result's features are then the variables
        (:func:`xaipipe.explain.reliance.features_from_groups`), a group's
        ``data`` its level code (the position of the row's level among
        ``"(none)"``, if any row of ``X`` or ``X_train`` has no level, then its
        columns in order) and the kernel width ``0.75 sqrt(number of variables)``.
        None or empty: one LIME feature per column, as before.
    random_state : int, default=0
    class_index : int, optional
        Multiclass classifiers: the class ``k`` explained, in the output space of its
        SHAP values (``output`` one of ``"margin"``, ``"probability"``,
        ``"log_odds"``; ``"auto"``: ``"log_odds"``), recorded in
        ``details["class_index"]``.
    options : LimeOptions, optional
        The rarely changed options (:class:`LimeOptions`: ``discretizer``, ``kernel_width``,
        ``proba_clip``). None: ``LimeOptions()``.

    Returns
    -------
    LimeResult

    Raises
    ------
    ValueError
        Malformed arrays, rows out of range, bad ``output`` / ``num_samples`` /
        ``discretizer``, non-binary classifier, a group that is not one-hot.
    RuntimeError
        If LIME's ``local_pred`` differs from the surrogate recomputed at ``x``.
    """
    import lime

    opts = LimeOptions() if options is None else options
    discretizer, kernel_width, proba_clip = opts.discretizer, opts.kernel_width, opts.proba_clip
    import lime.lime_tabular

    Xa = check_matrix(X, "X")
    p = Xa.shape[1]
    Tr = check_matrix(X_train, "X_train", n_features=p)
    if feature_names is None:
        feature_names = [str(c) for c in X.columns] if isinstance(X, pd.DataFrame) else [f"x{j}" for j in range(p)]
    names = tuple(str(c) for c in feature_names)
    if len(names) != p:
        raise ValueError(f"feature_names has {len(names)} names but X has {p} columns")
    idx = np.arange(Xa.shape[0]) if rows is None else np.asarray(list(rows), dtype=np.int64)
    if idx.size == 0 or idx.min() < 0 or idx.max() >= Xa.shape[0]:
        raise ValueError(f"rows must be non-empty positions in [0, {Xa.shape[0]})")
    if isinstance(num_samples, bool) or not isinstance(num_samples, (int, np.integer)) or num_samples < 10:
        raise ValueError(f"num_samples must be an integer >= 10, got {num_samples!r}")
    if discretizer not in ("quartile", "decile"):
        raise ValueError(f"discretizer must be 'quartile' or 'decile', got {discretizer!r}")
    f, output = _output_function(estimator, output, float(proba_clip), class_index)
    mode = "classification" if output == "probability" else "regression"
    label = 1  # class 1; in regression mode lime stores the (un-negated) weights under label 1
    categorical: dict[int, list[str]] = {}
    if feature_groups:  # one categorical LIME feature per group, on the level codes
        f_columns = f
        Xa, Tr, names, categorical, decode = _group_codes(Xa, Tr, names, feature_groups)
        p = Xa.shape[1]
        f = lambda Z: f_columns(decode(Z))  # noqa: E731
    predict_fn = (lambda Z: np.column_stack([1.0 - f(Z), f(Z)])) if mode == "classification" else f
    width = float(np.sqrt(p) * 0.75) if kernel_width is None else float(kernel_width)
    extra = {"categorical_features": sorted(categorical), "categorical_names": categorical} if categorical else {}

    seeds = [int(np.random.SeedSequence([7, int(random_state), int(i)]).generate_state(1)[0]) for i in idx]
    n = idx.size
    weights = np.empty((n, p))
    intercept = np.empty(n)
    local_pred = np.empty(n)
    fx = np.empty(n)
    score = np.empty(n)
    conditions = []
    for k, (i, seed) in enumerate(zip(idx, seeds)):
        explainer = lime.lime_tabular.LimeTabularExplainer(
            Tr,
            mode=mode,
            feature_names=list(names),
            discretize_continuous=bool(discretize_continuous),
            discretizer=discretizer,
            kernel_width=width,
            feature_selection="none",
            random_state=np.random.RandomState(seed),
            **extra,
        )
        exp = explainer.explain_instance(Xa[i], predict_fn, labels=(label,), num_features=p, num_samples=num_samples)
        w = np.zeros(p)
        for j, value in exp.local_exp[label]:
            w[int(j)] = value
        weights[k] = w
        intercept[k] = float(exp.intercept[label])
        local_pred[k] = float(np.asarray(exp.local_pred).reshape(-1)[0])
        fx[k] = float(exp.predict_proba[label]) if mode == "classification" else float(exp.predicted_value)
        score[k] = float(exp.score)
        mapper = exp.domain_mapper
        conditions.append(tuple(mapper.discretized_feature_names or mapper.feature_names))
        # g(x): all interpretable inputs are 1 when discretised; else the standardised row
        z = np.ones(p) if discretize_continuous else (Xa[i] - explainer.scaler.mean_) / explainer.scaler.scale_
        z[list(categorical)] = 1.0  # a categorical feature's input is 1 at x ("x's level")
        g = intercept[k] + w @ z
        if abs(g - local_pred[k]) > _LOCAL_PRED_RTOL * max(1.0, abs(g)):
            raise RuntimeError(
                f"row {int(i)}: LIME's local_pred {local_pred[k]!r} differs from the surrogate at x, {g!r}"
            )
    direct = f(Xa[idx])
    if not np.allclose(direct, fx, rtol=1e-12, atol=1e-12):
        raise RuntimeError("LIME's f(x) differs from the model output at the explained rows")
    return LimeResult(
        weights=weights,
        intercept=intercept,
        local_prediction=local_pred,
        model_output=fx,
        score=score,
        data=Xa[idx].copy(),
        conditions=tuple(conditions),
        feature_names=names,
        row_index=idx.astype(np.int64),
        output=output,
        discretize_continuous=bool(discretize_continuous),
        details={
            "num_samples": int(num_samples),
            "kernel_width": width,
            "discretizer": discretizer if discretize_continuous else None,
            "random_state": int(random_state),
            "row_seeds": seeds,
            "mode": mode,
            "feature_selection": "none",
            "surrogate": "Ridge(alpha=1)",
            "lime_version": getattr(lime, "__version__", None) or _lime_version(),
            **({} if class_index is None else {"class_index": int(class_index)}),
        },
    )


def _group_codes(X: np.ndarray, X_train: np.ndarray, names: tuple, feature_groups: Mapping[str, Sequence[str]]):
    """The rows with each one-hot group as one column of level codes, and the way back.

    Returns
    -------
    (X_codes, X_train_codes, variables, categorical, decode)
        ``categorical``: position of each group among the variables -> level labels;
        ``decode(Z)``: the model's columns of rows ``Z`` given in codes.
    """
    from .reliance import features_from_groups

    spec = features_from_groups(list(names), feature_groups)
    p = len(names)
    both = np.vstack([X, X_train])
    codes_all = np.empty((both.shape[0], len(spec)))
    categorical: dict[int, list[str]] = {}
    level_rows: dict[int, np.ndarray] = {}
    plan = []
    for v, (name, cols) in enumerate(spec.items()):
        if name not in feature_groups:
            codes_all[:, v] = both[:, cols[0]]
            plan.append((v, cols, None))
            continue
        block = both[:, cols]
        sums = block.sum(axis=1)
        if not np.all((block == 0) | (block == 1)) or np.any(sums > 1):
            raise ValueError(f"feature group {name!r} is not one-hot (0/1 columns, at most one 1 per row)")
        none = bool(np.any(sums == 0))
        codes_all[:, v] = np.where(sums == 0, 0, np.argmax(block, axis=1) + int(none))
        categorical[v] = (["(none)"] if none else []) + [names[j] for j in cols]
        level_rows[v] = np.vstack([np.zeros((1, len(cols)))] * int(none) + [np.eye(len(cols))])
        plan.append((v, cols, level_rows[v]))

    def decode(Z):
        Z = np.asarray(Z, dtype=np.float64)
        out = np.empty((Z.shape[0], p))
        for v, cols, rows in plan:
            if rows is None:
                out[:, cols[0]] = Z[:, v]
            else:
                out[:, cols] = rows[Z[:, v].astype(np.int64)]
        return out

    n = X.shape[0]
    return codes_all[:n], codes_all[n:], tuple(spec), categorical, decode


def _lime_version() -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("lime")
    except PackageNotFoundError:  # pragma: no cover
        return None


def lime_frame(result: LimeResult) -> pd.DataFrame:
    """Long table of a :class:`LimeResult`: one row per explained row x feature.

    Columns ``row`` (position in ``X``), ``feature``, ``feature_value``,
    ``condition``, ``lime_weight``, ``intercept``, ``local_prediction``,
    ``model_output``, ``local_accuracy_gap``, ``score`` (the last five repeated
    per feature).
    """
    if not isinstance(result, LimeResult):
        raise TypeError(f"expected a LimeResult, got {type(result).__name__}")
    n, p = result.weights.shape
    return pd.DataFrame(
        {
            "row": np.repeat(result.row_index, p),
            "feature": np.tile(np.asarray(result.feature_names, dtype=object), n),
            "feature_value": result.data.reshape(-1),
            "condition": [c for row in result.conditions for c in row],
            "lime_weight": result.weights.reshape(-1),
            "intercept": np.repeat(result.intercept, p),
            "local_prediction": np.repeat(result.local_prediction, p),
            "model_output": np.repeat(result.model_output, p),
            "local_accuracy_gap": np.repeat(result.local_accuracy_gap, p),
            "score": np.repeat(result.score, p),
        }
    )


def compare_lime_shap(lime_result: LimeResult, shap_result, *, atol: float = 1e-5) -> pd.DataFrame:
    """LIME weights beside the SHAP values of the same rows, with both local-accuracy gaps.

    Parameters
    ----------
    lime_result : LimeResult
    shap_result : xaipipe.explain.shapley.ShapResult
        SHAP values of rows of the *same* ``X`` (rows are matched on
        ``row_index``), same features, same output space. A grouped result
        (:class:`~xaipipe.explain.shapley.GroupedShapResult`) is compared per
        variable with a LIME result of the same groups, or through its
        ``columns`` with a per-column LIME result.
    atol : float, default=1e-5
        Tolerance of the checks that both methods saw the same model output
        ``f(x)`` (relative to ``max(1, |f(x)|)``) and that the SHAP values add up
        to it (relative to ``max(1, |phi_0| + sum |phi| + |f(x)|)``, the check of
        :func:`~xaipipe.explain.shapley.shap_values`: XGBoost adds in float32).

    Returns
    -------
    DataFrame
        One row per explained row x feature: ``row``, ``feature``,
        ``feature_value``, ``condition``, ``lime_weight``, ``shap_value``,
        ``lime_rank`` / ``shap_rank`` (1 = largest |value| within the row),
        ``model_output``, ``lime_intercept``, ``lime_local_prediction``,
        ``lime_local_accuracy_gap`` (``|g(x) - f(x)|``), ``lime_score``,
        ``shap_base_value``, ``shap_sum`` and ``shap_local_accuracy_gap``
        (``|phi_0 + sum phi - f(x)|``), ``output``.

    Raises
    ------
    ValueError
        Rows of the LIME result missing from the SHAP result, different features
        or output spaces, different model outputs.
    RuntimeError
        If the SHAP values do not add up to ``f(x)`` within ``atol``.
    """
    from .shapley import ShapResult

    if not isinstance(lime_result, LimeResult):
        raise TypeError(f"expected a LimeResult, got {type(lime_result).__name__}")
    if not isinstance(shap_result, ShapResult):
        raise TypeError(f"expected a ShapResult, got {type(shap_result).__name__}")
    columns = getattr(shap_result, "columns", None)  # a grouped SHAP result beside a per-column LIME
    if columns is not None and tuple(columns.feature_names) == tuple(lime_result.feature_names):
        shap_result = columns
    if tuple(shap_result.feature_names) != tuple(lime_result.feature_names):
        raise ValueError("LIME and SHAP results have different features (explain both with the same feature_groups)")
    if shap_result.output != lime_result.output:
        raise ValueError(
            f"output spaces differ: LIME {lime_result.output!r}, SHAP {shap_result.output!r}; "
            f"explain both in the same space (lime_explanations(output=...))"
        )
    pos = {int(r): k for k, r in enumerate(shap_result.row_index)}
    missing = [int(r) for r in lime_result.row_index if int(r) not in pos]
    if missing:
        raise ValueError(f"rows {missing} explained by LIME have no SHAP values")
    s = np.array([pos[int(r)] for r in lime_result.row_index])
    phi = shap_result.values[s]
    base = shap_result.base_values[s]
    fx_shap = shap_result.model_output[s]
    fx = lime_result.model_output
    tol = atol * np.maximum(1.0, np.abs(fx))
    if np.any(np.abs(fx_shap - fx) > tol):
        k = int(np.argmax(np.abs(fx_shap - fx)))
        raise ValueError(
            f"row {int(lime_result.row_index[k])}: LIME saw f(x) = {fx[k]!r}, SHAP {fx_shap[k]!r}: "
            "not the same model or output space"
        )
    shap_sum = base + phi.sum(axis=1)
    shap_gap = np.abs(shap_sum - fx_shap)
    # relative to the magnitude of the terms, as shapley.shap_values checks it (XGBoost adds in float32)
    if np.any(shap_gap > atol * np.maximum(1.0, np.abs(base) + np.abs(phi).sum(axis=1) + np.abs(fx_shap))):
        raise RuntimeError(f"SHAP values do not add up to f(x) (max gap {shap_gap.max():.3g})")
    n, p = phi.shape

    def ranks(v):
        order = np.argsort(-np.abs(v), axis=1, kind="stable")
        r = np.empty_like(order)
        np.put_along_axis(r, order, np.arange(1, p + 1)[None, :].repeat(n, 0), axis=1)
        return r

    rep = lambda a: np.repeat(a, p)  # noqa: E731
    return pd.DataFrame(
        {
            "row": rep(lime_result.row_index),
            "feature": np.tile(np.asarray(lime_result.feature_names, dtype=object), n),
            "feature_value": lime_result.data.reshape(-1),
            "condition": [c for row in lime_result.conditions for c in row],
            "lime_weight": lime_result.weights.reshape(-1),
            "shap_value": phi.reshape(-1),
            "lime_rank": ranks(lime_result.weights).reshape(-1),
            "shap_rank": ranks(phi).reshape(-1),
            "model_output": rep(fx),
            "lime_intercept": rep(lime_result.intercept),
            "lime_local_prediction": rep(lime_result.local_prediction),
            "lime_local_accuracy_gap": rep(lime_result.local_accuracy_gap),
            "lime_score": rep(lime_result.score),
            "shap_base_value": rep(base),
            "shap_sum": rep(shap_sum),
            "shap_local_accuracy_gap": rep(shap_gap),
            "output": lime_result.output,
        }
    )


def lime_shap_summary(comparison: pd.DataFrame, *, top_k: int = 5) -> pd.DataFrame:
    """Per-row agreement of LIME and SHAP from :func:`compare_lime_shap`'s table.

    Returns
    -------
    DataFrame
        One row per explained row: ``row``, ``model_output``, ``lime_local_prediction``,
        ``lime_local_accuracy_gap``, ``shap_local_accuracy_gap``, ``lime_score``,
        ``spearman`` (rank correlation of the weights with the SHAP values),
        ``sign_agreement`` (share of features with the same sign, among those
        with |SHAP| > 0), ``top_k_overlap`` (features in both top-``k`` by
        absolute value, divided by ``k``), ``sum_lime_weights`` and
        ``sum_shap_values`` (= f(x) - phi_0).
    """
    from scipy.stats import spearmanr

    need = {
        "row",
        "lime_weight",
        "shap_value",
        "lime_rank",
        "shap_rank",
        "model_output",
        "lime_local_prediction",
        "lime_local_accuracy_gap",
        "shap_local_accuracy_gap",
        "lime_score",
    }
    if not need <= set(comparison.columns):
        raise ValueError(f"comparison lacks columns {sorted(need - set(comparison.columns))}")
    if isinstance(top_k, bool) or not isinstance(top_k, (int, np.integer)) or top_k < 1:
        raise ValueError(f"top_k must be a positive integer, got {top_k!r}")
    out = []
    for row, g in comparison.groupby("row", sort=False):
        w, phi = g["lime_weight"].to_numpy(), g["shap_value"].to_numpy()
        nz = phi != 0
        k = min(int(top_k), len(g))
        out.append(
            {
                "row": int(row),
                "model_output": float(g["model_output"].iloc[0]),
                "lime_local_prediction": float(g["lime_local_prediction"].iloc[0]),
                "lime_local_accuracy_gap": float(g["lime_local_accuracy_gap"].iloc[0]),
                "shap_local_accuracy_gap": float(g["shap_local_accuracy_gap"].iloc[0]),
                "lime_score": float(g["lime_score"].iloc[0]),
                "spearman": float(spearmanr(w, phi).statistic),
                "sign_agreement": float(np.mean(np.sign(w[nz]) == np.sign(phi[nz]))) if nz.any() else float("nan"),
                "top_k_overlap": len(
                    set(g.loc[g["lime_rank"] <= k, "feature"]) & set(g.loc[g["shap_rank"] <= k, "feature"])
                )
                / k,
                "sum_lime_weights": float(w.sum()),
                "sum_shap_values": float(phi.sum()),
            }
        )
    return pd.DataFrame(out)


class LimeTables(NamedTuple):
    """The tables of the ``lime`` rule (:func:`lime_tables`).

    Attributes
    ----------
    comparison : DataFrame
        :func:`compare_lime_shap` of the explained rows (``lime_shap.csv`` without its ids).
    summary : DataFrame
        :func:`lime_shap_summary` with ``force_plot_row`` (the force-plot row's kind, ``""`` for a
        sampled row) second (``lime_shap_summary.csv`` without its ids).
    """

    comparison: pd.DataFrame
    summary: pd.DataFrame

    def to_frames(self) -> dict[str, pd.DataFrame]:
        """The tables by the rule's output names (``comparison``, ``summary``)."""
        return {"comparison": self.comparison, "summary": self.summary}


def lime_tables(model, data, shap, settings: LimeSettings, *, named: Mapping[str, int]) -> LimeTables:
    """The ``lime`` rule: LIME beside the SHAP values of the force-plot rows and a seeded sample of test rows.

    Parameters
    ----------
    model : fitted estimator
        A forest store (:func:`xaipipe.io.open_model`) predicts one block of trees at a time.
    data : PreparedData
        The dataset's split (:func:`xaipipe.data.prepare.load_prepared`; any object with these
        attributes): ``X_test`` (the explained rows), ``X_train`` (LIME's statistics and sampling),
        ``features``, ``feature_groups`` (a one-hot group is one categorical LIME feature, as in
        SHAP).
    shap : ShapResult
        The SHAP values of one output (a multiclass model's ``explain.figure_class``:
        :func:`xaipipe.explain.shapley.class_result`): LIME explains the same output space
        (``shap.output``) and class (``details["class_index"]``).
    settings : LimeSettings
        :meth:`xaipipe.config.LimeSettings.from_config` (config section ``explain.lime``): the rows
        (:func:`lime_rows`: ``named`` and ``n_rows`` seeded others of
        ``shap.row_index``), ``num_samples`` and ``seed`` (:func:`lime_explanations`).
    named : mapping of str -> int
        The force-plot rows (kind -> position in ``X_test``;
        :func:`xaipipe.plots.shap_force.force_rows` of ``shap``, mapped through ``row_index``).

    Returns
    -------
    LimeTables

    Raises
    ------
    ValueError, RuntimeError
        As :func:`lime_explanations`.
    """
    rows = lime_rows(settings, shap.row_index, named)
    lime = lime_explanations(
        model,
        data.X_test,
        data.X_train,
        rows=rows,
        feature_names=data.features,
        output=shap.output,  # SHAP's output space
        feature_groups=data.feature_groups,
        num_samples=settings.num_samples,
        random_state=settings.seed,
        class_index=shap.details.get("class_index"),
    )
    if getattr(data, "user_groups", None) and getattr(shap, "columns", None) is not None:
        # SHAP sums the user's groups too; LIME's variables are the columns and one-hot groups
        from .shapley import group_shap_result

        shap = group_shap_result(shap.columns, data.feature_groups)
    comparison = compare_lime_shap(lime, shap)
    role = {v: k for k, v in named.items()}
    summary = lime_shap_summary(comparison)
    summary.insert(1, "force_plot_row", summary["row"].map(role).fillna(""))
    return LimeTables(comparison, summary)


def lime_rows(settings: LimeSettings, row_index, named: Mapping[str, int]) -> list[int]:
    """The positions in ``X_test`` that LIME explains: the force-plot rows ``named`` and
    ``settings.n_rows`` (at most the rest) of the other rows of ``row_index`` (the SHAP result's
    rows), drawn without replacement with ``np.random.default_rng(settings.seed)``; sorted."""
    others = np.setdiff1d(row_index, list(named.values()))
    extra = np.random.default_rng(settings.seed).choice(others, size=min(settings.n_rows, len(others)), replace=False)
    return sorted({*named.values(), *map(int, extra)})
