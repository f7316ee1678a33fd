"""Rashomon-set members: their model reliance and the member table.

The members of the empirical Rashomon sets at the largest ε (:mod:`xaipipe.rashomon.sets`) are
refitted once per prefix group (:mod:`xaipipe.rashomon.refit`). :func:`members_reliance` computes
the MR of every member (Fisher, Rudin & Dominici 2019, §3; :func:`xaipipe.explain.reliance.model_reliance`)
with **common random numbers**: every member is evaluated on the *same* permuted data sets (one
array of permutations of shape ``(G, R, n)`` drawn once) and the same ``e_switch`` subsample, so
differences of MR between members are not Monte-Carlo noise. :func:`member_table` joins those rows
to the members' CV losses and their entry ε per scope (``members.csv``); the MCR intervals and
the ε-path over it are :mod:`xaipipe.rashomon.mcr`.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..explain.reliance import (
    ESTIMATORS,
    e_switch_rows,
    estimator_stream,
    random_permutations,
    resolve_features,
)
from .refit import FittedGroup, group_reliance
from .sets import CROSS_FAMILY, check_epsilons, epsilon_min

__all__ = ["member_table", "members_reliance"]


#: Columns of a CV summary that are not hyperparameters.
_SUMMARY_FIXED = {
    "dataset",
    "family",
    "config_id",
    "config_index",
    "prefix_group",
    "n_folds",
    "status",
    "message",
    "fit_time_s",
    "predict_time_s",
    "loss",
    "gap",
    "in_set",
    "is_reference",
}


def _hyperparameter_columns(frame: pd.DataFrame) -> list[str]:
    out = []
    for c in frame.columns:
        if c in _SUMMARY_FIXED or c.endswith("_mean") or c.endswith("_std"):
            continue
        if c.startswith(("gap_", "min_epsilon_", "is_reference_")):
            continue
        out.append(c)
    return out


# ----------------------------------------------------------------------------- reliance


def members_reliance(
    groups: Sequence[FittedGroup],
    X,
    y,
    *,
    features=None,
    feature_names: Sequence[str] | None = None,
    estimators: Sequence[str] = ("permutation",),
    loss: str = "squared_error",
    n_repeats: int = 20,
    random_state=None,
    e_switch_max_rows: int | None = 400,
    method: str = "auto",
    n_jobs: int | None = 1,
) -> pd.DataFrame:
    """Model reliance of every member of every group, with common random numbers.

    Parameters
    ----------
    groups : sequence of FittedGroup
    X : array-like of shape (n, p)
        Test data.
    y : array-like of shape (n,)
    features : mapping name -> columns, optional
        Variables (one-hot groups permuted jointly); default every column.
    feature_names : sequence of str, optional
    estimators : sequence of {"permutation", "e_divide", "e_switch"}
    loss : str
        ``squared_error`` (regression), ``log_loss`` or ``zero_one``.
    n_repeats : int, default 20
        Random permutations (``"permutation"``) or halvings (``"e_divide"``) per
        variable.
    random_state : int or None
        Seed of the permutations (drawn once, shared by all members) and of the
        ``e_switch`` subsample.
    e_switch_max_rows : int or None, default 400
        ``e_switch`` uses all ``n(n-1)`` pairs of at most this many test rows, a
        seeded subsample shared by all members (as
        :func:`xaipipe.explain.reliance.reliance_report`); None: all rows.
    method : {"auto", "engine", "generic", "linear"}, default "auto"
        :func:`xaipipe.explain.reliance.model_reliance`'s path (``"generic"``
        checks the engine).
    n_jobs : int or None, default 1
        Threads of the tree engine or of the generic path's row blocks
        (:func:`group_reliance`); results do not depend on it.

    Returns
    -------
    DataFrame
        One row per member × variable × estimator: ``family``, ``config_id``,
        ``n_estimators`` (NaN for non-ensembles) and the columns of
        :data:`xaipipe.explain.reliance.RELIANCE_COLUMNS` except ``member``
        (``e_orig`` is the member's test loss), plus ``compute_time_s`` (seconds
        of its group's pass for that estimator).

    Raises
    ------
    ValueError
        Unknown estimator, empty ``groups``, or invalid inputs.
    """
    if not groups:
        raise ValueError("no fitted groups given")
    bad = [e for e in estimators if e not in ESTIMATORS]
    if bad or not estimators:
        raise ValueError(f"estimators must be a non-empty subset of {list(ESTIMATORS)}, got {list(estimators)}")
    Xv = X.to_numpy() if hasattr(X, "to_numpy") else np.asarray(X)
    if feature_names is None and hasattr(X, "columns"):
        feature_names = [str(c) for c in X.columns]
    yv = np.asarray(y)
    n = Xv.shape[0]
    G = len(resolve_features(features, Xv.shape[1], feature_names))
    frames = []
    for est_name in estimators:
        Xe, ye, perms = Xv, yv, None
        if est_name in ("permutation", "e_divide"):  # random permutations / halvings, shared by all members
            perms = random_permutations(n, int(n_repeats), G, estimator_stream(est_name, random_state))
        elif est_name == "e_switch" and e_switch_max_rows is not None:  # model_reliance's e_switch subsample
            rows = e_switch_rows(n, int(e_switch_max_rows), random_state)
            Xe, ye = (Xe, ye) if rows is None else (Xv[rows], yv[rows])
        for grp in groups:
            t0 = time.perf_counter()
            arr = group_reliance(
                grp,
                Xe,
                ye,
                features=features,
                feature_names=feature_names,
                estimator=est_name,
                loss=loss,
                permutations=perms,
                method=method,
                n_jobs=n_jobs,
            )
            elapsed = time.perf_counter() - t0
            tab = arr.to_frame()
            member = tab.pop("member").to_numpy()
            if "n_estimators" in tab:
                tab = tab.drop(columns="n_estimators")
            tab.insert(0, "n_estimators", [grp.n_estimators[i] if grp.n_estimators else np.nan for i in member])
            tab.insert(0, "config_id", [grp.config_ids[i] for i in member])
            tab.insert(0, "family", grp.family)
            tab["compute_time_s"] = elapsed
            frames.append(tab)
    return pd.concat(frames, ignore_index=True)


# ----------------------------------------------------------------------------- tables


def _member_base(sets: Mapping[str, Any], grid: Sequence[float], dataset: str | None) -> pd.DataFrame:
    """:func:`member_table` without the reliance columns: one row per configuration of any
    scope's largest set, with its CV loss and its ``gap_*`` / ``min_epsilon_*`` /
    ``is_reference_*`` columns (from the sets alone)."""
    first = next(iter(sets.values()))
    metric, mode = first.metric, first.mode
    # every configuration in any scope's largest set
    parts = []
    for _scope, rs in sets.items():
        mem = rs.members.copy()
        parts.append(mem)
    members = pd.concat(parts, ignore_index=True).drop_duplicates(["family", "config_id"])
    hyper = _hyperparameter_columns(members)
    base = members[["family", "config_id"] + hyper].copy()
    base.insert(
        0, "dataset", dataset if dataset is not None else (members["dataset"].iloc[0] if "dataset" in members else "")
    )
    base["cv_metric"] = metric
    base["cv_loss"] = members[f"{metric}_mean"].to_numpy(dtype=float)
    std = f"{metric}_std"
    base["cv_loss_std"] = members[std].to_numpy(dtype=float) if std in members else np.nan
    base["epsilon_mode"] = mode
    key = ["family", "config_id"]
    base["family"] = base["family"].astype(str)
    base["config_id"] = base["config_id"].astype(str)
    scoped = {
        "family": [rs.table for name, rs in sets.items() if name != CROSS_FAMILY],
        CROSS_FAMILY: [sets[CROSS_FAMILY].table] if CROSS_FAMILY in sets else [],
    }
    for label, tables in scoped.items():
        if tables:
            info = pd.concat([t[key + ["gap", "is_reference"]] for t in tables], ignore_index=True)
            info = info.astype({"family": str, "config_id": str})
            info = base[key].merge(info, on=key, how="left", validate="one_to_one")
            gap = info["gap"].to_numpy(dtype=float)
            ref = info["is_reference"].fillna(False).to_numpy(dtype=bool)
        else:
            gap = np.full(len(base), np.nan)
            ref = np.zeros(len(base), dtype=bool)
        base[f"gap_{label}"] = gap
        base[f"min_epsilon_{label}"] = epsilon_min(gap, grid)
        base[f"is_reference_{label}"] = ref
    return base


def member_table(
    sets: Mapping[str, Any],
    reliance: pd.DataFrame,
    *,
    epsilons: Sequence[float],
    dataset: str | None = None,
) -> pd.DataFrame:
    """Member-level table: one row per member × variable × estimator.

    Parameters
    ----------
    sets : mapping scope -> RashomonSet
        At the largest ε (:func:`rashomon_scopes`).
    reliance : DataFrame
        :func:`members_reliance` output for (at least) the members of ``sets``.
    epsilons : sequence of float
        The ε grid (for the ``min_epsilon_*`` columns).
    dataset : str, optional

    Returns
    -------
    DataFrame
        ``dataset``, ``family``, ``config_id``, the hyperparameter columns,
        ``cv_metric``, ``cv_loss`` (CV mean), ``cv_loss_std``, ``epsilon_mode``,
        and per scope ``s`` of the member's family and the cross-family scope:
        ``gap_<s>`` (distance to that scope's reference), ``min_epsilon_<s>``
        (smallest grid ε whose set contains the member; NaN if none: the member is
        in ``R(ε)`` iff ``min_epsilon <= ε``) and ``is_reference_<s>``; the family
        scope's columns are named ``*_family``. Then the reliance columns
        (``feature``, ``estimator``, ``algorithm``, ``loss``, ``e_orig``,
        ``e_switch``, ``mr_ratio``, ``mr_difference``, their ``_std`` / ``_se``,
        ``n_repeats``, ``n_samples``) and ``rank_mr_ratio`` (1 = the member's most
        relied-on variable, per member and estimator; ties share the minimum rank).

    Raises
    ------
    ValueError
        A set member without reliance rows.
    """
    grid = check_epsilons(epsilons)
    base = _member_base(sets, grid, dataset)
    key = ["family", "config_id"]
    rel = reliance.copy()
    rel["family"] = rel["family"].astype(str)
    rel["config_id"] = rel["config_id"].astype(str)
    rel = rel.drop(columns=[c for c in ("compute_time_s",) if c in rel.columns])
    if "n_estimators" in base.columns:
        rel = rel.drop(columns=[c for c in ("n_estimators",) if c in rel.columns])
    merged = base.merge(rel, on=key, how="left", validate="one_to_many")
    missing = merged["feature"].isna()
    if missing.any():
        f, c = merged.loc[missing, key].iloc[0]
        raise ValueError(f"no reliance rows for member ({f}, {c})")
    merged["rank_mr_ratio"] = (
        merged.groupby(["family", "config_id", "estimator"])["mr_ratio"].rank(ascending=False, method="min").astype(int)
    )
    return merged.reset_index(drop=True)
