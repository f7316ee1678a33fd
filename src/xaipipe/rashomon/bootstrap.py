"""Bootstrap of the Rashomon set: the Rashomon importance distribution (RID).

Method (Donnelly, Katta, Rudin & Browne 2023, "The Rashomon Importance
Distribution: Getting RID of Unstable, Single Model-based Variable Importance",
NeurIPS 2023; the four steps of its framework overview, Fig. 2, and its
definition of :math:`\\mathrm{RID}_j(k; \\varepsilon, \\mathcal F, \\ell, \\mathcal P_n, \\lambda)`
with :math:`\\lambda` the counting measure of a finite model class)
-------------------------------------------------------------------------------
For a model class :math:`\\mathcal F`, a loss and a variable importance
:math:`\\phi_j(f, D)`:

1. draw :math:`B` bootstrap data sets :math:`D^{(b)}` (``n`` rows with
   replacement) from the data :math:`D`;
2. on each, find the Rashomon set
   :math:`R^{(b)} = R_\\varepsilon(D^{(b)}) = \\{f \\in \\mathcal F :
   \\hat L(f) \\le \\hat L(f^{(b)}_{ref}) + \\varepsilon\\}`
   (:math:`f^{(b)}_{ref}` the best model of resample :math:`b`; or the
   multiplicative :math:`\\hat L(f) \\le (1 + \\varepsilon) \\hat L(f^{(b)}_{ref})`);
3. compute :math:`\\phi_j` for every member;
4. the RID of variable :math:`j` is the mixture that gives every resample mass
   :math:`1/B`, spread uniformly over its members:

   :math:`\\widehat{\\mathrm{RID}}_j(k) = \\frac1B \\sum_{b=1}^B
   \\frac{|\\{f \\in R^{(b)} : \\phi_j(f, \\cdot) \\le k\\}|}{|R^{(b)}|}`

   -- a CDF over importance values; member :math:`f \\in R^{(b)}` has weight
   :math:`1/(B\\,|R^{(b)}|)`. Its quantiles, mean and :math:`P(\\phi_j > 1)`
   summarise how important :math:`j` is across good models *and* data
   perturbations (:func:`rid_cdf`, :func:`rid_summary`).

Besides the RID this module returns, per resample, the model class reliance
:math:`[MCR^-, MCR^+] = [\\min_{R^{(b)}} MR, \\max_{R^{(b)}} MR]` (Fisher, Rudin &
Dominici 2019, §4; seed 001 §4.1.3) and percentile intervals of both endpoints
across resamples (:func:`mcr_per_resample`, :func:`mcr_summary`), and the set
sizes :math:`|R^{(b)}|`.

Implementation
--------------
* **Model class**: the configurations of hyperparameter grids of one or several
  families (:func:`xaipipe.models.grid.expand_grid`), each a fixed learner
  (:func:`xaipipe.models.families.make_estimator` with one seed). On a
  resample every configuration is refitted; configurations differing only in
  ``n_estimators`` come from *one* fit with the largest value
  (:func:`xaipipe.models.prefix.prefix_predictions`, bitwise equal to separate
  fits), so a resample costs one fit per prefix group
  (:func:`xaipipe.models.grid.prefix_groups`). Fits whose estimator raises
  :class:`numpy.linalg.LinAlgError` are kept as ``status="failed"`` and never
  enter the set (as in :mod:`xaipipe.models.cv`).
* **Membership loss** (``metric``, a loss of :mod:`xaipipe.models.metrics`;
  default ``rmse`` for regression and ``log_loss`` for classification, the
  pipeline's selection metrics, so that ``epsilon`` means what it means in the
  MCR step) is measured on the **out-of-bag** rows of the resample (about
  :math:`e^{-1} \\approx 36.8\\%` of ``n``). Donnelly et al.
  enumerate regularised models by their training objective, which is
  meaningful for their sparse trees; for fitted ensembles the training loss
  would always elect the largest, most over-fitted configuration. Out-of-bag
  loss is an honest error estimate of each refit at the cost of one
  prediction pass, against ``k`` extra fits per configuration for a nested
  ``k``-fold CV.
* **Set**: :func:`xaipipe.rashomon.sets.rashomon_set` on a per-resample table
  of out-of-bag losses -- the same membership rule as the pipeline's MCR
  (``gap <= epsilon`` with ``gap`` the loss minus the reference's, absolute or
  relative; reference = the resample's best configuration, first in grid order
  on ties).
* **Importance** :math:`\\phi_j` = model reliance of
  :mod:`xaipipe.explain.reliance` (``mr_estimator`` ``permutation`` /
  ``e_divide`` / ``e_switch``; both ``mr_ratio`` and ``mr_difference`` are
  kept), computed on (``mr_data``):

  - ``"oob"`` (default): the resample's out-of-bag rows -- unseen by its
    models, and varying with the resample as :math:`\\phi_j(f, D^{(b)})` does
    in the RID, so the RID includes the sampling variability of the
    evaluation data;
  - ``"test"``: one fixed external sample (the pipeline's test split) for
    every resample -- comparable with the pipeline's single-model MR and
    MCR, which are computed on the test split; the RID then reflects training
    data and Rashomon variability only.

  Computed by :func:`xaipipe.rashomon.refit.group_reliance` (one pass per
  fitted group; :func:`xaipipe.explain.reliance.model_reliance`: the tree engine for random forests
  and gradient boosting, the generic path otherwise).
  With ``permutation``, all members of one resample share the same
  permutations (common random numbers: members differ in MR because they
  differ as models, not by permutation noise); resamples use independent
  permutations.
* **Randomness**: ``SeedSequence(random_state)`` is spawned into one child per
  resample (bootstrap rows, permutations), so resample ``b`` is the same for
  any ``n_bootstrap`` and ``n_jobs``. Estimators use one fixed ``seed`` (the
  pipeline's), so the only perturbation is the data, as in the paper.
* **Cost**: ``n_bootstrap`` x (one fit per prefix group + prediction of the
  out-of-bag rows + MR of the members' groups). Resamples run in parallel
  (``n_jobs`` joblib processes, each fit single-threaded); a worker holds the
  fitted models of one resample until its set is known.

Departures from Donnelly et al. (2023)
--------------------------------------
1. Membership by out-of-bag loss instead of the in-sample objective (above).
2. ``epsilon_mode="relative"`` (default, as the pipeline's MCR) is the
   multiplicative threshold :math:`(1 + \\varepsilon)\\hat L(f_{ref})` (Dong &
   Rudin 2020); ``"absolute"`` is Fisher et al.'s additive
   :math:`\\hat L(f_{ref}) + \\varepsilon`. Choose ``epsilon`` as in the MCR
   step so that the bootstrap sets are comparable with the full-data set.
3. The model class is a finite hyperparameter grid of learners, each member
   weighted equally (the counting measure), not an enumerated set of sparse
   trees.
4. A multiclass target is resampled within each class (``bootstrap_indices``'
   ``strata``), so that every refit knows every class (``docs/multiclass.md``);
   binary and regression targets are resampled plainly.

The per-resample refits, set and MR live in the private :mod:`xaipipe.rashomon._resample`
(with :func:`grid_configurations`): the one-job bootstrap, its shards and their combination all run
a resample through it, so they give the same bytes for any split into jobs.

Only the resampling, the per-resample refits and the RID / MCR summaries are
new here: the set is :func:`xaipipe.rashomon.sets.rashomon_set` and the MR of a
fitted group :func:`xaipipe.rashomon.refit.group_reliance`.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..config.rashomon import BootstrapSettings
from ..data.prepare import importance_groups
from ..data.resample import bootstrap_indices, resample_seeds
from ..validation import check_finite, check_int, check_matrix
from ._frames import NamedFrames
from ._resample import ResampleRun, grid_configurations, one_resample
from .rid import MCR_COLUMNS, mcr_per_resample, mcr_summary, rid_summary

# The RID and MCR summaries live in xaipipe.rashomon.rid (tables layer).

__all__ = [
    "MODEL_COLUMNS",
    "BOOTSTRAP_RELIANCE_COLUMNS",
    "SIZE_COLUMNS",
    "MCR_COLUMNS",
    "BootstrapEngine",
    "BootstrapReliance",
    "BootstrapShard",
    "BootstrapTables",
    "RashomonBootstrap",
    "bootstrap_indices",
    "bootstrap_rashomon",
    "bootstrap_tables",
    "bootstrap_shard",
    "combine_bootstrap_shards",
    "grid_configurations",
    "resample_seeds",
]

MR_DATA = ("oob", "test")

MODEL_COLUMNS = [
    "bootstrap",
    "family",
    "config_id",
    "prefix_group",
    "status",
    "metric",
    "loss",
    "best_loss",
    "gap",
    "threshold",
    "in_set",
    "is_best",
    "n_oob",
]
BOOTSTRAP_RELIANCE_COLUMNS = [
    "bootstrap",
    "family",
    "config_id",
    "feature",
    "estimator",
    "loss",
    "e_orig",
    "e_switch",
    "mr_ratio",
    "mr_difference",
    "set_size",
    "weight",
]
SIZE_COLUMNS = [
    "bootstrap",
    "n_models",
    "n_failed",
    "set_size",
    "best_family",
    "best_config_id",
    "best_loss",
    "threshold",
    "n_unique_rows",
    "n_oob",
    "n_mr",
]


# ----------------------------------------------------------------------------- small pieces


def default_metric(task: str) -> str:
    """Membership loss by task: ``"rmse"`` (regression), ``"log_loss"`` (classification),
    the pipeline's model-selection metrics."""
    if task == "regression":
        return "rmse"
    if task == "classification":
        return "log_loss"
    raise ValueError(f"unknown task {task!r}; expected 'regression' or 'classification'")


