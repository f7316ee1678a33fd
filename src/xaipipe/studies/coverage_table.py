"""The coverage table of the coverage audit: empirical coverage with its Monte-Carlo error.

:func:`coverage_table` turns the per-repetition table of :func:`xaipipe.studies.coverage.coverage_audit`
(:data:`REPETITION_COLUMNS`) into :data:`COVERAGE_COLUMNS`; the method is the module docstring of
:mod:`xaipipe.studies.coverage` ("Coverage and its Monte-Carlo error"). Split from that module
(issue 45), which re-exports every name here.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ..validation import check_confidence

__all__ = [
    "COVERAGE_COLUMNS",
    "DEFAULT_NOMINAL",
    "EFFECT_QUANTITIES",
    "LEARNER_QUANTITIES",
    "MCR_QUANTITIES",
    "REPETITION_COLUMNS",
    "coverage_table",
]

#: Nominal levels of the learner intervals in :func:`coverage_table`.
DEFAULT_NOMINAL = (0.5, 0.8, 0.9, 0.95, 0.99)

#: Columns of the per-repetition table (one row per repetition x interval).
REPETITION_COLUMNS = [
    "repetition",
    "n",
    "quantity",
    "family",
    "scope",
    "epsilon_mode",
    "epsilon",
    "feature",
    "active",
    "grid_value",
    "estimate",
    "se",
    "se_naive",
    "df",
    "ci_low",
    "ci_high",
    "population_low",
    "population_high",
    "n_members",
    "truth",
    "truth_learner",
    "truth_learner_se",
]

#: Columns of :func:`coverage_table`.
COVERAGE_COLUMNS = [
    "quantity",
    "interval",
    "target",
    "family",
    "scope",
    "epsilon_mode",
    "epsilon",
    "feature",
    "grid_value",
    "nominal",
    "coverage",
    "coverage_se",
    "n_intervals",
    "n_repetitions",
    "n",
    "mean_width",
    "mean_error",
]

#: Learner quantities of the audit: learner-PD / PFI, and learner-SHAP importance / ALE (issue 45;
#: their rows come last in both tables, after the MCR rows).
LEARNER_QUANTITIES = _LEARNER_QUANTITIES = ("learner_pd", "learner_mr_ratio", "learner_mr_difference")
EFFECT_QUANTITIES = ("learner_shap", "learner_ale")
#: MR quantity of the member tables -> the audit's MCR quantity.
MCR_QUANTITIES = _MCR_QUANTITIES = {"mr_ratio": "mcr_ratio", "mr_difference": "mcr_difference"}
#: Quantities that are curves (a row per grid point, and a reporting level per grid point).
_CURVES = ("learner_pd", "learner_ale")


def _aggregate(rep: np.ndarray, covered: np.ndarray, width: np.ndarray, error: np.ndarray) -> dict:
    """Coverage of a group of intervals: mean over repetitions of the per-repetition share, cluster SE."""
    _, inv = np.unique(rep, return_inverse=True)
    per_rep = np.bincount(inv, weights=covered.astype(float)) / np.bincount(inv)
    return {
        "coverage": float(per_rep.mean()),
        "coverage_se": float(per_rep.std(ddof=0) / np.sqrt(per_rep.size)),
        "n_intervals": int(rep.size),
        "n_repetitions": int(per_rep.size),
        "mean_width": float(np.mean(width)),
        "mean_error": float(np.mean(error)) if np.isfinite(error).all() else float("nan"),
    }


def _feature_groups(feats: np.ndarray, grid: np.ndarray, active: np.ndarray, per_grid_point: bool):
    """(feature label, grid value, mask) for each reporting level: grid point, feature, active/irrelevant, all."""
    if per_grid_point:
        for f in pd.unique(feats):
            for z in pd.unique(grid[feats == f]):
                yield f, float(z), (feats == f) & (grid == z)
    for f in pd.unique(feats):
        yield f, np.nan, feats == f
    if active.any() and (~active).any():
        yield "active", np.nan, active
        yield "irrelevant", np.nan, ~active
    yield "all", np.nan, np.ones(feats.size, dtype=bool)


def _part_levels(part: pd.DataFrame, curves: bool) -> list:
    """:func:`_feature_groups` of one group of repetition rows (its ``feature``, ``grid_value`` and
    ``active`` columns), as a list."""
    return list(
        _feature_groups(
            part["feature"].to_numpy(),
            part["grid_value"].to_numpy(dtype=float),
            part["active"].to_numpy(dtype=bool),
            curves,
        )
    )


def _learner_rows(reps: pd.DataFrame, quantities, levels) -> list[dict]:
    """Coverage rows of the learner intervals of ``quantities`` (``estimate ± t se``, both targets,
    both intervals, every level)."""
    from scipy import stats

    out = []
    learner = reps[reps["quantity"].isin(quantities)]
    for (quantity, family), part in learner.groupby(["quantity", "family"], sort=False):
        est = part["estimate"].to_numpy(dtype=float)
        df = part["df"].to_numpy(dtype=float)
        rep = part["repetition"].to_numpy()
        levels_of = _part_levels(part, quantity in _CURVES)
        for target, tcol in (("f_star", "truth"), ("learner", "truth_learner")):
            tv = part[tcol].to_numpy(dtype=float)
            if not np.isfinite(tv).all():
                continue
            for interval, scol in (("corrected", "se"), ("naive", "se_naive")):
                se = part[scol].to_numpy(dtype=float)
                for c in levels:
                    t = stats.t.ppf(0.5 + c / 2.0, df)
                    lo, hi = est - t * se, est + t * se
                    covered = (lo <= tv) & (tv <= hi)
                    for feature, z, mask in levels_of:
                        rec = {
                            "quantity": quantity,
                            "interval": interval,
                            "target": target,
                            "family": family,
                            "scope": "",
                            "epsilon_mode": "",
                            "epsilon": np.nan,
                            "feature": feature,
                            "grid_value": z,
                            "nominal": c,
                        }
                        rec.update(_aggregate(rep[mask], covered[mask], (hi - lo)[mask], (est - tv)[mask]))
                        out.append(rec)
    return out


def coverage_table(repetitions: pd.DataFrame, *, nominal: Sequence[float] = DEFAULT_NOMINAL) -> pd.DataFrame:
    """Empirical coverage with Monte-Carlo standard errors, from the per-repetition table.

    Parameters
    ----------
    repetitions : DataFrame
        :data:`REPETITION_COLUMNS` (the first output of
        :func:`~xaipipe.studies.coverage.coverage_audit`, or
        that table read back from CSV).
    nominal : sequence of float in (0, 1)
        Levels of the learner intervals (``estimate ± t_{(1+c)/2, df} se``).

    Returns
    -------
    DataFrame
        :data:`COVERAGE_COLUMNS`. Learner rows (learner-PD / PFI first; learner-SHAP
        importance and learner-ALE, :data:`EFFECT_QUANTITIES`, last, after the MCR rows): one per ``quantity`` x
        ``interval`` (``corrected``, ``naive``) x ``target`` (``f_star``,
        ``learner``) x ``family`` x ``nominal`` x reporting level; MCR rows: one
        per ``quantity`` x ``interval`` (``mcr``: the test-split interval;
        ``population_members``: the members' MR on the fresh sample) x ``scope``
        x ``epsilon`` x level, ``target`` ``f_star`` and ``nominal`` NaN (MCR is
        not a confidence interval and has no nominal level). Reporting levels
        (``feature``, ``grid_value``): each grid point (learner-PD and learner-ALE),
        each variable (``grid_value`` NaN: over its grid points), ``active`` /
        ``irrelevant`` (variables f* depends on / does not), ``all``.
        ``coverage`` = mean over repetitions of the share of the level's
        intervals that contain the target, ``coverage_se`` = sd over repetitions
        of that share / sqrt(R) (``ddof=0``; :math:`\\sqrt{c(1-c)/R}` for one
        interval per repetition), ``mean_width`` (target units), ``mean_error`` =
        mean of ``estimate - target`` (for MCR the reference model's MR minus the
        truth).

    Raises
    ------
    ValueError
        Missing columns or a nominal level outside (0, 1).
    """

    missing = [c for c in REPETITION_COLUMNS if c not in repetitions.columns]
    if missing:
        raise ValueError(f"repetitions lacks columns {missing}")
    levels = [check_confidence(c, "nominal") for c in nominal]
    reps = repetitions.copy()
    for col in ("family", "scope", "epsilon_mode"):
        reps[col] = reps[col].astype(object).where(reps[col].notna(), "").astype(str)
    out = _learner_rows(reps, _LEARNER_QUANTITIES, levels)
    mcr = reps[reps["quantity"].isin(_MCR_QUANTITIES.values())]
    for (quantity, scope, mode, eps), part in mcr.groupby(["quantity", "scope", "epsilon_mode", "epsilon"], sort=False):
        tv = part["truth"].to_numpy(dtype=float)
        est = part["estimate"].to_numpy(dtype=float)
        rep = part["repetition"].to_numpy()
        levels_of = _part_levels(part, False)
        for interval, (lcol, hcol) in (
            ("mcr", ("ci_low", "ci_high")),
            ("population_members", ("population_low", "population_high")),
        ):
            lo, hi = part[lcol].to_numpy(dtype=float), part[hcol].to_numpy(dtype=float)
            if not (np.isfinite(lo).all() and np.isfinite(hi).all()):
                continue
            covered = (lo <= tv) & (tv <= hi)
            for feature, z, mask in levels_of:
                rec = {
                    "quantity": quantity,
                    "interval": interval,
                    "target": "f_star",
                    "family": "",
                    "scope": scope,
                    "epsilon_mode": mode,
                    "epsilon": float(eps),
                    "feature": feature,
                    "grid_value": z,
                    "nominal": np.nan,
                }
                rec.update(_aggregate(rep[mask], covered[mask], (hi - lo)[mask], (est - tv)[mask]))
                out.append(rec)
    out += _learner_rows(reps, EFFECT_QUANTITIES, levels)  # learner-SHAP / ALE (issue 45): last
    table = pd.DataFrame(out)
    if table.empty:
        return pd.DataFrame(columns=COVERAGE_COLUMNS)
    ns = reps["n"].dropna().unique()
    table["n"] = int(ns[0]) if ns.size == 1 else np.nan
    return table[COVERAGE_COLUMNS]
