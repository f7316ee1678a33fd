"""One resample of :func:`xaipipe.rashomon.bootstrap.bootstrap_rashomon`: refits, set and MR.

Private to :mod:`xaipipe.rashomon.bootstrap`: the one-job bootstrap, its shards and their
combination all run resample ``b`` through :func:`one_resample`, so they give the same bytes for
any split into jobs. :class:`ResampleRun` holds what every resample of one run shares (the model
class, the data, the set and MR options); a resample adds its rows, MR rows and permutations.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["ResampleRun", "grid_configurations", "one_resample"]


def grid_configurations(grids: Mapping[str, Any]) -> list[dict]:
    """Prefix groups of a multi-family grid.

    Parameters
    ----------
    grids : mapping family -> grid
        A grid is a config-style mapping ``parameter -> values`` (ranges
        allowed, :func:`xaipipe.models.grid.expand_grid`) or a list of explicit
        configurations (dicts).

    Returns
    -------
    list of dict
        One entry per group with keys ``family``, ``base`` (parameters without
        ``n_estimators``), ``ks`` (sorted ``n_estimators`` values, empty for
        non-ensembles or when absent), ``configs`` (parameter dicts, one per
        configuration, in ``ks`` order) and ``config_ids``.

    Raises
    ------
    KeyError
        Unknown family.
    ValueError
        Empty ``grids``, an empty grid or a duplicated configuration.
    """
    from ..models.families import PREFIX_PARAM, get_family
    from ..models.grid import config_id, expand_grid, prefix_groups

    if not grids:
        raise ValueError("grids is empty: give at least one family")
    out = []
    for family, grid in grids.items():
        fam = get_family(family)
        if isinstance(grid, (list, tuple)):
            configs = [dict(c) for c in grid]
            if not configs:
                raise ValueError(f"grid of {family!r} is an empty list")
        else:
            configs = expand_grid(grid)
        ids = [config_id(c) for c in configs]
        if len(set(ids)) != len(ids):
            raise ValueError(f"grid of {family!r} lists a configuration twice")
        if fam.ensemble:
            groups = prefix_groups(configs)
        else:
            groups = [(dict(c), []) for c in configs]
        for base, ks in groups:
            if not fam.ensemble and PREFIX_PARAM in base:
                ks = []
            cfgs = [dict(base, **{PREFIX_PARAM: k}) for k in ks] if ks else [dict(base)]
            out.append(
                {
                    "family": family,
                    "spec": fam,
                    "base": dict(base),
                    "ks": list(ks),
                    "configs": cfgs,
                    "config_ids": [config_id(c) for c in cfgs],
                }
            )
    return out


@dataclass(frozen=True, eq=False)
class ResampleRun:
    """What every resample of one :func:`bootstrap_rashomon` run shares (validated there).

    Attributes
    ----------
    groups : list of dict
        :func:`xaipipe.rashomon.bootstrap.grid_configurations` of the model class.
    task : str
    X : ndarray of shape (n, p), float64
        The data resampled (NaN allowed with an ``imputer``).
    y : ndarray of shape (n,)
    fgroups : dict of str -> ndarray of int
        The MR variables (:func:`xaipipe.explain.reliance.resolve_features`).
    metric : str
        Membership loss (out-of-bag).
    epsilon : float
    mode : str
        ``epsilon_mode``.
    mr_estimator : str
    mr_loss : str or callable
    seed : int
        ``random_state`` of every estimator.
    options : mapping family -> mapping or None
        Fixed estimator options.
    max_rows : int
        ``max_rows_per_batch`` of the MR.
    imputer : MissingValueImputer or None
    forest_blocks : (min_rows, block_trees) or None
    """

    groups: list
    task: str
    X: np.ndarray
    y: np.ndarray
    fgroups: dict
    metric: str
    epsilon: float
    mode: str
    mr_estimator: str
    mr_loss: Any
    seed: int
    options: Mapping[str, Mapping[str, Any]] | None
    max_rows: int
    imputer: Any = None
    forest_blocks: tuple[int, int] | None = None


def _fit_group(group, task, X, y, seed, options, forest_store=None):
    from ..models.fitting import fit_group

    fit = fit_group(
        group["spec"],
        task,
        group["base"],
        X,
        y,
        n_estimators=group["ks"],
        random_state=seed,
        options=(options or {}).get(group["family"]),
        forest_store=forest_store,
    )
    return fit.estimator


def _group_outputs(est, group, X, ks=None):
    from ..models.prefix import member_predictor

    return member_predictor(est, (group["ks"] if ks is None else ks) or None)(X)


def one_resample(run: ResampleRun, b, boot, oob, X_mr, y_mr, perms):
    """Resample ``b``'s models, reliance and size records (``boot`` / ``oob``: its in-bag and
    out-of-bag rows; ``X_mr``, ``y_mr``: the MR rows; ``perms``: its permutations or None).

    With ``run.forest_blocks`` its forests are fitted in blocks of trees into forest stores of a
    temporary folder, read one block at a time (bitwise the same records;
    :func:`xaipipe.rashomon.refit.member_store_dir`).
    """
    from .refit import member_store_dir

    with member_store_dir(run.forest_blocks, len(boot)) as store_dir:
        return _resample_records(run, b, boot, oob, X_mr, y_mr, perms, store_dir)


def _fit_and_score(run, b, boot, oob, X_boot, X_oob, store_dir):
    """Refit every prefix group on the in-bag rows; one model record per configuration with its
    out-of-bag loss (NaN for a failed fit). Returns the records and the fitted estimators."""
    from ..models.families import get_family
    from ..models.metrics import evaluate

    y = run.y
    models = []
    fitted = []
    for gi, group in enumerate(run.groups):
        store = None
        if store_dir is not None and get_family(group["family"]).prefix == "forest":
            store = (store_dir / f"group{gi}.forest", int(run.forest_blocks[1]))
        est = _fit_group(group, run.task, X_boot, y[boot], run.seed, run.options, store)
        fitted.append(est)
        outs = [None] * len(group["configs"]) if est is None else _group_outputs(est, group, X_oob)
        for cid, out in zip(group["config_ids"], outs):
            models.append(
                {
                    "bootstrap": b,
                    "family": group["family"],
                    "config_id": cid,
                    "prefix_group": gi,
                    "status": "failed" if est is None else "ok",
                    "metric": run.metric,
                    "loss": np.nan if out is None else float(evaluate(run.task, y[oob], out)[run.metric]),
                }
            )
    return models, fitted


def _member_reliance(run, b, member, fitted, X_mr, y_mr, perms, size):
    """The reliance records of the set's members (one MR pass per fitted group with members)."""
    from .refit import FittedGroup, group_reliance

    reliance = []
    start = 0
    for gi, group in enumerate(run.groups):
        n_cfg = len(group["configs"])
        mask = member[start : start + n_cfg]
        start += n_cfg
        if not mask.any():
            continue
        ids = [cid for cid, m in zip(group["config_ids"], mask) if m]
        ks = [k for k, m in zip(group["ks"], mask) if m] if group["ks"] else []
        fg = FittedGroup(
            family=group["family"], base_params=dict(group["base"]), n_estimators=ks, config_ids=ids, model=fitted[gi]
        )
        arr = group_reliance(
            fg,
            X_mr,
            y_mr,
            features={g: list(c) for g, c in run.fgroups.items()},
            estimator=run.mr_estimator,
            loss=run.mr_loss,
            permutations=perms,
            max_rows_per_batch=run.max_rows,
        )
        diff = arr.mr_difference().mean(axis=2)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = arr.mr_ratio().mean(axis=2)
        e_sw = arr.e_switch.mean(axis=2)
        for i, cid in enumerate(ids):
            for g, fname in enumerate(arr.features):
                reliance.append(
                    {
                        "bootstrap": b,
                        "family": group["family"],
                        "config_id": cid,
                        "feature": fname,
                        "estimator": arr.estimator,
                        "loss": arr.loss,
                        "e_orig": float(arr.e_orig[i]),
                        "e_switch": float(e_sw[i, g]),
                        "mr_ratio": float(ratio[i, g]),
                        "mr_difference": float(diff[i, g]),
                        "set_size": size,
                        "weight": 1.0 / size,
                    }
                )
    return reliance


