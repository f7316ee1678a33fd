"""K-fold cross-validation of a family's hyperparameter grid with shared prefixes.

One task = one *prefix group* (configurations differing only in ``n_estimators``)
on one fold: a single fit with the largest ``n_estimators`` of the group gives the
validation predictions of every ``n_estimators`` value
(:func:`xaipipe.models.prefix.prefix_predictions`). Decision trees share fits
the same exact way along ``max_depth`` (:func:`xaipipe.models.grid.depth_chains`:
one task = one depth chain on one fold; a shallower limit reuses the deeper fit
when that tree never reached it). Tasks run in parallel with
joblib processes (``n_jobs``), each single-threaded, so the table does not depend
on ``n_jobs``.

The resulting long table has one row per configuration × fold; the Rashomon step
reads it.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..config.models import CVSettings
from ..data.impute import impute_rows
from .families import PREFIX_PARAM, get_family, make_estimator
from .fitting import fit_group
from .forest_blocks import forest_block_prefix_predictions, supports_forest_blocks
from .grid import config_id, depth_chains, expand_grid, params_from_config_id, prefix_groups
from .metrics import CLASSIFICATION_METRICS, LOWER_IS_BETTER, REGRESSION_METRICS, evaluate
from .output import model_output
from .prefix import prefix_predictions

__all__ = [
    "CVEngine",
    "CVResult",
    "combine_cv_shards",
    "cross_validate_grid",
    "cv_shard_table",
    "cv_tables",
    "n_fit_units",
    "select_best",
    "summarize_cv",
]


def metric_names(task: str) -> tuple[str, ...]:
    """Metric columns of the CV table for ``task``."""
    return REGRESSION_METRICS if task == "regression" else CLASSIFICATION_METRICS


def _row(cfg: dict, fit_time: float, predict_time: float, metrics: dict, message: str = "") -> dict:
    """One configuration's result on one fold (``message``: the failure, empty when the fit succeeded)."""
    return {
        "params": cfg,
        "status": "failed" if message else "ok",
        "message": message,
        "fit_time_s": fit_time,
        "predict_time_s": predict_time,
        "metrics": metrics,
    }


@dataclass(frozen=True, eq=False)
class _FoldFits:
    """What every (fit unit, fold) job of one :func:`cross_validate_grid` call shares."""

    family: Any  # the family's spec (:func:`get_family`)
    task: str
    X: np.ndarray
    y: np.ndarray
    random_state: int
    options: Mapping[str, Any] | None
    beta: float = 1.0
    imputer: Any = None


@dataclass(frozen=True, eq=False)
class CVEngine:
    """How :func:`cross_validate_grid` treats missing values and runs (its ``engine=``).

    Attributes
    ----------
    imputer : xaipipe.data.impute.MissingValueImputer, optional
        Missing values (NaN in ``X``; ``missing: impute``): a clone is fitted on each
        fold's training rows and fills that fold's training and validation rows before
        the fit (:func:`xaipipe.data.impute.impute_rows`), so no validation row informs
        the fill values; the shared-prefix evaluation then reads imputed rows. None
        (default): ``X`` is used as it is.
    shard : (index, n_shards), optional
        The table of one job of a split CV. With ``n_shards`` at most the fit units
        (prefix groups, or depth chains for decision trees; :func:`n_fit_units`): the
        units whose position ``u`` in grid order has ``u % n_shards == index``, on every
        fold. With more shards (at most units x folds, e.g. the one prefix group of a
        random forest's ``n_estimators`` grid split by fold): the (unit, fold) pairs, unit
        by unit, whose position ``j`` has ``j % n_shards == index``. Each pair is fitted
        exactly as unsharded; ``config_index`` and ``prefix_group`` keep their values in
        the whole grid, so the shards' tables, concatenated and sorted by
        ``config_index`` and ``fold``, equal the unsharded table row for row.
    forest_blocks : (min_rows, block_trees), optional
        Memory (config keys ``large_data.forest_block_rows`` / ``forest_block_trees``): a
        random forest or extra trees fitted on at least ``min_rows`` training rows is
        fitted ``block_trees`` trees at a time, each block's validation predictions
        added and its trees dropped (:func:`xaipipe.models.forest_blocks.forest_block_prefix_predictions`);
        the metrics are bitwise those of the whole fit, only ``fit_time_s`` /
        ``predict_time_s`` differ. None (default): every forest is fitted whole.
    """

    imputer: Any = None
    shard: tuple[int, int] | None = None
    forest_blocks: tuple[int, int] | None = None


