"""The SHAP algorithms behind :func:`~xaipipe.explain.shapley.shap_values`.

Each ``_explain_*`` function returns a dict of :class:`ShapResult` fields; the
family registry (:mod:`xaipipe.models.families`) says which algorithm fits a
model and how its output is read (forest / boosting prefix kinds, exact
log-odds, the degree of its output).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

if TYPE_CHECKING:  # scikit-learn is imported where used
    from sklearn.base import BaseEstimator

from ...models.families import Family, family_of, final_estimator
from ...models.output import _is_classifier, _model_input
from ...models.output import model_output as output_function

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


def _family(estimator) -> Family | None:
    return family_of(estimator)


def auto_algorithm(est) -> str:
    """The algorithm of ``algorithm="auto"``: the family's ``shap_algorithm``
    (:mod:`xaipipe.models.families`), ``"permutation"`` for unregistered models."""
    fam = _family(est)
    return fam.shap_algorithm if fam is not None else "permutation"


def _prefix_kind(est) -> str | None:
    fam = _family(est)
    return None if fam is None else fam.prefix


def _prediction(estimator) -> Callable:
    f = output_function(estimator, "predict")

    def prediction(Z):
        return np.asarray(f(Z), dtype=np.float64).reshape(-1)

    return prediction


def _class1_log_odds(estimator, proba_clip: float) -> tuple[Callable, str]:
    """``f(Z) -> log-odds of class 1`` of a fitted binary classifier and its source:
    exact where the family declares it (:func:`xaipipe.models.output.model_output`),
    otherwise the logit of the clipped class-1 probability."""
    f = output_function(estimator, "logit", clip=proba_clip)
    return f, getattr(f, "source", f"clipped_probability(eps={proba_clip:g})")


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


def _check_binary(estimator: BaseEstimator) -> None:
    classes = getattr(final_estimator(estimator), "classes_", None)
    if classes is None or len(classes) != 2 or not np.array_equal(np.asarray(classes), [0, 1]):
        raise ValueError(
            "only binary classifiers with classes [0, 1] (positive class coded 1) are supported, "
            f"got classes_={None if classes is None else list(classes)}"
        )


def _n_classes(estimator) -> int | None:
    """Number of classes of a fitted classifier (None for a regressor or a model without ``classes_``)."""
    classes = getattr(final_estimator(estimator), "classes_", None)
    return None if classes is None else len(classes)


def check_class_index(estimator, class_index) -> int | None:
    """The class a classifier's SHAP values explain: None for a binary classifier (class 1,
    the positive class, as always), ``k`` for a multiclass one.

    Raises
    ------
    ValueError
        A binary classifier without classes ``[0, 1]`` or with ``class_index`` other than
        None / 1; a multiclass classifier whose classes are not ``0 .. K-1`` or without a
        ``class_index`` in that range.
    """
    K = _n_classes(estimator)
    if K is None or K <= 2:
        _check_binary(estimator)
        if class_index not in (None, 1):
            raise ValueError(f"a binary classifier is explained for class 1; got class_index={class_index!r}")
        return None
    classes = np.asarray(final_estimator(estimator).classes_)
    if not np.array_equal(classes, np.arange(K)):
        raise ValueError(f"multiclass classifiers need classes 0..{K - 1}, got classes_={classes.tolist()}")
    if isinstance(class_index, bool) or not isinstance(class_index, (int, np.integer)) or not 0 <= class_index < K:
        raise ValueError(
            f"a {K}-class classifier is explained one class at a time: give class_index in 0..{K - 1}, "
            f"got {class_index!r}"
        )
    return int(class_index)


def _rng(random_state: int, stream: int) -> np.random.Generator:
    """Independent generator per purpose (rows, background, explainer seeds)."""
    return np.random.default_rng([stream, int(random_state)])


def _subsample(n: int, size: int | None, rng: np.random.Generator) -> np.ndarray:
    if size is None or size >= n:
        return np.arange(n)
    return np.sort(rng.choice(n, size=size, replace=False))


# algorithms; each returns a dict of ShapResult fields
# --------------------------------------------------------------------------- #
def _xgb_iteration_range(est) -> tuple[int, int]:
    try:
        return (0, int(est.best_iteration) + 1)
    except AttributeError:
        return (0, 0)


def _explain_xgboost(estimator, Xe, interactions: bool, class_index: int | None = None) -> dict:
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
        if class_index is None:
            raise ValueError(f"multi-class XGBoost objective {objective!r}: give class_index (the explained class)")
        output, link = "margin", "softmax"
    else:
        output, link = "margin", f"objective:{objective}"
    it = _xgb_iteration_range(est)
    dm = xgb.DMatrix(_tree_input(estimator, Xe))
    contribs = booster.predict(dm, pred_contribs=True, iteration_range=it, validate_features=False)
    margin = booster.predict(dm, output_margin=True, iteration_range=it, validate_features=False)
    if objective.startswith("multi:"):  # (n, K, p + 1) and (n, K): the explained class's margin
        contribs, margin = contribs[:, class_index, :], margin[:, class_index]
    inter = None
    if interactions:
        full = booster.predict(dm, pred_interactions=True, iteration_range=it, validate_features=False)
        if objective.startswith("multi:"):
            full = full[:, class_index]
        inter = np.asarray(full[:, :-1, :-1], dtype=np.float64)
    details = {
        "objective": objective,
        "iteration_range": list(it),
        "dtype": "float32",
        "n_trees": int(booster.num_boosted_rounds()),
        **({} if class_index is None else {"class_index": class_index}),
    }
    # XGBoost adds its contributions in float32: a looser local-accuracy tolerance
    return _tree_fields(contribs[:, :-1], contribs[:, -1], margin, inter, (output, link), details, rtol=1e-5)


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


def _forest_shap_parts(forest, Xe, class_index, interactions, chunks, n_jobs) -> list:
    """TreeSHAP of each sub-forest ``chunks`` (:func:`forest_chunks`), in order. The sub-forests
    are made as they are explained, so a forest opened from a forest store
    (:func:`xaipipe.models.forest_store.open_forest`) holds one chunk's trees at a time (sequential)."""
    tasks = (_subforest(forest, a, b) for a, b in chunks)
    if n_jobs == 1 or len(chunks) == 1:
        return [_tree_shap_task(m, Xe, class_index, interactions) for m in tasks]
    from joblib import Parallel, delayed

    # joblib's default backend (loky processes) unless the caller chose another one with
    # joblib.parallel_config
    return Parallel(n_jobs=n_jobs, prefer="processes")(
        delayed(_tree_shap_task)(m, Xe, class_index, interactions) for m in tasks
    )


