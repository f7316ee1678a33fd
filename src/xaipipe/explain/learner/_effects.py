"""Learner-SHAP importance and learner-ALE: refit intervals from the refits of learner-PD / PFI.

Issue 45, item 1. The refits of :func:`xaipipe.explain.learner.learner_refits` (Molnar et al.
2023: ``K`` fits on subsamples of :math:`n_1` training rows, each evaluated on its own
:math:`n_2` held-out rows) give, besides the PD and the PFI, for each refit ``k``

* the **global SHAP importance** of every variable, :math:`I_{j,k} = \\frac1m \\sum_{i}
  |\\phi_j(\\hat f_k, x_i)|` over ``m`` held-out rows of the refit (all of them, or a seeded
  subsample of ``shap_max_rows``), with the family's SHAP algorithm as the ``shap`` rule uses it
  (:func:`xaipipe.explain.shapley.shap_values`, ``algorithm="auto"``: TreeSHAP for tree
  ensembles, Linear SHAP, permutation SHAP on a background of the refit's training rows); a
  variable that is a group of columns (a one-hot group, or any other group of ``features``)
  has the value :math:`\\phi_G = \\sum_{j \\in G} \\phi_j` (as
  :func:`~xaipipe.explain.shapley.group_shap_result`), so :math:`I_G` is the mean of
  :math:`|\\phi_G|`, not the sum of the columns' importances;
* the **ALE curve** of every variable (Apley & Zhu 2020;
  :func:`xaipipe.explain.pdp.accumulated_local_effects`) on the refit's held-out rows, at grid
  points shared by all refits: a numeric variable's bin edges are the quantile edges of *all*
  rows (:func:`~xaipipe.explain.pdp.ale_bin_edges`, ``ale_bins`` bins, or explicit
  ``ale_edges``), with an interior edge dropped wherever a bin would hold no held-out row of some
  refit (:func:`shared_ale_edges`; an ALE bin needs a row), and a one-hot group's levels are put in
  the order :func:`~xaipipe.explain.pdp.order_levels` gives on all rows (passed to every refit as
  ``level_order``). A group that is not one-hot has no ALE, nor a one-hot group with a level that
  some refit's held-out rows lack; both are named in :attr:`EffectPlan.skipped`.

Each is then summarised as learner-PD is (:func:`xaipipe.explain.learner.corrected_t_interval`):
the mean over refits and the corrected resampled-*t* interval
:math:`\\bar I \\pm t_{1-\\alpha/2, K-1} \\sqrt{(1/K + n_2/n_1) S^2}` (Nadeau & Bengio 2003), beside
the naive :math:`S/\\sqrt K` one. **Estimand**: the expectation over training sets of
:math:`n_1` rows drawn from the population of the learner's SHAP importance / ALE at the grid
point (each computed on rows the fitted model has not seen) -- the learner-level quantity of
Molnar et al., not the SHAP importance or ALE of the data-generating function. The coverage
audit (:mod:`xaipipe.studies.coverage_effects`) measures how often the corrected interval covers
it on simulated data (``docs/simulation.md``).

``n_2/n_1`` is the split's ratio (held-out over training rows of one refit) also when SHAP
explains a subsample of ``m < n_2`` held-out rows: the subsample adds independent noise to each
refit, which :math:`S^2` contains.

Cost: no extra fit. SHAP: one explainer call per refit on at most ``shap_max_rows`` rows
(TreeSHAP of a boosted model: milliseconds per row). ALE: ``2 n_2`` model evaluations per numeric
variable and refit, at most ``3 n_2`` per one-hot group.

Randomness: the SHAP row subsample and the explainer's seed of refit ``k`` come from child 3 of
the refit's :class:`numpy.random.SeedSequence` (children 0-2 are the subsample, estimator and
permutation streams of :func:`xaipipe.data.resample.refit_seeds`, untouched), so the PD / PFI
values are bitwise those computed without these effects.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ...validation import check_int
from ..pdp import NO_LEVEL, feature_grid, onehot_grid
from ..pdp._ale import _bin_index, _check_centering, accumulated_local_effects, ale_bin_edges
from ..shapley import shap_values
from ._intervals import (
    _INTERVAL,
    LEARNER_PD_COLUMNS,
    PD_REFIT_COLUMNS,
    _feature_refits,
    corrected_t_interval,
    learner_pd_table,
)

__all__ = [
    "ALE_REFIT_COLUMNS",
    "LEARNER_ALE_COLUMNS",
    "LEARNER_SHAP_COLUMNS",
    "SHAP_REFIT_COLUMNS",
    "EffectPlan",
    "RefitEffects",
    "learner_ale_table",
    "learner_shap_table",
    "plan_effects",
    "refit_effects",
    "refit_effects_of",
    "shared_ale_edges",
]

#: Per-refit SHAP importance (one row per refit x variable).
SHAP_REFIT_COLUMNS = ["refit", "feature", "algorithm", "output", "mean_abs_shap", "n_rows", "n_train", "n_test"]
#: Per-refit ALE values (one row per refit x variable x grid point): the columns of the per-refit PD.
ALE_REFIT_COLUMNS = list(PD_REFIT_COLUMNS)

#: What the learner-SHAP and learner-ALE tables estimate (their ``estimand`` column).
SHAP_ESTIMAND = (
    "E over training sets of n_train rows of the refitted learner's mean |SHAP value| on rows it did not see; "
    "ci_*: corrected resampled t interval (Nadeau & Bengio 2003) at `confidence`"
)
ALE_ESTIMAND = (
    "E over training sets of n_train rows of the refitted learner's ALE at the grid point, on rows it did not see; "
    "ci_*: corrected resampled t interval (Nadeau & Bengio 2003) at `confidence`"
)

#: Columns of :func:`learner_shap_table`.
LEARNER_SHAP_COLUMNS = [
    "feature",
    "algorithm",
    "output",
    *_INTERVAL,
    "n_rows",
    "n_refits",
    "n_train",
    "n_test",
    "test_train_ratio",
    "confidence",
    "estimand",
]
#: Columns of :func:`learner_ale_table`: those of the learner-PD table, the centring and the estimand.
LEARNER_ALE_COLUMNS = [*LEARNER_PD_COLUMNS, "centering", "estimand"]


@dataclass(frozen=True)
class RefitEffects:
    """Which effects beyond PD / PFI the refits compute, and how.

    Attributes
    ----------
    shap : bool, default True
        The global SHAP importance of every variable.
    shap_max_rows : int or None, default 200
        Held-out rows explained per refit (a seeded subsample when the refit has more; None: all).
    shap_algorithm : str, default "auto"
        :func:`~xaipipe.explain.shapley.shap_values`' ``algorithm`` (the pipeline: the family's
        ``explain.shap.algorithm``).
    background_size : int or None, default 100
        Background rows of the linear / model-agnostic explainers, drawn from the refit's training
        rows (``explain.shap.background_size``).
    ale : bool, default True
        The ALE curve of every variable (numeric or one-hot group).
    ale_bins : int, default 20
        Quantile bins of a numeric variable's ALE grid (``explain.ale.n_bins``).
    ale_centering : {"ale_plot", "paper"}, default "ale_plot"
        ``explain.ale.centering``.
    ale_features : sequence of str or None
        Variables with an ALE (default: every variable).
    ale_edges : mapping name -> 1-D array, optional
        Explicit bin edges of numeric variables (covering every row; no bin may lack held-out rows
        of a refit: not merged).
    """

    shap: bool = True
    shap_max_rows: int | None = 200
    shap_algorithm: str = "auto"
    background_size: int | None = 100
    ale: bool = True
    ale_bins: int = 20
    ale_centering: str = "ale_plot"
    ale_features: Sequence[str] | None = None
    ale_edges: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class _AleSpec:
    name: str
    cols: tuple[int, ...]
    edges: np.ndarray | None  # numeric: shared bin edges
    levels: tuple[str, ...] | None  # one-hot group: the shared level order


@dataclass(frozen=True)
class EffectPlan:
    """What every refit computes besides PD / PFI (:func:`plan_effects`; one per call of
    :func:`~xaipipe.explain.learner.learner_refits`).

    Attributes
    ----------
    effects : RefitEffects
    variables : dict name -> column indices
        The SHAP importance's variables (groups summed).
    ale : tuple of _AleSpec
        The ALE's variables with their shared grids.
    skipped : dict name -> reason
        Variables without an ALE.
    names : list of str
        Column names.
    seeds : list of SeedSequence
        Per refit: the stream of its SHAP row subsample and explainer.
    output, class_index, shap_class : str, int, int or None
        ALE output (``pd_output``), its class column, and the class SHAP explains (None: binary /
        regression).
    """

    effects: RefitEffects
    variables: dict
    ale: tuple
    skipped: dict
    names: list
    seeds: list = field(repr=False)
    output: str = "auto"
    class_index: int = 1
    shap_class: int | None = None


# ----------------------------------------------------------------------------- the refits' grids


@dataclass(frozen=True)
class _PDSpec:
    name: str
    cols: np.ndarray
    grid: np.ndarray  # (n_grid, len(cols))
    values: np.ndarray  # (n_grid,) grid value (feature units) or level index
    levels: tuple | None


def _pd_specs(X, names, groups: dict[str, np.ndarray], pd_features, grids, resolution, kind, percentiles):

    wanted = list(groups) if pd_features is None else list(pd_features)
    unknown = [f for f in wanted if f not in groups]
    if unknown:
        raise ValueError(f"pd_features {unknown} are not features; known: {list(groups)}")
    grids = dict(grids or {})
    extra = [g for g in grids if g not in wanted]
    if extra:
        raise ValueError(f"grids given for {extra}, which are not in pd_features")
    specs = []
    for name in wanted:
        cols = groups[name]
        if len(cols) == 1:
            if name in grids:
                g = np.asarray(grids[name], dtype=np.float64)
                if g.ndim != 1 or g.size < 1 or not np.isfinite(g).all():
                    raise ValueError(f"grid of {name!r} must be a finite non-empty 1-D array")
            else:
                g = feature_grid(X[:, cols[0]], resolution=resolution, kind=kind, percentiles=percentiles)
            specs.append(_PDSpec(name, cols, g[:, None], g, None))
        else:
            if name in grids:
                raise ValueError(f"{name!r} is a one-hot group; its grid is its levels and cannot be given")
            G = onehot_grid(X[:, cols])
            level_names = [names[j] for j in cols]
            levels = tuple(NO_LEVEL if not r.any() else level_names[int(np.argmax(r))] for r in G)
            specs.append(_PDSpec(name, cols, G, np.arange(G.shape[0], dtype=np.float64), levels))
    return specs


def refit_effects_of(settings) -> RefitEffects | None:
    """The :class:`RefitEffects` of the ``learner`` rule's settings
    (:class:`xaipipe.config.LearnerEffectsSettings`: ``shap``, ``ale``, ``shap_max_rows``,
    ``shap_algorithm``, ``background_size``, ``ale_bins``, ``ale_centering``); None when neither
    effect is asked for."""
    if not (settings.shap or settings.ale):
        return None
    names = ("shap", "ale", "shap_max_rows", "shap_algorithm", "background_size", "ale_bins", "ale_centering")
    return RefitEffects(**{name: getattr(settings, name) for name in names})


def shared_ale_edges(x_all, held_out: Sequence[np.ndarray], n_bins: int) -> np.ndarray:
    """Quantile ALE edges of all rows, merged so that every bin holds a held-out row of every refit.

    Parameters
    ----------
    x_all : array-like of shape (n,)
        The variable on all rows (finite, two distinct values at least).
    held_out : sequence of arrays
        The variable on each refit's evaluation rows (values within ``[min, max]`` of ``x_all``).
    n_bins : int >= 1
        Requested bins (:func:`~xaipipe.explain.pdp.ale_bin_edges`).

    Returns
    -------
    ndarray of shape (K + 1,)
        Strictly increasing edges, ``edges[0] = min``, ``edges[-1] = max``: while some refit has
        an empty bin ``(z_{k-1}, z_k]``, the lowest such bin is merged with the next one (its
        upper edge dropped; the last bin with the previous one).

    Raises
    ------
    ValueError
        As :func:`~xaipipe.explain.pdp.ale_bin_edges`.
    """

    edges = ale_bin_edges(x_all, n_bins)
    held_out = [np.asarray(x, dtype=np.float64) for x in held_out]
    while edges.size > 2:
        counts = [np.bincount(_bin_index(x, edges) - 1, minlength=edges.size - 1) for x in held_out]
        empty = [int(np.flatnonzero(c == 0)[0]) for c in counts if (c == 0).any()]
        if not empty:
            break
        b = min(empty)  # 0-based: the bin (edges[b], edges[b + 1]]
        edges = np.delete(edges, b + 1 if b + 1 < edges.size - 1 else b)
    return edges


def _check_given_edges(name: str, edges, x_all: np.ndarray, held_out: Sequence[np.ndarray]) -> np.ndarray:
    """Explicit ALE edges of ``name``: strictly increasing, covering every row, and every bin filled
    by every refit's evaluation rows (checked before any fit)."""

    e = np.asarray(edges, dtype=np.float64)
    if e.ndim != 1 or e.size < 2 or not np.all(np.isfinite(e)) or np.any(np.diff(e) <= 0):
        raise ValueError(f"ale_edges of {name!r} must be a strictly increasing 1-D array of at least 2 finite values")
    if x_all.min() < e[0] or x_all.max() > e[-1]:
        raise ValueError(f"ale_edges of {name!r} must cover the observed values [{x_all.min()}, {x_all.max()}]")
    for k, x in enumerate(held_out):
        counts = np.bincount(_bin_index(x, e) - 1, minlength=e.size - 1)
        if (counts == 0).any():
            b = int(np.flatnonzero(counts == 0)[0]) + 1
            raise ValueError(
                f"ale_edges of {name!r}: refit {k}'s {x.size} evaluation rows leave bin {b} "
                f"({e[b - 1]}, {e[b]}] empty; give fewer bins (or use more rows)"
            )
    return e


