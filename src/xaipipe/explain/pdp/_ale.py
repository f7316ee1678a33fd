"""Accumulated local effects (ALE): first-order effects of a numeric feature or a categorical group,
and the second-order effect of a pair (Apley & Zhu 2020).

Why ALE beside PD
-----------------
The partial dependence :math:`\\bar f_S(z) = \\frac1N \\sum_i \\hat f(z, x_C^{(i)})` sets the feature
to ``z`` in *every* row, so with dependent features it evaluates the model on rows that do not
occur (an abalone of 0.1 kg whole weight and 1 kg shucked weight) and averages the extrapolation
into the curve. ALE only moves a row's feature inside the small bin that contains it and
accumulates the *local* differences, so the model is evaluated near the data
(Apley & Zhu 2020, §§2-3).

Definitions (Apley, D. W. & Zhu, J. 2020, "Visualizing the effects of predictor variables in
black box supervised learning models", JRSS-B 82(4), 1059-1086)
----------------------------------------------------------------------------------------------
*Numeric feature* :math:`x_j` (§4, eqs. (15)-(16); the authors' R package ``ALEPlot``). Bin edges
:math:`z_0 < z_1 < \\dots < z_K`: :math:`z_0 = \\min_i x_{ij}` and :math:`z_k` the empirical
quantile of level :math:`k/K` (inverse of the empirical CDF, R's ``quantile(type = 1)``), duplicates
removed, so :math:`K \\le` ``n_bins``. Row ``i`` lies in bin :math:`k(i)`, the interval
:math:`(z_{k-1}, z_k]` (the first bin also holds :math:`z_0`); :math:`n_k` rows per bin. The
uncentred effect at the edges is

.. math:: \\hat g_j(z_k) = \\sum_{m=1}^{k} \\frac{1}{n_m} \\sum_{i: k(i) = m}
          \\big[\\hat f(z_m, x_{i,\\setminus j}) - \\hat f(z_{m-1}, x_{i,\\setminus j})\\big],
          \\qquad \\hat g_j(z_0) = 0,

(eq. 15; the inner mean is the *local effect* of bin ``m``, in output units). The centred ALE
subtracts the mean effect over the rows, :math:`\\hat f_{j,ALE}(z_k) = \\hat g_j(z_k) - c`:

* ``centering="ale_plot"`` (default; ``ALEPlot``, iml, PyALE, alibi): :math:`\\hat g` is linear
  between the edges and :math:`c = \\frac1n \\sum_k n_k\\, (\\hat g(z_{k-1}) + \\hat g(z_k)) / 2`,
  i.e. each row contributes the mean of :math:`\\hat g` over its bin;
* ``centering="paper"``: eq. (16) read literally, :math:`\\hat g` a step function equal to
  :math:`\\hat g(z_{k(i)})` on bin :math:`k(i)`, so :math:`c = \\frac1n \\sum_i \\hat g(z_{k(i)})
  = \\frac1n \\sum_k n_k\\, \\hat g(z_k)`.

Both weight the bins by their rows; they differ by half a bin's increment at most.

*Categorical group* (a one-hot group such as Abalone's ``Sex``; §5.3 and ``ALEPlot``'s factor
branch). The levels have no order, and ALE needs one: the distance between two levels ``a``, ``b``
is the sum over the other variables of the distance between their distributions within the two
levels -- Kolmogorov-Smirnov :math:`\\max_q |F_a(q) - F_b(q)|` over the 100 quantiles
:math:`q` of a numeric column (levels 0, 1/99, ..., 1, R's type 7), half the :math:`L_1` distance
of the level frequencies of another one-hot group -- and the levels are ordered by their
coordinate in a one-dimensional classical multidimensional scaling of that distance matrix
(R's ``cmdscale(k = 1)``; iml's ``order_levels``; the sign of the coordinate is fixed so that the
first level in column order comes first among equals -- the centred ALE does not depend on the
direction). With the ordered levels :math:`l_1, \\dots, l_K`, the local effect of step
``k`` is the mean of :math:`\\hat f(l_k, x_{i,\\setminus j}) - \\hat f(l_{k-1}, x_{i,\\setminus j})`
over the rows at level :math:`l_{k-1}` (moved up) and at level :math:`l_k` (moved down); the
uncentred ALE accumulates them from :math:`\\hat g(l_1) = 0` and the centred ALE subtracts
:math:`\\sum_k p_k \\hat g(l_k)`, :math:`p_k` the share of rows at level :math:`l_k`.

*Pair* :math:`(x_j, x_l)` of numeric features (§4, the second-order estimator; ``ALEPlot`` with
two features). Each feature has its own quantile bins; row ``i`` lies in cell
:math:`(k, m)`; the cell's local effect is the mean of the second difference

.. math:: \\Delta_i = [\\hat f(z_k, w_m) - \\hat f(z_{k-1}, w_m)] - [\\hat f(z_k, w_{m-1})
          - \\hat f(z_{k-1}, w_{m-1})]

over its rows (empty cells take the value of the nearest non-empty cell, by the distance between
the cell centres with each axis scaled to its range, as ``ALEPlot`` and PyALE). The double
cumulative sum gives :math:`\\hat h(z_k, w_m)` (zero on the first row and column). The
second-order ALE subtracts from :math:`\\hat h` its own first-order ALE along each axis (the
row-weighted mean over the other axis of the differences of :math:`\\hat h`, accumulated) and then
its row-weighted mean over the cells (each cell the mean of its four corners), exactly as
``ALEPlot``. The result is the *pure interaction*: it is zero for a model without a
:math:`x_j`-:math:`x_l` interaction, and :math:`\\hat f_{j,ALE} + \\hat f_{l,ALE} + \\hat f_{jl,ALE}`
is the joint effect.

Computation: one model call per ``max_batch_rows`` stacked rows, ``2n`` rows for a numeric
feature, at most ``3n`` for a group and ``4n`` for a pair (the model's own batching does the rest).
The result does not depend on the order of the rows.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ...validation import check_finite
from ._curves import effect_function
from ._effects import _output_label, _resolve_feature
from ._grid import DEFAULT_MAX_BATCH_ROWS, NO_LEVEL, _check_int, _check_X, onehot_grid

__all__ = [
    "ALE_COLUMNS",
    "ALEResult",
    "ALE2DResult",
    "accumulated_local_effects",
    "accumulated_local_effects_2d",
    "ale_bin_edges",
    "order_levels",
]

#: Centering options of :func:`accumulated_local_effects`.
CENTERINGS = ("ale_plot", "paper")

#: Columns of :meth:`ALEResult.to_frame`.
ALE_COLUMNS = [
    "feature",
    "kind",
    "position",
    "value",
    "level",
    "bin_lower",
    "n_rows",
    "local_effect",
    "ale_uncentred",
    "ale",
    "centering",
    "output",
]


@dataclass(frozen=True)
class ALEResult:
    """First-order ALE of one numeric feature or one categorical group.

    Attributes
    ----------
    feature : str
    kind : {"numeric", "categorical"}
    values : ndarray of shape (K + 1,) or (K,)
        Numeric: the bin edges :math:`z_0 < \\dots < z_K` (feature units). Categorical: the
        position ``0..K-1`` of each level in the ALE order.
    levels : tuple of str or None
        Categorical: the level names in the ALE order (``"(none)"`` for the all-zero level of a
        drop-first encoding). None for a numeric feature.
    n_rows : ndarray of shape (K,)
        Rows per bin (numeric: bin ``k`` is :math:`(z_{k-1}, z_k]`) or per level.
    local_effects : ndarray of shape (K,) or (K - 1,)
        Mean finite difference of each bin (numeric) or of each step between consecutive levels
        (output units).
    ale_uncentred : ndarray, same shape as ``values``
        :math:`\\hat g` at the edges / levels (0 at the first).
    ale : ndarray, same shape as ``values``
        The centred ALE (output units).
    centering : str
    output : str
        What the model output is (``"predict"``, ``"proba"``, ``"logit"``, ``"callable"``).
    """

    feature: str
    kind: str
    values: np.ndarray
    levels: tuple | None
    n_rows: np.ndarray
    local_effects: np.ndarray
    ale_uncentred: np.ndarray
    ale: np.ndarray
    centering: str
    output: str

    @property
    def edges(self) -> np.ndarray:
        """The bin edges of a numeric feature.

        Raises
        ------
        AttributeError
            For a categorical group.
        """
        if self.kind != "numeric":
            raise AttributeError("a categorical ALE has levels, not bin edges")
        return self.values

    def to_frame(self) -> pd.DataFrame:
        """Tidy table, one row per edge (numeric) or level (categorical), columns :data:`ALE_COLUMNS`.

        Numeric rows ``position = 0..K``: ``value`` the edge :math:`z_k`, ``bin_lower``
        :math:`z_{k-1}` and ``n_rows`` / ``local_effect`` of bin ``k`` = :math:`(z_{k-1}, z_k]`
        (NaN / 0 for ``position = 0``). Categorical rows: ``level`` in ALE order, ``n_rows`` its
        rows, ``local_effect`` of the step from the previous level (NaN for the first).
        """
        K = self.values.size
        if self.kind == "numeric":
            lower = np.concatenate([[np.nan], self.values[:-1]])
            rows = np.concatenate([[0], self.n_rows])
            local = np.concatenate([[np.nan], self.local_effects])
            level = [""] * K
        else:
            lower = np.full(K, np.nan)
            rows = self.n_rows
            local = np.concatenate([[np.nan], self.local_effects])
            level = list(self.levels)
        return pd.DataFrame(
            {
                "feature": self.feature,
                "kind": self.kind,
                "position": np.arange(K),
                "value": self.values.astype(np.float64),
                "level": level,
                "bin_lower": lower,
                "n_rows": rows.astype(np.int64),
                "local_effect": local,
                "ale_uncentred": self.ale_uncentred,
                "ale": self.ale,
                "centering": self.centering,
                "output": self.output,
            }
        )[ALE_COLUMNS]


@dataclass(frozen=True)
class ALE2DResult:
    """Second-order ALE of a pair of numeric features.

    Attributes
    ----------
    feature_1, feature_2 : str
    edges_1 : ndarray of shape (K1 + 1,)
    edges_2 : ndarray of shape (K2 + 1,)
    n_rows : ndarray of shape (K1, K2)
        Rows per cell.
    local_effects : ndarray of shape (K1, K2)
        Mean second difference per cell, empty cells imputed from the nearest non-empty cell.
    empty : ndarray of bool, shape (K1, K2)
        Cells without rows (their local effect was imputed).
    ale : ndarray of shape (K1 + 1, K2 + 1)
        The centred second-order effect at the grid of edges (output units).
    output : str
    """

    feature_1: str
    feature_2: str
    edges_1: np.ndarray
    edges_2: np.ndarray
    n_rows: np.ndarray
    local_effects: np.ndarray
    empty: np.ndarray
    ale: np.ndarray
    output: str

    def to_frame(self) -> pd.DataFrame:
        """Long table, one row per grid point ``(k, m)``: ``feature_1``, ``feature_2``,
        ``position_1``, ``position_2``, ``value_1``, ``value_2`` (the edges), ``ale``, and for the
        cell whose upper corner it is (``k, m >= 1``) ``n_rows`` and ``imputed`` (0 / False on the
        first row and column), ``output``."""
        K1, K2 = self.ale.shape
        k, m = np.meshgrid(np.arange(K1), np.arange(K2), indexing="ij")
        rows = np.zeros((K1, K2), dtype=np.int64)
        rows[1:, 1:] = self.n_rows
        imputed = np.zeros((K1, K2), dtype=bool)
        imputed[1:, 1:] = self.empty
        return pd.DataFrame(
            {
                "feature_1": self.feature_1,
                "feature_2": self.feature_2,
                "position_1": k.ravel(),
                "position_2": m.ravel(),
                "value_1": self.edges_1[k.ravel()],
                "value_2": self.edges_2[m.ravel()],
                "ale": self.ale.ravel(),
                "n_rows": rows.ravel(),
                "imputed": imputed.ravel(),
                "output": self.output,
            }
        )


# --------------------------------------------------------------------------- helpers


def _check_centering(centering: str) -> str:
    if centering not in CENTERINGS:
        raise ValueError(f"centering must be one of {CENTERINGS}, got {centering!r}")
    return centering


def _predict_stacked(f, wrap, blocks: Sequence[np.ndarray], max_batch_rows: int) -> list[np.ndarray]:
    """Model output of several data sets of equal width, stacked and cut into calls of at most
    ``max_batch_rows`` rows; returned per block."""
    sizes = [b.shape[0] for b in blocks]
    stacked = np.concatenate(blocks, axis=0)
    out = np.empty(stacked.shape[0], dtype=np.float64)
    for start in range(0, stacked.shape[0], max_batch_rows):
        stop = min(start + max_batch_rows, stacked.shape[0])
        y = np.asarray(f(wrap(stacked[start:stop])), dtype=np.float64)
        if y.shape == (stop - start, 1):
            y = y[:, 0]
        if y.shape != (stop - start,):
            raise ValueError(f"model output must have shape ({stop - start},), got {y.shape}")
        check_finite(y, "model output")
        out[start:stop] = y
    return np.split(out, np.cumsum(sizes)[:-1])


def ale_bin_edges(x, n_bins: int = 20) -> np.ndarray:
    """Quantile bin edges of ALE: the minimum and the type-1 quantiles of levels ``k / n_bins``.

    Parameters
    ----------
    x : array-like of shape (n,)
        Observed values (finite, at least two distinct).
    n_bins : int, default 20
        Requested bins (``>= 1``); ties in the quantiles merge bins.

    Returns
    -------
    ndarray of shape (K + 1,)
        Strictly increasing, ``K <= n_bins``; ``edges[0] = min(x)``, ``edges[-1] = max(x)``. As
        ``ALEPlot``'s ``c(min(x), quantile(x, seq(1/K, 1, length = K), type = 1))``.

    Raises
    ------
    ValueError
        Non-finite ``x`` or fewer than two distinct values. ``TypeError``: non-integer ``n_bins``.
    """
    xv = np.asarray(x, dtype=np.float64)
    if xv.ndim != 1 or xv.size == 0 or not np.all(np.isfinite(xv)):
        raise ValueError("x must be a non-empty 1-D array of finite numbers")
    K = _check_int(n_bins, "n_bins", 1)
    probs = np.arange(1, K + 1) / K
    q = np.quantile(xv, probs, method="inverted_cdf")
    edges = np.unique(np.concatenate([[xv.min()], q]))
    if edges.size < 2:
        raise ValueError("the feature is constant: ALE needs at least two distinct values")
    return edges


def _check_edges(edges, x: np.ndarray, name: str) -> np.ndarray:
    e = np.asarray(edges, dtype=np.float64)
    if e.ndim != 1 or e.size < 2 or not np.all(np.isfinite(e)) or np.any(np.diff(e) <= 0):
        raise ValueError(f"edges of {name!r} must be a strictly increasing 1-D array of at least 2 finite values")
    if x.min() < e[0] or x.max() > e[-1]:
        raise ValueError(f"edges of {name!r} must cover the observed values [{x.min()}, {x.max()}]")
    empty = np.flatnonzero(np.bincount(_bin_index(x, e) - 1, minlength=e.size - 1) == 0)
    if empty.size:
        raise ValueError(f"bin {int(empty[0]) + 1} of {name!r} has no rows; give edges with a row in every bin")
    return e


def _bin_index(x: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Bin ``k`` (1-based) of each value: ``(edges[k-1], edges[k]]``, the minimum in bin 1."""
    return np.clip(np.searchsorted(edges, x, side="left"), 1, edges.size - 1)


