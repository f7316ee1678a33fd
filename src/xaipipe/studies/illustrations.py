"""The thesis' illustrations of chapters 2 and 3 (seed 001), computed as tables.

Each function takes plain arrays and parameters and returns a DataFrame (the
regression tree of Fig 2.1 is returned as the fitted estimator, which
:func:`sklearn.tree.plot_tree` needs, plus :func:`tree_table`); the figures are
drawn by :mod:`xaipipe.plots.illustrations`. Unless the seed says otherwise the
data are the simulated data of seed 001 §1.7 (:func:`xaipipe.data.simulated.simulate`,
Friedman #1 on U(-1, 1)^10, n = 1000, noise N(0, 1)) split 80 / 20 by
:func:`simulated_split` -- the pipeline's rule (:func:`xaipipe.data.split.make_split`).

Figures
-------
Fig 2.1 (§2, :func:`fit_diabetes_tree`, :func:`tree_table`)
    A regression tree of the diabetes progression index on BMI and age,
    Diabetes data (Efron et al. 2004; scikit-learn's unscaled copy, all 442
    rows). With ``max_depth = 3`` it reproduces the numbers in the seed's text:
    the root splits on BMI, and for BMI <= 24.35 and age <= 57.5 the prediction
    is 99.69.
Fig 2.2 (§2.3, :func:`pruning_path`)
    Minimal cost-complexity pruning (Breiman et al. 1984, ch. 3): the
    sequence of subtrees of the maximal tree for increasing :math:`\\alpha`
    (:meth:`~sklearn.tree.DecisionTreeRegressor.cost_complexity_pruning_path`),
    each refitted with ``ccp_alpha = alpha``, with its training and test MSE.
§3.1 "MOSTRAR GRAFICO" (:func:`oob_curve`)
    Out-of-bag error of bagging / a random forest against the number of trees
    :math:`B`, beside the test error: the OOB error estimates the test error
    without a test set. Exact and cheap: one forest of ``B_max`` trees; the
    OOB prediction of row :math:`i` after :math:`b` trees is the mean of the
    predictions of the trees among the first :math:`b` whose bootstrap sample
    left :math:`i` out (``estimators_samples_``), and the OOB MSE at :math:`b`
    averages over the rows with at least one such tree (as R's ``randomForest``;
    scikit-learn's ``oob_score_`` instead counts rows without an OOB tree with
    prediction 0 and warns). At :math:`b = B_{max}` the OOB predictions equal
    scikit-learn's ``oob_prediction_`` bitwise (same trees, same summation order).
Fig 3.1 (§3.2.1, :func:`loss_functions`)
    Squared, absolute and Huber loss against the residual :math:`r = y - f(x)`.
    Squared loss is :math:`r^2/2` (the seed's §3.2.1.1 definition, and
    scikit-learn's ``HalfSquaredError``); Huber's loss is Huber's (1964, Ann.
    Math. Statist. 35(1), 73-101) :math:`\\rho_\\delta(r) = r^2/2` for
    :math:`|r| \\le \\delta` and :math:`\\delta(|r| - \\delta/2)` otherwise
    (``scipy.special.huber``; scikit-learn's ``HuberLoss`` uses the same
    scaling, with :math:`\\delta` the ``alpha``-quantile of the absolute
    residuals in gradient boosting). **Departure from the seed**: its formula,
    :math:`r^2` for :math:`|r| \\le \\delta` and :math:`2\\delta|r| - 2\\delta^2`
    otherwise, is not continuous at :math:`|r| = \\delta` (it jumps from
    :math:`\\delta^2` to 0); twice Huber's loss would be
    :math:`2\\delta|r| - \\delta^2`. The figure draws Huber's loss, which equals
    the squared loss :math:`r^2/2` inside :math:`[-\\delta, \\delta]`.
Fig 3.2 (§3.2.2, :func:`boosting_depth_curve`)
    Gradient boosting's training and test MSE against the trees' ``max_depth``
    (fixed number of trees and learning rate), with the best test MSE over the
    boosting iterations (``staged_predict``) and where it is reached.
Fig 3.3 (§3.2.3, :func:`boosting_staged_curves`)
    Training, validation and test MSE against the boosting iteration for
    several learning rates (shrinkage), one fit per learning rate, every
    iteration from ``staged_predict`` (a prefix of a fitted ensemble is
    bitwise the smaller ensemble). Early stopping (§3.2.3.3) is scikit-learn's:
    ``n_iter_no_change`` / ``validation_fraction`` / ``tol``. To mark where
    scikit-learn stops *on the curve of the same model*, each curve's model is
    fitted on the rows scikit-learn keeps for fitting when early stopping is on
    (``train_test_split(..., test_size=validation_fraction,
    random_state=random_state)`` of the training rows); the other rows are the
    validation set. The stopping iteration is the first :math:`m` (1-based)
    with :math:`v_m + tol \\ge \\max(v_{m-k}, \\dots, v_{m-1})`, :math:`k` =
    ``n_iter_no_change``, :math:`v` the validation MSE (scikit-learn's rule in
    ``_fit_stages``: continue while better than at least one of the last
    :math:`k`); the function also fits scikit-learn's early-stopping model and
    raises if its ``n_estimators_`` differs.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import special

__all__ = [
    "boosting_depth_curve",
    "ILLUSTRATIONS",
    "boosting_staged_curves",
    "fit_diabetes_tree",
    "illustration_table",
    "loss_functions",
    "oob_curve",
    "pruning_path",
    "simulated_split",
    "tree_table",
]


# ----------------------------------------------------------------------------- helpers
def _xy(X, y, what: str) -> tuple[np.ndarray, np.ndarray]:
    A = np.asarray(X, dtype=np.float64)
    b = np.asarray(y, dtype=np.float64).reshape(-1)
    if A.ndim != 2 or A.shape[0] != b.shape[0] or A.shape[0] == 0:
        raise ValueError(f"{what}: X must be 2-D with one row per y value, got X {A.shape}, y {b.shape}")
    if not (np.all(np.isfinite(A)) and np.all(np.isfinite(b))):
        raise ValueError(f"{what}: X and y must be finite")
    return A, b


def _seed(random_state) -> int:
    if not isinstance(random_state, (numbers.Integral, np.integer)) or isinstance(random_state, bool):
        raise ValueError(f"random_state must be an integer (figures must be reproducible), got {random_state!r}")
    return int(random_state)


def _mse(y: np.ndarray, pred: np.ndarray) -> float:
    return float(np.mean((y - pred) ** 2))


def simulated_split(
    frame: pd.DataFrame, *, target: str = "y", test_size: float = 0.2, random_state: int = 0
) -> dict[str, np.ndarray]:
    """Train / test arrays of a simulated table, split as the pipeline splits (``make_split``).

    Parameters
    ----------
    frame : DataFrame
        Feature columns and ``target``.
    target : str, default "y"
    test_size : float in (0, 1), default 0.2
    random_state : int, default 0

    Returns
    -------
    dict
        ``X_train``, ``y_train``, ``X_test``, ``y_test`` (float64), ``train`` and
        ``test`` (sorted row positions: ``train_test_split`` of the row indices
        with ``random_state``, then sorted, as :func:`xaipipe.data.split.make_split`),
        ``features`` (list of names).
    """
    from sklearn.model_selection import train_test_split

    if target not in frame.columns:
        raise ValueError(f"frame has no target column {target!r} (columns {list(frame.columns)})")
    features = [c for c in frame.columns if c != target]
    train, test = train_test_split(np.arange(len(frame)), test_size=test_size, random_state=_seed(random_state))
    train, test = np.sort(train), np.sort(test)
    X = frame[features].to_numpy(dtype=np.float64)
    y = frame[target].to_numpy(dtype=np.float64)
    return {
        "X_train": X[train],
        "y_train": y[train],
        "X_test": X[test],
        "y_test": y[test],
        "train": train,
        "test": test,
        "features": features,
    }


# ----------------------------------------------------------------------------- Fig 2.1
def fit_diabetes_tree(
    frame: pd.DataFrame | None = None,
    *,
    features: Sequence[str] = ("BMI", "AGE"),
    target: str = "Y",
    max_depth: int = 3,
    random_state: int = 0,
):
    """The regression tree of Fig 2.1: diabetes progression on BMI and age.

    Parameters
    ----------
    frame : DataFrame, optional
        A Diabetes table with the canonical column names (``AGE``, ``SEX``,
        ``BMI``, ..., ``Y``; :func:`xaipipe.data.sources.load_canonical` or the
        prepared table). None: :func:`sklearn.datasets.load_diabetes` with
        ``scaled=False`` (the same 442 rows and values).
    features : sequence of str, default ("BMI", "AGE")
    target : str, default "Y"
    max_depth : int, default 3
        Depth 3 reproduces the seed's reading of the figure (BMI <= 24.35 and
        age <= 57.5 -> 99.69) and stays legible (8 leaves).
    random_state : int, default 0

    Returns
    -------
    sklearn.tree.DecisionTreeRegressor
        Fitted on every row (squared error), with ``feature_names_in_`` = ``features``.

    Raises
    ------
    ValueError
        Missing columns.
    """
    from sklearn.tree import DecisionTreeRegressor

    if frame is None:
        from sklearn.datasets import load_diabetes

        raw = load_diabetes(scaled=False, as_frame=True)
        frame = raw.data.rename(columns=str.upper)
        frame["Y"] = raw.target
    missing = [c for c in list(features) + [target] if c not in frame.columns]
    if missing:
        raise ValueError(f"Diabetes table lacks columns {missing} (has {list(frame.columns)})")
    X = frame[list(features)].astype(np.float64)
    y = frame[target].to_numpy(dtype=np.float64)
    return DecisionTreeRegressor(max_depth=max_depth, random_state=_seed(random_state)).fit(X, y)


def tree_table(tree, feature_names: Sequence[str] | None = None) -> pd.DataFrame:
    """The nodes of a fitted regression tree as a table (what Fig 2.1 shows).

    Parameters
    ----------
    tree : fitted DecisionTreeRegressor
    feature_names : sequence of str, optional
        Default: ``tree.feature_names_in_`` or ``x0, x1, ...``.

    Returns
    -------
    DataFrame
        One row per node in scikit-learn's (depth-first) order: ``node``,
        ``depth``, ``parent`` (-1 for the root), ``is_leaf``, ``feature``
        (``""`` for leaves), ``threshold`` (go left when ``feature <= threshold``;
        NaN for leaves), ``left``, ``right`` (-1 for leaves), ``n_samples``,
        ``value`` (mean response of the node = the prediction of a leaf),
        ``impurity`` (MSE of the node).
    """
    t = tree.tree_
    names = list(
        feature_names
        if feature_names is not None
        else getattr(tree, "feature_names_in_", [f"x{j}" for j in range(t.n_features)])
    )
    n = t.node_count
    depth = np.zeros(n, dtype=np.int64)
    parent = np.full(n, -1, dtype=np.int64)
    for node in range(n):
        for child in (t.children_left[node], t.children_right[node]):
            if child != -1:
                parent[child], depth[child] = node, depth[node] + 1
    leaf = t.children_left == -1
    return pd.DataFrame(
        {
            "node": np.arange(n),
            "depth": depth,
            "parent": parent,
            "is_leaf": leaf,
            "feature": [("" if leaf[i] else names[t.feature[i]]) for i in range(n)],
            "threshold": np.where(leaf, np.nan, t.threshold),
            "left": t.children_left.astype(np.int64),
            "right": t.children_right.astype(np.int64),
            "n_samples": t.n_node_samples.astype(np.int64),
            "value": t.value[:, 0, 0],
            "impurity": t.impurity,
        }
    )


# ----------------------------------------------------------------------------- Fig 2.2
def pruning_path(
    X_train,
    y_train,
    X_test,
    y_test,
    *,
    random_state: int = 0,
    max_alphas: int | None = None,
) -> pd.DataFrame:
    """Training and test MSE along the minimal cost-complexity pruning path (Fig 2.2).

    Parameters
    ----------
    X_train, y_train, X_test, y_test : array-like
    random_state : int, default 0
        ``random_state`` of every tree (ties between equally good splits).
    max_alphas : int, optional
        Refit at most this many alphas, equally spaced in *position* along the
        path (always including the first and the last); None: every alpha.

    Returns
    -------
    DataFrame
        One row per alpha, increasing: ``alpha`` (cost per leaf, squared
        response units), ``n_leaves``, ``depth``, ``train_mse`` (= the path's
        total leaf impurity), ``test_mse``, ``path_impurity`` (scikit-learn's
        ``impurities`` of the path, for checking). The last row is the root alone.
    """
    from sklearn.tree import DecisionTreeRegressor

    Xtr, ytr = _xy(X_train, y_train, "training data")
    Xte, yte = _xy(X_test, y_test, "test data")
    seed = _seed(random_state)
    path = DecisionTreeRegressor(random_state=seed).cost_complexity_pruning_path(Xtr, ytr)
    alphas, impurities = path.ccp_alphas, path.impurities
    keep = np.arange(alphas.size)
    if max_alphas is not None and alphas.size > max_alphas:
        if max_alphas < 2:
            raise ValueError(f"max_alphas must be >= 2, got {max_alphas}")
        keep = np.unique(np.round(np.linspace(0, alphas.size - 1, int(max_alphas))).astype(int))
    rows = []
    for i in keep:
        tree = DecisionTreeRegressor(random_state=seed, ccp_alpha=float(alphas[i])).fit(Xtr, ytr)
        rows.append(
            {
                "alpha": float(alphas[i]),
                "n_leaves": int(tree.get_n_leaves()),
                "depth": int(tree.get_depth()),
                "train_mse": _mse(ytr, tree.predict(Xtr)),
                "test_mse": _mse(yte, tree.predict(Xte)),
                "path_impurity": float(impurities[i]),
            }
        )
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------------- §3.1 OOB
def oob_curve(
    X_train,
    y_train,
    X_test=None,
    y_test=None,
    *,
    n_estimators: int = 500,
    max_features: Sequence[float | str] = (1.0, 1.0 / 3.0),
    random_state: int = 0,
    n_jobs: int | None = 1,
) -> pd.DataFrame:
    """Out-of-bag (and test) MSE of bagging / random forests against the number of trees.

    Parameters
    ----------
    X_train, y_train : array-like
    X_test, y_test : array-like, optional
        If given, the test MSE of the first ``b`` trees is reported too.
    n_estimators : int, default 500
        :math:`B_{max}`; one forest of this size per ``max_features`` value.
    max_features : sequence, default (1.0, 1/3)
        ``max_features`` of :class:`~sklearn.ensemble.RandomForestRegressor`:
        1.0 is bagging (every variable at every split); 1/3 is Breiman's
        random-forest default for regression (p/3).
    random_state : int, default 0
    n_jobs : int or None, default 1
        Threads of the forest fit (the result does not depend on it).

    Returns
    -------
    DataFrame
        One row per ``max_features`` x ``n_trees`` (1 .. B_max): ``max_features``
        (as given, as a string), ``n_trees``, ``oob_mse`` (rows with at least
        one OOB tree), ``n_oob_rows`` (how many rows that is), ``test_mse``
        (NaN without a test set).
    """
    from sklearn.ensemble import RandomForestRegressor

    Xtr, ytr = _xy(X_train, y_train, "training data")
    have_test = X_test is not None
    if have_test:
        Xte, yte = _xy(X_test, y_test, "test data")
    seed = _seed(random_state)
    n = len(ytr)
    parts = []
    for mf in max_features:
        forest = RandomForestRegressor(
            n_estimators=int(n_estimators), max_features=mf, bootstrap=True, random_state=seed, n_jobs=n_jobs
        ).fit(Xtr, ytr)
        X32 = np.asarray(Xtr, dtype=np.float32)
        oob_sum = np.zeros(n)
        oob_count = np.zeros(n, dtype=np.int64)
        test_sum = np.zeros(len(yte)) if have_test else None
        oob_mse = np.empty(len(forest.estimators_))
        n_rows = np.empty(len(forest.estimators_), dtype=np.int64)
        test_mse = np.full(len(forest.estimators_), np.nan)
        for b, (tree, sampled) in enumerate(zip(forest.estimators_, forest.estimators_samples_)):
            oob = np.bincount(sampled, minlength=n) == 0
            oob_sum[oob] += tree.predict(X32[oob], check_input=False)
            oob_count[oob] += 1
            seen = oob_count > 0
            n_rows[b] = int(seen.sum())
            oob_mse[b] = _mse(ytr[seen], oob_sum[seen] / oob_count[seen]) if n_rows[b] else np.nan
            if have_test:
                test_sum += tree.predict(np.asarray(Xte, dtype=np.float32), check_input=False)
                test_mse[b] = _mse(yte, test_sum / (b + 1))
        parts.append(
            pd.DataFrame(
                {
                    "max_features": str(mf),
                    "n_trees": np.arange(1, len(oob_mse) + 1),
                    "oob_mse": oob_mse,
                    "n_oob_rows": n_rows,
                    "test_mse": test_mse,
                }
            )
        )
    return pd.concat(parts, ignore_index=True)


# ----------------------------------------------------------------------------- Fig 3.1
def loss_functions(residuals=None, *, delta: float = 1.0) -> pd.DataFrame:
    """Squared, absolute and Huber loss of a residual (Fig 3.1).

    Parameters
    ----------
    residuals : array-like, optional
        Default: 601 points on [-3, 3].
    delta : float > 0, default 1.0
        Huber's threshold :math:`\\delta`.

    Returns
    -------
    DataFrame
        ``residual``, ``squared`` (:math:`r^2/2`), ``absolute`` (:math:`|r|`),
        ``huber`` (Huber 1964: :math:`r^2/2` if :math:`|r| \\le \\delta`, else
        :math:`\\delta(|r| - \\delta/2)`; ``scipy.special.huber``), ``delta``.
    """
    r = np.linspace(-3.0, 3.0, 601) if residuals is None else np.asarray(residuals, dtype=np.float64).reshape(-1)
    if not isinstance(delta, numbers.Real) or not np.isfinite(delta) or delta <= 0:
        raise ValueError(f"delta must be a finite number > 0, got {delta!r}")
    if not np.all(np.isfinite(r)):
        raise ValueError("residuals must be finite")
    return pd.DataFrame(
        {
            "residual": r,
            "squared": 0.5 * r**2,
            "absolute": np.abs(r),
            "huber": special.huber(float(delta), r),
            "delta": float(delta),
        }
    )


# ----------------------------------------------------------------------------- Fig 3.2
def boosting_depth_curve(
    X_train,
    y_train,
    X_test,
    y_test,
    *,
    depths: Sequence[int] = tuple(range(1, 11)),
    n_estimators: int = 300,
    learning_rate: float = 0.1,
    random_state: int = 0,
) -> pd.DataFrame:
    """Gradient boosting error against the depth of its trees (Fig 3.2).

    Parameters
    ----------
    X_train, y_train, X_test, y_test : array-like
    depths : sequence of int, default 1..10
    n_estimators : int, default 300
    learning_rate : float, default 0.1
    random_state : int, default 0

    Returns
    -------
    DataFrame
        One row per depth: ``max_depth``, ``n_estimators``, ``learning_rate``,
        ``train_mse`` and ``test_mse`` of the full ensemble, ``best_iteration``
        (1-based iteration with the smallest test MSE, from ``staged_predict``)
        and ``best_test_mse``.
    """
    from sklearn.ensemble import GradientBoostingRegressor

    Xtr, ytr = _xy(X_train, y_train, "training data")
    Xte, yte = _xy(X_test, y_test, "test data")
    seed = _seed(random_state)
    rows = []
    for depth in depths:
        model = GradientBoostingRegressor(
            n_estimators=int(n_estimators), learning_rate=learning_rate, max_depth=int(depth), random_state=seed
        ).fit(Xtr, ytr)
        staged = np.array([_mse(yte, pred) for pred in model.staged_predict(Xte)])
        best = int(np.argmin(staged))
        rows.append(
            {
                "max_depth": int(depth),
                "n_estimators": int(n_estimators),
                "learning_rate": float(learning_rate),
                "train_mse": _mse(ytr, model.predict(Xtr)),
                "test_mse": float(staged[-1]),
                "best_iteration": best + 1,
                "best_test_mse": float(staged[best]),
            }
        )
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------------- Fig 3.3
def early_stopping_iteration(validation_loss, n_iter_no_change: int, tol: float = 1e-4) -> int:
    """Where scikit-learn's gradient boosting stops, given its validation loss per iteration.

    Parameters
    ----------
    validation_loss : array-like of shape (M,)
        Validation loss after iterations 1..M (scikit-learn uses
        ``2 * HalfSquaredError`` = the MSE for squared error).
    n_iter_no_change : int >= 1
    tol : float, default 1e-4

    Returns
    -------
    int
        The number of stages kept (``n_estimators_``): the first 1-based
        :math:`m` whose loss :math:`v_m` satisfies :math:`v_m + tol \\ge` every
        one of the (up to) ``n_iter_no_change`` losses before it, or M if none does.
    """
    v = np.asarray(validation_loss, dtype=np.float64).reshape(-1)
    fired = _rule_fires_at(v, n_iter_no_change, tol)
    return int(v.size) if fired is None else fired


def _rule_fires_at(v: np.ndarray, n_iter_no_change: int, tol: float) -> int | None:
    """1-based iteration at which scikit-learn's rule stops boosting, None if it never does."""
    k = int(n_iter_no_change)
    if k < 1:
        raise ValueError(f"n_iter_no_change must be >= 1, got {n_iter_no_change}")
    history = np.full(k, np.inf)
    for i, loss in enumerate(v):
        if np.any(loss + tol < history):
            history[i % k] = loss
        else:
            return i + 1
    return None