def forest_chunks(n_trees: int, chunk_size: int) -> list[tuple[int, int]]:
    """Contiguous ``[start, stop)`` tree ranges of at most ``chunk_size`` trees."""
    return [(a, min(a + chunk_size, n_trees)) for a in range(0, n_trees, chunk_size)]


def _boosting_class_model(est, k: int) -> dict:
    """Class ``k``'s raw score of a multiclass gradient boosting model as a shap tree-ensemble
    dictionary: ``init_k + learning_rate * sum_t tree_{t,k}(x)`` (shap's TreeExplainer reads
    binary gradient boosting only; this is its own binary construction applied to one class's
    trees, with scikit-learn's float32 split inputs)."""
    trees = []
    for member in est.estimators_[:, k]:
        t = member.tree_
        trees.append(
            {
                "children_left": t.children_left,
                "children_right": t.children_right,
                "children_default": t.children_left,
                "features": t.feature,
                "thresholds": t.threshold,
                "values": t.value[:, 0, :] * est.learning_rate,
                "node_sample_weight": t.weighted_n_node_samples.astype(np.float64),
            }
        )
    init = np.zeros((1, est.n_features_in_), dtype=np.float32)
    offset = float(np.asarray(est._raw_predict_init(init), dtype=np.float64)[0, k])
    return {
        "trees": trees,
        "base_offset": offset,
        "input_dtype": np.float32,
        "internal_dtype": np.float64,
        "tree_output": "raw_value",
    }


