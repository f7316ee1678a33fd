"""The entry point :func:`shap_values` (the package docstring: algorithms, output spaces)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # scikit-learn is imported where used: the figure rules load this package without it
    from sklearn.base import BaseEstimator

from ...models.families import family_of, final_estimator
from ...models.output import _is_classifier
from ...validation import check_int, check_matrix
from ._algorithms import (
    ALGORITHMS,
    DEFAULT_BACKGROUND_SIZE,
    _explain_agnostic,
    _explain_linear,
    _explain_sklearn_trees,
    _explain_xgboost,
    _feature_names,
    _prefix_kind,
    _rng,
    _subsample,
    auto_algorithm,
    check_class_index,
)
from ._result import (
    ShapResult,
)

__all__ = ["ShapOptions", "shap_values"]


def _positive_int(value, name: str) -> int | None:
    try:
        return check_int(value, name, minimum=1, allow_none=True)
    except TypeError as exc:
        raise ValueError(str(exc)) from None


@dataclass(frozen=True)
class ShapOptions:
    """The rarely changed options of :func:`shap_values`, in one keyword.

    Parameters
    ----------
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
    """

    link: str = "auto"
    proba_clip: float = 1e-6
    n_permutations: int | None = None
    n_coalitions: int | None = None
    chunk_size: int | None = None


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
    n_jobs: int | None = 1,
    random_state: int = 0,
    class_index: int | None = None,
    options: ShapOptions | None = None,
) -> ShapResult:
    """SHAP values of a fitted model on rows ``X`` (module docstring: algorithms).

    Parameters
    ----------
    estimator : fitted estimator
        A model of :mod:`xaipipe.models.families` (possibly a ``Pipeline``);
        classifiers are binary with classes ``[0, 1]`` (class 1 is explained) or
        multiclass with classes ``0 .. K-1`` (``class_index`` chooses the class).
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
    class_index : int, optional
        Multiclass classifiers only (required there): the class ``k`` whose output
        is explained (module docstring, "Multiclass models"); recorded in
        ``details["class_index"]``. None (or 1) for a binary classifier.
    options : ShapOptions, optional
        The rarely changed options (:class:`ShapOptions`: ``link``, ``proba_clip``,
        ``n_permutations``, ``n_coalitions``, ``chunk_size``). None: ``ShapOptions()``.

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

    opts = ShapOptions() if options is None else options
    fam = family_of(estimator)
    if not isinstance(estimator, BaseEstimator) and fam is None:
        raise ValueError(f"estimator must be a fitted scikit-learn compatible model, got {type(estimator).__name__}")
    check_is_fitted(estimator)
    est = final_estimator(estimator)
    n_in = getattr(estimator, "n_features_in_", getattr(est, "n_features_in_", None))
    Xa = check_matrix(X, "X", n_features=n_in)
    p = Xa.shape[1]
    names = _feature_names(X, estimator, p, feature_names)
    max_rows = _positive_int(max_rows, "max_rows")
    background_size = _positive_int(background_size, "background_size")
    chunk_size = _positive_int(opts.chunk_size, "chunk_size")
    n_permutations = _positive_int(opts.n_permutations, "n_permutations")
    n_coalitions = _positive_int(opts.n_coalitions, "n_coalitions")
    n_jobs = _check_n_jobs(n_jobs)
    link, proba_clip = _check_link(opts.link, opts.proba_clip)
    if _is_classifier(est):
        class_index = check_class_index(est, class_index)
    elif class_index is not None:
        raise ValueError(f"class_index applies to classifiers; {type(est).__name__} is a regressor")
    algorithm = _check_algorithm(est, fam, algorithm, interactions, link, class_index)

    rows = _subsample(Xa.shape[0], max_rows, _rng(random_state, 1))
    Xe = Xa[rows]
    background, background_index = _background(algorithm, X_background, p, background_size, random_state)

    # multiclass: the class goes to each algorithm; binary and regression calls are unchanged
    extra = {} if class_index is None else {"class_index": class_index}
    if algorithm == "xgboost_pred_contribs":
        fields = _explain_xgboost(estimator, Xe, interactions, **extra)
    elif algorithm == "tree_explainer":
        fields = _explain_sklearn_trees(estimator, Xe, interactions, chunk_size, n_jobs, **extra)
    elif algorithm == "linear_explainer":
        fields = _explain_linear(estimator, Xe, background, **extra)
    else:
        fields = _explain_agnostic(
            estimator,
            Xe,
            rows,
            Xa.shape[0],
            background,
            algorithm,
            ShapOptions(link, float(proba_clip), n_permutations, n_coalitions, chunk_size),
            n_jobs,
            random_state,
            names,
            **extra,
        )

    max_error = _check_local_accuracy(fields, est, algorithm, rows)
    details = dict(fields.pop("details"))
    details.update(
        max_abs_additivity_error=max_error,
        random_state=int(random_state),
        max_rows=max_rows,
        n_rows_in_X=int(Xa.shape[0]),
    )
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
# the steps of shap_values


