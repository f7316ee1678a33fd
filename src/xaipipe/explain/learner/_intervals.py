"""Corrected resampled-*t* intervals and the learner-PD / learner-PFI tables.

The tables layer of :mod:`xaipipe.explain.learner` (which re-exports every name
here): per-refit values in, one row per feature (x grid point) out. Method and
sources: the module docstring of :mod:`xaipipe.explain.learner` (Molnar et al.
2023; Nadeau & Bengio 2003, corrected resampled *t*).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...validation import check_confidence, check_finite

__all__ = [
    "LEARNER_PD_COLUMNS",
    "LEARNER_PFI_COLUMNS",
    "PD_REFIT_COLUMNS",
    "PFI_REFIT_COLUMNS",
    "corrected_t_interval",
    "learner_pd_table",
    "learner_pfi_table",
]

#: Per-refit PD values (one row per refit x feature x grid point).
PD_REFIT_COLUMNS = ["refit", "feature", "grid_index", "grid_value", "level", "output", "value", "n_train", "n_test"]
#: Per-refit PFI values (one row per refit x feature).
PFI_REFIT_COLUMNS = [
    "refit",
    "feature",
    "estimator",
    "loss",
    "e_orig",
    "e_switch",
    "mr_difference",
    "mr_ratio",
    "n_repeats",
    "n_train",
    "n_test",
]
_INTERVAL = ["mean", "std", "se", "se_naive", "ci_low", "ci_high", "ci_low_naive", "ci_high_naive"]
#: Columns of :func:`learner_pd_table`.
LEARNER_PD_COLUMNS = [
    "feature",
    "grid_index",
    "grid_value",
    "level",
    "output",
    *_INTERVAL,
    "n_refits",
    "n_train",
    "n_test",
    "test_train_ratio",
    "confidence",
]
#: Columns of :func:`learner_pfi_table`.
LEARNER_PFI_COLUMNS = (
    ["feature", "estimator", "loss", "e_orig_mean"]
    + [f"{m}_{s}" for m in ("mr_difference", "mr_ratio") for s in _INTERVAL]
    + ["n_refits", "n_train", "n_test", "test_train_ratio", "confidence"]
)


def corrected_t_interval(values, test_train_ratio: float, *, confidence: float = 0.95) -> dict[str, np.ndarray]:
    """Mean of ``K`` refit estimates with corrected and naive *t* intervals.

    Nadeau & Bengio (2003), corrected resampled *t*; Molnar et al. (2023)
    apply it to learner-PD / learner-PFI (module docstring).

    Parameters
    ----------
    values : array-like of shape (K, ...)
        One estimate per refit along axis 0 (``K >= 2``), any trailing shape
        (e.g. grid points).
    test_train_ratio : float >= 0
        ``n_2 / n_1``: evaluation rows over training rows of one refit.
    confidence : float in (0, 1), default 0.95
        Two-sided level ``1 - alpha``.

    Returns
    -------
    dict of str -> ndarray of shape values.shape[1:]
        ``mean``; ``std`` (:math:`S`, ``ddof=1``); ``se`` =
        :math:`\\sqrt{(1/K + n_2/n_1) S^2}`; ``se_naive`` = :math:`S/\\sqrt K`;
        ``ci_low``/``ci_high`` = ``mean -/+ t * se`` and the ``_naive``
        versions with ``se_naive``; ``t`` is the :math:`1-\\alpha/2` quantile
        of Student's *t* with ``K - 1`` degrees of freedom (a scalar). Units:
        those of ``values``.

    Raises
    ------
    ValueError
        ``K < 2``, non-finite values, a negative ratio or a bad ``confidence``.

    Notes
    -----
    Mean and variance are computed on values shifted by the first refit, so
    ``K`` bitwise-identical estimates give exactly zero width.
    """
    from scipy import stats

    v = np.asarray(values, dtype=np.float64)
    if v.ndim < 1 or v.shape[0] < 2:
        raise ValueError(f"need at least 2 refits along axis 0, got shape {v.shape}")
    check_finite(v, "values")
    ratio = float(test_train_ratio)
    if not np.isfinite(ratio) or ratio < 0:
        raise ValueError(f"test_train_ratio must be finite and >= 0, got {test_train_ratio!r}")
    c = check_confidence(confidence)
    K = v.shape[0]
    d = v - v[0]
    mean = v[0] + d.mean(axis=0)
    s2 = d.var(axis=0, ddof=1)
    t = float(stats.t.ppf(0.5 + c / 2.0, K - 1))
    se = np.sqrt((1.0 / K + ratio) * s2)
    se_naive = np.sqrt(s2 / K)
    return {
        "mean": mean,
        "std": np.sqrt(s2),
        "se": se,
        "se_naive": se_naive,
        "ci_low": mean - t * se,
        "ci_high": mean + t * se,
        "ci_low_naive": mean - t * se_naive,
        "ci_high_naive": mean + t * se_naive,
        "t": t,
    }


def _ratio_from(table: pd.DataFrame) -> tuple[int, int, float]:
    n1 = table["n_train"].unique()
    n2 = table["n_test"].unique()
    if n1.size != 1 or n2.size != 1:
        raise ValueError("n_train / n_test differ between refits; the correction needs one ratio")
    return int(n1[0]), int(n2[0]), float(n2[0]) / float(n1[0])


def _check_refits(table: pd.DataFrame, columns: list[str], what: str) -> None:
    if not isinstance(table, pd.DataFrame):
        raise TypeError(f"{what} must be a DataFrame")
    missing = [c for c in columns if c not in table.columns]
    if missing:
        raise ValueError(f"{what} lacks columns {missing}")
    if table.empty:
        raise ValueError(f"{what} is empty")


def _feature_refits(table: pd.DataFrame, columns: list[str], what: str, confidence: float):
    """The checks and per-variable parts of a table of refits with one row per variable and refit.

    Returns
    -------
    tuple
        ``(c, n_train, n_test, ratio, K, parts)``: the checked confidence, the refits' sizes and
        ``n_test / n_train``, the number ``K`` of refits and an iterator of ``(feature, rows)``
        (order of first appearance, the ``K`` rows sorted by ``refit``).

    Raises
    ------
    TypeError, ValueError
        As :func:`_check_refits`, :func:`~xaipipe.validation.check_confidence` and
        :func:`_ratio_from`; a variable without exactly one row per refit (while iterating).
    """
    _check_refits(table, columns, what)
    c = check_confidence(confidence)
    n1, n2, ratio = _ratio_from(table)
    K = table["refit"].nunique()

    def parts():
        for feature, part in table.groupby("feature", sort=False):
            if len(part) != K or part["refit"].nunique() != K:
                raise ValueError(f"feature {feature!r} does not have exactly one value per refit")
            yield feature, part.sort_values("refit")

    return c, n1, n2, ratio, K, parts()


def learner_pd_table(pd_refits: pd.DataFrame, *, confidence: float = 0.95) -> pd.DataFrame:
    """Learner-PD with corrected and naive pointwise intervals.

    Parameters
    ----------
    pd_refits : DataFrame
        Per-refit PD values, :data:`PD_REFIT_COLUMNS` (:func:`xaipipe.explain.learner.learner_refits`).
    confidence : float in (0, 1), default 0.95

    Returns
    -------
    DataFrame
        One row per feature x grid point, :data:`LEARNER_PD_COLUMNS`: ``mean``
        (learner-PD, output units), ``std`` (:math:`S` across refits), ``se``
        and ``se_naive``, corrected ``ci_low``/``ci_high`` and naive
        ``ci_low_naive``/``ci_high_naive`` (:func:`corrected_t_interval` with
        ``n_test / n_train`` from the table), ``n_refits``.

    Raises
    ------
    ValueError
        Missing columns, a grid point without every refit, fewer than 2 refits
        or several ``n_train``/``n_test`` values.
    """
    _check_refits(pd_refits, PD_REFIT_COLUMNS, "pd_refits")
    c = check_confidence(confidence)
    n1, n2, ratio = _ratio_from(pd_refits)
    refits = np.sort(pd_refits["refit"].unique())
    K = refits.size
    out = []
    for (feature, gi), part in pd_refits.groupby(["feature", "grid_index"], sort=False):
        if part["refit"].nunique() != K or len(part) != K:
            raise ValueError(f"feature {feature!r} grid point {gi} does not have exactly one value per refit")
        part = part.sort_values("refit")
        ci = corrected_t_interval(part["value"].to_numpy(), ratio, confidence=c)
        first = part.iloc[0]
        rec = {
            "feature": feature,
            "grid_index": int(gi),
            "grid_value": float(first["grid_value"]),
            "level": first["level"],
            "output": first["output"],
        }
        rec.update({k: float(ci[k]) for k in _INTERVAL})
        rec.update({"n_refits": K, "n_train": n1, "n_test": n2, "test_train_ratio": ratio, "confidence": c})
        out.append(rec)
    return pd.DataFrame(out, columns=LEARNER_PD_COLUMNS)


def learner_pfi_table(pfi_refits: pd.DataFrame, *, confidence: float = 0.95) -> pd.DataFrame:
    """Learner-PFI (difference and ratio) with corrected and naive intervals.

    Parameters
    ----------
    pfi_refits : DataFrame
        :data:`PFI_REFIT_COLUMNS` (:func:`xaipipe.explain.learner.learner_refits`).
    confidence : float in (0, 1), default 0.95

    Returns
    -------
    DataFrame
        One row per feature (order of first appearance),
        :data:`LEARNER_PFI_COLUMNS`: ``e_orig_mean`` (mean loss of the refits
        on their evaluation rows) and, for ``mr_difference`` (loss units) and
        ``mr_ratio`` (unitless), ``<m>_mean`` (learner-PFI), ``<m>_std``,
        ``<m>_se``, ``<m>_se_naive`` and the corrected / naive interval ends.

    Raises
    ------
    ValueError
        As :func:`learner_pd_table`; non-finite ratios (a refit with zero loss).
    """
    c, n1, n2, ratio, K, parts = _feature_refits(pfi_refits, PFI_REFIT_COLUMNS, "pfi_refits", confidence)
    out = []
    for feature, part in parts:
        first = part.iloc[0]
        rec = {
            "feature": feature,
            "estimator": first["estimator"],
            "loss": first["loss"],
            "e_orig_mean": float(part["e_orig"].mean()),
        }
        for m in ("mr_difference", "mr_ratio"):
            ci = corrected_t_interval(part[m].to_numpy(), ratio, confidence=c)
            rec.update({f"{m}_{k}": float(ci[k]) for k in _INTERVAL})
        rec.update({"n_refits": K, "n_train": n1, "n_test": n2, "test_train_ratio": ratio, "confidence": c})
        out.append(rec)
    return pd.DataFrame(out, columns=LEARNER_PFI_COLUMNS)