def _forest_tree_shap(est, Xe, class_index, interactions: bool, chunk_size, n_jobs: int, details: dict) -> tuple:
    """TreeSHAP of a random forest / extra trees in chunks of trees (:func:`forest_chunks`), one
    :func:`_tree_shap_task` per chunk (:func:`_forest_shap_parts`: serially, or in ``n_jobs``
    processes; a forest store is read one chunk at a time), averaged with weights
    ``trees in chunk / n_trees``: the forest's values, base value and interaction values (None
    without ``interactions``) of output ``class_index`` (None: a regressor's prediction). Records
    ``n_trees``, ``chunk_size``, ``n_chunks`` and ``n_jobs`` in ``details``."""
    n_trees = len(est.estimators_)
    size = chunk_size or DEFAULT_CHUNK_SIZE
    chunks = forest_chunks(n_trees, size)
    parts = _forest_shap_parts(est, Xe, class_index, interactions, chunks, n_jobs)
    weights = [(b - a) / n_trees for a, b in chunks]
    values = sum(w * v for w, (v, _, _) in zip(weights, parts))
    base = sum(w * b for w, (_, b, _) in zip(weights, parts))
    inter = sum(w * i for w, (_, _, i) in zip(weights, parts)) if interactions else None
    details.update(n_trees=n_trees, chunk_size=size, n_chunks=len(chunks), n_jobs=n_jobs)
    return values, base, inter


def _explain_sklearn_trees(
    estimator, Xe, interactions: bool, chunk_size: int | None, n_jobs: int, class_index: int | None = None
) -> dict:
    est = final_estimator(estimator)
    Xe = _tree_input(estimator, Xe)
    kind = _prefix_kind(est)
    classifier = _is_classifier(est)
    if class_index is not None:  # multiclass: one class's raw score (boosting) or probability
        return _explain_trees_class(est, Xe, interactions, chunk_size, n_jobs, kind, class_index)
    if classifier:
        _check_binary(est)
    if kind == "boosting":
        class_index = None
        output, link = ("log_odds", "logit") if classifier else ("prediction", "identity")
    else:
        class_index = 1 if classifier else None
        output, link = ("probability", "identity") if classifier else ("prediction", "identity")
    details: dict[str, Any] = {}

    if kind == "forest":
        values, base, inter = _forest_tree_shap(est, Xe, class_index, interactions, chunk_size, n_jobs, details)
    else:
        values, base, inter = _tree_shap_task(est, Xe, class_index, interactions)
        details["n_trees"] = int(getattr(est, "n_estimators_", 1))

    if output == "log_odds":
        model_output = est.decision_function(_model_input(est, Xe))
    elif output == "probability":
        model_output = est.predict_proba(_model_input(est, Xe))[:, 1]
    else:
        model_output = est.predict(_model_input(est, Xe))
    return _tree_fields(values, np.full(Xe.shape[0], float(base)), model_output, inter, (output, link), details)


def _explain_trees_class(est, Xe, interactions, chunk_size, n_jobs, kind, k) -> dict:
    """:func:`_explain_sklearn_trees` of class ``k`` of a multiclass model: gradient boosting's raw
    score of the class (the softmax margin), a tree's or forest's probability of the class."""
    details: dict[str, Any] = {"class_index": k}
    if kind == "boosting":
        model = _boosting_class_model(est, k)
        values, base, inter = _tree_shap_task(model, Xe, None, interactions)
        model_output = np.asarray(est.decision_function(_model_input(est, Xe)), dtype=np.float64)[:, k]
        output, link = "margin", "softmax"
        details["n_trees"] = int(est.n_estimators_)
    else:
        if kind == "forest":
            values, base, inter = _forest_tree_shap(est, Xe, k, interactions, chunk_size, n_jobs, details)
        else:
            values, base, inter = _tree_shap_task(est, Xe, k, interactions)
            details["n_trees"] = 1
        model_output = np.asarray(est.predict_proba(_model_input(est, Xe)), dtype=np.float64)[:, k]
        output, link = "probability", "identity"
    return _tree_fields(values, np.full(Xe.shape[0], float(base)), model_output, inter, (output, link), details)


