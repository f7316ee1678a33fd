"""Partial dependence (PD), ICE, centered ICE and derivative ICE curves.

Methods
-------
Notation: a fitted model :math:`\\hat f`, the feature (or one-hot group) of
interest :math:`x_S`, the other features :math:`x_C`, observations
:math:`i = 1..N` and a grid :math:`z_1 < \\dots < z_K` of values of :math:`x_S`.

* **Partial dependence** (Friedman 2001, Ann. Statist. 29(5), §8.2; thesis 001
  eq. 4.2): :math:`\\bar f_S(x_S) = E_{x_C}[\\hat f(x_S, x_C)]
  = \\int \\hat f(x_S, x_C)\\, p_C(x_C)\\, dx_C`, the expectation over the
  *marginal* distribution of :math:`x_C`, estimated by
  :math:`\\bar f_S(z_k) \\approx \\frac1N \\sum_i \\hat f(z_k, x_C^{(i)})`
  (Goldstein et al. 2015, eqs. 1-2). :func:`partial_dependence`,
  :func:`partial_dependence_2d` (a pair of features on a 2-D grid).
* **ICE** (Goldstein, Kapelner, Bleich & Pitkin 2015, JCGS 24(1), section
  "The ICE toolbox"): one curve per observation,
  :math:`\\hat f_S^{(i)}(z_k) = \\hat f(z_k, x_C^{(i)})`; the PD is their
  pointwise mean. :func:`ice_curves`.
* **Centered ICE** (Goldstein et al. 2015, c-ICE, eq. 4):
  :math:`\\hat f^{(i)}_{\\mathrm{cent}} = \\hat f^{(i)} - \\mathbf 1\\,
  \\hat f(x^*, x_C^{(i)})`, with :math:`\\mathbf 1` a vector of ones of the grid's
  length and :math:`x^*` the anchor (grid minimum by default, or maximum, or a
  quantile); every curve is 0 at :math:`x^*`. The centered PD is the mean of the
  c-ICE curves. :func:`centered_ice`, :func:`anchor_index`.
* **Derivative ICE** (Goldstein et al. 2015, section "Derivative ICE plot",
  and ICEbox's ``dice``): each ICE curve is smoothed and differentiated
  numerically with respect to :math:`x_S` on the grid; if :math:`\\hat f(x) = g(x_S) + h(x_C)` (no
  interaction of :math:`x_S` in the *model*) all derivative curves equal
  :math:`g'(x_S)`, so the standard deviation of the derivatives across curves
  at each grid point is the interaction indicator. :func:`ice_derivatives`,
  :func:`derivative_sd`.

  *Smoother.* ICEbox smoothed with ``supsmu`` then took difference quotients
  (``sfsmisc::D1tr``); later versions use a Savitzky-Golay filter. Here the
  derivative at :math:`z_k` is the slope of a least-squares polynomial of
  degree ``polyorder`` (default 2) fitted to the ``2 * smooth + 1`` grid points
  nearest :math:`z_k` (window shifted inwards at the ends of the grid), i.e. a
  Savitzky & Golay (1964, Anal. Chem. 36(8)) filter generalised to a
  non-uniform grid; the window is counted in grid points, so it adapts to
  quantile grids. ``smooth = 0`` gives raw finite differences
  (``numpy.gradient``: second-order central differences inside the grid,
  one-sided first-order differences at its ends). The filter is linear and the
  same for every curve, so the derivative of the PD equals the mean of the
  d-ICE curves (``d_pd``), as ICEbox's ``dpdp``, and curves that differ only by
  a constant (an additive model) have identical derivatives: their standard
  deviation is 0 up to rounding for any ``smooth``.
* **Decile rug**: the deciles of the observed feature values, drawn as ticks on
  the x axis (as scikit-learn's ``PartialDependenceDisplay``, thesis Figs 5.3,
  5.6, 5.9). :func:`deciles`.

Grids (:func:`feature_grid`): ``kind="uniform"`` is scikit-learn's grid
(``resolution`` equally spaced points between the ``percentiles`` of the
feature); ``kind="quantile"`` places the points at equally spaced quantile
levels between the same percentiles (duplicates removed). Either way a feature
with fewer than ``resolution`` distinct values uses those values. All quantiles
are ``scipy.stats.mstats.mquantiles`` with its defaults (as scikit-learn), so
the default grid is exactly ``sklearn.inspection.partial_dependence``'s. A
one-hot *group* (e.g. Abalone's ``Sex_F``, ``Sex_I``, ``Sex_M``) has as grid
the set of its level vectors (:func:`onehot_grid`): each ICE point sets the
whole group to one level, so no impossible "two levels at once" rows are made.

Computation: the stacked data set (every observation at every grid point) is
built and predicted in chunks of at most ``max_batch_rows`` rows, one call of
the model per chunk, so the number of calls is
``ceil(n_rows * n_grid / max_batch_rows)`` (:func:`ice_curves`).

Departures from the seed (thesis 001 §4.2) and why
--------------------------------------------------
* The seed defines ICE as :math:`f_i(x_z) = E[Y \\mid X_z = x_z, X_{-z} =
  x^i_{-z}]`, a conditional expectation of the *data*. Goldstein et al. define
  the ICE curve as the *fitted model* evaluated along :math:`x_S` with
  :math:`x_C^{(i)}` fixed, :math:`\\hat f(x_S, x_C^{(i)})`; that is what is
  computed here (it equals the seed's expression only if :math:`\\hat f` were
  the true regression function). Likewise the seed's statement that the PD uses
  the marginal distribution and ICE the *conditional* distribution is not right:
  neither conditions on :math:`x_S`; ICE uses no distribution at all (one
  :math:`x_C^{(i)}` per curve) and PD averages them over the marginal of
  :math:`x_C` (the conditional version would be the M-plot of Apley & Zhu).
* The seed says the PD "assumes" that :math:`x_S` is independent of the other
  features, and that PD and ICE "should be similar when the variables are
  independent". The PD estimator assumes nothing: it is the average of the
  ICE curves whatever the dependence. Dependence matters for *interpretation*
  (the grid combines :math:`x_S` with :math:`x_C^{(i)}` values that may be
  unrealistic, so :math:`\\hat f` is extrapolated). ICE curves are parallel to
  the PD when :math:`x_S` does not *interact* with :math:`x_C` in :math:`\\hat f`
  (additivity), not when the features are independent. The same correction
  applies to the seed's d-ICE paragraph, which derives
  :math:`\\hat f = g(x_S) + h(x_C)` from "independence"; Goldstein et al. assume
  *no interaction*, which is what the derivative plot tests.
* c-ICE notation: the seed writes the anchor as "(x^*, x_{ci})"; it is the model
  evaluated at :math:`(x^*, x_C^{(i)})`, subtracted from every point of curve
  :math:`i` (the :math:`\\mathbf 1` is a vector of ones). Here :math:`x^*` is
  snapped to the nearest grid point so that every c-ICE curve is exactly 0 there.
* The seed's eq. 4.2 calls :math:`p(x_l)` "the joint distribution of all the
  other variables"; it is their joint *marginal* density
  :math:`p_C(x_C) = \\int p(x)\\, dx_S` (not the conditional
  :math:`p(x_C \\mid x_S)`), and mixes :math:`\\hat f` and :math:`\\hat F`
  for the same fitted model.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

import numpy as np
import pandas as pd

__all__ = [
    "DEFAULT_MAX_BATCH_ROWS",
    "LOGIT_EPS",
    "TABLE_KINDS",
    "FeatureEffect",
    "PairEffect",
    "feature_grid",
    "onehot_grid",
    "deciles",
    "model_output",
    "ice_curves",
    "partial_dependence",
    "partial_dependence_2d",
    "anchor_index",
    "centered_ice",
    "ice_derivatives",
    "derivative_sd",
    "explain_feature",
    "explain_pair",
    "effects_table",
    "pair_table",
    "effect_from_table",
    "pair_from_table",
]

#: Default bound on the number of stacked rows passed to one model call.
DEFAULT_MAX_BATCH_ROWS = 100_000
#: Probabilities are clipped to ``[LOGIT_EPS, 1 - LOGIT_EPS]`` before the logit
#: (tree models predict exact 0 / 1), so logits lie in about +-13.8.
LOGIT_EPS = 1e-6
#: Values of the ``kind`` column of :func:`effects_table`.
TABLE_KINDS = ("pd", "ice", "c_ice", "pd_centered", "d_ice", "d_pd", "d_ice_sd", "decile")
#: Level label of the all-zero row of a one-hot group (reference level).
NO_LEVEL = "(none)"

_OUTPUTS = ("auto", "predict", "proba", "logit")


# --------------------------------------------------------------------------- #
# validation helpers
# --------------------------------------------------------------------------- #
def _check_int(value, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return int(value)


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
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite values")
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
        try:
            arr = X.to_numpy(dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise ValueError("X must contain only numeric columns") from exc

        def wrap(a, _cols=columns):
            return pd.DataFrame(a, columns=_cols, copy=False)

        names = [str(c) for c in columns]
    else:
        try:
            arr = np.asarray(X, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise ValueError("X must be a numeric array") from exc

        def wrap(a):
            return a

        names = None
    if arr.ndim != 2:
        raise ValueError(f"X must be 2-D (n_samples, n_features), got shape {arr.shape}")
    if arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ValueError(f"X must have at least one row and one column, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError("X contains NaN or infinite values")
    return arr, wrap, names


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
            f"the {lo} and {hi} quantiles of x are (nearly) equal ({ends[0]!r}); "
            "choose percentiles further apart"
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


# --------------------------------------------------------------------------- #
# model output and batched evaluation
# --------------------------------------------------------------------------- #
def _is_classifier(model) -> bool:
    """scikit-learn's ``is_classifier``, tolerant of duck-typed models without tags."""
    from sklearn.base import is_classifier

    try:
        return bool(is_classifier(model))
    except (AttributeError, TypeError):
        return getattr(model, "_estimator_type", None) == "classifier"


