"""Per-model interpretation summaries used by the workflow: the model-reliance
report over several estimators and losses, the top variables by MR, grouped
mean |SHAP| and the ranking-agreement table (MR vs mean |SHAP| vs split gain).
"""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np
import pandas as pd
from scipy import stats

from .importance import split_gain_importance
from .reliance import features_from_groups, fitted_model_reliance, linear_coefficients

__all__ = [
    "DEFAULT_LOSSES",
    "reliance_report",
    "top_features",
    "split_gain_or_nan",
    "grouped_mean_abs_shap",
    "ranking_agreement",
]

#: Losses of the model-reliance report per task.
DEFAULT_LOSSES = {"regression": ("squared_error",), "classification": ("log_loss", "zero_one")}


def _is_linear(model) -> bool:
    try:
        linear_coefficients(model)
        return True
    except (TypeError, ValueError):
        return False


def reliance_report(
    model,
    X: np.ndarray,
    y: np.ndarray,
    *,
    feature_names: Sequence[str],
    feature_groups: Mapping[str, Sequence[str]] | None = None,
    estimators: Sequence[str] = ("permutation", "e_divide", "e_switch"),
    losses: Sequence[str] = ("squared_error",),
    n_repeats: int = 20,
    e_switch_max_rows: int | None = 400,
    seed: int = 0,
    n_jobs: int | None = 1,
) -> pd.DataFrame:
    """Model reliance of one fitted model on held-out data, for every estimator × loss.

    Parameters
    ----------
    model : fitted estimator
    X : ndarray of shape (n, p)
        Held-out (test) features.
    y : ndarray of shape (n,)
    feature_names : sequence of str, length p
    feature_groups : mapping, optional
        One-hot groups (``prepared.json``), permuted jointly as one variable.
    estimators : sequence of {"permutation", "e_divide", "e_switch"}
    losses : sequence of loss names (:data:`xaipipe.explain.reliance.LOSSES`)
    n_repeats : int
        Permutations of the ``permutation`` estimator.
    e_switch_max_rows : int or None
        ``e_switch`` averages over all n(n-1) ordered pairs. For models without
        the linear closed form it is computed on a seeded subsample of at most
        this many rows (without replacement; the all-pairs U-statistic of a
        random subsample is unbiased for the same quantity), recorded in
        ``n_samples``. None: always all rows.
    seed : int
        Seed of the permutations and of the ``e_switch`` subsample.
    n_jobs : int or None, default 1
        Threads of the tree engine or of the row blocks of ensemble predictions
        (:func:`xaipipe.explain.reliance.fitted_model_reliance`); the result does
        not depend on them.

    Returns
    -------
    DataFrame
        The columns of :func:`xaipipe.explain.reliance.model_reliance` without
        ``member``, one row per loss × estimator × variable.
    """
    features = features_from_groups(list(feature_names), feature_groups)
    linear = _is_linear(model)
    out = []
    for loss in losses:
        for estimator in estimators:
            Xe, ye = X, y
            kwargs = {}
            if estimator == "permutation":
                kwargs["n_repeats"] = n_repeats
                kwargs["random_state"] = seed
            if estimator == "e_switch":
                closed = linear and loss == "squared_error"
                kwargs["closed_form"] = closed
                if not closed and e_switch_max_rows is not None and len(y) > e_switch_max_rows:
                    rows = np.sort(np.random.default_rng(seed).choice(len(y), e_switch_max_rows, replace=False))
                    Xe, ye = X[rows], y[rows]
            table = fitted_model_reliance(
                model, Xe, ye, features=features, feature_names=list(feature_names),
                estimator=estimator, loss=loss, n_jobs=n_jobs, **kwargs,
            )
            out.append(table.drop(columns=["member"]))
    return pd.concat(out, ignore_index=True)


def top_features(
    reliance: pd.DataFrame, k: int, *, estimator: str, loss: str, quantity: str = "mr_difference"
) -> list[str]:
    """The ``k`` variables with the largest MR (``quantity``) for one estimator and loss.

    Raises
    ------
    ValueError
        If the table has no rows for ``estimator`` / ``loss``.
    """
    part = reliance[(reliance["estimator"] == estimator) & (reliance["loss"] == loss)]
    if part.empty:
        raise ValueError(f"no model-reliance rows for estimator={estimator!r}, loss={loss!r}")
    ordered = part.sort_values([quantity, "feature"], ascending=[False, True], kind="stable")
    return ordered["feature"].head(k).tolist()


def split_gain_or_nan(model, feature_names: Sequence[str], feature_groups=None) -> pd.DataFrame:
    """Split-gain importance per variable, or NaN with ``kind="not_applicable"``
    for models that are not trees (linear models, kNN, naive Bayes, QDA)."""
    features = features_from_groups(list(feature_names), feature_groups)
    try:
        return split_gain_importance(model, features=features, feature_names=list(feature_names))
    except TypeError:
        return pd.DataFrame({"feature": list(features), "split_gain": np.nan, "kind": "not_applicable"})


def grouped_mean_abs_shap(shap_long: pd.DataFrame, feature_groups=None) -> pd.DataFrame:
    """Mean |SHAP| per variable from a long SHAP table (``row``, ``feature``, ``shap_value``).

    SHAP values are additive, so a one-hot group's value per row is the sum of
    its members' values; the mean absolute value is taken after summing.
    """
    groups = dict(feature_groups or {})
    member_of = {m: g for g, members in groups.items() for m in members}
    frame = shap_long.assign(variable=shap_long["feature"].map(lambda f: member_of.get(f, f)))
    per_row = frame.groupby(["variable", "row"], sort=False)["shap_value"].sum()
    mean_abs = per_row.abs().groupby(level=0, sort=False).mean()
    return pd.DataFrame({"feature": mean_abs.index, "mean_abs_shap": mean_abs.to_numpy()})


def ranking_agreement(importances: pd.DataFrame, measures: Sequence[str]) -> pd.DataFrame:
    """Spearman rank correlation between every pair of importance measures.

    Parameters
    ----------
    importances : DataFrame
        One row per variable, one column per measure (NaN where a measure is not
        defined, e.g. split gain of a linear model).
    measures : sequence of str
        Column names to compare.

    Returns
    -------
    DataFrame
        Columns ``measure_1``, ``measure_2``, ``spearman``, ``p_value``,
        ``n_features`` (NaN correlation when fewer than 3 variables have both
        measures or one of them is constant).
    """
    rows = []
    for i, a in enumerate(measures):
        for b in measures[i + 1 :]:
            both = importances[[a, b]].dropna()
            if len(both) >= 3 and both[a].nunique() > 1 and both[b].nunique() > 1:
                res = stats.spearmanr(both[a], both[b])
                rho, p = float(res.statistic), float(res.pvalue)
            else:
                rho, p = np.nan, np.nan
            rows.append({"measure_1": a, "measure_2": b, "spearman": rho, "p_value": p, "n_features": len(both)})
    return pd.DataFrame(rows)