def _is_onehot(block: np.ndarray) -> bool:
    return bool(np.all((block == 0) | (block == 1)) and np.all(block.sum(axis=1) <= 1))


def _ale_specs(effects, X_all, names, groups, eval_rows) -> tuple[list, dict]:
    """Shared grids of the ALE variables: (specs, skipped)."""

    wanted = list(groups) if effects.ale_features is None else list(effects.ale_features)
    unknown = [f for f in wanted if f not in groups]
    if unknown:
        raise ValueError(f"ale_features {unknown} are not variables; known: {list(groups)}")
    given = dict(effects.ale_edges or {})
    specs, skipped = [], {}
    for name in wanted:
        cols = tuple(int(c) for c in groups[name])
        if len(cols) == 1:
            j = cols[0]
            if np.unique(X_all[:, j]).size < 2:
                skipped[name] = "constant"
                continue
            if name in given:
                edges = _check_given_edges(name, given[name], X_all[:, j], [Xe[:, j] for Xe in eval_rows])
            else:
                edges = shared_ale_edges(X_all[:, j], [Xe[:, j] for Xe in eval_rows], effects.ale_bins)
            specs.append(_AleSpec(name, cols, edges, None))
            continue
        if name in given:
            raise ValueError(f"{name!r} is a group of columns; ale_edges are for numeric variables")
        if not _is_onehot(X_all[:, list(cols)]):
            skipped[name] = "not a one-hot group"
            continue
        # the level order depends on the rows only: ALE of a null model on all rows gives it
        zero = accumulated_local_effects(
            lambda Z: np.zeros(len(Z)), X_all, list(cols), feature_names=names, feature_groups=None
        )
        levels = tuple(zero.levels)
        missing = [k for k, Xe in enumerate(eval_rows) if not _has_levels(Xe[:, list(cols)], len(levels))]
        if missing:
            skipped[name] = f"a level without held-out rows in refit {missing[0]}"
            continue
        specs.append(_AleSpec(name, cols, None, levels))
    return specs, skipped


