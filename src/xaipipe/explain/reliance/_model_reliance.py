"""The one public function of model reliance: validate once, choose the exact path, compute."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from ...losses import resolve_loss, squared_error
from ...validation import check_int
from ._base import (
    DEFAULT_MAX_ROWS,
    ESTIMATORS,
    RelianceResult,
    check_X,
    check_y,
    divisor,
    features_from_groups,
    resolve_features,
    resolve_permutations,
    switch_designs,
)

__all__ = ["METHODS", "model_reliance"]

#: ``method`` options of :func:`model_reliance`.
METHODS = ("auto", "engine", "generic", "linear")


def _linear_or_none(model, estimator: str, loss_fn, n_estimators) -> tuple[Any, Any] | None:
    from ._linear import linear_coefficients

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
    feature_groups: Mapping[str, Sequence[str]] | None = None,
    feature_names: Sequence[str] | None = None,
    n_repeats: int | None = None,
    random_state=None,
    permutations=None,
    n_estimators: Sequence[int] | None = None,
    method: str = "auto",
    max_rows_per_batch: int = DEFAULT_MAX_ROWS,
    n_jobs: int | None = 1,
    max_samples: int | None = None,
    subsample_rows: int | None = None,
    subsample_se: bool = False,
    switch_matrix: bool = False,
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
        The variables; a group of columns is permuted jointly with the same row
        permutation (:func:`resolve_features`). Default: every column.
    feature_groups : mapping name -> column names, optional
        Alternative to ``features``: one-hot groups permuted jointly, every other
        column its own variable (:func:`features_from_groups`; e.g.
        ``{"Sex": ["Sex_F", "Sex_I", "Sex_M"]}``, as recorded in ``prepared.json``).
    feature_names : sequence of str, optional
        Column names (default: DataFrame columns, else ``x0, x1, ...``).
    n_repeats : int, optional
        Random permutations (``"permutation"``) or random halvings (``"e_divide"``)
        per variable (default 10, or the number in ``permutations``).
    random_state : int, numpy Generator, SeedSequence or None
        Seed of ``np.random.default_rng`` for the default permutations / halvings
        (:func:`random_permutations`, independent per variable; ``e_divide`` draws
        from an independent stream of the same seed).
    permutations : int array of shape (R, n) or (G, R, n), optional
        Precomputed row permutations, shared by all variables or one set per
        variable (common random numbers across models; :func:`sklearn_permutations`
        reproduces ``sklearn.inspection.permutation_importance``). For
        ``"e_divide"``, permutation ``p`` defines the halves ``p[:h]`` and
        ``p[h:2h]`` (the identity gives the file-order halves).
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
    max_rows_per_batch : int, default 65536
        Maximum rows per ``predict`` call (``e_switch`` chunks of donor rows;
        permuted data sets are stacked up to this size). A data set of ``n`` rows
        is never split.
    n_jobs : int or None, default 1
        Threads of the tree engine's kernel, or of the row blocks of the generic
        path's ensemble predictions; the result does not depend on it.
    max_samples : int or None, default None
        ``e_switch`` only: the all-pairs estimate uses at most this many rows, a
        subsample drawn without replacement by
        ``np.sort(np.random.default_rng(random_state).choice(n, max_samples, replace=False))``
        (``O(max_samples²)`` predictions instead of ``O(n²)``); ``e_orig`` and
        ``n_samples`` are then those of the subsample. Not applied where the exact
        linear closed form is used (all rows, ``O(n)``). None: all rows. The config
        key ``explain.reliance.e_switch_max_rows``.
    subsample_rows : int or None, default None
        ``permutation`` / ``e_divide`` only, the large-data policy (config
        ``large_data.reliance_rows``): where ``n > subsample_rows``, each of the ``R`` repeats
        runs on its own seeded subsample of ``subsample_rows`` rows (one permutation / halving
        of them; :func:`._subsample.subsample_design`), ``e_orig`` on all rows, and the
        repeat's switched loss is ``e_orig`` plus its paired difference on the subsample
        (:mod:`._subsample`): ``*_se`` is then the Monte-Carlo SE of subsample and permutation
        together, ``n_samples = subsample_rows``, ``algorithm`` ``"subsampled_permutations"`` /
        ``"subsampled_halvings"``. ``O(R · subsample_rows)`` predictions per variable instead
        of ``O(R · n)``, always on the generic path (``method`` other than ``"linear"`` is
        not used). Not with ``permutations``. None, or ``n <= subsample_rows``: the estimate
        on all rows (bitwise as without it).
    subsample_se : bool, default False
        With ``max_samples`` applied (``e_switch`` on a subsample of ``m < n`` rows): also the
        Monte-Carlo SE of the subsample's estimate as an estimate of the all-rows value, the
        result's :attr:`RelianceResult.subsample_se` and ``*_se`` columns (U-statistic
        projection, :meth:`._subsample.PairSums.standard_errors`), from the row and column sums
        of the very losses the estimate is formed from: no further predictions; the estimate
        is bitwise the same. The large-data policy turns it on (``large_data.reliance_rows``).
    switch_matrix : bool, default False
        ``estimator="e_switch"`` only: keep the ``n x n`` matrix of switched losses per member and
        variable that the estimate is formed from, on its rows (all rows, or the ``max_samples``
        subsample), in :attr:`RelianceResult.switch_losses` (shape ``(m, G, n, n)``,
        ``8 m G n²`` bytes): no further predictions, the estimate bitwise the same (the linear
        closed form, which forms no switched loss, evaluates them with ``n²`` predictions per
        variable). For the exact Monte-Carlo SE of ``e_divide``
        (:func:`xaipipe.explain.reliance.matching_draw_variance`; ``model_reliance.csv``). Not
        with ``subsample_se``.

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
    from ...models.prefix import member_predictor

    Xv, names = check_X(X)
    n, p = Xv.shape
    n_all = n  # all rows, before an e_switch subsample
    yv = check_y(y, n)
    if feature_names is None:
        feature_names = names
    if feature_groups is not None:
        if features is not None:
            raise ValueError("give either features or feature_groups, not both")
        columns = list(feature_names) if feature_names is not None else [f"x{j}" for j in range(p)]
        features = features_from_groups(columns, feature_groups)
    groups = resolve_features(features, p, feature_names)
    cols = list(groups.values())
    is_callable = callable(model) and not hasattr(model, "predict")
    if loss is None:
        from sklearn.base import is_classifier

        loss = "log_loss" if not is_callable and is_classifier(model) else "squared_error"
    loss_name, loss_fn = resolve_loss(loss)
    if estimator not in ESTIMATORS:
        raise ValueError(f"unknown estimator {estimator!r}; choose one of {list(ESTIMATORS)}")
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; choose one of {list(METHODS)}")
    try:
        max_rows = check_int(max_rows_per_batch, "max_rows_per_batch", minimum=1)
    except TypeError as exc:
        raise ValueError(str(exc)) from None
    if subsample_rows is not None:
        if estimator not in ("permutation", "e_divide"):
            raise ValueError(f"subsample_rows applies to estimator='permutation' or 'e_divide', not {estimator!r}")
        if permutations is not None:
            raise ValueError("give either permutations or subsample_rows, not both")
        m = check_int(subsample_rows, "subsample_rows", minimum=2)
        if method == "linear":
            raise TypeError(f"method='linear' needs estimator='e_switch'; got {estimator!r} with subsample_rows")
        if is_callable and (method == "engine" or n_estimators is not None):
            raise ValueError("a predict-many callable supports method='auto' or 'generic' without n_estimators")
        if n > m:
            from ._subsample import subsampled_reliance

            return subsampled_reliance(
                model,
                Xv,
                yv,
                estimator=estimator,
                loss_fn=loss_fn,
                loss_name=loss_name,
                groups=groups,
                n_repeats=10 if n_repeats is None else check_int(n_repeats, "n_repeats", minimum=1),
                subsample_rows=m,
                random_state=random_state,
                n_estimators=n_estimators,
                max_rows_per_batch=max_rows,
                n_jobs=n_jobs,
            )
    perms, R, algorithm = resolve_permutations(estimator, permutations, n_repeats, n, len(cols), random_state)
    if is_callable and (method in ("engine", "linear") or n_estimators is not None):
        raise ValueError("a predict-many callable supports method='auto' or 'generic' without n_estimators")

    from ._engine import engine_preferred, engine_sums, supports_engine

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

    matrix_rows = None  # the rows of the linear closed form's switch_matrix (its estimate takes them all)
    if max_samples is not None:
        if estimator != "e_switch":
            raise ValueError(f"max_samples applies to estimator='e_switch', not {estimator!r}")
        cap = check_int(max_samples, "max_samples", minimum=2)
        if n > cap:  # the seeded e_switch subsample (config e_switch_max_rows)
            rows = np.sort(np.random.default_rng(random_state).choice(n, cap, replace=False))
            if linear is None:
                Xv, yv, n = Xv[rows], yv[rows], cap
            else:
                matrix_rows = rows
    designs = (
        []
        if linear is not None
        else switch_designs(estimator, n, len(cols), permutations=perms, max_rows_per_batch=max_rows)
    )
    pairs = None
    if switch_matrix:
        if estimator != "e_switch" or subsample_se:
            raise ValueError("switch_matrix applies to estimator='e_switch' without subsample_se")
        from ._mc_error import SwitchLosses

        if linear is None:  # filled by the pass that forms the estimate
            pairs = SwitchLosses(n, len(cols))
    elif subsample_se and max_samples is not None and linear is None and n < n_all:
        from ._subsample import PairSums

        pairs = PairSums(n, len(cols))
    if use_engine:
        e_orig, sums = engine_sums(
            model,
            Xv,
            yv,
            n_estimators=n_estimators,
            cols=cols,
            loss_fn=loss_fn,
            loss_name=loss_name,
            estimator=estimator,
            perms=perms,
            designs=designs,
            max_rows=max_rows,
            n_jobs=n_jobs,
            pairs=pairs,
        )
        path = "engine"
    else:
        from ._generic import generic_sums

        predict = model if is_callable else member_predictor(model, n_estimators, n_jobs=n_jobs)
        e_orig, sums = generic_sums(predict, Xv, yv, loss_fn, loss_name, cols, designs, max_rows, pairs)
        path = "generic"
    if linear is not None:
        from ._linear import linear_e_switch

        coef = np.atleast_2d(np.asarray(linear[0], dtype=np.float64))
        intercept = np.asarray([linear[1]], dtype=np.float64)
        e_sw = linear_e_switch(Xv, yv, coef, intercept, cols)[:, :, None]
        algorithm, path = "linear_closed_form", "linear"
        if switch_matrix:  # the closed form forms no switched loss: evaluate them (m² rows per variable)
            Xm, ym = (Xv, yv) if matrix_rows is None else (Xv[matrix_rows], yv[matrix_rows])
            full = switch_designs("e_switch", len(ym), len(cols), max_rows_per_batch=max_rows)
            pairs = SwitchLosses(len(ym), len(cols))  # the unchanged rows' losses: those of these rows
            generic_sums(predict, Xm, ym, loss_fn, loss_name, cols, full, max_rows, pairs)
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
        subsample_se=None if pairs is None or switch_matrix else pairs.standard_errors(n_all),
        switch_losses=pairs.matrices() if switch_matrix else None,
    )