def model_output(model, output: str = "auto", class_index: int = 1) -> Callable[[Any], np.ndarray]:
    """The scalar output function :math:`\\hat f` whose effects are computed.

    Parameters
    ----------
    model : callable or fitted estimator
        A callable ``f(X) -> (n,)`` is used as is (``output`` must be
        ``"auto"``). An estimator must have ``predict`` (regressor) or
        ``predict_proba`` (classifier).
    output : {"auto", "predict", "proba", "logit"}, default "auto"
        ``"predict"``: ``model.predict`` (regressors only); ``"proba"``: the
        probability of class ``classes_[class_index]`` from ``predict_proba``;
        ``"logit"``: :math:`\\log(p / (1 - p))` of that probability, with ``p``
        clipped to ``[LOGIT_EPS, 1 - LOGIT_EPS]`` (the scale used by ICEbox's
        ``logodds`` option). ``"auto"``: ``"proba"`` for classifiers,
        ``"predict"`` otherwise.
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
    if output not in _OUTPUTS:
        raise ValueError(f"output must be one of {_OUTPUTS}, got {output!r}")
    has_predict = hasattr(model, "predict")
    if not has_predict:
        if callable(model):
            if output != "auto":
                raise ValueError(
                    f"output={output!r} applies to estimators; a callable model is used as is"
                )
            return model
        raise TypeError(
            f"model must be a callable f(X) -> (n,) or a fitted estimator, got {type(model).__name__}"
        )
    classifier = _is_classifier(model)
    if output == "auto":
        output = "proba" if classifier else "predict"
    if output == "predict":
        if classifier:
            raise ValueError(
                "output='predict' would use class labels; use 'proba' or 'logit' for classifiers"
            )
        return model.predict
    if not hasattr(model, "predict_proba"):
        raise ValueError(f"output={output!r} needs predict_proba, which {type(model).__name__} lacks")
    class_index = _check_int(class_index, "class_index", 0)

    def proba(X):
        p = np.asarray(model.predict_proba(X), dtype=np.float64)
        if p.ndim != 2 or p.shape[1] <= class_index:
            raise ValueError(
                f"class_index={class_index} but predict_proba returned shape {p.shape}"
            )
        return p[:, class_index]

    if output == "proba":
        return proba

    def logit(X):
        p = np.clip(proba(X), LOGIT_EPS, 1.0 - LOGIT_EPS)
        return np.log(p) - np.log1p(-p)

    return logit


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
    if not np.all(np.isfinite(G)):
        raise ValueError("grid contains NaN or infinite values")
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
        See :func:`model_output`.
    X : array-like or DataFrame of shape (n_samples, n_features)
        Observations whose other features :math:`x_C^{(i)}` are kept. A
        DataFrame is passed to the model as DataFrame chunks with its columns.
    features : int or sequence of int
        Column(s) set to each grid point: one numeric feature, a one-hot group,
        or several features set jointly (2-D PD).
    grid : array-like of shape (n_grid,) or (n_grid, len(features))
        Values assigned to ``features`` (row ``k`` = grid point ``k``).
    output, class_index
        See :func:`model_output`.
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
    f = model_output(model, output, class_index)
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
                f"model output must have shape ({stop - start},) for a chunk of "
                f"{stop - start} rows, got {y.shape}"
            )
        if not np.all(np.isfinite(y)):
            raise ValueError("model output contains NaN or infinite values")
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


# --------------------------------------------------------------------------- #
# one feature / one pair, end to end
# --------------------------------------------------------------------------- #
@dataclass(frozen=True)
class FeatureEffect:
    """PD, ICE, c-ICE and d-ICE of one feature (or one-hot group).

    Attributes
    ----------
    feature : str
        Feature or group name.
    grid : ndarray of shape (n_grid,)
        Grid values (feature units); for a one-hot group the level index
        ``0..n_levels-1``.
    levels : tuple of str or None
        Level names of a one-hot group (``"(none)"`` for the all-zero level),
        None for a numeric feature.
    rows : ndarray of shape (n_rows,)
        Observation identifiers of the ICE curves.
    ice, c_ice : ndarray of shape (n_rows, n_grid)
    pd, pd_centered : ndarray of shape (n_grid,)
        PD over all observations and the PD centred at the anchor.
    anchor : int
        Grid index of the c-ICE anchor.
    d_ice : ndarray of shape (n_rows, n_grid) or None
    d_pd, d_ice_sd : ndarray of shape (n_grid,) or None
        Derivative of the PD and the standard deviation of the d-ICE curves;
        None for a one-hot group.
    deciles : ndarray of shape (9,) or (0,)
        Deciles of the observed feature values (empty for a group).
    output : str
        Model output (``"predict"``, ``"proba"``, ``"logit"`` or ``"callable"``).
    """

    feature: str
    grid: np.ndarray
    levels: tuple | None
    rows: np.ndarray
    ice: np.ndarray
    pd: np.ndarray
    c_ice: np.ndarray
    pd_centered: np.ndarray
    anchor: int
    d_ice: np.ndarray | None
    d_pd: np.ndarray | None
    d_ice_sd: np.ndarray | None
    deciles: np.ndarray = field(default_factory=lambda: np.empty(0))
    output: str = "predict"

    @property
    def categorical(self) -> bool:
        return self.levels is not None


@dataclass(frozen=True)
class PairEffect:
    """Two-way PD of a pair of numeric features.

    Attributes
    ----------
    feature_1, feature_2 : str
    values_1 : ndarray of shape (n_1,)
    values_2 : ndarray of shape (n_2,)
    pd : ndarray of shape (n_1, n_2)
    deciles_1, deciles_2 : ndarray of shape (9,)
    output : str
    """

    feature_1: str
    feature_2: str
    values_1: np.ndarray
    values_2: np.ndarray
    pd: np.ndarray
    deciles_1: np.ndarray = field(default_factory=lambda: np.empty(0))
    deciles_2: np.ndarray = field(default_factory=lambda: np.empty(0))
    output: str = "predict"


def _output_label(model, output: str) -> str:
    if not hasattr(model, "predict"):
        return "callable"
    if output == "auto":
        return "proba" if _is_classifier(model) else "predict"
    return output


def _resolve_feature(
    feature, n_features: int, names: list[str] | None, groups: Mapping[str, Sequence] | None
) -> tuple[str, list[int], bool]:
    """(name, column indices, is_group)."""

    def index_of(item) -> int:
        if isinstance(item, str):
            if names is None or item not in names:
                raise ValueError(
                    f"unknown feature {item!r}" + ("" if names else " (pass feature_names to use names)")
                )
            return names.index(item)
        return _check_columns(item, n_features)[0]

    def name_of(j: int) -> str:
        return names[j] if names else f"x{j}"

    if isinstance(feature, str) and groups and feature in groups:
        cols = [index_of(c) for c in groups[feature]]
        if len(cols) < 1:
            raise ValueError(f"feature group {feature!r} is empty")
        return feature, _check_columns(cols, n_features), True
    if isinstance(feature, (str, numbers.Integral)):
        j = index_of(feature)
        return name_of(j), [j], False
    cols = _check_columns([index_of(c) for c in feature], n_features)
    return "+".join(name_of(j) for j in cols), cols, True


def explain_feature(
    model,
    X,
    feature,
    *,
    feature_names: Sequence[str] | None = None,
    feature_groups: Mapping[str, Sequence] | None = None,
    output: str = "auto",
    class_index: int = 1,
    grid=None,
    resolution: int = 100,
    kind: str = "uniform",
    percentiles: tuple[float, float] = (0.05, 0.95),
    anchor: str | float = "min",
    smooth: int = 2,
    polyorder: int = 2,
    row_ids=None,
    max_batch_rows: int = DEFAULT_MAX_BATCH_ROWS,
) -> FeatureEffect:
    """ICE, PD, c-ICE, d-ICE and decile rug of one feature or one-hot group.

    Parameters
    ----------
    model : callable or fitted estimator
        See :func:`model_output`.
    X : array-like or DataFrame of shape (n_samples, n_features)
        Data whose rows give the ICE curves (the pipeline uses the test split).
    feature : int, str or sequence
        Column index, column name, name of a group in ``feature_groups``, or a
        sequence of columns forming a one-hot group.
    feature_names : sequence of str, optional
        Column names (taken from ``X.columns`` for a DataFrame).
    feature_groups : mapping of str to sequence, optional
        One-hot groups, name -> member columns (names or indices), as
        ``PreparedData.feature_groups``.
    output, class_index
        See :func:`model_output`.
    grid : array-like of shape (n_grid,), optional
        Explicit grid for a numeric feature (strictly increasing); otherwise
        :func:`feature_grid` with ``resolution``, ``kind``, ``percentiles``.
        Groups always use :func:`onehot_grid`.
    anchor : {"min", "max"} or float, default "min"
        c-ICE anchor (:func:`anchor_index`; a quantile of the observed feature).
        For a group: "min" / "max" = first / last level.
    smooth, polyorder : int
        d-ICE smoother (:func:`ice_derivatives`).
    row_ids : array-like of int, shape (n_samples,), optional
        Identifiers of the rows of ``X`` (default ``0..n-1``; e.g. the row
        numbers of the test split in the prepared table).
    max_batch_rows : int
        See :func:`ice_curves`.

    Returns
    -------
    FeatureEffect

    Raises
    ------
    ValueError, TypeError
        Invalid inputs (see the functions above); a quantile anchor for a group.
    """
    Xv, _, x_names = _check_X(X)
    names = list(feature_names) if feature_names is not None else x_names
    if names is not None and len(names) != Xv.shape[1]:
        raise ValueError(f"feature_names has {len(names)} names for {Xv.shape[1]} columns")
    name, cols, is_group = _resolve_feature(feature, Xv.shape[1], names, feature_groups)
    n = Xv.shape[0]
    rows = np.arange(n) if row_ids is None else np.asarray(row_ids)
    if rows.shape != (n,) or not np.issubdtype(rows.dtype, np.integer):
        raise ValueError(f"row_ids must be integers of shape ({n},), got {rows.dtype} {rows.shape}")
    kwargs = dict(output=output, class_index=class_index, max_batch_rows=max_batch_rows)
    label = _output_label(model, output)

    if is_group:
        G = onehot_grid(Xv[:, cols])
        level_names = [names[j] if names else f"x{j}" for j in cols]
        levels = tuple(
            NO_LEVEL if not row.any() else level_names[int(np.argmax(row))] for row in G
        )
        ice = ice_curves(model, X, cols, G, **kwargs)
        if anchor == "min":
            a = 0
        elif anchor == "max":
            a = G.shape[0] - 1
        else:
            raise ValueError(f"a one-hot group's anchor must be 'min' or 'max', got {anchor!r}")
        c_ice = centered_ice(ice, a)
        pd_ = ice.mean(axis=0)
        return FeatureEffect(
            feature=name, grid=np.arange(G.shape[0], dtype=np.float64), levels=levels, rows=rows,
            ice=ice, pd=pd_, c_ice=c_ice, pd_centered=pd_ - pd_[a], anchor=a,
            d_ice=None, d_pd=None, d_ice_sd=None, deciles=np.empty(0), output=label,
        )

    x = Xv[:, cols[0]]
    g = (
        feature_grid(x, resolution=resolution, kind=kind, percentiles=percentiles)
        if grid is None
        else _check_grid_axis(grid)
    )
    ice = ice_curves(model, X, cols, g, **kwargs)
    a = anchor_index(g, anchor, x)
    pd_ = ice.mean(axis=0)
    d_ice = ice_derivatives(ice, g, smooth=smooth, polyorder=polyorder)
    return FeatureEffect(
        feature=name, grid=g, levels=None, rows=rows, ice=ice, pd=pd_,
        c_ice=centered_ice(ice, a), pd_centered=pd_ - pd_[a], anchor=a,
        d_ice=d_ice, d_pd=d_ice.mean(axis=0),
        d_ice_sd=derivative_sd(d_ice) if n > 1 else np.zeros(g.size),
        deciles=deciles(x), output=label,
    )


def explain_pair(
    model,
    X,
    pair,
    *,
    feature_names: Sequence[str] | None = None,
    output: str = "auto",
    class_index: int = 1,
    grids=None,
    resolution: int = 20,
    kind: str = "uniform",
    percentiles: tuple[float, float] = (0.05, 0.95),
    max_batch_rows: int = DEFAULT_MAX_BATCH_ROWS,
) -> PairEffect:
    """Two-way PD of a pair of numeric features on a 2-D grid.

    Parameters
    ----------
    model, X, feature_names, output, class_index, max_batch_rows
        As :func:`explain_feature`.
    pair : (int or str, int or str)
        The two features (distinct).
    grids : (array-like, array-like), optional
        Explicit grids; otherwise :func:`feature_grid` of each feature with
        ``resolution`` (default 20 per axis), ``kind`` and ``percentiles``.

    Returns
    -------
    PairEffect

    Raises
    ------
    ValueError
        ``pair`` not two distinct features, a one-hot group in ``pair``, or
        invalid grids.
    """
    Xv, _, x_names = _check_X(X)
    names = list(feature_names) if feature_names is not None else x_names
    if isinstance(pair, (str, numbers.Integral)) or len(list(pair)) != 2:
        raise ValueError(f"pair must be two features, got {pair!r}")
    resolved = [_resolve_feature(p, Xv.shape[1], names, None) for p in pair]
    if any(len(cols) != 1 for _, cols, _ in resolved):
        raise ValueError("explain_pair supports numeric features only (no one-hot groups)")
    (n1, c1, _), (n2, c2, _) = resolved
    if c1[0] == c2[0]:
        raise ValueError(f"pair names the same feature twice: {pair!r}")
    x1, x2 = Xv[:, c1[0]], Xv[:, c2[0]]
    if grids is None:
        g1 = feature_grid(x1, resolution=resolution, kind=kind, percentiles=percentiles)
        g2 = feature_grid(x2, resolution=resolution, kind=kind, percentiles=percentiles)
    else:
        g1, g2 = (_check_1d(g, "grid") for g in grids)
    pd2 = partial_dependence_2d(
        model, X, (c1[0], c2[0]), g1, g2,
        output=output, class_index=class_index, max_batch_rows=max_batch_rows,
    )
    return PairEffect(
        feature_1=n1, feature_2=n2, values_1=g1, values_2=g2, pd=pd2,
        deciles_1=deciles(x1), deciles_2=deciles(x2), output=_output_label(model, output),
    )


# --------------------------------------------------------------------------- #
# tidy tables
# --------------------------------------------------------------------------- #
_TABLE_COLUMNS = ["feature", "grid_value", "level", "kind", "row", "value"]
_PAIR_COLUMNS = ["feature_1", "feature_2", "value_1", "value_2", "pd"]


def _curve_subset(n: int, max_curves: int | None, random_state) -> np.ndarray:
    if max_curves is not None:
        max_curves = _check_int(max_curves, "max_curves", 1)
    if max_curves is None or n <= max_curves:
        return np.arange(n)
    rng = np.random.default_rng(random_state)
    return np.sort(rng.choice(n, size=max_curves, replace=False))


def effects_table(
    effects: FeatureEffect | Sequence[FeatureEffect],
    *,
    max_curves: int | None = 1000,
    random_state: int = 0,
) -> pd.DataFrame:
    """Long table of PD / ICE / c-ICE / d-ICE curves for the pipeline.

    Parameters
    ----------
    effects : FeatureEffect or sequence of FeatureEffect
    max_curves : int or None, default 1000
        Keep at most this many ICE / c-ICE / d-ICE curves per feature (a random
        subset of rows drawn with ``random_state``, the same rows for the three
        kinds; all rows when ``n_rows <= max_curves`` or None). PD, centred PD,
        d-PD and d-ICE s.d. always use every row.
    random_state : int, default 0

    Returns
    -------
    DataFrame
        Columns ``feature`` (str), ``grid_value`` (float; level index for a
        one-hot group), ``level`` (level name for a group, "" otherwise),
        ``kind`` (one of :data:`TABLE_KINDS`), ``row`` (observation identifier
        for ice / c_ice / d_ice, -1 otherwise), ``value`` (float; for
        ``kind == "decile"`` the quantile level, with ``grid_value`` the decile).

    Raises
    ------
    TypeError
        An element is not a FeatureEffect.
    """
    if isinstance(effects, FeatureEffect):
        effects = [effects]
    parts = []
    for eff in effects:
        if not isinstance(eff, FeatureEffect):
            raise TypeError(f"expected FeatureEffect, got {type(eff).__name__}")
        k = eff.grid.size
        level = np.array(eff.levels, dtype=object) if eff.levels is not None else np.full(k, "", dtype=object)
        keep = _curve_subset(eff.ice.shape[0], max_curves, random_state)

        def curves(kind, mat):
            m = mat[keep]
            return pd.DataFrame({
                "grid_value": np.tile(eff.grid, m.shape[0]),
                "level": np.tile(level, m.shape[0]),
                "kind": kind,
                "row": np.repeat(np.asarray(eff.rows)[keep], k).astype(np.int64),
                "value": m.ravel(),
            })

        def line(kind, vec):
            return pd.DataFrame({
                "grid_value": eff.grid, "level": level, "kind": kind,
                "row": np.full(k, -1, dtype=np.int64), "value": np.asarray(vec, dtype=np.float64),
            })

        blocks = [line("pd", eff.pd), curves("ice", eff.ice), curves("c_ice", eff.c_ice),
                  line("pd_centered", eff.pd_centered)]
        if eff.d_ice is not None:
            blocks += [curves("d_ice", eff.d_ice), line("d_pd", eff.d_pd), line("d_ice_sd", eff.d_ice_sd)]
        if eff.deciles.size:
            blocks.append(pd.DataFrame({
                "grid_value": eff.deciles, "level": "", "kind": "decile",
                "row": np.full(eff.deciles.size, -1, dtype=np.int64),
                "value": np.arange(1, eff.deciles.size + 1) / (eff.deciles.size + 1),
            }))
        block = pd.concat(blocks, ignore_index=True)
        block.insert(0, "feature", eff.feature)
        parts.append(block)
    if not parts:
        return pd.DataFrame({c: pd.Series(dtype=t) for c, t in zip(
            _TABLE_COLUMNS, [object, float, object, object, np.int64, float])})
    return pd.concat(parts, ignore_index=True)[_TABLE_COLUMNS]


def pair_table(pairs: PairEffect | Sequence[PairEffect]) -> pd.DataFrame:
    """Long table of two-way PDs.

    Parameters
    ----------
    pairs : PairEffect or sequence of PairEffect

    Returns
    -------
    DataFrame
        Columns ``feature_1``, ``feature_2``, ``value_1``, ``value_2``, ``pd``;
        one row per grid cell, ``value_2`` varying fastest.
    """
    if isinstance(pairs, PairEffect):
        pairs = [pairs]
    parts = []
    for p in pairs:
        if not isinstance(p, PairEffect):
            raise TypeError(f"expected PairEffect, got {type(p).__name__}")
        n1, n2 = p.values_1.size, p.values_2.size
        parts.append(pd.DataFrame({
            "feature_1": p.feature_1, "feature_2": p.feature_2,
            "value_1": np.repeat(p.values_1, n2), "value_2": np.tile(p.values_2, n1),
            "pd": np.asarray(p.pd, dtype=np.float64).ravel(),
        }))
    if not parts:
        return pd.DataFrame({c: pd.Series(dtype=t) for c, t in zip(
            _PAIR_COLUMNS, [object, object, float, float, float])})
    return pd.concat(parts, ignore_index=True)[_PAIR_COLUMNS]


def effect_from_table(table: pd.DataFrame, feature: str) -> FeatureEffect:
    """Rebuild a :class:`FeatureEffect` (for plotting) from :func:`effects_table` output.

    The ICE curves are those kept in the table (possibly a subset); ``output``
    is not stored in the table and is set to ``""``.

    Raises
    ------
    ValueError
        Missing columns, unknown ``feature`` or an incomplete table.
    """
    missing = [c for c in _TABLE_COLUMNS if c not in table.columns]
    if missing:
        raise ValueError(f"table lacks columns {missing}")
    t = table[table["feature"] == feature]
    if t.empty:
        raise ValueError(f"feature {feature!r} not in table (has {sorted(table['feature'].unique())})")

    def line(kind):
        s = t[t["kind"] == kind]
        return None if s.empty else s

    pd_rows = line("pd")
    if pd_rows is None:
        raise ValueError(f"table has no 'pd' rows for {feature!r}")
    grid = pd_rows["grid_value"].to_numpy(dtype=np.float64)
    levels_col = ["" if pd.isna(v) else str(v) for v in pd_rows["level"]]
    levels = tuple(levels_col) if any(levels_col) else None

    def matrix(kind):
        s = line(kind)
        if s is None:
            return None, None
        rows = pd.unique(s["row"].to_numpy())
        return s["value"].to_numpy(dtype=np.float64).reshape(rows.size, grid.size), rows

    def vector(kind):
        s = line(kind)
        return None if s is None else s["value"].to_numpy(dtype=np.float64)

    ice, rows = matrix("ice")
    c_ice, _ = matrix("c_ice")
    d_ice, _ = matrix("d_ice")
    if ice is None or c_ice is None:
        raise ValueError(f"table has no ICE curves for {feature!r}")
    pdc = vector("pd_centered")
    zero = np.flatnonzero((pdc == 0) & np.all(c_ice == 0, axis=0))
    dec = line("decile")
    return FeatureEffect(
        feature=feature, grid=grid, levels=levels, rows=rows, ice=ice,
        pd=pd_rows["value"].to_numpy(dtype=np.float64), c_ice=c_ice, pd_centered=pdc,
        anchor=int(zero[0]) if zero.size else 0, d_ice=d_ice, d_pd=vector("d_pd"),
        d_ice_sd=vector("d_ice_sd"),
        deciles=np.empty(0) if dec is None else dec["grid_value"].to_numpy(dtype=np.float64),
        output="",
    )


def pair_from_table(table: pd.DataFrame, feature_1: str, feature_2: str) -> PairEffect:
    """Rebuild a :class:`PairEffect` from :func:`pair_table` output (no deciles).

    Raises
    ------
    ValueError
        Missing columns, unknown pair, or a table that is not a full grid.
    """
    missing = [c for c in _PAIR_COLUMNS if c not in table.columns]
    if missing:
        raise ValueError(f"table lacks columns {missing}")
    t = table[(table["feature_1"] == feature_1) & (table["feature_2"] == feature_2)]
    if t.empty:
        raise ValueError(f"pair ({feature_1!r}, {feature_2!r}) not in table")
    v1 = pd.unique(t["value_1"].to_numpy(dtype=np.float64))
    v2 = pd.unique(t["value_2"].to_numpy(dtype=np.float64))
    if len(t) != v1.size * v2.size:
        raise ValueError(f"pair ({feature_1!r}, {feature_2!r}) is not a full {v1.size} x {v2.size} grid")
    return PairEffect(
        feature_1=feature_1, feature_2=feature_2, values_1=v1, values_2=v2,
        pd=t["pd"].to_numpy(dtype=np.float64).reshape(v1.size, v2.size), output="",
    )
