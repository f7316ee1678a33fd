"""The coverage audit on a dataset's twin: the pipeline's own steps on R replicates, every interval
it prints beside the truth it claims to cover and the planted truth (issue 51, item 2).

A replicate is ``n`` i.i.d. draws from the twin (:mod:`xaipipe.studies.twin`; ``n`` = the table's
rows), split as the pipeline splits (:func:`xaipipe.data.split.make_split`), and on it:

``learner``
    Learner-PD / PFI / SHAP importance / ALE (Molnar et al. 2023;
    :func:`xaipipe.explain.learner.learner_pd_pfi`) of each learner family at the study's chosen
    configuration, on the training split: corrected and naive intervals. *Claimed*: the learner's
    expectation over training sets of :math:`n_1` rows (Monte Carlo over ``truth_fits`` fresh fits on
    the twin, :func:`learner_truth`); *planted*: :math:`f^*`'s PD, MR, SHAP importance, ALE.
``mr``
    Model reliance of the explained model (:math:`f^*`'s family at its chosen configuration, fitted
    on the training split) on the test split with the pipeline's estimators
    (:func:`xaipipe.explain.reliance.reliance_report`): ``estimate ± t_{R-1} se`` of ``permutation``
    (``se = sd / sqrt(R)`` over its ``R = n_repeats`` repeats) and ``estimate ± z se`` of ``e_divide``
    (the exact Monte-Carlo SE). *Claimed*: the estimator's
    expectation over its permutations given the model and the test rows, computed exactly from the
    all-pairs :math:`\\hat e_{switch}` of the same rows (``e_divide``: :math:`\\hat e_{switch}`;
    ``permutation``: :math:`\\hat e_{orig}/n + (1 - 1/n)\\hat e_{switch}`); *planted*: :math:`f^*`'s
    population MR.
``test_loss``
    The explained model's test loss with its bootstrap SE and percentile interval
    (:func:`xaipipe.models.comparison.loss_summary`). *Claimed*: that model's loss on the population
    (exact over the twin's rows; the expectation over the planted noise exact for the mean squared
    error, the log loss and the error rate, over the residual pool for the mean absolute error).
``mcr``
    :math:`[MCR^-, MCR^+]` of a small model class (``twins.mcr.families``, CV on the training split,
    the pipeline's ε rule; :func:`xaipipe.rashomon.study.rashomon_reliance`) and the exact linear MCR
    (regression). No claim (Fisher et al.'s empirical MCR estimates the class's population MCR and is
    no confidence interval); *planted*: :math:`f^*`'s MR.
``ebm``
    A regression twin's glass-box families (an EBM: the registry's ``Family.terms``) at their chosen
    configurations, fitted on the training split: the PD on the learner grids, ``intercept + f_j(z)``,
    with interpret's bagged error bar (:func:`xaipipe.explain.glassbox.ebm_pd_band`). No claim by its
    authors; measured against the EBM's expectation over training sets (the leave-one-out mean over
    the other replicates, :func:`xaipipe.studies.twin_table.twin_repetitions`) and :math:`f^*`'s PD.
``ols`` / ``logit``
    The classical OLS (regression) or Wald logit (binary) coefficient intervals
    (:func:`xaipipe.models.ols_inference`, :func:`xaipipe.models.logit_inference`) on the twin whose
    :math:`f^*` is that linear / logistic model: the sanity rows, which must hit their nominal level.

Seeds: ``SeedSequence([seed, 51])`` spawns the learner truth's fits and the replicates; replicate
``r`` is the same whatever ``n_repetitions``, ``n_shards`` or worker count, so shards of an
interrupted audit are recomputed bit for bit and an audit with ``R = 50`` is the first half of one
with ``R = 100``.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Mapping
from types import SimpleNamespace
from typing import Any

import numpy as np
import pandas as pd

from ..data.split import folds_from_split, make_split
from ..explain.glassbox import bagging_se_factor, ebm_pd_band
from ..explain.learner import RefitDesign, RefitEffects, estimator_factory, learner_pd_pfi
from ..explain.reliance import RelianceOptions, features_from_groups, model_reliance, reliance_report
from ..models.boosting import fit_estimator
from ..models.comparison import loss_summary
from ..models.cv import cross_validate_grid, summarize_cv
from ..models.families import make_estimator
from ..models.logit import logit_inference
from ..models.ols import ols_inference
from .twin import LinearTwin, Twin
from .twin_table import ONE_SD_LEVEL
from .twin_truth import TwinBundle, TwinDesign, _ints, _replicate_seed

__all__ = [
    "TWIN_REPETITION_COLUMNS",
    "replicate_rows",
    "audit_shard",
]

#: Columns of a shard's table (one row per replicate x interval); the truths are joined later.
TWIN_REPETITION_COLUMNS = [
    "dataset",
    "repetition",
    "kind",
    "quantity",
    "family",
    "estimator",
    "loss",
    "scope",
    "epsilon",
    "feature",
    "grid_value",
    "estimate",
    "se",
    "se_naive",
    "df",
    "ci_low",
    "ci_high",
    "level",
    "population_low",
    "population_high",
    "claimed",
    "planted",
    "n_members",
]

_log = logging.getLogger("xaipipe")


def _fit(family: str, task: str, params, options, seed: int, X, y):
    return fit_estimator(make_estimator(family, task, dict(params), random_state=seed, n_jobs=1, options=options), X, y)


def _learner_effects(twin: Twin, lc: Mapping[str, Any]) -> RefitEffects | None:
    effects = list(lc.get("effects") or [])
    if not effects:
        return None
    ale = "ale" in effects and bool(lc["ale_edges"])
    return RefitEffects(
        shap="shap" in effects,
        ale=ale,
        shap_max_rows=lc.get("shap_max_rows"),
        ale_features=tuple(lc["ale_edges"]) if ale else (),
        ale_edges={f: list(e) for f, e in lc["ale_edges"].items()} if ale else None,
    )


def _refit_design(twin: Twin, lc: Mapping[str, Any], seed: int, loss: str) -> RefitDesign:
    return RefitDesign(
        n_refits=int(lc["n_refits"]),
        fraction=float(lc["fraction"]),
        pfi_estimator=lc["pfi_estimator"],
        n_repeats=int(lc["n_repeats"]),
        random_state=seed,
        stratify=twin.task == "classification",
        grids={f: list(g) for f, g in lc["grids"].items()},
        pd_output="auto" if twin.task == "regression" else "proba",
        pd_class_index=int(lc.get("pd_class_index", 1)),
        loss=loss,
    )


# ----------------------------------------------------------------------------- truths


# ----------------------------------------------------------------------------- one replicate


def _row(r: int, kind: str, quantity: str, **values) -> dict:
    return {"repetition": r, "kind": kind, "quantity": quantity, **values}


def _learner_rows(r: int, twin: Twin, design: TwinDesign, Xtr, ytr, seed: int) -> list[dict]:
    lc = design.learner
    rows = []
    for family, params in design.learners.items():
        call = dict(
            feature_names=twin.features,
            features=features_from_groups(twin.features, twin.feature_groups),
            pd_features=list(lc["grids"]),
            pfi_features=twin.variables,
            n_jobs=1,
        )
        estimator = estimator_factory(family, twin.task, params, options=design.options_of(family))
        refits = _refit_design(twin, lc, seed, design.reliance["losses"][0])
        effects = _learner_effects(twin, lc)
        try:
            res = learner_pd_pfi(estimator, Xtr, ytr, refits, effects=effects, **call)
        except ValueError as err:  # a refit's held-out rows leave an ALE bin of the fixed edges empty
            if effects is None or not effects.ale or "empty" not in str(err):
                raise
            _log.info("twin %s, replicate %d: no learner-ALE (%s)", twin.dataset, r, err)
            effects = dataclasses.replace(effects, ale=False, ale_features=(), ale_edges=None)
            res = learner_pd_pfi(estimator, Xtr, ytr, refits, effects=effects if effects.shap else None, **call)
        common = {"family": family, "estimator": lc["pfi_estimator"], "loss": design.reliance["losses"][0]}
        for quantity, table, grid in (("pd", res.pd, True), ("shap", res.shap, False), ("ale", res.ale, True)):
            for rec in table.to_dict("records"):
                rows.append(
                    _row(
                        r,
                        "learner",
                        quantity,
                        **common,
                        feature=rec["feature"],
                        grid_value=float(rec["grid_value"]) if grid else np.nan,
                        estimate=rec["mean"],
                        se=rec["se"],
                        se_naive=rec["se_naive"],
                        df=int(rec["n_refits"]) - 1,
                    )
                )
        for rec in res.pfi.to_dict("records"):
            for q in ("mr_ratio", "mr_difference"):
                rows.append(
                    _row(
                        r,
                        "learner",
                        q,
                        **common,
                        feature=rec["feature"],
                        estimate=rec[f"{q}_mean"],
                        se=rec[f"{q}_se"],
                        se_naive=rec[f"{q}_se_naive"],
                        df=int(rec["n_refits"]) - 1,
                    )
                )
    return rows


def _ebm_rows(r: int, twin: Twin, design: TwinDesign, Xtr, ytr, seed: int) -> list[dict]:
    """The ``ebm`` kind: each glass-box family fitted to the replicate's training rows, its PD on the
    learner grids with its bagged error bar: ``se_naive`` the bags' SD, ``se`` that times
    :func:`~xaipipe.explain.glassbox.bagging_se_factor` (``estimate ± z se`` at every level, naive
    and corrected); ``ci_low`` / ``ci_high`` = ± 1 SD, interpret's own bar, at :data:`ONE_SD_LEVEL`."""
    rows = []
    for family, params in design.glassbox.items():
        model = _fit(family, twin.task, params, design.options_of(family), seed, Xtr, ytr)
        factor = bagging_se_factor(model, len(ytr))
        for feature, grid in design.learner["grids"].items():
            pd_, sd = ebm_pd_band(model, twin.features.index(feature), grid)
            for z, value, s in zip(grid, pd_, sd):
                rows.append(
                    _row(
                        r,
                        "ebm",
                        "pd",
                        family=family,
                        feature=feature,
                        grid_value=float(z),
                        estimate=float(value),
                        se=float(s * factor),
                        se_naive=float(s),
                        ci_low=float(value - s),
                        ci_high=float(value + s),
                        level=ONE_SD_LEVEL,
                    )
                )
    return rows