# ----------------------------------------------------------------------------- public API


@dataclass(frozen=True, eq=False)
class BootstrapReliance:
    """How :func:`bootstrap_rashomon` computes the MR of the members (its ``reliance=``).

    Attributes
    ----------
    estimator : {"permutation", "e_divide", "e_switch"}, default "permutation"
        The MR estimator (:mod:`xaipipe.explain.reliance`).
    loss : str or callable, optional
        Per-sample loss of the MR; default ``squared_error`` / ``log_loss``.
    n_repeats : int, default 5
        Random permutations (``permutation``) or halvings (``e_divide``) per variable, shared by
        the members of a resample.
    data : {"oob", "test"}, default "oob"
        Where MR is computed (module docstring); ``"test"`` needs ``X_test``, ``y_test``.
    X_test : array-like of shape (m, p), optional
    y_test : array-like of shape (m,), optional
        The fixed MR sample of ``data="test"`` (``m >= 2``).
    features : mapping name -> columns, sequence or None
        Variables of the MR (one-hot groups permuted jointly), as
        :func:`xaipipe.explain.reliance.resolve_features`.
    feature_names : sequence of str, optional
        Column names of ``X`` (default: a DataFrame's columns).
    max_rows_per_batch : int, default 65536
        Passed to :func:`xaipipe.explain.reliance.model_reliance`.
    """

    estimator: str = "permutation"
    loss: Any = None
    n_repeats: int = 5
    data: str = "oob"
    X_test: Any = None
    y_test: Any = None
    features: Any = None
    feature_names: Sequence[str] | None = None
    max_rows_per_batch: int = 1 << 16


