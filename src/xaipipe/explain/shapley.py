"""SHAP values of fitted models: one entry point, honest output spaces.

:func:`shap_values` explains a fitted model of any family of
:mod:`xaipipe.models.families` on rows ``X`` (the test rows) and returns a
:class:`ShapResult`: one SHAP value per row and feature plus the base value, such
that, for every explained row ``i`` (*local accuracy*, Lundberg & Lee 2017,
NeurIPS, Property 1 / eq. 5; *eficiencia* in 000 §3.2)::

    base_values[i] + values[i].sum() == model_output[i]

``model_output`` is computed directly from the model (not from the SHAP values)
and every call checks the identity above, raising :class:`RuntimeError` when it
fails; the largest error is kept in ``details["max_abs_additivity_error"]``.

Algorithms (``algorithm="auto"`` picks by model class)
------------------------------------------------------
``"xgboost_pred_contribs"`` (XGBoost)
    Exact path-dependent TreeSHAP computed by XGBoost itself,
    ``Booster.predict(DMatrix, pred_contribs=True)`` (last column = bias = base
    value), in float32; interaction values with ``pred_interactions=True``
    (Lundberg et al. 2020, Nat. Mach. Intell. 2:56-67, "Tree SHAP" and "SHAP
    interaction values").  Output: the margin, i.e. the prediction for
    identity-link regression objectives and the log-odds for
    ``binary:logistic``.
``"tree_explainer"`` (scikit-learn decision tree, random forest, gradient boosting)
    ``shap.TreeExplainer(model, feature_perturbation="tree_path_dependent")``:
    exact path-dependent TreeSHAP, no background data (the expectation uses the
    training cover stored in the trees).  Output spaces:

    * regressors: the prediction;
    * ``GradientBoostingClassifier``: the raw score, which is the log-odds of
      class 1 (binary deviance loss);
    * ``DecisionTreeClassifier`` / ``RandomForestClassifier``: the class-1
      probability. A forest's probability is the *average of the trees'
      probabilities*; its log-odds ``logit(mean_b p_b(x))`` is not a sum over
      trees, so no exact tree-wise algorithm gives log-odds SHAP values for it
      (path-dependent TreeSHAP is exact only for outputs that are sums of
      per-tree leaf values). For a single tree ``logit(p_leaf)`` would be a
      leaf value, but grown trees have pure leaves (``p`` = 0 or 1, infinite
      log-odds). We therefore report these values with
      ``output="probability"`` rather than approximate a log-odds version;
      ``algorithm="permutation"`` gives (clipped) log-odds SHAP values of
      either model when they are needed.

    Random forests are explained in chunks of trees (``chunk_size``), in
    parallel processes (``n_jobs``): the forest output is the mean of its trees,
    so by the additivity axiom (000 §3.2, *aditividad*) its SHAP values are
    ``sum_c (n_c / n_trees) * phi(sub-forest c)``, exactly.  This bounds memory
    (shap densifies all trees of a model at once) and spreads the cost over
    cores.
``"linear_explainer"`` (linear and logistic regression)
    ``shap.LinearExplainer`` with an explicit background (masker) and
    interventional expectations: ``phi_j = w_j (x_j - mean_background_j)``
    (Lundberg & Lee 2017, Corollary 1, "Linear SHAP"; 000 §3.2).  For the
    ``StandardScaler -> LogisticRegression`` pipeline the scaled model is
    explained; since ``z_j = (x_j - mu_j) / s_j`` is affine per feature,
    ``w_j (z_j - mean z_j) = (w_j / s_j)(x_j - mean x_j)``: the values equal
    those of the equivalent unscaled linear form (verified in the tests).
    Logistic models are explained in log-odds.
``"permutation"`` (default for any other model: naive Bayes, QDA, kNN)
    ``shap.PermutationExplainer`` (antithetic permutation sampling; Strumbelj &
    Kononenko 2014, Knowl. Inf. Syst. 41:647-665) with an independent masker on
    an explicit background sample drawn with a seed from ``X_background``.
    Local accuracy holds exactly (each permutation telescopes from the base
    value to ``f(x)``). The values are exact when the explained output has no
    interactions of order > 2 - naive Bayes log-odds (additive), QDA log-odds
    (quadratic) - with a single antithetic pair, which is then the default
    (``n_permutations=None``), and for ``p <= 2``; otherwise (kNN) they are a
    Monte Carlo estimate from ``n_permutations`` pairs.
``"kernel"``
    ``shap.KernelExplainer`` (Kernel SHAP, Lundberg & Lee 2017, Theorem 2; 000
    §3.3.4, Teorema 3.14) on the same background, without L1 feature
    selection; exact when ``n_coalitions >= 2**p - 2``.

The game of the model-agnostic explainers
-----------------------------------------
Both ``"permutation"`` and ``"kernel"`` explain the interventional game
``v(S) = mean_b f(x_S, b_notS)`` over the background rows ``b`` (000 §3.2,
"Función característica": the prediction integrated over the features not in
``S``), where ``f`` is the model output in the reported space.  For
classifiers ``f`` defaults to the log-odds of class 1 (``link="logit"``), so
the base value is the background mean of the log-odds, ``E_b[logit p(b)]`` -
the same convention as TreeSHAP on a margin and Linear SHAP on a logistic
model (a logistic model explained by ``"permutation"`` gives exactly its
Linear SHAP values).  This differs from ``shap``'s own ``link=shap.links.logit``,
which explains ``logit(E_b[p])`` (and, by default, a linearised version of it).
The log-odds are exact where the model provides them (logistic regression,
LDA/QDA decision function, naive Bayes joint log-likelihoods); otherwise (kNN,
whose probabilities are fractions of neighbours and hit 0 and 1) they are
``logit(clip(p, eps, 1 - eps))`` with ``eps = proba_clip`` (recorded in
``details["log_odds_source"]``); ``link="identity"`` explains the probability
instead.

Departures from the seed (000, ch. 3)
-------------------------------------
000 §3.3.3 defines SHAP values with conditional expectations ``E[f(z) | z_S]``;
all explainers here use either the interventional (marginal) expectation of 000
§3.2 (linear, permutation, kernel) or the tree-path-dependent approximation of
the conditional expectation (TreeSHAP).  ``feature_perturbation`` records which.
"""

