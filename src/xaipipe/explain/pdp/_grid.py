"""Grids and input checks of PD / ICE (private; see :mod:`xaipipe.explain.pdp`)."""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from ...validation import check_finite, check_matrix
from ...validation import check_int as _check_int_shared


def _check_int(value, name: str, minimum: int) -> int:
    """:func:`xaipipe.validation.check_int` with a positional minimum."""
    return _check_int_shared(value, name, minimum=minimum)


#: Default bound on the number of stacked rows passed to one model call.
DEFAULT_MAX_BATCH_ROWS = 100_000
#: Values of the ``kind`` column of :func:`effects_table`.
TABLE_KINDS = ("pd", "ice", "c_ice", "pd_centered", "d_ice", "d_pd", "d_ice_sd", "decile")
#: Level label of the all-zero row of a one-hot group (reference level).
NO_LEVEL = "(none)"

_OUTPUTS = ("auto", "predict", "proba", "logit")


def _check_1d(x, name: str) -> np.ndarray:
    arr = np.asarray(x)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} is empty")
    try:
        arr = arr.astype(np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be numeric") from exc
    check_finite(arr, name)
    return arr


def _check_grid_axis(grid, name: str = "grid") -> np.ndarray:
    g = _check_1d(grid, name)
    if g.size < 2:
        raise ValueError(f"{name} needs at least 2 points, got {g.size}")
    if np.any(np.diff(g) <= 0):
        raise ValueError(f"{name} must be strictly increasing")
    return g


def _check_curves(curves, n_grid: int | None = None, name: str = "curves") -> np.ndarray:
    c = np.asarray(curves, dtype=np.float64)
    if c.ndim != 2:
        raise ValueError(f"{name} must be 2-D (n_rows, n_grid), got shape {c.shape}")
    if c.shape[0] == 0:
        raise ValueError(f"{name} has no rows")
    if n_grid is not None and c.shape[1] != n_grid:
        raise ValueError(f"{name} has {c.shape[1]} grid columns but the grid has {n_grid} points")
    return c


def _check_X(X) -> tuple[np.ndarray, Callable[[np.ndarray], Any], list[str] | None]:
    """Return (float array, wrapper re-creating the caller's type, column names)."""
    if hasattr(X, "columns") and hasattr(X, "to_numpy"):
        columns = X.columns
        X = X.to_numpy()

        def wrap(a, _cols=columns):
            return pd.DataFrame(a, columns=_cols, copy=False)

        names = [str(c) for c in columns]
    else:

        def wrap(a):
            return a

        names = None
    return check_matrix(X, "X"), wrap, names


def _check_columns(features, n_features: int) -> list[int]:
    cols = [features] if isinstance(features, numbers.Integral) else list(features)
    if not cols:
        raise ValueError("features is empty")
    out = []
    for c in cols:
        if isinstance(c, bool) or not isinstance(c, numbers.Integral):
            raise TypeError(f"feature indices must be integers, got {c!r}")
        if not -n_features <= c < n_features:
            raise ValueError(f"feature index {c} out of range for X with {n_features} columns")
        out.append(int(c) % n_features)
    if len(set(out)) != len(out):
        raise ValueError(f"feature indices repeat: {out}")
    return out


# --------------------------------------------------------------------------- #
# grids
# --------------------------------------------------------------------------- #
def _mquantiles(x: np.ndarray, probs) -> np.ndarray:
    from scipy.stats.mstats import mquantiles

    return np.asarray(mquantiles(x, prob=np.asarray(probs, dtype=float)), dtype=np.float64)


def feature_grid(
    x,
    resolution: int = 100,
    kind: str = "uniform",
    percentiles: tuple[float, float] = (0.05, 0.95),
) -> np.ndarray:
    """Grid of values of one numeric feature for PD / ICE.

    Parameters
    ----------
    x : array-like of shape (n_samples,)
        Observed values of the feature (finite).
    resolution : int, default 100
        Number of grid points (>= 2).
    kind : {"uniform", "quantile"}, default "uniform"
        ``"uniform"``: ``resolution`` equally spaced points between the
        ``percentiles`` of ``x`` (scikit-learn's grid). ``"quantile"``: the
        quantiles of ``x`` at ``resolution`` equally spaced levels between the
        ``percentiles``, duplicates removed (denser where the data are).
    percentiles : (float, float), default (0.05, 0.95)
        Lower and upper quantile levels of the grid's ends, ``0 <= lo < hi <= 1``.
        ``(0, 1)`` spans the observed range.

    Returns
    -------
    ndarray of shape (n_grid,)
        Strictly increasing, in the units of ``x``. If ``x`` has fewer than
        ``resolution`` distinct values the grid is those values (sorted), as in
        ``sklearn.inspection.partial_dependence``.

    Raises
    ------
    ValueError
        Empty or non-finite ``x``, ``resolution < 2``, invalid ``percentiles``
        or ``kind``, or percentiles of ``x`` too close to build a grid.

    Notes
    -----
    Quantiles are ``scipy.stats.mstats.mquantiles`` (defaults
    ``alphap = betap = 0.4``), as scikit-learn's ``_grid_from_X``.
    """
    xv = _check_1d(x, "x")
    resolution = _check_int(resolution, "resolution", 2)
    if kind not in ("uniform", "quantile"):
        raise ValueError(f"kind must be 'uniform' or 'quantile', got {kind!r}")
    try:
        lo, hi = (float(p) for p in percentiles)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"percentiles must be two numbers, got {percentiles!r}") from exc
    if not (0.0 <= lo < hi <= 1.0):
        raise ValueError(f"percentiles must satisfy 0 <= lo < hi <= 1, got {percentiles!r}")
    uniques = np.unique(xv)
    if uniques.size < resolution:
        if uniques.size < 2:
            raise ValueError("x is constant: no grid can be built")
        return uniques
    ends = _mquantiles(xv, (lo, hi))
    if np.allclose(ends[0], ends[1]):
        raise ValueError(
            f"the {lo} and {hi} quantiles of x are (nearly) equal ({ends[0]!r}); choose percentiles further apart"
        )
    if kind == "uniform":
        return np.linspace(ends[0], ends[1], resolution)
    grid = np.unique(_mquantiles(xv, np.linspace(lo, hi, resolution)))
    return grid