def _resample_records(run, b, boot, oob, X_mr, y_mr, perms, store_dir):
    from ..data.impute import impute_rows
    from .sets import rashomon_set

    # missing values: filled from the resample's in-bag rows only (its out-of-bag and MR rows too)
    X_boot, X_oob, X_mr = impute_rows(run.imputer, run.X[boot], run.X[oob], X_mr)
    models, fitted = _fit_and_score(run, b, boot, oob, X_boot, X_oob, store_dir)
    metric = run.metric
    frame = pd.DataFrame(models)
    if not (frame["status"] == "ok").any():
        raise ValueError(f"bootstrap resample {b}: every configuration failed to fit")
    rs = rashomon_set(
        frame.assign(**{f"{metric}_mean": frame["loss"]}), metric=metric, epsilon=run.epsilon, mode=run.mode
    )
    member = rs.table["in_set"].to_numpy(dtype=bool)
    best = float(rs.reference["loss"])
    size = int(member.sum())
    for rec, m, gap, ref in zip(models, member, rs.table["gap"], rs.table["is_reference"]):
        rec.update(
            {
                "best_loss": best,
                "gap": float(gap),
                "threshold": float(rs.threshold),
                "in_set": bool(m),
                "is_best": bool(ref),
                "n_oob": int(oob.size),
            }
        )
    reliance = _member_reliance(run, b, member, fitted, X_mr, y_mr, perms, size)
    sizes = {
        "bootstrap": b,
        "n_models": len(models),
        "n_failed": int((frame["status"] != "ok").sum()),
        "set_size": size,
        "best_family": str(rs.reference["family"]),
        "best_config_id": str(rs.reference["config_id"]),
        "best_loss": best,
        "threshold": float(rs.threshold),
        "n_unique_rows": int(np.unique(boot).size),
        "n_oob": int(oob.size),
        "n_mr": int(X_mr.shape[0]),
    }
    return b, models, reliance, sizes
