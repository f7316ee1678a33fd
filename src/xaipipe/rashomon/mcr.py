"""Model class reliance (MCR) over empirical Rashomon sets of CV grids.

Definition (Fisher, Rudin & Dominici 2019, JMLR 20(177), §4, eqs. for
:math:`MCR_-` and :math:`MCR_+`; seed 001 §4.1.3)
---------------------------------------------------------------------------
For a Rashomon set :math:`\\mathcal R(\\epsilon)` (:mod:`xaipipe.rashomon.sets`)
and a variable (one column or a one-hot group such as Abalone's ``Sex``),

.. math:: [MCR_-(\\epsilon), MCR_+(\\epsilon)] =
   [\\min_{f \\in \\mathcal R(\\epsilon)} MR(f), \\max_{f \\in \\mathcal R(\\epsilon)} MR(f)],

with :math:`MR(f) = e_{switch}(f) / e_{orig}(f)` the model reliance
(:mod:`xaipipe.explain.reliance`). *Plug-in* estimate (seed §4.1.3.2): every
member of the empirical set :math:`\\hat{\\mathcal R}(\\epsilon)` is refitted on the
training data and :math:`\\widehat{MR}` is computed on the test set; the interval
is the min and max over members. Fisher et al. define MCR on the ratio; the
difference ``e_switch - e_orig`` (loss units) is reported as a second
``quantity``.

Reading (Fisher et al. §4): :math:`MCR_+(\\epsilon)` near 1 means no
well-performing model relies on the variable; :math:`MCR_-(\\epsilon) > 1` means
*every* model in :math:`\\mathcal R(\\epsilon)` relies on it (each has
:math:`MR > 1`) - a statement about the set, not a comparison with the
reference model (the seed's §4.1.3.1 says "more than the reference model",
which is wrong: the reference's own MR lies inside the interval by
construction). :math:`MCR_-` near 1 means some good model barely uses the
variable, so it is not *necessary* for good prediction, though it may still be
heavily used by other good models.

Computation and cost
--------------------
* Members of :math:`\\hat{\\mathcal R}(\\epsilon_{max})` (the union over the
  requested scopes: each family alone and the cross-family set) are refitted once
  per *prefix group* (:mod:`xaipipe.rashomon.refit`): configurations that differ
  only in ``n_estimators`` come from one fit with the group's largest
  ``n_estimators`` (:func:`xaipipe.models.grid.prefix_groups`,
  :mod:`xaipipe.models.prefix`).
* MR of all members of a fitted group comes from one pass of
  :func:`xaipipe.explain.reliance.model_reliance` (the tree engine for random
  forests and gradient boosting, one ``predict`` per permuted data set for all
  prefixes otherwise).
* **Common random numbers**: every member is evaluated on the *same* permuted
  data sets (one array of permutations of shape ``(G, R, n)`` drawn once), and
  the same ``e_switch`` subsample, so differences of MR between members are not
  Monte-Carlo noise.
* ε-sensitivity reuses the members' MR: the sets are nested, only the min/max
  are recomputed per ε.
* Split jobs: :func:`rashomon_refit` does the refits, MR and PD curves of some
  families (one ``rashomon_refit`` job each, config key ``rashomon.refit_jobs``);
  :func:`mcr_study` with ``refits=`` combines them into the same tables, byte for
  byte.

Why one module of this size (~900 lines): the member table, the MCR and ε-path
tables, the one-job study and the split refit jobs must give the same bytes, so
they share the private helpers that build the member rows and order them
(``_member_base``, ``_combined_reliance``); apart they would import each other.

References
----------
Fisher, A., Rudin, C. & Dominici, F. (2019). All models are wrong, but many are
useful. JMLR 20(177), 1-81. Semenova, L., Rudin, C. & Parr, R. (2022). On the
existence of simpler machine learning models. FAccT '22 (Rashomon ratio).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..explain.reliance import (
    DEFAULT_MAX_ROWS,
    ESTIMATORS,
    estimator_stream,
    features_from_groups,
    random_permutations,
    resolve_features,
)
from .multiplicity import function_count_columns, members_predictions
from .refit import FittedGroup, fit_member_groups, group_reliance
from .sets import (
    CROSS_FAMILY,
    QUANTITIES,
    SCOPES,
    check_epsilons,
    configuration_key,
    epsilon_min,
    hyperparameter_setting_key,
    rashomon_scopes,
    select_set,
)

__all__ = [
    "QUANTITIES",
    "SCOPES",
    "mcr_interval",
    "members_reliance",
    "member_table",
    "mcr_table",
    "mcr_path",
    "rashomon_reliance",
    "mcr_study",
    "rashomon_refit",
    "MCR_FIRST",
    "select_set",
]

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
    max_rows_per_batch: int = DEFAULT_MAX_ROWS,
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
        :func:`xaipipe.explain.summary.reliance_report`); None: all rows.
    method : {"auto", "engine", "generic", "linear"}, default "auto"
        :func:`xaipipe.explain.reliance.model_reliance`'s path (``"generic"``
        checks the engine).
    max_rows_per_batch : int
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
        elif est_name == "e_switch" and e_switch_max_rows is not None and n > e_switch_max_rows:
            rows = np.sort(np.random.default_rng(random_state).choice(n, int(e_switch_max_rows), replace=False))
            Xe, ye = Xv[rows], yv[rows]
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
                max_rows_per_batch=max_rows_per_batch,
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


def mcr_interval(values) -> tuple[int, int, int]:
    """Positions of :math:`MCR_-` and :math:`MCR_+` among the members' MR values.

    The one min/max of the pipeline (Fisher, Rudin & Dominici 2019, §4: the
    empirical MCR is the minimum / maximum of MR over the Rashomon set), used by
    :func:`mcr_table` and the bootstrap (:mod:`xaipipe.rashomon.bootstrap`).
    Members whose MR is undefined (NaN or infinite: a member with zero loss) are
    left out and counted; ties resolve to the first member in table order.

    Parameters
    ----------
    values : array-like of shape (m,)
        MR of every member (ratio or difference).

    Returns
    -------
    (argmin, argmax, n_undefined)
        Positions into ``values`` (``-1, -1`` when no value is finite) and the
        number of non-finite values.
    """
    v = np.asarray(values, dtype=float)
    fin = np.isfinite(v)
    if not fin.any():
        return -1, -1, int(v.size)
    idx = np.flatnonzero(fin)
    return int(idx[np.argmin(v[fin])]), int(idx[np.argmax(v[fin])]), int((~fin).sum())


def mcr_table(
    members: pd.DataFrame,
    sets: Mapping[str, Any],
    *,
    epsilons: Sequence[float],
    quantities: Sequence[str] = QUANTITIES,
) -> pd.DataFrame:
    """Model class reliance intervals for every scope, ε, variable, estimator.

    Parameters
    ----------
    members : DataFrame
        :func:`member_table` output.
    sets : mapping scope -> RashomonSet
        The sets used for ``members`` (their reference per scope).
    epsilons : sequence of float
        ε grid; each set ``R(ε)`` is read from the ``min_epsilon_*`` columns
        (nested sets, the members' MR is reused).
    quantities : sequence of {"mr_ratio", "mr_difference"}

    Returns
    -------
    DataFrame
        One row per scope × ε × variable × estimator × quantity: ``dataset``,
        ``scope``, ``epsilon``, ``epsilon_mode``, ``loss_bound`` (the absolute CV-loss
        bound of ``R(ε)`` actually used), ``epsilon_abs`` (``loss_bound`` minus the
        reference's CV loss), ``cv_metric``,
        ``reference_family``, ``reference_config_id``, ``feature``, ``estimator``,
        ``loss``, ``quantity``, ``mcr_minus`` (min over ``R(ε)``), ``mcr_plus``
        (max), ``mr_reference`` (the reference model's value), ``n_members``
        (``|R(ε)|``), ``n_undefined`` (members with a NaN/inf value, left out of
        min/max), ``argmin_config`` / ``argmax_config`` (``family:config_id`` of
        the extreme members), ``rashomon_ratio`` (``|R(ε)| / |F|`` of the scope's
        grid), ``grid_size``, ``n_configurations`` (distinct configurations:
        prefixes of one ensemble configuration count once), ``n_families``,
        ``n_hyperparameter_settings`` (as ``n_configurations``, and the
        ``random_state`` replicates of one setting also count once).

    Raises
    ------
    ValueError
        Unknown quantity, or a scope without its reference in ``members``.
    """
    grid = check_epsilons(epsilons)
    bad = [q for q in quantities if q not in QUANTITIES]
    if bad or not quantities:
        raise ValueError(f"quantities must be a non-empty subset of {list(QUANTITIES)}")
    rows = []
    dataset = members["dataset"].iloc[0] if "dataset" in members and len(members) else ""
    for scope, rs in sets.items():
        label = CROSS_FAMILY if scope == CROSS_FAMILY else "family"
        part = members if scope == CROSS_FAMILY else members[members["family"] == scope]
        col = f"min_epsilon_{label}"
        ref_rows = part[part[f"is_reference_{label}"]]
        if ref_rows.empty:
            raise ValueError(f"scope {scope!r}: the reference model has no rows in the member table")
        grid_size = rs.grid_size
        for eps in grid:
            in_set = part[part[col] <= eps]
            keys = in_set[["family", "config_id"]].drop_duplicates()
            n_members = keys.shape[0]
            n_configurations = len({configuration_key(f, c) for f, c in keys.itertuples(index=False)})
            n_settings = len({hyperparameter_setting_key(f, c) for f, c in keys.itertuples(index=False)})
            n_families = keys["family"].nunique()
            loss_bound = rs.threshold_at(eps)
            for (feature, est), sub in in_set.groupby(["feature", "estimator"], sort=False):
                ref = ref_rows[(ref_rows["feature"] == feature) & (ref_rows["estimator"] == est)]
                for q in quantities:
                    v = sub[q].to_numpy(dtype=float)
                    lo, hi, n_undefined = mcr_interval(v)
                    if lo >= 0:
                        mn, mx = float(v[lo]), float(v[hi])
                        amin = f"{sub['family'].iloc[lo]}:{sub['config_id'].iloc[lo]}"
                        amax = f"{sub['family'].iloc[hi]}:{sub['config_id'].iloc[hi]}"
                    else:
                        mn = mx = np.nan
                        amin = amax = ""
                    rows.append(
                        {
                            "dataset": dataset,
                            "scope": scope,
                            "epsilon": eps,
                            "epsilon_mode": rs.mode,
                            "loss_bound": loss_bound,
                            "epsilon_abs": loss_bound - float(rs.reference["loss"]),
                            "cv_metric": rs.metric,
                            "reference_family": str(rs.reference["family"]),
                            "reference_config_id": str(rs.reference["config_id"]),
                            "feature": feature,
                            "estimator": est,
                            "loss": sub["loss"].iloc[0],
                            "quantity": q,
                            "mcr_minus": mn,
                            "mcr_plus": mx,
                            "mr_reference": float(ref[q].iloc[0]) if len(ref) else np.nan,
                            "n_members": n_members,
                            "n_undefined": n_undefined,
                            "argmin_config": amin,
                            "argmax_config": amax,
                            "rashomon_ratio": n_members / grid_size,
                            "grid_size": grid_size,
                            "n_configurations": n_configurations,
                            "n_families": n_families,
                            "n_hyperparameter_settings": n_settings,
                        }
                    )
    return pd.DataFrame(rows)


def mcr_path(
    members: pd.DataFrame,
    sets: Mapping[str, Any],
    *,
    epsilon_max: float,
    quantities: Sequence[str] = QUANTITIES,
) -> pd.DataFrame:
    """The exact ε-path of MCR: :math:`MCR_-(\\epsilon)` and :math:`MCR_+(\\epsilon)` as step functions.

    Over a finite model class the Rashomon set grows only when ε passes a
    member's gap (its *entry ε*, ``gap_<scope>`` of :func:`member_table`), so
    :math:`MCR_\\pm(\\epsilon)` (Fisher, Rudin & Dominici 2019, §4) are step
    functions, constant between consecutive entry values and right-continuous.
    One row per step: from ε = 0 (the reference and any tie) to ``epsilon_max``.

    Parameters
    ----------
    members : DataFrame
        :func:`member_table` output (members of the sets at ``epsilon_max`` or more).
    sets : mapping scope -> RashomonSet
        The sets used for ``members`` (reference and loss bound per scope).
    epsilon_max : float
        The largest ε of the path (the largest configured ε).
    quantities : sequence of {"mr_ratio", "mr_difference"}

    Returns
    -------
    DataFrame
        Per scope, variable, estimator and quantity, one row per distinct entry ε
        ``<= epsilon_max``: ``dataset``, ``scope``, ``epsilon`` (the entry ε, in the
        units of ``epsilon_mode``), ``epsilon_mode``, ``loss_bound`` (absolute CV
        loss at that ε), ``feature``, ``estimator``, ``loss``, ``quantity``,
        ``mcr_minus``, ``mcr_plus`` (over the members with gap <= ε; undefined MR
        values left out as in :func:`mcr_interval`), ``mr_reference``,
        ``n_members``, ``n_configurations``, ``argmin_config``, ``argmax_config``,
        ``n_hyperparameter_settings``, ``epsilon_abs`` (``loss_bound`` minus the
        reference's CV loss).

    Raises
    ------
    ValueError
        Unknown quantity, or a scope without its reference in ``members``.
    """
    bad = [q for q in quantities if q not in QUANTITIES]
    if bad or not quantities:
        raise ValueError(f"quantities must be a non-empty subset of {list(QUANTITIES)}")
    eps_max = float(epsilon_max)
    dataset = members["dataset"].iloc[0] if "dataset" in members and len(members) else ""
    rows = []
    for scope, rs in sets.items():
        label = CROSS_FAMILY if scope == CROSS_FAMILY else "family"
        part = members if scope == CROSS_FAMILY else members[members["family"] == scope]
        gap = f"gap_{label}"
        part = part[np.nan_to_num(part[gap].to_numpy(dtype=float), nan=np.inf) <= eps_max + 1e-12]
        ref_rows = part[part[f"is_reference_{label}"]]
        if ref_rows.empty:
            raise ValueError(f"scope {scope!r}: the reference model has no rows in the member table")
        keys = part[["family", "config_id", gap]].drop_duplicates(["family", "config_id"])
        keys = keys.sort_values(gap, kind="stable")
        steps = np.unique(np.maximum(keys[gap].to_numpy(dtype=float), 0.0))
        entry = np.maximum(keys[gap].to_numpy(dtype=float), 0.0)
        config_keys = [configuration_key(f, c) for f, c in zip(keys["family"], keys["config_id"])]
        setting_keys = [hyperparameter_setting_key(f, c) for f, c in zip(keys["family"], keys["config_id"])]
        n_members = np.searchsorted(entry, steps, side="right")
        n_configs = [len(set(config_keys[:k])) for k in n_members]
        n_settings = [len(set(setting_keys[:k])) for k in n_members]
        bounds = [rs.threshold_at(step) for step in steps]
        ref_loss = float(rs.reference["loss"])
        for (feature, est), sub in part.groupby(["feature", "estimator"], sort=False):
            sub = sub.assign(_entry=np.maximum(sub[gap].to_numpy(dtype=float), 0.0)).sort_values(
                "_entry", kind="stable"
            )
            ref = ref_rows[(ref_rows["feature"] == feature) & (ref_rows["estimator"] == est)]
            e = sub["_entry"].to_numpy()
            labels = (sub["family"].astype(str) + ":" + sub["config_id"].astype(str)).to_numpy()
            for q in quantities:
                v = sub[q].to_numpy(dtype=float)
                for step, bound, n_m, n_c, n_s in zip(steps, bounds, n_members, n_configs, n_settings):
                    k = int(np.searchsorted(e, step, side="right"))
                    lo, hi, _ = mcr_interval(v[:k])
                    rows.append(
                        {
                            "dataset": dataset,
                            "scope": scope,
                            "epsilon": float(step),
                            "epsilon_mode": rs.mode,
                            "loss_bound": bound,
                            "feature": feature,
                            "estimator": est,
                            "loss": sub["loss"].iloc[0],
                            "quantity": q,
                            "mcr_minus": float(v[lo]) if lo >= 0 else np.nan,
                            "mcr_plus": float(v[hi]) if hi >= 0 else np.nan,
                            "mr_reference": float(ref[q].iloc[0]) if len(ref) else np.nan,
                            "n_members": int(n_m),
                            "n_configurations": int(n_c),
                            "argmin_config": labels[lo] if lo >= 0 else "",
                            "argmax_config": labels[hi] if hi >= 0 else "",
                            "n_hyperparameter_settings": int(n_s),
                            "epsilon_abs": bound - ref_loss,
                        }
                    )
    return pd.DataFrame(rows)


def rashomon_reliance(
    summary: pd.DataFrame,
    X_train,
    y_train,
    X_test,
    y_test,
    *,
    task: str,
    metric: str,
    epsilons: Sequence[float],
    epsilon_mode: str = "relative",
    scopes: Sequence[str] = SCOPES,
    references: Mapping[str, Any] | None = None,
    features=None,
    feature_names: Sequence[str] | None = None,
    feature_groups: Mapping[str, Sequence[str]] | None = None,
    estimators: Sequence[str] = ("permutation",),
    loss: str | None = None,
    n_repeats: int = 20,
    e_switch_max_rows: int | None = 400,
    random_state: int = 0,
    options: Mapping[str, Mapping[str, Any]] | None = None,
    dataset: str | None = None,
    n_jobs: int = 1,
    method: str = "auto",
) -> tuple[pd.DataFrame, pd.DataFrame, list]:
    """The whole MCR step of one dataset: sets, refits, MR, member and MCR tables.

    Parameters
    ----------
    summary : DataFrame
        The dataset's CV summaries (``<family>_summary.csv``), concatenated.
    X_train, y_train, X_test, y_test : arrays
        The prepared split (:class:`xaipipe.data.prepare.PreparedData`).
    task : {"regression", "classification"}
    metric : str
        CV loss defining the sets (``rmse`` / ``log_loss``).
    epsilons : sequence of float
        ε grid; members are those of the largest ε.
    epsilon_mode : {"relative", "absolute"}
    scopes, references
        See :func:`rashomon_scopes`.
    features : mapping name -> columns, optional
        Variables; default from ``feature_names`` and ``feature_groups``
        (:func:`xaipipe.explain.reliance.features_from_groups`: one-hot groups
        count as one variable).
    estimators, n_repeats, e_switch_max_rows
        See :func:`members_reliance`.
    loss : str, optional
        MR loss; default ``squared_error`` (regression) / ``log_loss``.
    random_state : int
        Estimators' ``random_state`` (as in the CV) and the permutation seed.
    options : mapping family -> mapping
        ``estimator_options``.
    dataset : str, optional
    n_jobs : int
        Processes for the refits.
    method : str
        :func:`xaipipe.explain.reliance.model_reliance`'s path.

    Returns
    -------
    members : DataFrame
        :func:`member_table`.
    mcr : DataFrame
        :func:`mcr_table`.
    groups : list of FittedGroup
        The refitted models (for PD envelopes).
    """
    grid = check_epsilons(epsilons)
    sets = rashomon_scopes(
        summary, metric=metric, epsilon=grid[-1], mode=epsilon_mode, scopes=scopes, references=references
    )
    candidates = pd.concat([rs.members[["family", "config_id"]] for rs in sets.values()], ignore_index=True)
    groups = fit_member_groups(
        candidates, task, X_train, y_train, random_state=random_state, options=options, n_jobs=n_jobs
    )
    if features is None and feature_names is not None:
        features = features_from_groups(feature_names, feature_groups)
    if loss is None:
        loss = "squared_error" if task == "regression" else "log_loss"
    rel = members_reliance(
        groups,
        X_test,
        y_test,
        features=features,
        feature_names=feature_names,
        estimators=estimators,
        loss=loss,
        n_repeats=n_repeats,
        random_state=random_state,
        e_switch_max_rows=e_switch_max_rows,
        method=method,
        n_jobs=n_jobs,
    )
    members = member_table(sets, rel, epsilons=grid, dataset=dataset)
    return members, mcr_table(members, sets, epsilons=grid), groups


def _figure_scope(sets: Mapping[str, Any], figure_scope: str) -> str:
    """The scope of the PD envelope: ``figure_scope`` when it has a set, else the first scope."""
    return figure_scope if figure_scope in sets else next(iter(sets))


def rashomon_refit(
    summary: pd.DataFrame,
    X_train,
    y_train,
    X_test,
    y_test,
    *,
    families: Sequence[str],
    task: str,
    metric: str,
    epsilons: Sequence[float],
    epsilon: float,
    epsilon_mode: str = "relative",
    scopes: Sequence[str] = SCOPES,
    figure_scope: str = CROSS_FAMILY,
    feature_names: Sequence[str],
    feature_groups: Mapping[str, Sequence[str]] | None = None,
    estimators: Sequence[str] = ("permutation",),
    loss: str | None = None,
    n_repeats: int = 20,
    e_switch_max_rows: int | None = 400,
    pd_resolution: int = 30,
    random_state: int = 0,
    options: Mapping[str, Mapping[str, Any]] | None = None,
    n_jobs: int = 1,
    method: str = "auto",
    pd_class_index: int = 1,
) -> dict:
    """Refits and MR of the Rashomon-set members of some families: one ``rashomon_refit`` job.

    The member refits of :func:`rashomon_reliance`, restricted to ``families``: the
    sets come from the whole ``summary`` (every family, so the cross-family set and
    its reference are the same as in one job), the members of ``families`` at the
    largest ε are refitted (:func:`fit_member_groups`) and their MR computed
    (:func:`members_reliance`: the permutations are drawn from ``random_state`` alone,
    so a member's MR does not depend on which other members a job holds). The PD
    envelope's variables (the reference model's top ``k`` by MR) are not known here,
    so the PD curves of this job's members of the envelope's set are computed for
    every variable that has a grid (:func:`xaipipe.rashomon.envelope.members_curves`;
    a column group that is not one-hot has none, and the combining call raises if the
    envelope needs it, as one job does).
    :func:`mcr_study` with ``refits=`` combines such jobs into the tables of one job,
    byte for byte.

    Parameters
    ----------
    summary : DataFrame
        The dataset's CV summaries, every family of the model class, concatenated.
    families : sequence of str
        The families of this job (others are left out; a family without members gives
        empty frames).
    epsilon : float
        ε of the PD envelope (``figure_scope``'s set).
    pd_resolution : int
        Grid points of a numeric variable's PD curve.
    task, metric, epsilons, epsilon_mode, scopes, figure_scope, feature_names, feature_groups, estimators, loss, \
n_repeats, e_switch_max_rows, random_state, options, n_jobs, method, pd_class_index
        As :func:`mcr_study`.

    Returns
    -------
    dict
        ``families`` (list), ``reliance`` (:func:`members_reliance` rows of the
        members, estimator-major, in group order), ``curves``
        (:func:`~xaipipe.rashomon.envelope.members_curves` of the members in the
        envelope's set, every variable), ``n_groups`` (fitted groups), ``predictions``
        (:func:`~xaipipe.rashomon.multiplicity.members_predictions` of the members: keys and the
        ``(m, n_test)`` test predictions, float64).

    Raises
    ------
    ValueError
        Empty ``families`` or an invalid input (as :func:`mcr_study`).
    """
    from .envelope import members_curves, selected_groups
    from .linear import LINEAR_EXACT

    families = [str(f) for f in families]
    if not families:
        raise ValueError("families must not be empty")
    grid = check_epsilons(epsilons)
    grid_scopes = [s for s in scopes if s != LINEAR_EXACT]
    sets = rashomon_scopes(summary, metric=metric, epsilon=grid[-1], mode=epsilon_mode, scopes=grid_scopes)
    candidates = pd.concat([rs.members[["family", "config_id"]] for rs in sets.values()], ignore_index=True)
    mine = candidates[candidates["family"].astype(str).isin(families)]
    out = {"families": families, "reliance": pd.DataFrame(), "curves": pd.DataFrame(), "n_groups": 0}
    out["predictions"] = (pd.DataFrame({"family": [], "config_id": []}), np.empty((0, len(X_test))))
    if mine.empty:
        return out
    groups = fit_member_groups(mine, task, X_train, y_train, random_state=random_state, options=options, n_jobs=n_jobs)
    out["predictions"] = members_predictions(groups, X_test)
    features = features_from_groups(feature_names, feature_groups)
    if loss is None:
        loss = "squared_error" if task == "regression" else "log_loss"
    out["reliance"] = members_reliance(
        groups,
        X_test,
        y_test,
        features=features,
        feature_names=feature_names,
        estimators=estimators,
        loss=loss,
        n_repeats=n_repeats,
        random_state=random_state,
        e_switch_max_rows=e_switch_max_rows,
        method=method,
        n_jobs=n_jobs,
    )
    base = _member_base(sets, grid, None)
    chosen = selected_groups(groups, select_set(base, _figure_scope(sets, figure_scope), epsilon, allow_empty=True))
    out["curves"] = members_curves(
        chosen,
        X_test,
        feature_names=feature_names,
        feature_groups=feature_groups,
        resolution=pd_resolution,
        percentiles=(0.0, 1.0),
        skip_invalid=True,
        class_index=pd_class_index,
    )
    out["n_groups"] = len(groups)
    return out


def _combined_reliance(
    refits: Sequence[Mapping[str, Any]], families: Sequence[str], estimators: Sequence[str]
) -> pd.DataFrame:
    """The reliance rows of :func:`rashomon_refit` jobs in the order of one job: estimator-major,
    then the families in ``families`` order (each family's groups are contiguous)."""
    owner = {}
    for r in refits:
        for f in r["families"]:
            if f in owner:
                raise ValueError(f"family {f!r} is in two rashomon_refit results")
            owner[f] = r
    lost = [f for f in families if f not in owner]
    if lost:
        raise ValueError(f"no rashomon_refit result for the Rashomon-set family/families {lost}")
    blocks = []
    for est in estimators:
        for f in families:
            rel = owner[f]["reliance"]
            if len(rel):
                block = rel[(rel["family"].astype(str) == f) & (rel["estimator"] == est)]
                if len(block):
                    blocks.append(block)
    if not blocks:
        raise ValueError("no fitted groups given")
    return pd.concat(blocks, ignore_index=True)


#: Leading columns of ``mcr.csv``.
MCR_FIRST = ["dataset", "scope", "epsilon", "feature", "mcr_minus", "mcr_plus", "mr_reference", "n_members"]


def _fitted_exactly(X_test, dataset) -> bool:
    """True (and a warning in the log) when a linear model fits every test row exactly: the
    ``linear_exact`` scope's MR (a ratio to ``e_orig = 0``) is then undefined and the scope is left
    out. That is the case when the centred test design has rank ``n_test - 1`` (e.g. at most
    ``p + 1`` test rows for ``p`` features)."""
    import logging

    X = np.asarray(X_test, dtype=np.float64)
    n = X.shape[0]
    if n > X.shape[1] + 1 or np.linalg.matrix_rank(X - X.mean(axis=0)) < n - 1:
        return False
    logging.getLogger("xaipipe").warning(
        "dataset %r: the %d test rows are fitted exactly by a linear model (%d features): the linear_exact "
        "scope's MR is undefined and left out of mcr.csv (add rows, or raise split.test_size)",
        dataset,
        n,
        X.shape[1],
    )
    return True


def mcr_study(
    summary: pd.DataFrame,
    X_train,
    y_train,
    X_test,
    y_test,
    *,
    task: str,
    metric: str,
    epsilons: Sequence[float],
    epsilon: float,
    epsilon_mode: str = "relative",
    scopes: Sequence[str] = SCOPES,
    figure_scope: str = CROSS_FAMILY,
    feature_names: Sequence[str],
    feature_groups: Mapping[str, Sequence[str]] | None = None,
    estimators: Sequence[str] = ("permutation",),
    loss: str | None = None,
    n_repeats: int = 20,
    e_switch_max_rows: int | None = 400,
    pd_top_k: int = 2,
    pd_resolution: int = 30,
    random_state: int = 0,
    options: Mapping[str, Mapping[str, Any]] | None = None,
    dataset: str | None = None,
    n_jobs: int = 1,
    refits: Sequence[Mapping[str, Any]] | None = None,
    pd_class_index: int = 1,
) -> dict:
    """The ``rashomon`` rule: sets, member MR, MCR and the PD envelope of one model class.

    :func:`rashomon_reliance` (sets at the largest ε, refits, MR of every member,
    :func:`member_table`, :func:`mcr_table`), :func:`xaipipe.rashomon.sets.set_sizes`
    (ε-sensitivity of the set sizes) and
    :func:`xaipipe.rashomon.envelope.pd_envelope_table` (the PD envelope of the
    ``figure_scope`` set at ``epsilon``; the first scope when that one does not
    exist), the exact ε-path (:func:`mcr_path`) and, for regression with
    ``"linear_exact"`` among the ``scopes``, the exact MCR of all linear models
    (:func:`xaipipe.rashomon.linear.linear_exact_scope`: its rows join ``mcr`` and
    ``path``).

    With ``refits`` (the results of :func:`rashomon_refit` jobs for some families, the
    config key ``rashomon.refit_jobs``), those families' members are not refitted here:
    their MR and PD curves come from the jobs, the remaining families' from one
    :func:`rashomon_refit` call in this process, and the tables are the same, byte for
    byte, as without ``refits``.

    ``pd_class_index`` is the probability column of the PD envelope of classifiers (1:
    the positive class of a binary model; a multiclass model's chosen class). Sets, MR
    and MCR of a multiclass model use the multiclass losses (:mod:`xaipipe.explain.reliance`).

    Returns
    -------
    dict
        ``sets``, ``members``, ``mcr`` (columns :data:`MCR_FIRST` first), ``path``,
        ``envelope``, ``curves``, ``linear_exact`` (no rows unless that scope runs: the
        columns :data:`xaipipe.rashomon.linear.LINEAR_EXACT_COLUMNS`)
        (DataFrames), ``n_groups`` (fitted groups), ``predictions`` (ndarray of shape
        ``(m, n_test)``, float64: the test predictions -- class-1 probabilities for a
        classifier -- of the ``m`` members in the order of ``members``' first appearance) and
        ``prediction_index`` (``member``, ``family``, ``config_id`` of its rows). ``sets``,
        ``mcr`` and ``path`` end with ``n_distinct_functions`` and ``is_default``
        (:func:`xaipipe.rashomon.multiplicity.function_count_columns`; ``epsilon`` is the
        default ε).
    """
    from .envelope import pd_envelope_table
    from .linear import LINEAR_EXACT, LINEAR_EXACT_COLUMNS, linear_exact_scope
    from .sets import set_sizes

    grid_scopes = [s for s in scopes if s != LINEAR_EXACT]
    eps_grid = check_epsilons(epsilons)
    curves_parts = None
    if refits is None:
        members, mcr, groups = rashomon_reliance(
            summary,
            X_train,
            y_train,
            X_test,
            y_test,
            task=task,
            metric=metric,
            epsilons=eps_grid,
            epsilon_mode=epsilon_mode,
            scopes=grid_scopes,
            feature_names=feature_names,
            feature_groups=feature_groups,
            estimators=estimators,
            loss=loss,
            n_repeats=n_repeats,
            e_switch_max_rows=e_switch_max_rows,
            random_state=random_state,
            options=options,
            dataset=dataset,
            n_jobs=n_jobs,
        )
        n_groups = len(groups)
        pred_keys, pred = members_predictions(groups, X_test)
    else:
        groups = None
        largest = rashomon_scopes(summary, metric=metric, epsilon=eps_grid[-1], mode=epsilon_mode, scopes=grid_scopes)
        order = [
            str(f)
            for f in pd.unique(
                pd.concat([rs.members["family"] for rs in largest.values()], ignore_index=True).astype(str)
            )
        ]
        parts = list(refits)
        done = {str(f) for r in parts for f in r["families"]}
        rest = [f for f in order if f not in done]
        if rest:
            parts.append(
                rashomon_refit(
                    summary,
                    X_train,
                    y_train,
                    X_test,
                    y_test,
                    families=rest,
                    task=task,
                    metric=metric,
                    epsilons=eps_grid,
                    epsilon=epsilon,
                    epsilon_mode=epsilon_mode,
                    scopes=grid_scopes,
                    figure_scope=figure_scope,
                    feature_names=feature_names,
                    feature_groups=feature_groups,
                    estimators=estimators,
                    loss=loss,
                    n_repeats=n_repeats,
                    e_switch_max_rows=e_switch_max_rows,
                    pd_resolution=pd_resolution,
                    random_state=random_state,
                    options=options,
                    n_jobs=n_jobs,
                    pd_class_index=pd_class_index,
                )
            )
        rel = _combined_reliance(parts, order, estimators)
        members = member_table(largest, rel, epsilons=eps_grid, dataset=dataset)
        mcr = mcr_table(members, largest, epsilons=eps_grid)
        n_groups = sum(int(r["n_groups"]) for r in parts)
        pred_keys = pd.concat([r["predictions"][0] for r in parts], ignore_index=True)
        pred = np.concatenate([np.asarray(r["predictions"][1], dtype=np.float64) for r in parts], axis=0)
        curves_parts = []
        for f in order:
            for r in parts:
                c = r["curves"]
                if f in r["families"] and len(c):
                    curves_parts.append(c[c["family"].astype(str) == f])
    sets = set_sizes(summary, metric=metric, epsilons=eps_grid, mode=epsilon_mode, scopes=grid_scopes)
    sets.insert(0, "dataset", dataset)
    scope_sets = rashomon_scopes(summary, metric=metric, epsilon=eps_grid[-1], mode=epsilon_mode, scopes=grid_scopes)
    path = mcr_path(members, scope_sets, epsilon_max=eps_grid[-1])
    detail = pd.DataFrame(columns=list(LINEAR_EXACT_COLUMNS))  # a header, no rows: still a table
    if LINEAR_EXACT in scopes and task == "regression" and not _fitted_exactly(X_test, dataset):
        lin_mcr, lin_path, detail = linear_exact_scope(
            X_train,
            y_train,
            X_test,
            y_test,
            epsilons=eps_grid,
            epsilon_mode=epsilon_mode,
            feature_names=feature_names,
            feature_groups=feature_groups,
            dataset=dataset or "",
        )
        mcr = pd.concat([mcr, lin_mcr], ignore_index=True)
        path = pd.concat([path, lin_path], ignore_index=True)
    scope = figure_scope if figure_scope in set(mcr["scope"]) - {LINEAR_EXACT} else mcr["scope"].iloc[0]
    envelope, curves = pd_envelope_table(
        groups,
        members,
        X_test,
        scope=scope,
        epsilon=epsilon,
        feature_names=feature_names,
        feature_groups=feature_groups,
        top_k=pd_top_k,
        estimator=estimators[0],
        resolution=pd_resolution,
        percentiles=(0.0, 1.0),
        curves=curves_parts,
        class_index=pd_class_index,
    )
    # the members' test predictions in the order of the member table (the same in one job and with
    # refit jobs), and the distinct functions / default-ε columns of sets, mcr and path (issue 35)
    index = members.drop_duplicates(["family", "config_id"])[["family", "config_id"]].astype(str)
    index = index.reset_index(drop=True)
    pos = {
        k: i for i, k in enumerate(pred_keys[["family", "config_id"]].astype(str).itertuples(index=False, name=None))
    }
    predictions = pred[[pos[k] for k in index.itertuples(index=False, name=None)]]
    index.insert(0, "member", np.arange(len(index)))
    counts = {"members": members, "keys": index, "predictions": predictions, "default_epsilon": epsilon}
    mcr = mcr[MCR_FIRST + [c for c in mcr.columns if c not in MCR_FIRST]]
    return {
        "sets": function_count_columns(sets, **counts),
        "members": members,
        "mcr": function_count_columns(mcr, **counts),
        "path": function_count_columns(path, **counts, path=True),
        "envelope": envelope,
        "curves": curves,
        "linear_exact": detail,
        "n_groups": n_groups,
        "predictions": predictions,
        "prediction_index": index,
    }
