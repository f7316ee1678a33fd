"""The Abalone study of thesis 001 Table 4.1: 324 gradient boosting models by CV RMSE.

Thesis 001 §4.1.3 fits ``GradientBoostingRegressor`` with ``n_estimators`` 100..900
(step 100) × ``learning_rate`` {0.01, 0.05, 0.1} × ``max_depth`` {2, 3, 4, 5} ×
``loss`` {squared_error, absolute_error, huber} = 324 models on Abalone (Nash et al.
1994), ranks them by 5-fold CV RMSE and prints the 15 best (Table 4.1, labelled
"RF1".."RF15" although they are gradient boosting). The grid lives in the
pipeline config; :data:`THESIS_GRID` is the same grid for tests and notebooks.

The published RMSEs (0.5637..0.5850) are far below the ~2.1-2.2 rings that any
model reaches on the raw target ``Rings``, and the thesis does not say how the
target was transformed. :func:`transform_target` provides the candidate
transformations and :func:`thesis_study` takes the transformation as a parameter
(default ``"none"``: the thesis' stated variable, the number of rings). The
findings are in ``docs/rashomon_abalone.md``.

Affine transformations need no refit. For ``y' = a y + b`` with ``a > 0``, every
step of scikit-learn's gradient boosting with the squared, absolute or Huber
loss is equivariant: the initial prediction (mean, median) maps to ``a·init + b``,
residuals and pseudo-residuals scale by ``a`` (absolute loss: their signs are
unchanged), the split that maximises the (friedman) MSE improvement is the same
(improvements scale by ``a²``), and leaf values (means, medians, Huber's
quantile-based δ and its update) scale by ``a``. Hence every prediction is
``a·f(x) + b`` and every fold's RMSE is ``a·RMSE`` - up to floating-point
rounding, which can flip a split only on an exact tie of the split criterion
(``tests/rashomon/test_abalone.py`` checks the claim on small cases). Integer rings
do produce such ties: on Abalone one refit on the z-scored target (squared loss,
depth 2, learning rate 0.1, 900 trees) gave CV RMSE 0.6996 against 0.6991 from
rescaling the raw table, 0.07 % apart. z-scoring,
min-max scaling and ``Rings / c`` therefore divide the whole table by a constant
(:func:`affine_rmse`) and cannot change the ranking; log, log1p, sqrt and Box-Cox
need refits.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..config._base import check_family
from ..io import read_csv
from ..models.cv import CVEngine, cross_validate_grid, n_fit_units, summarize_cv

__all__ = [
    "THESIS_GRID",
    "TRANSFORMS",
    "AFFINE_TRANSFORMS",
    "load_abalone",
    "transform_target",
    "thesis_study",
    "affine_rmse",
    "load_published",
    "compare_with_published",
    "ranking_pattern",
    "table_4_1",
    "study_cv_shard",
    "table_4_1_from_shards",
    "abalone_study_shards",
]

#: The 324-model grid of thesis 001 §4.1.3 (the pipeline passes its config copy).
THESIS_GRID: dict = {
    "n_estimators": {"start": 100, "stop": 900, "step": 100},
    "learning_rate": [0.01, 0.05, 0.1],
    "max_depth": [2, 3, 4, 5],
    "loss": ["squared_error", "absolute_error", "huber"],
}
#: The pipeline's split / estimator seed.
THESIS_SEED = 20250223
#: Hyperparameter columns of the study tables, in Table 4.1's order.
HYPERPARAMETERS = ["learning_rate", "loss", "max_depth", "n_estimators"]
#: Target transformations of :func:`transform_target`.
TRANSFORMS = ("none", "zscore", "minmax", "divide", "log", "log1p", "sqrt", "boxcox", "log_zscore", "boxcox_zscore")
#: Transformations of the form ``a y + b`` (``a > 0``): no refit needed.
AFFINE_TRANSFORMS = ("none", "zscore", "minmax", "divide")


def load_abalone(
    registry_yaml: str | Path,
    mirror: str | Path,
    *,
    random_state: int = THESIS_SEED,
    test_size: float = 0.2,
    n_folds: int = 5,
) -> dict:
    """Abalone prepared and split as the pipeline does (``Sex`` one-hot, 80/20, 5 folds).

    Parameters
    ----------
    registry_yaml : path
        The dataset registry, ``config/datasets.yaml``.
    mirror : path
        Offline UCI mirror (e.g. ``../shared/data/uci``).
    random_state, test_size, n_folds
        :func:`xaipipe.data.split.make_split` arguments (the pipeline's values).

    Returns
    -------
    dict
        ``X_train``, ``y_train``, ``X_test``, ``y_test`` (float64; ``y`` = Rings),
        ``folds`` (list of (train, valid) positions into the training rows),
        ``features``, ``feature_groups`` (``{"Sex": ["Sex_F", "Sex_I", "Sex_M"]}``).
    """
    from ..data.preparation import prepare_table
    from ..data.registry import load_registry
    from ..data.sources import load_canonical
    from ..data.split import folds_from_split, make_split

    frame, sidecar = load_canonical(load_registry(registry_yaml)["abalone"], mirror=mirror)
    prepared, info, _ = prepare_table(frame, sidecar, {"one_hot": ["Sex"]})
    X = prepared[info["features"]].to_numpy(dtype=np.float64)
    y = prepared[info["target"]].to_numpy(dtype=np.float64)
    split = make_split(y, "regression", test_size=test_size, n_folds=n_folds, random_state=random_state)
    train = np.asarray(split["train"])
    test = np.asarray(split["test"])
    return {
        "X_train": X[train],
        "y_train": y[train],
        "X_test": X[test],
        "y_test": y[test],
        "folds": folds_from_split(split),
        "features": list(info["features"]),
        "feature_groups": dict(info["feature_groups"]),
    }


def _affine_coefficients(name: str, ref: np.ndarray, divisor):
    """``(a, b)`` of an affine target map ``y_t = a y + b`` (:func:`transform_target`)."""
    if name == "none":
        return 1.0, 0.0
    if name == "zscore":
        sd = ref.std()
        if sd == 0:
            raise ValueError("reference is constant")
        return 1.0 / sd, -ref.mean() / sd
    if name == "minmax":
        lo, hi = ref.min(), ref.max()
        if hi == lo:
            raise ValueError("reference is constant")
        return 1.0 / (hi - lo), -lo / (hi - lo)
    # "divide"
    if divisor is None or not np.isfinite(divisor) or divisor <= 0:
        raise ValueError(f"'divide' needs a divisor > 0, got {divisor!r}")
    return 1.0 / float(divisor), 0.0


def _monotone_map(name: str, yv: np.ndarray, ref: np.ndarray, params: dict):
    """The non-affine map of :func:`transform_target` (log, log1p, sqrt or Box-Cox with λ fitted on
    ``ref``, recorded in ``params``) after checking its domain."""
    from scipy import stats

    if name in ("log", "boxcox", "log_zscore", "boxcox_zscore") and ((yv <= 0).any() or (ref <= 0).any()):
        raise ValueError(f"{name!r} needs positive values")
    if name == "log1p" and ((yv <= -1).any() or (ref <= -1).any()):
        raise ValueError("'log1p' needs values > -1")
    if name == "sqrt" and ((yv < 0).any() or (ref < 0).any()):
        raise ValueError("'sqrt' needs values >= 0")
    if name in ("log", "log_zscore"):
        return np.log
    if name == "log1p":
        return np.log1p
    if name == "sqrt":
        return np.sqrt
    _, lam = stats.boxcox(ref)
    params["lambda"] = float(lam)
    return lambda v: stats.boxcox(v, lmbda=lam)


def transform_target(y, name: str = "none", *, reference=None, divisor: float | None = None):
    """Transform the Abalone response (rings) for the Table 4.1 study.

    Parameters
    ----------
    y : array-like of shape (n,)
        Rings (positive integers 1..29).
    name : str
        ``"none"``; ``"zscore"`` ``(y - mean) / sd`` (``ddof=0``); ``"minmax"``
        ``(y - min) / (max - min)``; ``"divide"`` ``y / divisor``; ``"log"``;
        ``"log1p"``; ``"sqrt"``; ``"boxcox"`` (``scipy.stats.boxcox`` with the
        maximum-likelihood λ); ``"log_zscore"`` / ``"boxcox_zscore"`` (the
        transformation, then z-scored, as ``sklearn.preprocessing.PowerTransformer``
        with ``standardize=True`` would give).
    reference : array-like, optional
        Rows whose statistics (mean, sd, min, max, λ) define the transformation
        (the training rows); default ``y``.
    divisor : float, optional
        For ``"divide"`` (required there, > 0).

    Returns
    -------
    y_t : ndarray of shape (n,)
    params : dict
        ``name``, ``affine`` (bool), and for affine maps ``scale`` ``a`` and
        ``shift`` ``b`` (``y_t = a y + b``); ``lambda`` for Box-Cox.

    Raises
    ------
    ValueError
        Unknown name, non-positive values for log / Box-Cox, a constant reference,
        or a missing / non-positive divisor.
    """
    if name not in TRANSFORMS:
        raise ValueError(f"unknown target transformation {name!r}; choose one of {list(TRANSFORMS)}")
    yv = np.asarray(y, dtype=np.float64)
    ref = yv if reference is None else np.asarray(reference, dtype=np.float64)
    if yv.ndim != 1 or ref.ndim != 1 or ref.size == 0:
        raise ValueError("y and reference must be non-empty 1-D arrays")
    if not (np.isfinite(yv).all() and np.isfinite(ref).all()):
        raise ValueError("y contains NaN or infinite values")
    params: dict[str, Any] = {"name": name, "affine": name in AFFINE_TRANSFORMS}

    if name in AFFINE_TRANSFORMS:
        a, b = _affine_coefficients(name, ref, divisor)
        params.update(scale=float(a), shift=float(b))
        return a * yv + b, params
    f = _monotone_map(name, yv, ref, params)
    out, fref = f(yv), f(ref)
    if name.endswith("_zscore"):
        sd = fref.std()
        if sd == 0:
            raise ValueError("reference is constant")
        out = (out - fref.mean()) / sd
        params.update(mean=float(fref.mean()), sd=float(sd))
    return np.asarray(out, dtype=np.float64), params


def thesis_study(
    X,
    y,
    folds: Sequence[tuple[np.ndarray, np.ndarray]],
    grid: Mapping[str, Any] = THESIS_GRID,
    *,
    transform: str = "none",
    divisor: float | None = None,
    random_state: int = THESIS_SEED,
    n_jobs: int = 1,
) -> pd.DataFrame:
    """Cross-validate the Table 4.1 grid of gradient boosting regressors.

    Parameters
    ----------
    X : ndarray of shape (n, p)
        Training rows (the 80 %).
    y : ndarray of shape (n,)
        Rings of the training rows.
    folds : sequence of (train, valid)
        Positions into the training rows (the pipeline's 5 folds).
    grid : mapping
        ``n_estimators`` × ``learning_rate`` × ``max_depth`` × ``loss``
        (default :data:`THESIS_GRID`, 324 models); all ``n_estimators`` of a
        configuration come from one fit per fold
        (:func:`xaipipe.models.cv.cross_validate_grid`).
    transform : str, default "none"
        Target transformation (:func:`transform_target`), its statistics taken
        from all training rows. ``"none"`` is the thesis' stated variable.
    divisor : float, optional
        For ``transform="divide"``.
    random_state : int
        ``random_state`` of the estimators.
    n_jobs : int
        Worker processes.

    Returns
    -------
    DataFrame
        One row per model, sorted by CV RMSE (ties: grid order): ``rank`` (1 =
        best), ``config_id``, ``n_estimators``, ``learning_rate``, ``max_depth``,
        ``loss``, ``rmse_mean``, ``rmse_std`` (``ddof=0`` over folds, units of the
        transformed target), ``mae_mean``, ``r2_mean``, ``status``, ``transform``,
        ``fit_time_s``.
    """
    yt, _ = transform_target(y, transform, divisor=divisor)
    table = cross_validate_grid(
        "gradient_boosting", "regression", grid, np.asarray(X), yt, folds, random_state=random_state, n_jobs=n_jobs
    )
    summary = summarize_cv(table, "regression")
    return rank_models(summary, transform)


def rank_models(summary: pd.DataFrame, transform: str = "none") -> pd.DataFrame:
    """Sort a CV summary by ``rmse_mean`` and add ``rank`` (1 = best) and ``transform``; ``n_folds``
    is kept for the CV standard error of the Rashomon step's one-standard-error ε."""
    out = summary.sort_values(["rmse_mean", "config_index"], kind="stable").reset_index(drop=True)
    out.insert(0, "rank", np.arange(1, len(out) + 1))
    out["transform"] = transform
    keep = [
        "rank",
        "config_id",
        "n_estimators",
        "learning_rate",
        "max_depth",
        "loss",
        "rmse_mean",
        "rmse_std",
        "mae_mean",
        "r2_mean",
        "status",
        "transform",
        "fit_time_s",
        "n_folds",
    ]
    return out[[c for c in keep if c in out.columns]]


def affine_rmse(table: pd.DataFrame, scale: float, transform: str) -> pd.DataFrame:
    """The study table of an affine transformation ``a y + b`` from the raw one.

    RMSE, its standard deviation over folds and MAE scale by ``|a|``; R² and the
    ranking are unchanged (see the module docstring).

    Raises
    ------
    ValueError
        ``scale`` not a finite positive number.
    """
    if not np.isfinite(scale) or scale <= 0:
        raise ValueError(f"scale must be a finite positive number, got {scale!r}")
    out = table.copy()
    for col in ("rmse_mean", "rmse_std", "mae_mean"):
        if col in out:
            out[col] = out[col] * float(scale)
    out["transform"] = transform
    return out


def load_published(path: str | Path) -> pd.DataFrame:
    """Table 4.1 as transcribed (``shared/reference/thesis_abalone_rashomon_top15.csv``):
    ``rank``, ``cv_rmse``, ``learning_rate``, ``loss``, ``max_depth``, ``n_estimators``."""
    table = read_csv(path)
    need = {"rank", "cv_rmse", "learning_rate", "loss", "max_depth", "n_estimators"}
    missing = need - set(table.columns)
    if missing:
        raise ValueError(f"{path}: missing columns {sorted(missing)}")
    return table


def _key(frame: pd.DataFrame) -> pd.Series:
    return (
        frame["learning_rate"].astype(float).round(6).astype(str)
        + "|"
        + frame["loss"].astype(str)
        + "|"
        + frame["max_depth"].astype(int).astype(str)
        + "|"
        + frame["n_estimators"].astype(int).astype(str)
    )


def compare_with_published(table: pd.DataFrame, published: pd.DataFrame, top: int = 15) -> pd.DataFrame:
    """Our top models beside Table 4.1, and where the published ones rank here.

    Parameters
    ----------
    table : DataFrame
        :func:`thesis_study` output (sorted, with ``rank``).
    published : DataFrame
        :func:`load_published`.
    top : int
        Rows compared (default 15).

    Returns
    -------
    DataFrame
        One row per rank ``1..top``: ``rank``; ``pub_*`` (published RMSE and
        hyperparameters at that rank); ``our_*`` (ours at that rank);
        ``pub_config_our_rank`` and ``pub_config_our_rmse`` (the published
        configuration's rank and RMSE in our table); ``same_config`` (bool).
    """
    ours = table.sort_values("rank").reset_index(drop=True)
    ours_key = _key(ours)
    rank_of = dict(zip(ours_key, ours["rank"]))
    rmse_of = dict(zip(ours_key, ours["rmse_mean"]))
    pub = published.sort_values("rank").reset_index(drop=True)
    pub_key = _key(pub)
    rows = []
    for i in range(min(top, len(ours))):
        rec = {"rank": i + 1}
        if i < len(pub):
            p = pub.iloc[i]
            rec.update({"pub_rmse": float(p["cv_rmse"]), **{f"pub_{h}": p[h] for h in HYPERPARAMETERS}})
            rec["pub_config_our_rank"] = rank_of.get(pub_key.iloc[i], np.nan)
            rec["pub_config_our_rmse"] = rmse_of.get(pub_key.iloc[i], np.nan)
        o = ours.iloc[i]
        rec.update({"our_rmse": float(o["rmse_mean"]), **{f"our_{h}": o[h] for h in HYPERPARAMETERS}})
        rec["same_config"] = i < len(pub) and ours_key.iloc[i] == pub_key.iloc[i]
        rows.append(rec)
    return pd.DataFrame(rows)


def ranking_pattern(table: pd.DataFrame, top: int = 15) -> pd.DataFrame:
    """Share of each hyperparameter value among the ``top`` models.

    Works for :func:`thesis_study` tables and for the published table (after
    renaming ``cv_rmse`` to ``rmse_mean``). Returns one row per
    (``hyperparameter``, ``value``): ``count`` and ``share`` among the top.
    """
    sort_col = "rank" if "rank" in table else "rmse_mean"
    best = table.sort_values(sort_col).head(top)
    rows = []
    for h in ("max_depth", "learning_rate", "loss"):
        counts = best[h].astype(str if h == "loss" else float).value_counts()
        for value, count in counts.items():
            rows.append({"hyperparameter": h, "value": value, "count": int(count), "share": count / len(best)})
    return pd.DataFrame(rows)


def table_4_1(
    X,
    y,
    folds: Sequence[tuple[np.ndarray, np.ndarray]],
    published_rows: Sequence[Mapping[str, Any]],
    *,
    grid: Mapping[str, Any] = THESIS_GRID,
    transform: str = "none",
    dataset: str = "abalone",
    family: str = "gradient_boosting",
    random_state: int = THESIS_SEED,
    n_jobs: int = 1,
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """The ``abalone_study`` rule: seed 001 Table 4.1 reproduced beside the published one.

    Parameters
    ----------
    X, y, folds : the dataset's training rows and CV folds
    published_rows : sequence of mapping
        The published table (``config/reference.yaml: abalone_rashomon_top15.rows``:
        ``rank``, ``cv_rmse`` and the hyperparameters).
    grid, transform, random_state, n_jobs
        As :func:`thesis_study`.
    dataset, family : str
        Identifier columns of the CV summary (read by the Rashomon step as a model class).

    Returns
    -------
    (summary, comparison, pattern)
        :func:`thesis_study` with ``dataset``, ``family`` and ``status`` columns
        (a CV summary), :func:`compare_with_published`, and
        :func:`ranking_pattern` of ours and the published table (``source``
        column).
    """
    table = thesis_study(X, y, folds, grid, transform=transform, random_state=random_state, n_jobs=n_jobs)
    return _study_tables(table, published_rows, dataset=dataset, family=family)


def _study_tables(table: pd.DataFrame, published_rows, *, dataset: str, family: str):
    published = pd.DataFrame(list(published_rows))
    summary = table.copy()
    summary.insert(0, "family", family)
    summary.insert(0, "dataset", dataset)
    summary["status"] = summary.get("status", "ok")
    comparison = compare_with_published(table, published)
    ours = ranking_pattern(table).assign(source="reproduced")
    theirs = ranking_pattern(published.rename(columns={"cv_rmse": "rmse_mean"})).assign(source="published")
    return summary, comparison, pd.concat([ours, theirs], ignore_index=True)


def study_cv_shard(
    X,
    y,
    folds: Sequence[tuple[np.ndarray, np.ndarray]],
    grid: Mapping[str, Any] = THESIS_GRID,
    *,
    shard: int,
    n_shards: int,
    transform: str = "none",
    divisor: float | None = None,
    random_state: int = THESIS_SEED,
    n_jobs: int = 1,
) -> pd.DataFrame:
    """One job of the split Table 4.1 CV: the per-configuration summary of some prefix groups.

    The grid's prefix groups (configurations differing only in ``n_estimators``,
    one fit per fold) are dealt round-robin to ``n_shards`` jobs; shard ``shard``
    cross-validates groups ``shard, shard + n_shards, ...`` on every fold
    (:func:`xaipipe.models.cv.cross_validate_grid` with ``shard``). Every group
    has all its folds in one shard, so its summary rows are final;
    :func:`table_4_1_from_shards` concatenates the shards into exactly the
    table of :func:`table_4_1`.

    Parameters
    ----------
    X, y, folds, grid, transform, divisor, random_state, n_jobs
        As :func:`thesis_study`.
    shard : int
        This job's index, ``0 <= shard < n_shards``.
    n_shards : int
        Number of jobs, at most the number of prefix groups
        (:func:`xaipipe.models.cv.n_fit_units`; 36 for the thesis grid).

    Returns
    -------
    DataFrame
        :func:`xaipipe.models.cv.summarize_cv` rows of the shard's
        configurations (``config_index`` and ``prefix_group`` as in the whole grid).

    Raises
    ------
    ValueError
        ``shard`` outside ``[0, n_shards)``, or more shards than prefix groups (an
        empty shard).
    """
    n_units = n_fit_units("gradient_boosting", grid)
    if n_shards > n_units:
        raise ValueError(f"n_shards={n_shards} is more than the grid's {n_units} prefix groups")
    yt, _ = transform_target(y, transform, divisor=divisor)
    table = cross_validate_grid(
        "gradient_boosting",
        "regression",
        grid,
        np.asarray(X),
        yt,
        folds,
        random_state=random_state,
        n_jobs=n_jobs,
        engine=CVEngine(shard=(shard, n_shards)),
    )
    return summarize_cv(table, "regression")


def table_4_1_from_shards(
    shards: Sequence[pd.DataFrame],
    published_rows: Sequence[Mapping[str, Any]],
    *,
    grid: Mapping[str, Any] = THESIS_GRID,
    transform: str = "none",
    dataset: str = "abalone",
    family: str = "gradient_boosting",
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """The aggregation of the split Table 4.1 CV: :func:`table_4_1` from :func:`study_cv_shard` outputs.

    Parameters
    ----------
    shards : sequence of DataFrame
        Every shard's summary, in any order.
    published_rows, dataset, family
        As :func:`table_4_1`.
    grid : mapping
        The shards' grid (every configuration must be in exactly one shard).
    transform : str
        The shards' target transformation (the ``transform`` column).

    Returns
    -------
    (summary, comparison, pattern)
        As :func:`table_4_1`, identical to the unsplit computation.

    Raises
    ------
    ValueError
        No shards, a configuration in two shards, or a gap in ``config_index``
        (a shard missing).
    """
    from ..models.grid import expand_grid

    if not shards:
        raise ValueError("no shards to combine")
    n_configs = len(expand_grid(grid))
    summary = pd.concat(list(shards), ignore_index=True).sort_values("config_index", kind="stable")
    index = summary["config_index"].to_numpy()
    if not np.array_equal(index, np.arange(n_configs)):
        dup = sorted(set(index[pd.Series(index).duplicated().to_numpy()]))
        raise ValueError(
            f"shards do not cover the grid once: duplicated config_index {dup[:5]}, "
            f"{len(summary)} rows for {n_configs} configurations (a shard missing?)"
        )
    table = rank_models(summary.reset_index(drop=True), transform)
    return _study_tables(table, published_rows, dataset=dataset, family=family)


def abalone_study_shards(config: Mapping[str, Any]) -> int:
    """Jobs the Abalone Table 4.1 CV is split into (rules of ``abalone_study``): config key
    ``rashomon.abalone_study.n_shards``, at most the grid's fit units (prefix groups:
    :func:`xaipipe.models.cv.n_fit_units` of ``rashomon.abalone_study.family`` and ``.grid``).

    Raises
    ------
    ValueError
        ``rashomon.abalone_study.family`` is not a registered family
        (:func:`xaipipe.config.check_family`).
    """
    study = config["rashomon"]["abalone_study"]
    check_family("rashomon.abalone_study.family", study["family"])
    return min(study["n_shards"], n_fit_units(study["family"], study["grid"]))