def _fit_group_fold(
    job: _FoldFits, base: dict, ks: list[int], train: np.ndarray, valid: np.ndarray, block_trees: int | None = None
) -> list[dict]:
    family, task, X, y, random_state, options, beta = (
        job.family, job.task, job.X, job.y, job.random_state, job.options, job.beta
    )  # fmt: skip
    configs = [dict(base, **{PREFIX_PARAM: k}) for k in ks] if ks else [dict(base)]
    X_fit, X_valid = impute_rows(job.imputer, X[train], X[valid])  # fill values from the fold's training rows
    if block_trees and ks:
        forest = make_estimator(
            family, task, dict(base, **{PREFIX_PARAM: max(ks)}), random_state=random_state, options=options
        )
        if supports_forest_blocks(forest):  # a forest in blocks of trees: bitwise the same predictions, less memory
            outputs, fit_time, predict_time = forest_block_prefix_predictions(
                forest, X_fit, y[train], X_valid, ks, block_trees
            )
            return [
                _row(cfg, fit_time, predict_time, evaluate(task, y[valid], out, beta=beta))
                for cfg, out in zip(configs, outputs)
            ]
    fit = fit_group(family, task, base, X_fit, y[train], n_estimators=ks, random_state=random_state, options=options)
    est, fit_time = fit.estimator, fit.fit_time_s
    if not fit.ok:
        return [_row(cfg, fit_time, np.nan, {}, fit.message) for cfg in configs]
    t0 = time.perf_counter()
    if ks and get_family(family).ensemble:
        outputs = prefix_predictions(est, X_valid, ks)
    else:
        outputs = [model_output(est)(X_valid)]
    predict_time = time.perf_counter() - t0
    return [
        _row(cfg, fit_time, predict_time, evaluate(task, y[valid], out, beta=beta))
        for cfg, out in zip(configs, outputs)
    ]


def _fit_chain_fold(
    job: _FoldFits,
    chain: list[tuple[float, list[dict]]],
    train: np.ndarray,
    valid: np.ndarray,
    block_trees: int | None = None,
) -> list[dict]:
    """One depth chain of decision trees (:func:`~xaipipe.models.grid.depth_chains`) on one fold.

    The deepest configuration is fitted; a shallower one reuses that fit's
    predictions when the fitted tree's actual depth is below its ``max_depth``
    (then the two trees are identical) and is refitted otherwise.
    """
    family, task, X, y, random_state, options, beta = (
        job.family, job.task, job.X, job.y, job.random_state, job.options, job.beta
    )  # fmt: skip
    X_fit, X_valid = impute_rows(job.imputer, X[train], X[valid])  # fill values from the fold's training rows
    rows: list[dict] = []
    fitted_depth = None  # actual depth of the last successful fit
    for depth, cfgs in chain:
        if fitted_depth is None or not fitted_depth < depth:
            fit = fit_group(family, task, dict(cfgs[0]), X_fit, y[train], random_state=random_state, options=options)
            est, fit_time = fit.estimator, fit.fit_time_s
            if not fit.ok:
                fitted_depth = None
                rows.extend(_row(cfg, fit_time, np.nan, {}, fit.message) for cfg in cfgs)
                continue
            t0 = time.perf_counter()
            outputs = model_output(est)(X_valid)
            predict_time = time.perf_counter() - t0
            metrics = evaluate(task, y[valid], outputs, beta=beta)  # once per fit: shared fits have equal outputs
            fitted_depth = est.get_depth()
        rows.extend(_row(cfg, fit_time, predict_time, dict(metrics)) for cfg in cfgs)
    return rows