from __future__ import annotations

import copy
import json
import math
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterator, Sequence

import numpy as np
import pandas as pd
if TYPE_CHECKING:  # scikit-learn is imported where used: the figure rules load this module without it
    from sklearn.base import BaseEstimator

from ..models.families import final_estimator

__all__ = [
    "ALGORITHMS",
    "ShapResult",
    "shap_values",
    "forest_chunks",
    "tidy_frame",
    "row_frame",
    "global_importance",
    "result_metadata",
]

#: Algorithm identifiers accepted by :func:`shap_values` (besides ``"auto"``).
ALGORITHMS = ("xgboost_pred_contribs", "tree_explainer", "linear_explainer", "permutation", "kernel")

#: Background size of the model-agnostic explainers when ``background_size`` is None.
DEFAULT_BACKGROUND_SIZE = 100
#: Antithetic permutation pairs per row when ``n_permutations`` is None and the
#: model is not of second order (see :func:`_second_order`).
DEFAULT_N_PERMUTATIONS = 10
#: Trees per chunk of a random forest when ``chunk_size`` is None.
DEFAULT_CHUNK_SIZE = 100
#: Rows per parallel task of the model-agnostic explainers.
_ROW_BLOCK = 16

_IDENTITY_XGB_OBJECTIVES = frozenset(
    {"reg:squarederror", "reg:absoluteerror", "reg:pseudohubererror", "reg:quantileerror"}
)
_LOGODDS_XGB_OBJECTIVES = frozenset({"binary:logistic", "binary:logitraw"})


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
        return {
            "prediction": "prediction",
            "log_odds": "log-odds of class 1",
            "probability": "probability of class 1",
            "margin": "margin",
        }.get(self.output, self.output)


# --------------------------------------------------------------------------- #
# validation helpers
# --------------------------------------------------------------------------- #
def _as_matrix(X: Any, name: str, n_features: int | None = None) -> np.ndarray:
    try:
        arr = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be numeric, could not convert to float: {exc}") from None
    if arr.ndim != 2:
        raise ValueError(f"{name} must be 2-D (n_rows, n_features), got shape {arr.shape}")
    if arr.shape[0] < 1:
        raise ValueError(f"{name} has no rows")
    if n_features is not None and arr.shape[1] != n_features:
        raise ValueError(f"{name} has {arr.shape[1]} features, expected {n_features}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite values")
    return arr


def _is_classifier(estimator) -> bool:
    from sklearn.base import is_classifier

    return is_classifier(estimator)


def _feature_names(X: Any, estimator: BaseEstimator, p: int, feature_names) -> tuple:
    if feature_names is None:
        if isinstance(X, pd.DataFrame):
            feature_names = [str(c) for c in X.columns]
        elif getattr(estimator, "feature_names_in_", None) is not None:
            feature_names = [str(c) for c in estimator.feature_names_in_]
        else:
            feature_names = [f"x{j}" for j in range(p)]
    names = tuple(str(c) for c in feature_names)
    if len(names) != p:
        raise ValueError(f"feature_names has {len(names)} names but X has {p} features")
    if len(set(names)) != p:
        raise ValueError("feature_names must be unique")
    return names


def _positive_int(value, name: str, allow_none: bool = True) -> int | None:
    if value is None and allow_none:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} must be a positive integer{' or None' if allow_none else ''}, got {value!r}")
    return int(value)


def _check_binary(estimator: BaseEstimator) -> None:
    classes = getattr(final_estimator(estimator), "classes_", None)
    if classes is None or len(classes) != 2 or not np.array_equal(np.asarray(classes), [0, 1]):
        raise ValueError(
            "only binary classifiers with classes [0, 1] (positive class coded 1) are supported, "
            f"got classes_={None if classes is None else list(classes)}"
        )


