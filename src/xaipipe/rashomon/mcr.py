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

Where the pieces live
---------------------
* :mod:`xaipipe.rashomon.sets`: the sets, their scopes and the ε rule.
* :mod:`xaipipe.rashomon.refit` and :mod:`xaipipe.rashomon.members`: the member refits (once per
  prefix group: configurations that differ only in ``n_estimators`` come from one fit,
  :func:`xaipipe.models.grid.prefix_groups`), their MR with common random numbers, and the member
  table.
* This module: the MCR interval (:func:`mcr_interval`, the pipeline's one min/max, also used by
  the bootstrap), the MCR table over the ε grid (:func:`mcr_table`: the sets are nested, so the
  members' MR is reused and only the min/max are recomputed per ε) and the exact ε-path
  (:func:`mcr_path`).
* :mod:`xaipipe.rashomon.study`: the rule entries (:func:`~xaipipe.rashomon.study.mcr_study` for
  ``rashomon``, :func:`~xaipipe.rashomon.study.rashomon_refit` for ``rashomon_refit``).

References
----------
Fisher, A., Rudin, C. & Dominici, F. (2019). All models are wrong, but many are
useful. JMLR 20(177), 1-81. Semenova, L., Rudin, C. & Parr, R. (2022). On the
existence of simpler machine learning models. FAccT '22 (Rashomon ratio).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .sets import CROSS_FAMILY, QUANTITIES, check_epsilons, configuration_key, hyperparameter_setting_key

__all__ = ["MCR_FIRST", "mcr_interval", "mcr_path", "mcr_table"]

#: Leading columns of ``mcr.csv``.
MCR_FIRST = ["dataset", "scope", "epsilon", "feature", "mcr_minus", "mcr_plus", "mr_reference", "n_members"]


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
