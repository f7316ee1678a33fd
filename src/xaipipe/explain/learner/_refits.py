"""Learner-PD and learner-PFI with variance-corrected confidence intervals.

Method (Molnar, Freiesleben, König, Herbinger, Reisinger, Casalicchio, Wright &
Bischl 2023, "Relating the Partial Dependence Plot and Permutation Feature
Importance to the Data Generating Process", xAI 2023, CCIS 1901, pp. 456-479)
------------------------------------------------------------------------------
The paper separates three targets:

* **DGP-PD / DGP-PFI**: the PD and the PFI of the true regression function
  :math:`f(x) = E[Y \\mid X = x]`,
  :math:`\\mathrm{PD}_S(z) = E_{X_C}[f(z, X_C)]` and
  :math:`\\mathrm{PFI}_S = E[L(Y, f(\\tilde X_S, X_C))] - E[L(Y, f(X))]`
  (:math:`\\tilde X_S` an independent copy of :math:`X_S`); seed 001 §4.3.
* **model-PD / model-PFI**: the same functionals of *one* fitted model
  :math:`\\hat f`, estimated by Monte Carlo on data not used to fit it. They
  vary with the training sample (learner variance) besides the Monte-Carlo error.
* **learner-PD / learner-PFI**: the expectation of model-PD / model-PFI over
  training samples of size :math:`n_1`,
  :math:`E_{D_{n_1}}[\\mathrm{PD}_{\\hat f}]`. It equals the DGP quantity when
  the learner is unbiased (PD) -- for PFI up to a term that grows with the
  learner's variance -- and is estimated by averaging over model **refits**.

Protocol (the authors' simulation code, functions ``model_wrapper``,
``compute_pdp_cis``, ``compute_pfi_cis`` and ``get_adjustment_term`` of the
paper's repository ``code/ci-experiment.R`` helpers): for refit
:math:`k = 1..K`, draw :math:`n_1 = \\lfloor f n \\rceil` rows of the data
**without replacement** (subsampling, default :math:`f = 0.632`); fit the model
on them; compute PD (on a grid shared by all refits) and PFI on the other
:math:`n_2 = n - n_1` rows, which that refit has not seen. Then

* :math:`\\overline{\\mathrm{PD}}(z) = \\frac1K \\sum_k \\widehat{\\mathrm{PD}}_k(z)`
  and :math:`S^2(z) = \\frac1{K-1} \\sum_k (\\widehat{\\mathrm{PD}}_k(z) -
  \\overline{\\mathrm{PD}}(z))^2` (pointwise);
* **corrected** interval (Nadeau & Bengio 2003, "Inference for the
  Generalization Error", Machine Learning 52, 239-281, corrected resampled
  *t*): :math:`\\overline{\\mathrm{PD}} \\pm t_{1-\\alpha/2,\\,K-1}
  \\sqrt{(1/K + n_2/n_1)\\, S^2}`;
* **naive** interval (refits treated as independent):
  :math:`\\overline{\\mathrm{PD}} \\pm t_{1-\\alpha/2,\\,K-1} \\sqrt{S^2/K}`;

and the same for PFI. Why the correction: the training subsamples overlap, so
the refits are positively correlated (correlation :math:`\\rho`); :math:`S^2`
estimates :math:`(1-\\rho)\\sigma^2` and :math:`\\operatorname{Var}(\\bar\\theta)
= \\sigma^2(1/K + \\rho(1 - 1/K))`. Nadeau & Bengio's heuristic
:math:`\\rho = n_2/n` turns this into :math:`(1/K + n_2/n_1) S^2`. The naive
interval ignores :math:`\\rho` and is too narrow -- the seed's remark (001 §4.3)
that the intervals "pueden resultar demasiado estrechos debido al solapamiento
en el remuestreo". The corrected interval does **not** shrink to zero as
:math:`K \\to \\infty` (the :math:`n_2/n_1` term stays): more refits cannot
remove the uncertainty of a single data set. Its width relative to the naive
one is :math:`\\sqrt{1 + K n_2/n_1}`.

In this pipeline the data passed in are the **training split** (80 %); the test
split stays untouched, as everywhere else. Consequences to keep in mind:
the learner-PD/PFI describe a learner trained on :math:`n_1 = f\\, n_{train}`
rows (fewer than the deployed model saw), and the intervals cover the
*learner*-PD/PFI, i.e. the DGP quantities only for an unbiased learner.

PFI is model reliance as implemented in :mod:`xaipipe.explain.reliance`
(``estimator`` = ``permutation``, ``e_divide`` or ``e_switch``; difference
``e_switch - e_orig`` = the paper's PFI, and the ratio of Fisher et al.); the
per-refit value is the mean over its permutation repeats. PD is
:func:`xaipipe.explain.pdp.partial_dependence` (one-hot groups on their level
vectors, :func:`xaipipe.explain.pdp.onehot_grid`).

Options beyond the paper
------------------------
``eval_set=(X_eval, y_eval)``: evaluate every refit on one fixed external sample instead of
its own held-out rows. The correction then uses :math:`n_2 = ` len(``X_eval``);
Nadeau & Bengio's derivation assumes random train/test splits, so with a
fixed evaluation sample (whose sampling variance is common to all refits and
not in :math:`S^2`) the correction is only a heuristic. The default is the
paper's protocol.

Randomness: one :class:`numpy.random.SeedSequence` from ``random_state`` is
spawned into one child per refit, and each child into (subsample, estimator
seed, permutations). Refit ``k`` is therefore the same whatever ``K`` and
``n_jobs`` are, and the learner's own randomness (random forest, subsampled
boosting) varies between refits, as it does in the paper's experiments.

Departures from the seed (001 §4.3)
-----------------------------------
* The seed writes :math:`E_{\\bar X_S, X_C, Y}[L(Y, f(\\bar X_S, X_C))]` without
  saying what :math:`\\bar X_S` is: it is a copy of :math:`X_S` independent of
  :math:`(X_C, Y)` (drawn from its marginal), which permutation approximates.
* The seed says learner-PD/PFI "assumes" an unbiased model. The estimator
  assumes nothing; only its *interpretation as DGP-PD/PFI* needs an unbiased
  learner (otherwise the interval covers the learner-PD/PFI).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ...config.learner import LearnerSettings
from ...data.impute import impute_rows
from ...data.resample import DEFAULT_FRACTION, refit_seeds, subsample_splits
from ...losses import default_loss, resolve_loss
from ...models.boosting import fit_estimator
from ...validation import check_confidence, check_fraction, check_int
from ..pdp import partial_dependence
from ..reliance import ESTIMATORS, RelianceOptions, model_reliance, resolve_features
from ._effects import (
    ALE_REFIT_COLUMNS,
    LEARNER_ALE_COLUMNS,
    LEARNER_SHAP_COLUMNS,
    SHAP_REFIT_COLUMNS,
    RefitEffects,
    _pd_specs,
    learner_ale_table,
    learner_shap_table,
    plan_effects,
    refit_effects,
)
from ._estimators import _build, _check_Xy
from ._intervals import (
    LEARNER_PD_COLUMNS,
    LEARNER_PFI_COLUMNS,
    PD_REFIT_COLUMNS,
    PFI_REFIT_COLUMNS,
    learner_pd_table,
    learner_pfi_table,
)

__all__ = ["LearnerResult", "RefitDesign", "refit_design", "learner_pd_pfi", "learner_refits"]


# ----------------------------------------------------------------------------- one refit (grids: learner_effects)


def _one_refit(k, estimator, design: RefitDesign, seeds, fit, evaluation, specs, groups, imputer, plan, sizes):
    """Refit ``k``: fit on ``fit = (X, y, train)`` with ``seeds = (model seed, permutation seed)``,
    then its PDs and PFI on ``evaluation = (X_ev, y_ev)`` (``design``: the checked design with its
    loss resolved) and its SHAP / ALE (``plan``)."""
    X, y, train = fit
    X_ev, y_ev = evaluation
    seed, perm_seed = seeds
    pd_class_index, pfi_estimator = design.pd_class_index, design.pfi_estimator

    X_fit, X_ev = impute_rows(imputer, X[train], X_ev)  # fill values from the refit's own training rows
    model = fit_estimator(_build(estimator, seed, design.reseed), X_fit, y[train])
    extra = {} if pd_class_index == 1 else {"class_index": pd_class_index}
    pds = [partial_dependence(model, X_ev, list(s.cols), s.grid, output=design.pd_output, **extra) for s in specs]
    arrays = None
    if groups:
        randomised = pfi_estimator in ("permutation", "e_divide")  # permutations / halvings
        kwargs = dict(n_repeats=design.n_repeats, random_state=perm_seed) if randomised else {}
        arrays = model_reliance(
            model,
            X_ev,
            y_ev,
            features={g: list(c) for g, c in groups.items()},
            estimator=pfi_estimator,
            loss=design.loss,
            options=RelianceOptions(max_rows_per_batch=design.max_rows_per_batch),
            **kwargs,
        )
    return k, pds, arrays, refit_effects(plan, k, model, X_fit, X_ev, *sizes)  # SHAP / ALE: issue 45


# ----------------------------------------------------------------------------- public API


@dataclass(frozen=True)
class LearnerResult:
    """Output of :func:`learner_pd_pfi`.

    Attributes
    ----------
    pd : DataFrame
        :func:`learner_pd_table` (columns :data:`LEARNER_PD_COLUMNS`).
    pfi : DataFrame
        :func:`learner_pfi_table` (columns :data:`LEARNER_PFI_COLUMNS`).
    pd_refits, pfi_refits : DataFrame
        Per-refit values (:data:`PD_REFIT_COLUMNS`, :data:`PFI_REFIT_COLUMNS`),
        from which both summaries can be recomputed (other ``confidence``).
    shap, ale, shap_refits, ale_refits : DataFrame
        With ``effects``: learner-SHAP importance and learner-ALE
        (:mod:`xaipipe.explain.learner`: :data:`LEARNER_SHAP_COLUMNS`,
        :data:`LEARNER_ALE_COLUMNS`) and their per-refit values; empty otherwise.
    """

    pd: pd.DataFrame
    pfi: pd.DataFrame
    pd_refits: pd.DataFrame
    pfi_refits: pd.DataFrame
    shap: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=LEARNER_SHAP_COLUMNS))
    ale: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=LEARNER_ALE_COLUMNS))
    shap_refits: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=SHAP_REFIT_COLUMNS))
    ale_refits: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=ALE_REFIT_COLUMNS))


@dataclass(frozen=True)
class RefitDesign:
    """The design of learner-PD / learner-PFI (Molnar et al. 2023): the refits, the PD grids and
    the PFI of :func:`learner_refits` (:func:`refit_design` of the pipeline's
    :class:`~xaipipe.config.LearnerSettings`).

    Attributes
    ----------
    n_refits : int >= 2, default 15
        ``K``.
    fraction : float in (0, 1], default 0.632
        Training fraction of a refit (``n_1 = round(fraction * n)``); 1 is only allowed with a
        fixed evaluation sample (``eval_set``).
    resolution, kind, percentiles : default 20, "uniform", (0.05, 0.95)
        PD grid of a numeric variable without an explicit grid
        (:func:`xaipipe.explain.pdp.feature_grid` on all rows of ``X``; one grid for all refits).
    pfi_estimator : {"permutation", "e_divide", "e_switch"}, default "permutation"
        :func:`xaipipe.explain.reliance.model_reliance`'s estimator of the PFI.
    n_repeats : int, default 5
        Permutations (``permutation``) or halvings (``e_divide``) per variable and refit.
    reseed : bool, default True
        Vary the estimator's seed between refits (learner randomness is part of the learner
        variance).
    random_state : int, SeedSequence or None, default 0
        Root seed (:func:`refit_seeds`).
    stratify : bool, default False
        Subsamples stratified by class (:func:`subsample_splits`; multiclass targets).
    grids : mapping name -> 1-D array, optional
        Explicit grids of numeric variables; others use
        :func:`xaipipe.explain.pdp.feature_grid` on ``X`` (all rows) with ``resolution``,
        ``kind``, ``percentiles``. One grid for all refits.
    pd_output : {"auto", "predict", "proba", "logit"}, default "auto"
        :func:`xaipipe.explain.pdp.model_output`.
    pd_class_index : int, default 1
        Probability column of a classifier's PD (1: the positive class; a multiclass model's class).
    loss : str or callable, optional
        Per-sample loss of the PFI; default ``"squared_error"`` (regressors) or ``"log_loss"``
        (classifiers).
    max_rows_per_batch : int, default 65536
        Passed to :func:`~xaipipe.explain.reliance.model_reliance`
        (:class:`~xaipipe.explain.reliance.RelianceOptions`).
    """

    n_refits: int = 15
    fraction: float = DEFAULT_FRACTION
    resolution: int = 20
    kind: str = "uniform"
    percentiles: tuple[float, float] = (0.05, 0.95)
    pfi_estimator: str = "permutation"
    n_repeats: int = 5
    reseed: bool = True
    random_state: Any = 0
    stratify: bool = False
    grids: Mapping[str, Any] | None = None
    pd_output: str = "auto"
    pd_class_index: int = 1
    loss: Any = None
    max_rows_per_batch: int = 1 << 16


def refit_design(settings: LearnerSettings, *, stratify: bool = False) -> RefitDesign:
    """The :class:`RefitDesign` of the learner step's settings (config section ``explain.learner``):
    ``n_refits``, ``fraction``, the PD grid (``resolution``, ``grid`` as ``kind``, ``percentiles``),
    ``pfi_estimator``, ``n_repeats``, ``seed`` as ``random_state``; ``stratify``: the subsamples by
    class, for a multiclass target."""
    return RefitDesign(
        n_refits=settings.n_refits,
        fraction=settings.fraction,
        resolution=settings.resolution,
        kind=settings.grid,
        percentiles=tuple(settings.percentiles),
        pfi_estimator=settings.pfi_estimator,
        n_repeats=settings.n_repeats,
        random_state=settings.seed,
        stratify=stratify,
    )


def learner_refits(
    estimator,
    X,
    y,
    design: RefitDesign | None = None,
    *,
    eval_set: tuple | None = None,
    features=None,
    feature_names: Sequence[str] | None = None,
    pd_features: Sequence[str] | None = None,
    pfi_features=None,
    n_jobs: int = 1,
    imputer=None,
    effects: RefitEffects | None = None,
) -> tuple[pd.DataFrame, ...]:
    """Refit a learner ``K`` times on subsamples and record each refit's PD and PFI (and SHAP / ALE).

    Parameters
    ----------
    estimator : unfitted estimator or callable
        A scikit-learn estimator (``sklearn.base.clone``-d per refit; with
        ``design.reseed`` every ``random_state`` / ``*__random_state`` parameter is set
        to the refit's seed), or ``factory(random_state=int) -> estimator`` such as
        :func:`estimator_factory`. Regressors are evaluated with ``predict``,
        classifiers (binary, 0/1) with ``predict_proba``.
    X : array-like of shape (n, p)
        Data to subsample (the pipeline's training split); a DataFrame gives
        feature names.
    y : array-like of shape (n,)
    design : RefitDesign, optional
        ``K``, the training fraction, the PD grids and output, the PFI estimator, loss and
        repeats, the seeds (default :class:`RefitDesign`'s defaults).
    eval_set : (X_eval, y_eval), optional
        Fixed evaluation sample for every refit (heuristic correction, module
        docstring). Default: each refit's own held-out rows (the paper).
    features : mapping name -> columns, sequence or None
        Variables (one-hot groups as one variable), as
        :func:`xaipipe.explain.reliance.resolve_features`, e.g. from
        :func:`xaipipe.explain.reliance.features_from_groups`. Default: every column.
    feature_names : sequence of str, optional
        Column names (default: DataFrame columns, else ``x0, x1, ...``).
    pd_features : sequence of str, optional
        Variables that get a PD (default: all of ``features``; ``[]`` for none).
    pfi_features : mapping, sequence or None
        Variables that get a PFI (default: all of ``features``; ``[]`` for none).
    n_jobs : int, default 1
        Worker processes (joblib/loky) over refits; results do not depend on it.
    imputer : xaipipe.data.impute.MissingValueImputer, optional
        Missing values (NaN in ``X`` / ``X_eval``; ``missing: impute``): a clone is fitted
        on each refit's training rows and fills them and the refit's evaluation rows
        (:func:`xaipipe.data.impute.impute_rows`); the PD grids shared by all refits are
        taken from ``X`` imputed by a clone fitted on all of ``X``. Default None: ``X``
        must be finite.
    effects : RefitEffects, optional
        Also each refit's global SHAP importance and ALE curves, from the same fitted models
        (:mod:`xaipipe.explain.learner`; issue 45). The PD / PFI values do not change.

    Returns
    -------
    pd_refits : DataFrame
        :data:`PD_REFIT_COLUMNS`; ``grid_value`` in feature units (level index
        for a one-hot group, whose ``level`` names the level); ``value`` in
        units of the model output.
    pfi_refits : DataFrame
        :data:`PFI_REFIT_COLUMNS`; ``e_orig``, ``e_switch``, ``mr_difference``
        in loss units (``e_switch`` and both MR values averaged over the
        repeats), ``mr_ratio`` unitless.
    shap_refits, ale_refits : DataFrame
        Only with ``effects`` (then four frames are returned):
        :data:`~xaipipe.explain.learner.SHAP_REFIT_COLUMNS` and
        :data:`~xaipipe.explain.learner.ALE_REFIT_COLUMNS`.

    Raises
    ------
    ValueError, TypeError
        Invalid data, options, feature specifications or grids; fewer than 2
        evaluation rows; ``fraction = 1`` without ``X_eval``.
    """
    d = RefitDesign() if design is None else design
    from joblib import Parallel, delayed

    Xa, ya, names = _check_Xy(X, y, allow_nan=imputer is not None)
    n, p = Xa.shape
    names = _column_names(names, feature_names, p)
    K = check_int(d.n_refits, "n_refits", minimum=2)
    f = check_fraction(d.fraction, "fraction")
    n_jobs = int(n_jobs)
    n_repeats = check_int(d.n_repeats, "n_repeats", minimum=1)
    resolution = check_int(d.resolution, "resolution", minimum=2)
    if d.pfi_estimator not in ESTIMATORS:
        raise ValueError(f"unknown pfi_estimator {d.pfi_estimator!r}; choose one of {list(ESTIMATORS)}")
    X_eval, y_eval = (None, None) if eval_set is None else eval_set
    fixed = _fixed_evaluation(X_eval, y_eval, p, f, imputer)

    groups = resolve_features(features, p, names)

    X_grid = impute_rows(imputer, Xa)[0]  # the grids of every refit: from all rows, imputed
    pd_specs = _pd_specs(X_grid, names, groups, pd_features, d.grids, resolution, d.kind, d.percentiles)
    if pfi_features is None:
        pfi_groups = groups
    else:
        pfi_groups = resolve_features(pfi_features, p, names) if len(pfi_features) else {}

    splits = subsample_splits(n, K, f, d.random_state, strata=ya if d.stratify else None)
    n1 = splits[0][0].size
    n2 = fixed[0].shape[0] if fixed is not None else n - n1
    if n2 < 2:
        raise ValueError(f"only {n2} evaluation rows per refit; lower fraction")

    first = _build(estimator, 0, False)
    from sklearn.base import is_classifier

    classifier = bool(is_classifier(first))
    loss = d.loss if d.loss is not None else default_loss("classification" if classifier else "regression")
    out_label = ("proba" if classifier else "predict") if d.pd_output == "auto" else d.pd_output
    # the design each refit runs: the checked counts and the resolved loss
    run = dataclasses.replace(d, n_repeats=n_repeats, loss=loss, max_rows_per_batch=int(d.max_rows_per_batch))

    seeds = refit_seeds(d.random_state, K)
    eval_rows = [fixed[0] if fixed is not None else Xa[hold] for _, hold in splits]
    if imputer is not None and effects is not None:  # the evaluation rows as each refit imputes them
        eval_rows = [impute_rows(imputer, Xa[train], Xk)[1] for (train, _), Xk in zip(splits, eval_rows)]
    multiclass = classifier and np.unique(ya).size > 2
    plan = plan_effects(
        effects,
        X_grid,
        names,
        groups,
        eval_rows,
        [s[0] for s in seeds],
        output=d.pd_output,
        class_index=d.pd_class_index,
        shap_class=d.pd_class_index if multiclass else None,
    )
    tasks = []
    for k, ((train, hold), (_, mseed, pseed)) in enumerate(zip(splits, seeds)):
        evaluation = fixed if fixed is not None else (Xa[hold], ya[hold])
        fit = (Xa, ya, train)
        tasks.append(
            delayed(_one_refit)(
                k, estimator, run, (mseed, pseed), fit, evaluation, pd_specs, pfi_groups, imputer, plan, (n1, n2)
            )
        )
    results = Parallel(n_jobs=n_jobs, backend="loky" if n_jobs != 1 else "sequential")(tasks)
    results = sorted(results, key=lambda r: r[0])
    pd_rows, pfi_rows, shap_rows, ale_rows = _refit_rows(results, pd_specs, out_label, resolve_loss(loss)[0], (n1, n2))
    out = (pd.DataFrame(pd_rows, columns=PD_REFIT_COLUMNS), pd.DataFrame(pfi_rows, columns=PFI_REFIT_COLUMNS))
    if effects is None:
        return out
    return (
        *out,
        pd.DataFrame(shap_rows, columns=SHAP_REFIT_COLUMNS),
        pd.DataFrame(ale_rows, columns=ALE_REFIT_COLUMNS),
    )


def _column_names(names, feature_names, p: int) -> list[str]:
    """The column names: ``feature_names``, else the DataFrame's, else ``x0, x1, ...``."""
    if feature_names is not None:
        names = [str(c) for c in feature_names]
    if names is None:
        names = [f"x{j}" for j in range(p)]
    if len(names) != p:
        raise ValueError(f"{len(names)} feature names for {p} columns")
    return names


def _fixed_evaluation(X_eval, y_eval, p: int, fraction: float, imputer):
    """The checked fixed evaluation sample ``(X_eval, y_eval)``, or None (each refit's held-out rows)."""
    if X_eval is not None or y_eval is not None:
        if X_eval is None or y_eval is None:
            raise ValueError("give both X_eval and y_eval, or neither")
        Xe, ye, _ = _check_Xy(X_eval, y_eval, "X_eval", allow_nan=imputer is not None)
        if Xe.shape[1] != p:
            raise ValueError(f"X_eval has {Xe.shape[1]} columns, X has {p}")
        return Xe, ye
    if fraction == 1.0:
        raise ValueError("fraction=1 leaves no held-out rows; lower it or pass eval_set=(X_eval, y_eval)")
    return None


def _refit_rows(results, pd_specs, out_label: str, loss_name: str, sizes) -> tuple[list, list, list, list]:
    """The rows of the PD, PFI, SHAP and ALE refit tables, refit by refit."""
    n1, n2 = sizes
    pd_rows, pfi_rows, shap_rows, ale_rows = [], [], [], []
    for k, pds, arrays, (shap_k, ale_k) in results:
        shap_rows += shap_k
        ale_rows += ale_k
        for spec, values in zip(pd_specs, pds):
            for i, (gv, val) in enumerate(zip(spec.values, values)):
                pd_rows.append(
                    (k, spec.name, i, float(gv), spec.levels[i] if spec.levels else "", out_label, float(val), n1, n2)
                )
        if arrays is not None:
            pfi_rows += _pfi_rows(k, arrays, loss_name, n1, n2)
    return pd_rows, pfi_rows, shap_rows, ale_rows


def _pfi_rows(k: int, arrays, loss_name: str, n1: int, n2: int) -> list[tuple]:
    """One refit's PFI rows: per variable, the MR averaged over the repeats."""
    diff = arrays.mr_difference().mean(axis=2)[0]
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = arrays.mr_ratio().mean(axis=2)[0]
    e_sw = arrays.e_switch.mean(axis=2)[0]
    R = arrays.e_switch.shape[2]
    return [
        (k, name, arrays.estimator, loss_name, float(arrays.e_orig[0]), float(e_sw[g]), float(diff[g]),
         float(ratio[g]), R, n1, n2)
        for g, name in enumerate(arrays.features)
    ]  # fmt: skip


def learner_pd_pfi(
    estimator, X, y, design: RefitDesign | None = None, *, confidence: float = 0.95, **kwargs
) -> LearnerResult:
    """Learner-PD and learner-PFI with corrected confidence intervals (Molnar et al. 2023).

    :func:`learner_refits` followed by :func:`learner_pd_table` and
    :func:`learner_pfi_table`; every keyword of :func:`learner_refits` is
    accepted.

    Parameters
    ----------
    estimator, X, y, design, **kwargs
        See :func:`learner_refits`.
    confidence : float in (0, 1), default 0.95

    Returns
    -------
    LearnerResult
        Empty ``pd`` / ``pfi`` tables when ``pd_features=[]`` /
        ``pfi_features=[]``.

    Raises
    ------
    ValueError, TypeError
        As :func:`learner_refits`.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LinearRegression
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-1, 1, (200, 2)); y = X[:, 0] + rng.normal(0, 0.1, 200)
    >>> res = learner_pd_pfi(LinearRegression(), X, y,
    ...                      RefitDesign(n_refits=5, resolution=3, pfi_estimator="e_divide"))
    >>> res.pd[["feature", "grid_index"]].shape, list(res.pfi["feature"])
    ((6, 2), ['x0', 'x1'])
    """
    c = check_confidence(confidence)
    pd_refits, pfi_refits, *more = learner_refits(estimator, X, y, design, **kwargs)
    pd_tab = (
        learner_pd_table(pd_refits, confidence=c) if not pd_refits.empty else pd.DataFrame(columns=LEARNER_PD_COLUMNS)
    )
    pfi_tab = (
        learner_pfi_table(pfi_refits, confidence=c)
        if not pfi_refits.empty
        else pd.DataFrame(columns=LEARNER_PFI_COLUMNS)
    )
    res = LearnerResult(pd=pd_tab, pfi=pfi_tab, pd_refits=pd_refits, pfi_refits=pfi_refits)
    if not more:
        return res
    shap_refits, ale_refits = more
    centering = kwargs["effects"].ale_centering
    return dataclasses.replace(
        res,
        shap=learner_shap_table(shap_refits, confidence=c) if len(shap_refits) else res.shap,
        ale=learner_ale_table(ale_refits, confidence=c, centering=centering) if len(ale_refits) else res.ale,
        shap_refits=shap_refits,
        ale_refits=ale_refits,
    )
