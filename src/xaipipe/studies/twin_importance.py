"""SAGE and Friedman's H² on the twins: their standard errors against the estimands they claim and
against :math:`f^*`'s value (issue 51, items 1-2; docs/coverage.md, "SAGE and H²").

The study prints two more standard errors than :mod:`xaipipe.studies.twin_audit` audits, each with
its own estimand:

``sage`` (``explain/<d>/<f>/sage.csv``, ``sage_se``)
    The permutation sampler's Monte-Carlo SE (:func:`xaipipe.explain.sage.sage_importance`) *given*
    the fitted model, the test rows and the background sample. *Claimed*: the exact SAGE values of
    that model on those rows and that background (Covert et al. 2020, eq. 4 and its Shapley value),
    computed by enumerating the :math:`2^d` coalitions (:func:`exact_sage`, when
    :math:`2^d \\cdot n \\cdot m` model rows are at most ``exact_max_evaluations``) or by the same
    sampler run ``truth_factor`` times longer (its SE the truth's ``claimed_se``). *Planted*:
    :math:`f^*`'s SAGE on the twin's population (``truth_rows`` population rows, a background of
    ``truth_background`` population rows; regression with :math:`y = f^*(x)`, exact for the squared
    error because the planted noise's variance cancels in every difference of the game;
    classification with labels drawn from :math:`p^*`).
``h2`` (``explain/<d>/<f>/h_statistic.csv``, ``h2_se``, ``h2_unnormalised_se``)
    The bootstrap SE over the rows of the H² subsample (:func:`xaipipe.explain.pdp.h_statistic`).
    *Claimed*: the fitted model's H² on the population: on all the twin's ``N`` rows where ``N <=
    truth_rows`` (exact: the population is those rows), else on one seeded sample of ``truth_rows``
    rows for every replicate, its bootstrap SE over ``truth_bootstrap`` resamples the truth's SE;
    *planted*: :math:`f^*`'s H² on the same rows. Audited: the total H² of the top
    ``explain.interactions.top_k`` variables by :math:`f^*`'s MR and the pairwise H² of their pairs
    (the study's own choice of pairs, by the fitted model's MR, varies between replicates). An
    additive explained model (a linear regression) has H² = 0 up to rounding: no ``h2`` rows.

A replicate refits the explained model exactly as :func:`xaipipe.studies.twin_audit.replicate_rows`
does (same data, split and model seeds), so its SAGE and H² belong to the model whose MR the audit
checks. Rules ``twin_importance_truth`` (one job per twin) and ``twin_importance_shard`` (shards as
``twin_shard``); the coverage rule joins their rows to the others.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from itertools import combinations
from math import factorial
from types import SimpleNamespace

import numpy as np
import pandas as pd

from ..config.twins import TwinImportanceSettings
from ..data.split import make_split
from ..explain.classes import class_choice
from ..explain.pdp import h_statistic, h_statistic_table
from ..explain.reliance import features_from_groups
from ..explain.sage import sage_importance, sage_inputs, sage_table
from ..losses import resolve_loss
from ..models.output import _is_classifier, model_output
from .twin import Twin
from .twin_audit import TWIN_REPETITION_COLUMNS, _fit
from .twin_truth import TwinBundle, TwinDesign, _ints, _replicate_seed

__all__ = [
    "IMPORTANCE_COLUMNS",
    "IMPORTANCE_TRUTH_COLUMNS",
    "exact_sage",
    "importance_shard",
    "importance_truth",
]

#: Columns of a shard (the audit's columns and the claimed truth's own Monte-Carlo SE).
IMPORTANCE_COLUMNS = [*TWIN_REPETITION_COLUMNS, "claimed_se"]
#: Columns of the planted truths (as :func:`xaipipe.studies.twin_truth.f_star_truth`).
IMPORTANCE_TRUTH_COLUMNS = ["quantity", "loss", "feature", "grid_value", "planted", "planted_se", "method"]
#: H² quantities: (quantity, the table's kind, its value column).
_H2 = (
    ("h2_total", "total", "h2"),
    ("h2_pairwise", "pairwise", "h2"),
    ("h2_unnormalised_total", "total", "h2_unnormalised"),
    ("h2_unnormalised_pairwise", "pairwise", "h2_unnormalised"),
)

#: H² at most this in both the estimate and its truth is rounding of an additive model (a linear
#: regression's H² is 0 up to ~1e-30): such rows carry no interval to audit and are left out.
_ROUNDING = 1e-12

_log = logging.getLogger("xaipipe")


def exact_sage(
    model,
    X: np.ndarray,
    y: np.ndarray,
    background: np.ndarray,
    *,
    loss: str,
    feature_names: Sequence[str],
    feature_groups: Mapping[str, Sequence[str]] | None = None,
) -> np.ndarray:
    """Marginal SAGE values computed exactly: every coalition of the variables.

    Covert, Lundberg & Lee (2020), §3-4: :math:`v(S) = \\frac1n\\sum_i \\ell(f_\\varnothing, y_i) -
    \\frac1n\\sum_i \\ell(f_S(x_{i,S}), y_i)` with :math:`f_S(x_S) = \\frac1m\\sum_b f(x_S, b_{\\bar
    S})` over the background rows, and :math:`\\phi_j = \\sum_{S \\not\\ni j} \\frac{|S|!(d-|S|-1)!}{d!}
    [v(S \\cup j) - v(S)]`: the expectation of the permutation sampler of
    :func:`xaipipe.explain.sage.sage_importance` on the same inputs (which draws the rows uniformly
    and the orders uniformly), without its sampling error.

    Parameters
    ----------
    model : fitted estimator
        Regressor (``predict``) or classifier (``predict_proba``).
    X : ndarray of shape (n, p)
    y : ndarray of shape (n,)
    background : ndarray of shape (m, p)
    loss : str
        A per-sample loss of :mod:`xaipipe.losses`.
    feature_names : sequence of str, length p
    feature_groups : mapping, optional
        Groups played as one variable (:func:`xaipipe.explain.reliance.features_from_groups`).

    Returns
    -------
    ndarray of shape (d,)
        SAGE values in loss units, one per variable in the order of ``features_from_groups``.

    Notes
    -----
    Costs :math:`2^d n m` model rows (one call of ``n m`` rows per coalition); use it for
    :math:`d \\lesssim 12`.
    """
    X = np.asarray(X, dtype=np.float64)
    background = np.asarray(background, dtype=np.float64)
    spec = features_from_groups(list(map(str, feature_names)), feature_groups)
    players = [np.asarray(c, dtype=int) for c in spec.values()]
    d, (n, p), m = len(players), X.shape, len(background)
    predict = model_output(model, "predict_proba" if _is_classifier(model) else "predict")
    _, fn = resolve_loss(loss)
    mean_loss = np.empty(2**d)
    for mask in range(2**d):
        cols = [c for j in range(d) if mask >> j & 1 for c in players[j]]
        Z = np.broadcast_to(background, (n, m, p)).copy()
        Z[:, :, cols] = X[:, np.newaxis, cols]
        pred = np.asarray(predict(Z.reshape(n * m, p)), dtype=np.float64)
        pred = pred.reshape(n, m, *pred.shape[1:]).mean(axis=1)
        mean_loss[mask] = float(np.mean(fn(np.asarray(y), pred[np.newaxis])[0]))
    weights = [factorial(k) * factorial(d - k - 1) / factorial(d) for k in range(d)]
    phi = np.zeros(d)
    for mask in range(2**d):
        size = bin(mask).count("1")
        for j in range(d):
            if not mask >> j & 1:
                phi[j] += weights[size] * (mean_loss[mask] - mean_loss[mask | 1 << j])
    return phi


def _sage_truth(model, X, y, background, loss, twin: Twin, s: TwinImportanceSettings, seed: int, sage):
    """(values, SE, method) of a SAGE truth: exact where cheap, else the sampler ``truth_factor`` longer."""
    d = len(features_from_groups(list(twin.features), twin.variable_groups))
    if 2**d * len(X) * len(background) <= s.exact_max_evaluations:
        values = exact_sage(
            model, X, y, background, loss=loss, feature_names=twin.features, feature_groups=twin.variable_groups
        )
        return values, np.zeros_like(values), "exact"
    res = sage_importance(
        model,
        X,
        y,
        background,
        loss=loss,
        feature_names=twin.features,
        feature_groups=twin.variable_groups,
        threshold=sage.threshold / np.sqrt(s.truth_factor),
        batch_size=sage.batch_size,
        max_permutations=sage.max_permutations * s.truth_factor,
        random_state=seed,
    )
    return res.values, res.se, "monte_carlo"


def _truth_rows(twin: Twin, s: TwinImportanceSettings, design: TwinDesign) -> np.ndarray:
    """The population rows of the H² truths and the planted SAGE (one seeded sample per twin)."""
    rng = np.random.default_rng(np.random.SeedSequence([int(design.seed), 51, 3]))
    N = twin.n_rows
    return np.arange(N) if N <= s.truth_rows else np.sort(rng.choice(N, s.truth_rows, replace=False))


def _audited(twin: Twin, design: TwinDesign, f_star: pd.DataFrame, top_k: int) -> list[str]:
    """The top ``top_k`` variables by f*'s population MR difference (the task's first loss) that H²
    explains alone (numeric columns and one-hot groups: a user group has no PD)."""
    loss = design.reliance["losses"][0]
    mr = f_star[(f_star["quantity"] == "mr_difference") & (f_star["loss"] == loss)]
    explainable = set(features_from_groups(list(twin.features), twin.feature_groups))
    ranked = [f for f in mr.sort_values("planted", ascending=False, kind="stable")["feature"] if f in explainable]
    return ranked[:top_k]


def _h2_settings(s: TwinImportanceSettings, design: TwinDesign):
    import dataclasses

    return dataclasses.replace(s.h2, family=design.model[0])


def importance_truth(bundle: TwinBundle, f_star: pd.DataFrame, settings: TwinImportanceSettings) -> pd.DataFrame:
    """The ``twin_importance_truth`` rule: :math:`f^*`'s SAGE and H² on the twin's population.

    Parameters
    ----------
    bundle : TwinBundle
        ``twin.joblib``.
    f_star : DataFrame
        The twin's planted truths (``truth.csv``, :func:`xaipipe.studies.twin_truth.f_star_truth`):
        the MR ranking that chooses H²'s variables.
    settings : TwinImportanceSettings

    Returns
    -------
    DataFrame
        :data:`IMPORTANCE_TRUTH_COLUMNS`: ``sage`` per variable, the four H² quantities per audited
        variable or pair (``feature`` ``a:b``); ``method`` ``exact`` or ``monte_carlo``.
    """
    twin, design, s = bundle.twin, bundle.design, settings
    seed = _ints(np.random.SeedSequence([int(design.seed), 51, 4]), 2)
    rows = []
    idx = _truth_rows(twin, s, design)
    if s.sage_enabled:
        rng = np.random.default_rng(seed[0])
        bg = twin.X[np.sort(rng.choice(twin.n_rows, min(s.truth_background, twin.n_rows), replace=False))]
        X = twin.X[idx]
        if twin.task == "regression":
            y = twin.mean(X)
        else:  # labels drawn from p*, label_copies per row
            X = np.repeat(X, s.label_copies, axis=0)
            p = twin.mean(X)
            y = (rng.random(len(X))[:, None] > np.cumsum(p, axis=1)).sum(axis=1).clip(max=p.shape[1] - 1)
        loss = s.sage.loss(twin.task)
        values, se, method = _sage_truth(twin.f_star, X, y, bg, loss, twin, s, seed[1], s.sage)
        names = list(features_from_groups(list(twin.features), twin.variable_groups))
        for f, v, e in zip(names, values, se):
            rows.append({"quantity": "sage", "loss": "", "feature": f, "planted": v, "planted_se": e, "method": method})
    if s.h2_enabled:
        top = _audited(twin, design, f_star, s.h2.top_k)
        h2 = _h2_settings(s, design)
        res = _h2_on(twin.f_star, twin, twin.X[idx], top, h2, s.truth_bootstrap, seed[1])
        for q, v, e in res:
            rows.append({**q, "planted": v, "planted_se": e, "method": "exact" if e == 0 else "bootstrap"})
    out = pd.DataFrame(rows, columns=IMPORTANCE_TRUTH_COLUMNS)
    out["grid_value"] = np.nan
    return out


def _h2_on(model, twin: Twin, X, top: Sequence[str], h2, n_bootstrap: int, seed: int):
    """[(keys, value, SE)] of H² of ``model`` on every row of ``X``: totals of ``top``, their pairs."""
    class_index = class_choice(twin.classes, h2.figure_class).get("class_index", 1)
    res = h_statistic(
        model,
        X,
        features=list(top),
        pairs=list(combinations(top, 2)),
        feature_names=twin.features,
        feature_groups=twin.feature_groups,
        output=h2.output,
        class_index=class_index,
        n_rows=None,
        n_bootstrap=n_bootstrap,
        random_state=seed,
        max_batch_rows=h2.max_batch_rows,
    )
    t = res.to_frame()
    exact = len(X) == twin.n_rows  # every row of the population: the population's value, no error
    out = []
    for q, kind, col in _H2:
        for f, v, e in t.loc[t["kind"] == kind, ["feature", col, f"{col}_se"]].itertuples(index=False):
            out.append(({"quantity": q, "loss": "", "feature": f}, float(v), 0.0 if exact else float(e)))
    return out


def _importance_rows(twin: Twin, design: TwinDesign, s: TwinImportanceSettings, top, idx, r: int) -> list[dict]:
    data_seed, split_seed, _, model_seed, _, _ = _ints(_replicate_seed(design, r), 6)
    truth_seed = _ints(np.random.SeedSequence([int(design.seed), 51, 5, int(r)]), 1)[0]
    X, y = twin.sample(np.random.default_rng(data_seed), design.n)
    split = make_split(y, twin.task, test_size=design.test_size, n_folds=design.cv_folds, random_state=split_seed)
    tr, te = np.asarray(split["train"]), np.asarray(split["test"])
    family, params = design.model
    model = _fit(family, twin.task, params, design.options_of(family), model_seed, X[tr], y[tr])
    data = SimpleNamespace(
        X_train=X[tr],
        y_train=y[tr],
        X_test=X[te],
        y_test=y[te],
        features=list(twin.features),
        feature_groups=twin.feature_groups,
        variable_groups=twin.variable_groups,
        classes=twin.classes,
        dataset=twin.dataset,
        task=twin.task,
    )
    base = {"repetition": r, "family": family, "level": np.nan}
    rows = []
    if s.sage_enabled:
        table = sage_table(model, data, s.sage, family=family)
        background, sel = sage_inputs(data, s.sage)
        loss = s.sage.loss(twin.task)
        values, se, _ = _sage_truth(
            model, data.X_test[sel], data.y_test[sel], background, loss, twin, s, truth_seed, s.sage
        )
        for (f, est, e), c, cse in zip(table[["feature", "sage", "sage_se"]].itertuples(index=False), values, se):
            rows.append(
                {**base, "kind": "sage", "quantity": "sage", "estimator": "permutation", "loss": loss, "feature": f}
                | {"estimate": est, "se": e, "claimed": c, "claimed_se": cse}
            )
    if s.h2_enabled:
        h2 = _h2_settings(s, design)
        table = h_statistic_table(model, data, h2, top=top)
        truth = {
            (q["quantity"], q["feature"]): (v, e)
            for q, v, e in _h2_on(model, twin, twin.X[idx], top, h2, s.truth_bootstrap, truth_seed)
        }
        # an additive model: H² (the normalised one, a share) is rounding, no interval to audit
        additive = {
            f
            for kind, f, est in table[["kind", "feature", "h2"]].itertuples(index=False)
            if (f"h2_{kind}", f) in truth and max(abs(est), abs(truth[(f"h2_{kind}", f)][0])) <= _ROUNDING
        }
        for q, kind, col in _H2:
            part = table[table["kind"] == kind]
            for f, est, e in part[["feature", col, f"{col}_se"]].itertuples(index=False):
                if (q, f) not in truth or f in additive:  # a variable outside the audited top
                    continue
                c, cse = truth[(q, f)]
                rows.append(
                    {**base, "kind": "h2", "quantity": q, "estimator": "bootstrap_rows", "loss": "", "feature": f}
                    | {"estimate": est, "se": e, "claimed": c, "claimed_se": cse}
                )
    return rows


def importance_shard(
    bundle: TwinBundle,
    truth: pd.DataFrame,
    settings: TwinImportanceSettings,
    shard: int,
    n_shards: int,
    *,
    n_jobs: int = 1,
) -> pd.DataFrame:
    """The ``twin_importance_shard`` rule: SAGE and H² of replicates ``shard, shard + n_shards, ...``.

    Parameters
    ----------
    bundle : TwinBundle
        ``twin.joblib``.
    truth : DataFrame
        :func:`importance_truth` (its H² rows name the audited variables and pairs).
    settings : TwinImportanceSettings
    shard, n_shards : int
    n_jobs : int, default 1
        Worker processes over replicates; the table does not depend on it.

    Returns
    -------
    DataFrame
        :data:`IMPORTANCE_COLUMNS` (kinds ``sage`` and ``h2``), in replicate order.
    """
    from joblib import Parallel, delayed
    from threadpoolctl import threadpool_limits

    twin, design = bundle.twin, bundle.design
    top_rows = truth[truth["quantity"] == "h2_total"]["feature"].astype(str)
    top = list(dict.fromkeys(top_rows))
    idx = _truth_rows(twin, settings, design)
    reps = list(range(int(shard), int(design.n_repetitions), int(n_shards)))

    def one(r):
        with threadpool_limits(limits=1):
            return _importance_rows(twin, design, settings, top, idx, r)

    out = Parallel(n_jobs=n_jobs, backend="loky" if n_jobs != 1 else "sequential")(delayed(one)(r) for r in reps)
    table = pd.DataFrame([row for part in out for row in part])
    for col in IMPORTANCE_COLUMNS:
        if col not in table:
            table[col] = np.nan
    table["dataset"] = twin.dataset
    for col in ("family", "estimator", "loss", "scope", "feature"):
        table[col] = table[col].astype(object).where(table[col].notna(), "")
    _log.info(
        "twin %s: importance shard %d of %d, %d replicates, %d intervals",
        twin.dataset,
        shard,
        n_shards,
        len(reps),
        len(table),
    )
    return table[IMPORTANCE_COLUMNS]