def boosting_staged_curves(
    X_train,
    y_train,
    X_test,
    y_test,
    *,
    learning_rates: Sequence[float] = (0.01, 0.1, 0.5),
    n_estimators: int = 1000,
    max_depth: int = 3,
    n_iter_no_change: int = 10,
    validation_fraction: float = 0.1,
    tol: float = 1e-4,
    random_state: int = 0,
    check_sklearn: bool = True,
) -> pd.DataFrame:
    """Training, validation and test MSE per boosting iteration and learning rate, with early stopping (Fig 3.3).

    Parameters
    ----------
    X_train, y_train, X_test, y_test : array-like
    learning_rates : sequence of float, default (0.01, 0.1, 0.5)
        Shrinkage :math:`\\lambda` (seed §3.2.3.2).
    n_estimators : int, default 1000
        Iterations of each curve.
    max_depth : int, default 3
    n_iter_no_change, validation_fraction, tol
        scikit-learn's early-stopping parameters (its defaults 0.1 and 1e-4 for
        the last two; ``n_iter_no_change`` 10).
    random_state : int, default 0
        ``random_state`` of the models and of the validation split.
    check_sklearn : bool, default True
        Also fit ``GradientBoostingRegressor(n_iter_no_change=...)`` on the
        training data and raise if its ``n_estimators_`` differs from the stop
        derived from the curve (guards against a change of scikit-learn's rule).

    Returns
    -------
    DataFrame
        One row per learning rate x iteration: ``learning_rate``, ``iteration``
        (1..n_estimators), ``train_mse`` (on the rows the model is fitted on),
        ``validation_mse``, ``test_mse``, ``early_stop`` (True at the iteration
        where scikit-learn's early stopping stops; no row is marked when it
        would not stop within ``n_estimators``), ``n_fit``, ``n_validation``.

    Raises
    ------
    RuntimeError
        ``check_sklearn`` and scikit-learn stops elsewhere.
    """
    from sklearn.ensemble import GradientBoostingRegressor
    from sklearn.model_selection import train_test_split

    Xtr, ytr = _xy(X_train, y_train, "training data")
    Xte, yte = _xy(X_test, y_test, "test data")
    seed = _seed(random_state)
    # the rows scikit-learn fits on and validates on when n_iter_no_change is set
    fit_rows, val_rows = train_test_split(np.arange(len(ytr)), random_state=seed, test_size=validation_fraction)
    Xf, yf, Xv, yv = Xtr[fit_rows], ytr[fit_rows], Xtr[val_rows], ytr[val_rows]
    parts = []
    for lr in learning_rates:
        boosting = dict(n_estimators=int(n_estimators), learning_rate=lr, max_depth=max_depth, random_state=seed)
        model = GradientBoostingRegressor(**boosting).fit(Xf, yf)
        train = np.array([_mse(yf, p) for p in model.staged_predict(Xf)])
        # scikit-learn's validation loss: factor 2 x HalfSquaredError (mean of 0.5 r^2)
        val = np.array([2.0 * np.mean(0.5 * (yv - p) ** 2) for p in model.staged_predict(Xv)])
        test = np.array([_mse(yte, p) for p in model.staged_predict(Xte)])
        fired = _rule_fires_at(val, n_iter_no_change, tol)
        stop = n_estimators if fired is None else fired  # scikit-learn's n_estimators_
        if check_sklearn:
            es = GradientBoostingRegressor(
                **boosting, n_iter_no_change=n_iter_no_change, validation_fraction=validation_fraction, tol=tol
            ).fit(Xtr, ytr)
            if es.n_estimators_ != stop:
                raise RuntimeError(
                    f"learning_rate={lr}: scikit-learn's early stopping kept {es.n_estimators_} stages but the "
                    f"validation curve gives {stop}; scikit-learn's split or stopping rule has changed"
                )
        parts.append(
            pd.DataFrame(
                {
                    "learning_rate": float(lr),
                    "iteration": np.arange(1, n_estimators + 1),
                    "train_mse": train,
                    "validation_mse": val,
                    "test_mse": test,
                    "early_stop": np.arange(1, n_estimators + 1) == (fired or 0),
                    "n_fit": len(fit_rows),
                    "n_validation": len(val_rows),
                }
            )
        )
    return pd.concat(parts, ignore_index=True)


