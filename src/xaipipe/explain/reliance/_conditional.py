"""Model reliance under dependent features: conditional permutation within tree strata, and MR of
groups of correlated features (private; exported by :mod:`xaipipe.explain.reliance`).

Why
---
Marginal MR (Fisher et al. 2019, the ``permutation`` / ``e_divide`` / ``e_switch`` estimators)
gives row ``j`` the variable of another row whatever the rest of row ``j`` says. When the variable
is predictable from the others (Abalone's four weights, r > 0.9) the switched rows are rows that do
not occur, and MR measures the model's extrapolation as much as its reliance (Strobl, Boulesteix,
Kneib, Augustin & Zeileis 2008, BMC Bioinformatics 9:307; Hooker, Mentch & Zhou 2021, Stat. Comput.
31:82). Two answers are offered here.

Conditional permutation (``estimator = "conditional_permutation"``)
-------------------------------------------------------------------
Conditional-subgroup permutation feature importance, cs-PFI (Molnar, König, Bischl & Casalicchio
2023, "Model-agnostic feature importance and effects with dependent features: a conditional
subgroup approach", Data Min. Knowl. Disc. 38, 2903-2941; the idea of permuting within a grid of
the covariates is Strobl et al.'s 2008): a regression tree (scikit-learn
``DecisionTreeRegressor``, ``max_depth`` / ``min_samples_leaf``, squared error) is fitted on the
*training* rows to predict the variable of interest :math:`X_1` (a one-hot group: its columns,
jointly, as a multi-output tree) from the other columns :math:`X_2`. Its leaves are the subgroups:
within a leaf :math:`X_1` is roughly independent of :math:`X_2`. Each test row is dropped down the
tree, and repeat ``r`` permutes :math:`X_1` *within each leaf* (a uniform random permutation of
the leaf's test rows, independent across leaves and repeats). The switched loss of repeat ``r`` is
:math:`\\frac1n \\sum_j L\\{f, (y_j, X_{1,\\pi_r(j)}, X_{2,j})\\}` with :math:`\\pi_r(j)` in the leaf of
``j``; reported exactly like the ``permutation`` estimator (``e_switch`` = mean over repeats,
``mr_ratio`` = ``e_switch / e_orig``, ``mr_difference``, their standard deviation across repeats
and the Monte-Carlo SE ``sd / sqrt(R)``). It estimates the *conditional* reliance
:math:`E\\,L\\{f, (Y, \\tilde X_1, X_2)\\}` with :math:`\\tilde X_1 \\sim X_1 \\mid X_2` drawn
independently of :math:`Y` given :math:`X_2`: the loss a model would lose if :math:`X_1` carried
no information beyond what :math:`X_2` holds (conditional MR of Fisher et al. 2019 §8.1, where a
variable that is a function of the others has conditional MR 1). A leaf with one test row keeps
it in place (its :math:`X_1` is treated as determined by :math:`X_2`).

Correlation-grouped MR (``estimator = "grouped_<estimator>"``)
---------------------------------------------------------------
Features are clustered by the absolute Pearson correlation of their training columns: the
distance of two variables is :math:`1 - |r|` (a one-hot group is one variable; its distance to
another is the smallest over their columns), clusters are cut from scipy's hierarchical
clustering at distance :math:`1 - \\text{threshold}`; with the default single linkage these are
the connected components of the graph :math:`|r| \\ge \\text{threshold}`. Each cluster is permuted
*jointly* (one row permutation for all its columns), which keeps the dependence inside the
cluster and gives the reliance on the cluster as a whole (Gregorutti, Michel & Saint-Pierre 2015,
"Grouped variable importance with random forests", Stat. Comput. 27; Fisher et al. 2019 allow
:math:`X_1` to be any group of columns). It is :func:`model_reliance` with those groups.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

import numpy as np

from ...validation import check_int
from ._base import (
    RelianceOptions,
    RelianceResult,
    check_X,
    conditional_permutations,
    resolve_variables,
)

__all__ = [
    "CONDITIONAL_ESTIMATOR",
    "LINKAGES",
    "conditional_strata",
    "conditional_permutations",
    "conditional_model_reliance",
    "correlation_groups",
    "grouped_model_reliance",
]

#: ``estimator`` label of :func:`conditional_model_reliance`.
CONDITIONAL_ESTIMATOR = "conditional_permutation"
#: ``algorithm`` label of :func:`conditional_model_reliance` (``subsampled_`` before it under the policy).
ALGORITHM = "tree_strata_permutations"
#: ``linkage`` options of :func:`correlation_groups` (scipy.cluster.hierarchy methods).
LINKAGES = ("single", "complete", "average")


def conditional_strata(
    X_train,
    X,
    features=None,
    *,
    feature_names: Sequence[str] | None = None,
    feature_groups: Mapping[str, Sequence[str]] | None = None,
    max_depth: int | None = 5,
    min_samples_leaf: int | float = 0.02,
    random_state=0,
) -> dict[str, np.ndarray]:
    """Subgroups of the rows of ``X`` for each variable: the leaves of a tree fitted on ``X_train``.

    Parameters
    ----------
    X_train : array-like of shape (n_train, p)
        Training rows: the tree of variable ``g`` predicts its columns from all other columns.
    X : array-like of shape (n, p)
        Rows to stratify (the test split).
    features, feature_names, feature_groups
        The variables, as :func:`model_reliance`.
    max_depth : int or None, default 5
    min_samples_leaf : int or float, default 0.02
        ``DecisionTreeRegressor`` options (a float is a fraction of the training rows).
    random_state : int, default 0
        The tree's ``random_state`` (ties between equally good splits).

    Returns
    -------
    dict of str -> ndarray of int, shape (n,)
        The leaf of each row of ``X`` per variable (scikit-learn node ids).

    Raises
    ------
    ValueError
        Mismatched columns, invalid variables or tree options.
    """
    from sklearn.tree import DecisionTreeRegressor

    Xv, feature_names, groups = resolve_variables(X, features, feature_names, feature_groups)
    Xt, _ = check_X(X_train)
    if Xt.shape[1] != Xv.shape[1]:
        raise ValueError(f"X_train has {Xt.shape[1]} columns but X has {Xv.shape[1]}")
    out = {}
    for name, cols in groups.items():
        rest = np.setdiff1d(np.arange(Xv.shape[1]), cols)
        if rest.size == 0:
            out[name] = np.zeros(Xv.shape[0], dtype=np.intp)  # nothing to condition on: one stratum
            continue
        target = Xt[:, cols] if cols.size > 1 else Xt[:, cols[0]]
        tree = DecisionTreeRegressor(
            max_depth=max_depth, min_samples_leaf=min_samples_leaf, random_state=random_state
        ).fit(Xt[:, rest], target)
        out[name] = tree.apply(np.ascontiguousarray(Xv[:, rest], dtype=np.float32)).astype(np.intp)
    return out


def conditional_model_reliance(
    model,
    X,
    y,
    X_train,
    *,
    features=None,
    n_repeats: int = 20,
    random_state=None,
    max_depth: int | None = 5,
    min_samples_leaf: int | float = 0.02,
    loss=None,
    n_jobs: int | None = 1,
    options: RelianceOptions | None = None,
) -> RelianceResult:
    """Conditional model reliance by permutation within tree strata (cs-PFI, Molnar et al. 2023).

    Parameters
    ----------
    model, X, y, features, loss, n_jobs
        As :func:`model_reliance` (``X``, ``y``: the test split; ``method="auto"``). Ensemble
        prefixes as members: pass ``model = member_predictor(model, n_estimators)``
        (:func:`xaipipe.models.prefix.member_predictor`).
    X_train : array-like of shape (n_train, p)
        Training rows on which the strata are learned (:func:`conditional_strata`).
    n_repeats : int, default 20
        Within-strata permutations per variable.
    random_state : int or None
        Seed of the permutations (the trees use ``random_state=0``, or this seed when it is an
        int).
    max_depth, min_samples_leaf
        Tree options (:func:`conditional_strata`).
    options : RelianceOptions, optional
        As :func:`model_reliance`'s: ``feature_names``, ``feature_groups``, ``max_rows_per_batch``
        and ``subsample_rows`` apply (its ``permutations``, ``max_samples``, ``subsample_se`` and
        ``switch_matrix`` do not: ValueError).

        ``subsample_rows`` is the large-data policy (config ``large_data.reliance_rows``, as
        ``model_reliance``'s ``subsample_rows`` for ``permutation``): where ``n > subsample_rows``, repeat ``r`` draws
        its own ``subsample_rows`` recipient rows ``S_r`` (the rows of the ``permutation``
        estimator's subsample with this seed) and one permutation of *all* ``n`` rows within their
        strata, and contributes the paired difference ``d_r`` = mean over ``S_r`` of the switched
        minus the unchanged loss; ``e_orig`` is on all rows and the repeat's switched loss is
        ``e_orig + d_r`` (:mod:`._subsample`). Each recipient's donor is uniform on its whole
        stratum, as without the policy, so ``E[d_r]`` is the all-rows estimator's expectation, and
        ``sd(d_r) / sqrt(R)`` (the ``*_se`` columns) is the Monte-Carlo SE of subsample and
        permutation together. ``O(R · subsample_rows)`` predictions per variable instead of
        ``O(R · n)``; ``n_samples = subsample_rows``, ``algorithm``
        ``"subsampled_tree_strata_permutations"``, ``method="generic"``. None, or
        ``n <= subsample_rows``: every row, unchanged.

    Returns
    -------
    RelianceResult
        ``estimator = "conditional_permutation"``, ``algorithm = "tree_strata_permutations"``
        (``"subsampled_tree_strata_permutations"`` under the policy); ``.to_frame()`` has the
        columns of every MR table.

    Raises
    ------
    ValueError, TypeError
        As :func:`model_reliance` and :func:`conditional_strata`; ``subsample_rows`` below 2.
    """
    from ._model_reliance import model_reliance

    opts = RelianceOptions() if options is None else options
    if opts.permutations is not None or opts.max_samples is not None or opts.subsample_se or opts.switch_matrix:
        raise ValueError(
            "conditional_model_reliance draws its own permutations on all rows; give only "
            "feature_names, feature_groups, max_rows_per_batch or subsample_rows in options"
        )
    Xv, names, groups = resolve_variables(X, features, opts.feature_names, opts.feature_groups)
    m = None if opts.subsample_rows is None else check_int(opts.subsample_rows, "subsample_rows", minimum=2)
    tree_seed = random_state if isinstance(random_state, (int, np.integer)) else 0
    strata = conditional_strata(
        X_train,
        Xv,
        {k: v.tolist() for k, v in groups.items()},
        feature_names=names,
        max_depth=max_depth,
        min_samples_leaf=min_samples_leaf,
        random_state=tree_seed,
    )
    if m is not None and Xv.shape[0] > m:
        return _subsampled(
            model,
            Xv,
            y,
            groups,
            np.stack([strata[k] for k in groups]),
            m,
            loss=loss,
            n_repeats=n_repeats,
            random_state=random_state,
            max_rows_per_batch=opts.max_rows_per_batch,
            n_jobs=n_jobs,
        )
    perms = conditional_permutations(np.stack([strata[k] for k in groups]), n_repeats, random_state)
    res = model_reliance(
        model,
        Xv,
        y,
        estimator="permutation",
        loss=loss,
        features={k: v.tolist() for k, v in groups.items()},
        n_jobs=n_jobs,
        options=RelianceOptions(feature_names=names, permutations=perms, max_rows_per_batch=opts.max_rows_per_batch),
    )
    return dataclasses.replace(res, estimator=CONDITIONAL_ESTIMATOR, algorithm=ALGORITHM)


def _subsampled(
    model, Xv, y, groups, strata, m, *, loss, n_repeats, random_state, max_rows_per_batch, n_jobs
) -> RelianceResult:
    """:func:`conditional_model_reliance` under ``subsample_rows=m`` (its docstring): the inputs
    validated as :func:`model_reliance` does, then :func:`._subsample.subsampled_reliance` with the
    strata of all rows."""
    from ...losses import default_loss, resolve_loss
    from ._base import check_y
    from ._subsample import subsample_design, subsampled_reliance

    is_callable = callable(model) and not hasattr(model, "predict")
    if loss is None:
        from sklearn.base import is_classifier

        loss = default_loss("classification" if not is_callable and is_classifier(model) else "regression")
    loss_name, loss_fn = resolve_loss(loss)
    yv = check_y(y, Xv.shape[0])
    R = check_int(n_repeats, "n_repeats", minimum=1)
    design = subsample_design("permutation", Xv.shape[0], m, R, len(groups), random_state, strata=strata)
    res = subsampled_reliance(
        model,
        Xv,
        yv,
        estimator="permutation",
        loss=(loss_name, loss_fn),
        groups=groups,
        design=design,
        n_estimators=None,
        max_rows_per_batch=check_int(max_rows_per_batch, "max_rows_per_batch", minimum=1),
        n_jobs=n_jobs,
        strata=strata,
    )
    return dataclasses.replace(res, estimator=CONDITIONAL_ESTIMATOR, algorithm=f"subsampled_{ALGORITHM}")


def correlation_groups(
    X_train,
    threshold: float = 0.9,
    *,
    feature_names: Sequence[str] | None = None,
    feature_groups: Mapping[str, Sequence[str]] | None = None,
    linkage: str = "single",
    separator: str = "+",
) -> dict[str, list[int]]:
    """Clusters of variables whose training columns correlate by at least ``threshold`` in absolute value.

    Parameters
    ----------
    X_train : array-like of shape (n_train, p)
    threshold : float in (0, 1], default 0.9
        Smallest :math:`|r|` (Pearson) that joins two variables.
    feature_names : sequence of str, optional
    feature_groups : mapping str -> columns, optional
        One-hot groups: each is one variable (its distance to another variable is the smallest
        :math:`1 - |r|` over their columns).
    linkage : {"single", "complete", "average"}, default "single"
        scipy's hierarchical clustering of the distances :math:`1 - |r|`, cut at
        :math:`1 - \\text{threshold}`; ``"single"`` = connected components of
        :math:`|r| \\ge \\text{threshold}`; ``"complete"`` = every pair in a cluster correlates that
        strongly.
    separator : str, default "+"
        Joins the names of a cluster's members (in column order); a singleton keeps its name.

    Returns
    -------
    dict of str -> list of int
        Variable (cluster) name -> column indices, in the order of each cluster's first column;
        a valid ``features`` argument of :func:`model_reliance`.

    Raises
    ------
    ValueError
        ``threshold`` outside (0, 1], unknown ``linkage``, invalid groups.

    Notes
    -----
    A constant column has no correlation; it is its own cluster.
    """
    from scipy.cluster.hierarchy import fcluster
    from scipy.cluster.hierarchy import linkage as hlinkage
    from scipy.spatial.distance import squareform

    from ...validation import check_fraction

    t = check_fraction(threshold, "threshold")
    if linkage not in LINKAGES:
        raise ValueError(f"linkage must be one of {LINKAGES}, got {linkage!r}")
    Xv, names, units = resolve_variables(X_train, None, feature_names, feature_groups)
    with np.errstate(invalid="ignore", divide="ignore"):
        corr = np.abs(np.corrcoef(Xv, rowvar=False)) if Xv.shape[1] > 1 else np.ones((1, 1))
    corr = np.nan_to_num(np.atleast_2d(corr), nan=0.0)
    keys = list(units)
    m = len(keys)
    if m == 1:
        return {keys[0]: units[keys[0]].tolist()}
    D = np.zeros((m, m))
    for a in range(m):
        for b in range(a + 1, m):
            D[a, b] = D[b, a] = 1.0 - corr[np.ix_(units[keys[a]], units[keys[b]])].max()
    D = np.clip(D, 0.0, 1.0)
    labels = fcluster(hlinkage(squareform(D, checks=False), method=linkage), t=1.0 - t + 1e-12, criterion="distance")
    out: dict[str, list[int]] = {}
    for lab in sorted(set(labels), key=lambda c: min(units[keys[i]].min() for i in np.flatnonzero(labels == c))):
        members = sorted(np.flatnonzero(labels == lab), key=lambda i: units[keys[i]].min())
        name = separator.join(keys[i] for i in members)
        out[name] = sorted(int(c) for i in members for c in units[keys[i]])
    return out


def grouped_model_reliance(
    model,
    X,
    y,
    X_train,
    *,
    threshold: float = 0.9,
    linkage: str = "single",
    feature_groups: Mapping[str, Sequence[str]] | None = None,
    feature_names: Sequence[str] | None = None,
    estimator: str = "permutation",
    **kwargs,
) -> RelianceResult:
    """MR of clusters of correlated features, each permuted jointly (:func:`correlation_groups`).

    Parameters
    ----------
    model, X, y
        As :func:`model_reliance` (the test split).
    X_train : array-like of shape (n_train, p)
        Rows whose correlations define the clusters.
    threshold, linkage, feature_groups
        :func:`correlation_groups` (one-hot groups stay whole).
    feature_names : sequence of str, optional
    estimator : {"permutation", "e_divide", "e_switch"}, default "permutation"
    **kwargs
        Further :func:`model_reliance` options (``n_repeats``, ``random_state``, ``loss``,
        ``method``, ``options`` (:class:`RelianceOptions`; its ``feature_names`` are set here), ...).

    Returns
    -------
    RelianceResult
        As ``model_reliance(..., features=correlation_groups(...))`` with ``estimator`` relabelled
        ``"grouped_<estimator>"``; the ``feature`` of a cluster joins its members' names with "+".
    """
    from ._model_reliance import model_reliance

    _, names = check_X(X)
    names = feature_names if feature_names is not None else names
    groups = correlation_groups(X_train, threshold, feature_names=names, feature_groups=feature_groups, linkage=linkage)
    opts = kwargs.pop("options", None) or RelianceOptions()
    options = dataclasses.replace(opts, feature_names=names)
    res = model_reliance(model, X, y, estimator=estimator, features=groups, options=options, **kwargs)
    return dataclasses.replace(res, estimator=f"grouped_{estimator}")