def _has_levels(block: np.ndarray, n_levels: int) -> bool:
    """Whether the rows of a one-hot block show ``n_levels`` distinct levels (all-zero counts as one)."""
    codes = np.where(block.sum(axis=1) > 0, np.argmax(block, axis=1) + 1, 0)
    return np.unique(codes).size >= n_levels


def plan_effects(
    effects: RefitEffects | None,
    X_all: np.ndarray,
    names: Sequence[str],
    groups: Mapping[str, np.ndarray],
    eval_rows: Sequence[np.ndarray],
    seeds: Sequence,
    *,
    output: str = "auto",
    class_index: int = 1,
    shap_class: int | None = None,
) -> EffectPlan | None:
    """The :class:`EffectPlan` of one set of refits (None when ``effects`` is None).

    Parameters
    ----------
    effects : RefitEffects or None
    X_all : ndarray of shape (n, p)
        All rows (imputed): the numeric ALE grids and the level orders.
    names : sequence of str
    groups : mapping name -> column indices
        The variables (:func:`xaipipe.explain.reliance.resolve_features`).
    eval_rows : sequence of ndarray
        Each refit's evaluation rows, as the refit sees them (imputed as the refit imputes).
    seeds : sequence of SeedSequence
        Each refit's subsample stream (:func:`xaipipe.data.resample.refit_seeds`, first item); the
        effects draw from its sibling 3.
    output, class_index, shap_class
        See :class:`EffectPlan`.

    Raises
    ------
    ValueError
        Unknown ALE variables, explicit edges of a group, invalid options.
    """
    if effects is None:
        return None

    if effects.shap_max_rows is not None:
        check_int(effects.shap_max_rows, "shap_max_rows", minimum=1)
    check_int(effects.ale_bins, "ale_bins", minimum=1)
    _check_centering(effects.ale_centering)
    specs, skipped = _ale_specs(effects, X_all, list(names), groups, eval_rows) if effects.ale else ([], {})
    streams = [
        np.random.SeedSequence(s.entropy, spawn_key=(*s.spawn_key[:-1], 3), pool_size=s.pool_size) for s in seeds
    ]
    return EffectPlan(
        effects=effects,
        variables={k: np.asarray(v, dtype=np.intp) for k, v in groups.items()},
        ale=tuple(specs),
        skipped=skipped,
        names=list(names),
        seeds=streams,
        output=output,
        class_index=class_index,
        shap_class=shap_class,
    )


