"""Coverage audit on simulated data: do the pipeline's intervals contain the truth?

Issue 23, item 4. ``R`` repetitions, each a fresh draw of ``n`` rows from a DGP of
:mod:`xaipipe.data.simulated` (default Friedman #1 on U(-1, 1)^10, noise N(0, 1)),
split 80/20 as the pipeline splits (:func:`xaipipe.data.split.make_split`), and on
each the pipeline's own functions:

(a) **learner-PD / learner-PFI** (Molnar et al. 2023;
    :func:`xaipipe.explain.learner.learner_pd_pfi`) of each learner (a family with
    one fixed configuration) on the training split: K refits on subsamples of
    ``n_1 = round(fraction * n_train)`` rows, PD on a fixed grid and PFI (model
    reliance, squared loss: ratio and difference) on each refit's held-out
    ``n_2 = n_train - n_1`` rows; the corrected interval
    ``mean ± t_{K-1} sqrt((1/K + n_2/n_1) S²)`` (Nadeau & Bengio 2003) and the
    naive one ``mean ± t_{K-1} S/sqrt(K)``.
(b) **MCR** (Fisher, Rudin & Dominici 2019, §4): a small model class (the CV
    grids of a few families, :func:`xaipipe.models.cv.cross_validate_grid`), its
    Rashomon sets with the pipeline's ε rule (``"se"``: ε in CV standard errors of
    the reference, :mod:`xaipipe.rashomon.sets`), member refits and member MR on
    the test split (:func:`xaipipe.rashomon.study.rashomon_reliance`), the interval
    ``[MCR-(ε), MCR+(ε)]`` per scope, variable and ε; and the exact MCR of all
    linear models (:func:`xaipipe.rashomon.linear.linear_exact_scope`).

Targets (what "covers" means)
-----------------------------
* ``f_star``: the value for the regression function :math:`f^*` of the DGP, in
  closed form (:func:`xaipipe.studies.simulation.partial_dependence_truth`,
  :func:`~xaipipe.studies.simulation.model_reliance_truth`): the DGP-PD
  :math:`\\mathrm{PD}_j(z)`, and for MR the population values of :math:`f^*`,
  ratio :math:`1 + D_j/\\sigma^2` and difference :math:`D_j` (its
  :math:`e_{orig}` is the noise variance :math:`\\sigma^2`).
* ``learner``: the estimand the learner intervals are built for (Molnar et al.
  2023, §4-5): the learner-PD / learner-PFI
  :math:`E_{D_{n_1}}[\\mathrm{PD}_{\\hat f_D}(z)]`,
  :math:`E_{D_{n_1}}[\\mathrm{PFI}(\\hat f_D)]`, the expectation over training sets
  of ``n_1`` rows drawn from the DGP of the *population* PD / PFI of the fitted
  model. It differs from the ``f_star`` value by the learner's bias (a tree
  ensemble flattens the PD at the edges of the support; its MR ratio divides by
  :math:`e_{orig}(\\hat f) > \\sigma^2`). Estimated once per audit by
  ``truth_fits`` independent fits on fresh samples of ``n_1`` rows, each
  evaluated on its own fresh sample of ``truth_eval_rows`` rows (PD: the mean
  prediction with :math:`x_j = z`; MR: :math:`e_{switch}` with :math:`x_j` taken
  from an independent donor sample, the definition of Fisher et al. §3); the
  column ``truth_learner_se`` is its Monte-Carlo standard error (sd over fits /
  sqrt(fits): training-set, learner and evaluation-sample noise together).
* MCR: Fisher et al.'s population MCR is a property of the *model class*:
  :math:`[\\min, \\max]` of :math:`MR(f)` over
  :math:`\\{f \\in \\mathcal F: e(f) \\le e(f_{ref}) + \\epsilon\\}`. When
  :math:`f^* \\in \\mathcal F` it contains :math:`MR(f^*)` for every ε >= 0
  (:math:`f^*` has the smallest expected loss, so it is in every Rashomon set),
  which is why :math:`MR(f^*)` is the natural truth and the only one a user can
  name. The class here does not contain :math:`f^*` (trees, boosting, linear
  models), and its members are *fitted* models whose empirical MR is computed on
  the test split: :math:`MCR` has no nominal level and its coverage of
  :math:`MR(f^*)` measures how far the class's fitted models are from relying on
  the variables as :math:`f^*` does. To separate that from the test split's
  sampling noise, every member's MR is also computed on a fresh sample of
  ``population_rows`` rows (one permutation, the same for every member): the
  interval ``population_members`` is :math:`[\\min, \\max]` of these
  near-population MR values over the *same* empirical Rashomon set. (Not for
  ``linear_exact``, whose class is infinite.)

Coverage and its Monte-Carlo error (:func:`coverage_table`)
------------------------------------------------------------
A learner interval at level ``c`` is ``estimate ± t_{(1+c)/2, K-1} se`` (``se``
corrected or naive), recomputed from the stored ``estimate``, ``se``,
``se_naive`` and ``df``, so one audit gives every nominal level. It covers when
``ci_low <= target <= ci_high``. Coverage of a group of intervals (a feature's
grid points, all features, ...) is the mean over repetitions of the share
covered in each repetition, :math:`\\hat c = \\frac1R\\sum_r \\bar y_r`, and its
Monte-Carlo standard error is :math:`\\mathrm{sd}(\\bar y_r)/\\sqrt R` (``ddof=0``):
intervals of one repetition (grid points of one PD curve, variables of one fit)
are correlated, repetitions are independent, so the repetition is the unit. For
one interval per repetition :math:`\\bar y_r \\in \\{0, 1\\}` and the formula is
:math:`\\sqrt{\\hat c(1-\\hat c)/R}`.

Randomness and reproducibility
------------------------------
``SeedSequence(random_state).spawn(2)``: child 0 seeds the learner-truth fits
(spawned once per fit), child 1 the repetitions (spawned once per repetition;
repetition ``r`` draws five integers: data, split, learner refits, model-class
estimators and permutations, population sample). Repetition ``r`` is therefore
the same whatever ``n_repetitions`` (an audit with R = 50 is the first half of
one with R = 100) and whatever ``n_jobs``: repetitions run in separate worker
processes with single-threaded BLAS and are assembled in repetition order, so the
tables are byte-identical for any ``n_jobs``.

Why one module of this size (~860 lines since the tree was formatted with ruff): one
repetition's truth, learner and MCR rows and the aggregation share the seeding and
the settings helpers (``_one_repetition``, ``_merge``, ``_ints``); the public surface is
:func:`coverage_audit` and :func:`coverage_table`.
"""

