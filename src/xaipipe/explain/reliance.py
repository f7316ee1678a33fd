"""Model reliance (MR): permutation feature importance as defined by Fisher, Rudin &
Dominici (2019), evaluated for many models at once.

Definitions (Fisher, Rudin & Dominici 2019, "All Models are Wrong, but Many are
Useful", JMLR 20(177), §3 and §3.1)
-----------------------------------------------------------------------------
Split the covariates into the variable of interest ``X1`` (one column or a group
of columns) and the rest ``X2``. For a *fixed* prediction model ``f`` and a loss
``L``, on a sample of ``n`` observations ``(y_i, X1_i, X2_i)``:

* ``e_orig(f) = (1/n) Σ_i L{f, (y_i, X1_i, X2_i)}`` -- the model's empirical loss.
* ``e_switch(f) = 1/(n(n-1)) Σ_i Σ_{j≠i} L{f, (y_j, X1_i, X2_j)}`` -- the loss when
  observation ``j`` keeps its response and ``X2`` but receives ``X1`` from another
  observation ``i`` (a U-statistic; every ordered pair once).
* ``e_divide(f) = 1/(2⌊n/2⌋) Σ_{i=1}^{⌊n/2⌋} [L{f, (y_i, X1_{i+⌊n/2⌋}, X2_i)}
  + L{f, (y_{i+⌊n/2⌋}, X1_i, X2_{i+⌊n/2⌋})}]`` -- the first and second halves
  of the sample swap ``X1``; with ``n`` odd the last row is unused.
* ``MR(f) = e_switch(f) / e_orig(f)`` (the paper's model reliance, a ratio;
  ``MR > 1`` means the model relies on ``X1``) and the difference
  ``e_switch(f) - e_orig(f)`` (the scale of scikit-learn's
  ``permutation_importance`` with a ``neg_*`` loss scorer).

Estimators (``estimator=`` option, recorded in the ``estimator`` column)
-------------------------------------------------------------------------
``"permutation"``
    Breiman's (2001) permutation importance as generalised by Fisher et al.:
    ``R`` random row permutations ``π_r``; repeat ``r`` evaluates
    ``(1/n) Σ_j L{f, (y_j, X1_{π_r(j)}, X2_j)}``. The reported ``e_switch`` is the
    mean over repeats; ``*_std`` is the standard deviation across repeats
    (``ddof=1``) and ``*_se = std / sqrt(R)`` the Monte-Carlo standard error of
    the mean. Because a random permutation keeps each row in place with
    probability ``1/n``, ``E_π[repeat] = (1/n) e_orig + (1 - 1/n) e_switch``
    exactly (``tests/explain/test_reliance.py`` checks this identity by
    enumerating all ``n!`` permutations of a small sample): as an estimate of
    ``ê_switch`` it is biased towards ``ê_orig`` by ``(ê_orig - ê_switch) / n``.
``"e_divide"``
    The half-swap estimator above, in the row order given (shuffle the rows
    first if they are sorted, as the paper assumes i.i.d. order). Deterministic.
``"e_switch"``
    All ``n(n-1)`` ordered pairs, evaluated in chunks of donor rows so that no
    single ``predict`` call sees more than ``max_rows_per_batch`` rows (memory is
    ``O(max_rows_per_batch · p)``, time ``O(n²)`` predictions). For a linear model
    ``f(x) = b0 + Σ_j b_j x_j`` with squared loss there is an exact ``O(n)``
    closed form (``linear=`` / automatic for fitted linear models): with residuals
    ``r_k = y_k - f(x_k)``, ``c_k = Σ_{j∈G} b_j x_kj`` and ``a_k = r_k + c_k``, the
    pair term is ``(a_j - c_i)²`` and

    ``Σ_j Σ_{i≠j} (a_j - c_i)² = n Σa² - 2 Σa Σc + n Σc² - Σ_k r_k²``
    ``= n Σ(a-ā)² + n Σ(c-c̄)² + n² (ā-c̄)² - Σ_k r_k²``

    (the centred second form is used; it avoids cancellation), divided by
    ``n(n-1)``. Deterministic.

Multi-member evaluation
-----------------------
Every estimator takes a *predict-many* callable ``predict(X) -> (m, n)`` (regression)
or ``(m, n, n_classes)`` (classification) returning the outputs of ``m`` models at
once, e.g. all ``n_estimators`` prefixes of one fitted ensemble
(:func:`member_predictor`, :func:`xaipipe.models.prefix.prefix_predictions`).
Each permuted / switched data set is built once (one fancy-indexed copy of ``X``
per feature group and repeat), and passed through ``predict`` once for all
members; several small data sets are stacked into one call up to
``max_rows_per_batch`` rows. Per-data-set loss sums do not depend on the batching.

Departures from the seed (001 §4.1)
-----------------------------------
1. Its all-pairs formula indexes ``X2`` by the donor: ``L{f, y_j, X1[i], X2[i]}``.
   That scores the prediction at the *whole* covariate vector of ``i`` against
   the response of ``j`` -- it permutes the response, i.e. measures reliance on
   all covariates jointly, not on ``X1``. The paper's ``ê_switch`` is
   ``1/(n(n-1)) Σ_i Σ_{j≠i} L{f, (y_j, X1_i, X2_j)}`` (only ``X1`` comes from the
   other observation); implemented here.
2. It describes Breiman's permutation importance as *re-training* a model on the
   permuted data and comparing out-of-bag errors. Neither Breiman's importance
   (the permuted OOB data are passed through the *same* trees) nor Fisher et
   al.'s MR re-train: MR is a property of one fixed model ``f``. Nothing is
   re-fitted here. (Re-fitting after permuting gives a different quantity, the
   *learner*-level importance.)
3. (split importance, see :mod:`xaipipe.explain.importance`) Eq. 4.1 is written
   with ``1(v_t = 1)`` and a sum to ``j-1``; Friedman's (2001, eq. 44) is
   ``Σ_{t=1}^{J-1} î_t² 1(v_t = j)`` over the ``J-1`` internal nodes of a
   ``J``-leaf tree.
4. The seed calls the all-pairs estimator ``ê_perm``; the paper calls it
   ``ê_switch`` (and its population version ``e_switch``). The pipeline uses the
   paper's names.

Losses
------
``squared_error`` (regression), ``log_loss`` and ``zero_one`` (binary
classification, labels 0/1). The binary log loss is ``-log(p)`` for ``y = 1`` and
``-log(1 - p)`` for ``y = 0`` with ``p`` the probability of class 1, clipped to
``[eps, 1 - eps]`` after forming ``1 - p`` (``eps`` = machine epsilon of the
dtype), exactly as scikit-learn's ``neg_log_loss`` scorer does (it passes the
class-1 column of ``predict_proba`` to ``log_loss``). The zero-one loss uses the
hard label ``argmax`` of the two class probabilities (class 0 on ties), as
``predict`` does.

References
----------
Fisher, A., Rudin, C. & Dominici, F. (2019). All models are wrong, but many are
useful: learning a variable's importance by studying an entire class of
prediction models simultaneously. JMLR 20(177), 1-81.
Breiman, L. (2001). Random forests. Machine Learning 45(1), 5-32.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

import numpy as np
import pandas as pd

__all__ = [
    "ESTIMATORS",
    "LOSSES",
    "RELIANCE_COLUMNS",
    "RelianceArrays",
    "features_from_groups",
    "fitted_model_reliance",
    "fitted_reliance_arrays",
    "linear_coefficients",
    "log_loss",
    "member_predictor",
    "model_reliance",
    "random_permutations",
    "reliance_arrays",
    "reliance_table",
    "resolve_features",
    "sklearn_permutations",
    "squared_error",
    "zero_one",
]

#: Estimator options of :func:`model_reliance`.
ESTIMATORS = ("permutation", "e_divide", "e_switch")

#: Columns of the tidy result, in order (``n_estimators`` is added by
#: :func:`fitted_model_reliance` when prefixes are evaluated).
RELIANCE_COLUMNS = [
    "member",
    "feature",
    "estimator",
    "algorithm",
    "loss",
    "e_orig",
    "e_switch",
    "mr_ratio",
    "mr_difference",
    "mr_ratio_std",
    "mr_difference_std",
    "mr_ratio_se",
    "mr_difference_se",
    "n_repeats",
    "n_samples",
]

#: Default upper bound on the rows passed to one ``predict`` call.
DEFAULT_MAX_ROWS = 1 << 16


# ----------------------------------------------------------------------------- losses


def _as_member_output(output: Any, n: int, name: str) -> np.ndarray:
    out = np.asarray(output)
    if out.ndim not in (2, 3) or out.shape[1] != n:
        raise ValueError(
            f"{name}: model output must have shape (n_members, {n}) or "
            f"(n_members, {n}, n_classes); got {out.shape}"
        )
    if not np.issubdtype(out.dtype, np.number) or np.issubdtype(out.dtype, np.complexfloating):
        raise ValueError(f"{name}: model output must be real numbers, got dtype {out.dtype}")
    return out


def _binary_labels(y: np.ndarray, name: str) -> np.ndarray:
    yy = np.asarray(y)
    if yy.ndim != 1:
        raise ValueError(f"{name}: y must be 1-D, got shape {yy.shape}")
    ok = np.isin(yy, (0, 1))
    if not ok.all():
        bad = np.unique(yy[~ok])[:5]
        raise ValueError(f"{name}: binary classification needs labels 0/1; found {bad.tolist()}")
    return yy.astype(bool)


def _class1_probability(out: np.ndarray, name: str) -> np.ndarray:
    """Probability of class 1 from (m, n) or (m, n, 2) output, as a float array."""
    if out.ndim == 3:
        if out.shape[2] != 2:
            raise ValueError(
                f"{name}: only binary classification is supported; output has "
                f"{out.shape[2]} classes"
            )
        p = out[..., 1]
    else:
        p = out
    if not np.issubdtype(p.dtype, np.floating):
        p = p.astype(np.float64)
    if p.size and (np.nanmax(p) > 1 or np.nanmin(p) < 0):
        raise ValueError(f"{name}: probabilities must lie in [0, 1]; got range "
                         f"[{np.nanmin(p)}, {np.nanmax(p)}]")
    return p


def squared_error(y: np.ndarray, output: np.ndarray) -> np.ndarray:
    """Per-sample squared error ``(y_i - f(x_i))²`` for ``m`` models at once.

    Parameters
    ----------
    y : ndarray of shape (n,)
        Responses (target units).
    output : ndarray of shape (m, n)
        Predictions of ``m`` regression models.

    Returns
    -------
    ndarray of shape (m, n)
        Squared errors (target units squared); the mean over samples equals
        ``sklearn.metrics.mean_squared_error``.

    Raises
    ------
    ValueError
        If ``output`` is not ``(m, n)``.
    """
    y = np.asarray(y)
    out = _as_member_output(output, y.shape[0], "squared_error")
    if out.ndim != 2:
        raise ValueError(f"squared_error: output must have shape (n_members, n), got {out.shape}")
    return (y - out) ** 2


def log_loss(y: np.ndarray, output: np.ndarray) -> np.ndarray:
    """Per-sample binary log loss (natural log) for ``m`` models at once.

    ``-log(clip(p_i))`` if ``y_i = 1`` and ``-log(clip(1 - p_i))`` if ``y_i = 0``, with
    ``p_i`` the probability of class 1 and ``clip`` to ``[eps, 1 - eps]``, ``eps`` the
    machine epsilon of the probabilities' dtype (as ``sklearn.metrics.log_loss``).

    Parameters
    ----------
    y : ndarray of shape (n,)
        Labels in {0, 1}.
    output : ndarray of shape (m, n) or (m, n, 2)
        Probability of class 1, or ``predict_proba`` output (column 1 is used).

    Returns
    -------
    ndarray of shape (m, n)
        Losses in nats.

    Raises
    ------
    ValueError
        If labels are not 0/1, the output has more than two classes, or a
        probability lies outside ``[0, 1]``.
    """
    yb = _binary_labels(y, "log_loss")
    p = _class1_probability(_as_member_output(output, yb.shape[0], "log_loss"), "log_loss")
    eps = np.finfo(p.dtype).eps
    q = np.where(yb, p, 1 - p)
    return -np.log(np.clip(q, eps, 1 - eps))


def zero_one(y: np.ndarray, output: np.ndarray) -> np.ndarray:
    """Per-sample zero-one loss of the hard label for ``m`` models at once.

    The hard label is the ``argmax`` of the two class probabilities, class 0 on
    ties (for ``(m, n)`` input: 1 iff ``p > 1 - p``).

    Parameters
    ----------
    y : ndarray of shape (n,)
        Labels in {0, 1}.
    output : ndarray of shape (m, n) or (m, n, 2)
        Probability of class 1, or ``predict_proba`` output.

    Returns
    -------
    ndarray of shape (m, n)
        1.0 where the hard label differs from ``y``, else 0.0.

    Raises
    ------
    ValueError
        As :func:`log_loss`.
    """
    yb = _binary_labels(y, "zero_one")
    out = _as_member_output(output, yb.shape[0], "zero_one")
    if out.ndim == 3:
        _class1_probability(out, "zero_one")  # validates 2 classes and range
        label = out[..., 1] > out[..., 0]
    else:
        p = _class1_probability(out, "zero_one")
        label = p > 1 - p
    return (label != yb).astype(np.float64)


#: Loss name -> per-sample loss function ``loss(y, output) -> (m, n)``.
LOSSES: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "squared_error": squared_error,
    "log_loss": log_loss,
    "zero_one": zero_one,
}


def _resolve_loss(loss) -> tuple[str, Callable]:
    if callable(loss):
        return getattr(loss, "__name__", "custom"), loss
    try:
        return loss, LOSSES[loss]
    except (KeyError, TypeError):
        raise ValueError(
            f"unknown loss {loss!r}; choose one of {sorted(LOSSES)} or pass a callable"
        ) from None


# ----------------------------------------------------------------------------- inputs


def _check_X(X) -> tuple[np.ndarray, list[str] | None]:
    names = None
    if hasattr(X, "columns") and hasattr(X, "to_numpy"):
        names = [str(c) for c in X.columns]
        X = X.to_numpy()
    X = np.asarray(X)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D (n_samples, n_features), got shape {X.shape}")
    if X.dtype.kind not in "biuf":
        raise ValueError(f"X must be numeric, got dtype {X.dtype}")
    if X.shape[0] < 2:
        raise ValueError(f"model reliance needs at least 2 samples, got {X.shape[0]}")
    if X.shape[1] < 1:
        raise ValueError("X has no columns")
    return X, names


def _check_y(y, n: int) -> np.ndarray:
    y = np.asarray(y)
    if y.ndim != 1 or y.shape[0] != n:
        raise ValueError(f"y must have shape ({n},) to match X, got {y.shape}")
    if y.dtype.kind not in "biuf":
        raise ValueError(f"y must be numeric (encode classes as 0/1), got dtype {y.dtype}")
    if y.dtype.kind == "f" and not np.isfinite(y).all():
        raise ValueError("y contains NaN or infinite values")
    return y


def resolve_features(
    features: Mapping[str, Sequence[int | str]] | Sequence[int | str] | None,
    n_features: int,
    feature_names: Sequence[str] | None = None,
) -> dict[str, np.ndarray]:
    """Normalise a feature specification to ``{name: column indices}``.

    Parameters
    ----------
    features : mapping, sequence or None
        ``None``: one group per column, named by ``feature_names`` (or
        ``"x0", "x1", ...``). A sequence of column indices / names: one group per
        entry. A mapping ``name -> columns``: each value lists the columns
        (indices, or names from ``feature_names``) permuted jointly, e.g.
        ``{"Sex": ["Sex_F", "Sex_I", "Sex_M"]}``.
    n_features : int
        Number of columns of ``X``.
    feature_names : sequence of str, optional
        Column names of ``X``.

    Returns
    -------
    dict of str -> ndarray of int
        In the given order.

    Raises
    ------
    ValueError
        On an empty specification or group, an index out of range, an unknown or
        duplicated column name, or a column listed twice in one group.
    """
    if feature_names is not None:
        feature_names = [str(c) for c in feature_names]
        if len(feature_names) != n_features:
            raise ValueError(f"{len(feature_names)} feature names for {n_features} columns")
        if len(set(feature_names)) != n_features:
            raise ValueError("feature names are not unique")
    lookup = {name: j for j, name in enumerate(feature_names or [])}

    def index(c) -> int:
        if isinstance(c, (str, np.str_)):
            if c not in lookup:
                raise ValueError(f"unknown feature name {c!r}; known: {list(lookup)}")
            return lookup[c]
        if isinstance(c, (bool, np.bool_)) or not isinstance(c, (int, np.integer)):
            raise ValueError(f"feature columns must be int indices or names, got {c!r}")
        if not 0 <= int(c) < n_features:
            raise ValueError(f"column index {c} out of range for {n_features} columns")
        return int(c)

    def label(j: int) -> str:
        return feature_names[j] if feature_names is not None else f"x{j}"

    if features is None:
        return {label(j): np.array([j]) for j in range(n_features)}
    if isinstance(features, Mapping):
        items = list(features.items())
    else:
        if isinstance(features, (str, bytes)):
            raise ValueError("features must be a mapping or a sequence, not a string")
        items = []
        for c in features:
            j = index(c)
            items.append((label(j), [j]))
    if not items:
        raise ValueError("no features given")
    out: dict[str, np.ndarray] = {}
    for name, cols in items:
        if isinstance(cols, (str, int, np.integer)):
            cols = [cols]
        idx = [index(c) for c in cols]
        if not idx:
            raise ValueError(f"feature group {name!r} has no columns")
        if len(set(idx)) != len(idx):
            raise ValueError(f"feature group {name!r} lists a column twice: {list(cols)}")
        if str(name) in out:
            raise ValueError(f"duplicate feature name {name!r}")
        out[str(name)] = np.asarray(idx, dtype=np.intp)
    return out


def features_from_groups(
    columns: Sequence[str], groups: Mapping[str, Sequence[str]] | None = None
) -> dict[str, list[int]]:
    """Feature specification from column names and one-hot groups.

    Each column not in a group is its own feature; a group (e.g. ``"Sex"`` ->
    ``["Sex_F", "Sex_I", "Sex_M"]``, as recorded in ``prepared.json``) becomes one
    feature at the position of its first member.

    Parameters
    ----------
    columns : sequence of str
        Column names of ``X`` in order.
    groups : mapping of str -> sequence of str, optional

    Returns
    -------
    dict of str -> list of int

    Raises
    ------
    ValueError
        If a group member is not a column, a column is in two groups, or a group
        name collides with an ungrouped column.
    """
    columns = [str(c) for c in columns]
    pos = {c: j for j, c in enumerate(columns)}
    owner: dict[str, str] = {}
    for gname, members in (groups or {}).items():
        if not members:
            raise ValueError(f"group {gname!r} is empty")
        for c in members:
            if c not in pos:
                raise ValueError(f"group {gname!r} member {c!r} is not a column of X")
            if c in owner:
                raise ValueError(f"column {c!r} is in groups {owner[c]!r} and {gname!r}")
            owner[c] = gname
    out: dict[str, list[int]] = {}
    for c in columns:
        g = owner.get(c)
        if g is None:
            if c in out:
                raise ValueError(f"feature name {c!r} is used twice")
            out[c] = [pos[c]]
        elif g not in out:
            if g in pos and owner.get(g) is None:
                raise ValueError(f"group name {g!r} collides with a column name")
            out[g] = [pos[m] for m in groups[g]]
    return out


# ----------------------------------------------------------------------------- permutations


def random_permutations(
    n_samples: int, n_repeats: int, n_groups: int = 1, random_state=None
) -> np.ndarray:
    """Independent uniform row permutations, as drawn by the default estimator.

    ``rng = np.random.default_rng(random_state)`` then
    ``rng.permuted(np.tile(np.arange(n_samples), (n_groups * n_repeats, 1)), axis=1)``
    reshaped group-major.

    Returns
    -------
    ndarray of int, shape (n_groups, n_repeats, n_samples)
    """
    n_samples, n_repeats, n_groups = int(n_samples), int(n_repeats), int(n_groups)
    if n_samples < 1 or n_repeats < 1 or n_groups < 1:
        raise ValueError("n_samples, n_repeats and n_groups must be >= 1")
    rng = np.random.default_rng(random_state)
    base = np.tile(np.arange(n_samples), (n_groups * n_repeats, 1))
    return rng.permuted(base, axis=1).reshape(n_groups, n_repeats, n_samples)


def sklearn_permutations(n_samples: int, n_repeats: int, random_state=None) -> np.ndarray:
    """The row permutations ``sklearn.inspection.permutation_importance`` applies.

    scikit-learn draws ``seed = check_random_state(random_state).randint(2**31)``
    once; for *every* feature it creates ``RandomState(seed)`` and, per repeat,
    shuffles an index array *in place* and re-permutes the already permuted
    column (``X[:, j] = X[idx, j]``). Repeat ``r`` therefore shows rows
    ``p_r = p_{r-1}[idx_r]`` (``p_0`` the identity); the same ``p_r`` are used for
    all features. Passing the result as ``permutations=`` reproduces its
    ``importances`` (with ``max_samples=1.0``) up to float rounding.

    Returns
    -------
    ndarray of int, shape (n_repeats, n_samples)
    """
    from sklearn.utils import check_random_state

    rs = check_random_state(random_state)
    seed = rs.randint(np.iinfo(np.int32).max + 1)
    local = np.random.RandomState(seed)
    idx = np.arange(n_samples)
    current = np.arange(n_samples)
    out = np.empty((int(n_repeats), int(n_samples)), dtype=np.intp)
    for r in range(int(n_repeats)):
        local.shuffle(idx)
        current = current[idx]
        out[r] = current
    return out


def _positive_int(value) -> bool:
    return (
        isinstance(value, (int, np.integer))
        and not isinstance(value, (bool, np.bool_))
        and value >= 1
    )


def _check_permutations(perms, n_groups: int, n: int, n_repeats: int | None) -> np.ndarray:
    p = np.asarray(perms)
    if p.dtype.kind not in "iu":
        raise ValueError(f"permutations must be integer row indices, got dtype {p.dtype}")
    if p.ndim == 2:
        p = np.broadcast_to(p, (n_groups,) + p.shape)
    if p.ndim != 3 or p.shape[0] != n_groups or p.shape[2] != n or p.shape[1] < 1:
        raise ValueError(
            f"permutations must have shape (n_repeats, {n}) or ({n_groups}, n_repeats, {n}); "
            f"got {np.shape(perms)}"
        )
    if n_repeats is not None and p.shape[1] != n_repeats:
        raise ValueError(f"n_repeats={n_repeats} but permutations hold {p.shape[1]} repeats")
    if not (np.sort(p, axis=-1) == np.arange(n)).all():
        raise ValueError(f"each row of permutations must be a permutation of range({n})")
    return p


# ----------------------------------------------------------------------------- linear models


def linear_coefficients(model) -> tuple[np.ndarray, float]:
    """Coefficients ``b`` and intercept ``b0`` with ``model.predict(x) = b0 + x @ b``.

    Supports fitted scikit-learn linear regressors (``LinearRegression``,
    ``Ridge``, ``Lasso``, ... any ``sklearn.linear_model`` regressor with a 1-D
    ``coef_``) and ``Pipeline``s whose earlier steps are column-wise affine
    scalers (``StandardScaler``, ``MinMaxScaler``, ``MaxAbsScaler``,
    ``"passthrough"``), which are folded into the coefficients.

    Returns
    -------
    coef : ndarray of shape (n_features,)
    intercept : float

    Raises
    ------
    TypeError
        If the model is not such a linear regressor.
    """
    from sklearn.base import is_classifier
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import MaxAbsScaler, MinMaxScaler, StandardScaler

    steps = list(model.steps) if isinstance(model, Pipeline) else [("model", model)]
    final = steps[-1][1]
    coef = getattr(final, "coef_", None)
    if (
        is_classifier(final)
        or coef is None
        or not type(final).__module__.startswith("sklearn.linear_model")
        or np.ndim(coef) != 1
        or np.ndim(getattr(final, "intercept_", 0.0)) != 0
    ):
        raise TypeError(
            f"{type(final).__name__} is not a single-output scikit-learn linear regressor"
        )
    scale = np.ones(coef.shape[0])
    shift = np.zeros(coef.shape[0])
    for name, step in steps[:-1]:  # z = x * scale + shift, composed left to right
        if step is None or step == "passthrough":
            continue
        if isinstance(step, StandardScaler):
            s = step.scale_ if step.scale_ is not None else 1.0
            m = step.mean_ if step.with_mean and step.mean_ is not None else 0.0
            a, b = 1.0 / s, -np.asarray(m) / s
        elif isinstance(step, MinMaxScaler):
            if getattr(step, "clip", False):
                raise TypeError("MinMaxScaler(clip=True) is not affine")
            a, b = step.scale_, step.min_
        elif isinstance(step, MaxAbsScaler):
            a, b = 1.0 / step.scale_, 0.0
        else:
            raise TypeError(
                f"pipeline step {name!r} ({type(step).__name__}) is not a column-wise affine scaler"
            )
        scale, shift = scale * a, shift * a + b
    coef = np.asarray(coef, dtype=np.float64)
    return coef * scale, float(final.intercept_) + float(coef @ shift)


def _linear_e_switch(X, y, coef, intercept, groups) -> np.ndarray:
    """Closed-form ê_switch for linear models and squared loss, shape (m, G)."""
    n = X.shape[0]
    Xf = X.astype(np.float64, copy=False)
    pred = Xf @ coef.T + intercept  # (n, m)
    r = y.astype(np.float64)[:, None] - pred
    rr = np.sum(r * r, axis=0)
    out = np.empty((coef.shape[0], len(groups)))
    for g, cols in enumerate(groups):
        c = Xf[:, cols] @ coef[:, cols].T  # (n, m)
        a = r + c
        da = a - a.mean(axis=0)
        dc = c - c.mean(axis=0)
        total = n * np.sum(da * da, axis=0) + n * np.sum(dc * dc, axis=0)
        total += n * n * (a.mean(axis=0) - c.mean(axis=0)) ** 2
        out[:, g] = (total - rr) / (n * (n - 1))
    return out


# ----------------------------------------------------------------------------- engine


@dataclass(frozen=True)
class _Job:
    slot: tuple[int, int] | None  # (group, repeat); None = the original data
    cols: np.ndarray | None  # switched columns
    recipients: np.ndarray  # rows giving y and the other columns
    donors: np.ndarray | None  # rows giving the switched columns


def _run_jobs(predict, X, y, loss_fn, jobs, max_rows, name):
    """Yield (job, loss sum over its rows, shape (m,)) with batched predict calls."""
    state = {"m": None}

    def run(batch):
        rows = sum(len(j.recipients) for j in batch)
        Xb = np.empty((rows, X.shape[1]), dtype=X.dtype)
        yb = np.empty(rows, dtype=y.dtype)
        bounds = []
        start = 0
        for job in batch:
            stop = start + len(job.recipients)
            block = Xb[start:stop]
            np.take(X, job.recipients, axis=0, out=block)
            if job.cols is not None:
                block[:, job.cols] = X[np.ix_(job.donors, job.cols)]
            yb[start:stop] = y[job.recipients]
            bounds.append((start, stop))
            start = stop
        out = np.asarray(predict(Xb))
        if out.ndim not in (2, 3) or out.shape[1] != rows:
            raise ValueError(
                f"predict must return shape (n_members, {rows}) or "
                f"(n_members, {rows}, n_classes) for {rows} rows; got {out.shape}"
            )
        if state["m"] is None:
            state["m"] = out.shape[0]
        elif out.shape[0] != state["m"]:
            raise ValueError(f"predict returned {out.shape[0]} members, earlier {state['m']}")
        losses = np.asarray(loss_fn(yb, out), dtype=np.float64)
        if losses.shape != (out.shape[0], rows):
            raise ValueError(
                f"loss {name!r} returned shape {losses.shape}, expected {(out.shape[0], rows)}"
            )
        return [(job, losses[:, a:b].sum(axis=1)) for job, (a, b) in zip(batch, bounds)]

    batch, rows = [], 0
    for job in jobs:
        size = len(job.recipients)
        if batch and rows + size > max_rows:
            yield from run(batch)
            batch, rows = [], 0
        batch.append(job)
        rows += size
    if batch:
        yield from run(batch)


@dataclass(frozen=True)
class RelianceArrays:
    """Raw model-reliance estimates for ``m`` members and ``G`` feature groups.

    Attributes
    ----------
    features : list of str
        Group names, length ``G``.
    e_orig : ndarray of shape (m,)
        ``ê_orig`` per member (mean loss on the unchanged data).
    e_switch : ndarray of shape (m, G, R)
        Estimate of the switched loss per member, group and repeat (``R = 1``
        for the deterministic estimators ``e_divide`` and ``e_switch``).
    estimator : str
        ``"permutation"``, ``"e_divide"`` or ``"e_switch"``.
    algorithm : str
        ``"random_permutations"``, ``"given_permutations"``, ``"half_swap"``,
        ``"all_pairs"`` or ``"linear_closed_form"``.
    loss : str
    n_samples : int
    """

    features: list
    e_orig: np.ndarray
    e_switch: np.ndarray
    estimator: str
    algorithm: str
    loss: str
    n_samples: int

    @property
    def deterministic(self) -> bool:
        return self.estimator != "permutation"

    def mr_ratio(self) -> np.ndarray:
        """Per-repeat ``e_switch / e_orig``, shape (m, G, R); inf/NaN where ``e_orig = 0``."""
        with np.errstate(divide="ignore", invalid="ignore"):
            return self.e_switch / self.e_orig[:, None, None]

    def mr_difference(self) -> np.ndarray:
        """Per-repeat ``e_switch - e_orig``, shape (m, G, R)."""
        return self.e_switch - self.e_orig[:, None, None]


def reliance_arrays(
    predict: Callable[[np.ndarray], np.ndarray],
    X,
    y,
    *,
    features=None,
    feature_names: Sequence[str] | None = None,
    estimator: str = "permutation",
    loss="squared_error",
    n_repeats: int | None = None,
    random_state=None,
    permutations=None,
    linear: tuple[Any, Any] | None = None,
    max_rows_per_batch: int = DEFAULT_MAX_ROWS,
) -> RelianceArrays:
    """Model reliance of ``m`` models at once, as raw arrays (see :func:`model_reliance`).

    Returns
    -------
    RelianceArrays
    """
    X, names = _check_X(X)
    n = X.shape[0]
    y = _check_y(y, n)
    if feature_names is None:
        feature_names = names
    groups = resolve_features(features, X.shape[1], feature_names)
    loss_name, loss_fn = _resolve_loss(loss)
    if estimator not in ESTIMATORS:
        raise ValueError(f"unknown estimator {estimator!r}; choose one of {list(ESTIMATORS)}")
    if not _positive_int(max_rows_per_batch):
        raise ValueError(f"max_rows_per_batch must be a positive int, got {max_rows_per_batch!r}")
    if n_repeats is not None and not _positive_int(n_repeats):
        raise ValueError(f"n_repeats must be a positive int, got {n_repeats!r}")
    if estimator != "permutation" and (permutations is not None or n_repeats not in (None, 1)):
        raise ValueError(
            f"n_repeats / permutations apply to estimator='permutation' only, not {estimator!r}"
        )
    if linear is not None and (estimator != "e_switch" or loss_fn is not squared_error):
        raise ValueError(
            "the linear closed form is for estimator='e_switch' with loss='squared_error'"
        )

    cols = list(groups.values())
    G = len(cols)
    everyone = np.arange(n)
    algorithm = {"e_divide": "half_swap", "e_switch": "all_pairs"}.get(estimator)
    R = 1
    perms = None
    if estimator == "permutation":
        if permutations is None:
            R = 10 if n_repeats is None else int(n_repeats)
            perms = random_permutations(n, R, G, random_state)
            algorithm = "random_permutations"
        else:
            perms = _check_permutations(permutations, G, n, n_repeats)
            R = perms.shape[1]
            algorithm = "given_permutations"

    def jobs():
        # Generated lazily: the all-pairs index arrays exist one chunk at a time.
        yield _Job(None, None, everyone, None)
        if estimator == "permutation":
            for g in range(G):
                for r in range(R):
                    yield _Job((g, r), cols[g], everyone, perms[g, r])
        elif estimator == "e_divide":
            h = n // 2
            recip = np.arange(2 * h)
            donors = np.concatenate([np.arange(h, 2 * h), np.arange(h)])
            for g in range(G):
                yield _Job((g, 0), cols[g], recip, donors)
        elif linear is None:
            per_chunk = max(1, int(max_rows_per_batch) // (n - 1))
            for g in range(G):
                for a in range(0, n, per_chunk):
                    d = np.arange(a, min(a + per_chunk, n))
                    donors = np.repeat(d, n - 1)
                    recip = np.tile(np.arange(n - 1), d.size)
                    recip += recip >= donors  # recipients j != donor i
                    yield _Job((g, 0), cols[g], recip, donors)

    if linear is not None:
        algorithm = "linear_closed_form"

    sums = None
    e_orig = None
    for job, s in _run_jobs(predict, X, y, loss_fn, jobs(), int(max_rows_per_batch), loss_name):
        if job.slot is None:
            e_orig = s / n
            sums = np.zeros((s.shape[0], G, R))
            continue
        g, r = job.slot
        sums[:, g, r] += s
    if estimator == "permutation":
        e_sw = sums / n
    elif estimator == "e_divide":
        e_sw = sums / (2 * (n // 2))
    elif linear is None:
        e_sw = sums / (n * (n - 1))
    else:
        m, p = e_orig.shape[0], X.shape[1]
        coef = np.atleast_2d(np.asarray(linear[0], dtype=np.float64))
        if coef.shape not in ((m, p), (1, p)):
            raise ValueError(
                f"linear coefficients must have shape ({p},) or ({m}, {p}), got {coef.shape}"
            )
        coef = np.broadcast_to(coef, (m, p))
        intercept = np.asarray(linear[1], dtype=np.float64).reshape(-1)
        if intercept.shape not in ((1,), (m,)):
            raise ValueError(f"linear intercept must be a scalar or have shape ({m},)")
        intercept = np.broadcast_to(intercept, (m,))
        # The closed form must describe the same models as predict: check on X.
        check = np.asarray(predict(X))
        lin = (X.astype(np.float64) @ coef.T + intercept).T
        tol = 1e-8 * (1 + np.abs(lin).max())
        if check.shape != (m, n) or not np.allclose(check, lin, rtol=1e-8, atol=tol):
            raise ValueError(
                "the linear coefficients do not reproduce predict(X); closed form not applicable"
            )
        e_sw = _linear_e_switch(X, y, coef, intercept, cols)[:, :, None]
    return RelianceArrays(
        features=list(groups),
        e_orig=e_orig,
        e_switch=e_sw,
        estimator=estimator,
        algorithm=algorithm,
        loss=loss_name,
        n_samples=n,
    )


def reliance_table(arrays: RelianceArrays) -> pd.DataFrame:
    """Tidy table of :class:`RelianceArrays`: one row per member × feature.

    Columns are :data:`RELIANCE_COLUMNS`. ``e_switch`` is the mean switched loss
    over repeats, ``mr_ratio = e_switch / e_orig`` and
    ``mr_difference = e_switch - e_orig``; ``*_std`` (``ddof=1``) and ``*_se``
    (``std / sqrt(R)``) are NaN for deterministic estimators and for ``R = 1``.
    """
    ratio, diff = arrays.mr_ratio(), arrays.mr_difference()
    m, G, R = arrays.e_switch.shape
    nan = np.full((m, G), np.nan)

    def spread(v):
        if arrays.deterministic or R < 2:
            return nan, nan
        sd = v.std(axis=2, ddof=1)
        return sd, sd / np.sqrt(R)

    rs, rse = spread(ratio)
    ds, dse = spread(diff)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean_ratio = ratio.mean(axis=2)
    frame = pd.DataFrame(
        {
            "member": np.repeat(np.arange(m), G),
            "feature": np.tile(np.asarray(arrays.features, dtype=object), m),
            "estimator": arrays.estimator,
            "algorithm": arrays.algorithm,
            "loss": arrays.loss,
            "e_orig": np.repeat(arrays.e_orig, G),
            "e_switch": arrays.e_switch.mean(axis=2).ravel(),
            "mr_ratio": mean_ratio.ravel(),
            "mr_difference": diff.mean(axis=2).ravel(),
            "mr_ratio_std": rs.ravel(),
            "mr_difference_std": ds.ravel(),
            "mr_ratio_se": rse.ravel(),
            "mr_difference_se": dse.ravel(),
            "n_repeats": R,
            "n_samples": arrays.n_samples,
        }
    )
    return frame[RELIANCE_COLUMNS]


def model_reliance(
    predict: Callable[[np.ndarray], np.ndarray],
    X,
    y,
    *,
    features=None,
    feature_names: Sequence[str] | None = None,
    estimator: str = "permutation",
    loss="squared_error",
    n_repeats: int | None = None,
    random_state=None,
    permutations=None,
    linear: tuple[Any, Any] | None = None,
    max_rows_per_batch: int = DEFAULT_MAX_ROWS,
) -> pd.DataFrame:
    """Model reliance (Fisher, Rudin & Dominici 2019, §3) of ``m`` models at once.

    Parameters
    ----------
    predict : callable
        *Predict-many* function: ``predict(X_batch)`` with ``X_batch`` an ndarray
        of shape ``(rows, n_features)`` returns the outputs of ``m`` models,
        shape ``(m, rows)`` (regression) or ``(m, rows, n_classes)``
        (``predict_proba``). See :func:`member_predictor`.
    X : array-like of shape (n, n_features)
        Data on which reliance is measured (numeric; a DataFrame gives names).
    y : array-like of shape (n,)
        Responses; 0/1 labels for the classification losses.
    features : mapping name -> columns, sequence, or None
        Variables; a group of columns is permuted jointly with the same row
        permutation (see :func:`resolve_features`). Default: every column.
    feature_names : sequence of str, optional
        Column names (default: DataFrame columns, else ``x0, x1, ...``).
    estimator : {"permutation", "e_divide", "e_switch"}, default="permutation"
        See the module docstring.
    loss : {"squared_error", "log_loss", "zero_one"} or callable
        Per-sample loss ``loss(y, output) -> (m, n)``.
    n_repeats : int, optional
        Permutations per feature for ``"permutation"`` (default 10, or the
        number in ``permutations``).
    random_state : int, numpy Generator, SeedSequence or None
        Seed of ``np.random.default_rng`` for the default permutations
        (:func:`random_permutations`, independent per feature group).
    permutations : int array of shape (R, n) or (G, R, n), optional
        Precomputed row permutations, shared by all groups or one set per group
        (e.g. :func:`sklearn_permutations` to reproduce
        ``sklearn.inspection.permutation_importance``).
    linear : (coef, intercept), optional
        For ``"e_switch"`` with squared loss: coefficients of shape
        ``(n_features,)`` or ``(m, n_features)`` and intercepts (scalar or
        ``(m,)``) such that ``predict(X) = intercept + X @ coef``; switches to the
        exact ``O(n)`` closed form (checked against ``predict(X)``).
    max_rows_per_batch : int, default=65536
        Maximum rows per ``predict`` call (``e_switch`` chunks of donor rows;
        permuted data sets are stacked up to this size). A single data set of
        ``n`` rows is never split.

    Returns
    -------
    DataFrame
        One row per member × feature (member-major), columns
        :data:`RELIANCE_COLUMNS`: ``member`` (index into the members of
        ``predict``), ``feature``, ``estimator``, ``algorithm``, ``loss``,
        ``e_orig``, ``e_switch`` (estimate of the switched loss; mean over
        repeats), ``mr_ratio`` (``e_switch / e_orig``, Fisher et al.'s ``M̂R``;
        inf/NaN when ``e_orig = 0``), ``mr_difference`` (``e_switch - e_orig``,
        loss units), ``mr_ratio_std``, ``mr_difference_std`` (across repeats,
        ``ddof=1``), ``mr_ratio_se``, ``mr_difference_se`` (``std / sqrt(R)``; all
        four NaN for deterministic estimators), ``n_repeats``, ``n_samples``.

    Raises
    ------
    ValueError
        On invalid shapes, feature groups, permutations, options, labels for a
        classification loss, or ``predict`` output of the wrong shape.

    Notes
    -----
    ``predict`` is called once on the unchanged ``X`` and once per permuted /
    switched data set (stacked), never per member. The ``permutation`` result
    with ``sklearn_permutations(n, R, seed)`` and a ``neg_*`` scorer matching
    ``loss`` equals scikit-learn's ``importances_mean`` (``mr_difference``);
    scikit-learn's ``importances_std`` uses ``ddof=0``.
    """
    return reliance_table(
        reliance_arrays(
            predict,
            X,
            y,
            features=features,
            feature_names=feature_names,
            estimator=estimator,
            loss=loss,
            n_repeats=n_repeats,
            random_state=random_state,
            permutations=permutations,
            linear=linear,
            max_rows_per_batch=max_rows_per_batch,
        )
    )


def member_predictor(
    model, n_estimators: Sequence[int] | None = None, n_jobs: int | None = 1
) -> Callable[[np.ndarray], np.ndarray]:
    """Predict-many callable of a fitted model.

    Parameters
    ----------
    model : fitted estimator
    n_estimators : sequence of int, optional
        Ensemble prefixes to evaluate as members
        (:func:`xaipipe.models.prefix.prefix_predictions`); default: the model
        itself as the only member.
    n_jobs : int or None, default 1
        For tree ensembles (random forest, gradient boosting, XGBoost): threads,
        each predicting one contiguous block of the rows (scikit-learn's tree
        traversal and XGBoost's predictor release the GIL). Every row's output is
        formed by the same sequence of operations whatever the block, so the
        result is bitwise independent of ``n_jobs``. ``None`` or ``-1``: all
        CPUs. Ignored for other models.

    Returns
    -------
    callable
        ``X -> (m, n)`` (``predict``) or ``(m, n, n_classes)``
        (``predict_proba``), float64.
    """
    from ..models.prefix import ensemble_kind, predict_output, prefix_predictions

    if n_estimators is None:
        def one(Z):
            return np.asarray(predict_output(model, Z), dtype=np.float64)[None]
    else:
        ks = [int(k) for k in n_estimators]

        def one(Z):
            return prefix_predictions(model, Z, ks)

    threads = (os.cpu_count() or 1) if n_jobs in (None, -1) else int(n_jobs)
    if threads <= 1 or ensemble_kind(model) is None:
        return one

    def blocks(Z):
        n = len(Z)
        if n < 2 * _MIN_BLOCK_ROWS:
            return one(Z)
        k = min(threads, n // _MIN_BLOCK_ROWS)
        edges = np.linspace(0, n, k + 1).astype(int)
        with ThreadPoolExecutor(k) as pool:
            parts = list(pool.map(lambda ab: one(Z[ab[0]:ab[1]]), zip(edges[:-1], edges[1:])))
        return np.concatenate(parts, axis=1)

    return blocks


#: Smallest row block :func:`member_predictor` gives a thread.
_MIN_BLOCK_ROWS = 512


def fitted_reliance_arrays(
    model,
    X,
    y,
    *,
    n_estimators: Sequence[int] | None = None,
    linear: tuple[np.ndarray, float] | None = None,
    n_jobs: int | None = 1,
    use_engine: bool = True,
    **kwargs,
) -> RelianceArrays:
    """MR arrays of a fitted model (or of its ensemble prefixes) by the faster exact path.

    The tree engine (:func:`xaipipe.rashomon.engine.ensemble_reliance_arrays`:
    re-evaluates only the trees that split on the permuted variable) where
    :func:`xaipipe.rashomon.engine.engine_preferred` says it is faster (gradient
    boosting and random forests, except for ``e_divide``) and ``use_engine`` is true;
    otherwise :func:`reliance_arrays` with :func:`member_predictor`. Both paths
    give bitwise-equal results (``tests/explain/test_reliance.py``), so the
    choice, like ``n_jobs`` (threads of the engine's kernel or of the row blocks
    of :func:`member_predictor`), changes only the speed.

    Parameters
    ----------
    model : fitted estimator
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    n_estimators : sequence of int, optional
        Ensemble prefixes evaluated as members (one member per value).
    linear : (coef, intercept), optional
        Closed form of ``e_switch`` with squared loss for a linear model
        (:func:`linear_coefficients`); given, the generic path uses it.
    n_jobs : int or None, default 1
    use_engine : bool, default True
        False forces the generic path.
    **kwargs
        ``features``, ``feature_names``, ``estimator``, ``loss``, ``n_repeats``,
        ``random_state``, ``permutations``, ``max_rows_per_batch`` as in
        :func:`model_reliance`.

    Returns
    -------
    RelianceArrays

    Raises
    ------
    ValueError
        As :func:`model_reliance`.
    """
    from ..rashomon.engine import engine_preferred, ensemble_reliance_arrays

    if use_engine and linear is None and engine_preferred(model, kwargs.get("estimator", "permutation")):
        return ensemble_reliance_arrays(model, X, y, n_estimators=n_estimators, n_jobs=n_jobs, **kwargs)
    return reliance_arrays(member_predictor(model, n_estimators, n_jobs=n_jobs), X, y, linear=linear, **kwargs)


def fitted_model_reliance(
    model,
    X,
    y,
    *,
    n_estimators: Sequence[int] | None = None,
    features=None,
    feature_names: Sequence[str] | None = None,
    estimator: str = "permutation",
    loss=None,
    n_repeats: int | None = None,
    random_state=None,
    permutations=None,
    closed_form: bool | None = None,
    max_rows_per_batch: int = DEFAULT_MAX_ROWS,
    n_jobs: int | None = 1,
    use_engine: bool = True,
) -> pd.DataFrame:
    """Model reliance of a fitted model (or of its ensemble prefixes).

    Wraps :func:`model_reliance` with :func:`member_predictor`. Where it is the
    faster path (:func:`xaipipe.rashomon.engine.engine_preferred`: gradient
    boosting and random forests, except for ``e_divide``) the tree engine
    (:func:`xaipipe.rashomon.engine.ensemble_reliance_arrays`: re-evaluates only
    the trees that split on the permuted variable; bitwise equal to the generic
    path, ``tests/explain/test_reliance.py``) is used unless ``use_engine=False``.
    ``n_jobs``: threads of the engine's kernel, or of the row blocks of the
    generic path's ensemble predictions (:func:`member_predictor`); the result
    does not depend on them. ``loss`` defaults
    to ``"log_loss"`` for classifiers and ``"squared_error"`` for regressors.
    ``closed_form``: for ``estimator="e_switch"`` with squared loss, ``None``
    uses the linear closed form when :func:`linear_coefficients` applies and the
    all-pairs sum otherwise; ``True`` requires it (``TypeError`` if the model is
    not linear); ``False`` always sums the pairs. With ``n_estimators`` the
    result has an extra ``n_estimators`` column (the prefix of each member).

    Returns
    -------
    DataFrame
        As :func:`model_reliance`.

    Raises
    ------
    TypeError
        ``closed_form=True`` for a non-linear model.
    ValueError
        As :func:`model_reliance`.
    """
    from sklearn.base import is_classifier

    if loss is None:
        loss = "log_loss" if is_classifier(model) else "squared_error"
    linear = None
    squared = _resolve_loss(loss)[1] is squared_error
    if estimator == "e_switch" and squared and closed_form is not False and n_estimators is None:
        try:
            linear = linear_coefficients(model)
        except TypeError:
            if closed_form:
                raise
    elif closed_form:
        raise TypeError(
            "closed_form=True needs estimator='e_switch', loss='squared_error' and no n_estimators"
        )
    table = reliance_table(fitted_reliance_arrays(
        model, X, y, n_estimators=n_estimators, features=features, feature_names=feature_names,
        estimator=estimator, loss=loss, n_repeats=n_repeats, random_state=random_state,
        permutations=permutations, linear=linear, max_rows_per_batch=max_rows_per_batch, n_jobs=n_jobs,
        use_engine=use_engine,
    ))
    if n_estimators is not None:
        ks = np.asarray([int(k) for k in n_estimators])
        table.insert(1, "n_estimators", ks[table["member"].to_numpy()])
    return table
