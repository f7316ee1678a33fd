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

The e_divide SE of the MR tables (:func:`matching_draw_variance`)
-----------------------------------------------------------------
``model_reliance.csv`` reports, for ``e_divide``, this exact SE rather than ``sd / sqrt(R)``, and at
no extra model evaluations: the ``e_switch`` estimate of the same model, loss and variables is
formed from the very matrix ``M`` (every ordered pair once, and the unchanged losses), which
:func:`~xaipipe.explain.reliance.model_reliance` keeps on request (``switch_matrix=True``,
:class:`SwitchLosses`). Where ``e_switch`` runs on a seeded subsample of ``m < n`` rows (config
``explain.reliance.e_switch_max_rows``), the variance of a halving of all ``n`` rows is *estimated*
from the ``m x m`` matrix: :math:`A`, the sum over pairs sharing one row :math:`B = R_2 - 2A` and
the sum over ordered pairs of disjoint pairs :math:`D = \\Sigma^2 + A - R_2` are sums over
configurations of 2, 3 and 4 distinct rows, so their averages over the subsample's configurations
are unbiased for the population's (U-statistics of a sample drawn without replacement), and the
variance, linear in them,

.. math:: \\pi_1(1 - \\pi_1) \\binom n2 \\hat a + (\\pi_2 - \\pi_1^2) \\binom n2 \\binom{n-2}2 \\hat d
          - \\pi_1^2 n(n-1)(n-2) \\hat b,

with the :math:`\\pi`'s of ``n``, is unbiased for the ``n``-row variance (exact when ``m = n``;
checked by enumerating every subsample of small ``n``). The coefficients sum to zero (a constant
shift of ``S`` changes no draw's spread), so ``S`` is centred first, for the arithmetic.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from ...losses import default_loss, resolve_loss
from ...validation import check_int
from ._base import DEFAULT_MAX_ROWS, check_X, check_y, features_from_groups, resolve_features

__all__ = ["switch_loss_matrix", "draw_variance", "exact_monte_carlo_se", "SwitchLosses", "matching_draw_variance"]


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


class SwitchLosses:
    """The switched-loss matrices of an ``e_switch`` pass, gathered from the losses the estimate is
    formed from (no more predictions): ``M[member][g, r, d]`` (:func:`switch_loss_matrix`'s entries).

    The hook of :func:`~xaipipe.explain.reliance.model_reliance` (``switch_matrix=True``): the
    engine and the generic path call :meth:`add` with each batch's losses by recipient and donor and
    :meth:`add_unchanged` with the unchanged rows' losses (the diagonal), as they call
    :class:`~xaipipe.explain.reliance._subsample.PairSums`.

    Parameters
    ----------
    n : int
        Rows: each matrix is ``n x n`` (``8 n²`` bytes per member and variable).
    n_groups : int
        Variables ``G``.
    """

    def __init__(self, n: int, n_groups: int):
        self.n, self.n_groups = int(n), int(n_groups)
        self._M: dict[int, np.ndarray] = {}

    def _of(self, member: int) -> np.ndarray:
        if member not in self._M:
            self._M[member] = np.full((self.n_groups, self.n, self.n), np.nan)
        return self._M[member]

    def add(self, members, g: int, recipients: np.ndarray, donors: np.ndarray, losses: np.ndarray) -> None:
        """Losses (shape ``(rows,)``) of rows ``recipients[q]`` with variable ``g`` of rows ``donors[q]``."""
        for i in members:
            self._of(i)[g, recipients, donors] = losses

    def add_unchanged(self, members, losses: np.ndarray) -> None:
        """The unchanged rows' losses (shape ``(n,)``): every variable's diagonal."""
        rows = np.arange(self.n)
        for i in members:
            self._of(i)[:, rows, rows] = np.asarray(losses, dtype=np.float64)

    def matrices(self) -> np.ndarray:
        """Shape ``(members, G, n, n)``, members in order.

        Raises
        ------
        RuntimeError
            An entry was never filled (not every ordered pair was evaluated).
        """
        out = np.stack([self._M[i] for i in sorted(self._M)])
        if np.isnan(out).any():
            raise RuntimeError("the switched-loss matrix is incomplete: not every ordered pair was evaluated")
        return out


def matching_draw_variance(M: np.ndarray, n_total: int | None = None) -> np.ndarray:
    """The variance of one ``e_divide`` halving of ``n_total`` rows, from a matrix of ``m`` of them.

    Parameters
    ----------
    M : ndarray of shape (..., m, m)
        Switched losses ``M[r, d]`` (recipient ``r``, donor ``d``; the diagonal is not used) of ``m``
        rows: all the rows (then exact), or a uniform random subsample of them without replacement
        (then an unbiased estimate; module docstring).
    n_total : int, optional
        Rows of the halvings (``n >= m``; default ``m``).

    Returns
    -------
    ndarray of shape (...)
        Variance of one halving's switched loss (squared loss units); :func:`draw_variance`'s
        ``e_divide`` variance when ``n_total = m``. Clipped at 0 (an estimate can fall below).

    Raises
    ------
    ValueError
        ``m < 4`` rows with ``n_total > m``, ``n_total < m``, or a non-square matrix.
    """
    M = np.asarray(M, dtype=np.float64)
    m = M.shape[-1]
    if M.shape[-2] != m:
        raise ValueError(f"M must be square in its last two axes, got shape {M.shape}")
    n = m if n_total is None else int(n_total)
    if n < m:
        raise ValueError(f"n_total ({n}) must be at least the matrix's rows ({m})")
    if m < 4 and n > m:
        raise ValueError(f"estimating the {n}-row variance needs at least 4 rows, got {m}")
    if n < 2:
        raise ValueError("needs at least 2 rows")
    S = M + np.swapaxes(M, -1, -2)
    off = ~np.eye(m, dtype=bool)
    S = S - (S[..., off].mean(axis=-1))[..., None, None]  # centred: the variance does not change
    S[..., ~off] = 0.0
    A = (S**2).sum(axis=(-1, -2)) / 2  # sum over unordered pairs of S²
    r = S.sum(axis=-1)
    R2 = (r**2).sum(axis=-1)
    Sig = r.sum(axis=-1) / 2
    B, D = R2 - 2 * A, Sig**2 + A - R2  # pairs sharing one row; ordered pairs of disjoint pairs
    a = A / (m * (m - 1) / 2)
    b = B / (m * (m - 1) * (m - 2)) if m >= 3 else np.zeros_like(A)
    d = D / (m * (m - 1) * (m - 2) * (m - 3) / 4) if m >= 4 else np.zeros_like(A)
    h = n // 2
    p1 = 2.0 * h / (n * (n - 1))
    p2 = 4.0 * h * (h - 1) / (n * (n - 1) * (n - 2) * (n - 3)) if n >= 4 else 0.0
    var = (
        p1 * (1 - p1) * a * (n * (n - 1) / 2)
        + (p2 - p1**2) * d * (n * (n - 1) * (n - 2) * (n - 3) / 4)
        - p1**2 * b * (n * (n - 1) * (n - 2))
    )
    return np.clip(var, 0.0, None) / (2 * h) ** 2


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
        loss = default_loss("classification" if not is_callable and is_classifier(model) else "regression")
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