from __future__ import annotations

import logging
import numbers
from collections.abc import Mapping
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from ..config.rashomon import RashomonSettings
from ..config.studies import COVERAGE_LEARNER_CONFIG, COVERAGE_LEARNERS, COVERAGE_RASHOMON_CONFIG, CoverageSettings
from .coverage_effects import attach_f_star, effect_spec, effect_truth, learner_effect_rows, truth_row, truth_rows
from .coverage_table import (  # re-exported: the table layer (split from this module, issue 45)
    _MCR_QUANTITIES,
    COVERAGE_COLUMNS,
    DEFAULT_NOMINAL,
    REPETITION_COLUMNS,
    coverage_table,
)

__all__ = [
    "COVERAGE_COLUMNS",
    "DEFAULT_NOMINAL",
    "REPETITION_COLUMNS",
    "CoverageTables",
    "coverage_audit",
    "coverage_table",
]

#: The defaults of (a) -- learners (family -> one fixed configuration), their options -- and (b), the
#: model class and the ε rule: the config's (``coverage``, :mod:`xaipipe.config.studies`).
DEFAULT_LEARNERS = COVERAGE_LEARNERS
DEFAULT_LEARNER_CONFIG = COVERAGE_LEARNER_CONFIG
DEFAULT_RASHOMON_CONFIG = COVERAGE_RASHOMON_CONFIG