def onehot_grid(X_group) -> np.ndarray:
    """Grid of a one-hot encoded categorical feature: its level vectors.

    Parameters
    ----------
    X_group : array-like of shape (n_samples, n_levels)
        The group's 0/1 columns, at most one 1 per row (an all-zero row is the
        reference level of a drop-first encoding).

    Returns
    -------
    ndarray of shape (n_grid, n_levels)
        The all-zero vector first if it occurs in ``X_group``, then the unit
        vectors :math:`e_1, \\dots, e_{n\\_levels}` in column order (every level,
        observed or not).

    Raises
    ------
    ValueError
        If ``X_group`` is not 2-D, has values other than 0/1, or a row with more
        than one 1.
    """
    A = np.asarray(X_group, dtype=np.float64)
    if A.ndim != 2 or A.shape[0] == 0 or A.shape[1] == 0:
        raise ValueError(f"X_group must be 2-D with rows and columns, got shape {A.shape}")
    if not np.all((A == 0) | (A == 1)):
        raise ValueError("a one-hot group must contain only 0/1 values")
    sums = A.sum(axis=1)
    if np.any(sums > 1):
        raise ValueError("a one-hot group has rows with more than one level set")
    levels = np.eye(A.shape[1])
    if np.any(sums == 0):
        levels = np.vstack([np.zeros((1, A.shape[1])), levels])
    return levels


def deciles(x) -> np.ndarray:
    """Deciles (10 %, ..., 90 %) of the observed values of a feature.

    Parameters
    ----------
    x : array-like of shape (n_samples,)

    Returns
    -------
    ndarray of shape (9,)
        In the units of ``x``; ``mquantiles`` defaults, as the rug of
        scikit-learn's ``PartialDependenceDisplay``.

    Raises
    ------
    ValueError
        Empty or non-finite ``x``.
    """
    return _mquantiles(_check_1d(x, "x"), np.arange(1, 10) / 10.0)
