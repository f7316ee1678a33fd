"""PD / ICE / c-ICE / d-ICE curves of a fitted model (private; see :mod:`xaipipe.explain.pdp`)."""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import Any

import numpy as np

from ...models.output import LOGIT_EPS
from ...validation import check_finite
from ._grid import (
    DEFAULT_MAX_BATCH_ROWS,
    _check_1d,
    _check_columns,
    _check_curves,
    _check_grid_axis,
    _check_int,
    _check_X,
    _mquantiles,
)

_OUTPUTS = ("auto", "predict", "proba", "logit")


def _is_classifier(model) -> bool:
    """scikit-learn's ``is_classifier``, tolerant of duck-typed models without tags."""
    from ...models.output import _is_classifier as is_clf

    return is_clf(model)


def effect_function(model, output: str = "auto", class_index: int = 1) -> Callable[[Any], np.ndarray]:
    """The scalar output function :math:`\\hat f` whose effects (PD, ICE, ALE, H²) are computed.

    The PD layer's wrapper of :func:`xaipipe.models.output.model_output` (the one output
    function of a fitted model): a callable is used as is, ``"auto"`` picks the output, and the
    logit clip is :data:`xaipipe.models.output.LOGIT_EPS`.

    Parameters
    ----------
    model : callable or fitted estimator
        A callable ``f(X) -> (n,)`` is used as is (``output`` must be
        ``"auto"``). An estimator must have ``predict`` (regressor) or
        ``predict_proba`` (classifier).
    output : {"auto", "predict", "proba", "logit"}, default "auto"
        ``"predict"``: ``model.predict`` (regressors only); ``"proba"``: the
        probability of class ``classes_[class_index]`` from ``predict_proba``;
        ``"logit"``: its log-odds (exact where the model's family declares them,
        e.g. logistic regression's decision function; otherwise
        :math:`\\log(p / (1 - p))` of the probability clipped to
        ``[LOGIT_EPS, 1 - LOGIT_EPS]``, the scale used by ICEbox's ``logodds``
        option). ``"auto"``: ``"proba"`` for classifiers, ``"predict"`` otherwise.
        Built by :func:`xaipipe.models.output.model_output`.
    class_index : int, default 1
        Column of ``predict_proba`` (class 1 = the positive class of a binary
        problem coded 0/1).

    Returns
    -------
    callable
        ``f(X) -> ndarray of shape (n,)``.

    Raises
    ------
    TypeError
        ``model`` is neither callable nor an estimator with ``predict``.
    ValueError
        Unknown ``output``; ``output`` given with a callable; ``"predict"`` for
        a classifier or ``"proba"``/``"logit"`` for a model without
        ``predict_proba``.
    """
    from ...models.output import model_output as output_function

    if output not in _OUTPUTS:
        raise ValueError(f"output must be one of {_OUTPUTS}, got {output!r}")
    if not hasattr(model, "predict"):
        if callable(model):
            if output != "auto":
                raise ValueError(f"output={output!r} applies to estimators; a callable model is used as is")
            return model
        raise TypeError(f"model must be a callable f(X) -> (n,) or a fitted estimator, got {type(model).__name__}")
    if output == "auto":
        output = "proba" if _is_classifier(model) else "predict"
    class_index = _check_int(class_index, "class_index", 0)
    return output_function(model, output, class_index=class_index, clip=LOGIT_EPS)


def _as_grid_matrix(grid, n_columns: int) -> np.ndarray:
    G = np.asarray(grid, dtype=np.float64)
    if G.ndim == 1:
        if n_columns != 1:
            raise ValueError(
                f"a 1-D grid sets one column but {n_columns} feature columns were given; "
                "pass a grid of shape (n_grid, n_columns)"
            )
        G = G[:, None]
    if G.ndim != 2 or G.shape[1] != n_columns:
        raise ValueError(f"grid must have shape (n_grid, {n_columns}), got {np.shape(grid)}")
    if G.shape[0] == 0:
        raise ValueError("grid is empty")
    check_finite(G, "grid")
    return G