def refit_effects(plan: EffectPlan | None, k: int, model, X_fit: np.ndarray, X_ev: np.ndarray, n1: int, n2: int):
    """SHAP importance and ALE rows of refit ``k`` (:data:`SHAP_REFIT_COLUMNS`,
    :data:`ALE_REFIT_COLUMNS` as tuples), from its fitted ``model``, training rows ``X_fit`` (the
    background) and evaluation rows ``X_ev``; ``([], [])`` without a plan."""
    if plan is None:
        return [], []
    e = plan.effects
    shap_rows, ale_rows = [], []
    seed = plan.seeds[k]
    if e.shap:
        rng = np.random.default_rng(seed)
        m = X_ev.shape[0] if e.shap_max_rows is None else min(int(e.shap_max_rows), X_ev.shape[0])
        rows = np.arange(X_ev.shape[0]) if m == X_ev.shape[0] else np.sort(rng.choice(X_ev.shape[0], m, replace=False))
        res = shap_values(
            model,
            X_ev[rows],
            X_background=X_fit,
            feature_names=plan.names,
            algorithm=e.shap_algorithm,
            background_size=e.background_size,
            random_state=int(rng.integers(2**31)),
            class_index=plan.shap_class,
        )
        for name, cols in plan.variables.items():
            value = float(np.abs(res.values[:, cols].sum(axis=1)).mean())
            shap_rows.append((k, name, res.algorithm, res.output, value, m, n1, n2))
    if plan.ale:
        for spec in plan.ale:
            feature = spec.cols[0] if spec.edges is not None else list(spec.cols)
            res = accumulated_local_effects(
                model,
                X_ev,
                feature,
                feature_names=plan.names,
                output=plan.output,
                class_index=plan.class_index,
                edges=spec.edges,
                centering=e.ale_centering,
                level_order=spec.levels,
            )
            levels = res.levels or ("",) * res.values.size
            for i, (v, a) in enumerate(zip(res.values, res.ale)):
                ale_rows.append((k, spec.name, i, float(v), levels[i], res.output, float(a), n1, n2))
    return shap_rows, ale_rows