def _rng(random_state: int, stream: int) -> np.random.Generator:
    """Independent generator per purpose (rows, background, explainer seeds)."""
    return np.random.default_rng([stream, int(random_state)])


def _subsample(n: int, size: int | None, rng: np.random.Generator) -> np.ndarray:
    if size is None or size >= n:
        return np.arange(n)
    return np.sort(rng.choice(n, size=size, replace=False))


def _model_input(estimator: BaseEstimator, Z: np.ndarray):
    """Z as the model expects it (a DataFrame when fitted on named columns)."""
    names = getattr(estimator, "feature_names_in_", None)
    if names is not None:
        return pd.DataFrame(Z, columns=list(names))
    return Z


def _is_xgboost(est: BaseEstimator) -> bool:
    try:
        import xgboost as xgb
    except ImportError:  # pragma: no cover - hard dependency
        return False
    return isinstance(est, (xgb.XGBRegressor, xgb.XGBClassifier))


def _sklearn_tree_kind(est: BaseEstimator) -> str | None:
    from sklearn.ensemble import (
        GradientBoostingClassifier,
        GradientBoostingRegressor,
        RandomForestClassifier,
        RandomForestRegressor,
    )
    from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

    if isinstance(est, (RandomForestRegressor, RandomForestClassifier)):
        return "random_forest"
    if isinstance(est, (GradientBoostingRegressor, GradientBoostingClassifier)):
        return "gradient_boosting"
    if isinstance(est, (DecisionTreeRegressor, DecisionTreeClassifier)):
        return "decision_tree"
    return None


def _is_linear(est: BaseEstimator) -> bool:
    from sklearn.linear_model import LinearRegression, LogisticRegression

    return isinstance(est, (LinearRegression, LogisticRegression))


def _auto_algorithm(est: BaseEstimator) -> str:
    if _is_xgboost(est):
        return "xgboost_pred_contribs"
    if _sklearn_tree_kind(est) is not None:
        return "tree_explainer"
    if _is_linear(est):
        return "linear_explainer"
    return "permutation"


# --------------------------------------------------------------------------- #
# model output functions
# --------------------------------------------------------------------------- #
def _logit(p: np.ndarray) -> np.ndarray:
    return np.log(p) - np.log1p(-p)


def _class1_log_odds(estimator: BaseEstimator, proba_clip: float) -> tuple[Callable, str]:
    """``f(Z) -> log-odds of class 1`` of a fitted binary classifier and its source.

    Exact where the model exposes log-odds: ``decision_function`` of logistic
    regression and LDA/QDA (documented as ``log p(1|x) - log p(0|x)``), and the
    joint log-likelihoods of naive Bayes. Otherwise the logit of the clipped
    class-1 probability.
    """
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis, QuadraticDiscriminantAnalysis
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import Pipeline

    est = final_estimator(estimator)
    if isinstance(est, (LogisticRegression, LinearDiscriminantAnalysis, QuadraticDiscriminantAnalysis)):
        def f(Z):
            return np.asarray(estimator.decision_function(_model_input(estimator, Z)), dtype=np.float64)

        return f, "decision_function"
    if hasattr(est, "predict_joint_log_proba"):  # naive Bayes
        def f(Z):
            Zt = _model_input(estimator, Z)
            if isinstance(estimator, Pipeline):
                Zt = estimator[:-1].transform(Zt)
            jll = est.predict_joint_log_proba(Zt)
            return np.asarray(jll[:, 1] - jll[:, 0], dtype=np.float64)

        return f, "joint_log_likelihood"

    def f(Z):
        p = estimator.predict_proba(_model_input(estimator, Z))[:, 1]
        return _logit(np.clip(np.asarray(p, dtype=np.float64), proba_clip, 1.0 - proba_clip))

    return f, f"clipped_probability(eps={proba_clip:g})"


def _class1_probability(estimator: BaseEstimator) -> Callable:
    def f(Z):
        return np.asarray(estimator.predict_proba(_model_input(estimator, Z))[:, 1], dtype=np.float64)

    return f


def _prediction(estimator: BaseEstimator) -> Callable:
    def f(Z):
        return np.asarray(estimator.predict(_model_input(estimator, Z)), dtype=np.float64).reshape(-1)

    return f


# --------------------------------------------------------------------------- #
# algorithms; each returns a dict of ShapResult fields
# --------------------------------------------------------------------------- #
def _xgb_iteration_range(est) -> tuple[int, int]:
    try:
        return (0, int(est.best_iteration) + 1)
    except AttributeError:
        return (0, 0)


