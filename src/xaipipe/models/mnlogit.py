"""Multinomial logistic-regression coefficient table (baseline-category logits, Wald inference).

The multiclass counterpart of :func:`xaipipe.models.logit.logit_inference` for a
target with ``K > 2`` classes coded ``0 .. K-1`` (``prepared.json``: ``classes``).
The multinomial logit model (e.g. Agresti 2013, "Categorical Data Analysis", 3rd
ed., §8.1; Hosmer, Lemeshow & Sturdivant 2013, §8.1) writes every class against a
*base* class ``0``::

    log P(y = k | x) / P(y = 0 | x) = beta_k0 + sum_j beta_kj x_j,   k = 1 .. K-1,

so ``exp(beta_kj)`` multiplies the odds of class ``k`` against the base class by
one unit (here: one standard deviation) of ``x_j``: the *relative risk ratio*
(relative odds; Stata's ``rrr``). The base class is the first class in code order
(the first label sorted as text, or the first of ``datasets.<d>.class_order``),
as in statsmodels' :class:`~statsmodels.discrete.discrete_model.MNLogit` and R's
``nnet::multinom``; it is named in column ``base_class`` of every row.

Scale, as the binary table
    Numeric features are standardised with the training mean and population
    standard deviation (what the pipeline's ``StandardScaler`` does), so a
    coefficient is per one standard deviation (column ``sd``); the intercept is
    the log relative odds at the numeric features' means (and the reference
    levels).

Categorical groups: reference (k - 1) coding
    A one-hot group's members sum to 1 in every row, so beside an intercept they
    are collinear and an unpenalised model is not identified. Each group is coded
    against its first level in the prepared (text-sorted) order, left out of the
    model and named in column ``reference_level``; the other levels stay 0/1
    columns whose coefficient is the log relative odds of that level against the
    reference level (R's treatment contrasts, statsmodels' ``C(g)``).

Aliased terms
    A column constant in the training rows, or a linear combination of the
    intercept and earlier terms, is not identified: the model is fitted without
    it and its rows keep NaN estimates, ``identified`` False and a ``note`` naming
    the columns it is collinear with. Nothing is raised.

Unpenalised maximum likelihood
    :class:`statsmodels.discrete.discrete_model.MNLogit` (Newton) with an
    intercept; standard errors from the inverse information matrix, ``z = beta /
    se``, two-sided normal p-values, Wald intervals ``beta +- z_{1 - alpha/2}
    se`` and their ``exp`` for the relative risk ratios.

(Quasi-)complete separation (Albert & Anderson 1984, Biometrika 71:1-10, §3, the
multinomial case)
    The maximum-likelihood estimate does not exist when some direction ``d =
    (d_1, .., d_{K-1})`` (``d_0 = 0``) satisfies ``(d_{y_i} - d_j)' x_i >= 0`` for
    every training row ``i`` and every class ``j != y_i``, not all equalities:
    along ``d`` every row's probability of its own class can only grow. As for the
    binary table (Konis 2007) this is decided by linear programming: maximise the
    sum of those margins subject to them being ``>= 0`` and ``-1 <= d <= 1``; a
    positive optimum means separation (*complete* when all margins can be ``>= 1``,
    *quasi-complete* otherwise), and coefficient ``(k, j)`` is *not identified*
    when ``d_kj`` can be non-zero in that cone (two more LPs per coefficient).
    Under separation every unpenalised number is NaN (Wald statistics at an
    optimum that does not exist), ``direction`` gives the sign of the divergence
    of a coefficient that has one, and the estimates to read are the penalised
    ones of the pipeline's model (``penalized_model``), reported beside.

Relation to the pipeline's model
    The pipeline's ``logistic_regression`` family fits scikit-learn's multinomial
    ``LogisticRegression`` (L2 penalty, ``C`` chosen by CV) on the standardised
    features; its ``K`` coefficient vectors are identified only up to a common
    shift by the penalty, so the table reports their contrasts against the base
    class, ``w_k - w_0`` (the same baseline-category scale), in
    ``penalized_coefficient`` / ``penalized_rrr`` with its ``C``.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..validation import check_finite
from .logit import _identified_design, _separation_lp, reference_coding

__all__ = ["multinomial_separation", "mnlogit_inference"]

#: Tolerance of the separation LPs, relative to the largest margin at |d| <= 1.
SEPARATION_TOL = 1e-7


def _check_xy(X, y, feature_names) -> tuple[np.ndarray, np.ndarray, list[str], int]:
    X = np.asarray(X, dtype=float)
    y = np.asarray(y)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D (n_rows, n_features), got shape {X.shape}")
    names = [str(c) for c in feature_names]
    if len(names) != X.shape[1]:
        raise ValueError(f"{len(names)} feature names for {X.shape[1]} columns")
    if y.shape != (X.shape[0],):
        raise ValueError(f"y must have shape ({X.shape[0]},), got {y.shape}")
    check_finite(X, "X")
    codes = y.astype(np.int64) if np.issubdtype(y.dtype, np.number) else None
    if codes is None or not np.array_equal(codes, y):
        raise ValueError("y must hold integer class codes 0 .. K-1")
    present = np.unique(codes)
    K = int(codes.max()) + 1 if codes.size else 0
    if K < 3 or not np.array_equal(present, np.arange(K)):
        raise ValueError(
            f"multinomial inference needs class codes 0 .. K-1 with K > 2, each present; got {present.tolist()}"
        )
    return X, codes, names, K


def multinomial_separation(design: np.ndarray, y: np.ndarray) -> dict[str, Any]:
    """Detect (quasi-)complete separation of a multinomial logit design by linear programming.

    Parameters
    ----------
    design : ndarray of shape (n, k)
        The design matrix including the intercept column.
    y : ndarray of shape (n,)
        Class codes ``0 .. K-1`` (class 0 is the base: ``d_0 = 0``).

    Returns
    -------
    dict
        ``separated`` (bool: the maximum-likelihood estimate does not exist),
        ``kind`` (``"none"``, ``"quasi-complete"``, ``"complete"``), ``identified``
        and ``direction`` (arrays of shape ``(K - 1, k)``: False / the sign +1, -1
        (0: both or none) where coefficient ``(class k, term j)`` can move along a
        direction of unbounded likelihood increase), ``n_lp``. Module docstring.

    Raises
    ------
    RuntimeError
        If an LP fails (not expected: every LP here is feasible and bounded).
    """
    from scipy.sparse import csr_matrix

    D = np.asarray(design, dtype=float)
    y = np.asarray(y, dtype=np.int64)
    n, k = D.shape
    K = int(y.max()) + 1
    m = (K - 1) * k  # variables: d_1 .. d_{K-1}, each of length k
    rows, cols, vals = [], [], []
    r = 0
    for i in range(n):
        for j in range(K):
            if j == y[i]:
                continue
            # margin (d_{y_i} - d_j)' x_i >= 0, written as -margin <= 0
            for cls, sign in ((y[i], -1.0), (j, 1.0)):
                if cls == 0:
                    continue
                base = (cls - 1) * k
                rows.extend([r] * k)
                cols.extend(range(base, base + k))
                vals.extend(sign * D[i])
            r += 1
    A = csr_matrix((vals, (rows, cols)), shape=(r, m))  # rows: -margin
    scale = float(np.abs(D).sum(axis=1).max()) * 2.0
    out = _separation_lp(A, SEPARATION_TOL * max(scale, 1.0))
    return {**out, "identified": out["identified"].reshape(K - 1, k), "direction": out["direction"].reshape(K - 1, k)}


def _penalized_columns(model, names, terms, coding, K) -> dict[str, Any]:
    """The pipeline model's coefficients as contrasts against the base class, on the table's scale:
    array of shape ``(K - 1, 1 + len(terms))`` and ``C``."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.utils.validation import check_is_fitted

    if not isinstance(model, Pipeline) or not isinstance(model.steps[-1][1], LogisticRegression):
        raise ValueError(
            "penalized_model must be the logistic_regression family's pipeline (StandardScaler -> LogisticRegression)"
        )
    sc = model.steps[0][1]
    lr = model.steps[-1][1]
    if not isinstance(sc, StandardScaler) or len(model.steps) != 2:
        raise ValueError("penalized_model must be exactly StandardScaler -> LogisticRegression")
    check_is_fitted(lr)
    W = np.asarray(lr.coef_, dtype=float)
    b = np.asarray(lr.intercept_, dtype=float)
    if W.shape != (K, len(names)):
        raise ValueError(f"penalized_model has coefficients of shape {W.shape}; expected ({K}, {len(names)})")
    col = {n: i for i, n in enumerate(names)}
    out = np.empty((K - 1, 1 + len(terms)))
    for c in range(1, K):
        w = W[c] - W[0]  # per SD of every column (the pipeline scales every column)
        per_unit = w / np.asarray(sc.scale_, dtype=float)
        const = float(b[c] - b[0])
        const += sum(
            per_unit[col[mm]] * ((mm == v["reference_level"]) - float(sc.mean_[col[mm]])) for mm, v in coding.items()
        )
        out[c - 1, 0] = const
        for t_i, t in enumerate(terms, start=1):
            j = col[t]
            out[c - 1, t_i] = per_unit[j] - per_unit[col[coding[t]["reference_level"]]] if t in coding else w[j]
    return {"coefficient": out, "C": float(lr.C)}


