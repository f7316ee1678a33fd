"""The large-data tree sample of a forest's TreeSHAP (``large_data.shap_trees``; docs/large_data.md).

A random forest's (or extra trees') output is the mean of its ``T`` trees' outputs, and path-dependent
TreeSHAP is additive over trees (Lundberg et al. 2020, Nat. Mach. Intell. 2:56-67; the chunked exact
path of :func:`~xaipipe.explain.shapley.shap_values` rests on the same identity), so the forest's SHAP
values are the mean over trees of each tree's values:

.. math:: \\phi_j(x) = \\frac{1}{T} \\sum_{t=1}^{T} \\phi_j^{(t)}(x).

A simple random sample of ``k`` of the ``T`` trees (without replacement, seeded) gives the unbiased
estimate :math:`\\hat\\phi_j(x) = \\frac1k \\sum_{t \\in S} \\phi_j^{(t)}(x)`, at ``k / T`` of the cost
(TreeSHAP costs rows x trees x leaves x depth², and a fully grown tree's leaves grow with the training
rows). Its Monte-Carlo error is measured by splitting the sample into ``G`` = :data:`TREE_GROUPS` groups
of trees (random groups: the sample is random and the trees of a forest are exchangeable) and, for
each table statistic ``theta`` (mean |SHAP| and mean SHAP of a variable over the explained rows), the
delete-a-group jackknife (Efron & Tibshirani 1993, *An Introduction to the Bootstrap*, §11.5; Kott
2001, the delete-a-group jackknife):

.. math:: SE_J = \\sqrt{\\frac{G - 1}{G} \\sum_g (\\hat\\theta_{(-g)} - \\bar\\theta_{(\\cdot)})^2}
          \\; \\sqrt{1 - k / T},

``theta_(-g)`` the statistic of the values without group ``g``'s trees, and the finite-population
correction for sampling trees without replacement. ``mean SHAP`` is linear in the values (the jackknife
is then the usual between-group SE); ``mean |SHAP|`` is not, and ``|.|`` of a noisy value is biased
upward by at most the value's own tree-sampling SD where its sign is uncertain (small for the important
variables; the jackknife does not remove that bias).
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from ...models.families import final_estimator
from ._algorithms import _prefix_kind, _rng
from ._groups import group_shap_result
from ._result import ShapResult, global_importance

__all__ = ["TREE_GROUPS", "forest_n_trees", "forest_tree_sample", "tree_sample_se", "tree_sample_shap"]

#: Groups of sampled trees for the jackknife SE (at most ``k``).
TREE_GROUPS = 10

#: ``_rng`` stream of the tree sample (1: rows, 2: background; independent of both).
_TREE_STREAM = 3


def forest_n_trees(model) -> int | None:
    """Trees of a random forest / extra trees (``"forest"`` prefix kind, possibly the final step of a
    pipeline); None for any other model."""
    if _prefix_kind(model) != "forest":
        return None
    return len(final_estimator(model).estimators_)


def forest_tree_sample(n_trees: int, k: int, random_state: int) -> np.ndarray:
    """Positions of ``k`` of ``n_trees`` trees, a seeded simple random sample in ascending order.

    Raises
    ------
    ValueError
        ``k`` not in ``[2, n_trees)``.
    """
    if not 2 <= int(k) < int(n_trees):
        raise ValueError(f"a tree sample needs 2 <= k < n_trees, got k={k}, n_trees={n_trees}")
    rng = _rng(random_state, _TREE_STREAM)
    return np.sort(rng.choice(int(n_trees), size=int(k), replace=False))


def _sub_model(model, trees: Sequence[int]):
    """Shallow copy of the forest (or of the pipeline around it) holding only ``trees`` (positions,
    ascending): its output is the mean of those trees' outputs. A forest store's trees
    (:class:`xaipipe.models.forest_store.LazyTrees`) are read block by block in that order."""
    from sklearn.pipeline import Pipeline

    forest = final_estimator(model)
    sub = copy.copy(forest)
    sub.estimators_ = [forest.estimators_[int(t)] for t in trees]
    sub.n_estimators = len(trees)
    if isinstance(model, Pipeline):
        pipe = copy.copy(model)
        pipe.steps = [*model.steps[:-1], (model.steps[-1][0], sub)]
        return pipe
    return sub


def tree_sample_shap(
    shap_values: Callable[..., ShapResult], model, X, k: int, *, random_state: int, **settings
) -> tuple[ShapResult, list[tuple[float, np.ndarray]]]:
    """SHAP values of a forest estimated from a random sample of ``k`` of its trees (module docstring).

    Parameters
    ----------
    shap_values : callable
        :func:`xaipipe.explain.shapley.shap_values` (passed in to avoid an import cycle).
    model : fitted random forest / extra trees (or a pipeline ending in one)
    X : array-like of shape (n, p)
    k : int
        Trees explained, ``2 <= k < T``.
    random_state : int
        Seeds the tree sample (its own stream) and, as in ``shap_values``, the row subsample.
    **settings
        Passed to ``shap_values`` (``max_rows``, ``class_index``, ...): every group is explained on the
        same rows.

    Returns
    -------
    result : ShapResult
        The estimate: values, base values and ``model_output`` the weighted mean of the groups'
        (``model_output`` is the sampled trees' mean prediction, so local accuracy holds exactly);
        ``details`` records ``n_trees`` (T), ``trees_explained`` (k), ``tree_groups`` (G),
        ``tree_sample`` (the positions) and the first group's other details.
    groups : list of (weight, values)
        Each group's share of the ``k`` trees and its values, shape (n, p), for :func:`tree_sample_se`.
    """
    n_trees = forest_n_trees(model)
    if n_trees is None:
        raise ValueError("a tree sample needs a random forest or extra trees")
    trees = forest_tree_sample(n_trees, k, random_state)
    parts = np.array_split(trees, min(TREE_GROUPS, len(trees)))
    results = [shap_values(_sub_model(model, part), X, random_state=random_state, **settings) for part in parts]
    weights = [len(part) / len(trees) for part in parts]
    first = results[0]
    details = {
        **first.details,
        "n_trees": int(n_trees),
        "trees_explained": len(trees),
        "tree_groups": len(parts),
        "tree_sample": trees.tolist(),
    }
    details.pop("n_chunks", None)
    combined = dataclasses.replace(
        first,
        values=sum(w * r.values for w, r in zip(weights, results)),
        base_values=sum(w * r.base_values for w, r in zip(weights, results)),
        model_output=sum(w * r.model_output for w, r in zip(weights, results)),
        details=details,
    )
    return combined, [(w, r.values) for w, r in zip(weights, results)]


def tree_sample_se(
    result: ShapResult, groups: list[tuple[float, np.ndarray]], feature_groups: Mapping | None = None
) -> pd.DataFrame:
    """Delete-a-group jackknife SE of ``mean_abs_shap`` and ``mean_shap`` under the tree sample.

    Parameters
    ----------
    result : ShapResult
        :func:`tree_sample_shap`'s estimate (per column, before grouping).
    groups : list of (weight, values)
        Its groups (weights summing to 1, values of shape (n, p)).
    feature_groups : mapping, optional
        One-hot groups: the statistics of each variable (:func:`group_shap_result`).

    Returns
    -------
    DataFrame
        ``feature``, ``mean_abs_shap_se_trees``, ``mean_shap_se_trees`` (module docstring: the
        jackknife over the ``G`` groups with the finite-population correction ``sqrt(1 - k / T)``).
    """
    n_trees = int(result.details["n_trees"])
    k = int(result.details["trees_explained"])
    g = len(groups)
    stats = []
    for w, values in groups:
        loo = (result.values - w * values) / (1.0 - w)  # the estimate without this group's trees
        imp = global_importance(group_shap_result(dataclasses.replace(result, values=loo), feature_groups))
        stats.append(imp.set_index("feature")[["mean_abs_shap", "mean_shap"]])
    names = stats[0].index
    cube = np.stack([s.loc[names].to_numpy() for s in stats])  # (G, q, 2)
    se = np.sqrt((g - 1) / g * ((cube - cube.mean(axis=0)) ** 2).sum(axis=0)) * np.sqrt(1.0 - k / n_trees)
    return pd.DataFrame({"feature": names, "mean_abs_shap_se_trees": se[:, 0], "mean_shap_se_trees": se[:, 1]})