def cross_validate_grid(
    family: str,
    task: str,
    grid: Mapping[str, Any] | None,
    X: np.ndarray,
    y: np.ndarray,
    folds: Sequence[tuple[np.ndarray, np.ndarray]],
    *,
    random_state: int,
    options: Mapping[str, Any] | None = None,
    sample: Mapping[str, Any] | None = None,
    n_jobs: int = 1,
    beta: float = 1.0,
    engine: CVEngine | None = None,
) -> pd.DataFrame:
    """Cross-validate every configuration of ``grid`` (and of a random search) for one model family.

    Parameters
    ----------
    family : str
        Family identifier (:mod:`xaipipe.models.families`).
    task : {"regression", "classification"}
    grid : mapping
        ``parameter -> values`` from the config (see :func:`expand_grid`).
    X : ndarray of shape (n_samples, n_features)
        Training data (the 80 % split).
    y : ndarray of shape (n_samples,)
    folds : sequence of (train_idx, valid_idx)
        Row positions into ``X``.
    random_state : int
        ``random_state`` of the estimators.
    options : mapping, optional
        Fixed estimator options (``estimator_options`` config section).
    sample : mapping, optional
        A random search of the family (:func:`xaipipe.models.sampling.sample_configurations`
        spec, seeded with ``random_state``): its configurations follow the grid's,
        cross-validated on the same folds with the same fit sharing. ``grid`` may be
        None (a family that is only sampled).
    n_jobs : int, default=1
        Worker processes (joblib/loky); each fit is single-threaded.
    beta : float > 0, default=1.0
        Weight of the ``f_beta`` column (classification; config key ``metrics.beta``).
    engine : CVEngine, optional
        Missing values (``imputer``), one job of a split CV (``shard``), forests in blocks of
        trees (``forest_blocks``); default ``CVEngine()``: none, the whole table, forests whole.

    Returns
    -------
    pandas.DataFrame
        One row per configuration × fold with columns ``family``, ``config_id``,
        ``config_index`` (grid order, then sample order), ``prefix_group``,
        ``origin`` (``grid`` or ``sample``), one column per hyperparameter
        (the union over configurations; empty where a configuration does not set
        it), ``fold``, ``n_train``, ``n_valid``, ``status``
        (``ok``/``failed``), ``message``, the metric columns of
        :func:`metric_names`, ``fit_time_s`` (seconds of the shared fit of the
        prefix group, or of the decision tree the configuration reuses) and
        ``predict_time_s``.

    Raises
    ------
    ValueError
        No configurations; ``shard`` not ``(index, n)`` with ``0 <= index < n``, or ``n``
        more than the fit units times the folds.

    Notes
    -----
    A configuration whose fit raises :class:`numpy.linalg.LinAlgError` (QDA on
    Breast Cancer with a small ``reg_param``: scikit-learn >= 1.9 raises on a
    rank-deficient class covariance) is kept with ``status="failed"`` and NaN
    metrics; any other exception propagates.
    """
    from joblib import Parallel, delayed

    engine = CVEngine() if engine is None else engine
    shard, forest_blocks = engine.shard, engine.forest_blocks
    fam, configs, origin, groups, units = _fit_plan(family, grid, sample, random_state)
    order = {config_id(c): i for i, c in enumerate(configs)}
    group_of = {
        config_id(dict(base, **({} if k is None else {PREFIX_PARAM: k}))): g
        for g, (base, ks) in enumerate(groups)
        for k in (ks or [None])
    }
    jobs = [(fn, unit, f, tr, va) for fn, unit in units for f, (tr, va) in enumerate(folds)]
    if shard is not None:
        index, n_shards = _check_shard(shard)
        if n_shards > len(jobs):
            raise ValueError(
                f"family {family!r}: {n_shards} CV shards are more than its {len(units)} fit unit(s) x "
                f"{len(folds)} folds"
            )
        k = len(folds)
        if n_shards <= len(units):  # whole fit units, every fold
            jobs = [job for u in range(index, len(units), n_shards) for job in jobs[u * k : (u + 1) * k]]
        else:  # (fit unit, fold) pairs
            jobs = jobs[index::n_shards]

    def blocks(train):
        if forest_blocks is None or fam.prefix != "forest" or len(train) < int(forest_blocks[0]):
            return None
        return int(forest_blocks[1])

    fits = _FoldFits(fam, task, X, y, random_state, options, beta, engine.imputer)
    results = Parallel(n_jobs=n_jobs, backend="loky" if n_jobs != 1 else "sequential")(
        delayed(fn)(fits, *unit, tr, va, blocks(tr)) for fn, unit, f, tr, va in jobs
    )
    param_names = list(dict.fromkeys(k for c in configs for k in c))
    records = []
    for (_fn, _unit, f, tr, va), rows in zip(jobs, results):
        for row in rows:
            cid = config_id(row["params"])
            rec = {
                "family": family,
                "config_id": cid,
                "config_index": order[cid],
                "prefix_group": group_of[cid],
                "origin": origin[cid],
            }
            rec.update({name: row["params"].get(name) for name in param_names})
            rec.update(
                {
                    "fold": f,
                    "n_train": len(tr),
                    "n_valid": len(va),
                    "status": row["status"],
                    "message": row["message"],
                }
            )
            rec.update({m: row["metrics"].get(m, np.nan) for m in metric_names(task)})
            rec["fit_time_s"] = row["fit_time_s"]
            rec["predict_time_s"] = row["predict_time_s"]
            records.append(rec)
    table = pd.DataFrame.from_records(records)
    return table.sort_values(["config_index", "fold"], kind="stable").reset_index(drop=True)