def mnlogit_inference(
    X: np.ndarray,
    y: np.ndarray,
    feature_names: Sequence[str],
    *,
    feature_groups: Mapping[str, Sequence[str]] | None = None,
    classes: Sequence[str] | None = None,
    alpha: float = 0.05,
    penalized_model=None,
) -> pd.DataFrame:
    """Multinomial logistic regression on the training rows: coefficients, Wald inference, relative risk ratios.

    Parameters
    ----------
    X : ndarray of shape (n, p)
        Training features (the prepared columns, one-hot groups included).
    y : ndarray of shape (n,)
        Class codes ``0 .. K-1``, ``K > 2``, every class present.
    feature_names : sequence of str, length p
    feature_groups : mapping group -> member columns, optional
        One-hot groups (``prepared.json``), reference (k - 1) coded (module docstring).
    classes : sequence of str, optional
        Class labels in code order (default the codes); ``classes[0]`` is the base class.
    alpha : float, default 0.05
        ``1 - alpha`` Wald confidence intervals.
    penalized_model : fitted Pipeline, optional
        The pipeline's fitted ``logistic_regression`` model on the same ``X``:
        its coefficients as contrasts against the base class beside.

    Returns
    -------
    DataFrame
        One row per non-base class ``k`` (in code order) and term (``const``, then
        the features less each group's reference level). Columns: ``class``,
        ``base_class``, ``term``; ``scale`` (``"per 1 SD"``, ``"vs reference
        level"``, or the intercept's ``"log relative odds at the mean"`` /
        ``"... at the means and reference levels"``); ``mean``, ``sd`` (training,
        feature units; a level's mean is its share); ``coefficient`` (log relative
        odds of class ``k`` against the base), ``std_error``, ``z_value``,
        ``p_value``, ``ci_low``, ``ci_high``, ``rrr`` = exp(coefficient),
        ``rrr_ci_low``, ``rrr_ci_high``; ``identified``, ``direction``,
        ``separation`` (``"none"``, ``"quasi-complete"``, ``"complete"``); ``n``,
        ``converged``, ``perfect_separation_warning``, ``log_likelihood``; with
        groups, ``group`` and ``reference_level``; ``note`` (why a number is
        missing: an aliased term, separation, a failed fit; empty otherwise); with
        ``penalized_model``, ``penalized_coefficient``, ``penalized_rrr`` and ``C``.

    Raises
    ------
    ValueError
        Malformed inputs (shapes, NaN, labels that are not ``0 .. K-1`` with
        ``K > 2`` classes all present, malformed groups), ``alpha`` outside (0, 1),
        a ``penalized_model`` that is not the family's pipeline or has another
        number of classes or features. Separation, aliased terms and failed fits
        are reported in the table, not raised.
    """
    import statsmodels.api as sm
    from scipy import stats
    from sklearn.preprocessing import StandardScaler
    from statsmodels.tools.sm_exceptions import ConvergenceWarning, PerfectSeparationError, PerfectSeparationWarning

    if not (isinstance(alpha, float) and 0.0 < alpha < 1.0):
        raise ValueError(f"alpha must be a float in (0, 1), got {alpha!r}")
    X, y, names, K = _check_xy(X, y, feature_names)
    labels = [str(c) for c in (range(K) if classes is None else classes)]
    if len(labels) != K:
        raise ValueError(f"{len(labels)} class labels for {K} classes")
    coding = reference_coding(names, feature_groups)
    scaler = StandardScaler().fit(X)
    mean, sd = scaler.mean_, scaler.scale_
    terms = [t for t in names if t not in coding or coding[t]["reference_level"] != t]
    index = [names.index(t) for t in terms]
    numeric = [k for k, t in enumerate(terms) if t not in coding]
    Z = X[:, index].copy()
    if numeric:
        Z[:, numeric] = scaler.transform(X)[:, [index[k] for k in numeric]]
    design, k, notes, kept, D = _identified_design(Z, X, index, terms)
    sep = multinomial_separation(D, y)

    fit, failed, error = None, False, ""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            fit = sm.MNLogit(y, D).fit(method="newton", maxiter=100 if sep["separated"] else 300, disp=0)
        except (np.linalg.LinAlgError, PerfectSeparationError, ValueError) as exc:
            failed = True
            if not sep["separated"]:
                error = f"fit failed: {type(exc).__name__}: {exc}"
    warned_sep = failed or any(issubclass(w.category, PerfectSeparationWarning) for w in caught)
    converged = (
        fit is not None
        and bool(fit.mle_retvals.get("converged", False))
        and not any(issubclass(w.category, ConvergenceWarning) for w in caught)
    )
    shape = (len(kept), K - 1)
    if sep["separated"] or fit is None:
        beta = se = np.full(shape, np.nan)
    else:
        beta = np.asarray(fit.params, dtype=float).reshape(shape)
        se = np.asarray(fit.bse, dtype=float).reshape(shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        zval = beta / se
    pval = 2.0 * stats.norm.sf(np.abs(zval))
    q = stats.norm.ppf(1 - alpha / 2)
    lo, hi = beta - q * se, beta + q * se

    def full(values, fill):
        out = np.full((k, K - 1), fill, dtype=float)
        out[kept] = values
        return out

    beta, se, zval, pval, lo, hi = (full(a, np.nan) for a in (beta, se, zval, pval, lo, hi))
    identified = np.zeros((k, K - 1), dtype=bool)
    identified[kept] = sep["identified"].T
    direction = np.zeros((k, K - 1), dtype=int)
    direction[kept] = sep["direction"].T

    term_mean = np.concatenate([[np.nan], mean[index]])
    term_sd = np.concatenate([[np.nan], X[:, index].std(axis=0)])
    if numeric:
        term_sd[1:][numeric] = sd[[index[j] for j in numeric]]
    const_scale = "log relative odds at the means and reference levels" if coding else "log relative odds at the mean"
    scales = [const_scale, *("vs reference level" if t in coding else "per 1 SD" for t in terms)]
    why_missing = ""
    if sep["separated"]:
        why_missing = f"not estimated: {sep['kind']} separation (the maximum-likelihood estimate does not exist)"
    elif error:
        why_missing = error
    pen = None
    if penalized_model is not None:
        pen = _penalized_columns(penalized_model, names, terms, coding, K)
    frames = []
    for c in range(1, K):
        col = c - 1
        frame = pd.DataFrame(
            {
                "class": labels[c],
                "base_class": labels[0],
                "term": ["const", *terms],
                "scale": scales,
                "mean": term_mean,
                "sd": term_sd,
                "coefficient": beta[:, col],
                "std_error": se[:, col],
                "z_value": zval[:, col],
                "p_value": pval[:, col],
                "ci_low": lo[:, col],
                "ci_high": hi[:, col],
                "rrr": np.exp(beta[:, col]),
                "rrr_ci_low": np.exp(lo[:, col]),
                "rrr_ci_high": np.exp(hi[:, col]),
                "identified": identified[:, col],
                "direction": direction[:, col],
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
        frame["note"] = [notes.get(j, why_missing) for j in range(k)]
        if pen is not None:
            frame["penalized_coefficient"] = pen["coefficient"][col]
            frame["penalized_rrr"] = np.exp(pen["coefficient"][col])
            frame["C"] = pen["C"]
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)