def _centre_numeric(g: np.ndarray, counts: np.ndarray, centering: str) -> np.ndarray:
    n = counts.sum()
    if centering == "paper":
        c = float((counts * g[1:]).sum() / n)
    else:
        c = float((counts * (g[:-1] + g[1:]) / 2.0).sum() / n)
    return g - c


def _cmdscale_1d(D: np.ndarray) -> np.ndarray:
    """First coordinate of classical multidimensional scaling (R's ``cmdscale(D, k = 1)``)."""
    n = D.shape[0]
    J = np.eye(n) - np.ones((n, n)) / n
    B = -0.5 * J @ (D**2) @ J
    vals, vecs = np.linalg.eigh(B)
    top = int(np.argmax(vals))
    coord = vecs[:, top] * np.sqrt(max(vals[top], 0.0))
    nz = np.flatnonzero(np.abs(coord) > 1e-12 * max(1.0, np.abs(coord).max()))
    if nz.size and coord[nz[0]] > 0:  # fix the eigenvector's sign: the first level leans to the start
        coord = -coord
    return coord


def order_levels(
    level_of_row: np.ndarray,
    n_levels: int,
    X_other: np.ndarray,
    categorical_blocks: Sequence[Sequence[int]] = (),
) -> np.ndarray:
    """Order of the levels of a categorical variable by the similarity of the other variables.

    Apley & Zhu (2020) §5.3 as implemented in ``ALEPlot`` and iml's ``order_levels``: the distance
    of two levels is the sum over the other variables of the Kolmogorov-Smirnov distance of a
    numeric column's distributions within the two levels (ECDFs compared at the column's 100
    quantiles of levels ``0, 1/99, ..., 1``) or half the :math:`L_1` distance of the level
    frequencies of a categorical block; the levels are sorted by their 1-D classical MDS coordinate.

    Parameters
    ----------
    level_of_row : ndarray of int, shape (n,)
        Level ``0..n_levels-1`` of each row (every level must occur).
    n_levels : int
    X_other : ndarray of shape (n, q)
        The other variables' columns.
    categorical_blocks : sequence of sequences of int
        Column blocks of ``X_other`` that form one categorical variable (one-hot groups); every
        other column is numeric.

    Returns
    -------
    ndarray of int, shape (n_levels,)
        The level indices in ALE order.

    Raises
    ------
    ValueError
        A level without rows, or mismatched shapes.
    """
    lev = np.asarray(level_of_row)
    Xo = np.asarray(X_other, dtype=np.float64).reshape(lev.shape[0], -1)
    counts = np.bincount(lev, minlength=n_levels)
    if (counts == 0).any():
        raise ValueError("order_levels: every level must have rows")
    if n_levels <= 2:
        return np.arange(n_levels)
    D = np.zeros((n_levels, n_levels))
    in_block = {c for b in categorical_blocks for c in b}
    for block in categorical_blocks:
        cols = list(block)
        _, codes = np.unique(Xo[:, cols], axis=0, return_inverse=True)
        codes = codes.ravel()
        table = np.zeros((n_levels, codes.max() + 1))
        np.add.at(table, (lev, codes), 1.0)
        props = table / counts[:, None]
        D += 0.5 * np.abs(props[:, None, :] - props[None, :, :]).sum(axis=2)
    for c in range(Xo.shape[1]):
        if c in in_block:
            continue
        x = Xo[:, c]
        q = np.quantile(x, np.linspace(0.0, 1.0, 100))
        ecdf = np.empty((n_levels, q.size))
        for a in range(n_levels):
            xa = np.sort(x[lev == a])
            ecdf[a] = np.searchsorted(xa, q, side="right") / xa.size
        D += np.abs(ecdf[:, None, :] - ecdf[None, :, :]).max(axis=2)
    return np.argsort(_cmdscale_1d(D), kind="stable")


