"""Prediction intervals over a Rashomon set: the range of the good models' predictions, widened by
split-conformal calibration so that it has finite-sample coverage.

Predictive multiplicity (:mod:`.multiplicity`) says how far equally good models disagree on a row;
it is not a prediction interval: the range of the members' predictions ignores the noise, and at
ε = 0 it is a point. Here the range becomes one.

Definitions
-----------
*Rashomon range* of a row :math:`x`: :math:`[\\ell(x), u(x)] = [\\min_{h \\in R(\\epsilon)} h(x),
\\max_{h \\in R(\\epsilon)} h(x)]` (target units), over the refitted members of a grid scope (their test
predictions, ``member_predictions.npy``) or, for the class of all linear models, exactly
(:func:`linear_prediction_range`).

*Rashomon prediction interval* (split conformal, Vovk et al. 2005; Lei et al. 2018, JASA 113(523),
Algorithm 2; with the range in place of the quantile regressions of conformalized quantile
regression, Romano, Patterson & Candès 2019, NeurIPS, Eq. 6): on calibration rows the score
:math:`s_i = \\max(\\ell(x_i) - y_i, y_i - u(x_i))` (how far :math:`y_i` lies outside the range; negative
inside), :math:`q` its :math:`\\lceil (n_{cal} + 1) \\cdot \\text{level} \\rceil`-th smallest value
(MAPIE's ``ConformalizedQuantileRegressor``, prefit, symmetric correction), and the interval
:math:`[\\ell(x) - q^+, u(x) + q^+]` with :math:`q^+ = \\max(q, 0)`: the range is widened, never
narrowed. Because the set is fixed before the calibration rows are seen (members chosen by CV on the
training split, the linear set on the training split), the calibration and evaluation rows are
exchangeable, and :math:`P(y \\in C(x)) \\ge` level in finite samples (the interval contains the
conformalized one, whose guarantee it inherits; without the clipping also :math:`\\le` level
:math:`+ 1/(n_{cal} + 1)` for continuous scores).

The exact linear set
--------------------
``F`` = all linear models :math:`b_0 + x'\\beta`, ``R = {f : e_train(f) ≤ e_train(OLS) + δ}``
(:math:`\\delta \\ge 0` the absolute slack in MSE units on the training split). With
:math:`A = \\tilde X'\\tilde X / n` of the centred training design and :math:`m` the mean residual,
:math:`e_{train} - e_{min} = (\\beta - \\hat\\beta)'A(\\beta - \\hat\\beta) + m^2` and
:math:`f(x) - \\hat f(x) = (x - \\bar x)'(\\beta - \\hat\\beta) - m`, so the range is, exactly,

.. math:: \\hat f(x) \\pm \\sqrt{\\delta \\, (1 + h(x))}, \\qquad h(x) = (x - \\bar x)' A^{-1} (x - \\bar x)

(the maximum of a linear function over an ellipsoid; :math:`h` is the Mahalanobis distance of the
row from the training mean, about :math:`p` on average for a test row, not the hat-matrix leverage
:math:`h/n`). The range grows like :math:`\\sqrt\\delta`; the conformal correction falls as it
grows, so the interval's width stays near split conformal's :math:`2 q_0` (the reference model's
absolute-residual quantile) until the range alone covers the level, at

.. math:: \\delta^* \\approx \\frac{q_0^2}{1 + \\bar h} \\approx \\frac{z_{(1+\\text{level})/2}^2 \\, \\sigma^2}{1 + p}

for Gaussian noise of variance :math:`\\sigma^2` (relative slack :math:`\\delta^*/e_{min} \\approx
3.84/(1 + p)` at 0.95), and grows with the range beyond it: the kink of the width against ε. Below
:math:`\\delta^*` model multiplicity does not widen a calibrated interval (it redistributes it
towards rows of high leverage); above it the set is wider than the predictive uncertainty. The
:math:`\\Theta(\\sigma^2/p)` is the order that "When does model multiplicity affect prediction
intervals?" (PMLR v337) states for ridge; that paper was not accessible here, so its constant and
its normalisation of ε are not compared: the kink above is derived for this module's ε (the
absolute MSE slack of the unpenalised linear class) and measured on the regression datasets
(``docs/rashomon.md``, "Prediction intervals over the Rashomon set").
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import linalg
from sklearn.linear_model import LinearRegression

from ..validation import check_int
from ._frames import NamedFrames
from ._linear_basis import _EPS, _as_matrix, _as_vector
from .linear import LINEAR_EXACT, linear_loss_bound
from .sets import CROSS_FAMILY

__all__ = [
    "PredictionIntervalTables",
    "conformal_range",
    "linear_prediction_range",
    "prediction_interval_tables",
]


def _check_level(level) -> float:
    level = float(level)
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be in (0, 1), got {level!r}")
    return level


def linear_prediction_range(X_train, y_train, X, slack) -> tuple[np.ndarray, np.ndarray]:
    """The exact range of the predictions of all linear models within ``slack`` of least squares.

    Parameters
    ----------
    X_train : array-like of shape (n, p)
        Training design (numeric; columns are centred and scaled inside, so raw UCI columns of any
        conditioning are fine).
    y_train : array-like of shape (n,)
    X : array-like of shape (k, p)
        Rows to predict.
    slack : float or array-like of shape (s,)
        Absolute slack :math:`\\delta \\ge 0` over the least-squares training MSE (squared target
        units): the set is ``{f : e_train(f) <= e_train(OLS) + δ}``.

    Returns
    -------
    center : ndarray of shape (k,)
        The OLS prediction :math:`\\hat f(x)`.
    half_width : ndarray of shape (k,) or (s, k)
        :math:`\\sqrt{\\delta (1 + h(x))}` (module docstring), target units; ``inf`` where ``x`` leaves
        the span of the centred training rows (no direction of the training data pins it).

    Raises
    ------
    ValueError
        Non-numeric or non-finite input, mismatched shapes, fewer than 2 training rows, a negative
        or non-finite slack.
    """
    Xt, _ = _as_matrix(X_train)
    n, p = Xt.shape
    if n < 2:
        raise ValueError(f"linear_prediction_range needs at least 2 training rows, got {n}")
    y = _as_vector(y_train, "y_train", n)
    Xq, _ = _as_matrix(X)
    if Xq.shape[1] != p:
        raise ValueError(f"X has {Xq.shape[1]} columns, X_train {p}")
    delta = np.asarray(slack, dtype=float)
    if delta.ndim > 1 or not np.all(np.isfinite(delta)) or np.any(delta < 0):
        raise ValueError(f"slack must be a finite number >= 0 or a 1-D array of them, got {slack!r}")
    xm = Xt.mean(axis=0)
    scale = np.sqrt(np.mean((Xt - xm) ** 2, axis=0))
    scale[scale == 0] = 1.0
    Xs = (Xt - xm) / scale
    # A = Xs'Xs/n = V Σ² V': the SVD of the standardised design (never the raw Gram matrix)
    _, sig, Vt = linalg.svd(Xs / math.sqrt(n), full_matrices=False, lapack_driver="gesvd")
    keep = sig > max(n, p) * _EPS * sig[0] if sig.size and sig[0] > 0 else np.zeros(sig.size, bool)
    coef_s = Vt[keep].T @ ((Vt[keep] @ (Xs.T @ (y - y.mean()) / n)) / sig[keep] ** 2)
    Zq = (Xq - xm) / scale
    proj = Zq @ Vt[keep].T
    leverage = np.sum((proj / sig[keep]) ** 2, axis=1)
    outside = np.linalg.norm(Zq - proj @ Vt[keep], axis=1) > 1e3 * _EPS * max(1.0, float(np.abs(Xs).max()))
    center = float(y.mean()) + Zq @ coef_s
    half = np.sqrt(np.multiply.outer(delta, 1.0 + leverage))
    if np.any(outside):
        half = np.where(outside, np.inf, half)
    return center, half


class _Column:
    """A prefit "regressor" returning one column of ``X``: how the range's bounds enter MAPIE, which
    conformalizes fitted estimators."""

    def __init__(self, j: int):
        self.j = j
        self.n_features_in_ = 3

    def fit(self, X, y=None):
        return self

    def predict(self, X):
        return np.asarray(X)[:, self.j]

    def get_params(self, deep=True):
        return {"j": self.j}

    def set_params(self, **params):
        self.j = params.get("j", self.j)
        return self


def conformal_range(lower_cal, upper_cal, y_cal, *, level: float = 0.95) -> float:
    """The split-conformal correction :math:`q` of a range (MAPIE's conformalized quantile regression).

    Parameters
    ----------
    lower_cal, upper_cal, y_cal : array-like of shape (n_cal,)
        The range's bounds and the response on the calibration rows (target units).
    level : float, default 0.95
        Nominal coverage, in (0, 1).

    Returns
    -------
    float
        :math:`q`, the :math:`\\lceil (n_{cal}+1) \\cdot \\text{level} \\rceil`-th smallest score
        :math:`\\max(\\ell_i - y_i, y_i - u_i)` (target units; negative when the range covers more than
        the level); ``inf`` (an interval that certifies any level) when ``n_cal`` is below MAPIE's
        minimum, ``1 / (1 - level)`` rows (20 at 0.95). The interval is
        ``[ℓ - max(q, 0), u + max(q, 0)]``.

    Raises
    ------
    ValueError
        Mismatched shapes, non-finite values, ``lower > upper`` somewhere, a level outside (0, 1).
    """
    from mapie.regression import ConformalizedQuantileRegressor  # optional dependency: the rule's only

    level = _check_level(level)
    y = _as_vector(y_cal, "y_cal")
    lo = _as_vector(lower_cal, "lower_cal", y.size)
    hi = _as_vector(upper_cal, "upper_cal", y.size)
    if np.any(lo > hi):
        raise ValueError("the range's lower bound exceeds its upper bound on some calibration row")
    if y.size < max(1.0 / (1.0 - level), 1.0 / level) - 1e-9:
        return math.inf
    X = np.column_stack([lo, hi, 0.5 * (lo + hi)])
    cqr = ConformalizedQuantileRegressor([_Column(0), _Column(1), _Column(2)], confidence_level=level, prefit=True)
    cqr.conformalize(X, y)
    probe = np.array([[0.0, 0.0, 0.0]])
    _, bounds = cqr.predict_interval(probe, symmetric_correction=True)
    return float(-bounds[0, 0, 0])


def _halves(n: int, n_splits: int, seed: int) -> list[np.ndarray]:
    """``n_splits`` random permutations of ``range(n)``: the first half calibrates, the rest is evaluated."""
    rng = np.random.default_rng(seed)
    return [rng.permutation(n) for _ in range(n_splits)]


def _interval_stats(lo, hi, y, splits, level) -> dict:
    """Range and interval statistics of one set over the calibration / evaluation splits."""
    n = y.size
    half = n // 2
    inside = (lo <= y) & (y <= hi)
    cover, width, corr = [], [], []
    for perm in splits:
        cal, ev = perm[:half], perm[half:]
        q = conformal_range(lo[cal], hi[cal], y[cal], level=level)
        qp = max(q, 0.0)
        cover.append(float(np.mean((lo[ev] - qp <= y[ev]) & (y[ev] <= hi[ev] + qp))))
        width.append(float(np.mean(hi[ev] - lo[ev] + 2 * qp)))
        corr.append(q)
    cover, width, corr = np.array(cover), np.array(width), np.array(corr)
    return {
        "range_coverage": float(inside.mean()),
        "range_width": float(np.mean(hi - lo)),
        "correction": float(np.mean(corr)),
        "coverage": float(np.mean(cover)),
        "coverage_sd": float(np.std(cover, ddof=1)) if cover.size > 1 else math.nan,
        "width": float(np.mean(width)),
        "n_calibration": int(half),
        "n_evaluation": int(n - half),
    }


def _rows_two_fold(lo, hi, y, perm, level) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per row, the interval calibrated on the other half of ``perm`` (both halves in turn)."""
    n = y.size
    half = n // 2
    a, b = perm[:half], perm[half:]
    q = np.empty(n)
    q[b] = conformal_range(lo[a], hi[a], y[a], level=level)
    q[a] = conformal_range(lo[b], hi[b], y[b], level=level)
    qp = np.maximum(q, 0.0)
    return lo - qp, hi + qp, q


def _grid_scopes(index: pd.DataFrame, members: pd.DataFrame, epsilons: Sequence[float]):
    """``(scope, epsilon, rows of the prediction matrix)`` of every grid scope."""
    key = ["family", "config_id"]
    base = members.drop_duplicates(key).astype({"family": str, "config_id": str})
    pos = {tuple(r): i for i, r in enumerate(index[key].astype(str).itertuples(index=False, name=None))}
    scopes = sorted(base["family"].unique().tolist())
    if f"min_epsilon_{CROSS_FAMILY}" in base and base[f"is_reference_{CROSS_FAMILY}"].astype(bool).any():
        scopes.append(CROSS_FAMILY)
    for scope in scopes:
        label = CROSS_FAMILY if scope == CROSS_FAMILY else "family"
        part = base if scope == CROSS_FAMILY else base[base["family"] == scope]
        rows = np.array([pos[tuple(r)] for r in part[key].itertuples(index=False, name=None)])
        entry = np.nan_to_num(part[f"min_epsilon_{label}"].to_numpy(dtype=float), nan=np.inf)
        for eps in epsilons:
            yield scope, float(eps), rows[entry <= eps]


@dataclass(frozen=True)
class PredictionIntervalTables(NamedFrames):
    """The tables of the ``prediction_intervals`` rule (:func:`prediction_interval_tables`).

    Attributes
    ----------
    intervals : DataFrame
        Per scope and ε (the grid scopes on the ε grid; ``linear_exact`` on the ε grid and on a
        path of slacks): ``range_coverage`` (share of test rows whose response lies in the Rashomon
        range), ``range_width`` (its mean width, target units), and over ``n_splits`` random
        calibration / evaluation halvings of the test rows, the mean ``correction`` :math:`q`,
        ``coverage`` (mean share of evaluation rows covered) with ``coverage_sd`` (its standard
        deviation over the halvings: they share rows, so it is not a standard error) and the mean
        ``width`` of the Rashomon prediction interval.
    rows : DataFrame
        Per scope and test row at the default ε: the range, the interval calibrated on the other half
        of the first halving, ``y_true``, ``covered``.
    """

    intervals: pd.DataFrame
    rows: pd.DataFrame

    #: The tables, in the order the rule writes them.
    FRAMES = ("intervals", "rows")


def _linear_slacks(X_train, y_train, epsilons, epsilon_mode, max_slack, path_points):
    """``(e_min, [(epsilon or NaN, slack), ...])``: the ε grid carried to the training sample's MSE
    (:func:`xaipipe.rashomon.linear.linear_loss_bound`) and a path of relative slacks ``δ / e_min``."""
    ols = LinearRegression().fit(X_train, y_train)
    e_min = None
    points = []
    for eps in epsilons:
        e_min, bound = linear_loss_bound(X_train, y_train, ols.coef_, ols.intercept_, eps, epsilon_mode)
        points.append((float(eps), bound - e_min))
    if e_min is None:
        e_min, _ = linear_loss_bound(X_train, y_train, ols.coef_, ols.intercept_, 0.0, epsilon_mode)
    for r in np.linspace(0.0, float(max_slack), int(path_points)):
        points.append((math.nan, float(r) * e_min))
    return e_min, points


def prediction_interval_tables(
    data,
    predictions,
    index: pd.DataFrame,
    members: pd.DataFrame,
    *,
    epsilons: Sequence[float],
    default_epsilon: float,
    epsilon_mode: str = "se",
    level: float = 0.95,
    n_splits: int = 20,
    max_slack: float = 2.0,
    path_points: int = 41,
    seed: int = 0,
) -> PredictionIntervalTables:
    """The ``prediction_intervals`` rule: Rashomon prediction intervals of every scope of a
    regression dataset, their coverage and width against ε.

    Parameters
    ----------
    data : PreparedData
        The split (``X_train``, ``y_train``, ``X_test``, ``y_test``, ``test_rows``, ``task``,
        ``dataset``).
    predictions : array-like of shape (m, n_test)
        The members' test predictions (``member_predictions.npy``).
    index : DataFrame
        ``family``, ``config_id`` of each row of ``predictions``.
    members : DataFrame
        ``members.csv`` (``min_epsilon_family`` / ``min_epsilon_cross_family``).
    epsilons, default_epsilon, epsilon_mode
        The Rashomon step's ε grid, default ε and mode (``rashomon.epsilons``, ``.epsilon``,
        ``.epsilon_mode``); for ``linear_exact`` carried to the training split's MSE as the
        ``linear_exact`` scope of the MCR tables does on the test split.
    level : float, default 0.95
        Nominal coverage.
    n_splits : int, default 20
        Random calibration / evaluation halvings of the test rows.
    max_slack, path_points : float, int
        The ``linear_exact`` path: ``path_points`` relative slacks ``δ / e_min`` from 0 to
        ``max_slack``.
    seed : int
        Seed of the halvings.

    Returns
    -------
    PredictionIntervalTables

    Raises
    ------
    ValueError
        A classification dataset (the intervals are for a real response), predictions whose shape
        does not match the test rows, fewer than 4 test rows, a bad level.
    """
    level = _check_level(level)
    check_int(n_splits, "n_splits", minimum=1)
    if data.task != "regression":
        raise ValueError(f"dataset {data.dataset!r}: Rashomon prediction intervals are for regression only")
    y = np.asarray(data.y_test, dtype=float)
    P = np.asarray(predictions, dtype=float)
    if P.ndim != 2 or P.shape[1] != y.size or P.shape[0] != len(index):
        raise ValueError(
            f"dataset {data.dataset!r}: predictions of shape {P.shape} do not match "
            f"{len(index)} members x {y.size} test rows"
        )
    if y.size < 4:
        raise ValueError(f"dataset {data.dataset!r}: {y.size} test rows are too few to calibrate on half of them")
    splits = _halves(y.size, int(n_splits), seed)
    grid = sorted({float(e) for e in epsilons})
    stats, row_tables = [], []
    ids = np.asarray(data.test_rows)

    def add(scope, eps, lo, hi, extra):
        rec = {"dataset": data.dataset, "scope": scope, "epsilon": eps, "epsilon_mode": epsilon_mode, **extra}
        stats.append({**rec, "level": level, **_interval_stats(lo, hi, y, splits, level), "n_splits": len(splits)})
        if eps == float(default_epsilon):
            lower, upper, q = _rows_two_fold(lo, hi, y, splits[0], level)
            row_tables.append(
                pd.DataFrame(
                    {
                        "dataset": data.dataset,
                        "scope": scope,
                        "epsilon": eps,
                        "row": ids,
                        "y_true": y,
                        "range_min": lo,
                        "range_max": hi,
                        "lower": lower,
                        "upper": upper,
                        "correction": q,
                        "covered": (lower <= y) & (y <= upper),
                    }
                )
            )

    for scope, eps, rows in _grid_scopes(index, members, grid):
        if rows.size == 0:
            continue
        add(scope, eps, P[rows].min(axis=0), P[rows].max(axis=0), {"n_members": int(rows.size)})
    Xtr, ytr = np.asarray(data.X_train, dtype=float), np.asarray(data.y_train, dtype=float)
    e_min, points = _linear_slacks(Xtr, ytr, grid, epsilon_mode, max_slack, path_points)
    center, half = linear_prediction_range(Xtr, ytr, np.asarray(data.X_test, dtype=float), [s for _, s in points])
    for (eps, slack), h in zip(points, half):
        extra = {"n_members": math.nan, "slack": slack, "relative_slack": slack / e_min if e_min > 0 else math.nan}
        add(LINEAR_EXACT, eps, center - h, center + h, extra)
    intervals = pd.DataFrame(stats)
    intervals["is_default"] = intervals["epsilon"].to_numpy(dtype=float) == float(default_epsilon)
    rows = pd.concat(row_tables, ignore_index=True) if row_tables else pd.DataFrame()
    return PredictionIntervalTables(intervals=intervals, rows=rows)