@dataclass(frozen=True, eq=False)
class BootstrapEngine:
    """How :func:`bootstrap_rashomon` refits and which resamples it runs (its ``engine=``); none of
    these changes a resample's numbers.

    Attributes
    ----------
    options : mapping family -> mapping, optional
        Fixed estimator options (config ``estimator_options``).
    imputer : xaipipe.data.impute.MissingValueImputer, optional
        Missing values (NaN in ``X`` / ``X_test``; ``missing: impute``): a clone is fitted on each
        resample's in-bag rows and fills its in-bag, out-of-bag and MR rows
        (:func:`xaipipe.data.impute.impute_rows`). Default None: ``X`` must be finite.
    resamples : sequence of int, optional
        Only these resamples of the ``n_bootstrap`` (indices in ``[0, n_bootstrap)``), each
        exactly as in the full run (its own child seed): one job of a split bootstrap
        (:func:`bootstrap_shard`). Default: all.
    forest_blocks : (min_rows, block_trees), optional
        Memory only (``large_data.forest_block_rows`` / ``forest_block_trees``): with at least
        ``min_rows`` in-bag rows, a resample's random forests / extra trees are fitted
        ``block_trees`` trees at a time into forest stores in a temporary folder and read one block
        at a time (out-of-bag losses, MR; :func:`xaipipe.models.fitting.fit_group`'s
        ``forest_store``), bitwise the same tables. None: forests held whole.
    """

    options: Mapping[str, Mapping[str, Any]] | None = None
    imputer: Any = None
    resamples: Sequence[int] | None = None
    forest_blocks: tuple[int, int] | None = None


