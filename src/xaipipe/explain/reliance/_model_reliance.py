"""The one public function of model reliance: validate once, choose the exact path, compute."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ...losses import default_loss, resolve_loss, squared_error
from ...validation import check_int
from ._base import (
    ESTIMATORS,
    RelianceOptions,
    RelianceResult,
    check_y,
    divisor,
    e_switch_rows,
    resolve_permutations,
    resolve_variables,
    switch_designs,
)
from ._generic import generic_sums
from ._linear import linear_coefficients, linear_e_switch
from ._mc_error import SwitchLosses
from ._subsample import PairSums, subsample_design, subsampled_reliance

__all__ = ["METHODS", "RelianceOptions", "model_reliance"]

#: ``method`` options of :func:`model_reliance`.
METHODS = ("auto", "engine", "generic", "linear")


def _linear_or_none(model, estimator: str, loss_fn, n_estimators) -> tuple[Any, Any] | None:
    if estimator != "e_switch" or loss_fn is not squared_error or n_estimators is not None:
        return None
    try:
        return linear_coefficients(model)
    except TypeError:
        return None


def model_reliance(
    model,
    X,
    y,
    *,
    estimator: str = "permutation",
    loss: str | Callable | None = None,
    features=None,
    n_repeats: int | None = None,
    random_state=None,
    n_estimators: Sequence[int] | None = None,
    method: str = "auto",
    n_jobs: int | None = 1,
    options: RelianceOptions | None = None,
) -> RelianceResult:
    """Model reliance (Fisher, Rudin & Dominici 2019, §3) of a fitted model or of ``m`` models at once.

    Parameters
    ----------
    model : fitted estimator or callable
        A fitted estimator (regressor: ``predict``; binary classifier:
        ``predict_proba``), whose ensemble prefixes ``n_estimators`` may be
        evaluated as members; or a *predict-many* callable ``f(X_batch)`` returning
        the outputs of ``m`` models, shape ``(m, rows)`` or ``(m, rows, n_classes)``
        (:func:`xaipipe.models.prefix.member_predictor`).
    X : array-like of shape (n, p)
        Data on which reliance is measured (numeric; a DataFrame gives names).
    y : array-like of shape (n,)
        Responses; 0/1 labels for the classification losses.
    estimator : {"permutation", "e_divide", "e_switch"}, default "permutation"
        See the package docstring.
    loss : {"squared_error", "log_loss", "zero_one"} or callable, optional
        Per-sample loss ``loss(y, output) -> (m, n)``. Default: ``"log_loss"`` for
        classifiers, ``"squared_error"`` otherwise (and for callables).
    features : mapping name -> columns, sequence, or None
        The variables (names resolved through ``options.feature_names``); a group of
        columns is permuted jointly with the same row permutation
        (:func:`resolve_features`). Default: every column.
    n_repeats : int, optional
        Random permutations (``"permutation"``) or random halvings (``"e_divide"``)
        per variable (default 10, or the number in ``options.permutations``).
    random_state : int, numpy Generator, SeedSequence or None
        Seed of ``np.random.default_rng`` for the default permutations / halvings
        (:func:`random_permutations`, independent per variable; ``e_divide`` draws
        from an independent stream of the same seed).
    n_estimators : sequence of int, optional
        Ensemble prefixes of ``model`` evaluated as members (one member per value;
        :mod:`xaipipe.models.prefix`); the table gets an ``n_estimators`` column.
    method : {"auto", "engine", "generic", "linear"}, default "auto"
        How the exact estimate is computed (all give the same numbers; the first
        three bitwise):

        * ``"generic"``: every switched data set through ``predict`` (batched);
        * ``"engine"``: the tree engine (:mod:`._engine`; families with
          ``engine`` support: re-evaluates only the trees that split on the
          variable);
        * ``"linear"``: the exact O(n) closed form of ``e_switch`` for a linear
          regressor with squared loss (:mod:`._linear`);
        * ``"auto"``: ``"linear"`` where it applies, else ``"engine"`` where it is
          faster (``permutation``, ``e_switch`` and ``e_divide`` with several
          halvings, of forests and gradient boosting), else ``"generic"``.
    n_jobs : int or None, default 1
        Threads of the tree engine's kernel, or of the row blocks of the generic
        path's ensemble predictions; the result does not depend on it.
    options : RelianceOptions, optional
        The rarely used options (:class:`RelianceOptions`): ``feature_names``,
        ``feature_groups`` (one-hot groups instead of ``features``), precomputed
        ``permutations`` (common random numbers), ``max_rows_per_batch``, the
        ``e_switch`` subsample ``max_samples`` and its ``subsample_se``, the large-data
        ``subsample_rows``, and ``switch_matrix``. None: ``RelianceOptions()``.

    Returns
    -------
    RelianceResult
        Arrays ``e_orig`` (m,), ``e_switch`` (m, G, R) and
        :meth:`RelianceResult.to_frame` (one row per member x variable: ``member``,
        ``feature``, ``estimator``, ``algorithm``, ``loss``, ``e_orig``,
        ``e_switch``, ``mr_ratio``, ``mr_difference``, their ``_std`` and ``_se``,
        ``n_repeats``, ``n_samples``).

    Raises
    ------
    ValueError
        Invalid shapes, variables, permutations, options, labels for a
        classification loss, or predict output of the wrong shape.
    TypeError
        ``method="engine"`` for a model without engine support, ``method="linear"``
        where the closed form does not apply, or a non-integer count.

    Notes
    -----
    ``predict`` is called once on the unchanged ``X`` and once per permuted /
    switched data set (stacked), never per member. The ``permutation`` result
    with ``sklearn_permutations(n, R, seed)`` and a ``neg_*`` scorer matching
    ``loss`` equals scikit-learn's ``importances_mean`` (``mr_difference``);
    scikit-learn's ``importances_std`` uses ``ddof=0``.
    """
    opts = RelianceOptions() if options is None else options
    Xv, _, groups = resolve_variables(X, features, opts.feature_names, opts.feature_groups)
    n = Xv.shape[0]
    yv = check_y(y, n)
    cols = list(groups.values())
    is_callable = callable(model) and not hasattr(model, "predict")
    if loss is None:
        from sklearn.base import is_classifier

        loss = default_loss("classification" if not is_callable and is_classifier(model) else "regression")
    loss_name, loss_fn = resolve_loss(loss)
    max_rows = _check_choices(estimator, method, opts.max_rows_per_batch)
    if opts.subsample_rows is not None:
        m = _check_subsample(estimator, method, opts, is_callable, n_estimators)
        if n > m:
            R = 10 if n_repeats is None else check_int(n_repeats, "n_repeats", minimum=1)
            return subsampled_reliance(
                model,
                Xv,
                yv,
                estimator=estimator,
                loss=(loss_name, loss_fn),
                groups=groups,
                design=subsample_design(estimator, n, m, R, len(cols), random_state),
                n_estimators=n_estimators,
                max_rows_per_batch=max_rows,
                n_jobs=n_jobs,
            )
    perms, R, algorithm = resolve_permutations(estimator, opts.permutations, n_repeats, n, len(cols), random_state)
    if is_callable and (method in ("engine", "linear") or n_estimators is not None):
        raise ValueError("a predict-many callable supports method='auto' or 'generic' without n_estimators")
    linear, use_engine = _choose_path(model, is_callable, method, estimator, loss_fn, n_estimators, R)

    n_all = n  # all rows, before an e_switch subsample
    matrix_rows = None  # the rows of the linear closed form's switch_matrix (its estimate takes them all)
    if opts.max_samples is not None:
        if estimator != "e_switch":
            raise ValueError(f"max_samples applies to estimator='e_switch', not {estimator!r}")
        rows = e_switch_rows(n, opts.max_samples, random_state)  # config e_switch_max_rows
        if rows is not None and linear is None:
            Xv, yv, n = Xv[rows], yv[rows], len(rows)
        elif rows is not None:
            matrix_rows = rows
    designs = (
        []
        if linear is not None
        else switch_designs(estimator, n, len(cols), permutations=perms, max_rows_per_batch=max_rows)
    )
    pairs = _pair_store(estimator, opts, linear is None, n, n_all, len(cols))
    if use_engine:
        from ._engine import engine_sums

        e_orig, sums = engine_sums(
            model,
            Xv,
            yv,
            n_estimators=n_estimators,
            cols=cols,
            loss_fn=loss_fn,
            loss_name=loss_name,
            designs=designs,
            max_rows=max_rows,
            n_jobs=n_jobs,
            pairs=pairs,
        )
        path = "engine"
    else:
        from ...models.prefix import member_predictor

        predict = model if is_callable else member_predictor(model, n_estimators, n_jobs=n_jobs)
        e_orig, sums = generic_sums(predict, Xv, yv, loss_fn, loss_name, cols, designs, max_rows, pairs)
        path = "generic"
    if linear is not None:
        e_sw = _linear_e_switch(linear, Xv, yv, cols)
        algorithm, path = "linear_closed_form", "linear"
        if opts.switch_matrix:  # the closed form forms no switched loss: evaluate them (m² rows per variable)
            Xm, ym = (Xv, yv) if matrix_rows is None else (Xv[matrix_rows], yv[matrix_rows])
            pairs = _linear_switch_losses(predict, Xm, ym, (loss_fn, loss_name), cols, max_rows)
    else:
        e_sw = sums / divisor(estimator, n)
    return RelianceResult(
        features=list(groups),
        e_orig=e_orig,
        e_switch=e_sw,
        estimator=estimator,
        algorithm=algorithm,
        loss=loss_name,
        n_samples=n,
        n_estimators=None if n_estimators is None else [int(k) for k in n_estimators],
        method=path,
        subsample_se=None if pairs is None or opts.switch_matrix else pairs.standard_errors(n_all),
        switch_losses=pairs.matrices() if opts.switch_matrix else None,
    )


# ----------------------------------------------------------------------------- the steps


def _check_choices(estimator: str, method: str, max_rows_per_batch) -> int:
    """Check ``estimator`` and ``method``; the checked ``max_rows_per_batch``."""
    if estimator not in ESTIMATORS:
        raise ValueError(f"unknown estimator {estimator!r}; choose one of {list(ESTIMATORS)}")
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; choose one of {list(METHODS)}")
    try:
        return check_int(max_rows_per_batch, "max_rows_per_batch", minimum=1)
    except TypeError as exc:
        raise ValueError(str(exc)) from None


def _check_subsample(estimator: str, method: str, opts: RelianceOptions, is_callable: bool, n_estimators) -> int:
    """Check the large-data policy's ``subsample_rows`` against the other options; its value."""
    if estimator not in ("permutation", "e_divide"):
        raise ValueError(f"subsample_rows applies to estimator='permutation' or 'e_divide', not {estimator!r}")
    if opts.permutations is not None:
        raise ValueError("give either permutations or subsample_rows, not both")
    m = check_int(opts.subsample_rows, "subsample_rows", minimum=2)
    if method == "linear":
        raise TypeError(f"method='linear' needs estimator='e_switch'; got {estimator!r} with subsample_rows")
    if is_callable and (method == "engine" or n_estimators is not None):
        raise ValueError("a predict-many callable supports method='auto' or 'generic' without n_estimators")
    return m


