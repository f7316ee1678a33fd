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

Algorithms (``algorithm="auto"`` takes the family's ``shap_algorithm``, :mod:`xaipipe.models.families`)
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

Multiclass models
-----------------
A classifier with ``K > 2`` classes (coded ``0 .. K-1``) has one output per class and is explained
one class at a time (``class_index=k``; :func:`shap_tables` with ``classes`` does every class).
The explained output of class ``k`` is the one the model computes: XGBoost's margin of class ``k``
(``pred_contribs``), gradient boosting's raw score ``init_k + lr * sum_t tree_{t,k}(x)`` (shap reads
binary gradient boosting only, so the class's trees are handed to TreeSHAP as their own ensemble,
exactly), a tree's or forest's probability of class ``k``, the multinomial score ``w_k . z + b_k``
of logistic regression (Linear SHAP), and for the model-agnostic explainers the one-vs-rest
log-odds ``logit(clip(p_k))`` (or ``p_k`` with ``link="identity"``). Those log-odds are not of
degree 2 in the features for naive Bayes or QDA (a log-sum-exp over the classes), so the
permutation explainer uses :data:`DEFAULT_N_PERMUTATIONS` pairs. ``details["class_index"]``
records the class (``docs/multiclass.md``).

Feature groups (one-hot encoded categorical variables)
-----------------------------------------------------
The models see a categorical variable as its 0/1 columns (Abalone's ``Sex`` ->
``Sex_F``, ``Sex_I``, ``Sex_M``; ``prepared.json``'s ``feature_groups``), and every
algorithm above gives one SHAP value per column. :func:`group_shap_result` (and
:func:`shap_tables` with ``data.feature_groups``, the pipeline's tables and figures) reports a
group as one variable ``G`` with the value

    phi_G(x) = sum_{j in G} phi_j(x),

so that local accuracy still holds over the variables, ``base + sum_G phi_G = f(x)``
(the columns are partitioned, nothing is added or lost). This is the grouping shap itself
uses: its plots merge clustered features by adding their values
(``shap.plots.bar`` / ``beeswarm`` with ``clustering``), Lundberg recommends the sum for
one-hot columns (shap issues #397 and #679), and the interaction value of two groups is
the sum over their block of the interaction matrix (shap issue #1342). The mean |SHAP|
of a group is the mean over rows of ``|phi_G(x)|``, taken after summing.

What the sum is *not*, in general: the Shapley value of the game in which the group is
one player (the quotient game ``v_P(T) = v(union of the groups in T)``, whose
coalitions switch all of a group's columns together, so that no row with two levels
set is ever evaluated). That value is also the group's total of the Owen value for
the coalition structure of the groups (Owen 1977, "Values of games with a priori
unions"; the quotient-game property), which shap's ``PartitionExplainer`` computes for
a partition tree. Writing the game through its Harsanyi dividends ``d_T``, the sum is
``sum_T d_T |T & G| / |T|`` and the quotient-game value ``sum_{T meets G} d_T / (number
of groups T meets)``. The two agree when every coalition with a dividend either lies
inside one group or takes at most one column of each group it meets (then both
fractions are ``1 / |T|``, or 1) - in particular for additive games (Linear SHAP of a
linear or logistic model, ``phi_G = sum_{j in G} w_j (x_j - mean_b x_j)``) - and
differ in general otherwise (a tree whose paths split on two of the group's columns
and on another feature: its dividend on ``{Sex_F, Sex_M, Length}`` gives the group
2/3 in the sum and 1/2 in the quotient game). The tests show both cases against
brute-force Shapley values.

:class:`GroupedShapResult` keeps the per-column result in ``columns`` (nothing is
lost), the groups and the level labels; its ``data`` holds a one-hot group's level
code (the position of the row's level in ``levels[group]``).

Departures from the seed (000, ch. 3)
-------------------------------------
000 §3.3.3 defines SHAP values with conditional expectations ``E[f(z) | z_S]``;
all explainers here use either the interventional (marginal) expectation of 000
§3.2 (linear, permutation, kernel) or the tree-path-dependent approximation of
the conditional expectation (TreeSHAP).  ``feature_perturbation`` records which.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # scikit-learn is imported where used: the figure rules load this package without it
    import pandas as pd
    from sklearn.base import BaseEstimator

from ...config.shap import ShapSettings
from ...models.families import family_of, final_estimator
from ...models.output import _is_classifier
from ...validation import check_int
from ..classes import class_choice  # re-exported: the class of a one-output step
from ._algorithms import (
    ALGORITHMS,
    DEFAULT_BACKGROUND_SIZE,
    _as_matrix,
    _explain_agnostic,
    _explain_linear,
    _explain_sklearn_trees,
    _explain_xgboost,
    _feature_names,
    _global_numpy_seed,  # noqa: F401  (used by xaipipe.plots.shap)
    _prefix_kind,
    _rng,
    _subsample,
    auto_algorithm,
    check_class_index,
    forest_chunks,
)
from ._groups import group_shap_result
from ._result import (
    GroupedShapResult,
    ShapClasses,
    ShapResult,
    class_result,
    global_importance,
    importance_subsample_se,
    interaction_frame,
    level_labels,
    result_metadata,
    row_frame,
    tidy_frame,
)
from ._trees import forest_n_trees, tree_sample_se, tree_sample_shap

__all__ = [
    "ALGORITHMS",
    "ShapClasses",
    "GroupedShapResult",
    "ShapResult",
    "ShapTables",
    "auto_algorithm",
    "class_choice",
    "class_result",
    "forest_chunks",
    "global_importance",
    "group_shap_result",
    "interaction_frame",
    "level_labels",
    "result_metadata",
    "row_frame",
    "shap_tables",
    "shap_values",
    "tidy_frame",
]


def _positive_int(value, name: str) -> int | None:
    try:
        return check_int(value, name, minimum=1, allow_none=True)
    except TypeError as exc:
        raise ValueError(str(exc)) from None


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
    class_index: int | None = None,
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
    class_index : int, optional
        Multiclass classifiers only (required there): the class ``k`` whose output
        is explained (module docstring, "Multiclass models"); recorded in
        ``details["class_index"]``. None (or 1) for a binary classifier.

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

    fam = family_of(estimator)
    if not isinstance(estimator, BaseEstimator) and fam is None:
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

    if _is_classifier(est):
        class_index = check_class_index(est, class_index)
    elif class_index is not None:
        raise ValueError(f"class_index applies to classifiers; {type(est).__name__} is a regressor")
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
            link,
            float(proba_clip),
            n_permutations,
            n_coalitions,
            n_jobs,
            random_state,
            names,
            **extra,
        )

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