def ice_curves(
    model,
    X,
    features,
    grid,
    *,
    output: str = "auto",
    class_index: int = 1,
    max_batch_rows: int = DEFAULT_MAX_BATCH_ROWS,
) -> np.ndarray:
    """ICE curves :math:`\\hat f(z_k, x_C^{(i)})` (Goldstein et al. 2015, "The ICE toolbox").

    Parameters
    ----------
    model : callable or fitted estimator
        See :func:`effect_function`.
    X : array-like or DataFrame of shape (n_samples, n_features)
        Observations whose other features :math:`x_C^{(i)}` are kept. A
        DataFrame is passed to the model as DataFrame chunks with its columns.
    features : int or sequence of int
        Column(s) set to each grid point: one numeric feature, a one-hot group,
        or several features set jointly (2-D PD).
    grid : array-like of shape (n_grid,) or (n_grid, len(features))
        Values assigned to ``features`` (row ``k`` = grid point ``k``).
    output, class_index
        See :func:`effect_function`.
    max_batch_rows : int, default DEFAULT_MAX_BATCH_ROWS
        Most stacked rows per model call. The ``n_samples * n_grid`` stacked rows
        (grid-point major) are evaluated in ``ceil(n_samples * n_grid /
        max_batch_rows)`` calls; memory is ``O(max_batch_rows * n_features)``.

    Returns
    -------
    ndarray of shape (n_samples, n_grid)
        Row ``i``: the model output along the grid for observation ``i``, in the
        units of the output (target units, probability or log-odds).

    Raises
    ------
    ValueError, TypeError
        Invalid ``X``, ``features``, ``grid`` or ``max_batch_rows``; a model output
        that is not a finite array of shape ``(n_rows_in_chunk,)``.
    """
    f = effect_function(model, output, class_index)
    Xv, wrap, _ = _check_X(X)
    cols = _check_columns(features, Xv.shape[1])
    G = _as_grid_matrix(grid, len(cols))
    B = _check_int(max_batch_rows, "max_batch_rows", 1)
    n, n_grid = Xv.shape[0], G.shape[0]
    total = n * n_grid
    out = np.empty(total, dtype=np.float64)  # flat index t = k * n + i
    for start in range(0, total, B):
        stop = min(start + B, total)
        t = np.arange(start, stop)
        k, i = np.divmod(t, n)
        chunk = Xv[i]  # fancy indexing copies
        chunk[:, cols] = G[k]
        y = np.asarray(f(wrap(chunk)), dtype=np.float64)
        if y.shape == (stop - start, 1):
            y = y[:, 0]
        if y.shape != (stop - start,):
            raise ValueError(
                f"model output must have shape ({stop - start},) for a chunk of {stop - start} rows, got {y.shape}"
            )
        check_finite(y, "model output")
        out[start:stop] = y
    return out.reshape(n_grid, n).T.copy()


def partial_dependence(
    model,
    X,
    features,
    grid,
    *,
    output: str = "auto",
    class_index: int = 1,
    max_batch_rows: int = DEFAULT_MAX_BATCH_ROWS,
) -> np.ndarray:
    """Partial dependence :math:`\\frac1N\\sum_i \\hat f(z_k, x_C^{(i)})`.

    Friedman (2001) §8.2; Goldstein et al. (2015) eqs. 1-2: the mean of the ICE
    curves. Parameters as :func:`ice_curves`.

    Returns
    -------
    ndarray of shape (n_grid,)
        In the units of the model output.
    """
    return ice_curves(
        model, X, features, grid, output=output, class_index=class_index, max_batch_rows=max_batch_rows
    ).mean(axis=0)


