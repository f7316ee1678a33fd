"""Per-model interpretation summaries used by the workflow: the model-reliance
report over several estimators and losses, the top variables by MR, grouped
mean |SHAP| and the ranking-agreement table (MR vs mean |SHAP| vs split gain).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

import numpy as np
import pandas as pd
from scipy import stats

from ...config.reliance import RelianceSettings
from ...data.prepare import importance_groups
from ...io import with_ids
from ...losses import resolve_loss, squared_error
from ._base import RelianceOptions, features_from_groups
from ._linear import linear_coefficients
from ._mc_error import matching_draw_variance
from ._model_reliance import model_reliance
from ._split_gain import split_gain_importance

__all__ = [
    "RELIANCE_FIRST",
    "RANKING_MEASURES",
    "RelianceTables",
    "ranking_tables",
    "reliance_tables",
    "reliance_report",
    "split_gain_or_nan",
    "grouped_mean_abs_shap",
    "ranking_agreement",
]

#: Losses of the model-reliance report per task.
DEFAULT_LOSSES = {"regression": ("squared_error",), "classification": ("log_loss", "zero_one")}


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
    random_state: int = 0,
    n_jobs: int | None = 1,
    reliance_rows: int | None = None,
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
        Random permutations of the ``permutation`` estimator and random halvings
        of ``e_divide``.
    e_switch_max_rows : int or None
        ``e_switch`` averages over all n(n-1) ordered pairs. For models without
        the linear closed form it is computed on a seeded subsample of at most
        this many rows (without replacement; the all-pairs U-statistic of a
        random subsample is unbiased for the same quantity), recorded in
        ``n_samples``. None: always all rows.
    random_state : int
        Seed of the permutations, the halvings and the ``e_switch`` subsample.
    n_jobs : int or None, default 1
        Threads of the tree engine or of the row blocks of ensemble predictions
        (:func:`xaipipe.explain.reliance.model_reliance`); the result does not
        depend on them.
    reliance_rows : int or None, default None
        The large-data policy (``large_data.reliance_rows`` where the test split has more than
        ``large_data.min_rows`` rows; :class:`xaipipe.config.LargeDataSettings`): each repeat
        of ``permutation`` / ``e_divide`` on its own seeded subsample of this many rows
        (``RelianceOptions(subsample_rows=)``; ``n_samples`` records it, ``*_se`` holds
        the subsample error too); and ``e_switch`` on its ``e_switch_max_rows`` subsample gets
        the ``*_se`` of that subsample against the all-rows value
        (``RelianceOptions(subsample_se=True)``, from the losses the estimate is made of;
        without the policy they are NaN). None: every row (unchanged).

    Returns
    -------
    DataFrame
        The columns of :func:`xaipipe.explain.reliance.model_reliance` without
        ``member``, one row per loss × estimator × variable. ``e_divide``'s ``mr_difference_se``
        / ``mr_ratio_se`` are the exact Monte-Carlo SE of the mean of its ``R`` halvings
        (``sqrt(Var(one halving) / R)``, the ratio's over ``e_orig``), the variance computed from the
        switched losses of the ``e_switch`` estimate (no further model calls; exact when
        ``e_switch`` takes every row, an unbiased U-statistic estimate from its
        ``e_switch_max_rows`` subsample otherwise; :func:`xaipipe.explain.reliance.matching_draw_variance`),
        not ``sd / sqrt(R)`` of the ``R`` halvings, which is itself noisy and too small exactly when
        a skewed variable's rare large halvings are missing (issue 43: Diabetes OLS ``AGE``). Under
        the large-data policy (``reliance_rows``), or with more than :data:`EXACT_SE_MAX_ROWS`
        ``e_switch`` rows, it stays ``sd / sqrt(R)`` over the independent repeats; ``*_std`` is
        always the SD across the ``R`` halvings.
    """
    features = features_from_groups(list(feature_names), feature_groups)
    # e_divide's SE: the exact Monte-Carlo SE from e_switch's switched losses (module _mc_error), not
    # sd / sqrt(R), unless the large-data policy draws each halving on its own subsample
    exact_se = "e_divide" in estimators and reliance_rows is None
    out = []
    for loss in losses:
        matrix_cap = _matrix_cap(model, len(y), loss, e_switch_max_rows) if exact_se else False
        results = {}
        for estimator in estimators:
            kwargs, options = {}, {"feature_names": list(feature_names)}
            if estimator in ("permutation", "e_divide"):  # random permutations / halvings
                kwargs["n_repeats"] = n_repeats
                kwargs["random_state"] = random_state
                if reliance_rows is not None:  # large-data policy (off: the call is unchanged)
                    options["subsample_rows"] = reliance_rows
            if estimator == "e_switch":
                kwargs, options = _e_switch_options(e_switch_max_rows, random_state, reliance_rows, matrix_cap, options)
            results[estimator] = model_reliance(
                model,
                X,
                y,
                features=features,
                estimator=estimator,
                loss=loss,
                n_jobs=n_jobs,
                options=RelianceOptions(**options),
                **kwargs,
            )
        frames = {name: result.to_frame().drop(columns=["member"]) for name, result in results.items()}
        if matrix_cap is not False:
            switch = results.get("e_switch")
            if switch is None:  # e_switch not reported: its switched losses all the same
                kwargs, options = _e_switch_options(
                    e_switch_max_rows, random_state, None, matrix_cap, {"feature_names": list(feature_names)}
                )
                switch = model_reliance(
                    model, X, y, features=features, estimator="e_switch", loss=loss, n_jobs=n_jobs,
                    options=RelianceOptions(**options), **kwargs,
                )  # fmt: skip
            frames["e_divide"] = _with_exact_se(frames["e_divide"], results["e_divide"], switch)
        out.extend(frames[name] for name in estimators)
    return pd.concat(out, ignore_index=True)