def _explain_xgboost(estimator, Xe, interactions: bool) -> dict:
    import xgboost as xgb

    est = final_estimator(estimator)
    booster = est.get_booster()
    objective = json.loads(booster.save_config())["learner"]["objective"]["name"]
    if objective in _IDENTITY_XGB_OBJECTIVES:
        output, link = "prediction", "identity"
    elif objective in _LOGODDS_XGB_OBJECTIVES:
        _check_binary(estimator)
        output, link = "log_odds", "logit"
    elif objective.startswith("multi:"):
        raise ValueError(f"multi-class XGBoost objective {objective!r} is not supported (binary only)")
    else:
        output, link = "margin", f"objective:{objective}"
    it = _xgb_iteration_range(est)
    dm = xgb.DMatrix(_tree_input(estimator, Xe))
    contribs = booster.predict(dm, pred_contribs=True, iteration_range=it, validate_features=False)
    margin = booster.predict(dm, output_margin=True, iteration_range=it, validate_features=False)
    inter = None
    if interactions:
        full = booster.predict(dm, pred_interactions=True, iteration_range=it, validate_features=False)
        inter = np.asarray(full[:, :-1, :-1], dtype=np.float64)
    return dict(
        values=np.asarray(contribs[:, :-1], dtype=np.float64),
        base_values=np.asarray(contribs[:, -1], dtype=np.float64),
        model_output=np.asarray(margin, dtype=np.float64).reshape(-1),
        interaction_values=inter,
        output=output,
        link=link,
        feature_perturbation="tree_path_dependent",
        background_size=0,
        details={"objective": objective, "iteration_range": list(it), "dtype": "float32",
                 "n_trees": int(booster.num_boosted_rounds())},
        _rtol=1e-5,
    )


def _tree_input(estimator, Xe: np.ndarray) -> np.ndarray:
    """Rows as the tree model sees them: through a per-feature scaler pipeline, if any."""
    from sklearn.pipeline import Pipeline

    if isinstance(estimator, Pipeline):
        _check_scaler_pipeline(estimator, "tree algorithms")
        return np.asarray(estimator[:-1].transform(_model_input(estimator, Xe)), dtype=np.float64)
    return Xe


def _tree_shap_task(model, X: np.ndarray, class_index: int | None, interactions: bool):
    """Path-dependent TreeSHAP of one (sub-)model: (values, base, interactions)."""
    import shap

    explainer = shap.TreeExplainer(model, feature_perturbation="tree_path_dependent")
    values = np.asarray(explainer.shap_values(X, check_additivity=False), dtype=np.float64)
    base = np.asarray(explainer.expected_value, dtype=np.float64).reshape(-1)
    inter = None
    if interactions:
        inter = np.asarray(explainer.shap_interaction_values(X), dtype=np.float64)
    if class_index is not None:
        values = values[..., class_index] if values.ndim == 3 else values
        base = base[class_index] if base.size > 1 else base
        if inter is not None and inter.ndim == 4:
            inter = inter[..., class_index]
    return values, float(base.reshape(-1)[0]), inter


def _subforest(forest, start: int, stop: int):
    """Shallow copy of ``forest`` holding trees ``start..stop-1`` only."""
    sub = copy.copy(forest)
    sub.estimators_ = forest.estimators_[start:stop]
    sub.n_estimators = stop - start
    return sub


def forest_chunks(n_trees: int, chunk_size: int) -> list[tuple[int, int]]:
    """Contiguous ``[start, stop)`` tree ranges of at most ``chunk_size`` trees."""
    return [(a, min(a + chunk_size, n_trees)) for a in range(0, n_trees, chunk_size)]


def _explain_sklearn_trees(estimator, Xe, interactions: bool, chunk_size: int | None, n_jobs: int) -> dict:
    est = final_estimator(estimator)
    Xe = _tree_input(estimator, Xe)
    kind = _sklearn_tree_kind(est)
    classifier = _is_classifier(est)
    if classifier:
        _check_binary(est)
    if kind == "gradient_boosting":
        class_index = None
        output, link = ("log_odds", "logit") if classifier else ("prediction", "identity")
    else:
        class_index = 1 if classifier else None
        output, link = ("probability", "identity") if classifier else ("prediction", "identity")
    details: dict[str, Any] = {}

    if kind == "random_forest":
        n_trees = len(est.estimators_)
        size = chunk_size or DEFAULT_CHUNK_SIZE
        chunks = forest_chunks(n_trees, size)
        tasks = [(_subforest(est, a, b), b - a) for a, b in chunks]
        if n_jobs == 1 or len(tasks) == 1:
            parts = [_tree_shap_task(m, Xe, class_index, interactions) for m, _ in tasks]
        else:
            from joblib import Parallel, delayed

            # joblib's default backend (loky processes) unless the caller chose
            # another one with joblib.parallel_config
            parts = Parallel(n_jobs=n_jobs, prefer="processes")(
                delayed(_tree_shap_task)(m, Xe, class_index, interactions) for m, _ in tasks
            )
        weights = [w / n_trees for _, w in tasks]
        values = sum(w * v for w, (v, _, _) in zip(weights, parts))
        base = sum(w * b for w, (_, b, _) in zip(weights, parts))
        inter = sum(w * i for w, (_, _, i) in zip(weights, parts)) if interactions else None
        details.update(n_trees=n_trees, chunk_size=size, n_chunks=len(chunks), n_jobs=n_jobs)
    else:
        values, base, inter = _tree_shap_task(est, Xe, class_index, interactions)
        details["n_trees"] = int(getattr(est, "n_estimators_", 1))

    if output == "log_odds":
        model_output = est.decision_function(_model_input(est, Xe))
    elif output == "probability":
        model_output = est.predict_proba(_model_input(est, Xe))[:, 1]
    else:
        model_output = est.predict(_model_input(est, Xe))
    return dict(
        values=np.asarray(values, dtype=np.float64),
        base_values=np.full(Xe.shape[0], float(base)),
        model_output=np.asarray(model_output, dtype=np.float64).reshape(-1),
        interaction_values=inter,
        output=output,
        link=link,
        feature_perturbation="tree_path_dependent",
        background_size=0,
        details=details,
        _rtol=1e-9,
    )


