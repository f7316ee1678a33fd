"""Model families: a registry of what each family is and what the pipeline can do with it.

A *family* is an estimator class (one per task) plus the fixed choices the pipeline
makes around it (random seed, scaling for scale-sensitive models, thread count)
and the *capabilities* that decide every later step. The registry, not
``isinstance`` chains, answers those questions:

=====================  ===============================================================
attribute              decides
=====================  ===============================================================
``estimators``         the class built for each task (``"module:Class"``; the tasks a
                       family supports are its keys)
``label``              the name printed in thesis tables and figures
``prefix``             exact shared-prefix evaluation of ``n_estimators``
                       (:mod:`xaipipe.models.prefix`): ``"forest"``, ``"boosting"``,
                       ``"xgboost"`` or None
``depth_chains``       exact fit sharing along ``max_depth`` (single decision trees,
                       :func:`xaipipe.models.grid.depth_chains`)
``shap_algorithm``     the SHAP algorithm chosen by ``algorithm="auto"``
                       (:mod:`xaipipe.explain.shapley`)
``engine``             model reliance by the tree engine (re-evaluates only the trees
                       that split on the permuted variable, :mod:`xaipipe.explain.reliance`)
``split_gain``         split-gain importance (``"mdi"``: scikit-learn trees;
                       ``"total_gain"``: XGBoost) or None
``linear``             a linear model (closed-form ``e_switch``, Linear SHAP)
``log_odds``           where exact class-1 log-odds come from (``"decision_function"``,
                       ``"joint_log_likelihood"``) or None (logit of the probability)
``output_degree``      degree of the explained output (prediction, or log-odds of a
                       classifier) as a polynomial of the features, when known: 1
                       (linear), 2 (naive Bayes, QDA; EBM, whose terms involve at
                       most two variables); one antithetic permutation pair then
                       gives exact SHAP values
``terms``              the model's own additive terms and their bagged error bars
                       (``"interpret"``: an EBM's ``eval_terms``, ``term_scores_`` and
                       ``standard_deviations_``; rule ``ebm_terms``,
                       :mod:`xaipipe.explain.glassbox`) or None
``fit_cost``           relative fit cost (per tree of an ensemble, else per fit), only
                       to start the longest refits first
=====================  ===============================================================

Hyperparameter values come from the ``grids`` config section, fixed constructor
options from ``estimator_options``; nothing here is a grid. Adding a family is
one :class:`Family` entry (in :data:`FAMILIES`, or at run time with
:func:`register_family`, or as a ``families.<name>`` config entry read by
:func:`register_config_families`) plus its grid in config.

Scaling: ``logistic_regression``, ``qda`` and ``knn`` are
``Pipeline([("scale", StandardScaler()), ("model", estimator)])``. For QDA this
matters because ``reg_param`` shrinks each class covariance towards the identity,
which is only meaningful on a common scale.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sklearn.base import BaseEstimator

__all__ = [
    "Family",
    "FAMILIES",
    "check_family_classes",
    "PREFIX_PARAM",
    "families_for_task",
    "family_of",
    "final_estimator",
    "get_family",
    "make_estimator",
    "register_config_families",
    "register_family",
]

#: The hyperparameter whose values are evaluated from one fit (shared prefix).
PREFIX_PARAM = "n_estimators"
#: Kinds of exact shared-prefix evaluation (:mod:`xaipipe.models.prefix`).
PREFIX_KINDS = ("forest", "boosting", "xgboost")
#: SHAP algorithms a family may name (:data:`xaipipe.explain.shapley.ALGORITHMS`).
SHAP_ALGORITHMS = ("xgboost_pred_contribs", "tree_explainer", "linear_explainer", "permutation", "kernel")
TASKS = ("regression", "classification")
#: Readers of a model's own additive terms (:mod:`xaipipe.explain.glassbox`).
TERM_KINDS = ("interpret",)


@dataclass(frozen=True)
class Family:
    """One model family of the registry (see the module docstring for what each field decides).

    Attributes
    ----------
    name : str
        Identifier used in configs, file names and tables.
    label : str
        Human-readable name (thesis tables and figures).
    estimators : mapping task -> "module:Class"
        Estimator class per supported task.
    defaults : mapping
        Constructor arguments set unless the configuration gives them.
    seeded, threaded : bool
        Pass the pipeline's seed as ``random_state`` / the job's threads as ``n_jobs``.
    scaled : bool
        Wrap the estimator in ``Pipeline([("scale", StandardScaler()), ("model", ...)])``.
    prefix : {"forest", "boosting", "xgboost"} or None
    depth_chains : bool
    shap_algorithm : str
    engine : bool
    split_gain : {"mdi", "total_gain"} or None
    linear : bool
    log_odds : {"decision_function", "joint_log_likelihood"} or None
    output_degree : int or None
    terms : {"interpret"} or None
    fit_cost : float
    """

    name: str
    label: str
    estimators: Mapping[str, str]
    defaults: Mapping[str, Any] = field(default_factory=dict)
    seeded: bool = False
    threaded: bool = False
    scaled: bool = False
    prefix: str | None = None
    depth_chains: bool = False
    shap_algorithm: str = "permutation"
    engine: bool = False
    split_gain: str | None = None
    linear: bool = False
    log_odds: str | None = None
    output_degree: int | None = None
    terms: str | None = None
    fit_cost: float = 0.01

    def __post_init__(self):
        if not self.name or not isinstance(self.name, str):
            raise ValueError(f"family name must be a non-empty string, got {self.name!r}")
        unknown = [t for t in self.estimators if t not in TASKS]
        if unknown or not self.estimators:
            raise ValueError(
                f"family {self.name!r}: estimators must map tasks {TASKS} to classes, got {dict(self.estimators)}"
            )
        if self.prefix not in (None, *PREFIX_KINDS):
            raise ValueError(f"family {self.name!r}: prefix must be one of {PREFIX_KINDS} or None, got {self.prefix!r}")
        if self.shap_algorithm not in SHAP_ALGORITHMS:
            raise ValueError(
                f"family {self.name!r}: shap_algorithm must be one of {SHAP_ALGORITHMS}, got {self.shap_algorithm!r}"
            )
        if self.split_gain not in (None, "mdi", "total_gain"):
            raise ValueError(f"family {self.name!r}: split_gain must be 'mdi', 'total_gain' or None")
        if self.terms not in (None, *TERM_KINDS):
            raise ValueError(f"family {self.name!r}: terms must be one of {TERM_KINDS} or None, got {self.terms!r}")
        if self.log_odds not in (None, "decision_function", "joint_log_likelihood"):
            raise ValueError(
                f"family {self.name!r}: log_odds must be 'decision_function', 'joint_log_likelihood' or None"
            )

    @property
    def tasks(self) -> frozenset:
        """Tasks the family supports."""
        return frozenset(self.estimators)

    @property
    def ensemble(self) -> bool:
        """True when ``n_estimators`` values come from one fit (``prefix`` is set)."""
        return self.prefix is not None

    def estimator_class(self, task: str) -> type:
        """The estimator class for ``task`` (imported on first use)."""
        try:
            path = self.estimators[task]
        except KeyError:
            raise ValueError(
                f"model family {self.name!r} does not support task {task!r} (supported: {sorted(self.tasks)})"
            ) from None
        try:
            return _import_path(path)
        except (ImportError, AttributeError) as exc:
            raise ValueError(f"family {self.name!r}: cannot import {path!r} ({exc})") from None

    def classes(self) -> tuple[type, ...]:
        """The estimator classes of every task."""
        return tuple(self.estimator_class(t) for t in self.estimators)

    def build(self, task: str, params: Mapping[str, Any], random_state: int, n_jobs: int) -> BaseEstimator:
        """An unfitted estimator for ``task`` with ``params`` (see :func:`make_estimator`)."""
        cls = self.estimator_class(task)
        p = dict(params)
        for key, value in self.defaults.items():
            p.setdefault(key, value)
        if self.seeded:
            p.setdefault("random_state", random_state)
        if self.threaded:
            p.setdefault("n_jobs", n_jobs)
        est = cls(**p)
        if self.scaled:
            from sklearn.pipeline import Pipeline
            from sklearn.preprocessing import StandardScaler

            est = Pipeline([("scale", StandardScaler()), ("model", est)])
        return est


def _import_path(path: str):
    """The object a ``"module:Name"`` path names (ImportError / AttributeError as raised)."""
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


_R, _C = "regression", "classification"
FAMILIES: dict[str, Family] = {}


def register_family(family: Family, *, replace: bool = False) -> Family:
    """Add a :class:`Family` to the registry.

    Raises
    ------
    ValueError
        A family of that name exists and ``replace`` is false.
    """
    if not isinstance(family, Family):
        raise TypeError(f"expected a Family, got {type(family).__name__}")
    if family.name in FAMILIES and not replace and FAMILIES[family.name] != family:
        raise ValueError(f"model family {family.name!r} is already registered")
    FAMILIES[family.name] = family
    return family


#: Family fields shared by the built-in linear models, tree models and random forests / extra trees.
_LINEAR = {"shap_algorithm": "linear_explainer", "linear": True, "output_degree": 1}
_TREES = {"seeded": True, "shap_algorithm": "tree_explainer", "split_gain": "mdi"}
_FOREST = {**_TREES, "threaded": True, "prefix": "forest", "engine": True}

for _f in [
    Family(
        "linear_regression",
        "Linear Regression",
        {_R: "sklearn.linear_model:LinearRegression"},
        **_LINEAR,
    ),
    Family(
        "ridge",
        "Ridge Regression",
        {_R: "sklearn.linear_model:Ridge"},
        scaled=True,
        **_LINEAR,
    ),
    Family(
        "lasso",
        "Lasso",
        {_R: "sklearn.linear_model:Lasso"},
        defaults={"max_iter": 10000},
        scaled=True,
        **_LINEAR,
    ),
    Family(
        "elastic_net",
        "Elastic Net",
        {_R: "sklearn.linear_model:ElasticNet"},
        defaults={"max_iter": 10000},
        scaled=True,
        **_LINEAR,
    ),
    Family(
        "logistic_regression",
        "Logistic Regression",
        {_C: "sklearn.linear_model:LogisticRegression"},
        defaults={"max_iter": 5000},
        seeded=True,
        scaled=True,
        log_odds="decision_function",
        **_LINEAR,
    ),
    Family(
        "decision_tree",
        "Decision Tree",
        {_R: "sklearn.tree:DecisionTreeRegressor", _C: "sklearn.tree:DecisionTreeClassifier"},
        depth_chains=True,
        **_TREES,
    ),
    Family(
        "random_forest",
        "Random Forest",
        {_R: "sklearn.ensemble:RandomForestRegressor", _C: "sklearn.ensemble:RandomForestClassifier"},
        **_FOREST,
        fit_cost=3.0,
    ),
    Family(
        "extra_trees",
        "Extra Trees",
        {_R: "sklearn.ensemble:ExtraTreesRegressor", _C: "sklearn.ensemble:ExtraTreesClassifier"},
        **_FOREST,
        fit_cost=1.5,
    ),
    Family(
        "gradient_boosting",
        "Gradient Boosting",
        {_R: "sklearn.ensemble:GradientBoostingRegressor", _C: "sklearn.ensemble:GradientBoostingClassifier"},
        prefix="boosting",
        engine=True,
        **_TREES,
        fit_cost=1.0,
    ),
    Family(
        "xgboost",
        "XGBoost",
        {_R: "xgboost:XGBRegressor", _C: "xgboost:XGBClassifier"},
        defaults={"tree_method": "hist"},
        seeded=True,
        threaded=True,
        prefix="xgboost",
        shap_algorithm="xgboost_pred_contribs",
        split_gain="total_gain",
        fit_cost=0.1,
    ),
    Family(
        "gaussian_nb",
        "Gaussian Naive Bayes",
        {_C: "sklearn.naive_bayes:GaussianNB"},
        log_odds="joint_log_likelihood",
        output_degree=2,
    ),
    Family(
        "qda",
        "QDA",
        {_C: "sklearn.discriminant_analysis:QuadraticDiscriminantAnalysis"},
        scaled=True,
        log_odds="decision_function",
        output_degree=2,
    ),
    Family("knn", "k-Nearest Neighbours", {_C: "sklearn.neighbors:KNeighborsClassifier"}, threaded=True, scaled=True),
    # InterpretML's Explainable Boosting Machine (Lou et al. 2013, Nori et al. 2019): a GA2M whose
    # prediction (regression) or log-odds (classification) is a sum of one- and two-variable terms,
    # so its interactions are at most pairwise (output_degree 2: one antithetic permutation pair
    # gives exact SHAP values) and decision_function gives its exact log-odds. n_jobs is pinned to
    # 1 (its own default, -2, would take all but one core of the machine whatever the job's
    # threads; its fits are identical for any n_jobs).
    Family(
        "ebm",
        "EBM",
        {_R: "interpret.glassbox:ExplainableBoostingRegressor", _C: "interpret.glassbox:ExplainableBoostingClassifier"},
        defaults={"n_jobs": 1},
        seeded=True,
        log_odds="decision_function",
        output_degree=2,
        terms="interpret",
        fit_cost=300.0,
    ),
]:
    register_family(_f)
del _f


def register_config_families(entries: Mapping[str, Mapping[str, Any]] | None) -> list[str]:
    """Register the families declared in the ``families`` config section.

    Each entry gives the :class:`Family` fields by name (``estimators`` maps a task
    to ``"module:Class"``; ``label`` defaults to the name). An entry for a built-in
    family replaces it.

    Returns
    -------
    list of str
        The names registered.

    Raises
    ------
    ValueError
        An unknown field or an invalid value (the message names ``families.<name>``).
    """
    names = []
    known = {f.name for f in fields(Family)}
    for name, entry in (entries or {}).items():
        entry = dict(entry or {})
        unknown = sorted(set(entry) - known)
        if unknown:
            raise ValueError(
                f"config key families.{name}: unknown field(s) {unknown}; known: {sorted(known - {'name'})}"
            )
        entry.setdefault("label", name)
        entry["name"] = name
        try:
            register_family(Family(**entry), replace=True)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"config key families.{name}: {exc}") from None
        names.append(name)
    return names


def check_family_classes(name: str | Family, options: Mapping[str, Any] | None = None) -> None:
    """Import a family's estimator classes and check each is a scikit-learn estimator of its task.

    Run at workflow start-up on the families of the ``families`` config section, so that an
    unimportable path or a foreign class stops the run before any job (the jobs would import the
    class and call it). The class is checked before it is called: a subclass of
    ``sklearn.base.BaseEstimator`` with ``fit`` and ``predict``; then built without arguments
    (a scikit-learn estimator's ``__init__`` only stores its parameters) and checked with
    ``sklearn.base.is_regressor`` / ``is_classifier`` against the task it is given for.

    Parameters
    ----------
    name : str or Family
    options : mapping, optional
        ``estimator_options.<name>``: constructor arguments given with the family's ``defaults``.

    Raises
    ------
    ValueError
        Naming ``families.<name>.estimators.<task>``, the path and what it is instead.
    """
    from sklearn.base import BaseEstimator, is_classifier, is_regressor
    from sklearn.utils import get_tags

    family = get_family(name)
    for task, path in family.estimators.items():
        where = f"config key families.{family.name}.estimators.{task}: {path!r}"
        module, _, attr = path.partition(":")
        if not module or not attr:
            raise ValueError(f"{where} is not of the form 'module:Class' (e.g. 'sklearn.svm:SVR')")
        try:
            cls = _import_path(path)
        except (ImportError, AttributeError) as exc:
            raise ValueError(f"{where} cannot be imported ({type(exc).__name__}: {exc})") from None
        if not isinstance(cls, type) or not issubclass(cls, BaseEstimator):
            what = f"the class {cls.__module__}.{cls.__qualname__}" if isinstance(cls, type) else type(cls).__name__
            raise ValueError(
                f"{where} is {what}, not a scikit-learn estimator (a subclass of sklearn.base.BaseEstimator with "
                "fit and predict); a family's estimators name estimator classes"
            )
        lacking = [m for m in ("fit", "predict") if not callable(getattr(cls, m, None))]
        if lacking:
            raise ValueError(f"{where} has no {' or '.join(lacking)} method; a family's estimator fits and predicts")
        try:
            estimator = cls(**{**family.defaults, **dict(options or {})})
        except Exception as exc:  # noqa: BLE001 - any constructor error is the user's class's
            raise ValueError(
                f"{where} cannot be built without arguments ({type(exc).__name__}: {exc}); give its required "
                f"arguments in estimator_options.{family.name}"
            ) from None
        fits = is_regressor(estimator) if task == "regression" else is_classifier(estimator)
        if not fits:
            kind = get_tags(estimator).estimator_type
            raise ValueError(
                f"{where} is not a {'regressor' if task == 'regression' else 'classifier'} (scikit-learn's "
                f"estimator type: {kind!r}); give it under estimators.{'classification' if task == 'regression' else 'regression'} "
                "if that is its task, or name another class"
            )


def get_family(name: str | Family) -> Family:
    """Return the :class:`Family` called ``name`` (a :class:`Family` is returned as is).

    Worker processes (joblib's loky) start with the built-in registry only, so code
    that hands fits to workers passes the resolved :class:`Family` (picklable), not
    its name: a family registered at run time or from config is then known there too.

    Raises
    ------
    KeyError
        If ``name`` is not a known family; the message lists the known ones.
    """
    if isinstance(name, Family):
        return name
    try:
        return FAMILIES[name]
    except (KeyError, TypeError):
        raise KeyError(f"unknown model family {name!r}; known families: {sorted(FAMILIES)}") from None


def families_for_task(task: str) -> list[str]:
    """Family identifiers supporting ``task``, in registry order."""
    return [name for name, f in FAMILIES.items() if task in f.tasks]


def final_estimator(estimator: BaseEstimator) -> BaseEstimator:
    """The last step of a ``Pipeline`` (the estimator itself otherwise)."""
    from sklearn.pipeline import Pipeline

    if isinstance(estimator, Pipeline):
        return estimator.steps[-1][1]
    return estimator


def family_of(estimator) -> Family | None:
    """The registered family whose estimator class ``estimator`` (or its final
    ``Pipeline`` step) is an instance of; None for anything else.

    The class is matched exactly first (so that a subclass registered as a family
    of its own wins), then by ``isinstance`` in registry order.
    """
    est = final_estimator(estimator)
    kind = type(est)
    fallback = None
    for fam in FAMILIES.values():
        try:
            classes = fam.classes()
        except ValueError:  # an optional dependency is missing
            continue
        if kind in classes:
            return fam
        if fallback is None and isinstance(est, classes):
            fallback = fam
    return fallback


def make_estimator(
    family: str | Family,
    task: str,
    params: Mapping[str, Any],
    *,
    random_state: int,
    n_jobs: int = 1,
    options: Mapping[str, Any] | None = None,
) -> BaseEstimator:
    """Build an unfitted estimator of ``family`` for ``task``.

    Parameters
    ----------
    family : str or Family
        Family identifier (:data:`FAMILIES`) or the :class:`Family` itself.
    task : {"regression", "classification"}
    params : mapping
        Hyperparameter values of one grid configuration.
    random_state : int
        ``random_state`` of seeded families (the pipeline's seed).
    n_jobs : int, default=1
        Threads of families that take ``n_jobs`` (random forest, extra trees,
        XGBoost, kNN). Predictions of the project's own code are made tree by tree,
        so the result does not depend on this value.
    options : mapping, optional
        Fixed constructor arguments from the ``estimator_options`` config
        section; grid values win over options.

    Returns
    -------
    sklearn.base.BaseEstimator

    Raises
    ------
    KeyError
        Unknown family. ``ValueError``: a task the family does not support.
    """
    merged = dict(options or {})
    merged.update(params)
    return get_family(family).build(task, merged, random_state, n_jobs)