#: the most rows of the switched-loss matrix kept for the e_divide SE (8 G n² bytes: 350 MB for 11
#: variables at 2 000 rows); beyond, the SE stays sd / sqrt(R)
EXACT_SE_MAX_ROWS = 2000


def _matrix_cap(model, n: int, loss: str, e_switch_max_rows: int | None):
    """The ``max_samples`` of the e_switch call whose switched losses give the e_divide SE, or False.

    The rows of ``e_switch``: its ``e_switch_max_rows`` subsample, or all ``n``. A linear model under
    squared error (the closed form: its estimate takes all rows, and ``n²`` predictions cost little)
    gets the matrix on all rows (``None``: the estimate is the same either way) when they fit
    :data:`EXACT_SE_MAX_ROWS`. False: more rows than that (the SE stays ``sd / sqrt(R)``).
    """
    linear = resolve_loss(loss)[1] is squared_error
    if linear:
        try:
            linear_coefficients(model)
        except TypeError:
            linear = False
    if (linear or e_switch_max_rows is None) and n <= EXACT_SE_MAX_ROWS:
        return None
    cap = min(n, e_switch_max_rows or n)
    return e_switch_max_rows if cap <= EXACT_SE_MAX_ROWS else False


def _e_switch_options(e_switch_max_rows, random_state, reliance_rows, matrix_cap=False, options=None):
    """The e_switch call's keywords and :class:`RelianceOptions` fields (added to ``options``); with
    ``matrix_cap`` other than False, its switched losses are kept (``switch_matrix``) on the rows
    ``max_samples = matrix_cap`` gives."""
    kwargs, options = {}, dict(options or {})
    cap = e_switch_max_rows if matrix_cap is False else matrix_cap
    if cap is not None:
        # model_reliance draws the subsample (not where the linear closed form applies)
        options["max_samples"] = cap
        kwargs["random_state"] = random_state
        # large-data policy: the subsample's SE, from the losses the estimate is made of
        options["subsample_se"] = reliance_rows is not None
    if matrix_cap is not False:
        options["switch_matrix"] = True
    return kwargs, options


