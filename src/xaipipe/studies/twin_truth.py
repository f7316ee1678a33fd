"""The twin audit's design and truths: the ``twin`` rule (:func:`prepare_twin`: the twin and what its
audit runs) and the ``twin_truth`` rule (:func:`f_star_truth`, the planted truths; :func:`learner_truth`,
the learner intervals' own estimand), issue 51. The method: :mod:`xaipipe.studies.twin` and
:mod:`xaipipe.studies.twin_audit`; docs/coverage.md.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..data.prepare import importance_groups
from ..explain.learner import estimator_factory
from ..explain.pdp import accumulated_local_effects, feature_grid
from ..explain.reliance import top_features
from ..explain.shapley import shap_values
from ..losses import resolve_loss
from ..models.boosting import fit_estimator
from ..models.families import get_family
from .twin import (
    LINEAR,
    LinearTwin,
    Twin,
    build_twin,
    dgp_twin,
    linear_twin,
    twin_ale_truth,
    twin_mr_truth,
    twin_pd_truth,
    twin_shap_truth,
)

_log = logging.getLogger(__name__)

__all__ = [
    "TwinBundle",
    "TwinDesign",
    "TwinTruths",
    "f_star_truth",
    "learner_truth",
    "prepare_twin",
    "reference_family",
    "twin_truths",
]


@dataclass(frozen=True)
class TwinDesign:
    """What one twin's audit runs, resolved from :class:`xaipipe.config.TwinSettings` and the study's
    chosen configurations by the ``twin`` rule (``design.json``).

    Attributes
    ----------
    n, test_size, cv_folds : int, float, int
        Rows of a replicate (the table's), the split.
    n_repetitions, seed : int
    learners : mapping family -> params
        The learner families at their chosen configurations (``n_estimators`` capped at
        ``twins.max_estimators``).
    model : (family, params)
        The explained model of the ``mr`` and ``test_loss`` kinds: :math:`f^*`'s family at its
        configuration (capped likewise).
    learner : mapping
        ``n_refits``, ``fraction``, ``pfi_estimator``, ``n_repeats`` (as ``explain.learner``),
        ``grids`` (feature -> PD grid, population units), ``ale_edges`` (feature -> bin edges),
        ``effects``, ``shap_max_rows``, ``truth_fits``, ``truth_eval_rows``, ``pd_class_index``.
    reliance : mapping
        ``estimators``, ``losses``, ``n_repeats``, ``e_switch_max_rows`` (as ``explain.reliance``).
    comparison : mapping
        ``n_bootstrap``, ``confidence`` (as ``comparison``).
    mcr : mapping or None
        ``families`` (family -> grid), ``metric``, ``epsilon_mode``, ``epsilons``, ``scopes``,
        ``estimator``, ``n_repeats``, ``population_rows``; None: no ``mcr`` kind.
    sanity : bool
        The ``ols`` / ``logit`` kind.
    options : mapping
        ``estimator_options``.
    truth : mapping
        ``max_pairs`` (MR truth), ``shap_max_rows`` (SHAP truth).
    nominal : tuple of float
        Levels of the coverage table (``twins.nominal``).
    glassbox : mapping family -> params
        The ``ebm`` kind: families with additive terms of their own (the registry's
        ``Family.terms``: EBM) at their chosen configurations, on a regression twin; their bagged
        error bars on the PD grids are audited (:func:`xaipipe.explain.glassbox.ebm_pd_band`).
    """

    n: int
    test_size: float
    cv_folds: int
    n_repetitions: int
    seed: int
    learners: Mapping[str, Any]
    model: tuple
    learner: Mapping[str, Any]
    reliance: Mapping[str, Any]
    comparison: Mapping[str, Any]
    mcr: Mapping[str, Any] | None
    sanity: bool
    options: Mapping[str, Any] = field(default_factory=dict)
    truth: Mapping[str, Any] = field(default_factory=dict)
    nominal: tuple = (0.5, 0.8, 0.9, 0.95, 0.99)
    glassbox: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict:
        """A JSON-able dict (``design.json``; :meth:`from_dict` reads it back)."""
        out = {k: getattr(self, k) for k in self.__dataclass_fields__}
        out["model"] = list(self.model)
        return out

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> TwinDesign:
        """The design back from :meth:`to_dict`."""
        return cls(**{**d, "model": tuple(d["model"]), "nominal": tuple(d.get("nominal", cls.nominal))})

    def options_of(self, family: str) -> dict:
        return dict((self.options or {}).get(family) or {})


def _seeds(design: TwinDesign) -> tuple[np.random.SeedSequence, np.random.SeedSequence]:
    """(learner-truth root, replicate root) of the audit."""
    truth, reps = np.random.SeedSequence([int(design.seed), 51]).spawn(2)
    return truth, reps


def _ints(seq: np.random.SeedSequence, k: int) -> list[int]:
    return [int(v % (2**31)) for v in seq.generate_state(k)]


def _replicate_seed(design: TwinDesign, r: int) -> np.random.SeedSequence:
    """The seed of replicate ``r``: the ``r``-th child of the replicate root (spawned for ``r + 1``
    children, so it does not depend on ``n_repetitions``)."""
    return _seeds(design)[1].spawn(int(r) + 1)[int(r)]


def f_star_truth(twin: Twin, design: TwinDesign) -> pd.DataFrame:
    """The planted truths of the twin: :math:`f^*`'s population MR (every loss), PD on the grids, ALE
    on the edges and SHAP importance, as rows ``quantity``, ``loss``, ``feature``, ``grid_value``,
    ``planted``, ``planted_se``, ``method``."""
    rows = []
    mr = twin_mr_truth(twin, losses=design.reliance["losses"], max_pairs=int(design.truth.get("max_pairs", 10**6)))
    for rec in mr.to_dict("records"):
        for q in ("mr_ratio", "mr_difference"):
            rows.append(
                {
                    "quantity": q,
                    "loss": rec["loss"],
                    "feature": rec["feature"],
                    "grid_value": np.nan,
                    "planted": rec[q],
                    "planted_se": rec[f"{q}_se"],
                    "method": rec["method"],
                }
            )
    lc = design.learner
    k = int(lc.get("pd_class_index", 1))
    if lc["grids"]:
        for rec in twin_pd_truth(twin, lc["grids"], class_index=k).to_dict("records"):
            rows.append({"quantity": "pd", "loss": "", **rec, "planted": rec.pop("pd"), "planted_se": 0.0})
    if lc["ale_edges"] and "ale" in (lc.get("effects") or []):
        for rec in twin_ale_truth(twin, lc["ale_edges"], class_index=k).to_dict("records"):
            rows.append({"quantity": "ale", "loss": "", **rec, "planted": rec.pop("ale"), "planted_se": 0.0})
    if "shap" in (lc.get("effects") or []):
        shap = twin_shap_truth(twin, max_rows=design.truth.get("shap_max_rows"), random_state=int(design.seed))
        for rec in shap.to_dict("records"):
            rows.append(
                {
                    "quantity": "shap",
                    "loss": "",
                    "feature": rec["feature"],
                    "grid_value": np.nan,
                    "planted": rec["mean_abs_shap"],
                    "planted_se": rec["mean_abs_shap_se"],
                    "method": "exact" if rec["mean_abs_shap_se"] == 0 else "monte_carlo",
                }
            )
    out = pd.DataFrame(rows)
    out["method"] = out["method"].fillna("exact")
    return out[["quantity", "loss", "feature", "grid_value", "planted", "planted_se", "method"]]


def _population_effects(twin: Twin, model, X_eval, donor, y_eval, lc, loss: str) -> dict[str, np.ndarray]:
    """One fitted learner's population PD (grids), MR ratio / difference, SHAP importance and ALE
    (edges) on a fresh evaluation sample (``donor``: an independent sample for :math:`e_{switch}`)."""

    k = int(lc.get("pd_class_index", 1))
    regression = twin.task == "regression"

    def output(Z):
        return np.asarray(model.predict(Z) if regression else model.predict_proba(Z)[:, k], dtype=float)

    pd_values = []
    for f, grid in lc["grids"].items():
        j = twin.features.index(f)
        for z in grid:
            Z = X_eval.copy()
            Z[:, j] = float(z)
            pd_values.append(output(Z).mean())
    _, loss_fn = resolve_loss(loss)
    predict = model.predict if regression else model.predict_proba
    e_orig = float(np.mean(loss_fn(y_eval, predict(X_eval)[None])))
    ratio, diff = [], []
    for cols in twin.variables.values():
        Z = X_eval.copy()
        Z[:, cols] = donor[:, cols]
        e_switch = float(np.mean(loss_fn(y_eval, predict(Z)[None])))
        ratio.append(e_switch / e_orig)
        diff.append(e_switch - e_orig)
    effects = list(lc.get("effects") or [])
    shap = np.empty(0)
    if "shap" in effects:
        m = X_eval.shape[0] if lc.get("shap_max_rows") is None else min(int(lc["shap_max_rows"]), X_eval.shape[0])
        values = np.asarray(shap_values(model, X_eval[:m], X_background=donor[:100], random_state=0).values)
        if values.ndim == 3:
            values = values[:, :, k]
        shap = np.array([np.abs(values[:, cols].sum(axis=1)).mean() for cols in twin.variables.values()])
    ale = []
    if "ale" in effects:
        for f, edges in lc["ale_edges"].items():
            res = accumulated_local_effects(
                model,
                X_eval,
                f,
                feature_names=twin.features,
                edges=np.asarray(edges, dtype=float),
                output="auto" if regression else "proba",
                class_index=k,
            )
            ale.append(res.ale)
    return {
        "pd": np.asarray(pd_values, dtype=float),
        "mr_ratio": np.asarray(ratio),
        "mr_difference": np.asarray(diff),
        "shap": shap,
        "ale": np.concatenate(ale) if ale else np.empty(0),
    }


def _truth_fit(twin: Twin, family: str, params, options, n1: int, lc, seeds, loss: str) -> dict[str, np.ndarray]:
    from threadpoolctl import threadpool_limits

    s_train, s_eval, s_model = seeds
    with threadpool_limits(limits=1):
        Xtr, ytr = twin.sample(np.random.default_rng(s_train), n1)
        rng = np.random.default_rng(s_eval)
        n_eval = int(lc["truth_eval_rows"])
        X_eval, y_eval = twin.sample(rng, n_eval)
        donor = twin.X[twin.draw_rows(rng, n_eval)]
        model = fit_estimator(
            estimator_factory(family, twin.task, params, options=options)(random_state=s_model), Xtr, ytr
        )
        return _population_effects(twin, model, X_eval, donor, y_eval, lc, loss)


def _n1(design: TwinDesign, twin: Twin) -> int:
    """The refits' training rows: ``round(fraction * n_train)`` of a replicate's split."""
    n_test = int(np.ceil(design.test_size * design.n))
    return round(float(design.learner["fraction"]) * (design.n - n_test))


def learner_truth(twin: Twin, design: TwinDesign, *, n_jobs: int = 1) -> pd.DataFrame:
    """The learner intervals' own estimand: each learner's expected population PD, MR, SHAP
    importance and ALE over fresh training sets of :math:`n_1` rows from the twin (``truth_fits``
    fits, each evaluated on its own fresh sample of ``truth_eval_rows`` rows), with the Monte-Carlo
    SE over fits.

    Returns
    -------
    DataFrame
        ``family``, ``quantity`` (``pd``, ``mr_ratio``, ``mr_difference``, ``shap``, ``ale``),
        ``feature``, ``grid_value``, ``claimed``, ``claimed_se``, ``n_fits``.
    """
    from joblib import Parallel, delayed

    lc = design.learner
    M = int(lc["truth_fits"])
    root, _ = _seeds(design)
    loss = design.reliance["losses"][0]
    n1 = _n1(design, twin)
    rows = []
    for fi, (family, params) in enumerate(design.learners.items()):
        seeds = [tuple(_ints(child, 3)) for child in root.spawn(len(design.learners) * M)[fi * M : (fi + 1) * M]]
        out = Parallel(n_jobs=n_jobs, backend="loky" if n_jobs != 1 else "sequential")(
            delayed(_truth_fit)(twin, family, params, design.options_of(family), n1, lc, s, loss) for s in seeds
        )
        labels = _effect_labels(twin, lc)
        for q, keys in labels.items():
            values = np.array([o[q] for o in out])
            for col, (feature, z) in enumerate(keys):
                v = values[:, col]
                rows.append(
                    {
                        "family": family,
                        "quantity": q,
                        "feature": feature,
                        "grid_value": z,
                        "claimed": float(v.mean()),
                        "claimed_se": float(v.std(ddof=1) / np.sqrt(v.size)),
                        "n_fits": M,
                    }
                )
    return pd.DataFrame(
        rows, columns=["family", "quantity", "feature", "grid_value", "claimed", "claimed_se", "n_fits"]
    )


def _effect_labels(twin: Twin, lc) -> dict[str, list[tuple[str, float]]]:
    """(feature, grid value) of each entry of :func:`_population_effects`' arrays, per quantity."""
    variables = [(v, np.nan) for v in twin.variables]
    effects = list(lc.get("effects") or [])
    return {
        "pd": [(f, float(z)) for f, g in lc["grids"].items() for z in g],
        "mr_ratio": variables,
        "mr_difference": variables,
        "shap": variables if "shap" in effects else [],
        "ale": [(f, float(z)) for f, e in lc["ale_edges"].items() for z in e] if "ale" in effects else [],
    }


def _capped(family: str, params: Mapping[str, Any], max_estimators: int | None) -> dict:
    """``params`` with ``n_estimators`` at most ``max_estimators`` (``twins.max_estimators``)."""
    out = dict(params)
    if max_estimators is not None and "n_estimators" in out and int(out["n_estimators"]) > int(max_estimators):
        out["n_estimators"] = int(max_estimators)
    return out


def reference_family(best: Mapping[str, Mapping[str, Any]]) -> str:
    """The family of the cross-family set's reference model: the least CV loss over the families'
    best configurations (``best.json``: ``cv_mean`` of the selection metric; ties: the first name)."""
    ok = {f: b for f, b in best.items() if b.get("cv_mean") is not None and np.isfinite(float(b["cv_mean"]))}
    if not ok:
        raise ValueError("no family has a best configuration with a CV loss: the twin has no reference model")
    return min(sorted(ok), key=lambda f: float(ok[f]["cv_mean"]))


def prepare_twin(data, settings, best: Mapping[str, Mapping[str, Any]], reliance: pd.DataFrame | None):
    """The ``twin`` rule: the twin of a prepared dataset and its audit's design.

    Parameters
    ----------
    data : PreparedData
        :func:`xaipipe.data.load_prepared`.
    settings : TwinSettings
        :meth:`xaipipe.config.TwinSettings.from_config`.
    best : mapping family -> ``best.json``
        The dataset's families' chosen configurations (``params``, ``cv_mean``).
    reliance : DataFrame or None
        The learner family's ``model_reliance.csv`` (its top variables by MR are the learner-PD's,
        as the ``learner`` rule chooses them); None: the first numeric columns.

    Returns
    -------
    TwinBundle
        The twin, its audit's design and (``twins.sanity``) the linear twin of the sanity rows.

    Raises
    ------
    ValueError
        ``twins.f_star`` names a family the dataset does not run, or ``dgp`` for a table that is not
        simulated.
    """

    task, s = data.task, settings
    kind = s.f_star
    if kind == "dgp":
        if not s.dgp:
            raise ValueError(f"config key twins.f_star: 'dgp' needs a simulated dataset; {data.dataset} is not one")
        twin = dgp_twin(data, s.dgp["dgp"], float(s.dgp["noise_sd"]))
        twin.variable_groups = dict(importance_groups(data))
        model = (
            reference_family(best),
            _capped(reference_family(best), best[reference_family(best)]["params"], s.max_estimators),
        )
    else:
        family = reference_family(best) if kind == "reference" else (LINEAR[task] if kind == "linear" else kind)
        if kind not in ("reference", "linear") and family not in best:
            raise ValueError(
                f"config key twins.f_star: {family!r} is not a family of dataset {data.dataset} (its families: {sorted(best)})"
            )
        params = _capped(family, best[family]["params"] if family in best else {}, s.max_estimators)
        twin = build_twin(
            data,
            family,
            params,
            f_star_kind=kind,
            options=(s.options or {}).get(family),
            variable_groups=importance_groups(data),
            seed=s.seed,
        )
        model = (family, _capped(family, params, s.max_estimators))
    fixed = dict(s.learner.get("params") or {})  # twins.learner.params: a family's fixed configuration
    learners = {
        f: dict(fixed[f]) if f in fixed else _capped(f, best[f]["params"], s.max_estimators)
        for f in s.learner_families
        if f in best or f in fixed
    }
    skipped = [f for f in s.learner_families if f not in learners]
    if skipped:  # a learner family the dataset does not fit: said, not silently dropped
        _log.warning(
            "twin %s: twins.learner.families %s are not families of the dataset (its families: %s); "
            "no learner rows for them",
            data.dataset,
            skipped,
            sorted(best),
        )
    numeric = [f for f in twin.features if f not in {m for g in twin.feature_groups.values() for m in g}]
    if reliance is not None and len(reliance):
        ranked = top_features(
            reliance,
            len(twin.variables),
            estimator=s.ranking["estimator"],
            loss=s.losses[0],
            quantity=s.ranking["quantity"],
        )
        pd_features = [f for f in ranked if f in numeric][: s.top_k]
    else:
        pd_features = numeric[: s.top_k]
    grids, edges = {}, {}
    for f in pd_features:
        x = twin.X[:, twin.features.index(f)]
        grids[f] = [float(z) for z in feature_grid(x, s.learner["resolution"], s.grid_kind, tuple(s.percentiles))]
        e = np.unique(np.quantile(x, np.linspace(0, 1, int(s.learner["ale_bins"]) + 1)))
        if e.size >= 3:
            edges[f] = [float(z) for z in e]
    lc = {
        **{
            k: s.learner[k]
            for k in (
                "n_refits",
                "fraction",
                "pfi_estimator",
                "n_repeats",
                "effects",
                "shap_max_rows",
                "truth_fits",
                "truth_eval_rows",
            )
        },
        "grids": grids,
        "ale_edges": edges,
        "pd_class_index": 1,
    }
    mcr = None
    if s.mcr is not False and (twin.task == "regression" or twin.n_classes == 2):
        mcr = dict(s.mcr)
    # the ebm kind: a regression twin's glass-box families (their bars are in output units, as f*'s PD)
    glassbox = {
        f: _capped(f, best[f]["params"], s.max_estimators)
        for f in sorted(best)
        if get_family(f).terms and task == "regression" and grids
    }
    design = TwinDesign(
        n=twin.n_rows,
        test_size=s.test_size,
        cv_folds=s.cv_folds,
        n_repetitions=s.n_repetitions,
        seed=s.seed,
        learners=learners,
        model=model,
        learner=lc,
        reliance={
            "estimators": list(s.estimators),
            "losses": list(s.losses),
            "n_repeats": s.n_repeats,
            "e_switch_max_rows": s.e_switch_max_rows,
        },
        comparison=dict(s.comparison),
        mcr=mcr,
        sanity=bool(s.sanity),
        options=dict(s.options or {}),
        truth=dict(s.truth),
        nominal=tuple(s.nominal),
        glassbox=glassbox,
    )
    sanity = linear_twin(twin, data, seed=s.seed) if s.sanity else None
    return TwinBundle(twin, design, sanity)


@dataclass
class TwinBundle:
    """The ``twin`` rule's output (``twin.joblib``): the twin, its audit's design, the sanity twin."""

    twin: Twin
    design: TwinDesign
    sanity: LinearTwin | None = None


@dataclass(frozen=True)
class TwinTruths:
    """The ``twin_truth`` rule's tables: :func:`f_star_truth` and :func:`learner_truth`."""

    f_star: pd.DataFrame
    learner: pd.DataFrame

    FRAMES = ("f_star", "learner")

    def to_frames(self) -> dict[str, pd.DataFrame]:
        """The tables by the rule's output names."""
        return {name: getattr(self, name) for name in self.FRAMES}


def twin_truths(bundle: TwinBundle, *, n_jobs: int = 1) -> TwinTruths:
    """The ``twin_truth`` rule: the planted truths and the learner truth of one twin."""
    twin, design = bundle.twin, bundle.design
    return TwinTruths(f_star_truth(twin, design), learner_truth(twin, design, n_jobs=n_jobs))