def _choose_path(model, is_callable: bool, method: str, estimator: str, loss_fn, n_estimators, R: int):
    """``(linear, use_engine)``: the linear closed form's ``(coef, intercept)`` or None, and whether
    the tree engine computes the sums (``method``; ``"auto"`` picks the fastest exact path)."""
    from ._engine import engine_preferred, supports_engine

    linear = None
    if method in ("auto", "linear") and not is_callable:
        linear = _linear_or_none(model, estimator, loss_fn, n_estimators)
        if method == "linear" and linear is None:
            raise TypeError(
                "method='linear' needs estimator='e_switch', loss='squared_error', no n_estimators and a "
                f"fitted scikit-learn linear regressor; got {type(model).__name__}"
            )
    if linear is None and method == "engine" and not supports_engine(model):
        raise TypeError(f"{type(model).__name__} has no tree-engine support; use method='generic'")
    use_engine = (
        linear is None
        and not is_callable
        and (method == "engine" or (method == "auto" and engine_preferred(model, estimator, R)))
    )
    return linear, use_engine


def _pair_store(estimator: str, opts: RelianceOptions, forms_losses: bool, n: int, n_all: int, G: int):
    """The store the estimating pass fills with its switched losses: :class:`._mc_error.SwitchLosses`
    (``switch_matrix``), :class:`._subsample.PairSums` (``subsample_se`` on an ``e_switch``
    subsample), or None. ``forms_losses``: the pass forms them (not the linear closed form)."""
    if opts.switch_matrix:
        if estimator != "e_switch" or opts.subsample_se:
            raise ValueError("switch_matrix applies to estimator='e_switch' without subsample_se")
        return SwitchLosses(n, G) if forms_losses else None  # filled by the pass that forms the estimate
    if opts.subsample_se and opts.max_samples is not None and forms_losses and n < n_all:
        return PairSums(n, G)
    return None


def _linear_e_switch(linear, Xv, yv, cols):
    """``e_switch`` of the linear closed form, shape ``(1, G, 1)``."""
    coef = np.atleast_2d(np.asarray(linear[0], dtype=np.float64))
    intercept = np.asarray([linear[1]], dtype=np.float64)
    return linear_e_switch(Xv, yv, coef, intercept, cols)[:, :, None]


def _linear_switch_losses(predict, Xm, ym, loss, cols, max_rows: int):
    """The switched losses of every ordered pair of ``Xm``'s rows (``n²`` predictions per variable),
    for ``switch_matrix`` where the closed form forms none; the unchanged rows' losses are those of
    these rows."""
    loss_fn, loss_name = loss
    full = switch_designs("e_switch", len(ym), len(cols), max_rows_per_batch=max_rows)
    pairs = SwitchLosses(len(ym), len(cols))
    generic_sums(predict, Xm, ym, loss_fn, loss_name, cols, full, max_rows, pairs)
    return pairs