def _with_exact_se(frame: pd.DataFrame, e_divide, e_switch) -> pd.DataFrame:
    """``frame`` (e_divide's rows) with ``mr_difference_se`` / ``mr_ratio_se`` replaced by the exact
    Monte-Carlo SE of the mean of its ``R`` halvings of all ``n`` rows: the draw variance from
    ``e_switch``'s switched-loss matrix (exact on all rows, an unbiased estimate from its subsample;
    :func:`xaipipe.explain.reliance.matching_draw_variance`) over ``R``; the ratio's over ``e_orig``
    (every halving shares it)."""
    R, n = e_divide.e_switch.shape[2], e_divide.n_samples
    var = matching_draw_variance(e_switch.switch_losses, n)  # (m, G)
    se = np.sqrt(var / R)
    out = frame.copy()
    if R < 2:  # one halving: as before, no SE
        return out
    out["mr_difference_se"] = se.ravel()
    with np.errstate(divide="ignore", invalid="ignore"):
        out["mr_ratio_se"] = (se / e_divide.e_orig[:, None]).ravel()
    return out


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
    its members' values; the mean absolute value is taken after summing. A table
    with a ``class`` column (a multiclass model, one output per class) gives the
    sum over the classes of each class's mean |SHAP| (the total length of shap's
    stacked multi-output bar).
    """
    groups = dict(feature_groups or {})
    member_of = {m: g for g, members in groups.items() for m in members}
    frame = shap_long.assign(variable=shap_long["feature"].map(lambda f: member_of.get(f, f)))
    if "class" in frame.columns:
        per_row = frame.groupby(["class", "variable", "row"], sort=False)["shap_value"].sum()
        per_class = per_row.abs().groupby(level=[0, 1], sort=False).mean()
        total = per_class.groupby(level=1, sort=False).sum()
        return pd.DataFrame({"feature": total.index, "mean_abs_shap": total.to_numpy()})
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


#: Leading columns of ``model_reliance.csv``.
RELIANCE_FIRST = ["dataset", "model", "feature", "estimator", "mr_ratio", "mr_difference"]
#: Importance measures compared by :func:`ranking_tables`.
RANKING_MEASURES = ["model_reliance", "mean_abs_shap", "split_gain"]


class RelianceTables(NamedTuple):
    """The outputs of the ``model_reliance`` rule (:func:`reliance_tables`); a named pair, so that
    ``reliance, split_gain = reliance_tables(...)`` unpacks it.

    Attributes
    ----------
    reliance : DataFrame
        ``model_reliance.csv``: :func:`reliance_report` with ``dataset`` and ``model`` (the family)
        first, then :data:`RELIANCE_FIRST` (the rule appends
        :func:`~xaipipe.explain.reliance.dependent_reliance_rows`).
    split_gain : DataFrame
        ``split_gain.csv``: :func:`split_gain_or_nan` with the same ids.
    """

    reliance: pd.DataFrame
    split_gain: pd.DataFrame

    def to_frames(self) -> dict[str, pd.DataFrame]:
        """The tables by the rule's output names (``reliance``, ``split_gain``)."""
        return {"reliance": self.reliance, "split_gain": self.split_gain}