_TASK = "regression"


# ----------------------------------------------------------------------------- validation


def _positive_int(value, name: str, minimum: int) -> int:
    if not isinstance(value, (numbers.Integral, np.integer)) or isinstance(value, bool) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def _merge(defaults: Mapping[str, Any], given: Mapping[str, Any] | None, what: str) -> dict:
    given = dict(given or {})
    unknown = sorted(set(given) - set(defaults))
    if unknown:
        raise ValueError(f"{what}: unknown key(s) {unknown}; known: {sorted(defaults)}")
    return {**defaults, **{k: v for k, v in given.items() if v is not None}}


def _ints(seq: np.random.SeedSequence, k: int) -> list[int]:
    return [int(v % (2**31)) for v in seq.generate_state(k)]


def _split_sizes(n: int, test_size: float, cv_folds: int) -> tuple[int, int]:
    from ..data.split import make_split

    s = make_split(np.zeros(n), _TASK, test_size=test_size, n_folds=cv_folds, random_state=0)
    return len(s["train"]), len(s["test"])


# ----------------------------------------------------------------------------- learner truth


def _truth_fit(m, seeds, dgp, p, noise_sd, family, params, options, n1, n_eval, pd_spec, effect_spec):
    """One fresh-data fit of a learner: population PD at the grid and MR of every variable (and its
    SHAP importance and ALE, :func:`~xaipipe.studies.coverage_effects.effect_truth`)."""
    from threadpoolctl import threadpool_limits

    from ..data.simulated import simulate
    from ..explain.learner import estimator_factory
    from ..models.boosting import fit_estimator

    s_train, s_eval, s_model = seeds
    pd_idx, grid = pd_spec
    with threadpool_limits(limits=1):
        train = simulate(dgp, n=n1, p=p, noise_sd=noise_sd, random_state=s_train)
        ev = simulate(dgp, n=2 * n_eval, p=p, noise_sd=noise_sd, random_state=s_eval).to_numpy()
        X, y, donor = ev[:n_eval, :p], ev[:n_eval, p], ev[n_eval:, :p]
        model = fit_estimator(
            estimator_factory(family, _TASK, params, options=options)(random_state=s_model),
            train.to_numpy()[:, :p],
            train["y"].to_numpy(),
        )
        blocks = []
        for j in pd_idx:
            for z in grid:
                Xz = X.copy()
                Xz[:, j] = z
                blocks.append(Xz)
        pd_values = (
            model.predict(np.vstack(blocks)).reshape(len(pd_idx) * len(grid), n_eval).mean(axis=1)
            if blocks
            else np.empty(0)
        )
        e_orig = float(np.mean((y - model.predict(X)) ** 2))
        switched = []
        for j in range(p):
            Xs = X.copy()
            Xs[:, j] = donor[:, j]
            switched.append(Xs)
        e_switch = ((y[None, :] - model.predict(np.vstack(switched)).reshape(p, n_eval)) ** 2).mean(axis=1)
        effects = effect_truth(model, X, train.to_numpy()[:, :p], effect_spec)
    return m, pd_values, e_switch / e_orig, e_switch - e_orig, effects