@dataclass(frozen=True)
class RashomonBootstrap:
    """Output of :func:`bootstrap_rashomon`.

    Attributes
    ----------
    models : DataFrame
        :data:`MODEL_COLUMNS`: every configuration on every resample with its
        out-of-bag ``loss`` (``metric`` units), ``best_loss`` (the reference's),
        ``gap`` (to the reference, in the units of ``epsilon_mode``),
        ``threshold``, ``in_set``, ``is_best`` (the reference).
    reliance : DataFrame
        :data:`BOOTSTRAP_RELIANCE_COLUMNS`: one row per resample x member x feature;
        ``weight = 1 / set_size`` (sums to 1 within a resample and feature).
    sizes : DataFrame
        :data:`SIZE_COLUMNS`: one row per resample.
    mcr : DataFrame
        :data:`MCR_COLUMNS` (:func:`mcr_per_resample`).
    """

    models: pd.DataFrame
    reliance: pd.DataFrame
    sizes: pd.DataFrame
    mcr: pd.DataFrame


def _check_set_rule(task, metric, epsilon, epsilon_mode) -> str:
    """The membership loss (default by task) after checking it, ``epsilon`` and ``epsilon_mode``."""
    from ..models.metrics import LOWER_IS_BETTER
    from .sets import EPSILON_MODES

    metric = default_metric(task) if metric is None else metric
    if metric not in LOWER_IS_BETTER:
        raise ValueError(f"metric {metric!r} is not a loss; choose one of {sorted(LOWER_IS_BETTER)}")
    if task == "regression" and metric not in ("mse", "rmse", "mae"):
        raise ValueError(f"metric {metric!r} is not a regression loss")
    if task == "classification" and metric in ("mse", "rmse", "mae"):
        raise ValueError(f"metric {metric!r} is not a classification loss")
    if (
        isinstance(epsilon, (bool, np.bool_))
        or not isinstance(epsilon, numbers.Real)
        or not (np.isfinite(epsilon) and epsilon >= 0)
    ):
        raise ValueError(f"epsilon must be a finite number >= 0, got {epsilon!r}")
    if epsilon_mode not in EPSILON_MODES:
        raise ValueError(f"epsilon_mode must be one of {EPSILON_MODES}, got {epsilon_mode!r}")
    return metric


def _check_resamples(resamples, B):
    """The resamples to run, sorted (all of ``range(B)`` by default)."""
    wanted = range(B) if resamples is None else sorted({check_int(b, "resamples", minimum=0) for b in resamples})
    if not wanted or wanted[-1] >= B:
        raise ValueError(f"resamples must be a non-empty subset of 0..{B - 1}, got {resamples!r}")
    return wanted


def _check_target(ya, task):
    """``y`` as int64 labels (and the multiclass strata, else None) or finite float64 values."""
    strata = None
    if task == "classification":
        if not np.isin(ya, (0, 1)).all():
            # multiclass: labels 0..K-1, resampled within each class (bootstrap_indices' strata)
            codes = ya.astype(np.int64) if np.issubdtype(ya.dtype, np.number) else None
            if (
                codes is None
                or not np.array_equal(codes, ya)
                or not np.array_equal(np.unique(codes), np.arange(codes.max() + 1))
            ):
                raise ValueError("classification needs labels 0/1, or 0..K-1 (every class present) for K classes")
            strata = codes
        return ya.astype(np.int64), strata
    ya = ya.astype(np.float64)
    check_finite(ya, "y")
    return ya, strata


def _check_data(X, y, task, allow_nan):
    """``(X as float64, y, strata, column names or None)`` after the shape and value checks."""
    names = None
    if hasattr(X, "columns") and hasattr(X, "to_numpy"):
        names = [str(c) for c in X.columns]
        X = X.to_numpy()
    Xa = check_matrix(X, "X", allow_nan=allow_nan, min_rows=4)
    ya = np.asarray(y)
    if ya.ndim != 1 or ya.shape[0] != Xa.shape[0]:
        raise ValueError(f"y must have shape ({Xa.shape[0]},), got {ya.shape}")
    ya, strata = _check_target(ya, task)
    return Xa, ya, strata, names