def partial_dependence_2d(
    model,
    X,
    pair,
    grid_1,
    grid_2,
    *,
    output: str = "auto",
    class_index: int = 1,
    max_batch_rows: int = DEFAULT_MAX_BATCH_ROWS,
) -> np.ndarray:
    """Two-way partial dependence of a pair of numeric features (Friedman 2001, §8.2).

    Parameters
    ----------
    model, X, output, class_index, max_batch_rows
        As :func:`ice_curves`; the ``n_samples * n_1 * n_2`` stacked rows are
        evaluated in ``ceil(n_samples * n_1 * n_2 / max_batch_rows)`` calls.
    pair : (int, int)
        Column indices of the two features (distinct).
    grid_1, grid_2 : array-like of shape (n_1,), (n_2,)
        Grid values of each feature.

    Returns
    -------
    ndarray of shape (n_1, n_2)
        Entry ``[a, b]`` is :math:`\\frac1N\\sum_i \\hat f(z^1_a, z^2_b, x_C^{(i)})`.

    Raises
    ------
    ValueError
        ``pair`` is not two distinct valid columns, or a grid is not a finite
        non-empty 1-D array.
    """
    if isinstance(pair, numbers.Integral) or len(list(pair)) != 2:
        raise ValueError(f"pair must be two feature indices, got {pair!r}")
    g1 = _check_1d(grid_1, "grid_1")
    g2 = _check_1d(grid_2, "grid_2")
    G = np.column_stack([np.repeat(g1, g2.size), np.tile(g2, g1.size)])
    pd_flat = partial_dependence(
        model, X, list(pair), G, output=output, class_index=class_index, max_batch_rows=max_batch_rows
    )
    return pd_flat.reshape(g1.size, g2.size)


# --------------------------------------------------------------------------- #
# centered and derivative ICE
# --------------------------------------------------------------------------- #
def anchor_index(grid, anchor: str | float = "min", x=None) -> int:
    """Index of the c-ICE anchor :math:`x^*` on the grid.

    Parameters
    ----------
    grid : array-like of shape (n_grid,)
        Increasing grid.
    anchor : {"min", "max"} or float in [0, 1], default "min"
        ``"min"`` / ``"max"``: first / last grid point (Goldstein et al. 2015
        recommend either). A number ``q``: the grid point nearest the ``q``
        quantile of ``x`` (of the grid when ``x`` is None; ``mquantiles`` as
        the grids).
    x : array-like of shape (n_samples,), optional
        Observed feature values for a quantile anchor.

    Returns
    -------
    int
        Index in ``[0, n_grid)``.

    Raises
    ------
    ValueError
        Invalid grid or ``anchor``.
    """
    g = _check_1d(grid, "grid")
    if isinstance(anchor, str):
        if anchor == "min":
            return 0
        if anchor == "max":
            return g.size - 1
        raise ValueError(f"anchor must be 'min', 'max' or a quantile in [0, 1], got {anchor!r}")
    if isinstance(anchor, bool) or not isinstance(anchor, numbers.Real) or not 0.0 <= anchor <= 1.0:
        raise ValueError(f"anchor must be 'min', 'max' or a quantile in [0, 1], got {anchor!r}")
    ref = g if x is None else _check_1d(x, "x")
    value = float(_mquantiles(ref, [float(anchor)])[0])
    return int(np.argmin(np.abs(g - value)))


def centered_ice(curves, anchor: int) -> np.ndarray:
    """Centered ICE curves (Goldstein et al. 2015, eq. 4).

    Parameters
    ----------
    curves : array-like of shape (n_rows, n_grid)
        ICE curves (or the PD as a single row).
    anchor : int
        Grid index of :math:`x^*` (see :func:`anchor_index`).

    Returns
    -------
    ndarray of shape (n_rows, n_grid)
        ``curves - curves[:, [anchor]]``: every curve is exactly 0 at the anchor.
        The mean over rows is the centered PD.

    Raises
    ------
    ValueError
        Non-2-D ``curves`` or ``anchor`` out of range.
    """
    c = _check_curves(curves)
    a = _check_int(anchor, "anchor", -c.shape[1])
    if a >= c.shape[1]:
        raise ValueError(f"anchor {a} out of range for {c.shape[1]} grid points")
    return c - c[:, [a]]