# --------------------------------------------------------------------------- public functions


def _given_order(level_order: Sequence[str], observed: list[str], name: str) -> np.ndarray:
    """Positions in ``observed`` of the levels of ``level_order`` (which must be the observed levels)."""
    given = [str(v) for v in level_order]
    if sorted(given) != sorted(observed) or len(set(given)) != len(given):
        raise ValueError(f"level_order of {name!r} ({given}) must list each observed level once (observed: {observed})")
    return np.array([observed.index(v) for v in given], dtype=np.intp)


def accumulated_local_effects(
    model,
    X,
    feature,
    *,
    feature_names: Sequence[str] | None = None,
    feature_groups: Mapping[str, Sequence] | None = None,
    output: str = "auto",
    class_index: int = 1,
    n_bins: int = 20,
    edges=None,
    centering: str = "ale_plot",
    max_batch_rows: int = DEFAULT_MAX_BATCH_ROWS,
    level_order: Sequence[str] | None = None,
) -> ALEResult:
    """First-order ALE of a numeric feature (quantile bins) or a one-hot group (ordered levels).

    Parameters
    ----------
    model : callable or fitted estimator
        A regressor (``predict``), a classifier (class-``class_index`` probability or log-odds,
        ``output``) or a callable ``f(X) -> (n,)`` (:func:`xaipipe.explain.pdp.effect_function`).
    X : array-like or DataFrame of shape (n, p)
        The rows whose distribution defines the bins and the local effects (numeric, finite).
    feature : int, str or sequence
        Column index or name of a numeric feature, the name of a group in ``feature_groups``, or a
        sequence of columns forming a one-hot group.
    feature_names : sequence of str, optional
        Column names (default: the DataFrame's).
    feature_groups : mapping str -> sequence, optional
        One-hot groups (``PreparedData.feature_groups``); also the other categorical variables of
        the level ordering.
    output : {"auto", "predict", "proba", "logit"}, default "auto"
    class_index : int, default 1
    n_bins : int, default 20
        Quantile bins of a numeric feature (ties merge bins; ``ALEPlot``'s ``K``).
    edges : array-like of shape (K + 1,), optional
        Explicit bin edges of a numeric feature instead of :func:`ale_bin_edges` (strictly
        increasing, covering the observed values, every bin with a row).
    centering : {"ale_plot", "paper"}, default "ale_plot"
        See the module docstring.
    max_batch_rows : int
        Most rows per model call.
    level_order : sequence of str, optional
        A one-hot group only: the ALE order of its levels (the labels of ``ALEResult.levels``,
        ``"(none)"`` for the all-zero level), instead of the order :func:`order_levels` computes
        from ``X``; exactly the levels observed in ``X``. It fixes one order for several data
        sets (the learner-ALE of :mod:`xaipipe.explain.learner`: every refit on its own
        rows, the order of all rows).

    Returns
    -------
    ALEResult
        ``.to_frame()`` gives the table (edges / levels, rows per bin, local effects, ALE).

    Raises
    ------
    ValueError
        Invalid ``X``, feature, ``centering``; a constant feature; a group that is not one-hot; a
        model output of the wrong shape or not finite.
    TypeError
        Non-integer ``n_bins`` / ``max_batch_rows``; a model that is neither callable nor an
        estimator.
    """
    centering = _check_centering(centering)
    B = _check_int(max_batch_rows, "max_batch_rows", 1)
    Xv, wrap, x_names = _check_X(X)
    names = list(feature_names) if feature_names is not None else x_names
    if names is not None and len(names) != Xv.shape[1]:
        raise ValueError(f"feature_names has {len(names)} names for {Xv.shape[1]} columns")
    name, cols, is_group = _resolve_feature(feature, Xv.shape[1], names, feature_groups)
    f = effect_function(model, output, class_index)
    label = _output_label(model, output)
    n = Xv.shape[0]
    if not is_group:
        if level_order is not None:
            raise ValueError(f"level_order is for a one-hot group; {name!r} is a numeric feature")
        j = cols[0]
        x = Xv[:, j]
        edges = ale_bin_edges(x, n_bins) if edges is None else _check_edges(edges, x, name)
        k = _bin_index(x, edges)
        lo, hi = Xv.copy(), Xv.copy()
        lo[:, j] = edges[k - 1]
        hi[:, j] = edges[k]
        y_lo, y_hi = _predict_stacked(f, wrap, [lo, hi], B)
        K = edges.size - 1
        counts = np.bincount(k - 1, minlength=K).astype(np.int64)
        sums = np.bincount(k - 1, weights=y_hi - y_lo, minlength=K)
        local = sums / counts  # every bin has a row (its upper edge is an observed value)
        g = np.concatenate([[0.0], np.cumsum(local)])
        return ALEResult(
            feature=name,
            kind="numeric",
            values=edges,
            levels=None,
            n_rows=counts,
            local_effects=local,
            ale_uncentred=g,
            ale=_centre_numeric(g, counts, centering),
            centering=centering,
            output=label,
        )

    # categorical: a one-hot group
    grid = onehot_grid(Xv[:, cols])
    level_names = [names[c] if names else f"x{c}" for c in cols]
    labels = [NO_LEVEL if not row.any() else level_names[int(np.argmax(row))] for row in grid]
    has_none = not grid[0].any()
    A = Xv[:, cols]
    code = (np.argmax(A, axis=1) + (1 if has_none else 0)) * (A.sum(axis=1) > 0)
    present = np.flatnonzero(np.bincount(code, minlength=grid.shape[0]) > 0)
    if present.size < 2:
        raise ValueError(f"feature group {name!r} has fewer than two observed levels: ALE needs two")
    remap = np.full(grid.shape[0], -1)
    remap[present] = np.arange(present.size)
    lev = remap[code]
    other = [c for c in range(Xv.shape[1]) if c not in cols]
    pos = {c: i for i, c in enumerate(other)}
    blocks = []
    for gname in feature_groups or {}:
        if gname == name:
            continue
        _, gcols, _ = _resolve_feature(gname, Xv.shape[1], names, feature_groups)
        if all(c in pos for c in gcols):
            blocks.append([pos[c] for c in gcols])
    if level_order is None:
        order = order_levels(lev, present.size, Xv[:, other], blocks)
    else:
        order = _given_order(level_order, [labels[i] for i in present], name)
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    r = rank[lev]  # position of each row's level in the ALE order
    K = order.size
    levels_in_order = present[order]
    up = np.flatnonzero(r < K - 1)
    down = np.flatnonzero(r > 0)
    X_up, X_down = Xv[up].copy(), Xv[down].copy()
    X_up[:, cols] = grid[levels_in_order[r[up] + 1]]
    X_down[:, cols] = grid[levels_in_order[r[down] - 1]]
    y0, y_up, y_down = _predict_stacked(f, wrap, [Xv, X_up, X_down], B)
    diffs = np.concatenate([y_up - y0[up], y0[down] - y_down])
    step = np.concatenate([r[up] + 1, r[down]])  # the step k = 1..K-1 each difference belongs to
    local = np.bincount(step - 1, weights=diffs, minlength=K - 1) / np.bincount(step - 1, minlength=K - 1)
    g = np.concatenate([[0.0], np.cumsum(local)])
    counts = np.bincount(r, minlength=K).astype(np.int64)
    ale = g - float((counts * g).sum() / n)
    return ALEResult(
        feature=name,
        kind="categorical",
        values=np.arange(K, dtype=np.float64),
        levels=tuple(labels[i] for i in levels_in_order),
        n_rows=counts,
        local_effects=local,
        ale_uncentred=g,
        ale=ale,
        centering=centering,
        output=label,
    )


