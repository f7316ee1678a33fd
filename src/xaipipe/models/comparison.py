"""Comparing models on one test set: test error and its standard errors, the paired
bootstrap test of a difference in test loss, the reject option, predicted against
observed (seed 003's "selected variables and their squares" OLS comparison uses the
paired test from here: :func:`xaipipe.models.ols.squared_terms_comparison`).

Everything here is *conditional on the fitted models*: the test rows are resampled,
the models are never refitted. The standard errors and p-values therefore measure
the sampling variability of the test set (which rows happened to be drawn into the
20 %), not the variability of training.

Definitions
-----------
Row losses (one value per test row ``i``; their mean is the test loss, equal to the
scikit-learn metric of the same name, see :mod:`xaipipe.models.metrics`):

* ``error_rate``: ``1(ŷ_i ≠ y_i)`` (0-1 loss of the hard label ``y_pred``);
* ``log_loss``: ``-log p_i(y_i)`` with ``p_i(1) = proba_1``, ``p_i(0) = 1 - proba_1``,
  clipped to ``[eps, 1 - eps]`` (``eps`` the float64 machine epsilon), exactly as
  :func:`sklearn.metrics.log_loss` clips; for a multiclass model (test predictions
  with ``proba_0 .. proba_{K-1}``) ``p_i(k) = proba_k``, the multinomial log loss;
* ``mse``: ``(y_i - ŷ_i)²``;  ``mae``: ``|y_i - ŷ_i|``.

Test error (seed 003 §3.6.3, Fig 3.2): ``e = (1/n) Σ_i 1(ŷ_i ≠ y_i)``; the binomial
standard error ``sqrt(e (1 - e) / n)`` (the standard error of a Bernoulli mean,
plug-in variance); the bootstrap distribution of ``e`` over ``B`` resamples of the
test rows and its standard deviation.

Paired bootstrap test of a difference in test loss (seed 003 §3.9; Efron &
Tibshirani 1993, *An Introduction to the Bootstrap*, ch. 6 and 13). For two models
``a`` and ``b`` scored on the *same* ``n`` test rows, with row losses ``L^a_i`` and
``L^b_i`` and row differences ``d_i = L^a_i - L^b_i``:

* observed difference ``D = mean(L^a) - mean(L^b) = mean(d)``;
* resample ``b = 1..B``: draw ``n`` row positions ``s_b`` uniformly with replacement
  (``numpy.random.default_rng(random_state).integers(0, n, size=(B, n))``, drawn once
  and shared by every pair and loss of a call: common random numbers), and compute
  ``D*_b = mean(d[s_b])``. Both models are evaluated on the *same* resampled rows,
  which is what makes the test paired: ``Var(D*) = Var(mean(L^a)) + Var(mean(L^b))
  - 2 Cov(...)``, and the covariance of two models' losses on the same rows is
  usually large and positive;
* ``se = sd(D*_1..D*_B)`` with divisor ``B - 1`` (Efron & Tibshirani 1993, eq. 6.6);
  as ``B → ∞`` it tends to the *ideal* bootstrap standard error of a mean,
  ``sqrt(Σ_i (d_i - mean(d))²) / n`` (the plug-in standard error of ``mean(d)``;
  ``tests/models/test_comparison.py`` checks this by enumerating all ``n^n``
  resamples of a small case);
* ``z = D / se`` and the two-sided p-value of ``H0: E[D] = 0`` by the normal
  approximation, ``p = 2 (1 - Φ(|z|))`` (a Wald-type test with a bootstrap standard
  error). If ``se = 0`` every resample gives the same difference: then ``z = 0``,
  ``p = 1`` when ``D = 0``, and ``z = ±inf``, ``p = 0`` otherwise;
* the ``confidence`` bootstrap percentile interval: the ``(1 - confidence)/2`` and
  ``(1 + confidence)/2`` quantiles of ``D*`` (Efron & Tibshirani 1993, ch. 13;
  ``numpy.quantile``'s default linear interpolation).

Reject option (seed 003 §3.6.3, Fig 3.1, with the rule of its §2.6 "acción nula";
Chow 1970, IEEE Trans. Inf. Theory 16(1)): with 0-1 costs plus a null action of
cost ``λ`` (``0 < λ < 1``, the "risk"), the Bayes decision predicts the most
probable class when ``max_k P(k | x) > 1 - λ`` and otherwise takes the null action
(the row is rejected, left to a human). As ``λ`` grows fewer rows are rejected and
the error on the accepted rows can only grow back to the plain test error.

Departures from seed 003 are listed in ``docs/model_comparison.md``; the two that
change numbers: the seed's ``p = norm(loc=diff, scale=se).cdf(0)`` is a one-sided
tail taken after orienting ``diff`` to be positive, i.e. half the two-sided p-value
(here: two-sided), and its ``np.std`` uses divisor ``B`` (here ``B - 1``).

The checked vectors and per-row losses every comparison reads are in
:mod:`xaipipe.models._comparison_base`, the reject-option curve and the regression views in
:mod:`xaipipe.models._comparison_curves`; both are re-exported here.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from ..io import read_csv
from ..losses import LOSS_ALIASES, LOSS_TASKS
from ._comparison_base import _check_bootstrap, _same_length, _vector, class_probabilities, row_losses
from ._comparison_curves import predicted_vs_observed, regression_summary, reject_option_curve

__all__ = [
    "COMPARISON_COLUMNS",
    "DEFAULT_LOSSES",
    "TEST_LOSS_COLUMNS",
    "aligned_predictions",
    "bootstrap_differences",
    "bootstrap_error_rate",
    "resample_test_rows",
    "bootstrap_loss_difference",
    "class_probabilities",
    "compare_families",
    "comparison_tables",
    "error_rate_summary",
    "loss_summary",
    "paired_bootstrap_test",
    "predicted_vs_observed",
    "read_test_predictions",
    "regression_summary",
    "reject_option_curve",
    "reject_option_curves",
    "row_losses",
]

#: Losses compared by default, per task, in the spelling the comparison tables publish (``loss``
#: column): the aliases ``error_rate`` / ``mse`` / ``mae`` of ``zero_one`` / ``squared_error`` /
#: ``absolute_error`` (:mod:`xaipipe.losses`).
DEFAULT_LOSSES = {"classification": ("error_rate", "log_loss"), "regression": ("mse", "mae")}
#: Columns of :func:`compare_families` (``tables/model_comparison.csv``).
COMPARISON_COLUMNS = [
    "dataset",
    "family_a",
    "family_b",
    "loss",
    "n_test",
    "mean_a",
    "mean_b",
    "difference",
    "se",
    "z",
    "p_value",
    "ci_low",
    "ci_high",
    "n_bootstrap",
    "confidence",
]
_TEST_COLUMNS = COMPARISON_COLUMNS[4:]
#: Columns of :func:`loss_summary` (``comparison/<dataset>/test_loss.csv``).
TEST_LOSS_COLUMNS = [
    "dataset",
    "family",
    "loss",
    "n_test",
    "mean",
    "se_binomial",
    "se_bootstrap",
    "ci_low",
    "ci_high",
    "n_bootstrap",
    "confidence",
]
# Bound on the size of one block of resampled losses (elements), to bound memory.
_BLOCK = 1 << 22


# ----------------------------------------------------------------------------- bootstrap core
def resample_test_rows(n: int, n_bootstrap: int, random_state: int | None = 0) -> np.ndarray:
    """Row positions of ``n_bootstrap`` resamples of ``n`` rows, with replacement.

    Returns
    -------
    ndarray of shape (n_bootstrap, n), dtype int64
        ``numpy.random.default_rng(random_state).integers(0, n, size=(n_bootstrap, n))``:
        row ``b`` holds the positions drawn for resample ``b``. Every function of
        this module that takes ``random_state`` draws its resamples with this call,
        so equal ``(n, n_bootstrap, random_state)`` give equal resamples.
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    _check_bootstrap(n_bootstrap)
    return np.random.default_rng(random_state).integers(0, n, size=(n_bootstrap, n))


