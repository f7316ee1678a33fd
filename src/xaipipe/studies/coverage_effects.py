"""Coverage audit of the learner-SHAP importance and learner-ALE intervals (issue 45, item 1).

Part of :func:`xaipipe.studies.coverage.coverage_audit` (its module docstring gives the design):
in every repetition the learner's refits (:func:`xaipipe.explain.learner.learner_pd_pfi` with
``effects``, :mod:`xaipipe.explain.learner`) also give the learner-SHAP importance of
every variable and the learner-ALE of the learner-PD's variables, on the bin edges ``ale_grid``
(config ``coverage.learner.ale_grid``, input units, shared by every repetition: one estimand per
grid point). Their rows (quantities ``learner_shap``, ``learner_ale``) come after every other row
of both tables, so the rows of before are unchanged.

Targets
-------
* ``learner`` (the intervals' estimand): the expectation over training sets of :math:`n_1` rows
  of the learner's SHAP importance :math:`E_X|\\phi_j(\\hat f_D, X)|` and ALE at each edge, each
  on fresh rows from the DGP. Estimated, as for learner-PD / PFI, from the same ``truth_fits``
  fresh fits of :math:`n_1` rows, each evaluated on its own fresh sample of ``truth_eval_rows``
  rows (the family's SHAP algorithm on all of them; the ALE with the same edges and centring), with
  the Monte-Carlo SE over fits (``truth_learner_se``).
* ``f_star``: the ALE of the regression function in closed form. The DGPs have independent
  uniform inputs, so the local effect of bin :math:`(z_{k-1}, z_k]` is
  :math:`\\mathrm{PD}_j(z_k) - \\mathrm{PD}_j(z_{k-1})` exactly (the other inputs do not depend on
  :math:`x_j`), the uncentred ALE is :math:`\\mathrm{PD}_j(z_k) - \\mathrm{PD}_j(z_0)`
  (:func:`xaipipe.studies.simulation.partial_dependence_truth`) and the centring weights are the
  bins' probabilities under :math:`U(\\text{low}, \\text{high})`. No ``f_star`` target for the
  SHAP importance: its value for :math:`f^*` depends on the game (the learner's path-dependent
  TreeSHAP has no :math:`f^*` analogue), so those rows have ``truth`` NaN and only the learner target.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..config.studies import COVERAGE_LEARNER_CONFIG
from ..explain.learner import RefitEffects
from ..explain.pdp import accumulated_local_effects
from .simulation import partial_dependence_truth

__all__ = [
    "EffectTruthSpec",
    "ale_f_star",
    "effect_spec",
    "effect_truth",
    "learner_effect_rows",
    "truth_row",
    "truth_rows",
]

#: The audit's options of the learner effects (merged into its ``learner_config`` defaults).
DEFAULT_EFFECT_CONFIG: dict[str, Any] = {
    key: COVERAGE_LEARNER_CONFIG[key] for key in ("effects", "ale_grid", "shap_max_rows")
}


@dataclass(frozen=True)
class EffectTruthSpec:
    """What one truth fit computes besides PD / MR: SHAP importance of every input (``shap``), the
    ALE of the inputs ``ale_idx`` on ``edges`` (centring ``centering``)."""

    shap: bool
    ale_idx: tuple[int, ...]
    edges: tuple[float, ...]
    centering: str = "ale_plot"


def effect_spec(lc: Mapping[str, Any], names: Sequence[str]):
    """``(RefitEffects or None, EffectTruthSpec or None)`` of the audit's learner options ``lc``:
    learner-SHAP of every input, learner-ALE of ``pd_features`` on the edges ``ale_grid``.

    Raises
    ------
    ValueError
        ``effects`` other than ``shap`` / ``ale``; ``ale_grid`` not strictly increasing.
    """

    effects = list(lc["effects"] or [])
    bad = [e for e in effects if e not in ("shap", "ale")]
    if bad:
        raise ValueError(f"learner_config effects {bad}: choose from ['shap', 'ale']")
    if not effects:
        return None, None
    edges = tuple(float(z) for z in lc["ale_grid"])
    if len(edges) < 2 or np.any(np.diff(edges) <= 0):
        raise ValueError(f"learner_config ale_grid must be strictly increasing with 2+ values, got {list(edges)}")
    ale = "ale" in effects and bool(lc["pd_features"])
    refit = RefitEffects(
        shap="shap" in effects,
        ale=ale,
        shap_max_rows=lc["shap_max_rows"],
        ale_features=tuple(lc["pd_features"]) if ale else (),
        ale_edges={f: list(edges) for f in lc["pd_features"]} if ale else None,
    )
    idx = tuple(list(names).index(f) for f in lc["pd_features"]) if ale else ()
    return refit, EffectTruthSpec(shap="shap" in effects, ale_idx=idx, edges=edges)


def effect_truth(model, X: np.ndarray, X_train: np.ndarray, spec: EffectTruthSpec | None):
    """One fitted model's SHAP importance of every column (shape ``(p,)``) and ALE at the edges of
    each ``spec.ale_idx`` input (shape ``(len(ale_idx) * len(edges),)``) on the rows ``X``
    (``X_train``: the background of a non-tree explainer, as in the refits); empty arrays for what
    ``spec`` leaves out."""
    if spec is None:
        return np.empty(0), np.empty(0)
    shap = np.empty(0)
    if spec.shap:
        from ..explain.shapley import shap_values

        shap = np.abs(shap_values(model, X, X_background=X_train, random_state=0).values).mean(axis=0)
    ale = []
    if spec.ale_idx:
        for j in spec.ale_idx:
            ale.append(
                accumulated_local_effects(model, X, j, edges=np.asarray(spec.edges), centering=spec.centering).ale
            )
    return shap, (np.concatenate(ale) if ale else np.empty(0))


def truth_rows(family: str, effects: Sequence[tuple[np.ndarray, np.ndarray]], names, lc, spec) -> list[dict]:
    """The learner target of ``learner_shap`` / ``learner_ale``: mean and Monte-Carlo SE over the
    truth fits (one ``effect_truth`` pair per fit), in the rows of the learner truth table."""
    if spec is None:
        return []
    rows = []

    def add(quantity, feature, grid_value, values):
        rows.append(truth_row(family, quantity, feature, grid_value, values))

    if spec.shap:
        shap = np.array([e[0] for e in effects])
        for j, name in enumerate(names):
            add("learner_shap", name, np.nan, shap[:, j])
    if spec.ale_idx:
        ale = np.array([e[1] for e in effects])
        k = 0
        for j in spec.ale_idx:
            for z in spec.edges:
                add("learner_ale", names[j], z, ale[:, k])
                k += 1
    return rows


def truth_row(family: str, quantity: str, feature: str, grid_value: float, values) -> dict:
    """A row of the learner truth: the mean over the truth fits and its Monte-Carlo SE (sd / sqrt(fits))."""
    v = np.asarray(values, dtype=float)
    return {
        "family": family,
        "quantity": quantity,
        "feature": feature,
        "grid_value": grid_value,
        "truth_learner": float(v.mean()),
        "truth_learner_se": float(v.std(ddof=1) / np.sqrt(v.size)),
    }


def learner_effect_rows(r: int, family: str, res) -> list[dict]:
    """A repetition's ``learner_shap`` / ``learner_ale`` rows (:data:`REPETITION_COLUMNS` subset)
    from :func:`~xaipipe.explain.learner.learner_pd_pfi`'s result with effects."""
    rows = []
    for quantity, table, grid in (("learner_shap", res.shap, False), ("learner_ale", res.ale, True)):
        for rec in table.itertuples(index=False):
            rows.append(
                {
                    "repetition": r,
                    "quantity": quantity,
                    "family": family,
                    "feature": rec.feature,
                    "grid_value": float(rec.grid_value) if grid else np.nan,
                    "estimate": rec.mean,
                    "se": rec.se,
                    "se_naive": rec.se_naive,
                    "df": int(rec.n_refits) - 1,
                }
            )
    return rows