# ----------------------------------------------------------------------------- the workflow's entry point
#: illustration name -> (function, whether it takes a train / test split of simulated data)
ILLUSTRATIONS = {
    "pruning_path": (pruning_path, True),
    "oob_curve": (oob_curve, True),
    "loss_functions": (loss_functions, False),
    "boosting_depth": (boosting_depth_curve, True),
    "boosting_staged": (boosting_staged_curves, True),
}


def illustration_table(
    name: str, frame: pd.DataFrame | None = None, *, test_size: float = 0.2, random_state: int = 0, **options
) -> pd.DataFrame:
    """The table of one illustration of chapters 2-3, computed the way the ``illustration`` rule does.

    Parameters
    ----------
    name : str
        A key of :data:`ILLUSTRATIONS` (``pruning_path``, ``oob_curve``,
        ``loss_functions``, ``boosting_depth``, ``boosting_staged``).
    frame : DataFrame, optional
        Simulated data (``x1 .. xp``, ``y``; :func:`xaipipe.data.simulated.simulate`),
        split by :func:`simulated_split` with ``test_size`` and ``random_state``;
        needed by every illustration but ``loss_functions``.
    test_size : float, default 0.2
    random_state : int, default 0
        Seed of the split and ``random_state`` of the models.
    **options
        Keyword arguments of the illustration's function (config section
        ``illustrations.<name>``); lists become tuples.

    Returns
    -------
    DataFrame
        The function's table.

    Raises
    ------
    ValueError
        Unknown ``name``, or no ``frame`` for an illustration that needs data.
    """
    if name not in ILLUSTRATIONS:
        raise ValueError(f"unknown illustration {name!r}; known: {sorted(ILLUSTRATIONS)}")
    function, needs_data = ILLUSTRATIONS[name]
    kwargs = {k: tuple(v) if isinstance(v, list) else v for k, v in options.items()}
    if not needs_data:
        return function(**kwargs)
    if frame is None:
        raise ValueError(f"illustration {name!r} needs the simulated data (frame)")
    s = simulated_split(frame, test_size=test_size, random_state=random_state)
    return function(s["X_train"], s["y_train"], s["X_test"], s["y_test"], random_state=random_state, **kwargs)
