"""Model families: the identifiers used in every table and how to build them.

A *family* is a scikit-learn or XGBoost estimator class plus the fixed choices
the pipeline makes around it (random seed, scaling for scale-sensitive
classifiers, thread count). Hyperparameter values come from the ``grids`` config
section, fixed constructor options from ``estimator_options``; nothing here is a
grid.

Family identifiers
------------------
Regression: ``linear_regression``, ``decision_tree``, ``random_forest``,
``gradient_boosting``, ``xgboost``.
Classification: ``logistic_regression``, ``decision_tree``, ``random_forest``,
``gradient_boosting``, ``xgboost``, ``gaussian_nb``, ``qda``, ``knn``.

Scaling: ``logistic_regression``, ``qda`` and ``knn`` are
``Pipeline([("scale", StandardScaler()), ("model", estimator)])``. For QDA this
matters because ``reg_param`` shrinks each class covariance towards the identity,
which is only meaningful on a common scale.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Mapping

if TYPE_CHECKING:
    from sklearn.base import BaseEstimator

__all__ = [
    "Family",
    "FAMILIES",
    "ENSEMBLE_FAMILIES",
    "PREFIX_PARAM",
    "families_for_task",
    "get_family",
    "make_estimator",
    "final_estimator",
]

#: The hyperparameter whose values are evaluated from one fit (shared prefix).
PREFIX_PARAM = "n_estimators"


@dataclass(frozen=True)
class Family:
    """Description of one model family.

    Attributes
    ----------
    name : str
        Identifier used in configs, file names and tables.
    tasks : frozenset of {"regression", "classification"}
        Tasks the family supports.
    ensemble : bool
        True when ``n_estimators`` is evaluated by exact shared-prefix evaluation
        (:mod:`xaipipe.models.prefix`).
    tree_based : bool
        True for trees and tree ensembles (split-gain importance, TreeSHAP).
    scaled : bool
        True when the estimator is wrapped in a ``StandardScaler`` pipeline.
    """

    name: str
    tasks: frozenset
    ensemble: bool
    tree_based: bool
    scaled: bool
    _build: Callable[[str, dict, int, int], BaseEstimator]

    def build(self, task: str, params: Mapping[str, Any], seed: int, n_jobs: int) -> BaseEstimator:
        if task not in self.tasks:
            raise ValueError(
                f"model family {self.name!r} does not support task {task!r} "
                f"(supported: {sorted(self.tasks)})"
            )
        return self._build(task, dict(params), seed, n_jobs)


def _scaled(model: BaseEstimator) -> BaseEstimator:
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import StandardScaler

    return Pipeline([("scale", StandardScaler()), ("model", model)])


def _linear_regression(task, p, seed, n_jobs):
    from sklearn.linear_model import LinearRegression

    return LinearRegression(**p)


def _logistic_regression(task, p, seed, n_jobs):
    from sklearn.linear_model import LogisticRegression

    p.setdefault("max_iter", 5000)
    p.setdefault("random_state", seed)
    return _scaled(LogisticRegression(**p))


def _decision_tree(task, p, seed, n_jobs):
    from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

    p.setdefault("random_state", seed)
    cls = DecisionTreeRegressor if task == "regression" else DecisionTreeClassifier
    return cls(**p)


def _random_forest(task, p, seed, n_jobs):
    from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor

    p.setdefault("random_state", seed)
    p.setdefault("n_jobs", n_jobs)
    cls = RandomForestRegressor if task == "regression" else RandomForestClassifier
    return cls(**p)


def _gradient_boosting(task, p, seed, n_jobs):
    from sklearn.ensemble import GradientBoostingClassifier, GradientBoostingRegressor

    p.setdefault("random_state", seed)
    cls = GradientBoostingRegressor if task == "regression" else GradientBoostingClassifier
    return cls(**p)


def _xgboost(task, p, seed, n_jobs):
    import xgboost as xgb

    p.setdefault("random_state", seed)
    p.setdefault("n_jobs", n_jobs)
    p.setdefault("tree_method", "hist")
    cls = xgb.XGBRegressor if task == "regression" else xgb.XGBClassifier
    return cls(**p)


def _gaussian_nb(task, p, seed, n_jobs):
    from sklearn.naive_bayes import GaussianNB

    return GaussianNB(**p)


def _qda(task, p, seed, n_jobs):
    from sklearn.discriminant_analysis import QuadraticDiscriminantAnalysis

    return _scaled(QuadraticDiscriminantAnalysis(**p))


def _knn(task, p, seed, n_jobs):
    from sklearn.neighbors import KNeighborsClassifier

    p.setdefault("n_jobs", n_jobs)
    return _scaled(KNeighborsClassifier(**p))


_R, _C = "regression", "classification"
FAMILIES: dict[str, Family] = {
    f.name: f
    for f in [
        Family("linear_regression", frozenset({_R}), False, False, False, _linear_regression),
        Family("logistic_regression", frozenset({_C}), False, False, True, _logistic_regression),
        Family("decision_tree", frozenset({_R, _C}), False, True, False, _decision_tree),
        Family("random_forest", frozenset({_R, _C}), True, True, False, _random_forest),
        Family("gradient_boosting", frozenset({_R, _C}), True, True, False, _gradient_boosting),
        Family("xgboost", frozenset({_R, _C}), True, True, False, _xgboost),
        Family("gaussian_nb", frozenset({_C}), False, False, False, _gaussian_nb),
        Family("qda", frozenset({_C}), False, False, True, _qda),
        Family("knn", frozenset({_C}), False, False, True, _knn),
    ]
}

ENSEMBLE_FAMILIES = frozenset(name for name, f in FAMILIES.items() if f.ensemble)


def get_family(name: str) -> Family:
    """Return the :class:`Family` called ``name``.

    Raises
    ------
    KeyError
        If ``name`` is not a known family; the message lists the known ones.
    """
    try:
        return FAMILIES[name]
    except KeyError:
        raise KeyError(f"unknown model family {name!r}; known families: {sorted(FAMILIES)}") from None


def families_for_task(task: str) -> list[str]:
    """Family identifiers supporting ``task``, in registry order."""
    return [name for name, f in FAMILIES.items() if task in f.tasks]


def make_estimator(
    family: str,
    task: str,
    params: Mapping[str, Any],
    *,
    seed: int,
    n_jobs: int = 1,
    options: Mapping[str, Any] | None = None,
) -> BaseEstimator:
    """Build an unfitted estimator of ``family`` for ``task``.

    Parameters
    ----------
    family : str
        Family identifier (see module docstring).
    task : {"regression", "classification"}
    params : mapping
        Hyperparameter values of one grid configuration.
    seed : int
        ``random_state`` of stochastic estimators.
    n_jobs : int, default=1
        Threads for estimators that take ``n_jobs`` (random forest, XGBoost,
        kNN). Predictions of the project's own code are made tree by tree, so the
        result does not depend on this value.
    options : mapping, optional
        Fixed constructor arguments from the ``estimator_options`` config
        section; grid values win over options.

    Returns
    -------
    sklearn.base.BaseEstimator
    """
    merged = dict(options or {})
    merged.update(params)
    return get_family(family).build(task, merged, seed, n_jobs)


def final_estimator(estimator: BaseEstimator) -> BaseEstimator:
    """The last step of a ``Pipeline`` (the estimator itself otherwise)."""
    from sklearn.pipeline import Pipeline

    if isinstance(estimator, Pipeline):
        return estimator.steps[-1][1]
    return estimator