def _test_rows(reliance, Xa, ya):
    """The fixed MR sample of ``reliance.data="test"`` (None, None with ``"oob"``)."""
    X_test, y_test = reliance.X_test, reliance.y_test
    if reliance.data != "test":
        if X_test is not None or y_test is not None:
            raise ValueError("X_test / y_test are only used with mr_data='test'")
        return None, None
    if X_test is None or y_test is None:
        raise ValueError("mr_data='test' needs X_test and y_test")
    Xt = np.asarray(X_test.to_numpy() if hasattr(X_test, "to_numpy") else X_test, dtype=np.float64)
    yt = np.asarray(y_test)
    if Xt.ndim != 2 or Xt.shape[1] != Xa.shape[1] or yt.shape != (Xt.shape[0],) or Xt.shape[0] < 2:
        raise ValueError(f"X_test / y_test must have {Xa.shape[1]} columns and matching rows (>= 2)")
    return Xt, yt.astype(ya.dtype)


def _check_families(groups, task):
    from ..models.families import get_family

    for g in groups:
        if task not in get_family(g["family"]).tasks:
            raise ValueError(f"family {g['family']!r} does not support task {task!r}")


def _with_params(models, groups):
    """``models`` with the hyperparameter columns (union over families), as the CV tables have."""
    params = {}
    for g in groups:
        for cid, cfg in zip(g["config_ids"], g["configs"]):
            params[(g["family"], cid)] = cfg
    keys = list(dict.fromkeys(k for cfg in params.values() for k in cfg))
    for k in keys:
        # object dtype: integers stay integers next to the other families' None
        models[k] = pd.Series(
            [params[(f, c)].get(k) for f, c in zip(models["family"], models["config_id"])],
            index=models.index,
            dtype=object,
        )
    return models


