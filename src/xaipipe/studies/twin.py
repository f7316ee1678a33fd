"""The twin of a dataset: the table's own feature rows with a planted response whose truth is known.

Issue 51, item 1. A table's intervals can only be checked against a truth, and a real table has
none. Its *twin* keeps what the Gaussian simulations lack -- the table's joint distribution of the
features, their dependence, categories and sorted blocks -- and plants a response with a known
conditional law:

* **Population.** :math:`X` is drawn from the *empirical distribution* of the table's ``N`` feature
  rows (training and test split together, after the pipeline's imputation: the rows every
  explanation sees), so every functional of the population is a finite average over those rows and
  computable exactly or by a Monte-Carlo sum whose error is stated.
* **Planted function** :math:`f^*` (``twins.f_star``): a model fitted to the real table on all its
  rows -- by default the *reference model of the cross-family Rashomon set* (the configuration with
  the least CV loss over every family, :mod:`xaipipe.rashomon.sets`), or any family at its chosen
  configuration, or ``linear`` (ordinary least squares / logistic regression: PD, ALE, MR and SHAP
  in closed form, the oracle of the tests), or ``dgp`` for a simulated table (the DGP's own
  :math:`f`, the cross-check with the simulated audit).
* **Planted noise.** Regression: :math:`Y = f^*(X) + e`, :math:`e` drawn independently of :math:`X`
  from the *out-of-fold residuals* of :math:`f^*`'s configuration on the table (K-fold, seeded),
  centred to mean 0 so that :math:`f^*` is :math:`E[Y | X]` (``noise="residuals"``; a DGP: its
  Gaussian noise). The noise is homoskedastic by construction: the table's heteroskedasticity is
  not kept (docs/coverage.md, "What a twin keeps"). Classification: :math:`Y \\sim
  \\mathrm{Categorical}(p^*(X))` with :math:`p^*` the fitted model's class probabilities. On its
  own training rows a boosted ensemble's probabilities are sharper than out of fold, so a twin's
  labels are somewhat less noisy than the table's; the truths are those of the twin, whatever it is.

A replicate of the twin is ``n`` i.i.d. draws of :math:`(X, Y)` (rows with replacement, fresh noise):
the pipeline then splits, fits and explains it exactly as it does the table
(:mod:`xaipipe.studies.twin_audit`).

Truths of :math:`f^*` (:func:`twin_truth_tables`), each over the population, exact where the sum
is small enough and a Monte-Carlo sum with its standard error otherwise:

* **MR** (Fisher, Rudin & Dominici 2019, §3: :math:`e_{switch}` with :math:`X_1` from an
  independent copy): squared error :math:`e_{orig} = E[e^2]` and
  :math:`e_{switch,j} = e_{orig} + E[(f^*(X) - f^*(X'_j, X_{-j}))^2]` over independent rows
  :math:`X, X'`; log loss and 0-1 loss with the expectation over :math:`Y \\sim p^*(X)` exact and
  over the pairs of rows exact (all :math:`N^2`) up to ``max_pairs`` pairs, else on ``max_pairs``
  seeded uniform pairs.
* **PD** at each grid point: the mean of :math:`f^*(z, x_{i,C})` over all ``N`` rows (exact).
* **ALE** on given bin edges (Apley & Zhu 2020): :func:`xaipipe.explain.pdp.accumulated_local_effects`
  of :math:`f^*` on all ``N`` rows (exact for the population's bins).
* **SHAP importance** :math:`E|\\phi_j(f^*, X)|` with the family's SHAP algorithm
  (:func:`xaipipe.explain.shapley.shap_values`) on all ``N`` rows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, RegressorMixin

from ..data.simulated import get_dgp
from ..explain.pdp import accumulated_local_effects
from ..explain.reliance import features_from_groups
from ..explain.shapley import shap_values
from ..models.boosting import fit_estimator
from ..models.families import make_estimator
from ..models.ols import ols_inference

__all__ = [
    "F_STAR_KINDS",
    "Twin",
    "build_twin",
    "dgp_twin",
    "twin_mr_truth",
    "twin_pd_truth",
    "twin_ale_truth",
    "twin_shap_truth",
    "LinearTwin",
    "linear_twin",
]

#: ``twins.f_star`` values besides a family name.
F_STAR_KINDS = ("reference", "linear", "dgp")
#: The linear family of each task (``twins.f_star: linear``).
LINEAR = {"regression": "linear_regression", "classification": "logistic_regression"}
#: Probabilities are clipped to [EPS, 1 - EPS] inside the log loss, as the pipeline's loss.
_EPS = float(np.finfo(np.float64).eps)


class _DGPModel(RegressorMixin, BaseEstimator):
    """A simulated table's DGP as a fitted regressor (``predict``), the ``dgp`` twin's :math:`f^*`;
    a scikit-learn estimator, fitted from the start (``n_features_in_``), so that the model-agnostic
    SHAP path explains it."""

    def __init__(self, dgp: str, n_features: int | None = None):
        self.dgp = dgp
        self.n_features = n_features
        self._model = get_dgp(dgp)
        if n_features is not None:
            self.n_features_in_ = int(n_features)

    def fit(self, X, y=None):
        self.n_features_in_ = np.asarray(X).shape[1]
        return self

    def predict(self, X):
        return self._model.f(np.asarray(X, dtype=float))

    def __getstate__(self):
        return {"dgp": self.dgp, "n_features": self.n_features}

    def __setstate__(self, state):
        self.__init__(state["dgp"], state.get("n_features"))


@dataclass
class Twin:
    """A dataset's twin: the population of its feature rows and the planted response.

    Attributes
    ----------
    dataset, task : str
    X : ndarray of shape (N, p)
        The population's rows (the table's prepared, imputed features).
    features : list of str
        The ``p`` column names.
    feature_groups : dict
        One-hot groups (one categorical variable each, as the PD / ALE steps take them).
    variable_groups : dict
        The variables of MR and SHAP importance: one-hot and user groups (``importance_groups``).
    f_star : fitted estimator
        :math:`f^*`: ``predict`` (regression) or ``predict_proba`` (classification).
    f_star_kind, family : str
        ``twins.f_star`` as resolved (``reference``, a family, ``linear``, ``dgp``) and
        :math:`f^*`'s family (``dgp`` for a DGP).
    params : dict
        :math:`f^*`'s configuration (its hyperparameters).
    noise : ndarray of shape (N,) or float or None
        Regression: the centred out-of-fold residuals (drawn with replacement), or the DGP's noise
        standard deviation (a float); None for classification.
    n_classes : int
        Classification: the classes (codes 0 .. K-1); 0 for regression.
    classes : list of str or None
        A multiclass target's labels in code order (None otherwise).
    """

    dataset: str
    task: str
    X: np.ndarray
    features: list
    feature_groups: dict
    variable_groups: dict
    f_star: Any
    f_star_kind: str
    family: str
    params: dict
    noise: Any
    n_classes: int = 0
    classes: list | None = None
    meta: dict = field(default_factory=dict)

    @property
    def n_rows(self) -> int:
        """``N``: the population's rows."""
        return int(self.X.shape[0])

    def mean(self, X) -> np.ndarray:
        """:math:`E[Y | X]`: shape ``(n,)`` (regression) or the class probabilities ``(n, K)``."""
        if self.task == "regression":
            return np.asarray(self.f_star.predict(X), dtype=float)
        return np.asarray(self.f_star.predict_proba(X), dtype=float)

    @property
    def noise_variance(self) -> float:
        """Regression: :math:`E[e^2]` of the planted noise (the pool's mean square, or the DGP's
        :math:`\\sigma^2`)."""
        if isinstance(self.noise, float):
            return self.noise**2
        return float(np.mean(np.asarray(self.noise) ** 2))

    def draw_rows(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """``n`` row indices of the population, uniform with replacement."""
        return rng.integers(0, self.n_rows, size=int(n))

    def response(self, rng: np.random.Generator, X: np.ndarray) -> np.ndarray:
        """A fresh draw of :math:`Y` at the rows ``X``: :math:`f^*(X) + e` or a class code."""
        m = self.mean(X)
        if self.task == "regression":
            if isinstance(self.noise, float):
                return m + rng.normal(0.0, self.noise, size=m.shape[0])
            pool = np.asarray(self.noise)
            return m + pool[rng.integers(0, pool.size, size=m.shape[0])]
        u = rng.random(m.shape[0])
        return np.minimum((np.cumsum(m, axis=1) < u[:, None]).sum(axis=1), m.shape[1] - 1).astype(np.int64)

    def sample(self, rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
        """``n`` i.i.d. draws ``(X, y)`` from the twin (rows with replacement, fresh noise)."""
        X = self.X[self.draw_rows(rng, n)]
        return X, self.response(rng, X)

    @property
    def variables(self) -> dict[str, list[int]]:
        """Variable -> its columns (one-hot and user groups whole), as MR and SHAP importance take them."""
        return features_from_groups(list(self.features), self.variable_groups)


def _oof_residuals(estimator, X: np.ndarray, y: np.ndarray, folds: int, seed: int) -> np.ndarray:
    from sklearn.base import clone
    from sklearn.model_selection import KFold

    oof = np.empty(y.shape[0])
    for train, valid in KFold(folds, shuffle=True, random_state=seed).split(X):
        oof[valid] = fit_estimator(clone(estimator), X[train], y[train]).predict(X[valid])
    r = y - oof
    return r - r.mean()


def build_twin(
    data,
    family: str,
    params: Mapping[str, Any] | None = None,
    *,
    f_star_kind: str | None = None,
    options: Mapping[str, Any] | None = None,
    variable_groups: Mapping[str, Sequence[str]] | None = None,
    folds: int = 5,
    seed: int = 0,
) -> Twin:
    """The twin of a prepared dataset: :math:`f^*` = ``family`` at ``params`` fitted on every row.

    Parameters
    ----------
    data : PreparedData
        :func:`xaipipe.data.load_prepared`: ``X_train``, ``X_test`` (imputed), ``y_train``,
        ``y_test``, ``task``, ``features``, ``feature_groups``, ``classes``, ``dataset``.
    family : str
        :math:`f^*`'s family (:mod:`xaipipe.models.families`).
    params : mapping, optional
        Its configuration (``best.json``'s ``params``).
    f_star_kind : str, optional
        The ``twins.f_star`` value this resolves (recorded; default ``family``).
    options : mapping, optional
        The family's ``estimator_options``.
    variable_groups : mapping, optional
        MR / SHAP variables (one-hot and user groups); default ``data.feature_groups``.
    folds : int, default 5
        Folds of the out-of-fold residuals (regression).
    seed : int, default 0
        :math:`f^*`'s ``random_state`` and the folds' shuffle.

    Returns
    -------
    Twin

    Raises
    ------
    ValueError
        A family that does not support the task (as :func:`~xaipipe.models.families.make_estimator`).
    """
    X = np.vstack([np.asarray(data.X_train, dtype=float), np.asarray(data.X_test, dtype=float)])
    y = np.concatenate([np.asarray(data.y_train), np.asarray(data.y_test)])
    estimator = make_estimator(family, data.task, dict(params or {}), random_state=seed, n_jobs=1, options=options)
    from sklearn.base import clone

    f_star = fit_estimator(clone(estimator), X, y)
    regression = data.task == "regression"
    noise = _oof_residuals(estimator, X, y.astype(float), folds, seed) if regression else None
    return Twin(
        dataset=str(data.dataset),
        task=data.task,
        X=X,
        features=[str(f) for f in data.features],
        feature_groups=dict(data.feature_groups or {}),
        variable_groups=dict(variable_groups if variable_groups is not None else (data.feature_groups or {})),
        f_star=f_star,
        f_star_kind=str(f_star_kind or family),
        family=family,
        params=dict(params or {}),
        noise=noise,
        n_classes=0 if regression else int(len(np.unique(y))),
        classes=getattr(data, "classes", None),
        meta={"rows": int(X.shape[0]), "folds": int(folds), "seed": int(seed)},
    )


def dgp_twin(data, dgp: str, noise_sd: float) -> Twin:
    """The twin of a simulated table with :math:`f^*` = its DGP's function and Gaussian noise of sd
    ``noise_sd`` (``twins.f_star: dgp``): the cross-check with the simulated audit."""
    twin = build_twin(data, LINEAR["regression"], f_star_kind="dgp")
    twin.f_star, twin.family, twin.noise = _DGPModel(dgp, n_features=twin.X.shape[1]), "dgp", float(noise_sd)
    twin.params = {"dgp": dgp, "noise_sd": float(noise_sd)}
    return twin


# ----------------------------------------------------------------------------- truths of f*


def _pairs(N: int, max_pairs: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, bool]:
    """(recipient rows, donor rows, exact): all ``N²`` ordered pairs when they fit ``max_pairs``,
    else ``max_pairs`` uniform pairs."""
    if N * N <= max_pairs:
        i, d = np.meshgrid(np.arange(N), np.arange(N), indexing="ij")
        return i.ravel(), d.ravel(), True
    return rng.integers(0, N, max_pairs), rng.integers(0, N, max_pairs), False


def _pointwise_loss(twin: Twin, mean_rows: np.ndarray, pred: np.ndarray, loss: str) -> np.ndarray:
    """:math:`E[L(Y, \\text{pred}) | X = \\text{row}]` with :math:`Y` drawn at the rows whose
    conditional law is ``mean_rows`` (regression: :math:`(f^* - pred)^2 + E[e^2]`)."""
    if twin.task == "regression":
        if loss != "squared_error":
            raise ValueError(f"the twin's MR truth supports the squared error for regression, not {loss!r}")
        return (mean_rows - pred) ** 2 + twin.noise_variance
    if loss == "log_loss":
        q = np.clip(pred, _EPS, 1.0 - _EPS)
        return -(mean_rows * np.log(q)).sum(axis=1)
    if loss == "zero_one":
        return 1.0 - np.take_along_axis(mean_rows, np.argmax(pred, axis=1)[:, None], axis=1)[:, 0]
    raise ValueError(f"the twin's MR truth supports log_loss and zero_one for classification, not {loss!r}")


def twin_mr_truth(
    twin: Twin, *, losses: Sequence[str], max_pairs: int = 1_000_000, chunk: int = 200_000, random_state: int = 0
) -> pd.DataFrame:
    """:math:`f^*`'s population MR of every variable (ratio and difference), exact or Monte Carlo.

    Returns
    -------
    DataFrame
        One row per loss and variable: ``loss``, ``feature``, ``e_orig``, ``e_switch``,
        ``mr_ratio``, ``mr_difference``, ``mr_difference_se`` and ``mr_ratio_se`` (0 when exact,
        else the Monte-Carlo SE of the mean over ``max_pairs`` uniform pairs), ``n_pairs``, ``method``
        (``exact`` / ``monte_carlo``).
    """
    rng = np.random.default_rng([51, int(random_state)])
    N = twin.n_rows
    mean = twin.mean(twin.X)
    recipient, donor, exact = _pairs(N, int(max_pairs), rng)
    rows = []
    for loss in losses:
        e_orig = float(np.mean(_pointwise_loss(twin, mean, mean, loss)))
        for name, cols in twin.variables.items():
            vals = np.empty(recipient.size)
            for a in range(0, recipient.size, chunk):
                i, d = recipient[a : a + chunk], donor[a : a + chunk]
                Z = twin.X[i].copy()
                Z[:, cols] = twin.X[d][:, cols]
                vals[a : a + chunk] = _pointwise_loss(twin, mean[i], twin.mean(Z), loss)
            e_switch = float(vals.mean())
            se = 0.0 if exact else float(vals.std(ddof=1) / np.sqrt(vals.size))
            rows.append(
                {
                    "loss": loss,
                    "feature": name,
                    "e_orig": e_orig,
                    "e_switch": e_switch,
                    "mr_ratio": e_switch / e_orig,
                    "mr_difference": e_switch - e_orig,
                    "mr_difference_se": se,
                    "mr_ratio_se": se / e_orig,
                    "n_pairs": int(recipient.size),
                    "method": "exact" if exact else "monte_carlo",
                }
            )
    return pd.DataFrame(rows)


def _output(twin: Twin, X: np.ndarray, class_index: int) -> np.ndarray:
    m = twin.mean(X)
    return m if m.ndim == 1 else m[:, class_index]


def twin_pd_truth(twin: Twin, grids: Mapping[str, Sequence[float]], *, class_index: int = 1) -> pd.DataFrame:
    """:math:`f^*`'s PD at each grid point: the mean over all ``N`` rows with the column set to it.

    Parameters
    ----------
    grids : mapping feature -> grid values
        Numeric columns (input units).
    class_index : int, default 1
        Classification: the probability of this class (the learner-PD's output).

    Returns
    -------
    DataFrame
        ``feature``, ``grid_value``, ``pd``.
    """
    rows = []
    for f, grid in grids.items():
        j = twin.features.index(f)
        for z in grid:
            Z = twin.X.copy()
            Z[:, j] = float(z)
            rows.append({"feature": f, "grid_value": float(z), "pd": float(_output(twin, Z, class_index).mean())})
    return pd.DataFrame(rows, columns=["feature", "grid_value", "pd"])


def twin_ale_truth(
    twin: Twin, edges: Mapping[str, Sequence[float]], *, centering: str = "ale_plot", class_index: int = 1
) -> pd.DataFrame:
    """:math:`f^*`'s ALE on the population with the given bin edges (every row counts).

    Returns
    -------
    DataFrame
        ``feature``, ``grid_value`` (the edges), ``ale``.
    """
    rows = []
    output = "auto" if twin.task == "regression" else "proba"
    for f, e in edges.items():
        res = accumulated_local_effects(
            twin.f_star,
            twin.X,
            f,
            feature_names=twin.features,
            edges=np.asarray(e, dtype=float),
            centering=centering,
            output=output,
            class_index=class_index,
        )
        rows += [{"feature": f, "grid_value": float(z), "ale": float(a)} for z, a in zip(e, res.ale)]
    return pd.DataFrame(rows, columns=["feature", "grid_value", "ale"])


def twin_shap_truth(twin: Twin, *, max_rows: int | None = None, random_state: int = 0) -> pd.DataFrame:
    """:math:`f^*`'s SHAP importance :math:`E|\\phi_j(f^*, X)|` of every variable (a group's values
    summed per row), with the family's algorithm on all ``N`` rows (or a seeded subsample of
    ``max_rows`` rows, with its Monte-Carlo SE).

    Returns
    -------
    DataFrame
        ``feature``, ``mean_abs_shap``, ``mean_abs_shap_se`` (0 on all rows), ``n_rows``.
    """
    rng = np.random.default_rng([52, int(random_state)])
    N = twin.n_rows
    rows_idx = np.arange(N) if max_rows is None or max_rows >= N else np.sort(rng.choice(N, max_rows, replace=False))
    background = twin.X[rng.choice(N, min(N, 100), replace=False)]
    res = shap_values(twin.f_star, twin.X[rows_idx], X_background=background, random_state=int(random_state))
    values = np.asarray(res.values, dtype=float)
    if values.ndim == 3:  # multiclass: the importance summed over classes, as the pipeline's bar
        values = np.abs(values).sum(axis=2)
    out = []
    for name, cols in twin.variables.items():
        a = np.abs(values[:, cols].sum(axis=1))
        se = 0.0 if rows_idx.size == N else float(a.std(ddof=1) / np.sqrt(a.size) * np.sqrt(1 - a.size / N))
        out.append({"feature": name, "mean_abs_shap": float(a.mean()), "mean_abs_shap_se": se, "n_rows": a.size})
    return pd.DataFrame(out)


# ----------------------------------------------------------------------------- the sanity twin


@dataclass
class LinearTwin:
    """The sanity twin: the same population rows, :math:`f^*` the table's OLS fit (regression) or a
    logistic fit (binary classification) and its coefficients the truth of the classical intervals."""

    twin: Twin
    beta: dict  # term -> coefficient (OLS: the inference table's terms; logit: per raw feature unit)


def linear_twin(twin: Twin, data, *, seed: int = 0) -> LinearTwin | None:
    """The sanity twin of ``twin``'s table (None for a multiclass target)."""
    if twin.task == "classification" and twin.n_classes > 2:
        return None
    family = LINEAR[twin.task]
    params = {} if twin.task == "regression" else {"C": 1.0}
    lin = build_twin(data, family, params, f_star_kind="linear", variable_groups=twin.variable_groups, seed=seed)
    if twin.task == "regression":
        table = ols_inference(lin.X, lin.mean(lin.X), lin.features, feature_groups=lin.feature_groups or None)
        beta = dict(zip(table["term"], table["coefficient"].astype(float)))
    else:
        scaler, clf = lin.f_star.steps[0][1], lin.f_star.steps[-1][1]
        raw = clf.coef_[0] / scaler.scale_
        beta = dict(zip(lin.features, raw.astype(float)))
    return LinearTwin(lin, beta)
