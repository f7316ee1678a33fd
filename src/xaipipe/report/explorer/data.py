"""The explorer's data: one dataset's Rashomon results as the compact tables the page embeds, and
the Python side of every number the page computes (members at an ε, MCR, coverage rates).

Every quantity the page recomputes in the browser is defined here once, from the same stored
columns, so that a test can compare the page with Python:

* membership at ε (:func:`members_at`): ``gap_<scope kind> <= ε`` on ``members.csv``'s ``gap_family``
  / ``gap_cross_family`` columns, the rule of :func:`xaipipe.rashomon.sets.rashomon_set` (the gap
  is ``(ê(f) − ê(f_ref)) / SE(f_ref)`` under ``epsilon_mode: se``); at a grid ε it gives exactly the
  members counted in ``sets.csv``;
* MCR at ε (:func:`mcr_at`): min / max of MR over those members
  (:func:`xaipipe.rashomon.mcr.mcr_interval`, Fisher, Rudin & Dominici 2019 §4), beside the
  scope's reference model's MR;
* the coverage rate of the reference's PD / ALE (:func:`coverage_rates`, after Cavus, van Rijn &
  Biecek 2025): the share of grid points where the reference model's curve lies inside
  ``[min, max]`` of the *other* members' curves (with the reference in the band the rate would be
  1 by construction).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ...rashomon.mcr import mcr_interval
from ...rashomon.sets import CROSS_FAMILY

__all__ = [
    "DatasetView",
    "compact_csv",
    "coverage_rates",
    "dataset_view",
    "function_ids",
    "mcr_at",
    "members_at",
    "packed_effects",
    "packed_predictions",
    "scope_gap",
]

#: Significant digits of the embedded MR, losses, predictions and curves (float32 carries ~7).
DIGITS = 6


@dataclass
class DatasetView:
    """One dataset's tables for the page (every frame is embedded as CSV).

    Attributes
    ----------
    dataset, task : str
    epsilon : float
        The configured ε (``rashomon.epsilon``): the slider's start.
    epsilon_max : float
        The largest ε of the grid: the slider's end (larger sets were not refitted).
    scopes : list of str
        The grid-based scopes with members (family names, then ``cross_family``).
    scope : str
        The scope shown first (``rashomon.figure_scope`` when it exists).
    members : DataFrame
        One row per member (``member``: its row in ``member_predictions.npy``): ``family``,
        ``config_id``, ``cv_loss``, ``test_loss`` (``e_orig``, the MR loss on the test split),
        ``gap_family``, ``gap_cross_family``, ``is_reference_family``, ``is_reference_cross_family``,
        ``function`` (members with bitwise-equal test predictions share it), ``jitter``.
    reliance : DataFrame
        ``member``, ``feature``, ``estimator``, ``mr_ratio``, ``mr_difference``.
    predictions : DataFrame
        ``member``, ``row`` (test-row position), ``prediction``.
    rows : DataFrame
        One row per test row: ``row``, ``prepared_row`` (its row in ``prepared.csv``), ``y``,
        ``ref_<scope>`` (the scope's reference prediction) and, for a regression dataset whose
        Rashomon prediction intervals were computed, ``pi_lower_<scope>`` / ``pi_upper_<scope>``
        (the scope's split-conformal interval at the configured ε,
        :func:`xaipipe.rashomon.prediction_intervals.prediction_interval_tables`).
    values : DataFrame
        ``row``, ``feature``, ``value`` (the test rows' features as prepared; NaN: missing).
    effects : DataFrame
        ``member``, ``kind`` (``pd`` / ``ale``), ``feature``, ``grid_index``, ``x``, ``level``, ``value``.
    effects_scope : str
        The scope whose members have curves (``member_effects.csv``).
    epsilon_mode : {"se", "relative", "absolute"}
        The unit of ε and of the gaps (``rashomon.epsilon_mode``).
    notes : list of str
        What the page says instead of drawing an empty view.
    """

    dataset: str
    task: str
    epsilon: float
    epsilon_max: float
    scopes: list
    scope: str
    members: pd.DataFrame
    reliance: pd.DataFrame
    predictions: pd.DataFrame
    rows: pd.DataFrame
    values: pd.DataFrame
    effects: pd.DataFrame
    effects_scope: str
    notes: list = field(default_factory=list)
    epsilon_mode: str = "se"

    @property
    def features(self) -> list[str]:
        """The variables of MR (one-hot groups as one), in table order."""
        return list(pd.unique(self.reliance["feature"].astype(str)))

    @property
    def estimators(self) -> list[str]:
        return list(pd.unique(self.reliance["estimator"].astype(str)))


def scope_gap(members: pd.DataFrame, scope: str) -> np.ndarray:
    """Each member's gap in ``scope`` (NaN: not a candidate of that scope).

    ``gap_cross_family`` for :data:`~xaipipe.rashomon.sets.CROSS_FAMILY`; ``gap_family`` for the
    members of family ``scope``, NaN for the others.
    """
    if scope == CROSS_FAMILY:
        return members["gap_cross_family"].to_numpy(dtype=float)
    own = members["family"].astype(str).to_numpy() == scope
    return np.where(own, members["gap_family"].to_numpy(dtype=float), np.nan)


def members_at(members: pd.DataFrame, scope: str, epsilon: float) -> pd.DataFrame:
    """The members of ``R(ε)`` of ``scope``: ``gap <= ε`` (:func:`xaipipe.rashomon.sets.rashomon_set`).

    Parameters
    ----------
    members : DataFrame
        One row per member with ``family``, ``gap_family``, ``gap_cross_family``
        (:attr:`DatasetView.members`, or ``members.csv`` without duplicates).
    scope : str
        A family name or ``"cross_family"``.
    epsilon : float
        In the units of ``epsilon_mode`` (SE of the reference's CV loss by default); at most the
        largest ε of the grid (larger sets were not refitted).

    Returns
    -------
    DataFrame
        The rows of ``members`` in the set, in table order.
    """
    gap = scope_gap(members, scope)
    with np.errstate(invalid="ignore"):
        return members[np.nan_to_num(gap, nan=np.inf) <= float(epsilon)]


def mcr_at(
    view: DatasetView, scope: str, epsilon: float, *, estimator: str, quantity: str = "mr_ratio", members=None
) -> pd.DataFrame:
    """MCR⁻ / MCR⁺ of every variable over ``R(ε)`` of ``scope`` (or over a subset ``members``).

    Parameters
    ----------
    view : DatasetView
    scope, epsilon
        As :func:`members_at`.
    estimator : str
        MR estimator (``permutation``, ``e_divide``, ...).
    quantity : {"mr_ratio", "mr_difference"}
    members : sequence of int, optional
        Restrict the set to these ``member`` ids (a brushed group).

    Returns
    -------
    DataFrame
        One row per variable: ``feature``, ``mcr_minus``, ``mcr_plus``, ``mr_reference`` (the scope's
        reference model's MR), ``n_members``, ``n_undefined``.
    """
    chosen = members_at(view.members, scope, epsilon)["member"]
    if members is not None:
        chosen = chosen[chosen.isin(list(members))]
    ref = _reference_member(view.members, scope)
    rel = view.reliance[view.reliance["estimator"] == estimator]
    out = []
    for feature, part in rel.groupby("feature", sort=False):
        sel = part[part["member"].isin(chosen)]
        v = sel[quantity].to_numpy(dtype=float)
        lo, hi, n_undefined = mcr_interval(v) if len(v) else (-1, -1, 0)
        r = part.loc[part["member"] == ref, quantity]
        out.append(
            {
                "feature": feature,
                "mcr_minus": v[lo] if lo >= 0 else np.nan,
                "mcr_plus": v[hi] if hi >= 0 else np.nan,
                "mr_reference": float(r.iloc[0]) if len(r) else np.nan,
                "n_members": len(v),
                "n_undefined": n_undefined,
            }
        )
    return pd.DataFrame(out)


def _reference_member(members: pd.DataFrame, scope: str) -> int:
    if scope == CROSS_FAMILY:
        hit = members[members["is_reference_cross_family"].astype(bool)]
    else:
        hit = members[members["is_reference_family"].astype(bool) & (members["family"].astype(str) == scope)]
    if hit.empty:
        raise ValueError(f"scope {scope!r} has no reference member")
    return int(hit["member"].iloc[0])


def function_ids(predictions: np.ndarray) -> np.ndarray:
    """One id per member, shared by members whose test predictions are bitwise equal (the
    distinct functions of :func:`xaipipe.rashomon.multiplicity.n_distinct_functions`), numbered in
    order of first appearance."""
    P = np.ascontiguousarray(predictions)
    seen: dict[bytes, int] = {}
    return np.array([seen.setdefault(row.tobytes(), len(seen)) for row in P], dtype=int)


def coverage_rates(view: DatasetView, scope: str, epsilon: float, *, members=None) -> pd.DataFrame:
    """Coverage rate of the reference model's PD and ALE by the band of the other members.

    After Cavus, van Rijn & Biecek (2025, "Beyond the single-best model: Rashomon partial
    dependence profile"): the share of grid points where the reference's curve lies inside the
    band. The band here is the pointwise ``[min, max]`` over the members of ``R(ε)`` of ``scope``
    that have curves, the reference left out (with it the rate is 1 by construction).

    Parameters
    ----------
    view : DatasetView
    scope, epsilon
        As :func:`members_at`.
    members : sequence of int, optional
        Restrict the band to these ``member`` ids (a brushed group).

    Returns
    -------
    DataFrame
        One row per ``kind`` (``pd``, ``ale``) × variable: ``kind``, ``feature``, ``n_members``
        (members of the set with curves), ``n_band`` (of them, other than the reference),
        ``n_grid``, ``n_covered``, ``coverage_rate`` (NaN when the band is empty or the reference
        has no curve).
    """
    chosen = set(members_at(view.members, scope, epsilon)["member"])
    if members is not None:
        chosen &= set(members)
    ref = _reference_member(view.members, scope)
    eff = view.effects
    out = []
    for (kind, feature), part in eff.groupby(["kind", "feature"], sort=False):
        in_set = part[part["member"].isin(chosen)]
        band = in_set[in_set["member"] != ref]
        ref_curve = part[part["member"] == ref].set_index("grid_index")["value"]
        n_grid = int(part["grid_index"].nunique())
        if band.empty or ref_curve.empty:
            covered, rate = 0, np.nan
        else:
            lo = band.groupby("grid_index")["value"].min()
            hi = band.groupby("grid_index")["value"].max()
            r = ref_curve.reindex(lo.index)
            covered = int(((r >= lo) & (r <= hi)).sum())
            rate = covered / n_grid
        out.append(
            {
                "kind": kind,
                "feature": feature,
                "n_members": int(in_set["member"].nunique()),
                "n_band": int(band["member"].nunique()),
                "n_grid": n_grid,
                "n_covered": covered,
                "coverage_rate": rate,
            }
        )
    return pd.DataFrame(out)


def dataset_view(
    dataset: str,
    *,
    members: pd.DataFrame,
    predictions: np.ndarray,
    prediction_index: pd.DataFrame,
    effects: pd.DataFrame,
    data,
    epsilon: float,
    epsilon_max: float,
    scope: str,
    intervals: pd.DataFrame | None = None,
) -> DatasetView:
    """The page's tables of one dataset from its Rashomon results.

    Parameters
    ----------
    dataset : str
    members : DataFrame
        ``rashomon/<d>/members.csv``.
    predictions : ndarray of shape (m, n_test)
        ``member_predictions.npy`` (rows in the order of ``prediction_index``).
    prediction_index : DataFrame
        ``member_predictions_index.csv`` (``member``, ``family``, ``config_id``).
    effects : DataFrame
        ``member_effects.csv`` (:func:`xaipipe.rashomon.effects.member_effects`).
    data : PreparedData
        The split (test rows' features and target).
    epsilon, epsilon_max : float
        The configured ε and the largest ε of the grid.
    scope : str
        The scope shown first (``rashomon.figure_scope``; the first scope when it has no set).
    intervals : DataFrame, optional
        ``prediction_interval_rows.csv`` (``scope``, ``epsilon``, ``row``, ``lower``, ``upper``):
        the Rashomon prediction interval of every test row (``row``: its ``prepared.csv`` row) per
        scope at the configured ε; the rows view draws it behind the members' range.

    Returns
    -------
    DatasetView

    Raises
    ------
    ValueError
        A member of ``members.csv`` without predictions, or predictions of the wrong shape.
    """
    key = ["family", "config_id"]
    index = prediction_index.astype({"family": str, "config_id": str})
    P = np.asarray(predictions, dtype=np.float64)
    if P.shape != (len(index), len(data.y_test)):
        raise ValueError(
            f"dataset {dataset!r}: member_predictions.npy has shape {P.shape}, expected "
            f"({len(index)}, {len(data.y_test)}) from member_predictions_index.csv and the test split"
        )
    first = members.astype({"family": str, "config_id": str}).drop_duplicates(key)
    base = index.merge(first, on=key, how="left", validate="one_to_one")
    if base["cv_loss"].isna().any():
        lost = base.loc[base["cv_loss"].isna(), key].iloc[0].tolist()
        raise ValueError(f"dataset {dataset!r}: member {lost} of member_predictions_index.csv is not in members.csv")
    # the member's loss on the whole test split (e_switch may run on a subsample of the rows)
    full = members[members["estimator"].astype(str) != "e_switch"]
    test_loss = (full if len(full) else members).astype({"family": str, "config_id": str})
    test_loss = test_loss.groupby(key, sort=False)["e_orig"].first()
    m = pd.DataFrame(
        {
            "member": base["member"].astype(int),
            "family": base["family"],
            "config_id": base["config_id"],
            "cv_loss": base["cv_loss"].astype(float),
            "test_loss": test_loss.reindex(pd.MultiIndex.from_frame(base[key])).to_numpy(dtype=float),
            "gap_family": base["gap_family"].astype(float),
            "gap_cross_family": base["gap_cross_family"].astype(float),
            "is_reference_family": base["is_reference_family"].astype(bool),
            "is_reference_cross_family": base["is_reference_cross_family"].astype(bool),
            "function": function_ids(P),
            # a fixed horizontal offset in the family strip (no random numbers in the page)
            "jitter": (np.arange(len(base)) * 0.618034) % 1.0 - 0.5,
        }
    )
    scopes = sorted(f for f in m["family"].unique() if m.loc[m["family"] == f, "gap_family"].notna().any())
    if m["gap_cross_family"].notna().any() and (len(scopes) > 1 or not scopes):
        scopes.append(CROSS_FAMILY)
    scope = scope if scope in scopes else scopes[-1]
    mid = dict(zip(zip(base["family"], base["config_id"]), base["member"].astype(int)))
    rel = members.astype({"family": str, "config_id": str})
    reliance = pd.DataFrame(
        {
            "member": [mid[k] for k in zip(rel["family"], rel["config_id"])],
            "feature": rel["feature"].astype(str),
            "estimator": rel["estimator"].astype(str),
            "mr_ratio": rel["mr_ratio"].astype(float),
            "mr_difference": rel["mr_difference"].astype(float),
        }
    )
    n_test = P.shape[1]
    preds = pd.DataFrame(
        {
            "member": np.repeat(m["member"].to_numpy(), n_test),
            "row": np.tile(np.arange(n_test), len(m)),
            "prediction": P.ravel(),
        }
    )
    rows = pd.DataFrame(
        {"row": np.arange(n_test), "prepared_row": np.asarray(data.test_rows, dtype=int), "y": data.y_test}
    )
    for s in scopes:
        rows[f"ref_{s}"] = P[_reference_member(m, s)]
    if intervals is not None and len(intervals):
        at = intervals[np.isclose(intervals["epsilon"].to_numpy(dtype=float), float(epsilon))]
        for s in scopes:
            part = at[at["scope"].astype(str) == s].set_index("row")
            if len(part):
                # an unbounded interval (a calibration half too small for the level) is not drawn
                for side, col in (("lower", f"pi_lower_{s}"), ("upper", f"pi_upper_{s}")):
                    values = part[side].reindex(rows["prepared_row"]).to_numpy(dtype=float)
                    rows[col] = np.where(np.isfinite(values), values, np.nan)
    X = np.asarray(data.X_test_raw, dtype=float)
    values = pd.DataFrame(
        {
            "row": np.repeat(np.arange(n_test), X.shape[1]),
            "feature": np.tile(list(data.features), n_test),
            "value": X.ravel(),
        }
    )
    eff = effects.astype({"family": str, "config_id": str})
    effects_scope = str(eff["scope"].iloc[0]) if len(eff) else scope
    eff_view = pd.DataFrame(
        {
            "member": [mid.get(k, -1) for k in zip(eff["family"], eff["config_id"])],
            "kind": eff["kind"].astype(str),
            "feature": eff["feature"].astype(str),
            "grid_index": eff["grid_index"].astype(int),
            "x": eff["x"].astype(float),
            "level": eff["level"].fillna("").astype(str),
            "value": eff["value"].astype(float),
        }
    )
    view = DatasetView(
        dataset=dataset,
        task=data.task,
        epsilon=float(epsilon),
        epsilon_max=float(epsilon_max),
        scopes=scopes,
        scope=scope,
        members=m,
        reliance=reliance,
        predictions=preds,
        rows=rows,
        values=values,
        effects=eff_view[eff_view["member"] >= 0].reset_index(drop=True),
        effects_scope=effects_scope,
        epsilon_mode=str(members["epsilon_mode"].iloc[0]) if "epsilon_mode" in members else "se",
    )
    view.notes = _notes(view)
    return view


def _notes(view: DatasetView) -> list[str]:
    """What the page says instead of drawing empty views (a set of one member at the configured ε)."""
    notes = []
    n = len(members_at(view.members, view.scope, view.epsilon))
    if n == 1:
        n_max = len(members_at(view.members, view.scope, view.epsilon_max))
        more = (
            f"Move ε up: at ε = {view.epsilon_max:g} it has {n_max} members."
            if n_max > 1
            else f"So does it at the largest ε of the grid ({view.epsilon_max:g}): pick a family scope to see more models."
        )
        notes.append(
            f"At the configured ε = {view.epsilon:g} the Rashomon set of {view.scope} has one member (its "
            f"reference model): MCR⁻ = MCR⁺ = its MR, no PD / ALE band, no viable prediction range. {more}"
        )
    if view.effects.empty:
        notes.append("No member has PD / ALE curves (member_effects.csv is empty): the effects view is left out.")
    return notes


def compact_csv(frame: pd.DataFrame, exact: tuple[str, ...] = ()) -> str:
    """``frame`` as CSV text with floats rounded to :data:`DIGITS` significant digits (the columns in
    ``exact`` keep 17, e.g. the gaps that decide membership), booleans as 1 / 0, NaN as empty."""
    out = frame.copy()
    for c in out.columns:
        if out[c].dtype == bool:
            out[c] = out[c].astype(int)
        elif c in exact and pd.api.types.is_float_dtype(out[c]):
            out[c] = [repr(float(v)) if np.isfinite(v) else "" for v in out[c]]
    return out.to_csv(index=False, float_format=f"%.{DIGITS}g", lineterminator="\n")


def packed_predictions(predictions: pd.DataFrame) -> str:
    """The members' predictions as CSV lines ``member,values`` with ``values`` the member's test
    predictions in row order at :data:`DIGITS` significant digits, space-separated (the page splits
    and flattens them back into one tuple per member and row).

    Raises
    ------
    ValueError
        A member without a prediction for every row ``0 .. n-1``.
    """
    lines = ["member,values"]
    for member, part in predictions.groupby("member", sort=False):
        rows = part["row"].to_numpy()
        if not np.array_equal(rows, np.arange(len(rows))):
            raise ValueError(f"member {member}: predictions not given for rows 0..n-1 in order")
        lines.append(f"{int(member)}," + " ".join(f"{v:.{DIGITS}g}" for v in part["prediction"].to_numpy(dtype=float)))
    return "\n".join(lines) + "\n"


def packed_effects(effects: pd.DataFrame) -> tuple[str, str]:
    """The members' PD / ALE curves as CSV lines ``member,kind,feature,values`` (``values``: the curve
    at :data:`DIGITS` significant digits in grid order, space-separated) and the grids once
    (``key,x,level`` with ``key = kind|feature|grid_index``).

    Raises
    ------
    ValueError
        A curve whose grid indices are not ``0 .. K-1`` in order.
    """
    lines = ["member,kind,feature,values"]
    for (member, kind, feature), part in effects.groupby(["member", "kind", "feature"], sort=False):
        idx = part["grid_index"].to_numpy()
        if not np.array_equal(idx, np.arange(len(idx))):
            raise ValueError(f"member {member}, {kind} of {feature!r}: grid indices not 0..K-1 in order")
        values = " ".join(f"{v:.{DIGITS}g}" for v in part["value"].to_numpy(dtype=float))
        lines.append(f"{int(member)},{kind},{_csv_field(feature)},{values}")
    grid = effects.drop_duplicates(["kind", "feature", "grid_index"])
    keys = grid["kind"] + "|" + grid["feature"] + "|" + grid["grid_index"].astype(str)
    grid_csv = pd.DataFrame({"key": keys, "x": grid["x"], "level": grid["level"]}).to_csv(
        index=False, float_format=f"%.{DIGITS}g", lineterminator="\n"
    )
    return "\n".join(lines) + "\n", grid_csv


def _csv_field(text: str) -> str:
    """``text`` as one CSV field (quoted when it holds a comma, a quote or a line break)."""
    return '"' + text.replace('"', '""') + '"' if any(c in text for c in ',"\n') else text