def _learner_truth(family, params, options, *, dgp, p, noise_sd, n1, lc, names, root, n_jobs) -> pd.DataFrame:
    """Learner-PD / learner-PFI of ``family`` at training size ``n1``: mean and MC error over fresh fits."""
    from joblib import Parallel, delayed

    M = _positive_int(lc["truth_fits"], "learner truth_fits", 2)
    n_eval = _positive_int(lc["truth_eval_rows"], "learner truth_eval_rows", 2)
    pd_idx = [names.index(f) for f in lc["pd_features"]]
    grid = [float(z) for z in lc["grid"]]
    seeds = [tuple(_ints(child, 3)) for child in root.spawn(M)]
    _, truth_spec = effect_spec(lc, names)
    out = Parallel(n_jobs=n_jobs, backend="loky" if n_jobs != 1 else "sequential")(
        delayed(_truth_fit)(
            m, seeds[m], dgp, p, noise_sd, family, params, options, n1, n_eval, (pd_idx, grid), truth_spec
        )
        for m in range(M)
    )
    out = sorted(out, key=lambda r: r[0])
    rows = []

    def add(quantity, feature, grid_value, values):
        rows.append(truth_row(family, quantity, feature, grid_value, values))

    pd_all = np.array([r[1] for r in out])
    k = 0
    for j in pd_idx:
        for z in grid:
            add("learner_pd", names[j], z, pd_all[:, k])
            k += 1
    ratio = np.array([r[2] for r in out])
    diff = np.array([r[3] for r in out])
    for j, name in enumerate(names):
        add("learner_mr_ratio", name, np.nan, ratio[:, j])
        add("learner_mr_difference", name, np.nan, diff[:, j])
    rows += truth_rows(family, [r[4] for r in out], names, lc, truth_spec)
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------------- one repetition


def _learner_rows(r, family, params, options, Xtr, ytr, names, lc, seed) -> tuple[list[dict], list[dict]]:
    """The repetition's learner-PD / PFI rows, and its learner-SHAP / ALE rows (issue 45)."""
    from ..explain.learner import RefitDesign, estimator_factory, learner_pd_pfi

    effects, _ = effect_spec(lc, names)
    design = RefitDesign(
        n_refits=int(lc["n_refits"]),
        fraction=float(lc["fraction"]),
        pfi_estimator=lc["pfi_estimator"],
        n_repeats=int(lc["n_repeats"]),
        random_state=seed,
        grids={f: list(lc["grid"]) for f in lc["pd_features"]},
    )
    res = learner_pd_pfi(
        estimator_factory(family, _TASK, params, options=options),
        Xtr,
        ytr,
        design,
        feature_names=names,
        pd_features=list(lc["pd_features"]),
        n_jobs=1,
        effects=effects,
    )
    rows = []
    for rec in res.pd.itertuples(index=False):
        rows.append(
            {
                "repetition": r,
                "quantity": "learner_pd",
                "family": family,
                "feature": rec.feature,
                "grid_value": float(rec.grid_value),
                "estimate": rec.mean,
                "se": rec.se,
                "se_naive": rec.se_naive,
                "df": int(rec.n_refits) - 1,
            }
        )
    for rec in res.pfi.to_dict("records"):
        for m in ("mr_ratio", "mr_difference"):
            rows.append(
                {
                    "repetition": r,
                    "quantity": f"learner_{m}",
                    "family": family,
                    "feature": rec["feature"],
                    "grid_value": np.nan,
                    "estimate": rec[f"{m}_mean"],
                    "se": rec[f"{m}_se"],
                    "se_naive": rec[f"{m}_se_naive"],
                    "df": int(rec["n_refits"]) - 1,
                }
            )
    return rows, learner_effect_rows(r, family, res)


def _mcr_row(r, rec, scope, mode, population, n_members) -> dict:
    """One row of the MCR audit: an MCR table record ``rec`` with its population interval."""
    return {
        "repetition": r,
        "quantity": _MCR_QUANTITIES[rec["quantity"]],
        "scope": scope,
        "epsilon_mode": mode,
        "epsilon": rec["epsilon"],
        "feature": rec["feature"],
        "estimate": rec["mr_reference"],
        "ci_low": rec["mcr_minus"],
        "ci_high": rec["mcr_plus"],
        "population_low": population[0],
        "population_high": population[1],
        "n_members": n_members,
    }