def _mr_rows(r: int, twin: Twin, design: TwinDesign, model, Xte, yte, seed: int) -> list[dict]:
    """The ``mr`` kind: the pipeline's MR table of ``model`` on the test rows, each estimate's claimed
    value from the exact all-pairs :math:`\\hat e_{switch}` of the same rows."""
    rc = design.reliance
    estimators = [e for e in rc["estimators"] if e in ("permutation", "e_divide")]
    table = reliance_report(
        model,
        Xte,
        yte,
        feature_names=twin.features,
        feature_groups=twin.variable_groups,
        estimators=estimators,
        losses=rc["losses"],
        n_repeats=int(rc["n_repeats"]),
        e_switch_max_rows=rc["e_switch_max_rows"],
        random_state=seed,
    )
    n = len(yte)
    rows = []
    for loss in rc["losses"]:
        exact = model_reliance(
            model, Xte, yte, features=twin.variables, estimator="e_switch", loss=loss, options=RelianceOptions()
        ).to_frame()
        e_orig = exact["e_orig"].to_numpy(dtype=float)
        e_sw = exact["e_switch"].to_numpy(dtype=float)
        claimed = {
            "e_divide": {"mr_difference": e_sw - e_orig, "mr_ratio": e_sw / e_orig},
            "permutation": {
                "mr_difference": (1 - 1 / n) * (e_sw - e_orig),
                "mr_ratio": (e_orig / n + (1 - 1 / n) * e_sw) / e_orig,
            },
        }
        names = list(exact["feature"])
        for est in estimators:
            part = table[(table["loss"] == loss) & (table["estimator"] == est)].set_index("feature").loc[names]
            for q in ("mr_ratio", "mr_difference"):
                for i, f in enumerate(names):
                    rows.append(
                        _row(
                            r,
                            "mr",
                            q,
                            family=design.model[0],
                            estimator=est,
                            loss=loss,
                            feature=f,
                            estimate=float(part[q].iloc[i]),
                            se=float(part[f"{q}_se"].iloc[i]),
                            # permutation: sd / sqrt(R) over R repeats, Student's t_{R-1} (issue 51,
                            # item 4: z gave 0.90-0.94 at nominal 0.95 with R = 20); e_divide: normal
                            df=float(rc["n_repeats"]) - 1 if est == "permutation" else np.inf,
                            claimed=float(claimed[est][q][i]),
                        )
                    )
    return rows