def _check_scaler_pipeline(estimator, what: str = "linear_explainer") -> None:
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import StandardScaler

    if isinstance(estimator, Pipeline):
        for name, step in estimator.steps[:-1]:
            if not (step is None or step == "passthrough" or isinstance(step, StandardScaler)):
                raise ValueError(
                    f"{what}: only a per-feature affine preprocessing (StandardScaler) is supported; "
                    f"pipeline step {name!r} is {type(step).__name__}. Use algorithm='permutation'."
                )


def _explain_linear(estimator, Xe, background) -> dict:
    import shap
    from sklearn.pipeline import Pipeline

    _check_scaler_pipeline(estimator)
    est = final_estimator(estimator)
    classifier = _is_classifier(est)
    if classifier:
        _check_binary(est)
    coef = np.asarray(est.coef_, dtype=np.float64)
    if coef.ndim == 2 and coef.shape[0] != 1:
        raise ValueError(f"linear_explainer needs a single-output linear model, coef_ has shape {coef.shape}")
    if isinstance(estimator, Pipeline):
        Xt = np.asarray(estimator[:-1].transform(_model_input(estimator, Xe)), dtype=np.float64)
        Bt = np.asarray(estimator[:-1].transform(_model_input(estimator, background)), dtype=np.float64)
    else:
        Xt, Bt = Xe, background
    masker = shap.maskers.Independent(Bt, max_samples=Bt.shape[0])
    explainer = shap.LinearExplainer(est, masker)
    values = np.asarray(explainer.shap_values(Xt), dtype=np.float64)
    base = float(np.asarray(explainer.expected_value, dtype=np.float64).reshape(-1)[0])
    if classifier:
        output, link = "log_odds", "logit"
        model_output = estimator.decision_function(_model_input(estimator, Xe))
    else:
        output, link = "prediction", "identity"
        model_output = estimator.predict(_model_input(estimator, Xe))
    return dict(
        values=values,
        base_values=np.full(Xe.shape[0], base),
        model_output=np.asarray(model_output, dtype=np.float64).reshape(-1),
        interaction_values=None,
        output=output,
        link=link,
        feature_perturbation="interventional",
        background_size=int(Bt.shape[0]),
        details={"scaled_pipeline": isinstance(estimator, Pipeline)},
        _rtol=1e-9,
    )


@contextmanager
def _global_numpy_seed(random_state: int) -> Iterator[None]:
    """Seed NumPy's global (legacy) random state inside the block, restore it after.

    For the parts of shap that draw from ``np.random`` and take no seed (the
    model-agnostic explainers here, the beeswarm and scatter plots in
    :mod:`xaipipe.explain.plot_shap`): their results are reproducible and the
    caller's random stream is untouched.

    Raises
    ------
    ValueError
        ``random_state`` is not an integer in [0, 2**32 - 1] (NumPy's own check).
    """
    saved = np.random.get_state()
    np.random.seed(random_state)
    try:
        yield
    finally:
        np.random.set_state(saved)


def _agnostic_block(algorithm: str, f: Callable, background: np.ndarray, X: np.ndarray,
                    seeds: Sequence[int], budget: int, feature_names: Sequence[str]):
    """Explain rows ``X`` one by one, reseeding before each row with ``seeds[i]``
    (so a row's values do not depend on the other rows); returns (values, base)."""
    import shap

    values = np.empty(X.shape, dtype=np.float64)
    base = np.empty(X.shape[0], dtype=np.float64)
    # both explainers draw from numpy's global RNG (PermutationExplainer also seeds it when built)
    with _global_numpy_seed(int(seeds[0])):
        if algorithm == "permutation":
            masker = shap.maskers.Independent(background, max_samples=background.shape[0])
            explainer = shap.PermutationExplainer(
                f, masker, link=shap.links.identity, linearize_link=False, seed=int(seeds[0]),
                feature_names=list(feature_names),
            )
            for i, seed in enumerate(seeds):
                np.random.seed(int(seed))
                exp = explainer(X[i:i + 1], max_evals=budget, silent=True)
                values[i] = np.asarray(exp.values, dtype=np.float64).reshape(-1)
                base[i] = float(np.asarray(exp.base_values).reshape(-1)[0])
        else:
            explainer = shap.KernelExplainer(f, background, link="identity")
            for i, seed in enumerate(seeds):
                np.random.seed(int(seed))
                v = explainer.shap_values(X[i:i + 1], nsamples=budget, l1_reg=False, silent=True)
                values[i] = np.asarray(v, dtype=np.float64).reshape(-1)
                base[i] = float(np.asarray(explainer.expected_value).reshape(-1)[0])
    return values, base


