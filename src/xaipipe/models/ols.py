"""Classical OLS inference table (coefficient, standard error, t, p, 95 % CI).

Computed with :class:`statsmodels.regression.linear_model.OLS` on the training
split with an intercept. The standard error of coefficient ``j`` is
``sqrt(s^2 [(X'X)^{-1}]_jj)`` with ``s^2 = RSS / (n - p - 1)`` (e.g. Seber &
Lee 2003, §3.2; Hastie, Tibshirani & Friedman 2009, eq. 3.8).

Departure from seed 003 (§ on linear regression): its code computes
``np.std(error) * np.sqrt((np.dot(T.T, T) ** (-1))[diag, diag])``, which takes the
*element-wise* reciprocal of ``X'X`` instead of its matrix inverse, divides the
residual sum of squares by ``n`` instead of ``n - p - 1`` and omits the
intercept column. That is not the OLS standard error; this module uses the
formula above (``tests/models/test_ols.py`` checks it against the closed form
and shows the seed's expression differs).

:func:`squared_terms_comparison` is seed 003's Diabetes comparison: OLS on the
variables with ``|t| >= 2`` and their squares against OLS on all variables, by the
paired bootstrap of :mod:`xaipipe.models.comparison`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from sklearn.utils import check_array, check_consistent_length, column_or_1d

from ..losses import LOSS_ALIASES, LOSS_TASKS
from .comparison import paired_bootstrap_test, row_losses

__all__ = ["ols_inference", "squared_terms_comparison"]


def identified_columns(
    X: np.ndarray, feature_names: Sequence[str], feature_groups: Mapping[str, Sequence[str]] | None = None
) -> tuple[list[int], dict[str, str]]:
    """Columns of a design with an intercept that a linear model can identify.

    One-hot groups enter with reference (k - 1) coding
    (:func:`xaipipe.models.logit.reference_coding`: each group's first level is left
    out); a column constant on the rows, or a linear combination of the intercept and
    earlier kept columns, is aliased (as R's ``lm`` reports it).

    Returns
    -------
    kept : list of int
        Positions of the identified columns, in order.
    dropped : dict
        Column name -> why it is left out (``"reference level of <group>"``,
        ``"not identified: constant ..."``, ``"not identified: a linear combination of
        ..."``).
    """
    from .logit import _aliased_terms, reference_coding

    names = [str(c) for c in feature_names]
    coding = reference_coding(names, feature_groups)
    dropped = {n: f"reference level of {c['group']}" for n, c in coding.items() if c["reference_level"] == n}
    candidates = [j for j, n in enumerate(names) if n not in dropped]
    for j in candidates:
        if np.ptp(X[:, j]) == 0:
            dropped[names[j]] = "not identified: constant in the training rows (aliased with const)"
    candidates = [j for j in candidates if names[j] not in dropped]
    design = np.column_stack([np.ones(X.shape[0]), X])
    notes = _aliased_terms(design, names, [j + 1 for j in candidates])
    for col, note in notes.items():
        dropped[names[col - 1]] = note
    kept = [j for j in candidates if names[j] not in dropped]
    return kept, dropped


def ols_inference(
    X: np.ndarray,
    y: np.ndarray,
    feature_names: list[str],
    alpha: float = 0.05,
    *,
    feature_groups: Mapping[str, Sequence[str]] | None = None,
) -> pd.DataFrame:
    """OLS fit with intercept and its classical inference table.

    Parameters
    ----------
    X : ndarray of shape (n, p)
    y : ndarray of shape (n,)
    feature_names : list of str, length p
    alpha : float, default=0.05
        ``1 - alpha`` confidence intervals.
    feature_groups : mapping group -> member columns, optional
        One-hot groups (``prepared.json``): reference (k - 1) coding, the first level
        of each group left out and named in ``reference_level``
        (:func:`identified_columns`); a level's coefficient is its difference from the
        reference level, other features held fixed.

    Returns
    -------
    DataFrame
        Rows ``const`` then the features (less each group's reference level);
        columns ``term``, ``coefficient``, ``std_error``, ``t_value``, ``p_value``
        (two-sided), ``ci_low``, ``ci_high``, ``n``, ``df_resid``, ``sigma``
        (residual standard error, target units), ``r2``; with groups also
        ``group`` and ``reference_level``; when a column is not identified (constant
        on the training rows, or collinear: aliased, as R's ``lm`` reports it) its
        row has NaN estimates and a ``note`` saying why, the model being fitted
        without it.

    Raises
    ------
    ValueError
        If shapes differ or ``feature_groups`` is malformed.
    """
    import statsmodels.api as sm

    from .logit import reference_coding

    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    if X.ndim != 2 or X.shape[0] != y.shape[0] or X.shape[1] != len(feature_names):
        raise ValueError(f"shape mismatch: X {X.shape}, y {y.shape}, {len(feature_names)} names")
    names = [str(c) for c in feature_names]
    coding = reference_coding(names, feature_groups)
    kept, dropped = identified_columns(X, names, feature_groups)
    terms = [n for n in names if not (n in coding and coding[n]["reference_level"] == n)]
    design = sm.add_constant(X if len(kept) == len(names) else X[:, kept], has_constant="add")
    fit = sm.OLS(y, design).fit()
    ci = np.asarray(fit.conf_int(alpha=alpha))
    if len(kept) == len(terms):
        cols = {
            "coefficient": fit.params,
            "std_error": fit.bse,
            "t_value": fit.tvalues,
            "p_value": fit.pvalues,
            "ci_low": ci[:, 0],
            "ci_high": ci[:, 1],
        }
    else:  # aliased terms: NaN rows, the model fitted without them
        at = [0] + [1 + terms.index(names[j]) for j in kept]
        cols = {}
        for key, values in (
            ("coefficient", fit.params),
            ("std_error", fit.bse),
            ("t_value", fit.tvalues),
            ("p_value", fit.pvalues),
            ("ci_low", ci[:, 0]),
            ("ci_high", ci[:, 1]),
        ):
            full = np.full(len(terms) + 1, np.nan)
            full[at] = np.asarray(values, dtype=float)
            cols[key] = full
    frame = pd.DataFrame(
        {
            "term": ["const", *terms],
            **cols,
            "n": int(fit.nobs),
            "df_resid": float(fit.df_resid),
            "sigma": float(np.sqrt(fit.scale)),
            "r2": float(fit.rsquared),
        }
    )
    if coding:
        frame["group"] = ["", *(coding[t]["group"] if t in coding else "" for t in terms)]
        frame["reference_level"] = ["", *(coding[t]["reference_level"] if t in coding else "" for t in terms)]
    notes = {t: why for t, why in dropped.items() if t in terms}
    if notes:
        frame["note"] = ["", *(notes.get(t, "") for t in terms)]
    return frame


def _standardise(X_train: np.ndarray, X_test: np.ndarray, names: Sequence[str]):
    mu = X_train.mean(axis=0)
    sd = X_train.std(axis=0)
    const = [names[j] for j in np.flatnonzero(sd == 0)]
    if const:
        raise ValueError(f"feature(s) constant on the training rows: {const}")
    return (X_train - mu) / sd, (X_test - mu) / sd


def squared_terms_comparison(
    X_train,
    y_train,
    X_test,
    y_test,
    feature_names: Sequence[str],
    *,
    t_threshold: float = 2.0,
    selected: Sequence[str] | None = None,
    losses: Sequence[str] = ("mse",),
    n_bootstrap: int = 1000,
    confidence: float = 0.95,
    random_state: int | None = 0,
    feature_groups: Mapping[str, Sequence[str]] | None = None,
) -> pd.DataFrame:
    """Seed 003's Diabetes comparison: OLS on the variables with ``|t| >= 2`` and their
    squares, against OLS on all variables, by a paired bootstrap of the test loss.

    Rows: the *training* rows fit the full OLS model (statsmodels, with intercept),
    give its t-statistics (classical ``coef / sqrt(s² [(X'X)^{-1}]_jj)``, ``s² = RSS /
    (n - p - 1)``, as in :mod:`xaipipe.models.ols`), select the variables and fit the
    second model; the *test* rows are only predicted and resampled
    (:func:`xaipipe.models.comparison.paired_bootstrap_test`). Nothing is refitted per resample.

    The second model is ``y ~ 1 + x_j + x_j²`` over the selected ``j``. Numerically,
    every column is first standardised with the training mean and standard deviation
    and the square is taken of the standardised column: ``{1, z, z²}`` spans the same
    space as ``{1, x, x²}``, so fitted values and predictions are those of the raw
    design (Diabetes' raw columns give ``cond(X) ~ 5e7``). The square of a variable
    with two distinct training values (Diabetes' ``sex``) is an affine function of
    it, hence collinear with the intercept and the variable: it is left out and
    listed in ``squares_dropped`` (scikit-learn's ``LinearRegression``, which the seed
    uses, returns the minimum-norm solution, with the same predictions).

    Parameters
    ----------
    X_train : array-like of shape (n_train, p)
    y_train : array-like of shape (n_train,)
    X_test : array-like of shape (n_test, p)
    y_test : array-like of shape (n_test,)
    feature_names : sequence of str, length p
    t_threshold : float, default=2.0
        Select ``j`` with ``|t_j| >= t_threshold`` (the seed's rule of thumb).
    selected : sequence of str, optional
        Use these variables instead of the t-rule (e.g. to reproduce the seed's
        selection, made with its incorrect standard errors).
    losses : sequence of {"mse", "mae"}, default=("mse",)
    n_bootstrap : int, default=1000
    confidence : float in (0, 1), default=0.95
    random_state : int or None, default=0
    feature_groups : mapping group -> member columns, optional
        One-hot groups: both models see them in reference (k - 1) coding, and
        columns a linear model cannot identify on the training rows (a constant
        column, an aliased one) are left out of both (:func:`identified_columns`),
        named in a ``columns_dropped`` column (only when there are any).

    Returns
    -------
    DataFrame
        One row per loss: ``model_a`` (``"ols_selected_squared"``), ``model_b``
        (``"ols"``), ``loss``, ``n_train``, ``selected`` and ``squares_dropped``
        (names joined by ``;``), ``n_params_a``, ``n_params_b`` (coefficients
        including the intercept), then the columns of :func:`~xaipipe.models.comparison.paired_bootstrap_test`
        (``difference = mean_a - mean_b``: positive means the squared-terms model is
        worse, the seed's sign).

    Raises
    ------
    ValueError
        Shapes that differ, a constant training column, unknown names in
        ``selected``, a rank-deficient design, a loss other than ``mse`` / ``mae``.
    """
    import statsmodels.api as sm

    Xtr = np.asarray(X_train, dtype=float)
    Xte = np.asarray(X_test, dtype=float)
    ytr = column_or_1d(check_array(y_train, ensure_2d=False, input_name="y_train"))
    yte = column_or_1d(check_array(y_test, ensure_2d=False, input_name="y_test"))
    names = [str(f) for f in feature_names]
    if Xtr.ndim != 2 or Xte.ndim != 2 or Xtr.shape[1] != len(names) or Xte.shape[1] != len(names):
        raise ValueError(f"shape mismatch: X_train {Xtr.shape}, X_test {Xte.shape}, {len(names)} names")
    check_consistent_length(Xtr, ytr)
    check_consistent_length(Xte, yte)
    for loss in losses:
        if LOSS_TASKS.get(LOSS_ALIASES.get(loss, loss)) != "regression":
            raise ValueError(f"loss {loss!r} is not a regression loss (use 'mse' or 'mae')")
    kept, dropped = identified_columns(Xtr, names, feature_groups)
    if dropped:  # reference levels, constant and aliased columns: out of both models
        Xtr, Xte, names = Xtr[:, kept], Xte[:, kept], [names[j] for j in kept]
    Ztr, Zte = _standardise(Xtr, Xte, names)

    def fit(design_tr):
        if np.linalg.matrix_rank(design_tr) < design_tr.shape[1]:
            raise ValueError("design matrix is rank deficient on the training rows")
        return sm.OLS(ytr, design_tr).fit()

    full = fit(sm.add_constant(Ztr, has_constant="add"))
    pred_full = full.predict(sm.add_constant(Zte, has_constant="add"))
    if selected is None:
        mask = np.abs(np.asarray(full.tvalues)[1:]) >= t_threshold
    else:
        unknown = sorted(set(map(str, selected)) - set(names))
        if unknown:
            raise ValueError(f"selected names not among the features: {unknown}")
        mask = np.isin(names, list(map(str, selected)))
    sel = np.flatnonzero(mask)
    two_valued = [j for j in sel if np.unique(Xtr[:, j]).size <= 2]
    sq = [j for j in sel if j not in two_valued]
    design_tr = np.column_stack([np.ones(len(ytr)), Ztr[:, sel], Ztr[:, sq] ** 2])
    design_te = np.column_stack([np.ones(len(yte)), Zte[:, sel], Zte[:, sq] ** 2])
    reduced = fit(design_tr)
    pred_sq = reduced.predict(design_te)

    out = []
    for loss in losses:
        res = paired_bootstrap_test(
            row_losses(yte, pred_sq, loss),
            row_losses(yte, pred_full, loss),
            n_bootstrap=n_bootstrap,
            confidence=confidence,
            random_state=random_state,
        )
        if dropped:
            res.insert(0, "columns_dropped", ";".join(dropped))
        res.insert(0, "n_params_b", len(names) + 1)
        res.insert(0, "n_params_a", design_tr.shape[1])
        res.insert(0, "squares_dropped", ";".join(names[j] for j in two_valued))
        res.insert(0, "selected", ";".join(names[j] for j in sel))
        res.insert(0, "n_train", len(ytr))
        res.insert(0, "loss", loss)
        res.insert(0, "model_b", "ols")
        res.insert(0, "model_a", "ols_selected_squared")
        out.append(res)
    return pd.concat(out, ignore_index=True)