def _mcr_rows(r, data, folds, rc, options, model_seed, population, pop_seed) -> list[dict]:
    """The MCR audit rows of repetition ``r``: ``data`` its split (``X_train`` .. ``y_test``,
    ``features``), ``population`` = ``(X_pop, y_pop)`` the fresh sample of the population MCR."""
    from ..models.cv import cross_validate_grid, summarize_cv
    from ..rashomon.linear import LINEAR_EXACT, linear_exact_scope
    from ..rashomon.mcr import mcr_table
    from ..rashomon.members import member_table, members_reliance
    from ..rashomon.sets import CROSS_FAMILY, check_epsilons, rashomon_scopes
    from ..rashomon.study import rashomon_reliance

    Xtr, ytr, Xte, yte, names = data.X_train, data.y_train, data.X_test, data.y_test, data.features
    X_pop, y_pop = population
    eps = check_epsilons(rc["epsilons"])
    mode = rc["epsilon_mode"]
    scopes = [s for s in rc["scopes"] if s != LINEAR_EXACT]
    rows = []
    if scopes:
        summary = pd.concat(
            [
                summarize_cv(
                    cross_validate_grid(
                        fam, _TASK, grid, Xtr, ytr, folds, random_state=model_seed, options=(options or {}).get(fam)
                    ),
                    _TASK,
                )
                for fam, grid in rc["families"].items()
            ],
            ignore_index=True,
        )
        # the pipeline's Rashomon step on this replicate (no PD envelope: epsilon, figure_scope and pd unused)
        settings = RashomonSettings(
            task=_TASK,
            metric="rmse",
            seed=model_seed,
            options=options,
            loss="squared_error",
            epsilon_mode=mode,
            epsilon=eps[-1],
            epsilons=tuple(eps),
            scopes=tuple(scopes),
            estimators=(rc["estimator"],),
            n_repeats=int(rc["n_repeats"]),
            e_switch_max_rows=400,
            figure_scope=CROSS_FAMILY,
        )
        _, mcr, groups = rashomon_reliance(data, settings, summary, n_jobs=1)
        # the same sets, every member's MR on a fresh large sample (one permutation, shared by all members)
        sets = rashomon_scopes(summary, metric="rmse", epsilon=eps[-1], mode=mode, scopes=scopes)
        rel_pop = members_reliance(
            groups,
            X_pop,
            y_pop,
            feature_names=names,
            estimators=("permutation",),
            loss="squared_error",
            n_repeats=1,
            random_state=pop_seed,
            n_jobs=1,
        )
        pop = mcr_table(member_table(sets, rel_pop, epsilons=eps), sets, epsilons=eps)
        pop = pop.set_index(["scope", "epsilon", "feature", "quantity"])[["mcr_minus", "mcr_plus"]]
        for rec in mcr.to_dict("records"):
            key = (rec["scope"], rec["epsilon"], rec["feature"], rec["quantity"])
            bounds = (float(pop.loc[key, "mcr_minus"]), float(pop.loc[key, "mcr_plus"]))
            rows.append(_mcr_row(r, rec, rec["scope"], mode, bounds, rec["n_members"]))
    if LINEAR_EXACT in rc["scopes"]:
        lin, _, _ = linear_exact_scope(
            Xtr, ytr, Xte, yte, epsilons=eps, epsilon_mode=mode, feature_names=names, path_points=2
        )
        for rec in lin.to_dict("records"):
            rows.append(_mcr_row(r, rec, LINEAR_EXACT, mode, (np.nan, np.nan), np.nan))
    return rows