def _second_order(estimator: BaseEstimator, output: str) -> bool:
    """True when the explained output is a polynomial of degree <= 2 in the
    features, so one antithetic permutation pair gives exact SHAP values.

    Gaussian naive Bayes log-odds are a sum of per-feature quadratics
    (additive), QDA's are a quadratic form and LDA / logistic regression's are
    linear (after any per-feature affine scaling); linear regression predicts
    linearly. A game whose players interact at most pairwise is a sum of
    one- and two-player games, and a forward + reverse pass over any permutation
    gives each two-player term both orders, hence its exact Shapley split.
    """
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis, QuadraticDiscriminantAnalysis
    from sklearn.linear_model import LinearRegression, LogisticRegression
    from sklearn.naive_bayes import GaussianNB
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import StandardScaler

    if isinstance(estimator, Pipeline) and not all(
        s is None or s == "passthrough" or isinstance(s, StandardScaler) for _, s in estimator.steps[:-1]
    ):
        return False
    est = final_estimator(estimator)
    if output == "log_odds":
        return isinstance(est, (GaussianNB, QuadraticDiscriminantAnalysis, LinearDiscriminantAnalysis,
                                LogisticRegression))
    if output == "prediction":
        return isinstance(est, LinearRegression)
    return False


def _explain_agnostic(estimator, Xe, rows, n_rows_in_X, background, algorithm, link, proba_clip,
                      n_permutations, n_coalitions, n_jobs, random_state, feature_names) -> dict:
    p = Xe.shape[1]
    details: dict[str, Any] = {}
    if _is_classifier(estimator):
        _check_binary(estimator)
        link = "logit" if link == "auto" else link
        if link == "logit":
            f, source = _class1_log_odds(estimator, proba_clip)
            output = "log_odds"
            details["log_odds_source"] = source
        else:
            f, output = _class1_probability(estimator), "probability"
    else:
        if link not in ("auto", "identity"):
            raise ValueError(f"link={link!r} is only meaningful for classifiers; a regressor is explained as is")
        link, f, output = "identity", _prediction(estimator), "prediction"
    if algorithm == "permutation":
        if n_permutations is None:
            n_permutations = 1 if _second_order(estimator, output) else DEFAULT_N_PERMUTATIONS
        budget = n_permutations * (2 * p + 1)
        details.update(n_permutations=n_permutations, max_evals=budget)
    else:
        budget = n_coalitions if n_coalitions is not None else 2 * p + 2048
        details.update(n_coalitions=budget, l1_reg=False)

    # one seed per row of X (by position), so a row's values do not depend on
    # max_rows, on the other rows or on n_jobs
    all_seeds = np.random.SeedSequence([3, int(random_state)]).generate_state(n_rows_in_X)
    seeds = all_seeds[rows]
    blocks = [np.arange(a, min(a + _ROW_BLOCK, Xe.shape[0])) for a in range(0, Xe.shape[0], _ROW_BLOCK)]
    args = [(algorithm, f, background, Xe[b], seeds[b], budget, feature_names) for b in blocks]
    if n_jobs == 1 or len(blocks) == 1:
        parts = [_agnostic_block(*a) for a in args]
    else:
        # processes, not threads: shap's samplers use numpy's global RNG
        from joblib import Parallel, delayed

        parts = Parallel(n_jobs=n_jobs, backend="loky")(delayed(_agnostic_block)(*a) for a in args)
    values = np.concatenate([v for v, _ in parts], axis=0)
    base = np.concatenate([b for _, b in parts], axis=0)
    details.update(row_seeds="numpy.random.SeedSequence([3, random_state]).generate_state(n_rows_in_X)[row]",
                   n_jobs=n_jobs)
    return dict(
        values=values,
        base_values=base,
        model_output=f(Xe),
        interaction_values=None,
        output=output,
        link=link,
        feature_perturbation="interventional",
        background_size=int(background.shape[0]),
        details=details,
        _rtol=1e-8,
    )