def combine_cv_shards(
    shards: Sequence[pd.DataFrame],
    *,
    family: str,
    grid: Mapping[str, Any] | None,
    sample: Mapping[str, Any] | None = None,
    random_state: int = 0,
    n_folds: int | None = None,
) -> pd.DataFrame:
    """The table of a split CV from its shards: the unsplit :func:`cross_validate_grid` table.

    Parameters
    ----------
    shards : sequence of DataFrame
        ``cross_validate_grid(..., engine=CVEngine(shard=(i, n)))`` tables, in any order.
    family, grid, sample, random_state
        As :func:`cross_validate_grid`: they fix the configurations the shards must cover.
    n_folds : int, optional
        Folds every configuration must have (default: the largest ``fold`` in the shards + 1).

    Returns
    -------
    DataFrame
        The shards' rows sorted by ``config_index`` and ``fold``, index reset; column
        order of the shards, dtypes as in the unsplit table (pass the shards unserialised or
        pickled: a CSV round trip changes the dtype of a hyperparameter column with missing
        values).

    Raises
    ------
    ValueError
        No shards, another family's rows, or configuration x fold pairs missing or repeated.
    """
    if not shards:
        raise ValueError(f"family {family!r}: no CV shards given")
    # rebuilt from records as cross_validate_grid builds its table: a hyperparameter's dtype is
    # inferred from all its values (a shard alone may hold only integers where the whole column,
    # with configurations that do not set it, is float)
    table = pd.DataFrame.from_records(pd.concat(list(shards), ignore_index=True).to_dict("records"))
    configs = _fit_plan(family, grid, sample, random_state)[1]
    if len(table) and set(table["family"]) != {family}:
        raise ValueError(f"CV shards of family {family!r} hold rows of {sorted(set(table['family']))}")
    folds = int(table["fold"].max()) + 1 if n_folds is None and len(table) else int(n_folds or 0)
    pairs = pd.MultiIndex.from_frame(table[["config_index", "fold"]])
    expected = pd.MultiIndex.from_product([range(len(configs)), range(folds)], names=["config_index", "fold"])
    if pairs.has_duplicates or len(pairs) != len(expected) or not pairs.isin(expected).all():
        missing = expected.difference(pairs)
        raise ValueError(
            f"CV shards of family {family!r} do not hold each of the {len(configs)} configurations x {folds} "
            f"folds once ({len(table)} rows, {int(pairs.duplicated().sum())} repeated, {len(missing)} missing, "
            f"e.g. {list(missing[:3])}): a shard is missing or from another configuration"
        )
    return table.sort_values(["config_index", "fold"], kind="stable").reset_index(drop=True)