def _population_loss(twin: Twin, model, loss: str) -> float:
    """The fitted ``model``'s expected loss on the twin's population (exact over rows and noise)."""
    m = twin.mean(twin.X)
    if twin.task == "regression":
        d = m - np.asarray(model.predict(twin.X), dtype=float)
        if loss == "mse":
            return float(np.mean(d**2) + twin.noise_variance)
        if loss == "mae":
            if isinstance(twin.noise, float):
                from scipy.stats import norm

                s = twin.noise
                return float(
                    np.mean(s * np.sqrt(2 / np.pi) * np.exp(-(d**2) / (2 * s**2)) + d * (1 - 2 * norm.cdf(-d / s)))
                )
            pool = np.asarray(twin.noise)
            pool = pool if pool.size <= 2000 else pool[np.linspace(0, pool.size - 1, 2000).astype(int)]
            return float(np.mean([np.abs(d + e).mean() for e in pool]))
        raise ValueError(f"no population value of the test loss {loss!r}")
    q = np.asarray(model.predict_proba(twin.X), dtype=float)
    if loss == "log_loss":
        eps = float(np.finfo(np.float64).eps)
        return float(np.mean(-(m * np.log(np.clip(q, eps, 1 - eps))).sum(axis=1)))
    if loss == "error_rate":
        return float(np.mean(1 - np.take_along_axis(m, np.argmax(q, axis=1)[:, None], axis=1)[:, 0]))
    raise ValueError(f"no population value of the test loss {loss!r}")