def _impute_empty(local: np.ndarray, empty: np.ndarray, e1: np.ndarray, e2: np.ndarray) -> np.ndarray:
    """Empty cells take the local effect of the nearest non-empty cell (cell centres, each axis
    divided by its range), as ``ALEPlot`` / PyALE."""
    if not empty.any():
        return local
    from scipy.spatial import cKDTree

    c1 = (e1[:-1] + e1[1:]) / 2.0 / (e1[-1] - e1[0])
    c2 = (e2[:-1] + e2[1:]) / 2.0 / (e2[-1] - e2[0])
    P1, P2 = np.meshgrid(c1, c2, indexing="ij")
    pts = np.column_stack([P1.ravel(), P2.ravel()])
    full = ~empty.ravel()
    _, nearest = cKDTree(pts[full]).query(pts[~full], k=1)
    out = local.ravel().copy()
    out[~full] = out[full][nearest]
    return out.reshape(local.shape)


def accumulated_local_effects_2d(
    model,
    X,
    pair,
    *,
    feature_names: Sequence[str] | None = None,
    output: str = "auto",
    class_index: int = 1,
    n_bins: int = 10,
    edges=None,
    max_batch_rows: int = DEFAULT_MAX_BATCH_ROWS,
) -> ALE2DResult:
    """Second-order ALE (pure interaction) of a pair of numeric features (Apley & Zhu 2020, §4).

    Parameters
    ----------
    model, X, feature_names, output, class_index, max_batch_rows
        As :func:`accumulated_local_effects`.
    pair : (int or str, int or str)
        Two distinct numeric features.
    n_bins : int, default 10
        Quantile bins per feature.
    edges : (array-like, array-like), optional
        Explicit bin edges of each feature (covering the observed values; cells may be empty).

    Returns
    -------
    ALE2DResult
        The centred second-order effect on the grid of edges, rows per cell, imputed cells.

    Raises
    ------
    ValueError
        ``pair`` not two distinct numeric features; a constant feature; invalid model output.
    """
    B = _check_int(max_batch_rows, "max_batch_rows", 1)
    Xv, wrap, x_names = _check_X(X)
    names = list(feature_names) if feature_names is not None else x_names
    if isinstance(pair, (str, numbers.Integral)) or len(list(pair)) != 2:
        raise ValueError(f"pair must be two features, got {pair!r}")
    resolved = [_resolve_feature(p, Xv.shape[1], names, None) for p in pair]
    if any(len(c) != 1 for _, c, _ in resolved):
        raise ValueError("accumulated_local_effects_2d supports numeric features only (no groups)")
    (n1, (j1,), _), (n2, (j2,), _) = resolved
    if j1 == j2:
        raise ValueError(f"pair names the same feature twice: {pair!r}")
    f = effect_function(model, output, class_index)
    if edges is None:
        e1, e2 = ale_bin_edges(Xv[:, j1], n_bins), ale_bin_edges(Xv[:, j2], n_bins)
    else:
        e1, e2 = (np.asarray(e, dtype=np.float64) for e in edges)
        for e, j, nm in ((e1, j1, n1), (e2, j2, n2)):
            if e.ndim != 1 or e.size < 2 or np.any(np.diff(e) <= 0) or Xv[:, j].min() < e[0] or Xv[:, j].max() > e[-1]:
                raise ValueError(f"edges of {nm!r} must be strictly increasing and cover the observed values")
    k1, k2 = _bin_index(Xv[:, j1], e1), _bin_index(Xv[:, j2], e2)
    corners = []
    for a, b in ((1, 1), (0, 1), (1, 0), (0, 0)):  # (upper?, upper?) per axis
        Z = Xv.copy()
        Z[:, j1] = e1[k1 - 1 + a]
        Z[:, j2] = e2[k2 - 1 + b]
        corners.append(Z)
    y11, y01, y10, y00 = _predict_stacked(f, wrap, corners, B)
    delta = (y11 - y01) - (y10 - y00)
    K1, K2 = e1.size - 1, e2.size - 1
    cell = (k1 - 1) * K2 + (k2 - 1)
    counts = np.bincount(cell, minlength=K1 * K2).reshape(K1, K2)
    sums = np.bincount(cell, weights=delta, minlength=K1 * K2).reshape(K1, K2)
    empty = counts == 0
    with np.errstate(invalid="ignore", divide="ignore"):
        local = np.where(empty, np.nan, sums / np.maximum(counts, 1))
    local = _impute_empty(local, empty, e1, e2)
    h = np.zeros((K1 + 1, K2 + 1))
    h[1:, 1:] = local.cumsum(axis=0).cumsum(axis=1)
    # subtract the first-order effects of h along each axis (ALEPlot), then the mean
    b1, b2 = counts.sum(axis=1), counts.sum(axis=0)
    d1 = h[1:, :] - h[:-1, :]  # (K1, K2 + 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        ave1 = np.where(b1 > 0, (counts * (d1[:, :-1] + d1[:, 1:]) / 2.0).sum(axis=1) / np.maximum(b1, 1), 0.0)
        d2 = h[:, 1:] - h[:, :-1]  # (K1 + 1, K2)
        ave2 = np.where(b2 > 0, (counts * (d2[:-1, :] + d2[1:, :]) / 2.0).sum(axis=0) / np.maximum(b2, 1), 0.0)
    f1 = np.concatenate([[0.0], np.cumsum(ave1)])
    f2 = np.concatenate([[0.0], np.cumsum(ave2)])
    h = h - f1[:, None] - f2[None, :]
    corner_mean = (h[:-1, :-1] + h[:-1, 1:] + h[1:, :-1] + h[1:, 1:]) / 4.0
    h = h - float((counts * corner_mean).sum() / counts.sum())
    return ALE2DResult(
        feature_1=n1,
        feature_2=n2,
        edges_1=e1,
        edges_2=e2,
        n_rows=counts.astype(np.int64),
        local_effects=local,
        empty=empty,
        ale=h,
        output=_output_label(model, output),
    )