def _check_shard(shard) -> tuple[int, int]:
    try:
        index, n_shards = (int(v) for v in shard)
    except (TypeError, ValueError):
        raise ValueError(f"shard must be a pair (index, n_shards), got {shard!r}") from None
    if n_shards < 1 or not 0 <= index < n_shards:
        raise ValueError(f"shard must satisfy 0 <= index < n_shards, got {shard!r}")
    return index, n_shards


def n_fit_units(
    family: str, grid: Mapping[str, Any] | None, *, sample: Mapping[str, Any] | None = None, random_state: int = 0
) -> int:
    """Number of fit units of :func:`cross_validate_grid` (prefix groups, depth chains, or
    configurations of a family without shared fits): the most shards a CV can be split into.

    Parameters
    ----------
    family, grid, sample, random_state
        As :func:`cross_validate_grid` (``random_state`` matters only with ``sample``).

    Returns
    -------
    int
        At least 1.

    Raises
    ------
    ValueError
        Unknown family; neither a grid nor sampled configurations.
    """
    return len(_fit_plan(family, grid, sample, random_state)[4])


def fit_configurations(
    family: str, grid: Mapping[str, Any] | None, *, sample: Mapping[str, Any] | None = None, random_state: int = 0
) -> list[dict]:
    """The configurations :func:`cross_validate_grid` evaluates (grid order, then the random
    search's draws), e.g. to check a hyperparameter against the data before any fit.

    Raises
    ------
    ValueError
        Unknown family; neither a grid nor sampled configurations.
    """
    return _fit_plan(family, grid, sample, random_state)[1]


def _fit_plan(family, grid, sample, random_state):
    """The one derivation of a CV's work, shared by :func:`cross_validate_grid`,
    :func:`n_fit_units` and :func:`combine_cv_shards`: ``(family object, configurations in grid-then-sample order,
    config_id -> origin, prefix groups, fit units)``. A fit unit is ``(function, args)``:
    a depth chain (decision trees, exact fit sharing between ``max_depth`` values and
    equivalent ``min_samples_split``), a prefix group (ensembles), or one configuration.
    """
    from .sampling import sample_configurations

    fam = get_family(family)  # validates the name
    configs = expand_grid(grid) if grid is not None or not sample else []
    origin = {config_id(c): "grid" for c in configs}
    if sample:
        drawn = sample_configurations(sample, random_state=random_state, exclude=configs)
        origin.update({config_id(c): "sample" for c in drawn})
        configs = configs + drawn
    if not configs:
        raise ValueError(f"family {family!r}: neither a grid nor sampled configurations")
    groups = prefix_groups(configs) if fam.ensemble else [(dict(c), []) for c in configs]
    if fam.depth_chains:
        units = [(_fit_chain_fold, (chain,)) for chain in depth_chains(configs)]
    else:
        units = [(_fit_group_fold, (base, ks)) for base, ks in groups]
    return fam, configs, origin, groups, units