def bootstrap_rashomon(
    X,
    y,
    *,
    task: str,
    grids: Mapping[str, Any],
    epsilon: float,
    epsilon_mode: str = "relative",
    metric: str | None = None,
    n_bootstrap: int = 10,
    random_state: int = 0,
    n_jobs: int = 1,
    reliance: BootstrapReliance | None = None,
    engine: BootstrapEngine | None = None,
) -> RashomonBootstrap:
    """Bootstrap the Rashomon set of a hyperparameter grid (Donnelly et al. 2023).

    Parameters
    ----------
    X : array-like of shape (n, p)
        Data to resample (the pipeline's training split); a DataFrame gives
        feature names.
    y : array-like of shape (n,)
        Target (0/1 labels for classification; ``0 .. K-1`` for a multiclass target,
        which is then resampled within each class, :func:`bootstrap_indices`).
    task : {"regression", "classification"}
    grids : mapping family -> grid
        The model class (:func:`grid_configurations`), e.g. the config's
        ``grids.regression`` or a subset of its families.
    epsilon : float >= 0
        Rashomon tolerance as a fraction of the resample's best loss
        (``relative``; 0.05 = within 5 %) or in ``metric`` units (``absolute``).
    epsilon_mode : {"relative", "absolute"}, default "relative"
        As :func:`xaipipe.rashomon.sets.rashomon_set`.
    metric : str, optional
        Membership loss, one of :data:`xaipipe.models.metrics.LOWER_IS_BETTER`
        (default :func:`default_metric`), on the out-of-bag rows.
    n_bootstrap : int, default 10
        ``B``.
    random_state : int, default 0
        The pipeline's seed: ``random_state`` of every estimator and root seed of
        the resamples and permutations (:func:`resample_seeds`).
    n_jobs : int, default 1
        Worker processes over resamples; results do not depend on it.
    reliance : BootstrapReliance, optional
        The members' MR: estimator, loss, repeats, variables and where it is computed (default
        ``BootstrapReliance()``: permutation MR on the out-of-bag rows, one variable per column).
    engine : BootstrapEngine, optional
        Fixed estimator options, the imputer of missing values, the resamples to run, forests
        in blocks (default ``BootstrapEngine()``: none, all).

    Returns
    -------
    RashomonBootstrap
        With ``engine.resamples``: the rows of those resamples only (``mcr`` too).

    Raises
    ------
    ValueError, TypeError, KeyError
        Invalid data, grid, task, metric, epsilon, ``reliance.data`` or MR options;
        a resample on which every configuration failed.
    """
    from joblib import Parallel, delayed

    from ..explain.reliance import ESTIMATORS, estimator_stream, random_permutations, resolve_features
    from ..losses import default_loss, resolve_loss

    mr = BootstrapReliance() if reliance is None else reliance
    engine = BootstrapEngine() if engine is None else engine
    metric = _check_set_rule(task, metric, epsilon, epsilon_mode)
    if mr.data not in MR_DATA:
        raise ValueError(f"mr_data must be one of {MR_DATA}, got {mr.data!r}")
    if mr.estimator not in ESTIMATORS:
        raise ValueError(f"unknown mr_estimator {mr.estimator!r}; choose one of {list(ESTIMATORS)}")
    R = check_int(mr.n_repeats, "n_repeats", minimum=1)
    B = check_int(n_bootstrap, "n_bootstrap", minimum=1)
    seed = check_int(random_state, "random_state", minimum=0)
    wanted = _check_resamples(engine.resamples, B)

    Xa, ya, strata, names = _check_data(X, y, task, allow_nan=engine.imputer is not None)
    if mr.feature_names is not None:
        names = [str(c) for c in mr.feature_names]
    fgroups = resolve_features(mr.features, Xa.shape[1], names)
    Xt, yt = _test_rows(mr, Xa, ya)
    mr_loss = default_loss(task) if mr.loss is None else mr.loss
    resolve_loss(mr_loss)

    groups = grid_configurations(grids)
    _check_families(groups, task)
    splits = bootstrap_indices(Xa.shape[0], B, random_state, strata=strata)
    seeds = resample_seeds(random_state, B)
    run = ResampleRun(
        groups=groups,
        task=task,
        X=Xa,
        y=ya,
        fgroups=fgroups,
        metric=metric,
        epsilon=float(epsilon),
        mode=epsilon_mode,
        mr_estimator=mr.estimator,
        mr_loss=mr_loss,
        seed=seed,
        options=engine.options,
        max_rows=int(mr.max_rows_per_batch),
        imputer=engine.imputer,
        forest_blocks=engine.forest_blocks,
    )

    tasks = []
    for b in wanted:
        (boot, oob), (_, s_perm) = splits[b], seeds[b]
        X_mr, y_mr = (Xa[oob], ya[oob]) if mr.data == "oob" else (Xt, yt)
        perms = (
            random_permutations(X_mr.shape[0], R, len(fgroups), estimator_stream(mr.estimator, s_perm))
            if mr.estimator in ("permutation", "e_divide")
            else None
        )
        tasks.append(delayed(one_resample)(run, b, boot, oob, X_mr, y_mr, perms))
    results = Parallel(n_jobs=int(n_jobs), backend="loky" if int(n_jobs) != 1 else "sequential")(tasks)
    results = sorted(results, key=lambda r: r[0])

    models = pd.DataFrame([m for r in results for m in r[1]], columns=MODEL_COLUMNS)
    rel = pd.DataFrame([m for r in results for m in r[2]], columns=BOOTSTRAP_RELIANCE_COLUMNS)
    sizes = pd.DataFrame([r[3] for r in results], columns=SIZE_COLUMNS)
    return RashomonBootstrap(models=_with_params(models, groups), reliance=rel, sizes=sizes, mcr=mcr_per_resample(rel))


@dataclass(frozen=True)
class BootstrapShard(NamedFrames):
    """One job of the split ``rashomon_bootstrap`` (:func:`bootstrap_shard`).

    Attributes
    ----------
    models, reliance : DataFrame
        :class:`RashomonBootstrap`'s tables of the job's resamples.
    sizes : DataFrame
        :class:`RashomonBootstrap`'s, with ``epsilon`` and ``epsilon_mode`` columns: the tolerance
        actually used (absolute after ``epsilon_mode="se"``).
    """

    models: pd.DataFrame
    reliance: pd.DataFrame
    sizes: pd.DataFrame

    #: The tables, in the order the rule stores them.
    FRAMES = ("models", "reliance", "sizes")