def _test_loss_rows(r: int, twin: Twin, design: TwinDesign, model, Xte, yte, seed: int) -> list[dict]:
    if twin.task == "regression":
        preds = pd.DataFrame({"row": np.arange(len(yte)), "y_true": yte, "y_pred": model.predict(Xte)})
    else:
        proba = model.predict_proba(Xte)
        preds = pd.DataFrame({"row": np.arange(len(yte)), "y_true": yte, "y_pred": np.argmax(proba, axis=1)})
        for k in range(proba.shape[1]):
            preds[f"proba_{k}"] = proba[:, k]
    cmp = design.comparison
    table = loss_summary(
        preds.assign(family=design.model[0]),
        n_bootstrap=int(cmp["n_bootstrap"]),
        confidence=float(cmp["confidence"]),
        random_state=seed,
    )
    rows = []
    for rec in table.to_dict("records"):
        rows.append(
            _row(
                r,
                "test_loss",
                "test_loss",
                family=design.model[0],
                loss=rec["loss"],
                feature="",
                estimate=rec["mean"],
                se=rec["se_bootstrap"],
                df=np.inf,
                ci_low=rec["ci_low"],
                ci_high=rec["ci_high"],
                level=float(cmp["confidence"]),
                claimed=_population_loss(twin, model, rec["loss"]),
            )
        )
    return rows


