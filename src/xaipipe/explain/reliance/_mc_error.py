"""The exact Monte-Carlo standard error of the randomised MR estimators (private; exported by
:mod:`xaipipe.explain.reliance`).

Why
---
``permutation`` and ``e_divide`` average ``R`` random draws (permutations, halvings) and report
``sd / sqrt(R)`` with ``sd`` the sample standard deviation of the ``R`` draws. Given the test set,
the draws are independent and identically distributed, so ``sd²`` is unbiased for the variance of
one draw and the formula is the right one *on average*; but with ``R = 20`` and a skewed
distribution of one draw (a variable with a few rows of large switched loss: Diabetes AGE, one
halving's MR ratio has skewness -1.8 and excess kurtosis 3.2) the sample SD is itself very
variable, and it is small exactly when the rare large draws are missing, i.e. when the mean is
off. The reported SE is then too small on some seeds: ``benchmarks/mc_se_honesty.py`` measures it.

The variance of one draw is a known function of the ``n × n`` matrix of switched losses
:math:`M[r, d] = L\\{f, (y_r, X_{1,d}, X_{2,r})\\}` (recipient ``r``, donor ``d``; the diagonal is
the unchanged loss), so where ``n²`` model evaluations are affordable the Monte-Carlo SE can be
computed exactly instead of estimated:

* ``permutation``: one draw is :math:`\\frac1n \\sum_j M[j, \\pi(j)]` for a uniform permutation
  :math:`\\pi`; its mean is :math:`\\frac1n \\bar M_{diag} + (1 - \\frac1n) \\hat e_{switch}` and its
  variance (Hoeffding 1951, "A combinatorial central limit theorem", Ann. Math. Statist. 22(4),
  Theorem 2) :math:`\\frac{1}{n^2 (n - 1)} \\sum_{i, j} d_{ij}^2` with
  :math:`d_{ij} = M_{ij} - \\bar M_{i\\cdot} - \\bar M_{\\cdot j} + \\bar M_{\\cdot\\cdot}`;
* ``e_divide``: one draw is :math:`\\frac{1}{2h} \\sum_{\\{a, b\\}} S_{ab}` over the ``h = ⌊n/2⌋``
  pairs of a uniform random matching, :math:`S_{ab} = M[a, b] + M[b, a]`. With
  :math:`\\pi_1 = 2h / (n(n-1))` the probability that a given pair is matched, :math:`\\pi_2 =
  4h(h-1) / (n(n-1)(n-2)(n-3))` that two given disjoint pairs both are, and over unordered pairs
  :math:`A = \\sum S_p^2`, :math:`\\Sigma = \\sum S_p`, :math:`R_2 = \\sum_i (\\sum_{j \\ne i} S_{ij})^2`:

  .. math:: \\operatorname{Var}\\Big(\\sum_{p \\in \\text{matching}} S_p\\Big) = \\pi_1(1 - \\pi_1) A
            + (\\pi_2 - \\pi_1^2)(\\Sigma^2 + A - R_2) - \\pi_1^2 (R_2 - 2A),

  (pairs that share a row are never matched together), divided by :math:`(2h)^2`; its mean is
  :math:`\\hat e_{switch}` (the estimator is unbiased).

The SE of the mean of ``R`` draws is the SD of one draw over :math:`\\sqrt R`; the MR ratio's is
that over ``e_orig`` (the draws share ``e_orig``). ``tests/explain/reliance/test_mc_error.py``
checks both variances by enumerating every permutation / halving of small samples.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from ...losses import resolve_loss
from ...validation import check_int
from ._base import DEFAULT_MAX_ROWS, check_X, check_y, features_from_groups, resolve_features

__all__ = ["switch_loss_matrix", "draw_variance", "exact_monte_carlo_se"]


def switch_loss_matrix(
    predict,
    X: np.ndarray,
    y: np.ndarray,
    cols,
    loss_fn,
    max_rows_per_batch: int = DEFAULT_MAX_ROWS,
) -> np.ndarray:
    """``M[k, r, d]``: loss of member ``k`` on row ``r`` with the columns ``cols`` of row ``d``.

    Parameters
    ----------
    predict : callable
        Predict-many ``predict(X) -> (m, rows)`` or ``(m, rows, c)``.
    X : ndarray of shape (n, p)
    y : ndarray of shape (n,)
    cols : sequence of int
    loss_fn : callable ``loss(y, output) -> (m, rows)``
    max_rows_per_batch : int
        Rows of each call of ``predict`` and ``loss_fn``.

    Returns
    -------
    ndarray of shape (m, n, n)
        Loss units; the diagonal is the unchanged per-row loss.
    """
    n = X.shape[0]
    cols = np.asarray(cols, dtype=np.intp)
    total = n * n
    per = max(1, int(max_rows_per_batch))
    out = None
    for start in range(0, total, per):
        stop = min(start + per, total)
        r, d = np.divmod(np.arange(start, stop), n)
        Z = X[r].copy()
        Z[:, cols] = X[np.ix_(d, cols)]
        P = np.asarray(predict(Z))  # (m, rows[, classes]): members first
        L = np.asarray(loss_fn(y[r], P), dtype=np.float64)
        if out is None:
            out = np.empty((L.shape[0], total))
        out[:, start:stop] = L
    return out.reshape(-1, n, n)


def draw_variance(M: np.ndarray, estimator: str) -> tuple[np.ndarray, np.ndarray]:
    """Mean and variance of one random draw of an MR estimator, from the switched-loss matrices.

    Parameters
    ----------
    M : ndarray of shape (m, n, n)
        :func:`switch_loss_matrix`.
    estimator : {"permutation", "e_divide"}

    Returns
    -------
    (mean, variance) : ndarrays of shape (m,)
        Of one draw's switched loss (loss units, squared loss units); module docstring.

    Raises
    ------
    ValueError
        Another estimator, or ``n < 2``.
    """
    M = np.asarray(M, dtype=np.float64)
    n = M.shape[-1]
    if n < 2:
        raise ValueError("needs at least 2 rows")
    if estimator == "permutation":
        row = M.mean(axis=2, keepdims=True)
        col = M.mean(axis=1, keepdims=True)
        grand = M.mean(axis=(1, 2), keepdims=True)
        d = M - row - col + grand
        var_t = (d**2).sum(axis=(1, 2)) / (n - 1)
        return M.mean(axis=(1, 2)), var_t / n**2
    if estimator == "e_divide":
        h = n // 2
        S = M + np.transpose(M, (0, 2, 1))
        iu = np.triu_indices(n, k=1)
        Sp = S[:, iu[0], iu[1]]
        A = (Sp**2).sum(axis=1)
        Sig = Sp.sum(axis=1)
        off = S.copy()
        off[:, np.arange(n), np.arange(n)] = 0.0
        R2 = (off.sum(axis=2) ** 2).sum(axis=1)
        p1 = 2.0 * h / (n * (n - 1))
        p2 = 4.0 * h * (h - 1) / (n * (n - 1) * (n - 2) * (n - 3)) if n >= 4 else 0.0
        var_t = p1 * (1 - p1) * A + (p2 - p1**2) * (Sig**2 + A - R2) - p1**2 * (R2 - 2 * A)
        mean = p1 * Sig / (2 * h)
        return mean, np.clip(var_t, 0.0, None) / (2 * h) ** 2
    raise ValueError(f"the exact Monte-Carlo error is defined for 'permutation' and 'e_divide', not {estimator!r}")


def exact_monte_carlo_se(
    model,
    X,
    y,
    *,
    estimator: str = "e_divide",
    n_repeats: int = 20,
    loss=None,
    features=None,
    feature_groups: Mapping[str, Sequence[str]] | None = None,
    feature_names: Sequence[str] | None = None,
    n_estimators: Sequence[int] | None = None,
    max_rows_per_batch: int = DEFAULT_MAX_ROWS,
) -> pd.DataFrame:
    """The exact Monte-Carlo SE of the ``permutation`` / ``e_divide`` MR estimate from ``R`` draws.

    Costs ``n²`` model evaluations per variable (as ``e_switch``), so it is meant for test sets
    of up to a few thousand rows; the estimates themselves are unchanged.

    Parameters
    ----------
    model, X, y, loss, features, feature_groups, feature_names, n_estimators, max_rows_per_batch
        As :func:`model_reliance`.
    estimator : {"permutation", "e_divide"}, default "e_divide"
    n_repeats : int, default 20
        ``R``, the draws the reported estimate averages.

    Returns
    -------
    DataFrame
        One row per member × variable: ``member``, ``feature``, ``estimator``, ``n_repeats``,
        ``e_orig``, ``e_switch_expected`` (the draws' exact mean), ``draw_sd`` (SD of one draw,
        loss units), ``mr_difference_se_exact`` (``draw_sd / sqrt(R)``), ``mr_ratio_se_exact``
        (the same over ``e_orig``), ``mr_ratio_expected``.

    Raises
    ------
    ValueError
        As :func:`model_reliance`; another estimator.
    """
    from sklearn.base import is_classifier

    from ...models.prefix import member_predictor

    if estimator not in ("permutation", "e_divide"):
        raise ValueError(f"estimator must be 'permutation' or 'e_divide', got {estimator!r}")
    R = check_int(n_repeats, "n_repeats", minimum=1)
    Xv, names = check_X(X)
    yv = check_y(y, Xv.shape[0])
    names = feature_names if feature_names is not None else names
    if feature_groups is not None:
        cols_ = list(names) if names is not None else [f"x{j}" for j in range(Xv.shape[1])]
        features = features_from_groups(cols_, feature_groups)
    groups = resolve_features(features, Xv.shape[1], names)
    is_callable = callable(model) and not hasattr(model, "predict")
    if loss is None:
        loss = "log_loss" if not is_callable and is_classifier(model) else "squared_error"
    _, loss_fn = resolve_loss(loss)
    predict = model if is_callable else member_predictor(model, n_estimators)
    frames = []
    for name, cols in groups.items():
        M = switch_loss_matrix(predict, Xv, yv, cols, loss_fn, max_rows_per_batch)
        mean, var = draw_variance(M, estimator)
        e_orig = np.diagonal(M, axis1=1, axis2=2).mean(axis=1)
        sd = np.sqrt(var)
        with np.errstate(divide="ignore", invalid="ignore"):
            frames.append(
                pd.DataFrame(
                    {
                        "member": np.arange(M.shape[0]),
                        "feature": name,
                        "estimator": estimator,
                        "n_repeats": R,
                        "e_orig": e_orig,
                        "e_switch_expected": mean,
                        "mr_ratio_expected": mean / e_orig,
                        "draw_sd": sd,
                        "mr_difference_se_exact": sd / np.sqrt(R),
                        "mr_ratio_se_exact": sd / np.sqrt(R) / e_orig,
                    }
                )
            )
    out = pd.concat(frames, ignore_index=True)
    return out.sort_values(["member"], kind="stable").reset_index(drop=True)
