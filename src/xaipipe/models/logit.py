"""Logistic-regression coefficient table: coefficients, Wald inference and odds ratios.

Seed 000 (§2, "Regresión logística") and seed 002 read a logistic model through
its odds: ``odds = P(y=1) / P(y=0) = exp(beta_0 + sum_j beta_j x_j)``, so
increasing ``x_j`` by one unit multiplies the odds by ``exp(beta_j)`` (the *odds
ratio*).  :func:`logit_inference` gives that table for the pipeline's
``logistic_regression`` family.

Scale
    The family is ``StandardScaler -> LogisticRegression``
    (:mod:`xaipipe.models.families`), so the table is computed on the same
    standardised training features ``z_j = (x_j - mean_j) / sd_j`` (training
    mean and *population* standard deviation, ``ddof = 0``, exactly what
    ``StandardScaler`` uses).  Every coefficient is therefore per one standard
    deviation of its feature and ``exp(beta_j)`` is the odds ratio **per one
    standard deviation**; column ``sd`` gives that standard deviation in the
    feature's units (per-unit odds ratio: ``exp(beta_j / sd_j)``).  The
    intercept is the log-odds at the training mean of every feature.

Categorical groups: reference (k - 1) coding
    The pipeline one-hot encodes a categorical column into one 0/1 column per
    level (a *feature group*); the levels sum to 1 in every row, so beside an
    intercept they are collinear and an unpenalised model is not identified
    (the penalised pipeline model is: its L2 penalty picks one solution). The
    table therefore codes each group against a reference level, its first
    level in the prepared (text-sorted) order, as R's ``glm`` and statsmodels'
    ``C(...)`` do by default, so that ``smf.logit("y ~ x + C(g)")`` on the
    standardised numeric features reproduces it (tested). The reference level
    is named in column ``reference_level``; the other levels stay in 0/1 units
    and their coefficient is the log-odds difference against it.

Aliased terms
    A column that is constant in the training rows (a level that only occurs
    in the test rows), or a linear combination of the intercept and earlier
    terms, is not identified. As R's ``glm`` does, the model is fitted without
    it and its row is kept with NaN estimates, ``identified`` False and a
    ``note`` naming the columns it is collinear with. Nothing is raised: the
    table of a valid dataset is always written.

Unpenalised maximum likelihood
    Fitted with :class:`statsmodels.discrete.discrete_model.Logit` (Newton) with
    an intercept.  Standard errors are ``sqrt(diag(I(beta)^{-1}))`` with the
    observed = expected information ``I = X' W X``, ``W = diag(p (1 - p))``;
    ``z = beta / se``; two-sided normal p-values; Wald intervals ``beta +- z_{1 -
    alpha/2} se``; odds-ratio intervals are ``exp`` of the coefficient interval
    (e.g. Hosmer, Lemeshow & Sturdivant 2013, "Applied Logistic Regression",
    3rd ed., §1.4 and §3.3; Agresti 2013, "Categorical Data Analysis", §5.2).

Relation to the pipeline's model
    The pipeline's model is *penalised*: scikit-learn's ``LogisticRegression``
    minimises ``0.5 ||w||^2 + C sum_i logloss_i`` (L2 on the slopes, not on the
    intercept) with ``C`` chosen by cross-validation from the seed's grid.  With
    ``penalized_model`` given, its coefficients (same standardised scale, read
    from the fitted pipeline) are reported beside the unpenalised ones in
    ``penalized_coefficient`` / ``penalized_odds_ratio`` with its ``C``.  The
    tests check that scale and objective: a tightly fitted model's coefficients
    equal the minimiser of ``0.5 ||w||^2 + C sum_i logloss_i`` found by
    ``scipy.optimize`` on the standardised design.  (The pipeline fits with
    scikit-learn's default ``tol = 1e-4``, so its coefficients may sit visibly
    away from that minimiser at large ``C``; they are reported as fitted, being
    the model that the other outputs explain.)  The penalty shrinks them towards
    0 (odds ratios towards 1); penalised estimates have no classical standard
    errors, so none are reported for them.

(Quasi-)complete separation
    When some direction ``d`` satisfies ``s_i x_i' d >= 0`` for every training
    row (``s_i = +1`` for class 1, ``-1`` for class 0) the likelihood increases
    without bound along ``d`` and the maximum-likelihood estimate does not exist
    (Albert & Anderson 1984, Biometrika 71:1-10): *complete* separation when all
    inequalities can be strict, *quasi-complete* otherwise.  Breast Cancer's 30
    standardised features separate the training split completely (see
    docs/shap_lime.md).  This is detected exactly by linear programming
    (Konis 2007, "Linear programming algorithms for detecting separated data in
    binary logistic regression models", DPhil thesis, Oxford; the algorithm of R's
    ``safeBinaryRegression`` / ``detectseparation``): maximise
    ``sum_i s_i x_i' d`` subject to ``s_i x_i' d >= 0`` and ``-1 <= d_j <= 1``;
    a positive optimum means separation.  Coefficient ``j`` is *not identified*
    when ``d_j`` can be non-zero in that cone (two more LPs per coefficient,
    ``max d_j`` and ``min d_j``).  ``statsmodels``' own
    ``PerfectSeparationWarning`` (fitted probabilities of 0 or 1) is also
    recorded, but it is a symptom seen at the end of a non-converged Newton run,
    not a test.

    Choice under separation: the unpenalised columns (``coefficient``,
    ``std_error``, ``z_value``, ``p_value``, CIs, odds ratios) are NaN for every
    coefficient that is not identified (a finite number there would only be the
    point where the optimiser stopped), and ``direction`` gives the sign of its
    divergence when it has one (+1 / -1; 0 when the cone allows both signs).
    Identified coefficients of a separated fit are NaN as well: their Wald
    statistics are computed at an optimum that does not exist.  The estimates
    to read are then the penalised ones of the pipeline's model: rather than a
    new, arbitrary "small ridge", whose coefficients under separation grow
    without bound as its penalty falls and so are set by the penalty chosen, the
    table reports the ridge the pipeline selected by cross-validation, which is
    also the model that SHAP explains.  Penalised likelihoods with inference
    (Firth 1993, Biometrika 80:27-38; Heinze & Schemper 2002, Stat. Med.
    21:2409-2419) are the classical alternative; no maintained Python library
    provides them and they are not implemented here.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..validation import check_finite

__all__ = ["logit_inference", "reference_coding", "separation"]

#: Tolerance of the separation LPs, relative to the largest |s_i x_i' d| at |d_j| <= 1.
SEPARATION_TOL = 1e-7


def _check_xy(X, y, feature_names) -> tuple[np.ndarray, np.ndarray, list[str]]:
    X = np.asarray(X, dtype=float)
    y = np.asarray(y)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D (n_rows, n_features), got shape {X.shape}")
    if y.ndim != 1 or y.shape[0] != X.shape[0]:
        raise ValueError(f"y must be 1-D with one label per row of X: X {X.shape}, y {y.shape}")
    names = [str(c) for c in feature_names]
    if len(names) != X.shape[1]:
        raise ValueError(f"feature_names has {len(names)} names but X has {X.shape[1]} columns")
    check_finite(X, "X")
    labels = set(np.unique(y).tolist())
    if not labels <= {0, 1} or len(labels) != 2:
        raise ValueError(f"y must hold both classes coded 0 and 1, got {sorted(labels)}")
    return X, y.astype(int), names


def _scaler(X: np.ndarray):
    from sklearn.preprocessing import StandardScaler

    return StandardScaler().fit(X)


def reference_coding(
    feature_names: Sequence[str], feature_groups: Mapping[str, Sequence[str]] | None
) -> dict[str, dict[str, str]]:
    """Reference (k - 1) coding of the one-hot feature groups of a design.

    Parameters
    ----------
    feature_names : sequence of str
        The design's columns in order.
    feature_groups : mapping group -> member columns, or None
        One-hot groups as in ``prepared.json`` (``feature_groups``): every
        level of a categorical column has a 0/1 member, so the members sum to 1
        in every row and are collinear with an intercept.

    Returns
    -------
    dict
        Member column -> ``{"group": g, "reference_level": r}`` for every member
        of every group, where ``r`` is the group's **first** member (the first
        level in the prepared order, which sorts the levels as text), the base
        level of R's ``glm`` treatment contrasts and of statsmodels' formula
        ``C(g)``; the reference member itself is left out of an unpenalised model
        with an intercept.

    Raises
    ------
    ValueError
        A group with no member, or naming a column that is not in
        ``feature_names`` or is in another group.
    """
    names = [str(c) for c in feature_names]
    coding: dict[str, dict[str, str]] = {}
    for group, members in (feature_groups or {}).items():
        members = [str(m) for m in members]
        if not members:
            raise ValueError(f"feature group {group!r} has no member column")
        unknown = [m for m in members if m not in names]
        if unknown:
            raise ValueError(f"feature group {group!r} names column(s) {unknown} that are not features")
        twice = [m for m in members if m in coding]
        if twice:
            raise ValueError(f"column(s) {twice} belong to more than one feature group")
        for m in members:
            coding[m] = {"group": str(group), "reference_level": members[0]}
    return coding


def _identified_design(Z: np.ndarray, X: np.ndarray, index: list[int], terms: list[str]):
    """The design ``[1, Z]`` and its identified columns (shared by :func:`logit_inference` and the
    multinomial fit): ``(design, k, notes, kept, D)``, ``notes`` the column -> reason of every term
    left out (constant in the training rows, or aliased), ``D`` the design of the ``kept`` columns."""
    design = np.column_stack([np.ones(Z.shape[0]), Z])
    k = design.shape[1]
    constant = {j + 1 for j in range(len(terms)) if np.ptp(X[:, index[j]]) == 0}
    notes = {j: "not identified: constant in the training rows (aliased with const)" for j in sorted(constant)}
    notes |= _aliased_terms(design, terms, [j for j in range(1, k) if j not in constant])
    kept = [j for j in range(k) if j not in notes]
    D = design if len(kept) == k else np.ascontiguousarray(design[:, kept])
    return design, k, notes, kept, D


def _aliased_terms(design: np.ndarray, names: list[str], candidates: list[int]) -> dict[int, str]:
    """Columns of ``design`` (column 0: the intercept) that are linear combinations of
    the intercept and earlier kept columns, as R's ``glm`` finds aliased coefficients:
    column -> note naming the columns it is collinear with."""
    notes: dict[int, str] = {}
    if np.linalg.matrix_rank(design[:, [0, *candidates]]) == len(candidates) + 1:
        return notes
    kept = [0]
    for j in candidates:
        trial = design[:, [*kept, j]]
        if np.linalg.matrix_rank(trial) > len(kept):
            kept.append(j)
            continue
        coef = np.linalg.lstsq(design[:, kept], design[:, j], rcond=None)[0]
        big = np.abs(coef) > 1e-8 * max(float(np.abs(coef).max()), 1.0)
        partners = [("const" if k == 0 else names[k - 1]) for k, b in zip(kept, big) if b]
        notes[j] = "not identified: a linear combination of " + ", ".join(partners) + " in the training rows (aliased)"
    return notes


def separation(design: np.ndarray, y: np.ndarray) -> dict[str, Any]:
    """Detect (quasi-)complete separation of a logistic-regression design by LP.

    Parameters
    ----------
    design : ndarray of shape (n, k)
        The design matrix *including* the intercept column if there is one.
    y : ndarray of shape (n,)
        Labels in {0, 1}.

    Returns
    -------
    dict
        ``separated`` (bool): the maximum-likelihood estimate does not exist;
        ``kind``: ``"none"``, ``"quasi-complete"`` or ``"complete"``;
        ``identified`` (bool array (k,)): False where the coefficient can move
        along a direction of unbounded likelihood increase;
        ``direction`` (int array (k,)): +1 / -1 when every such direction moves
        the coefficient one way, 0 otherwise (or when identified);
        ``n_lp``: linear programs solved.  Konis (2007) LP; see the module
        docstring.

    Raises
    ------
    RuntimeError
        If an LP fails (not expected: every LP here is feasible and bounded).
    """

    D = np.asarray(design, dtype=float)
    s = np.where(np.asarray(y) == 1, 1.0, -1.0)
    A = s[:, None] * D  # rows s_i x_i'
    scale = float(np.abs(A).sum(axis=1).max())
    return _separation_lp(-A, SEPARATION_TOL * max(scale, 1.0))


def _separation_lp(G, tol: float) -> dict[str, Any]:
    """Konis (2007) LP on the constraint rows ``G d <= 0`` (each row a negated margin; dense or
    sparse, shape (r, m)): a direction ``d`` in the box [-1, 1]^m with every margin >= 0 and their
    sum > ``tol`` means the maximum-likelihood estimate does not exist. Shared by the binary
    (:func:`separation`) and multinomial (:mod:`xaipipe.models.mnlogit`) checks.

    Returns
    -------
    dict
        ``separated``, ``kind``, ``identified`` (bool array (m,)), ``direction`` (int array (m,)),
        ``n_lp``, as :func:`separation`.

    Raises
    ------
    RuntimeError
        If an LP fails.
    """
    from scipy.optimize import linprog

    r, m = G.shape
    bounds = [(-1.0, 1.0)] * m

    def solve(c):
        res = linprog(c, A_ub=G, b_ub=np.zeros(r), bounds=bounds, method="highs")
        if res.status != 0:
            raise RuntimeError(f"separation LP failed: {res.message}")
        return res

    res = solve(np.asarray(G.sum(axis=0)).ravel())  # minimise -sum(margins)
    n_lp = 1
    separated = -res.fun > tol
    identified = np.ones(m, dtype=bool)
    direction = np.zeros(m, dtype=int)
    kind = "none"
    if separated:
        hi = np.empty(m)
        lo = np.empty(m)
        for j in range(m):
            e = np.zeros(m)
            e[j] = 1.0
            hi[j] = -solve(-e).fun
            lo[j] = solve(e).fun
            n_lp += 2
        up, down = hi > tol, lo < -tol
        identified = ~(up | down)
        direction = np.where(up & ~down, 1, np.where(down & ~up, -1, 0))
        # complete separation: every margin >= 1 is feasible
        feas = linprog(np.zeros(m), A_ub=G, b_ub=-np.ones(r), bounds=[(None, None)] * m, method="highs")
        n_lp += 1
        kind = "complete" if feas.status == 0 else "quasi-complete"
    return {"separated": bool(separated), "kind": kind, "identified": identified, "direction": direction, "n_lp": n_lp}


def _penalized_columns(model, names, mean, sd, terms, coding) -> dict[str, Any]:
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.utils.validation import check_is_fitted

    if not isinstance(model, Pipeline) or not isinstance(model.steps[-1][1], LogisticRegression):
        raise ValueError(
            "penalized_model must be the pipeline's fitted logistic_regression family "
            f"(StandardScaler -> LogisticRegression), got {type(model).__name__}"
        )
    check_is_fitted(model)
    scalers = [s for _, s in model.steps[:-1] if s not in (None, "passthrough")]
    if len(scalers) != 1 or not isinstance(scalers[0], StandardScaler):
        raise ValueError("penalized_model must scale with exactly one StandardScaler before LogisticRegression")
    sc, lr = scalers[0], model.steps[-1][1]
    if lr.coef_.shape != (1, len(names)) or not np.array_equal(lr.classes_, [0, 1]):
        raise ValueError(f"penalized_model must be binary with classes [0, 1] and {len(names)} features")
    if not (np.allclose(sc.mean_, mean, rtol=1e-10, atol=0) and np.allclose(sc.scale_, sd, rtol=1e-10, atol=0)):
        raise ValueError(
            "penalized_model was fitted on other training rows: its StandardScaler means / standard "
            "deviations differ from those of X"
        )
    penalty, l1_ratio = getattr(lr, "penalty", "deprecated"), getattr(lr, "l1_ratio", 0.0)
    if not (penalty == "l2" or (penalty == "deprecated" and l1_ratio in (0, 0.0, None))):
        raise ValueError(f"penalized_model must use the L2 penalty, got penalty={penalty!r}, l1_ratio={l1_ratio!r}")
    w = np.asarray(lr.coef_[0], dtype=float)
    intercept = np.asarray(lr.intercept_, dtype=float)
    if not coding:
        beta = np.concatenate([intercept, w])
    else:
        # The pipeline's model keeps every level: on the table's scale (levels in 0/1 units against
        # their group's reference level, the intercept at the numeric means and the reference levels)
        # a level's coefficient is the contrast w_l / sd_l - w_r / sd_r and the intercept adds
        # sum_l w_l (1[l = r] - mean_l) / sd_l over the groups' members.
        col = {n: i for i, n in enumerate(names)}
        per_unit = w / np.asarray(sc.scale_, dtype=float)
        const = float(intercept[0]) + sum(
            per_unit[col[m]] * ((m == c["reference_level"]) - float(sc.mean_[col[m]])) for m, c in coding.items()
        )
        beta = np.empty(len(terms) + 1)
        beta[0] = const
        for k, t in enumerate(terms, start=1):
            j = col[t]
            beta[k] = per_unit[j] - per_unit[col[coding[t]["reference_level"]]] if t in coding else w[j]
    return {"penalized_coefficient": beta, "penalized_odds_ratio": np.exp(beta), "C": float(lr.C)}


def logit_inference(
    X: np.ndarray,
    y: np.ndarray,
    feature_names: Sequence[str],
    *,
    feature_groups: Mapping[str, Sequence[str]] | None = None,
    alpha: float = 0.05,
    penalized_model=None,
) -> pd.DataFrame:
    """Unpenalised logistic regression on standardised features and its odds-ratio table.

    Parameters
    ----------
    X : ndarray of shape (n, p)
        Training rows in the prepared (unscaled) units, the rows the pipeline's
        ``logistic_regression`` family was fitted on.
    y : ndarray of shape (n,)
        Labels in {0, 1} (1 = positive class).
    feature_names : sequence of str, length p
    feature_groups : mapping group -> member columns, optional
        One-hot groups (``prepared.json``). Each group enters with reference
        (k - 1) coding (:func:`reference_coding`): its first level is the base,
        left out of the model and named in column ``reference_level``; every
        other level is a 0/1 column (not standardised) whose coefficient is the
        log-odds difference of that level against the base, other features
        held fixed.
    alpha : float, default=0.05
        ``1 - alpha`` Wald confidence intervals.
    penalized_model : fitted Pipeline, optional
        The pipeline's fitted ``logistic_regression`` model (StandardScaler ->
        LogisticRegression) on the same ``X`` (every level of every group); its
        coefficients are added beside, on the table's scale.

    Returns
    -------
    DataFrame
        Rows ``const`` then the features in order, less each group's reference
        level. Columns: ``term``; ``scale`` (``"per 1 SD"``, ``"vs reference
        level"`` for a group's level, ``"log-odds at the mean"`` for ``const``,
        which with groups is the log-odds at the numeric features' means and the
        reference levels); ``mean`` and ``sd`` (training mean and population
        standard deviation of the column, feature units; a level's mean is its
        share of the rows; NaN for ``const``); ``coefficient`` (log-odds per SD, or
        per level against the base), ``std_error``, ``z_value``, ``p_value``
        (two-sided), ``ci_low``, ``ci_high``, ``odds_ratio`` = exp(coefficient),
        ``odds_ratio_ci_low``, ``odds_ratio_ci_high`` (unpenalised MLE; NaN under
        separation and for terms that are not identified); ``identified`` (bool:
        False under separation along the term, and for an aliased term),
        ``direction`` (+1 / -1 / 0) and ``separation`` (``"none"``,
        ``"quasi-complete"``, ``"complete"``); ``n``, ``converged``,
        ``perfect_separation_warning`` (statsmodels warned), ``log_likelihood``;
        with ``feature_groups``, ``group`` and ``reference_level`` (empty for
        numeric terms); when a term is aliased or the fit fails, ``note`` (why its
        numbers are missing); and, with ``penalized_model``,
        ``penalized_coefficient``, ``penalized_odds_ratio`` and ``C``.

    Not identified, reported rather than raised: a column constant in the
    training rows (a level absent from them, a constant feature) or a linear
    combination of the intercept and earlier terms is *aliased*, as R's
    ``glm`` reports it: the model is fitted without it and its row says why,
    naming the columns it is collinear with. A fit that fails without
    separation (not expected) leaves every unpenalised number NaN with the
    error in ``note``.

    Raises
    ------
    ValueError
        Malformed inputs, labels other than 0/1 or a single class, malformed
        ``feature_groups``, ``alpha`` outside (0, 1), or a ``penalized_model``
        that is not the family's pipeline or was fitted on other rows.
    """
    import statsmodels.api as sm
    from scipy import stats
    from statsmodels.tools.sm_exceptions import (
        ConvergenceWarning,
        PerfectSeparationError,
        PerfectSeparationWarning,
    )

    if not (isinstance(alpha, float) and 0.0 < alpha < 1.0):
        raise ValueError(f"alpha must be a float in (0, 1), got {alpha!r}")
    X, y, names = _check_xy(X, y, feature_names)
    coding = reference_coding(names, feature_groups)
    scaler = _scaler(X)
    mean, sd = scaler.mean_, scaler.scale_
    terms = [n for n in names if n not in coding or coding[n]["reference_level"] != n]
    index = [names.index(t) for t in terms]
    numeric = [j for j, t in zip(index, terms) if t not in coding]
    # numeric terms standardised (training mean and population SD, as StandardScaler); levels in 0/1 units
    Z = X[:, index].copy()
    if numeric:
        cols = [k for k, t in enumerate(terms) if t not in coding]
        Z[:, cols] = _scaler(X[:, numeric]).transform(X[:, numeric]) if coding else scaler.transform(X)[:, numeric]
    design, k, notes, kept, D = _identified_design(Z, X, index, terms)
    sep = separation(D, y)

    fit, failed, error = None, False, ""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            fit = sm.Logit(y, D).fit(method="newton", maxiter=100 if sep["separated"] else 200, disp=0)
        except (np.linalg.LinAlgError, PerfectSeparationError) as exc:
            # Newton's Hessian becomes singular as fitted probabilities reach 0 / 1
            failed = True
            if not sep["separated"]:
                error = f"fit failed: {type(exc).__name__}: {exc}"
    warned_sep = failed or any(issubclass(w.category, PerfectSeparationWarning) for w in caught)
    converged = (
        fit is not None
        and bool(fit.mle_retvals.get("converged", False))
        and not any(issubclass(w.category, ConvergenceWarning) for w in caught)
    )

    nan = np.full(len(kept), np.nan)
    if sep["separated"] or fit is None:
        beta = se = zval = pval = lo = hi = nan
    else:
        beta = np.asarray(fit.params, dtype=float)
        se = np.asarray(fit.bse, dtype=float)
        zval = np.asarray(fit.tvalues, dtype=float)
        pval = np.asarray(fit.pvalues, dtype=float)
        ci = np.asarray(fit.conf_int(alpha=alpha), dtype=float)
        lo, hi = ci[:, 0], ci[:, 1]
        q = stats.norm.ppf(1 - alpha / 2)
        if not np.allclose(lo, beta - q * se, rtol=1e-10, atol=1e-12):  # statsmodels uses the normal quantile
            raise RuntimeError("unexpected statsmodels confidence interval")

    def full(values, fill):
        """Values of the kept columns placed at their design positions (``fill`` elsewhere)."""
        if len(kept) == k:
            return values
        out = np.full(k, fill, dtype=np.asarray(values).dtype)
        out[kept] = values
        return out

    term_mean = np.concatenate([[np.nan], mean[index]])
    term_sd = np.concatenate([[np.nan], sd[index]])
    if coding:  # a level's population SD (StandardScaler's scale_ is 1 for a constant column)
        term_sd = np.concatenate([[np.nan], X[:, index].std(axis=0)])
        term_sd[1:][[t not in coding for t in terms]] = sd[numeric]
    frame = pd.DataFrame(
        {
            "term": ["const", *terms],
            "scale": [
                "log-odds at the means and reference levels" if coding else "log-odds at the mean",
                *("vs reference level" if t in coding else "per 1 SD" for t in terms),
            ],
            "mean": term_mean,
            "sd": term_sd,
            "coefficient": full(beta, np.nan),
            "std_error": full(se, np.nan),
            "z_value": full(zval, np.nan),
            "p_value": full(pval, np.nan),
            "ci_low": full(lo, np.nan),
            "ci_high": full(hi, np.nan),
            "odds_ratio": np.exp(full(beta, np.nan)),
            "odds_ratio_ci_low": np.exp(full(lo, np.nan)),
            "odds_ratio_ci_high": np.exp(full(hi, np.nan)),
            "identified": full(sep["identified"], False),
            "direction": full(sep["direction"], 0),
            "separation": sep["kind"],
            "n": int(design.shape[0]),
            "converged": converged and not sep["separated"],
            "perfect_separation_warning": warned_sep,
            "log_likelihood": np.nan if sep["separated"] or fit is None else float(fit.llf),
        }
    )
    if coding:
        frame["group"] = ["", *(coding[t]["group"] if t in coding else "" for t in terms)]
        frame["reference_level"] = ["", *(coding[t]["reference_level"] if t in coding else "" for t in terms)]
    if notes or error:
        frame["note"] = [error or "", *(notes.get(j, error) for j in range(1, k))]
    if penalized_model is not None:
        pen = _penalized_columns(penalized_model, names, mean, sd, terms, coding)
        frame["penalized_coefficient"] = pen["penalized_coefficient"]
        frame["penalized_odds_ratio"] = pen["penalized_odds_ratio"]
        frame["C"] = pen["C"]
    return frame