def _mcr_rows(r: int, twin: Twin, design: TwinDesign, data, folds, seed: int, pop_seed: int) -> list[dict]:
    """The ``mcr`` kind: :func:`xaipipe.studies.coverage`'s MCR step on the replicate, any task."""
    from ..config.rashomon import RashomonSettings
    from ..rashomon.linear import LINEAR_EXACT, linear_exact_scope
    from ..rashomon.mcr import mcr_table
    from ..rashomon.members import member_table, members_reliance
    from ..rashomon.sets import CROSS_FAMILY, check_epsilons, rashomon_scopes
    from ..rashomon.study import rashomon_reliance

    mc = design.mcr
    task, loss = twin.task, design.reliance["losses"][0]
    eps = check_epsilons(mc["epsilons"])
    scopes = [s for s in mc["scopes"] if s != LINEAR_EXACT]
    rows = []
    if scopes:
        summary = pd.concat(
            [
                summarize_cv(
                    cross_validate_grid(
                        fam,
                        task,
                        grid,
                        data.X_train,
                        data.y_train,
                        folds,
                        random_state=seed,
                        options=design.options_of(fam),
                    ),
                    task,
                )
                for fam, grid in mc["families"].items()
            ],
            ignore_index=True,
        )
        settings = RashomonSettings(
            task=task,
            metric=mc["metric"],
            seed=seed,
            options=dict(design.options or {}),
            loss=loss,
            epsilon_mode=mc["epsilon_mode"],
            epsilon=eps[-1],
            epsilons=tuple(eps),
            scopes=tuple(scopes),
            estimators=(mc["estimator"],),
            n_repeats=int(mc["n_repeats"]),
            e_switch_max_rows=400,
            figure_scope=CROSS_FAMILY,
        )
        _, mcr, groups = rashomon_reliance(data, settings, summary, n_jobs=1)
        sets = rashomon_scopes(summary, metric=mc["metric"], epsilon=eps[-1], mode=mc["epsilon_mode"], scopes=scopes)
        X_pop, y_pop = twin.sample(np.random.default_rng(pop_seed), int(mc["population_rows"]))
        rel_pop = members_reliance(
            groups,
            X_pop,
            y_pop,
            features=twin.variables,
            feature_names=twin.features,
            estimators=("permutation",),
            loss=loss,
            n_repeats=1,
            random_state=pop_seed,
            n_jobs=1,
        )
        pop = mcr_table(member_table(sets, rel_pop, epsilons=eps), sets, epsilons=eps)
        pop = pop.set_index(["scope", "epsilon", "feature", "quantity"])[["mcr_minus", "mcr_plus"]]
        for rec in mcr.to_dict("records"):
            key = (rec["scope"], rec["epsilon"], rec["feature"], rec["quantity"])
            rows.append(_mcr_row(r, rec, loss, (float(pop.loc[key, "mcr_minus"]), float(pop.loc[key, "mcr_plus"]))))
    if LINEAR_EXACT in mc["scopes"] and task == "regression":
        lin, _, _ = linear_exact_scope(
            data.X_train,
            data.y_train,
            data.X_test,
            data.y_test,
            epsilons=eps,
            epsilon_mode=mc["epsilon_mode"],
            feature_names=twin.features,
            feature_groups=twin.variable_groups or None,
            path_points=2,
        )
        for rec in lin.to_dict("records"):
            rows.append(_mcr_row(r, {**rec, "scope": LINEAR_EXACT}, loss, (np.nan, np.nan)))
    return rows


def _mcr_row(r: int, rec: Mapping[str, Any], loss: str, population) -> dict:
    return _row(
        r,
        "mcr",
        {"mr_ratio": "mcr_ratio", "mr_difference": "mcr_difference"}[rec["quantity"]],
        loss=loss,
        scope=rec["scope"],
        epsilon=float(rec["epsilon"]),
        feature=rec["feature"],
        estimate=float(rec["mr_reference"]),
        ci_low=float(rec["mcr_minus"]),
        ci_high=float(rec["mcr_plus"]),
        population_low=population[0],
        population_high=population[1],
        n_members=rec.get("n_members", np.nan),
    )


# ----------------------------------------------------------------------------- sanity: a linear twin


def _sanity_rows(r: int, sanity: LinearTwin, design: TwinDesign, seed: int) -> list[dict]:
    twin = sanity.twin
    X, y = twin.sample(np.random.default_rng(seed), design.n)
    rows = []
    if twin.task == "regression":
        table = ols_inference(X, y, twin.features, feature_groups=twin.feature_groups or None)
        for rec in table.to_dict("records"):
            if not np.isfinite(rec["coefficient"]):
                continue
            rows.append(
                _row(
                    r,
                    "ols",
                    "coefficient",
                    family="linear_regression",
                    feature=rec["term"],
                    estimate=rec["coefficient"],
                    se=rec["std_error"],
                    df=rec["df_resid"],
                    ci_low=rec["ci_low"],
                    ci_high=rec["ci_high"],
                    level=0.95,
                    claimed=sanity.beta.get(rec["term"], np.nan),
                )
            )
        return rows
    table = logit_inference(X, y, twin.features, feature_groups=twin.feature_groups or None)
    for rec in table.to_dict("records"):
        if rec["term"] == "const" or not bool(rec.get("identified", False)) or not np.isfinite(rec["coefficient"]):
            continue
        scale = 1.0 if rec["term"] in {m for g in twin.feature_groups.values() for m in g} else float(rec["sd"])
        rows.append(
            _row(
                r,
                "logit",
                "coefficient",
                family="logistic_regression",
                feature=rec["term"],
                estimate=rec["coefficient"],
                se=rec["std_error"],
                df=np.inf,
                ci_low=rec["ci_low"],
                ci_high=rec["ci_high"],
                level=0.95,
                claimed=sanity.beta[rec["term"]] * scale,
            )
        )
    return rows