def _check_n_jobs(n_jobs):
    n_jobs = 1 if n_jobs is None else n_jobs
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, (int, np.integer)) or n_jobs == 0 or n_jobs < -1:
        raise ValueError(f"n_jobs must be a positive integer or -1, got {n_jobs}")
    return n_jobs


def _check_link(link, proba_clip):
    if not (isinstance(proba_clip, (float, int)) and 0.0 < proba_clip < 0.5):
        raise ValueError(f"proba_clip must lie in (0, 0.5), got {proba_clip!r}")
    if link not in ("auto", "logit", "identity"):
        raise ValueError(f"link must be 'auto', 'logit' or 'identity', got {link!r}")
    return link, proba_clip


def _check_algorithm(est, fam, algorithm: str, interactions: bool, link: str, class_index) -> str:
    """The algorithm (``"auto"`` resolved by the family registry), checked against the model,
    ``interactions`` and ``link``."""
    if algorithm == "auto":
        algorithm = auto_algorithm(est)
    if algorithm not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {algorithm!r}; expected 'auto' or one of {list(ALGORITHMS)}")
    native = auto_algorithm(est)  # the family's own algorithm (registry)
    if algorithm == "xgboost_pred_contribs" and native != algorithm:
        raise ValueError(f"algorithm 'xgboost_pred_contribs' needs an XGBoost model, got {type(est).__name__}")
    if algorithm == "tree_explainer" and native != algorithm:
        raise ValueError(
            f"algorithm 'tree_explainer' supports the tree families of the registry (scikit-learn decision "
            f"trees, forests and gradient boosting), got {type(est).__name__}"
        )
    if algorithm == "linear_explainer" and not (fam is not None and fam.linear):
        raise ValueError(
            f"algorithm 'linear_explainer' needs a linear family (linear or logistic regression), "
            f"got {type(est).__name__}"
        )
    if interactions and algorithm not in ("xgboost_pred_contribs", "tree_explainer"):
        raise ValueError(f"interaction values are available for tree models only, not for algorithm {algorithm!r}")
    _check_fixed_link(est, algorithm, link, class_index)
    return algorithm


def _check_fixed_link(est, algorithm: str, link: str, class_index) -> None:
    """An algorithm with a fixed output space takes ``link="auto"`` or that space's link only."""
    if algorithm not in ("permutation", "kernel") and link != "auto" and class_index is not None:
        raise ValueError(
            f"algorithm {algorithm!r} explains a class of a multiclass model in its own space (margin or "
            f"probability); link must be 'auto', got {link!r}"
        )
    if algorithm not in ("permutation", "kernel") and link != "auto":
        natural = (
            "logit"
            if (_is_classifier(est) and not (algorithm == "tree_explainer" and _prefix_kind(est) != "boosting"))
            else "identity"
        )
        if link != natural:
            raise ValueError(
                f"algorithm {algorithm!r} explains this model in its {natural!r} space only; got link={link!r}"
            )


def _background(algorithm: str, X_background, p: int, background_size, random_state):
    """The background rows of the interventional explainers and their positions in
    ``X_background`` (None: all rows); ``(None, None)`` for path-dependent TreeSHAP."""
    background, background_index = None, None
    if algorithm in ("linear_explainer", "permutation", "kernel"):
        if X_background is None:
            raise ValueError(f"algorithm {algorithm!r} needs X_background (the training rows)")
        Ba = check_matrix(X_background, "X_background", n_features=p)
        size = background_size
        if size is None and algorithm != "linear_explainer":
            size = DEFAULT_BACKGROUND_SIZE
        idx = _subsample(Ba.shape[0], size, _rng(random_state, 2))
        background = Ba[idx]
        if idx.size < Ba.shape[0]:
            background_index = [int(i) for i in idx]
    return background, background_index


def _check_local_accuracy(fields: dict, est, algorithm: str, rows) -> float:
    """The largest ``|base + sum(values) - output|`` (``fields`` loses its ``_rtol``); RuntimeError
    above the algorithm's tolerance."""
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
    return max_error