def summarize_cv(table: pd.DataFrame, task: str) -> pd.DataFrame:
    """Per-configuration mean and standard deviation (``ddof=0``, as
    ``GridSearchCV``) of every metric over folds.

    A configuration with any failed fold gets ``status="failed"`` and NaN means.

    Returns
    -------
    pandas.DataFrame
        One row per configuration in grid order, columns ``family``,
        ``config_id``, ``config_index``, ``prefix_group``, ``origin`` (when the
        table has it), the hyperparameters,
        ``n_folds``, ``status``, ``<metric>_mean``, ``<metric>_std`` and
        ``fit_time_s`` (sum over folds of the shared fit times).
    """
    metrics = list(metric_names(task))
    fixed = {
        "family",
        "config_id",
        "config_index",
        "prefix_group",
        "origin",
        "fold",
        "n_train",
        "n_valid",
        "status",
        "message",
        "fit_time_s",
        "predict_time_s",
        *metrics,
    }
    params = [c for c in table.columns if c not in fixed]
    out = []
    for cid, part in table.groupby("config_index", sort=True):
        first = part.iloc[0]
        rec = {
            "family": first["family"],
            "config_id": first["config_id"],
            "config_index": int(cid),
            "prefix_group": int(first["prefix_group"]),
        }
        if "origin" in part:
            rec["origin"] = first["origin"]
        rec.update({p: first[p] for p in params})
        ok = bool((part["status"] == "ok").all())
        rec["n_folds"] = len(part)
        rec["status"] = "ok" if ok else "failed"
        for m in metrics:
            vals = part[m].to_numpy(dtype=float)
            rec[f"{m}_mean"] = float(np.average(vals)) if ok else np.nan
            rec[f"{m}_std"] = float(np.std(vals)) if ok else np.nan
        rec["fit_time_s"] = float(part["fit_time_s"].sum())
        out.append(rec)
    return pd.DataFrame.from_records(out)


def select_best(summary: pd.DataFrame, metric: str) -> pd.Series:
    """The configuration with the lowest mean ``metric`` (first in grid order on ties).

    Only the grid's configurations compete (``origin == "grid"`` when the summary
    has sampled ones too: the thesis' best configurations stay those of the seed's
    grids); a family without a grid (only sampled) takes its best sampled one.

    Raises
    ------
    ValueError
        If ``metric`` is not a loss (lower is better) or every configuration failed.
    """
    if metric not in LOWER_IS_BETTER:
        raise ValueError(f"selection metric {metric!r} is not a loss; choose one of {sorted(LOWER_IS_BETTER)}")
    if "origin" in summary and (summary["origin"] == "grid").any():
        summary = summary[summary["origin"] == "grid"]
    ok = summary[summary["status"] == "ok"]
    if ok.empty:
        raise ValueError("every configuration of the grid failed; see the 'message' column of the CV table")
    values = ok[f"{metric}_mean"].to_numpy(dtype=float)
    return ok.iloc[int(np.argmin(values))]


@dataclass(frozen=True)
class CVResult:
    """The outputs of the ``cv`` rule (:func:`cv_tables`).

    Attributes
    ----------
    table : DataFrame
        :func:`cross_validate_grid` with a leading ``dataset`` column (``cv.csv``).
    summary : DataFrame
        :func:`summarize_cv` with a leading ``dataset`` column (``<family>_summary.csv``).
    best : dict
        The record of ``best/<family>.json``: ``dataset``, ``task``, ``family``, ``params``
        (original types), ``config_id``, ``selection_metric``, ``cv_mean``, ``cv_std``,
        ``n_configs``, ``n_failed``, ``failed_configs``, ``seed``, ``options``.
    """

    table: pd.DataFrame
    summary: pd.DataFrame
    best: dict

    def to_frames(self) -> dict[str, pd.DataFrame]:
        """The tables by the rule's output names (``cv``, ``summary``)."""
        return {"cv": self.table, "summary": self.summary}


