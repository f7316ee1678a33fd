"""SAGE: Shapley additive global importance (Covert, Lundberg & Lee 2020), marginal imputation.

Definition
----------
Covert, Lundberg & Lee (2020, "Understanding global feature contributions with additive
importance measures", NeurIPS 33, §3-4): for a model :math:`f`, a loss :math:`\\ell` and a
subset :math:`S` of the variables, the *restricted model* averages the removed variables out
over their marginal distribution,

.. math::
    f_S(x_S) = E\\big[f(x_S, X_{\\bar S})\\big]  \\qquad \\text{(marginal imputation, §4 eq. 7)},

and the game is the reduction in expected loss that the variables of :math:`S` bring,

.. math::
    v_f(S) = E\\big[\\ell(f_\\varnothing, Y)\\big] - E\\big[\\ell(f_S(X_S), Y)\\big]
    \\qquad (\\S 3,\\ \\text{eq. 4}).

SAGE values are its Shapley values,
:math:`\\phi_j = \\sum_{S \\subseteq D \\setminus \\{j\\}} \\frac{|S|!\\,(d - |S| - 1)!}{d!}
\\,[v_f(S \\cup \\{j\\}) - v_f(S)]`; they add up to
:math:`v_f(D) = E[\\ell(f_\\varnothing, Y)] - E[\\ell(f(X), Y)]`, the loss reduction of the whole
model over its mean prediction. Here the expectations are over the (test) rows explained and
:math:`f_S` averages over a background sample of training rows (the empirical versions the
paper's estimators compute, §5).

Estimator
---------
The permutation sampler of ``sage-importance`` (Covert's package, :class:`sage.PermutationEstimator`
with :class:`sage.GroupedMarginalImputer`; paper §5, Algorithm 1): each sample draws a row (with
replacement) and a uniformly random order of the variables, adds the variables one at a time
and credits each with the drop in that row's loss. ``sage`` is the mean of these credits and
``sage_se`` its Monte-Carlo standard error (the samples are i.i.d.: the SD of the credits over
the square root of their number, the package's ``Explanation.std``). Sampling stops at the
package's convergence rule -- the largest SE below ``threshold`` times the range of the values
(``max(sage) - min(sage)``), checked after every batch of ``batch_size`` permutations -- or at
``max_permutations`` (``converged`` False). The SE covers the permutation and row sampling
given the rows and the background; the background sample's own variability is not in it.

Departures from the package's defaults (documented in ``docs/sage.md``): the loss is the
project's per-sample MR loss (:mod:`xaipipe.losses`; the package's cross entropy clips
probabilities at 1e-12, the project's -- like scikit-learn's ``log_loss`` -- at the machine
epsilon of their dtype), so that SAGE and MR measure the same loss; variables are the model
reliance variables (a one-hot group or a user group is one player,
:func:`xaipipe.explain.reliance.features_from_groups`); no progress bar, one job.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..data.prepare import importance_groups
from ..losses import canonical_loss, resolve_loss
from ..models.output import _is_classifier, model_output
from ..validation import check_finite
from .reliance import features_from_groups

__all__ = ["SAGE_COLUMNS", "SageResult", "sage_importance", "sage_inputs", "sage_table"]


@dataclass(frozen=True)
class SageResult:
    """SAGE values of one model.

    Attributes
    ----------
    features : tuple of str
        Variable names (columns, or groups of columns), length ``q``.
    values, se : ndarray of shape (q,)
        SAGE values and their Monte-Carlo standard errors (loss units).
    n_permutations : int
        Permutations (samples) drawn.
    convergence_ratio : float
        ``max(se) / (max(values) - min(values))`` (the package's convergence statistic).
    converged : bool
        ``convergence_ratio < threshold``.
    loss_model, loss_mean_prediction : float
        Mean loss of the model (``-v`` of the full set plus the empty set's loss) and of its
        mean prediction over the background (:math:`f_\\varnothing`) on the rows explained;
        ``loss_mean_prediction - loss_model`` is what the values add up to (in expectation).
    """

    features: tuple
    values: np.ndarray
    se: np.ndarray
    n_permutations: int
    convergence_ratio: float
    converged: bool
    loss_model: float
    loss_mean_prediction: float


def _project_loss(loss: str, classification: bool):
    """The package's loss interface (``loss(pred, target) -> (n,)``) on a loss of :mod:`xaipipe.losses`.

    A classification loss subclasses the package's cross entropy so that its label checks
    (``sage.utils.verify_model_data``) apply; the values are the project's.
    """
    from sage import utils

    _, fn = resolve_loss(loss)
    base = utils.CrossEntropyLoss if classification else utils.MSELoss

    class ProjectLoss(base):
        def __init__(self):
            super().__init__(reduction="none")

        def __call__(self, pred, target, *args, **kwargs):
            return fn(np.asarray(target), np.asarray(pred)[np.newaxis])[0]

    return ProjectLoss()


def _estimator_class():
    import sage

    class CountingPermutationEstimator(sage.PermutationEstimator):
        """The package's estimator, counting the permutations it draws."""

        n_permutations = 0

        def _process_sample(self, x, *args, **kwargs):
            self.n_permutations += len(x)
            return super()._process_sample(x, *args, **kwargs)

    return CountingPermutationEstimator


def sage_importance(
    model,
    X: np.ndarray,
    y: np.ndarray,
    background: np.ndarray,
    *,
    loss: str,
    feature_names: Sequence[str],
    feature_groups: Mapping[str, Sequence[str]] | None = None,
    threshold: float = 0.05,
    batch_size: int = 128,
    max_permutations: int = 16384,
    random_state: int = 0,
) -> SageResult:
    """Marginal SAGE values of a fitted model with their standard errors (module docstring).

    Parameters
    ----------
    model : fitted estimator
        A regressor (``predict``) or a classifier (``predict_proba``), scikit-learn API.
    X : ndarray of shape (n, p)
        Rows explained (features); the permutations sample them with replacement.
    y : ndarray of shape (n,)
        Their responses (classification: codes ``0 .. K-1``).
    background : ndarray of shape (m, p)
        Rows whose empirical distribution stands for the marginal of the removed variables.
    loss : str
        A loss of :mod:`xaipipe.losses` (``squared_error``, ``log_loss``, ...; aliases accepted).
    feature_names : sequence of str, length p
    feature_groups : mapping str -> columns, optional
        Groups played as one variable (one-hot groups, the user's groups).
    threshold : float in (0, 1), default 0.05
        Convergence: stop when ``max(se) < threshold * (max(values) - min(values))``.
    batch_size : int >= 1, default 128
        Permutations per batch (convergence is checked after each).
    max_permutations : int >= batch_size, default 16384
        Cap on the permutations (rounded up to whole batches); ``converged`` is False when it
        stops sampling first.
    random_state : int, default 0
        Seed of the row and permutation draws (``numpy.random.default_rng``).

    Returns
    -------
    SageResult

    Raises
    ------
    ValueError
        Shapes that disagree, a non-finite input, an unknown loss or group column, a
        ``threshold`` outside (0, 1), ``batch_size < 1`` or ``max_permutations < batch_size``.
    """

    X = np.asarray(X, dtype=np.float64)
    background = np.asarray(background, dtype=np.float64)
    y = np.asarray(y)
    if X.ndim != 2 or background.ndim != 2 or X.shape[1] != background.shape[1] or len(y) != len(X):
        raise ValueError(
            f"sage_importance: X {X.shape}, y {y.shape} and background {background.shape} do not agree "
            "(X and background need the same columns, y one value per row of X)"
        )
    if len(feature_names) != X.shape[1]:
        raise ValueError(f"sage_importance: {len(feature_names)} feature names for {X.shape[1]} columns")
    check_finite(X, "X")
    check_finite(background, "background")
    if not 0 < threshold < 1:
        raise ValueError(f"sage_importance: threshold must lie in (0, 1), got {threshold}")
    if batch_size < 1 or max_permutations < batch_size:
        raise ValueError(
            f"sage_importance: need batch_size >= 1 and max_permutations >= batch_size, got "
            f"{batch_size} and {max_permutations}"
        )
    loss = canonical_loss(loss)
    resolve_loss(loss)  # a loss with a per-sample function (squared_error, log_loss, zero_one)
    classification = _is_classifier(model)
    spec = features_from_groups(list(map(str, feature_names)), feature_groups)
    predict = model_output(model, "predict_proba" if classification else "predict")

    import sage

    imputer = sage.GroupedMarginalImputer(predict, background, groups=[np.asarray(c) for c in spec.values()])
    estimator = _estimator_class()(imputer, loss="mse", random_state=int(random_state))
    estimator.loss_fn = _project_loss(loss, classification)
    explanation = estimator(
        X,
        y,
        batch_size=int(batch_size),
        detect_convergence=True,
        thresh=float(threshold),
        n_permutations=int(max_permutations),
        bar=False,
    )
    values = np.asarray(explanation.values, dtype=np.float64)
    se = np.asarray(explanation.std, dtype=np.float64)
    ratio = float(np.max(se) / max(float(values.max() - values.min()), 1e-12))
    _, fn = resolve_loss(loss)
    full = np.asarray(predict(X))
    mean_pred = np.mean(np.asarray(predict(background)), axis=0)
    empty = np.broadcast_to(mean_pred, full.shape)
    return SageResult(
        features=tuple(spec),
        values=values,
        se=se,
        n_permutations=int(estimator.n_permutations),
        convergence_ratio=ratio,
        converged=bool(ratio < threshold),
        loss_model=float(np.mean(fn(y, full[np.newaxis]))),
        loss_mean_prediction=float(np.mean(fn(y, empty[np.newaxis]))),
    )


#: Columns of ``sage.csv`` (one row per variable, in column order).
SAGE_COLUMNS = (
    "dataset",
    "model",
    "feature",
    "sage",
    "sage_se",
    "loss",
    "imputer",
    "estimator",
    "n_rows",
    "background",
    "n_permutations",
    "threshold",
    "convergence_ratio",
    "converged",
    "loss_model",
    "loss_mean_prediction",
    "seed",
)


def sage_inputs(data: Any, settings: Any) -> tuple[np.ndarray, np.ndarray]:
    """The background rows and the test rows that :func:`sage_table` explains.

    Returns
    -------
    background : ndarray of shape (m, p)
        A seeded sample (``settings.seed``) of ``min(background_size, n_train)`` training rows
        (every training row when ``background_size`` is None), in row order.
    rows : ndarray of int
        Indices of the test rows explained: all, or a seeded subsample of ``max_rows``.
    """
    rng = np.random.default_rng(settings.seed)
    n_train, n_test = len(data.X_train), len(data.X_test)
    m = n_train if settings.background_size is None else min(settings.background_size, n_train)
    background = data.X_train[np.sort(rng.choice(n_train, size=m, replace=False))]
    rows = np.arange(n_test)
    if settings.max_rows is not None and n_test > settings.max_rows:
        rows = np.sort(rng.choice(n_test, size=settings.max_rows, replace=False))
    return background, rows


def sage_table(model, data: Any, settings: Any, *, family: str) -> pd.DataFrame:
    """The ``sage`` rule's table: marginal SAGE of one fitted model on the test rows.

    Parameters
    ----------
    model : fitted estimator
        The family's refitted model (``fit`` rule).
    data : PreparedData
        ``X_train`` (the background is a seeded sample of its rows), ``X_test``, ``y_test``,
        ``features``, ``variable_groups`` (one-hot and user groups, each one variable),
        ``task``, ``dataset``.
    settings : SageSettings
        ``threshold``, ``background_size``, ``batch_size``, ``max_permutations``, ``max_rows``,
        ``seed`` and the loss of the task (:meth:`xaipipe.config.SageSettings.loss`).
    family : str
        The ``model`` column.

    Returns
    -------
    DataFrame
        :data:`SAGE_COLUMNS`, one row per variable in column order.
    """

    background, rows = sage_inputs(data, settings)
    m = len(background)
    loss = settings.loss(data.task)
    result = sage_importance(
        model,
        data.X_test[rows],
        data.y_test[rows],
        background,
        loss=loss,
        feature_names=data.features,
        feature_groups=importance_groups(data),
        threshold=settings.threshold,
        batch_size=settings.batch_size,
        max_permutations=settings.max_permutations,
        random_state=settings.seed,
    )
    table = pd.DataFrame(
        {
            "dataset": data.dataset,
            "model": family,
            "feature": list(result.features),
            "sage": result.values,
            "sage_se": result.se,
            "loss": loss,
            "imputer": "marginal",
            "estimator": "permutation",
            "n_rows": len(rows),
            "background": m,
            "n_permutations": result.n_permutations,
            "threshold": settings.threshold,
            "convergence_ratio": result.convergence_ratio,
            "converged": result.converged,
            "loss_model": result.loss_model,
            "loss_mean_prediction": result.loss_mean_prediction,
            "seed": settings.seed,
        }
    )
    return table[list(SAGE_COLUMNS)]
