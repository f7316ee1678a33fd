"""Regional effects: the feature space split where a variable's ICE curves fan out most.

Where the ICE curves of a variable :math:`x_S` are not parallel (d-ICE spread, H² > 0), its PD averages
effects of opposite shape. A *regional* PD splits the rows by conditions on the other variables so
that within each region the curves are close to parallel, and draws one PD per region (Herbinger,
Bischl & Casalicchio 2022, "REPID: regional effect plots with implicit interaction detection",
AISTATS, PMLR 151; Herbinger et al. 2024, "Decomposing global feature effects based on feature
interactions", JMLR 25(381); Gkolemis et al., ``effector``, the regional PD / RHALE of the
package).

Definitions (``effector`` 0.6.0's ``PDP`` and ``find_regions``, which compute them):

* *heterogeneity* of :math:`x_S` on a set of rows: the root mean square over the rows' own values of
  :math:`x_S` of the variance of the centred ICE curves around their mean (``heter_score``: "a
  typical row's effect deviates from the mean effect by about this much", output units);
* *regions*: a greedy binary tree of conditions ``x_j < t`` / ``x_j ≥ t`` (levels of a categorical
  variable) on the other variables, each split chosen to minimise the instance-weighted
  heterogeneity of the children (``finder="best"``; at most two levels, effector's default);
* *heterogeneity explained* by the split into leaves: :math:`1 - \\sum_\\ell w_\\ell H_\\ell / H_{root}`
  (:math:`w_\\ell` the leaves' shares of the rows).

An additive model (:math:`f = g(x_S) + h(x_C)`) has parallel ICE curves: heterogeneity 0 and no split
(tested); a model :math:`x_1 \\cdot 1[x_2 > 0.5]` splits on :math:`x_2` at 0.5 and leaves no
heterogeneity in the leaves (tested, brute force); on the simulated Friedman #1 table the split of
:math:`x_1` is on :math:`x_2` and vice versa, the DGP's :math:`10 \\sin(\\pi x_1 x_2)` interaction.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import pandas as pd

from ...models.output import model_output
from ...validation import check_int, check_matrix

__all__ = ["REGION_COLUMNS", "RegionalEffects", "regional_effects", "regional_effects_tables"]

#: Columns of :attr:`RegionalEffects.regions` (also when no variable is split).
REGION_COLUMNS = (
    "feature",
    "region",
    "level",
    "parent",
    "rule",
    "split_feature",
    "lower",
    "upper",
    "n_rows",
    "weight",
    "heterogeneity",
    "is_leaf",
    "explained",
)
CURVE_COLUMNS = ("feature", "region", "grid_index", "x", "pd")
#: A variable with at most this many distinct values is ordinal (effector's ``cat_limit``): its
#: regions' PD is evaluated at its observed levels.
ORDINAL_MAX_LEVELS = 10


class RegionalEffects(NamedTuple):
    """The tables of :func:`regional_effects` (the ``regional_effects`` rule's outputs).

    Attributes
    ----------
    heterogeneity : DataFrame
        One row per variable: ``feature``, ``heterogeneity`` (output units), ``rank`` (1 = largest),
        ``split`` (whether its regions were searched: the ``top_k`` with a heterogeneity above
        rounding, ``1e-9`` of the output's standard deviation).
    regions : DataFrame
        One row per region of the split variables: ``feature``, ``region`` (0 = all rows), ``level``,
        ``parent``, ``rule`` (the conditions, effector's text), ``split_feature`` and ``lower`` /
        ``upper`` (the condition on the split variable that made this region from its parent; NaN:
        unbounded), ``n_rows``, ``weight`` (share of the rows), ``heterogeneity``, ``is_leaf``,
        ``explained`` (the feature's heterogeneity explained by its leaves, on every row).
    curves : DataFrame
        The PD of each region of the split variables: ``feature``, ``region``, ``grid_index``, ``x``,
        ``pd`` (effector's centred mean effect, output units).
    """

    heterogeneity: pd.DataFrame
    regions: pd.DataFrame
    curves: pd.DataFrame

    def to_frames(self) -> dict[str, pd.DataFrame]:
        """The tables by the rule's output names (``heterogeneity``, ``regions``, ``curves``)."""
        return {"heterogeneity": self.heterogeneity, "regions": self.regions, "curves": self.curves}


def _interval(rule, parent_rule, names: Sequence[str]) -> tuple[str, float, float]:
    """The split variable and its bounds that the region's rule adds to its parent's."""
    mine, theirs = dict(rule.conditions), dict(parent_rule.conditions) if parent_rule is not None else {}
    for j, cond in mine.items():
        if theirs.get(j) != cond:
            lo, hi = getattr(cond, "lo", -math.inf), getattr(cond, "hi", math.inf)
            return names[int(j)], float(lo) if np.isfinite(lo) else math.nan, float(hi) if np.isfinite(hi) else math.nan
    return "", math.nan, math.nan


def regional_effects(
    model,
    X,
    *,
    feature_names: Sequence[str],
    task: str = "regression",
    top_k: int = 2,
    n_instances: int = 500,
    resolution: int = 30,
    seed: int = 0,
) -> RegionalEffects:
    """Regional PD of the variables whose ICE curves are most heterogeneous (``effector``'s regional PD).

    Parameters
    ----------
    model : fitted estimator
        A regressor, or a classifier (its probability of class 1 is explained).
    X : array-like of shape (n, p)
        The rows whose ICE curves are split (the pipeline: the test split), numeric.
    feature_names : sequence of str of length p
    task : {"regression", "classification"}
    top_k : int, default 2
        The variables of largest heterogeneity whose regions are searched.
    n_instances : int, default 500
        Rows effector draws (all when fewer).
    resolution : int, default 30
        Grid points of each region's PD (uniform over the variable's observed range; a variable of
        at most 10 values: its observed levels).
    seed : int, default 0
        effector's ``random_state`` (the drawn rows).

    Returns
    -------
    RegionalEffects

    Raises
    ------
    ValueError
        Mismatched ``feature_names``, non-numeric or non-finite ``X``, fewer than 2 rows, a bad
        ``top_k`` / ``n_instances`` / ``resolution``.
    """
    import effector  # a heavy optional dependency: imported by the rule that needs it

    A = check_matrix(X, "X")
    names = [str(n) for n in feature_names]
    if A.shape[1] != len(names):
        raise ValueError(f"X has {A.shape[1]} columns but {len(names)} feature names")
    if A.shape[0] < 2:
        raise ValueError(f"regional effects need at least 2 rows, got {A.shape[0]}")
    check_int(top_k, "top_k", minimum=1)
    check_int(n_instances, "n_instances", minimum=2)
    check_int(resolution, "resolution", minimum=2)
    f = model_output(model, "proba" if task == "classification" else "predict")
    # effector's own heuristic, declared: a variable of at most 10 values (a 0/1 column of a one-hot
    # group, a count) is ordinal, evaluated at its observed levels only
    levels = [np.unique(A[:, j]) for j in range(A.shape[1])]
    types = ["ordinal" if v.size <= ORDINAL_MAX_LEVELS else "continuous" for v in levels]
    pdp = effector.PDP(
        A,
        lambda Z: np.asarray(f(Z), dtype=float),
        nof_instances=min(int(n_instances), A.shape[0]),
        schema={"feature_names": names, "feature_types": types},
        random_state=int(seed),
    )
    heter = np.array([float(pdp.heter_score(j)) for j in range(len(names))])
    # parallel ICE curves leave rounding only (an additive model: ~1e-15 of the output's scale): 0
    scale = max(1.0, float(np.std(np.asarray(f(A[: min(A.shape[0], 2000)]), dtype=float))))
    heter[heter <= 1e-9 * scale] = 0.0
    order = np.argsort(-heter, kind="stable")
    rank = np.empty(len(names), dtype=int)
    rank[order] = np.arange(1, len(names) + 1)
    chosen = [int(j) for j in order[: int(top_k)] if heter[j] > 0]  # no curve fans out: nothing to split
    split = np.zeros(len(names), dtype=bool)
    split[chosen] = True
    heterogeneity = pd.DataFrame({"feature": names, "heterogeneity": heter, "rank": rank, "split": split})
    regions, curves = [], []
    for j in chosen:
        part = pdp.find_regions(j)
        by_idx = {r.idx: r for r in part.regions}
        leaves = {r.idx for r in part.leaves}
        root = by_idx[0].heterogeneity
        leaf_h = sum(by_idx[i].weight * by_idx[i].heterogeneity for i in leaves)
        explained = 1.0 - leaf_h / root if root > 0 else math.nan
        if types[j] == "continuous":
            xs = np.linspace(float(levels[j][0]), float(levels[j][-1]), int(resolution))
        else:
            xs = levels[j]
        for r in part.regions:
            parent = by_idx.get(r.parent_idx) if r.parent_idx is not None else None
            split, lo, hi = _interval(r.rule, parent.rule if parent is not None else None, names)
            regions.append(
                {
                    "feature": names[j],
                    "region": int(r.idx),
                    "level": int(r.level),
                    "parent": -1 if r.parent_idx is None else int(r.parent_idx),
                    "rule": r.rule.format(feature_names=names) if r.idx else "",
                    "split_feature": split,
                    "lower": lo,
                    "upper": hi,
                    "n_rows": int(r.nof_instances),
                    "weight": float(r.weight),
                    "heterogeneity": float(r.heterogeneity),
                    "is_leaf": r.idx in leaves,
                    "explained": explained,
                }
            )
            values = np.asarray(part.eval(r.idx, xs), dtype=float)
            curves.append(
                pd.DataFrame(
                    {"feature": names[j], "region": int(r.idx), "grid_index": np.arange(xs.size), "x": xs, "pd": values}
                )
            )
    return RegionalEffects(
        heterogeneity=heterogeneity,
        regions=pd.DataFrame(regions, columns=list(REGION_COLUMNS)),
        curves=pd.concat(curves, ignore_index=True) if curves else pd.DataFrame(columns=list(CURVE_COLUMNS)),
    )


def regional_effects_tables(model, data, settings) -> RegionalEffects:
    """The ``regional_effects`` rule: :func:`regional_effects` of a fitted model on the test split.

    Parameters
    ----------
    model : fitted estimator
    data : PreparedData
        ``X_test``, ``features``, ``task``.
    settings : RegionalSettings
        ``top_k``, ``n_instances``, ``resolution``, ``seed`` (:class:`xaipipe.config.RegionalSettings`).

    Returns
    -------
    RegionalEffects
    """
    return regional_effects(
        model,
        data.X_test,
        feature_names=list(data.features),
        task=data.task,
        top_k=settings.top_k,
        n_instances=settings.n_instances,
        resolution=settings.resolution,
        seed=settings.seed,
    )