def ale_f_star(model, features: Sequence[str], edges: Sequence[float], *, p: int, centering: str = "ale_plot"):
    """The ALE of the DGP's :math:`f^*` at ``edges`` (module docstring), per feature.

    Returns
    -------
    dict (feature, edge) -> float

    Raises
    ------
    ValueError
        Edges that do not cover the inputs' support; a DGP without closed-form PD.
    """

    z = np.asarray(edges, dtype=float)
    if z[0] > model.low or z[-1] < model.high:
        raise ValueError(f"ale_grid must cover the inputs' support [{model.low}, {model.high}], got {list(z)}")
    lo, hi = np.maximum(z[:-1], model.low), np.minimum(z[1:], model.high)
    prob = np.clip(hi - lo, 0.0, None) / (model.high - model.low)  # P(X_j in bin k)
    truth = partial_dependence_truth(model, list(features), list(z), p=p, method="closed_form")
    out = {}
    for f in features:
        pd_f = truth[truth["feature"] == f].sort_values("grid_value")["pd"].to_numpy(dtype=float)
        g = pd_f - pd_f[0]
        c = float((prob * g[1:]).sum()) if centering == "paper" else float((prob * (g[:-1] + g[1:]) / 2).sum())
        out.update({(f, float(zk)): float(gk - c) for zk, gk in zip(z, g)})
    return out


def attach_f_star(reps: pd.DataFrame, truth: np.ndarray, model, lc, p: int) -> np.ndarray:
    """``truth`` with the ``f_star`` ALE filled in for the ``learner_ale`` rows of ``reps``."""
    sel = (reps["quantity"] == "learner_ale").to_numpy()
    if not sel.any():
        return truth
    lookup = ale_f_star(model, list(lc["pd_features"]), lc["ale_grid"], p=p)
    keys = reps.loc[sel, ["feature", "grid_value"]].itertuples(index=False)
    truth[sel] = [lookup[(f, float(z))] for f, z in keys]
    return truth
