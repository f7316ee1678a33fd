"""The summary of the SHAP interaction values already computed, and the ``shap_interaction_summary``
rule's tables (:func:`shap_interaction_tables`).

SHAP interaction values (Lundberg et al. 2020, Nat. Mach. Intell. 2, 56-67, "SHAP interaction
values")
-----------------------------------------------------------------------------------------
:math:`\\Phi_{i,jk}` (row ``i``, features ``j \\ne k``) splits the pairwise interaction equally,
:math:`\\Phi_{i,jk} = \\Phi_{i,kj}`, so the whole interaction of the pair in row ``i`` is
:math:`2\\Phi_{i,jk}`; :math:`\\Phi_{i,jj}` is the main effect. :func:`shap_interaction_summary`
gives the matrix of :math:`\\frac1n\\sum_i |\\Phi_{i,jk}|` (the shap library's interaction summary) and
a table of the pairs ranked by it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = ["ShapInteractionSummary", "shap_interaction_summary", "shap_interaction_tables"]


@dataclass(frozen=True)
class ShapInteractionSummary:
    """Mean absolute SHAP interaction values.

    Attributes
    ----------
    matrix : DataFrame of shape (p, p)
        ``matrix.loc[j, k]`` = :math:`\\frac1n \\sum_i |\\Phi_{i,jk}|` (symmetric; the diagonal holds
        the main effects :math:`\\frac1n \\sum_i |\\Phi_{i,jj}|`), in the units of the SHAP output.
    signed : DataFrame of shape (p, p)
        :math:`\\frac1n \\sum_i \\Phi_{i,jk}`.
    n_rows : int
    """

    matrix: pd.DataFrame
    signed: pd.DataFrame
    n_rows: int

    def to_frame(self) -> pd.DataFrame:
        """One row per pair ``j < k``, strongest first: ``feature_1``, ``feature_2``,
        ``mean_abs_interaction`` (:math:`\\frac1n\\sum_i|\\Phi_{i,jk}|`, shap's convention: half the
        pair's interaction), ``mean_abs_pair`` (:math:`\\frac1n\\sum_i|2\\Phi_{i,jk}|`, the whole),
        ``mean_interaction`` (signed), ``share`` (``mean_abs_interaction`` over the sum of the
        matrix's off-diagonal upper triangle), ``rank`` (1 = strongest), ``n_rows``."""
        names = list(self.matrix.index)
        M, S = self.matrix.to_numpy(), self.signed.to_numpy()
        iu = np.triu_indices(len(names), k=1)
        vals = M[iu]
        order = np.argsort(-vals, kind="stable")
        total = vals.sum()
        return pd.DataFrame(
            {
                "feature_1": [names[iu[0][q]] for q in order],
                "feature_2": [names[iu[1][q]] for q in order],
                "mean_abs_interaction": vals[order],
                "mean_abs_pair": 2.0 * vals[order],
                "mean_interaction": S[iu][order],
                "share": vals[order] / total if total > 0 else np.full(order.size, np.nan),
                "rank": np.arange(1, order.size + 1),
                "n_rows": self.n_rows,
            }
        )

    def main_effects(self) -> pd.Series:
        """The diagonal: mean |main effect| per feature."""
        return pd.Series(np.diag(self.matrix.to_numpy()), index=self.matrix.index, name="mean_abs_main_effect")


def shap_interaction_summary(values, feature_names: Sequence[str] | None = None) -> ShapInteractionSummary:
    """Matrix and table of mean |SHAP interaction value| per pair of features.

    Parameters
    ----------
    values : ShapResult, ndarray of shape (n, p, p) or DataFrame
        A :class:`~xaipipe.explain.shapley.ShapResult` with interaction values, the array itself, or
        the long table of :func:`~xaipipe.explain.shapley.interaction_frame` (the pipeline's
        ``shap_interactions.csv``: ``row``, ``feature_1``, ``feature_2``, ``interaction_value``; any
        extra identifier columns are ignored).
    feature_names : sequence of str, optional
        For an array (default ``x0, x1, ...``).

    Returns
    -------
    ShapInteractionSummary

    Raises
    ------
    ValueError
        A result without interaction values, an array that is not (n, p, p), a table without the
        columns or with a missing pair.
    """
    if isinstance(values, pd.DataFrame):
        need = {"row", "feature_1", "feature_2", "interaction_value"}
        if not need <= set(values.columns):
            raise ValueError(f"the interaction table needs columns {sorted(need)}")
        if values.empty:
            raise ValueError("the interaction table has no rows (no interaction values were computed)")
        names = list(pd.unique(values["feature_1"].astype(str)))
        p = len(names)
        rows = pd.unique(values["row"])
        cube = (
            values.assign(
                _r=pd.Categorical(values["row"], categories=rows),
                _a=pd.Categorical(values["feature_1"].astype(str), categories=names),
                _b=pd.Categorical(values["feature_2"].astype(str), categories=names),
            )
            .sort_values(["_r", "_a", "_b"])["interaction_value"]
            .to_numpy(dtype=np.float64)
        )
        if cube.size != rows.size * p * p:
            raise ValueError(f"the interaction table must hold every pair of {p} features for each of {rows.size} rows")
        iv = cube.reshape(rows.size, p, p)
    else:
        iv = getattr(values, "interaction_values", values)
        if iv is None:
            raise ValueError("the SHAP result has no interaction values (computed with interactions=False)")
        iv = np.asarray(iv, dtype=np.float64)
        if iv.ndim != 3 or iv.shape[1] != iv.shape[2]:
            raise ValueError(f"interaction values must have shape (n, p, p), got {iv.shape}")
        names = list(getattr(values, "feature_names", None) or feature_names or [f"x{j}" for j in range(iv.shape[1])])
        if len(names) != iv.shape[1]:
            raise ValueError(f"{len(names)} feature names for {iv.shape[1]} features")
    mean_abs = np.abs(iv).mean(axis=0)
    mean_abs = (mean_abs + mean_abs.T) / 2.0  # symmetric up to rounding already
    signed = iv.mean(axis=0)
    signed = (signed + signed.T) / 2.0
    return ShapInteractionSummary(
        matrix=pd.DataFrame(mean_abs, index=names, columns=names),
        signed=pd.DataFrame(signed, index=names, columns=names),
        n_rows=int(iv.shape[0]),
    )


def shap_interaction_tables(interactions: pd.DataFrame, figure_class=None):
    """The SHAP interaction summary of one model from its long ``shap_interactions.csv``.

    Returns
    -------
    (pairs, matrix, summary)
        ``pairs``: :meth:`~xaipipe.explain.shapley.ShapInteractionSummary.to_frame` (one row per
        pair, strongest first); ``matrix``: one row per ordered pair ``feature_1``, ``feature_2``
        (diagonal included: main effects), ``mean_abs_interaction``, ``mean_interaction``;
        ``summary``: the :class:`~xaipipe.explain.shapley.ShapInteractionSummary` (for the
        figures). Tables without rows and ``summary = None`` when the model has no interaction
        values (an empty table). A multiclass model's table (a ``class`` column, one block per
        class, as :func:`~xaipipe.explain.shapley.shap_tables` writes it): both tables per class
        with ``class`` as their first column, in the table's class order, and ``summary`` that of
        ``figure_class`` (config key ``explain.figure_class``; None: the first class).

    Raises
    ------
    ValueError
        ``figure_class`` is not one of the table's classes (the message lists them).
    """
    pair_cols = ["feature_1", "feature_2", "mean_abs_interaction", "mean_abs_pair", "mean_interaction", "share"]
    pair_cols += ["rank", "n_rows"]
    matrix_cols = ["feature_1", "feature_2", "mean_abs_interaction", "mean_interaction", "n_rows"]
    if interactions is None or interactions.empty:
        return pd.DataFrame(columns=pair_cols), pd.DataFrame(columns=matrix_cols), None
    if "class" in interactions.columns:  # multiclass: one summary per class
        labels = [str(c) for c in pd.unique(interactions["class"])]
        chosen = labels[0] if figure_class is None else str(figure_class)
        if chosen not in labels:
            raise ValueError(f"config key explain.figure_class: {figure_class!r} is not a class; classes are {labels}")
        key = interactions["class"].astype(str)
        pairs, matrices, summary = [], [], None
        for label in labels:
            p_k, m_k, s_k = shap_interaction_tables(interactions[key == label].drop(columns="class"))
            pairs.append(p_k.assign(**{"class": label})[["class", *pair_cols]])
            matrices.append(m_k.assign(**{"class": label})[["class", *matrix_cols]])
            summary = s_k if label == chosen else summary
        return pd.concat(pairs, ignore_index=True), pd.concat(matrices, ignore_index=True), summary
    s = shap_interaction_summary(interactions)
    names = list(s.matrix.index)
    a, b = np.meshgrid(np.arange(len(names)), np.arange(len(names)), indexing="ij")
    matrix = pd.DataFrame(
        {
            "feature_1": [names[i] for i in a.ravel()],
            "feature_2": [names[j] for j in b.ravel()],
            "mean_abs_interaction": s.matrix.to_numpy().ravel(),
            "mean_interaction": s.signed.to_numpy().ravel(),
            "n_rows": s.n_rows,
        }
    )
    return s.to_frame()[pair_cols], matrix, s