def bootstrap_shard(
    data,
    settings: BootstrapSettings,
    summary: pd.DataFrame | None,
    *,
    grids: Mapping[str, Any],
    resamples: Sequence[int] | None = None,
    n_jobs: int = 1,
    forest_blocks: tuple[int, int] | None = None,
) -> BootstrapShard:
    """The ``rashomon_bootstrap_shard`` rule: the per-resample tables of some bootstrap resamples.

    :func:`bootstrap_rashomon` of the model class ``grids`` on the training rows with their missing
    values (``data.X_train_raw``: each resample imputes from its own in-bag rows with a clone of
    ``data.imputer``), the variables being one-hot groups
    (:func:`xaipipe.explain.reliance.features_from_groups`); the test split is used only with
    ``mr_data="test"``. With ``epsilon_mode="se"`` the tolerance is made absolute once, from the CV
    summary of the same model class (``summary``: ``epsilon`` standard errors of its best
    configuration's CV loss, :func:`xaipipe.rashomon.sets.rashomon_set`), and every resample uses
    that absolute bound above its own best out-of-bag loss (the ``epsilon`` column of ``sizes``).
    Resample ``b`` does not depend on which others a job runs, so :func:`combine_bootstrap_shards`
    of the shards of any partition of ``range(n_bootstrap)`` gives the tables of the unsplit run.

    Parameters
    ----------
    data : PreparedData
        The dataset's split (:func:`xaipipe.data.prepare.load_prepared`): ``X_train_raw``,
        ``y_train``, ``X_test_raw``, ``y_test``, ``features``, ``feature_groups``, ``imputer``.
    settings : BootstrapSettings
        :meth:`xaipipe.config.BootstrapSettings.from_config`: ``B``, ``mr_data``, the MR
        estimator and repeats, and the Rashomon step's task, metric, ε, ε rule, MR loss, seed and
        estimator options.
    summary : DataFrame or None
        The model class's CV summaries (needed with ``epsilon_mode="se"`` only).
    grids : mapping family -> grid
        The model class (:func:`grid_configurations`).
    resamples : sequence of int, optional
        The job's resamples (default all; :meth:`BootstrapSettings.shard_resamples`).
    n_jobs : int, default 1
        Worker processes; results do not depend on it.
    forest_blocks : (min_rows, block_trees), optional
        Memory only: :func:`bootstrap_rashomon`'s (``large_data.forest_block_rows`` /
        ``forest_block_trees``); the tables are bitwise the same.

    Returns
    -------
    BootstrapShard

    Raises
    ------
    ValueError
        As :func:`bootstrap_rashomon`; ``epsilon_mode="se"`` without ``summary``.
    """
    from ..explain.reliance import features_from_groups
    from .sets import rashomon_set

    r = settings.rashomon
    epsilon, epsilon_mode = r.epsilon, r.epsilon_mode
    if epsilon_mode == "se":
        if summary is None:
            raise ValueError("epsilon_mode='se' needs the CV summary (the model class's CV summaries)")
        rs = rashomon_set(summary, metric=r.metric, epsilon=epsilon, mode="se")
        epsilon, epsilon_mode = rs.loss_bound - float(rs.reference["loss"]), "absolute"
    feature_names = list(data.features)
    result = bootstrap_rashomon(
        data.X_train_raw,
        data.y_train,
        task=r.task,
        grids=grids,
        epsilon=epsilon,
        epsilon_mode=epsilon_mode,
        metric=r.metric,
        n_bootstrap=settings.n_bootstrap,
        random_state=r.seed,
        n_jobs=n_jobs,
        reliance=BootstrapReliance(
            estimator=settings.estimator,
            loss=r.loss,
            n_repeats=settings.n_repeats,
            data=settings.mr_data,
            **({"X_test": data.X_test_raw, "y_test": data.y_test} if settings.mr_data == "test" else {}),
            # one-hot and user groups one variable each, as in the MCR tables
            features=features_from_groups(feature_names, importance_groups(data)),
            feature_names=feature_names,
        ),
        engine=BootstrapEngine(
            options=r.options, imputer=data.imputer, resamples=resamples, forest_blocks=forest_blocks
        ),
    )
    sizes = result.sizes.assign(epsilon=float(epsilon), epsilon_mode=epsilon_mode)
    return BootstrapShard(models=result.models, reliance=result.reliance, sizes=sizes)