def reliance_tables(model, data, settings: RelianceSettings, *, family: str, n_jobs: int | None = 1) -> RelianceTables:
    """The ``model_reliance`` rule: the MR report and the split gain of one fitted model.

    Parameters
    ----------
    model : fitted estimator
        A forest store (:func:`xaipipe.io.open_model`): the MR engine walks its blocks of trees.
    data : PreparedData
        The dataset's split (:func:`xaipipe.data.prepare.load_prepared`; any object with these
        attributes): ``X_test``, ``y_test`` (the MR rows), ``features``, ``feature_groups``,
        ``dataset`` (the ``dataset`` column).
    settings : RelianceSettings
        :meth:`xaipipe.config.RelianceSettings.from_config` (config section
        ``explain.reliance``): ``estimators``, ``losses``, ``n_repeats``,
        ``e_switch_max_rows``, ``seed`` (:func:`reliance_report`'s ``estimators``, ``losses``,
        ``n_repeats``, ``e_switch_max_rows``, ``random_state``) and the large-data group ``large_data``
        (:meth:`~xaipipe.config.RelianceSettings.large_data_rows`: ``large_data.reliance_rows``
        above ``large_data.min_rows`` test rows, :func:`reliance_report`'s ``reliance_rows``; None:
        off).
    family : str
        The ``model`` column.
    n_jobs : int or None, default 1
        Worker processes; results do not depend on it.

    Returns
    -------
    RelianceTables
        ``reliance``: :func:`reliance_report` with ``dataset`` and ``model`` (the family) first,
        then :data:`RELIANCE_FIRST`; ``split_gain``:
        :func:`split_gain_or_nan` with the same ids.
    """
    reliance_rows = settings.large_data_rows(len(data.y_test))
    table = reliance_report(
        model,
        data.X_test,
        data.y_test,
        feature_names=data.features,
        feature_groups=importance_groups(data),  # one-hot and user groups: one variable each
        estimators=settings.estimators,
        losses=settings.losses,
        n_repeats=settings.n_repeats,
        e_switch_max_rows=settings.e_switch_max_rows,
        random_state=settings.seed,
        n_jobs=n_jobs,
        reliance_rows=reliance_rows,
    )
    ids = {"dataset": data.dataset, "model": family}
    table = with_ids(table, **ids)
    table = table[RELIANCE_FIRST + [c for c in table.columns if c not in RELIANCE_FIRST]]
    gain = with_ids(split_gain_or_nan(model, data.features, importance_groups(data)), **ids)
    return RelianceTables(table, gain)


def ranking_tables(
    reliance: Sequence[pd.DataFrame],
    split_gain: Sequence[pd.DataFrame],
    shap: Sequence[pd.DataFrame],
    *,
    dataset: str,
    feature_groups: Mapping[str, Sequence[str]] | None = None,
    estimator: str = "permutation",
    loss: str = "squared_error",
    quantity: str = "mr_difference",
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The ``ranking_agreement`` rule: variable rankings per model and their agreement.

    Parameters
    ----------
    reliance, split_gain, shap : sequences of DataFrames, one per family (same order)
        ``model_reliance.csv``, ``split_gain.csv`` and ``shap_values.csv`` of each model.
    dataset : str
    feature_groups : mapping, optional
        One-hot groups: a group's per-row SHAP value is the sum of its columns'.
    estimator, loss, quantity : which MR ranks the variables.

    Returns
    -------
    (importances, agreement)
        Per model and variable: ``model_reliance``, ``split_gain``, ``mean_abs_shap``
        and their ranks (1 = largest; ties share the minimum); per model and pair
        of measures: :func:`ranking_agreement`.
    """
    frames, agreements = [], []
    for rel, gain, shap_long in zip(reliance, split_gain, shap):
        rel = rel[(rel["estimator"] == estimator) & (rel["loss"] == loss)]
        model = rel["model"].iloc[0]
        imp = rel[["feature", quantity]].rename(columns={quantity: "model_reliance"})
        imp = imp.merge(gain[["feature", "split_gain"]], on="feature", how="left")
        imp = imp.merge(grouped_mean_abs_shap(shap_long, feature_groups), on="feature", how="left")
        for m in RANKING_MEASURES:
            imp[f"{m}_rank"] = imp[m].rank(ascending=False, method="min")
        frames.append(with_ids(imp, dataset=dataset, model=model))
        agreements.append(with_ids(ranking_agreement(imp, RANKING_MEASURES), dataset=dataset, model=model))
    return pd.concat(frames, ignore_index=True), pd.concat(agreements, ignore_index=True)