# ----------------------------------------------------------------------------- the audit


def replicate_rows(twin: Twin, design: TwinDesign, r: int, sanity: LinearTwin | None = None) -> list[dict]:
    """Every interval of replicate ``r`` (rows of :data:`TWIN_REPETITION_COLUMNS` but the truths
    joined by :func:`xaipipe.studies.twin_table.twin_repetitions`)."""
    from threadpoolctl import threadpool_limits

    data_seed, split_seed, learner_seed, model_seed, pop_seed, sanity_seed = _ints(_replicate_seed(design, r), 6)
    with threadpool_limits(limits=1):
        X, y = twin.sample(np.random.default_rng(data_seed), design.n)
        split = make_split(y, twin.task, test_size=design.test_size, n_folds=design.cv_folds, random_state=split_seed)
        tr, te = np.asarray(split["train"]), np.asarray(split["test"])
        rows = _learner_rows(r, twin, design, X[tr], y[tr], learner_seed) if design.learners else []
        rows += _ebm_rows(r, twin, design, X[tr], y[tr], learner_seed) if design.glassbox else []
        family, params = design.model
        model = _fit(family, twin.task, params, design.options_of(family), model_seed, X[tr], y[tr])
        rows += _mr_rows(r, twin, design, model, X[te], y[te], model_seed)
        rows += _test_loss_rows(r, twin, design, model, X[te], y[te], model_seed)
        if design.mcr is not None:
            data = SimpleNamespace(
                X_train=X[tr],
                y_train=y[tr],
                X_test=X[te],
                y_test=y[te],
                features=twin.features,
                feature_groups=twin.feature_groups,
                user_groups={k: v for k, v in twin.variable_groups.items() if k not in twin.feature_groups},
                dataset=twin.dataset,
                classes=twin.classes,
                task=twin.task,
            )
            rows += _mcr_rows(r, twin, design, data, folds_from_split(split), model_seed, pop_seed)
        if sanity is not None:
            rows += _sanity_rows(r, sanity, design, sanity_seed)
    for row in rows:
        row["dataset"] = twin.dataset
    return rows


def audit_shard(bundle: TwinBundle, shard: int, n_shards: int, *, n_jobs: int = 1) -> pd.DataFrame:
    """The replicates ``shard, shard + n_shards, ...`` below ``n_repetitions``: one shard job's table.

    Parameters
    ----------
    bundle : TwinBundle
        :func:`xaipipe.studies.twin_truth.prepare_twin` (``twin.joblib``).
    shard, n_shards : int
        This job's shard and the audit's shards (``twins.n_shards``).
    n_jobs : int, default 1
        Worker processes over replicates; the table does not depend on it.

    Returns
    -------
    DataFrame
        :data:`TWIN_REPETITION_COLUMNS`, in replicate order; the same bytes whatever ``n_jobs``.
    """
    from joblib import Parallel, delayed

    twin, design, sanity = bundle.twin, bundle.design, bundle.sanity
    reps = list(range(int(shard), int(design.n_repetitions), int(n_shards)))
    out = Parallel(n_jobs=n_jobs, backend="loky" if n_jobs != 1 else "sequential")(
        delayed(replicate_rows)(twin, design, r, sanity) for r in reps
    )
    table = pd.DataFrame([row for part in out for row in part])
    for col in TWIN_REPETITION_COLUMNS:
        if col not in table:
            table[col] = np.nan
    for col in ("family", "estimator", "loss", "scope", "feature"):
        table[col] = table[col].astype(object).where(table[col].notna(), "")
    _log.info(
        "twin %s: shard %d of %d, %d replicates, %d intervals", twin.dataset, shard, n_shards, len(reps), len(table)
    )
    return table[TWIN_REPETITION_COLUMNS]


# ----------------------------------------------------------------------------- the twin rule