def learner_shap_table(shap_refits: pd.DataFrame, *, confidence: float = 0.95) -> pd.DataFrame:
    """Learner-SHAP importance with corrected and naive intervals.

    Parameters
    ----------
    shap_refits : DataFrame
        :data:`SHAP_REFIT_COLUMNS` (:func:`xaipipe.explain.learner.learner_refits` with effects).
    confidence : float in (0, 1), default 0.95

    Returns
    -------
    DataFrame
        One row per variable (order of first appearance), :data:`LEARNER_SHAP_COLUMNS`: ``mean``
        (the mean over refits of the mean |SHAP value|, in the units of ``output``), ``std``,
        ``se`` / ``se_naive`` and the corrected / naive interval ends
        (:func:`~xaipipe.explain.learner.corrected_t_interval` with ``n_test / n_train``),
        ``n_rows`` (rows explained per refit), ``estimand``.

    Raises
    ------
    ValueError
        Missing columns, a variable without one value per refit, fewer than 2 refits, several
        ``n_train`` / ``n_test`` values.
    """

    c, n1, n2, ratio, K, parts = _feature_refits(shap_refits, SHAP_REFIT_COLUMNS, "shap_refits", confidence)
    out = []
    for feature, part in parts:
        ci = corrected_t_interval(part["mean_abs_shap"].to_numpy(), ratio, confidence=c)
        first = part.iloc[0]
        rec = {"feature": feature, "algorithm": first["algorithm"], "output": first["output"]}
        rec.update({key: float(ci[key]) for key in _INTERVAL})
        rec.update(
            {
                "n_rows": int(part["n_rows"].min()),
                "n_refits": K,
                "n_train": n1,
                "n_test": n2,
                "test_train_ratio": ratio,
                "confidence": c,
                "estimand": SHAP_ESTIMAND,
            }
        )
        out.append(rec)
    return pd.DataFrame(out, columns=LEARNER_SHAP_COLUMNS)


def learner_ale_table(ale_refits: pd.DataFrame, *, confidence: float = 0.95, centering: str = "") -> pd.DataFrame:
    """Learner-ALE with corrected and naive pointwise intervals.

    :func:`~xaipipe.explain.learner.learner_pd_table` of the per-refit ALE values (one row per
    variable x grid point: ``grid_value`` the bin edge, or the level's position with its name in
    ``level``; ``mean`` the learner-ALE in output units), with ``centering`` and ``estimand``
    appended (:data:`LEARNER_ALE_COLUMNS`).

    Raises
    ------
    ValueError
        As :func:`~xaipipe.explain.learner.learner_pd_table`.
    """
    table = learner_pd_table(ale_refits, confidence=confidence)
    return table.assign(centering=centering, estimand=ALE_ESTIMAND)[LEARNER_ALE_COLUMNS]