def _one_repetition(r, seeds, dgp, n, p, noise_sd, test_size, cv_folds, learners, lc, rc, options):
    from types import SimpleNamespace

    from threadpoolctl import threadpool_limits

    from ..data.simulated import feature_names, simulate
    from ..data.split import folds_from_split, make_split

    data_seed, split_seed, learner_seed, model_seed, pop_seed = seeds
    names = feature_names(p)
    with threadpool_limits(limits=1):
        frame = simulate(dgp, n=n, p=p, noise_sd=noise_sd, random_state=data_seed)
        X, y = frame[names].to_numpy(), frame["y"].to_numpy()
        split = make_split(y, _TASK, test_size=test_size, n_folds=cv_folds, random_state=split_seed)
        tr, te = np.asarray(split["train"]), np.asarray(split["test"])
        rows, effect_rows = [], []
        for family, params in learners.items():
            learner, effects = _learner_rows(
                r, family, params, (options or {}).get(family), X[tr], y[tr], names, lc, learner_seed
            )
            rows += learner
            effect_rows += effects
        if rc is not None:
            pop = simulate(dgp, n=int(rc["population_rows"]), p=p, noise_sd=noise_sd, random_state=pop_seed)
            data = SimpleNamespace(
                X_train=X[tr],
                y_train=y[tr],
                X_test=X[te],
                y_test=y[te],
                features=names,
                feature_groups=None,
                dataset=None,
            )
            population = (pop[names].to_numpy(), pop["y"].to_numpy())
            rows += _mcr_rows(r, data, folds_from_split(split), rc, options, model_seed, population, pop_seed)
    return r, rows, effect_rows


# ----------------------------------------------------------------------------- public API


class CoverageTables(NamedTuple):
    """The tables of the ``coverage_audit`` rule (:func:`coverage_audit`); a named pair, so that
    ``repetitions, coverage = coverage_audit(...)`` unpacks it."""

    repetitions: pd.DataFrame
    coverage: pd.DataFrame

    def to_frames(self) -> dict[str, pd.DataFrame]:
        """The tables by the rule's output names (``repetitions``, ``coverage``)."""
        return {"repetitions": self.repetitions, "coverage": self.coverage}


