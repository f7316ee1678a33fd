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
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["separation", "logit_inference"]

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
    if not np.all(np.isfinite(X)):
        raise ValueError("X contains NaN or infinite values")
    labels = set(np.unique(y).tolist())
    if not labels <= {0, 1} or len(labels) != 2:
        raise ValueError(f"y must hold both classes coded 0 and 1, got {sorted(labels)}")
    return X, y.astype(int), names


def _standardise(X: np.ndarray, names: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    from sklearn.preprocessing import StandardScaler

    scaler = StandardScaler().fit(X)
    constant = [n for n, s in zip(names, scaler.var_) if s == 0]
    if constant:
        raise ValueError(f"feature(s) {constant} are constant in the training rows")
    return scaler.transform(X), scaler.mean_, scaler.scale_


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
    from scipy.optimize import linprog

    D = np.asarray(design, dtype=float)
    s = np.where(np.asarray(y) == 1, 1.0, -1.0)
    A = s[:, None] * D  # rows s_i x_i'
    k = D.shape[1]
    scale = float(np.abs(A).sum(axis=1).max())
    tol = SEPARATION_TOL * max(scale, 1.0)
    bounds = [(-1.0, 1.0)] * k

    def solve(c):
        res = linprog(c, A_ub=-A, b_ub=np.zeros(A.shape[0]), bounds=bounds, method="highs")
        if res.status != 0:
            raise RuntimeError(f"separation LP failed: {res.message}")
        return res

    res = solve(-A.sum(axis=0))
    n_lp = 1
    separated = -res.fun > tol
    identified = np.ones(k, dtype=bool)
    direction = np.zeros(k, dtype=int)
    kind = "none"
    if separated:
        hi = np.empty(k)
        lo = np.empty(k)
        for j in range(k):
            e = np.zeros(k)
            e[j] = 1.0
            hi[j] = -solve(-e).fun
            lo[j] = solve(e).fun
            n_lp += 2
        up, down = hi > tol, lo < -tol
        identified = ~(up | down)
        direction = np.where(up & ~down, 1, np.where(down & ~up, -1, 0))
        # complete separation: s_i x_i' d >= 1 for all i is feasible
        feas = linprog(np.zeros(k), A_ub=-A, b_ub=-np.ones(A.shape[0]), bounds=[(None, None)] * k, method="highs")
        n_lp += 1
        kind = "complete" if feas.status == 0 else "quasi-complete"
    return {"separated": bool(separated), "kind": kind, "identified": identified, "direction": direction, "n_lp": n_lp}


def _penalized_columns(model, names, mean, sd) -> dict[str, Any]:
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
    beta = np.concatenate([np.asarray(lr.intercept_, dtype=float), np.asarray(lr.coef_[0], dtype=float)])
    return {"penalized_coefficient": beta, "penalized_odds_ratio": np.exp(beta), "C": float(lr.C)}


def logit_inference(
    X: np.ndarray,
    y: np.ndarray,
    feature_names: Sequence[str],
    *,
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
    alpha : float, default=0.05
        ``1 - alpha`` Wald confidence intervals.
    penalized_model : fitted Pipeline, optional
        The pipeline's fitted ``logistic_regression`` model (StandardScaler ->
        LogisticRegression) on the same ``X``; its coefficients are added beside.

    Returns
    -------
    DataFrame
        Rows ``const`` then the features.  Columns: ``term``; ``scale``
        (``"per 1 SD"``, ``"log-odds at the mean"`` for ``const``); ``mean`` and
        ``sd`` (training mean and population standard deviation of the feature,
        feature units; NaN for ``const``); ``coefficient`` (log-odds per SD),
        ``std_error``, ``z_value``, ``p_value`` (two-sided), ``ci_low``,
        ``ci_high``, ``odds_ratio`` = exp(coefficient), ``odds_ratio_ci_low``,
        ``odds_ratio_ci_high`` (unpenalised MLE; NaN under separation);
        ``identified`` (bool), ``direction`` (+1 / -1 / 0) and ``separation``
        (``"none"``, ``"quasi-complete"``, ``"complete"``); ``n``,
        ``converged``, ``perfect_separation_warning`` (statsmodels warned),
        ``log_likelihood``; and, with ``penalized_model``,
        ``penalized_coefficient``, ``penalized_odds_ratio`` and ``C``.

    Raises
    ------
    ValueError
        Malformed inputs, labels other than 0/1 or a single class, constant
        features, a rank-deficient design (coefficients not identified by
        collinearity), ``alpha`` outside (0, 1), or a ``penalized_model`` that is
        not the family's pipeline or was fitted on other rows.
    """
    import statsmodels.api as sm
    from scipy import stats
    from statsmodels.tools.sm_exceptions import ConvergenceWarning, PerfectSeparationError, PerfectSeparationWarning

    if not (isinstance(alpha, float) and 0.0 < alpha < 1.0):
        raise ValueError(f"alpha must be a float in (0, 1), got {alpha!r}")
    X, y, names = _check_xy(X, y, feature_names)
    Z, mean, sd = _standardise(X, names)
    design = np.column_stack([np.ones(Z.shape[0]), Z])
    if np.linalg.matrix_rank(design) < design.shape[1]:
        raise ValueError(
            "design matrix is rank deficient: logistic coefficients are not identified (collinear features)"
        )
    k = design.shape[1]
    sep = separation(design, y)

    fit, failed = None, False
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            fit = sm.Logit(y, design).fit(method="newton", maxiter=100 if sep["separated"] else 200, disp=0)
        except (np.linalg.LinAlgError, PerfectSeparationError):
            # Newton's Hessian becomes singular as fitted probabilities reach 0 / 1
            if not sep["separated"]:
                raise
            failed = True
    warned_sep = failed or any(issubclass(w.category, PerfectSeparationWarning) for w in caught)
    converged = (
        fit is not None
        and bool(fit.mle_retvals.get("converged", False))
        and not any(issubclass(w.category, ConvergenceWarning) for w in caught)
    )

    nan = np.full(k, np.nan)
    if sep["separated"]:
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
    frame = pd.DataFrame(
        {
            "term": ["const"] + names,
            "scale": ["log-odds at the mean"] + ["per 1 SD"] * len(names),
            "mean": np.concatenate([[np.nan], mean]),
            "sd": np.concatenate([[np.nan], sd]),
            "coefficient": beta,
            "std_error": se,
            "z_value": zval,
            "p_value": pval,
            "ci_low": lo,
            "ci_high": hi,
            "odds_ratio": np.exp(beta),
            "odds_ratio_ci_low": np.exp(lo),
            "odds_ratio_ci_high": np.exp(hi),
            "identified": sep["identified"],
            "direction": sep["direction"],
            "separation": sep["kind"],
            "n": int(design.shape[0]),
            "converged": converged and not sep["separated"],
            "perfect_separation_warning": warned_sep,
            "log_likelihood": np.nan if sep["separated"] else float(fit.llf),
        }
    )
    if penalized_model is not None:
        pen = _penalized_columns(penalized_model, names, mean, sd)
        frame["penalized_coefficient"] = pen["penalized_coefficient"]
        frame["penalized_odds_ratio"] = pen["penalized_odds_ratio"]
        frame["C"] = pen["C"]
    return frame