# --------------------------------------------------------------------------- #
# entry point
# --------------------------------------------------------------------------- #
def shap_values(
    estimator: BaseEstimator,
    X: Any,
    *,
    X_background: Any | None = None,
    feature_names: Sequence[str] | None = None,
    algorithm: str = "auto",
    background_size: int | None = None,
    max_rows: int | None = None,
    interactions: bool = False,
    link: str = "auto",
    proba_clip: float = 1e-6,
    n_permutations: int | None = None,
    n_coalitions: int | None = None,
    chunk_size: int | None = None,
    n_jobs: int | None = 1,
    random_state: int = 0,
) -> ShapResult:
    """SHAP values of a fitted model on rows ``X`` (module docstring: algorithms).

    Parameters
    ----------
    estimator : fitted estimator
        A model of :mod:`xaipipe.models.families` (possibly a ``Pipeline``);
        classifiers must be binary with classes ``[0, 1]``.
    X : array-like of shape (n, p)
        Rows to explain (the test rows), in the units the model was fitted on.
    X_background : array-like of shape (m, p), optional
        Rows the background sample is drawn from (the training rows). Required
        by ``"linear_explainer"``, ``"permutation"`` and ``"kernel"``; ignored
        (and not recorded) by path-dependent TreeSHAP.
    feature_names : sequence of str, optional
        Defaults to ``X``'s columns, the estimator's ``feature_names_in_`` or
        ``x0..x{p-1}``.
    algorithm : {"auto", "xgboost_pred_contribs", "tree_explainer",
        "linear_explainer", "permutation", "kernel"}, default="auto"
        ``"auto"``: XGBoost -> ``xgboost_pred_contribs``; scikit-learn trees and
        tree ensembles -> ``tree_explainer``; linear / logistic regression ->
        ``linear_explainer``; anything else -> ``permutation``.
    background_size : int, optional
        Background rows drawn without replacement (seeded) from
        ``X_background``. None: all rows for ``linear_explainer`` (only their
        mean matters), :data:`DEFAULT_BACKGROUND_SIZE` for the model-agnostic
        explainers.
    max_rows : int, optional
        Explain a seeded subsample of at most ``max_rows`` rows of ``X`` (kept in
        ascending order; positions in ``ShapResult.row_index``), for callers
        needing a time bound.
    interactions : bool, default=False
        Also compute SHAP interaction values, shape (n, p, p) (tree models only;
        Lundberg et al. 2020, "SHAP interaction values").
    link : {"auto", "logit", "identity"}, default="auto"
        Output space of classifiers for the model-agnostic explainers:
        ``"logit"`` (default) = log-odds of class 1, ``"identity"`` = class-1
        probability. The other algorithms have a fixed output space and accept
        ``"auto"`` or that space's link only.
    proba_clip : float, default=1e-6
        ``eps`` of ``logit(clip(p, eps, 1 - eps))`` for classifiers without
        exact log-odds (kNN); in (0, 0.5).
    n_permutations : int, optional
        Antithetic permutation pairs per row for ``"permutation"`` (``max_evals
        = n_permutations * (2p + 1)``). None: 1 when the explained output is of
        degree <= 2 in the features (naive Bayes, QDA, LDA and logistic
        log-odds, linear regression), for which one pair is exact, else
        :data:`DEFAULT_N_PERMUTATIONS`.
    n_coalitions : int, optional
        Coalitions per row for ``"kernel"`` (default ``2p + 2048``, shap's).
    chunk_size : int, optional
        Trees per chunk for random forests (default
        :data:`DEFAULT_CHUNK_SIZE`); the result does not depend on it beyond
        floating-point rounding.
    n_jobs : int, default=1
        Parallel workers (joblib) for random-forest chunks (joblib's default
        backend, loky processes, unless set with ``joblib.parallel_config``) and
        for blocks of rows of the model-agnostic explainers (always processes:
        shap samples from numpy's global RNG). The result does not depend on it.
    random_state : int, default=0
        Seeds the row subsample, the background sample and the permutation /
        kernel sampling (independent streams; one sampling seed per row of
        ``X``, so a row's values do not depend on ``max_rows``, on the other
        rows or on ``n_jobs``). numpy's global RNG is left as it was.

    Returns
    -------
    ShapResult

    Raises
    ------
    ValueError
        Malformed ``X`` / ``X_background`` (not 2-D, wrong number of features,
        NaN), unknown ``algorithm`` or one that does not fit the model, missing
        ``X_background``, invalid sizes, ``link`` or ``proba_clip``, non-binary
        classifiers, ``interactions=True`` for a non-tree algorithm.
    sklearn.exceptions.NotFittedError
        If ``estimator`` is not fitted.
    RuntimeError
        If local accuracy fails (``|base + sum(values) - model_output|`` above a
        tolerance relative to the magnitude of the terms: 1e-5 for XGBoost's
        float32, 1e-8 or tighter otherwise) - a sign of an unsupported model.
    """
    from sklearn.base import BaseEstimator
    from sklearn.utils.validation import check_is_fitted

    if not isinstance(estimator, BaseEstimator) and not _is_xgboost(estimator):
        raise ValueError(f"estimator must be a fitted scikit-learn compatible model, got {type(estimator).__name__}")
    check_is_fitted(estimator)
    est = final_estimator(estimator)
    n_in = getattr(estimator, "n_features_in_", getattr(est, "n_features_in_", None))
    Xa = _as_matrix(X, "X", n_in)
    p = Xa.shape[1]
    names = _feature_names(X, estimator, p, feature_names)
    max_rows = _positive_int(max_rows, "max_rows")
    background_size = _positive_int(background_size, "background_size")
    chunk_size = _positive_int(chunk_size, "chunk_size")
    n_permutations = _positive_int(n_permutations, "n_permutations")
    n_coalitions = _positive_int(n_coalitions, "n_coalitions")
    n_jobs = 1 if n_jobs is None else n_jobs
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, (int, np.integer)) or n_jobs == 0 or n_jobs < -1:
        raise ValueError(f"n_jobs must be a positive integer or -1, got {n_jobs}")
    if not (isinstance(proba_clip, (float, int)) and 0.0 < proba_clip < 0.5):
        raise ValueError(f"proba_clip must lie in (0, 0.5), got {proba_clip!r}")
    if link not in ("auto", "logit", "identity"):
        raise ValueError(f"link must be 'auto', 'logit' or 'identity', got {link!r}")

    if algorithm == "auto":
        algorithm = _auto_algorithm(est)
    if algorithm not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {algorithm!r}; expected 'auto' or one of {list(ALGORITHMS)}")
    if algorithm == "xgboost_pred_contribs" and not _is_xgboost(est):
        raise ValueError(f"algorithm 'xgboost_pred_contribs' needs an XGBoost model, got {type(est).__name__}")
    if algorithm == "tree_explainer" and _sklearn_tree_kind(est) is None:
        raise ValueError(
            f"algorithm 'tree_explainer' supports scikit-learn decision trees, random forests and "
            f"gradient boosting, got {type(est).__name__}"
        )
    if algorithm == "linear_explainer" and not _is_linear(est):
        raise ValueError(f"algorithm 'linear_explainer' needs LinearRegression or LogisticRegression, got {type(est).__name__}")
    if interactions and algorithm not in ("xgboost_pred_contribs", "tree_explainer"):
        raise ValueError(f"interaction values are available for tree models only, not for algorithm {algorithm!r}")
    if algorithm not in ("permutation", "kernel") and link != "auto":
        natural = "logit" if (_is_classifier(est) and not (algorithm == "tree_explainer"
                              and _sklearn_tree_kind(est) != "gradient_boosting")) else "identity"
        if link != natural:
            raise ValueError(
                f"algorithm {algorithm!r} explains this model in its {natural!r} space only; got link={link!r}"
            )

    rows = _subsample(Xa.shape[0], max_rows, _rng(random_state, 1))
    Xe = Xa[rows]

    background, background_index = None, None
    if algorithm in ("linear_explainer", "permutation", "kernel"):
        if X_background is None:
            raise ValueError(f"algorithm {algorithm!r} needs X_background (the training rows)")
        Ba = _as_matrix(X_background, "X_background", p)
        size = background_size
        if size is None and algorithm != "linear_explainer":
            size = DEFAULT_BACKGROUND_SIZE
        idx = _subsample(Ba.shape[0], size, _rng(random_state, 2))
        background = Ba[idx]
        if idx.size < Ba.shape[0]:
            background_index = [int(i) for i in idx]

    if algorithm == "xgboost_pred_contribs":
        fields = _explain_xgboost(estimator, Xe, interactions)
    elif algorithm == "tree_explainer":
        fields = _explain_sklearn_trees(estimator, Xe, interactions, chunk_size, n_jobs)
    elif algorithm == "linear_explainer":
        fields = _explain_linear(estimator, Xe, background)
    else:
        fields = _explain_agnostic(estimator, Xe, rows, Xa.shape[0], background, algorithm, link, float(proba_clip),
                                   n_permutations, n_coalitions, n_jobs, random_state, names)

    rtol = fields.pop("_rtol")
    values, base, out = fields["values"], fields["base_values"], fields["model_output"]
    error = np.abs(base + values.sum(axis=1) - out)
    scale = np.abs(base) + np.abs(values).sum(axis=1) + np.abs(out)
    max_error = float(error.max())
    if np.any(error > rtol * np.maximum(scale, 1.0)):
        i = int(np.argmax(error / np.maximum(scale, 1.0)))
        raise RuntimeError(
            f"local accuracy failed for {type(est).__name__} with {algorithm}: row {int(rows[i])} has "
            f"base + sum(SHAP) = {base[i] + values[i].sum():.10g} but model output {out[i]:.10g}"
        )
    details = dict(fields.pop("details"))
    details.update(max_abs_additivity_error=max_error, random_state=int(random_state),
                   max_rows=max_rows, n_rows_in_X=int(Xa.shape[0]))
    if background is not None:
        # positions of the background rows in X_background (None: all rows)
        details["background_index"] = background_index
    return ShapResult(
        data=Xe,
        feature_names=names,
        row_index=rows.astype(np.int64),
        algorithm=algorithm,
        estimator=type(est).__name__,
        details=details,
        **fields,
    )


# --------------------------------------------------------------------------- #
# tidy outputs
# --------------------------------------------------------------------------- #
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