def coverage_audit(settings: CoverageSettings, *, n_jobs: int = 1) -> CoverageTables:
    """Empirical coverage of learner-PD / learner-PFI intervals and of MCR on fresh simulated data.

    See the module docstring for the design, the targets and the Monte-Carlo
    error.

    Parameters
    ----------
    settings : CoverageSettings
        :meth:`xaipipe.config.CoverageSettings.from_config` (config section ``coverage``, with
        the pipeline's learner design and ε rule where it leaves them null). Its fields:

        dgp : str
            A DGP of :data:`xaipipe.data.simulated.DGPS` with closed-form truth.
        n : int >= 20
            Rows per repetition (split ``1 - test_size`` / ``test_size``).
        p : int
            Inputs (``x1 .. xp``).
        noise_sd : float > 0
        n_repetitions : int >= 2
            ``R``.
        test_size : float
        cv_folds : int
            Folds of the model class's CV (b).
        learners : mapping family -> params or None
            Learners of (a), each one fixed configuration; None: :data:`DEFAULT_LEARNERS`.
            ``{}`` skips (a).
        learner_config : mapping or None
            Overrides of :data:`DEFAULT_LEARNER_CONFIG`: ``n_refits`` (K),
            ``fraction``, ``pfi_estimator``, ``n_repeats`` (as ``explain.learner``),
            ``pd_features`` (variables with a learner-PD), ``grid`` (PD grid, input
            units, shared by all repetitions), ``truth_fits`` and ``truth_eval_rows``
            (the learner's expected value, module docstring). ``None`` values keep
            the default.
        rashomon_config : mapping, None or False
            Overrides of :data:`DEFAULT_RASHOMON_CONFIG`: ``families`` (family -> CV
            grid: the model class), ``epsilon_mode`` and ``epsilons`` (the ε rule),
            ``scopes`` (``family``, ``cross_family``, ``linear_exact``),
            ``estimator`` and ``n_repeats`` (member MR on the test split),
            ``population_rows``. ``False`` skips (b).
        options : mapping family -> mapping or None
            Fixed estimator options (``estimator_options``).
        nominal : sequence of float in (0, 1)
            Levels of :func:`coverage_table`.
        random_state : int >= 0
            ``seed``.
    n_jobs : int, default 1
        Worker processes over repetitions (and over the learner-truth fits);
        the tables do not depend on it.

    Returns
    -------
    CoverageTables
        ``(repetitions, coverage)``:

    repetitions : DataFrame
        :data:`REPETITION_COLUMNS`, one row per repetition x interval: learner
        rows (``quantity`` ``learner_pd`` / ``learner_mr_ratio`` /
        ``learner_mr_difference``; ``estimate`` = learner mean over the K refits,
        ``se`` corrected and ``se_naive``, ``df = K - 1``; ``truth`` = f*'s value,
        ``truth_learner`` and ``truth_learner_se`` the learner's expected value) and
        MCR rows (``mcr_ratio`` / ``mcr_difference``; ``estimate`` = the reference
        model's MR, ``ci_low`` / ``ci_high`` = MCR-/MCR+ on the test split,
        ``population_low`` / ``population_high`` the members' MR on the fresh
        sample, ``n_members``; ``truth`` = MR(f*)). ``active`` says whether f*
        depends on the variable.
    coverage : DataFrame
        :func:`coverage_table` of ``repetitions`` at ``nominal``, with ``n``.

    Raises
    ------
    ValueError
        Unknown DGP or configuration keys, a DGP without closed-form truth, bad
        sizes, a PD feature that is not an input.
    """
    from joblib import Parallel, delayed

    from ..data.simulated import feature_names, get_dgp
    from ..validation import check_fraction
    from .simulation import model_reliance_truth, partial_dependence_truth

    dgp, n, p, noise_sd, n_repetitions = settings.dgp, settings.n, settings.p, settings.noise_sd, settings.n_repetitions
    test_size, cv_folds, learners = settings.test_size, settings.cv_folds, settings.learners
    learner_config, rashomon_config, options = settings.learner_config, settings.rashomon_config, settings.options
    nominal, random_state = settings.nominal, settings.random_state
    model = get_dgp(dgp)
    n = _positive_int(n, "n", 20)
    p = model.check_p(p)
    R = _positive_int(n_repetitions, "n_repetitions", 2)
    test_size = check_fraction(test_size, "test_size", high_open=True)
    cv_folds = _positive_int(cv_folds, "cv_folds", 2)
    if not isinstance(noise_sd, numbers.Real) or not np.isfinite(noise_sd) or noise_sd <= 0:
        raise ValueError(f"noise_sd must be > 0, got {noise_sd!r}")
    if not isinstance(random_state, (numbers.Integral, np.integer)) or random_state < 0:
        raise ValueError(f"random_state must be a non-negative integer, got {random_state!r}")
    learners = {str(k): dict(v or {}) for k, v in (DEFAULT_LEARNERS if learners is None else learners).items()}
    lc = _merge(DEFAULT_LEARNER_CONFIG, learner_config, "learner_config")
    rc = None if rashomon_config is False else _merge(DEFAULT_RASHOMON_CONFIG, rashomon_config or {}, "rashomon_config")
    names = feature_names(p)
    bad = [f for f in lc["pd_features"] if f not in names]
    if bad:
        raise ValueError(
            f"learner_config pd_features {bad} are not inputs of a DGP with p={p} ({names[0]}..{names[-1]})"
        )
    n_jobs = int(n_jobs)

    n_train, _ = _split_sizes(n, test_size, cv_folds)
    n1 = round(float(lc["fraction"]) * n_train)
    truth_root, reps_root = np.random.SeedSequence(int(random_state)).spawn(2)

    # truth: f* (closed form) and, per learner, its expected PD / PFI at training size n1
    pd_truth = (
        partial_dependence_truth(
            model, list(lc["pd_features"]), [float(z) for z in lc["grid"]], p=p, method="closed_form"
        )
        if lc["pd_features"]
        else pd.DataFrame()
    )
    mr_truth = model_reliance_truth(model, p=p, noise_sd=float(noise_sd), method="closed_form").set_index("feature")
    # the DGP, refit design and truth store that every learner's truth shares
    shared = dict(dgp=model, p=p, noise_sd=float(noise_sd), n1=n1, lc=lc, names=names, root=truth_root, n_jobs=n_jobs)
    learner_truth = (
        pd.concat(
            [_learner_truth(fam, prm, (options or {}).get(fam), **shared) for fam, prm in learners.items()],
            ignore_index=True,
        )
        if learners
        else pd.DataFrame(columns=["family", "quantity", "feature", "grid_value"])
    )

    seeds = [tuple(_ints(child, 5)) for child in reps_root.spawn(R)]
    log = logging.getLogger("xaipipe")
    log.info(
        "coverage audit: %s, n = %d (n_1 = %d per refit), R = %d, learners %s, model class %s",
        model.name,
        n,
        n1,
        R,
        list(learners),
        None if rc is None else list(rc["families"]),
    )
    out = []
    jobs = Parallel(n_jobs=n_jobs, backend="loky" if n_jobs != 1 else "sequential", return_as="generator")(
        delayed(_one_repetition)(
            r, seeds[r], model, n, p, float(noise_sd), test_size, cv_folds, learners, lc, rc, options
        )
        for r in range(R)
    )
    for r, part, effects in jobs:  # in repetition order
        out.append((r, part, effects))
        if (r + 1) % max(R // 10, 1) == 0 or r + 1 == R:
            log.info("repetition %d of %d done", r + 1, R)
    out = sorted(out, key=lambda t: t[0])
    # the learner-SHAP / ALE rows (issue 45) after every other row: those keep their places
    rows = [row for _, part, _ in out for row in part] + [row for _, _, effects in out for row in effects]
    reps = pd.DataFrame(rows)
    for col in REPETITION_COLUMNS:
        if col not in reps:
            reps[col] = np.nan
    reps["n"] = n
    reps["active"] = [names.index(f) < model.n_active for f in reps["feature"]]
    for col in ("family", "scope", "epsilon_mode"):
        reps[col] = reps[col].astype(object).where(reps[col].notna(), "")

    # attach the truths
    truth = np.full(len(reps), np.nan)
    is_pd = (reps["quantity"] == "learner_pd").to_numpy()
    if is_pd.any():
        lookup = {(f, float(z)): v for f, z, v in pd_truth[["feature", "grid_value", "pd"]].itertuples(index=False)}
        keys = reps.loc[is_pd, ["feature", "grid_value"]].itertuples(index=False)
        truth[is_pd] = [lookup[(f, float(z))] for f, z in keys]
    for q, col in (("ratio", "mr_ratio"), ("difference", "mr_difference")):
        sel = reps["quantity"].isin([f"learner_mr_{q}", f"mcr_{q}"]).to_numpy()
        truth[sel] = mr_truth.loc[reps.loc[sel, "feature"], col].to_numpy(dtype=float)
    reps["truth"] = attach_f_star(reps, truth, model, lc, p)  # learner-ALE: the ALE of f* (closed form)
    reps = reps.drop(columns=["truth_learner", "truth_learner_se"])
    reps["_g"] = reps["grid_value"].fillna(-999.0)
    lt = learner_truth.assign(_g=learner_truth["grid_value"].astype(float).fillna(-999.0)).drop(columns="grid_value")
    reps = reps.merge(lt, on=["family", "quantity", "feature", "_g"], how="left", validate="many_to_one")
    reps = reps.drop(columns="_g")[REPETITION_COLUMNS]
    return CoverageTables(reps, coverage_table(reps, nominal=nominal))