def _resampled_means(values: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """``values[..., idx].mean(-1)`` for values (n,) or (k, n), in blocks of resamples."""
    values = np.atleast_2d(values)
    k, n = values.shape
    out = np.empty((k, idx.shape[0]))
    step = max(1, _BLOCK // max(1, n * k))
    for start in range(0, idx.shape[0], step):
        block = idx[start : start + step]
        out[:, start : start + step] = values[:, block].mean(axis=-1)
    return out


def _summary(difference: float, draws: np.ndarray, confidence: float) -> dict:
    from scipy.stats import norm

    se = float(np.std(draws, ddof=1))
    if se > 0:
        z = difference / se
    else:
        z = 0.0 if difference == 0 else float(np.copysign(np.inf, difference))
    p = float(2.0 * norm.sf(abs(z)))
    lo, hi = np.quantile(draws, [(1.0 - confidence) / 2.0, (1.0 + confidence) / 2.0])
    return {"se": se, "z": float(z), "p_value": p, "ci_low": float(lo), "ci_high": float(hi)}


# ----------------------------------------------------------------------------- test error
def bootstrap_error_rate(y_true, y_pred, *, n_bootstrap: int = 500, random_state: int | None = 0) -> pd.DataFrame:
    """Bootstrap distribution of the test error (seed 003, Fig 3.2).

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,)
        Observed and predicted labels of the test rows.
    n_bootstrap : int, default=500
        Number of resamples ``B`` (the seed's 500).
    random_state : int or None, default=0
        Seed of :func:`resample_test_rows`.

    Returns
    -------
    DataFrame
        ``B`` rows: ``bootstrap`` (0..B-1) and ``error_rate`` (the error on resample
        ``b``, a multiple of ``1/n``).
    """
    loss = row_losses(y_true, y_pred, "error_rate")
    idx = resample_test_rows(len(loss), n_bootstrap, random_state)
    return pd.DataFrame({"bootstrap": np.arange(n_bootstrap), "error_rate": _resampled_means(loss, idx)[0]})


def error_rate_summary(
    y_true, y_pred, *, n_bootstrap: int = 500, confidence: float = 0.95, random_state: int | None = 0
) -> pd.DataFrame:
    """Test error with its binomial and bootstrap standard errors.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,)
    n_bootstrap : int, default=500
    confidence : float in (0, 1), default=0.95
        Level of the bootstrap percentile interval.
    random_state : int or None, default=0

    Returns
    -------
    DataFrame
        One row: ``n_test``, ``n_errors``, ``error_rate`` (``e``), ``se_binomial``
        (``sqrt(e (1 - e) / n)``, seed 003 §3.6.3), ``se_bootstrap`` (standard
        deviation, divisor ``B - 1``, of :func:`bootstrap_error_rate`'s draws with the
        same ``random_state``), ``ci_low``, ``ci_high`` (bootstrap percentile
        interval), ``n_bootstrap``, ``confidence``.

    Raises
    ------
    ValueError
        Shapes that differ, empty input, ``n_bootstrap < 2``, ``confidence`` outside (0, 1).
    """
    _check_bootstrap(n_bootstrap, confidence)
    loss = row_losses(y_true, y_pred, "error_rate")
    n = len(loss)
    e = float(loss.mean())
    draws = bootstrap_error_rate(y_true, y_pred, n_bootstrap=n_bootstrap, random_state=random_state)["error_rate"]
    s = _summary(e, draws.to_numpy(), confidence)
    return pd.DataFrame(
        [
            {
                "n_test": n,
                "n_errors": int(loss.sum()),
                "error_rate": e,
                "se_binomial": float(np.sqrt(e * (1 - e) / n)),
                "se_bootstrap": s["se"],
                "ci_low": s["ci_low"],
                "ci_high": s["ci_high"],
                "n_bootstrap": n_bootstrap,
                "confidence": confidence,
            }
        ]
    )


# ----------------------------------------------------------------------------- paired test
def bootstrap_loss_difference(loss_a, loss_b, *, n_bootstrap: int = 1000, random_state: int | None = 0) -> np.ndarray:
    """Paired bootstrap draws ``mean(loss_a[s_b]) - mean(loss_b[s_b])`` (seed 003, Fig 3.3).

    Parameters
    ----------
    loss_a, loss_b : array-like of shape (n,)
        Row losses (:func:`row_losses`) of two models on the same test rows, in the
        same order.
    n_bootstrap : int, default=1000
    random_state : int or None, default=0
        Seed of :func:`resample_test_rows`; :func:`paired_bootstrap_test` with the same
        arguments summarises exactly these draws.

    Returns
    -------
    ndarray of shape (n_bootstrap,)
        Loss units (those of :func:`row_losses`).
    """
    a = _vector(loss_a, "loss_a")
    b = _vector(loss_b, "loss_b")
    n = _same_length(loss_a=a, loss_b=b)
    idx = resample_test_rows(n, n_bootstrap, random_state)
    return _resampled_means(a - b, idx)[0]


def paired_bootstrap_test(
    loss_a, loss_b, *, n_bootstrap: int = 1000, confidence: float = 0.95, random_state: int | None = 0
) -> pd.DataFrame:
    """Paired bootstrap test of the difference in mean test loss of two models.

    See the module docstring for the definitions (Efron & Tibshirani 1993, eq. 6.6
    for ``se``, ch. 13 for the percentile interval; seed 003 §3.9).

    Parameters
    ----------
    loss_a, loss_b : array-like of shape (n,)
        Row losses of models ``a`` and ``b`` on the same rows, same order.
    n_bootstrap : int, default=1000
    confidence : float in (0, 1), default=0.95
    random_state : int or None, default=0

    Returns
    -------
    DataFrame
        One row: ``n_test``, ``mean_a``, ``mean_b``, ``difference`` (``mean_a -
        mean_b``; negative: ``a`` has the lower loss), ``se``, ``z``, ``p_value``
        (two-sided, normal approximation), ``ci_low``, ``ci_high``, ``n_bootstrap``,
        ``confidence``.

    Raises
    ------
    ValueError
        Shapes that differ, NaN, ``n_bootstrap < 2``, ``confidence`` outside (0, 1).
    """
    _check_bootstrap(n_bootstrap, confidence)
    a = _vector(loss_a, "loss_a")
    b = _vector(loss_b, "loss_b")
    n = _same_length(loss_a=a, loss_b=b)
    draws = bootstrap_loss_difference(a, b, n_bootstrap=n_bootstrap, random_state=random_state)
    mean_a, mean_b = float(a.mean()), float(b.mean())
    diff = float(np.mean(a - b))
    return pd.DataFrame(
        [
            {
                "n_test": n,
                "mean_a": mean_a,
                "mean_b": mean_b,
                "difference": diff,
                **_summary(diff, draws, confidence),
                "n_bootstrap": n_bootstrap,
                "confidence": confidence,
            }
        ]
    )


# ----------------------------------------------------------------------------- all pairs
def read_test_predictions(paths: Mapping[str, str | os.PathLike]) -> pd.DataFrame:
    """Read the pipeline's per-family test predictions into one long table.

    Parameters
    ----------
    paths : mapping family -> path
        ``results/<v>/models/<dataset>/test/<family>_predictions.csv`` files, with
        columns ``row, y_true, y_pred`` (regression) or ``row, y_true, proba_1,
        y_pred`` (classification).

    Returns
    -------
    DataFrame
        Columns ``family`` then the files' columns, families in the order given.

    Raises
    ------
    FileNotFoundError
        A file is missing (the message names it).
    ValueError
        A file lacks ``row``, ``y_true`` or ``y_pred`` (the message names file and column).
    """
    frames = []
    for family, path in paths.items():
        if not os.path.isfile(path):
            raise FileNotFoundError(f"test predictions of family {family!r} not found: {path}")
        frame = read_csv(path)
        missing = [c for c in ("row", "y_true", "y_pred") if c not in frame.columns]
        if missing:
            raise ValueError(f"{path}: missing column(s) {missing} (have {list(frame.columns)})")
        frames.append(frame.assign(family=family))
    if not frames:
        raise ValueError("no prediction files given")
    out = pd.concat(frames, ignore_index=True)
    return out[["family"] + [c for c in out.columns if c != "family"]]


def _long_predictions(predictions) -> pd.DataFrame:
    if isinstance(predictions, pd.DataFrame):
        if "family" not in predictions.columns:
            raise ValueError("the predictions table needs a 'family' column")
        return predictions
    if isinstance(predictions, Mapping):
        return pd.concat([pd.DataFrame(f).assign(family=k) for k, f in predictions.items()], ignore_index=True)
    raise TypeError("predictions must be a DataFrame with a 'family' column or a mapping family -> DataFrame")


def aligned_predictions(predictions, dataset: str | None = None, losses: Sequence[str] | None = None):
    """Validate a long test-predictions table and split it per family on common test rows.

    Shared by every function that resamples the test rows (and by the comparison figures), so
    that they all resample the same rows in the same order.

    Parameters
    ----------
    predictions : DataFrame or mapping
        Long table with columns ``family``, ``row``, ``y_true``, ``y_pred`` (and ``proba_1`` for
        classifiers), optionally ``dataset``; or ``{family: table}``.
    dataset : str, optional
        Dataset name; taken from the ``dataset`` column when None.
    losses : sequence of str, optional
        Loss names or aliases (:mod:`xaipipe.losses`); the task's ``DEFAULT_LOSSES`` when None.

    Returns
    -------
    dataset : str
        ``dataset``, else the table's ``dataset`` value, else ``""``.
    task : {"classification", "regression"}
    families : list of str
        Sorted family names.
    per_family : dict of str to DataFrame
        Each family's rows sorted by ``row`` (n_test rows each, the same rows for all).
    losses : tuple of str

    Raises
    ------
    ValueError
        A missing column, several datasets, no family, families mixing classification and
        regression outputs, a loss of the other task, duplicated test rows, or families scored
        on different rows or with different ``y_true``.
    """
    table = _long_predictions(predictions)
    for col in ("row", "y_true", "y_pred"):
        if col not in table.columns:
            raise ValueError(f"predictions lack column {col!r}")
    if "dataset" in table.columns:
        values = table["dataset"].unique()
        if len(values) > 1:
            raise ValueError(f"predictions hold several datasets {sorted(map(str, values))}; filter to one")
        if dataset is None:
            dataset = str(values[0])
    families = sorted(table["family"].astype(str).unique())
    if not families:
        raise ValueError("the predictions table holds no family")
    has_proba = {
        f: ("proba_1" in table.columns and table.loc[table.family == f, "proba_1"].notna().all()) for f in families
    }
    if len(set(has_proba.values())) > 1:
        raise ValueError(f"families mix classification (proba_1) and regression outputs: {has_proba}")
    task = "classification" if next(iter(has_proba.values())) else "regression"
    losses = tuple(DEFAULT_LOSSES[task] if losses is None else losses)
    for loss in losses:
        if LOSS_TASKS.get(LOSS_ALIASES.get(loss, loss)) != task:
            raise ValueError(f"loss {loss!r} does not apply to {task} (use {DEFAULT_LOSSES[task]})")

    per = {}
    for f in families:
        sub = table[table.family.astype(str) == f].sort_values("row", kind="stable")
        if sub["row"].duplicated().any():
            raise ValueError(f"family {f!r}: duplicated test rows {sub.loc[sub.row.duplicated(), 'row'].tolist()[:5]}")
        per[f] = sub.reset_index(drop=True)
    ref = per[families[0]]
    for f in families[1:]:
        sub = per[f]
        if len(sub) != len(ref) or not np.array_equal(sub["row"].to_numpy(), ref["row"].to_numpy()):
            raise ValueError(
                f"families {families[0]!r} and {f!r} are scored on different test rows "
                f"({len(ref)} and {len(sub)} rows); a paired test needs the same rows"
            )
        if not np.array_equal(sub["y_true"].to_numpy(), ref["y_true"].to_numpy()):
            raise ValueError(f"families {families[0]!r} and {f!r} disagree on y_true for some test rows")
    return ("" if dataset is None else dataset), task, families, per, losses


def _family_losses(per: Mapping[str, pd.DataFrame], families, loss: str) -> dict[str, np.ndarray]:
    y = per[families[0]]["y_true"].to_numpy()
    col = "proba_1" if loss == "log_loss" else "y_pred"
    out = {}
    for f in families:
        multi = class_probabilities(per[f]) if loss == "log_loss" else None
        out[f] = row_losses(y, per[f][col].to_numpy() if multi is None else multi, loss)
    return out


def compare_families(
    predictions,
    *,
    dataset: str | None = None,
    losses: Sequence[str] | None = None,
    n_bootstrap: int = 1000,
    confidence: float = 0.95,
    random_state: int | None = 0,
) -> pd.DataFrame:
    """Paired bootstrap tests of every pair of families of one dataset.

    Parameters
    ----------
    predictions : DataFrame or mapping family -> DataFrame
        Long table (``family``, ``row``, ``y_true``, ``y_pred`` [, ``proba_1``]; see
        :func:`read_test_predictions`) or one table per family. ``proba_1`` present
        for every family means classification, absent for every family regression.
        Rows are matched on ``row`` (the test row's position in ``prepared.csv``),
        so the file order does not matter.
    dataset : str, optional
        Value of the ``dataset`` column; default the table's ``dataset`` column if it
        holds one value, else empty.
    losses : sequence of str, optional
        Default ``("error_rate", "log_loss")`` for classification, ``("mse",
        "mae")`` for regression.
    n_bootstrap : int, default=1000
    confidence : float in (0, 1), default=0.95
    random_state : int or None, default=0
        One set of resamples (of the rows sorted by ``row``) serves every pair and
        loss, so a pair's result does not depend on which other families are present.

    Returns
    -------
    DataFrame
        :data:`COMPARISON_COLUMNS`, one row per pair ``family_a < family_b``
        (alphabetical) and loss; ``difference = mean_a - mean_b``; see
        :func:`paired_bootstrap_test`.

    Raises
    ------
    ValueError
        Fewer than two families, several datasets, a family with duplicated rows,
        families scored on different rows or with different ``y_true`` for a row
        (the message names them), a loss that does not fit the task.
    TypeError
        ``predictions`` of another type.
    """
    _check_bootstrap(n_bootstrap, confidence)
    dataset, _task, families, per, losses = aligned_predictions(predictions, dataset, losses)
    if len(families) < 2:
        raise ValueError(f"need at least two families to compare, got {families}")
    ref = per[families[0]]
    y = ref["y_true"].to_numpy()
    n = len(y)
    idx = resample_test_rows(n, n_bootstrap, random_state)
    rows = []
    for loss in losses:
        L = _family_losses(per, families, loss)
        for fa, fb in itertools.combinations(families, 2):
            d = L[fa] - L[fb]
            draws = _resampled_means(d, idx)[0]
            diff = float(np.mean(d))
            rows.append(
                {
                    "dataset": dataset,
                    "family_a": fa,
                    "family_b": fb,
                    "loss": loss,
                    "n_test": n,
                    "mean_a": float(L[fa].mean()),
                    "mean_b": float(L[fb].mean()),
                    "difference": diff,
                    **_summary(diff, draws, confidence),
                    "n_bootstrap": n_bootstrap,
                    "confidence": confidence,
                }
            )
    return pd.DataFrame(rows, columns=COMPARISON_COLUMNS)


def loss_summary(
    predictions,
    *,
    dataset: str | None = None,
    losses: Sequence[str] | None = None,
    n_bootstrap: int = 1000,
    confidence: float = 0.95,
    random_state: int | None = 0,
) -> pd.DataFrame:
    """Test loss of every family with its bootstrap standard error (seed 003 §3.6.3, Fig 3.2,
    for every family and loss).

    Parameters
    ----------
    predictions, dataset, losses, n_bootstrap, confidence, random_state
        As :func:`compare_families` (one family is enough). The resamples are those of
        :func:`compare_families` with the same arguments (rows sorted by ``row``).

    Returns
    -------
    DataFrame
        :data:`TEST_LOSS_COLUMNS`, one row per family and loss: ``mean`` (the test loss,
        loss units), ``se_binomial`` (``sqrt(e (1 - e) / n)`` for ``error_rate``, NaN for
        the other losses), ``se_bootstrap`` (sd of the resampled means, divisor ``B - 1``),
        the percentile interval ``ci_low``, ``ci_high``. For ``error_rate`` the row equals
        :func:`error_rate_summary` of that family (tested).
    """
    _check_bootstrap(n_bootstrap, confidence)
    dataset, _, families, per, losses = aligned_predictions(predictions, dataset, losses)
    n = len(per[families[0]])
    idx = resample_test_rows(n, n_bootstrap, random_state)
    rows = []
    for loss in losses:
        L = _family_losses(per, families, loss)
        for f in families:
            mean = float(L[f].mean())
            s = _summary(mean, _resampled_means(L[f], idx)[0], confidence)
            rows.append(
                {
                    "dataset": dataset,
                    "family": f,
                    "loss": loss,
                    "n_test": n,
                    "mean": mean,
                    "se_binomial": float(np.sqrt(mean * (1 - mean) / n)) if loss == "error_rate" else np.nan,
                    "se_bootstrap": s["se"],
                    "ci_low": s["ci_low"],
                    "ci_high": s["ci_high"],
                    "n_bootstrap": n_bootstrap,
                    "confidence": confidence,
                }
            )
    return pd.DataFrame(rows, columns=TEST_LOSS_COLUMNS)


def bootstrap_differences(
    predictions,
    *,
    loss: str,
    pairs: Sequence[tuple[str, str]] | None = None,
    families: Sequence[str] | None = None,
    n_bootstrap: int = 1000,
    random_state: int | None = 0,
) -> pd.DataFrame:
    """The paired bootstrap draws behind :func:`compare_families` (Fig 3.3), or those of the
    test loss of single families (Fig 3.2), as a long table.

    Parameters
    ----------
    predictions : DataFrame or mapping family -> DataFrame
        As :func:`compare_families`.
    loss : str
        One loss of the task.
    pairs : sequence of (family_a, family_b), optional
        Draws of ``mean(L^a[s_b]) - mean(L^b[s_b])``; with the same ``n_bootstrap``
        and ``random_state`` they are exactly the draws whose sd is ``se`` in
        :func:`compare_families`' row ``(family_a, family_b, loss)`` (tested).
    families : sequence of str, optional
        Draws of ``mean(L^f[s_b])`` (the bootstrap distribution of each family's test
        loss, summarised by :func:`loss_summary`). Give ``pairs`` or ``families``.
    n_bootstrap : int, default=1000
    random_state : int or None, default=0

    Returns
    -------
    DataFrame
        ``family_a``, ``family_b``, ``loss``, ``bootstrap``, ``difference`` (pairs) or
        ``family``, ``loss``, ``bootstrap``, ``value`` (families); loss units.

    Raises
    ------
    ValueError
        Neither or both of ``pairs`` / ``families``, unknown families, and the errors
        of :func:`compare_families`.
    """
    _check_bootstrap(n_bootstrap)
    if (pairs is None) == (families is None):
        raise ValueError("give exactly one of pairs and families")
    _, _, known, per, _ = aligned_predictions(predictions, None, (loss,))
    wanted = [f for pair in (pairs or []) for f in pair] + list(families or [])
    unknown = sorted(set(map(str, wanted)) - set(known))
    if unknown:
        raise ValueError(f"families {unknown} have no predictions (have {known})")
    L = _family_losses(per, known, loss)
    idx = resample_test_rows(len(per[known[0]]), n_bootstrap, random_state)
    frames = []
    if pairs is not None:
        for fa, fb in pairs:
            frames.append(
                pd.DataFrame(
                    {
                        "family_a": str(fa),
                        "family_b": str(fb),
                        "loss": loss,
                        "bootstrap": np.arange(n_bootstrap),
                        "difference": _resampled_means(L[str(fa)] - L[str(fb)], idx)[0],
                    }
                )
            )
        columns = ["family_a", "family_b", "loss", "bootstrap", "difference"]
    else:
        for f in families:
            frames.append(
                pd.DataFrame(
                    {
                        "family": str(f),
                        "loss": loss,
                        "bootstrap": np.arange(n_bootstrap),
                        "value": _resampled_means(L[str(f)], idx)[0],
                    }
                )
            )
        columns = ["family", "loss", "bootstrap", "value"]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=columns)


def comparison_tables(
    predictions,
    *,
    dataset: str | None = None,
    losses: Sequence[str] | None = None,
    n_bootstrap: int = 1000,
    confidence: float = 0.95,
    random_state: int | None = 0,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The ``model_comparison`` rule: :func:`compare_families` (every pair; empty with a
    single family) and :func:`loss_summary` of one dataset's test predictions,
    from one set of resamples."""
    _, _, families, _, _ = aligned_predictions(predictions, dataset, losses)
    kwargs = {
        "dataset": dataset,
        "losses": losses,
        "n_bootstrap": n_bootstrap,
        "confidence": confidence,
        "random_state": random_state,
    }
    pairs = compare_families(predictions, **kwargs) if len(families) > 1 else pd.DataFrame(columns=COMPARISON_COLUMNS)
    return pairs, loss_summary(predictions, **kwargs)


# ----------------------------------------------------------------------------- reject option (all families)
def reject_option_curves(predictions, *, risks=None) -> pd.DataFrame:
    """:func:`reject_option_curve` of every family of a classification dataset (Fig 3.1).

    Parameters
    ----------
    predictions : DataFrame or mapping family -> DataFrame
        As :func:`compare_families`, with ``proba_1`` (binary classifiers).
    risks : array-like, optional
        As :func:`reject_option_curve`.

    Returns
    -------
    DataFrame
        ``dataset``, ``family``, then the columns of :func:`reject_option_curve`.

    Raises
    ------
    ValueError
        Regression predictions (no ``proba_1``), and the errors of :func:`compare_families`.
    """
    dataset, task, families, per, _ = aligned_predictions(predictions, None, None)
    if task != "classification":
        raise ValueError("the reject option needs class probabilities (a proba_1 column)")
    frames = []
    for f in families:
        multi = class_probabilities(per[f])  # a multiclass model: every class's probability
        proba = per[f]["proba_1"].to_numpy() if multi is None else multi
        curve = reject_option_curve(per[f]["y_true"].to_numpy(), proba, risks=risks)
        curve.insert(0, "family", f)
        curve.insert(0, "dataset", dataset)
        frames.append(curve)
    return pd.concat(frames, ignore_index=True)