def _tree_fields(values, base_values, model_output, inter, space, details, rtol: float = 1e-9) -> dict:
    """The fields of a path-dependent TreeSHAP result (``space``: its ``(output, link)``; ``rtol``: the
    local-accuracy tolerance of :func:`~xaipipe.explain.shapley.shap_values`)."""
    output, link = space
    return dict(
        values=np.asarray(values, dtype=np.float64),
        base_values=np.asarray(base_values, dtype=np.float64),
        model_output=np.asarray(model_output, dtype=np.float64).reshape(-1),
        interaction_values=inter,
        output=output,
        link=link,
        feature_perturbation="tree_path_dependent",
        background_size=0,
        details=details,
        _rtol=rtol,
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


def _explain_linear(estimator, Xe, background, class_index: int | None = None) -> dict:
    from sklearn.pipeline import Pipeline

    _check_scaler_pipeline(estimator)
    est = final_estimator(estimator)
    classifier = _is_classifier(est)
    if class_index is not None:
        return _explain_linear_class(estimator, est, Xe, background, class_index)
    if classifier:
        _check_binary(est)
    coef = np.asarray(est.coef_, dtype=np.float64)
    if coef.ndim == 2 and coef.shape[0] != 1:
        raise ValueError(f"linear_explainer needs a single-output linear model, coef_ has shape {coef.shape}")
    explainer, Xt, Bt = _linear_explainer(estimator, est, Xe, background)
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


def _linear_explainer(estimator, est, Xe, background):
    """``shap.LinearExplainer`` of the final linear model ``est`` on the background ``Bt`` and the
    rows ``Xt`` it explains (``Xe`` / ``background`` through a pipeline's scaler, if any)."""
    import shap
    from sklearn.pipeline import Pipeline

    if isinstance(estimator, Pipeline):
        Xt = np.asarray(estimator[:-1].transform(_model_input(estimator, Xe)), dtype=np.float64)
        Bt = np.asarray(estimator[:-1].transform(_model_input(estimator, background)), dtype=np.float64)
    else:
        Xt, Bt = Xe, background
    masker = shap.maskers.Independent(Bt, max_samples=Bt.shape[0])
    return shap.LinearExplainer(est, masker), Xt, Bt


def _explain_linear_class(estimator, est, Xe, background, k: int) -> dict:
    """Linear SHAP of class ``k``'s score ``w_k . z + b_k`` of a multinomial logistic model (the
    softmax margin, ``decision_function[:, k]``): ``phi_j = w_kj (z_j - mean z_j)``."""
    from sklearn.pipeline import Pipeline

    coef = np.asarray(est.coef_, dtype=np.float64)
    if coef.ndim != 2 or coef.shape[0] <= k:
        raise ValueError(f"linear_explainer: class {k} needs one coefficient row per class, coef_ has {coef.shape}")
    explainer, Xt, Bt = _linear_explainer(estimator, est, Xe, background)
    values = np.asarray(explainer.shap_values(Xt), dtype=np.float64)[..., k]
    base = float(np.asarray(explainer.expected_value, dtype=np.float64).reshape(-1)[k])
    model_output = np.asarray(estimator.decision_function(_model_input(estimator, Xe)), dtype=np.float64)[:, k]
    return dict(
        values=values,
        base_values=np.full(Xe.shape[0], base),
        model_output=model_output,
        interaction_values=None,
        output="margin",
        link="softmax",
        feature_perturbation="interventional",
        background_size=int(Bt.shape[0]),
        details={"scaled_pipeline": isinstance(estimator, Pipeline), "class_index": k},
        _rtol=1e-9,
    )


@contextmanager
def _global_numpy_seed(random_state: int) -> Iterator[None]:
    """Seed NumPy's global (legacy) random state inside the block, restore it after.

    For the parts of shap that draw from ``np.random`` and take no seed (the
    model-agnostic explainers here, the beeswarm and scatter plots in
    :mod:`xaipipe.plots.shap`): their results are reproducible and the
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


def _agnostic_block(
    algorithm: str,
    f: Callable,
    background: np.ndarray,
    X: np.ndarray,
    seeds: Sequence[int],
    budget: int,
    feature_names: Sequence[str],
):
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
                f,
                masker,
                link=shap.links.identity,
                linearize_link=False,
                seed=int(seeds[0]),
                feature_names=list(feature_names),
            )
            for i, seed in enumerate(seeds):
                np.random.seed(int(seed))
                exp = explainer(X[i : i + 1], max_evals=budget, silent=True)
                values[i] = np.asarray(exp.values, dtype=np.float64).reshape(-1)
                base[i] = float(np.asarray(exp.base_values).reshape(-1)[0])
        else:
            explainer = shap.KernelExplainer(f, background, link="identity")
            for i, seed in enumerate(seeds):
                np.random.seed(int(seed))
                v = explainer.shap_values(X[i : i + 1], nsamples=budget, l1_reg=False, silent=True)
                values[i] = np.asarray(v, dtype=np.float64).reshape(-1)
                base[i] = float(np.asarray(explainer.expected_value).reshape(-1)[0])
    return values, base


def _second_order(estimator: BaseEstimator, output: str) -> bool:
    """True when the explained output is a polynomial of degree <= 2 in the
    features, so one antithetic permutation pair gives exact SHAP values.

    The family registry records the degree (``output_degree``): Gaussian naive
    Bayes log-odds are a sum of per-feature quadratics (additive), QDA's are a
    quadratic form and logistic regression's are linear (after any per-feature
    affine scaling); linear regression predicts linearly; an EBM's output is a
    sum of terms of one or two variables (no polynomial, but the same pairwise
    structure, which is all the argument below uses). A game whose players
    interact at most pairwise is a sum of one- and two-player games, and a
    forward + reverse pass over any permutation gives each two-player term both
    orders, hence its exact Shapley split.
    """
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import StandardScaler

    if isinstance(estimator, Pipeline) and not all(
        s is None or s == "passthrough" or isinstance(s, StandardScaler) for _, s in estimator.steps[:-1]
    ):
        return False
    fam = _family(estimator)
    if fam is None or fam.output_degree is None or fam.output_degree > 2:
        return False
    return output == ("log_odds" if _is_classifier(final_estimator(estimator)) else "prediction")


def _explain_agnostic(
    estimator,
    Xe,
    rows,
    n_rows_in_X,
    background,
    algorithm,
    options,
    n_jobs,
    random_state,
    feature_names,
    class_index: int | None = None,
) -> dict:
    """The permutation / kernel explainer's fields; ``options``: the validated :class:`ShapOptions`."""
    link, proba_clip = options.link, options.proba_clip
    n_permutations, n_coalitions = options.n_permutations, options.n_coalitions
    p = Xe.shape[1]
    details: dict[str, Any] = {}
    if class_index is not None:  # multiclass: class k's one-vs-rest log-odds logit(p_k), or p_k
        link = "logit" if link == "auto" else link
        details["class_index"] = class_index
        if link == "logit":
            f = output_function(estimator, "logit", class_index=class_index, clip=proba_clip)
            output = "log_odds"
            details["log_odds_source"] = getattr(f, "source", f"clipped_probability(eps={proba_clip:g})")
        else:
            f, output = output_function(estimator, "proba", class_index=class_index), "probability"
    elif _is_classifier(estimator):
        _check_binary(estimator)
        link = "logit" if link == "auto" else link
        if link == "logit":
            f, source = _class1_log_odds(estimator, proba_clip)
            output = "log_odds"
            details["log_odds_source"] = source
        else:
            f, output = output_function(estimator, "proba"), "probability"
    else:
        if link not in ("auto", "identity"):
            raise ValueError(f"link={link!r} is only meaningful for classifiers; a regressor is explained as is")
        link, f, output = "identity", _prediction(estimator), "prediction"
    if algorithm == "permutation":
        if n_permutations is None:
            # a class's log-odds in a multiclass model involve every class (log-sum-exp): not second order
            second = class_index is None and _second_order(estimator, output)
            n_permutations = 1 if second else DEFAULT_N_PERMUTATIONS
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
    details.update(
        row_seeds="numpy.random.SeedSequence([3, random_state]).generate_state(n_rows_in_X)[row]", n_jobs=n_jobs
    )
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