def cv_tables(
    data,
    settings: CVSettings,
    *,
    shards: Sequence[pd.DataFrame] | None = None,
    n_jobs: int = 1,
    forest_blocks: tuple[int, int] | None = None,
) -> CVResult:
    """The ``cv`` rule: CV table, per-configuration summary and the best configuration.

    :func:`cross_validate_grid` of ``settings.family``'s grid (and random search) on the training
    rows with their missing values (``data.X_train_raw``: each fold imputes from its own training
    rows with a clone of ``data.imputer``), :func:`summarize_cv` and :func:`select_best` by
    ``settings.selection``.

    Parameters
    ----------
    data : PreparedData
        The dataset's split (:func:`xaipipe.data.prepare.load_prepared`): ``X_train_raw``,
        ``y_train``, ``folds``, ``imputer``, ``dataset`` (written in the ``dataset`` column and the
        record).
    settings : CVSettings
        :meth:`xaipipe.config.CVSettings.from_config`: ``task``, ``family``, ``grid``,
        ``sample``, ``options``, ``seed``, ``beta`` (as :func:`cross_validate_grid`'s) and
        ``selection`` (the loss that picks the best configuration, :func:`select_best`).
    shards : sequence of DataFrame, optional
        The tables of a split CV (:func:`cv_shard_table` for ``i = 0 .. n - 1``, in any order: the
        ``cv_shard`` jobs of config key ``cv_shards``): combined instead of fitting (only
        ``data.folds`` and ``data.dataset`` are then used); the result equals the unsplit one.
    n_jobs : int, default 1
        Worker processes; results do not depend on it.
    forest_blocks : (int, int), optional
        As :func:`cross_validate_grid` (``large_data.forest_block_rows`` / ``forest_block_trees``:
        forests fitted a block of trees at a time; memory only, results are equal).

    Returns
    -------
    CVResult

    Raises
    ------
    ValueError
        As :func:`select_best` (every configuration failed, a metric that is not a loss);
        ``shards`` that do not hold every configuration x fold of the grid exactly once.
    """
    s = settings
    if shards is None:
        table = _settings_cv(data, s, n_jobs=n_jobs, forest_blocks=forest_blocks)
    else:
        table = combine_cv_shards(
            shards, family=s.family, grid=s.grid, sample=s.sample, random_state=s.seed, n_folds=len(data.folds)
        )
    dataset = data.dataset
    table.insert(0, "dataset", dataset)
    summary = summarize_cv(table.drop(columns="dataset"), s.task)
    summary.insert(0, "dataset", dataset)
    best = select_best(summary, s.selection)
    params = (
        params_from_config_id(best["config_id"]) if s.grid is None else expand_grid(s.grid)[int(best["config_index"])]
    )
    failed = summary.loc[summary["status"] == "failed", "config_id"].tolist()
    record = {
        "dataset": dataset,
        "task": s.task,
        "family": s.family,
        "params": params,
        "config_id": best["config_id"],
        "selection_metric": s.selection,
        "cv_mean": best[f"{s.selection}_mean"],
        "cv_std": best[f"{s.selection}_std"],
        "n_configs": int(len(summary)),
        "n_failed": len(failed),
        "failed_configs": failed,
        "seed": s.seed,
        "options": dict(s.options or {}),
    }
    return CVResult(table=table, summary=summary, best=record)


def cv_shard_table(
    data,
    settings: CVSettings,
    shard: tuple[int, int],
    *,
    n_jobs: int = 1,
    forest_blocks: tuple[int, int] | None = None,
) -> pd.DataFrame:
    """The ``cv_shard`` rule: shard ``shard = (i, n)`` of a split CV (:func:`cross_validate_grid`
    with ``engine=CVEngine(shard=)``: whole fit units of the grid, every fold), on the data of :func:`cv_tables`.

    Raises
    ------
    ValueError
        As :func:`cross_validate_grid` (``shard`` not ``0 <= i < n``).
    """
    return _settings_cv(
        data, settings, n_jobs=n_jobs, forest_blocks=forest_blocks, shard=(int(shard[0]), int(shard[1]))
    )


def _settings_cv(data, s: CVSettings, *, n_jobs: int, forest_blocks, shard=None) -> pd.DataFrame:
    """:func:`cross_validate_grid` of ``s.family``'s grid on ``data``'s training rows (with their
    missing values and ``data.imputer``) and folds, as :func:`cv_tables` and
    :func:`cv_shard_table` run it."""
    return cross_validate_grid(
        s.family,
        s.task,
        s.grid,
        data.X_train_raw,
        data.y_train,
        data.folds,
        random_state=s.seed,
        options=s.options,
        sample=s.sample,
        beta=s.beta,
        n_jobs=n_jobs,
        engine=CVEngine(imputer=data.imputer, shard=shard, forest_blocks=forest_blocks),
    )