@dataclass(frozen=True)
class BootstrapTables(NamedFrames):
    """The tables of the ``rashomon_bootstrap`` rule (:func:`combine_bootstrap_shards`), each with
    ``dataset`` first.

    Attributes
    ----------
    models, reliance, sizes, mcr : DataFrame
        :class:`RashomonBootstrap`'s tables of all resamples (``sizes`` with the ε actually used).
    rid : DataFrame
        :func:`rid_summary`.
    mcr_summary : DataFrame
        :func:`mcr_summary` at the rule's ``confidence``.
    """

    models: pd.DataFrame
    reliance: pd.DataFrame
    sizes: pd.DataFrame
    mcr: pd.DataFrame
    rid: pd.DataFrame
    mcr_summary: pd.DataFrame

    #: The tables, in the order the rule writes them.
    FRAMES = ("models", "reliance", "sizes", "mcr", "rid", "mcr_summary")


def combine_bootstrap_shards(
    shards: Sequence[Mapping[str, pd.DataFrame]], *, n_bootstrap: int, dataset: str, confidence: float = 0.95
) -> BootstrapTables:
    """The aggregation of the split ``rashomon_bootstrap``: the rule's six tables from its shards.

    Parameters
    ----------
    shards : sequence of BootstrapShard or dict
        :func:`bootstrap_shard` outputs (or their :meth:`BootstrapShard.to_frames`, as the rule
        stores them), in any order, that together hold every resample ``0..B-1`` once.
    n_bootstrap : int
        ``B``.
    dataset : str
        Written first in every table.
    confidence : float
        Level of :func:`mcr_summary`.

    Returns
    -------
    BootstrapTables
        ``models``, ``reliance``, ``sizes``, ``mcr`` (:func:`mcr_per_resample`),
        ``rid`` (:func:`rid_summary`) and ``mcr_summary``, each with ``dataset``
        first: those of :func:`bootstrap_tables` on all resamples.

    Raises
    ------
    ValueError
        No shards, or resamples missing or repeated.
    """
    from ..io import with_ids

    if not shards:
        raise ValueError("no bootstrap shards to combine")
    shards = [sh.to_frames() if isinstance(sh, BootstrapShard) else sh for sh in shards]

    def joined(name):
        frame = pd.concat([sh[name] for sh in shards], ignore_index=True)
        return frame.sort_values("bootstrap", kind="stable").reset_index(drop=True)

    models, reliance, sizes = joined("models"), joined("reliance"), joined("sizes")
    got = sizes["bootstrap"].to_numpy()
    if not np.array_equal(got, np.arange(n_bootstrap)):
        raise ValueError(f"bootstrap shards must hold resamples 0..B-1 once each, got {sorted(got.tolist())}")
    mcr = mcr_per_resample(reliance)
    tables = {
        "models": models,
        "reliance": reliance,
        "sizes": sizes,
        "mcr": mcr,
        "rid": rid_summary(reliance),
        "mcr_summary": mcr_summary(mcr, confidence=confidence),
    }
    return BootstrapTables(**{name: with_ids(frame, dataset=dataset) for name, frame in tables.items()})


def bootstrap_tables(
    data,
    settings: BootstrapSettings,
    summary: pd.DataFrame | None,
    *,
    grids: Mapping[str, Any],
    n_jobs: int = 1,
) -> BootstrapTables:
    """The ``rashomon_bootstrap`` tables in one call: :func:`bootstrap_shard` of every resample,
    then :func:`combine_bootstrap_shards` (``data.dataset`` first in every table, the MCR endpoint
    intervals at ``settings.confidence``).

    Parameters
    ----------
    data, settings, summary, grids, n_jobs
        As :func:`bootstrap_shard`.

    Returns
    -------
    BootstrapTables
    """
    return combine_bootstrap_shards(
        [bootstrap_shard(data, settings, summary, grids=grids, n_jobs=n_jobs)],
        n_bootstrap=settings.n_bootstrap,
        dataset=data.dataset,
        confidence=settings.confidence,
    )