def _local_poly_slope_weights(grid: np.ndarray, smooth: int, polyorder: int) -> np.ndarray:
    """Matrix ``W`` (n_grid, n_grid) with ``derivatives = curves @ W.T``."""
    n = grid.size
    m = min(2 * smooth + 1, n)
    deg = min(polyorder, m - 1)
    W = np.zeros((n, n))
    for k in range(n):
        start = min(max(k - smooth, 0), n - m)
        t = grid[start : start + m] - grid[k]
        scale = np.max(np.abs(t))
        V = np.vander(t / scale, deg + 1, increasing=True)
        W[k, start : start + m] = np.linalg.pinv(V)[1] / scale
    return W


def ice_derivatives(curves, grid, *, smooth: int = 0, polyorder: int = 2) -> np.ndarray:
    """Derivative ICE (d-ICE) curves (Goldstein et al. 2015, "Derivative ICE plot").

    Parameters
    ----------
    curves : array-like of shape (n_rows, n_grid)
        ICE curves (or the PD as one row) on ``grid``.
    grid : array-like of shape (n_grid,)
        Strictly increasing, possibly non-uniform, at least 2 points.
    smooth : int, default 0
        Half-width, in grid points, of the local polynomial window
        (``2 * smooth + 1`` points). ``0``: raw finite differences
        (``numpy.gradient``).
    polyorder : int, default 2
        Degree of the local polynomial (>= 1; lowered to ``window - 1`` if the
        grid is shorter than the window).

    Returns
    -------
    ndarray of shape (n_rows, n_grid)
        :math:`\\partial \\hat f / \\partial x_S` in output units per unit of the
        feature.

    Raises
    ------
    ValueError, TypeError
        Invalid grid, curves of the wrong width, ``smooth < 0`` or
        ``polyorder < 1``.

    Notes
    -----
    With ``smooth >= 1`` the slope at grid point ``k`` is that of the degree
    ``polyorder`` least-squares polynomial through the ``2 * smooth + 1``
    nearest grid points (a Savitzky-Golay derivative filter on a non-uniform
    grid; exact for polynomials of degree ``<= polyorder``).
    """
    g = _check_grid_axis(grid)
    c = _check_curves(curves, g.size)
    smooth = _check_int(smooth, "smooth", 0)
    polyorder = _check_int(polyorder, "polyorder", 1)
    if smooth == 0:
        return np.gradient(c, g, axis=1)
    return c @ _local_poly_slope_weights(g, smooth, polyorder).T


def derivative_sd(derivatives, ddof: int = 1) -> np.ndarray:
    """Standard deviation of the d-ICE curves at each grid point.

    The interaction indicator of Goldstein et al. (2015, "Derivative ICE plot"; ICEbox's
    ``sd_deriv``, R's ``sd``, hence ``ddof = 1``): 0 everywhere iff all
    derivative curves coincide, i.e. no interaction of :math:`x_S` in
    :math:`\\hat f` on the grid.

    Parameters
    ----------
    derivatives : array-like of shape (n_rows, n_grid)
    ddof : int, default 1

    Returns
    -------
    ndarray of shape (n_grid,)
        Same units as the derivatives.

    Raises
    ------
    ValueError
        Fewer than ``ddof + 1`` rows.
    """
    d = _check_curves(derivatives, name="derivatives")
    ddof = _check_int(ddof, "ddof", 0)
    if d.shape[0] <= ddof:
        raise ValueError(f"need more than {ddof} curves for a standard deviation with ddof={ddof}")
    return d.std(axis=0, ddof=ddof)
