"""Refits of Rashomon-set members (one fit per prefix group) and the MR of a fitted group.

Members of an ensemble family that differ only in ``n_estimators`` come from one
fit with the group's largest value (:func:`xaipipe.models.grid.prefix_groups`,
:mod:`xaipipe.models.prefix`; the fitter is :func:`xaipipe.models.fitting.fit_group`,
the same as the cross-validation's), and the MR of all of them comes from one pass
(:func:`group_reliance`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from ..explain.reliance import DEFAULT_MAX_ROWS, RelianceResult, model_reliance
from ..models.families import PREFIX_PARAM, get_family
from ..models.fitting import fit_group
from ..models.grid import config_id, params_from_config_id, prefix_groups

__all__ = ["FittedGroup", "params_from_config_id", "fit_member_groups", "group_reliance"]


@dataclass
class FittedGroup:
    """One fitted model providing one or several Rashomon-set members.

    Attributes
    ----------
    family : str
    base_params : dict
        Hyperparameters without ``n_estimators``.
    n_estimators : list of int
        Prefix sizes of the members (empty for a non-ensemble configuration).
    config_ids : list of str
        The members' ``config_id`` in the order of ``n_estimators``.
    model : fitted estimator
        Fitted with ``max(n_estimators)``.
    fit_time_s : float
    """

    family: str
    base_params: dict
    n_estimators: list
    config_ids: list
    model: Any = field(repr=False)
    fit_time_s: float = 0.0

    @property
    def n_members(self) -> int:
        return len(self.config_ids)


def _fit_cost(family, ks) -> float:
    """Relative cost of a refit (family registry's ``fit_cost`` per tree): orders the refits only."""
    return get_family(family).fit_cost * (max(ks) if ks else 1)


def fit_member_groups(
    members: pd.DataFrame,
    task: str,
    X,
    y,
    *,
    random_state: int,
    options: Mapping[str, Mapping[str, Any]] | None = None,
    n_jobs: int = 1,
) -> list[FittedGroup]:
    """Refit Rashomon-set members, one fit per prefix group.

    Parameters
    ----------
    members : DataFrame
        Columns ``family`` and ``config_id`` (e.g. ``RashomonSet.members``);
        duplicates are ignored.
    task : {"regression", "classification"}
    X, y : arrays of shape (n, p), (n,)
        Training data (the pipeline's 80 %).
    random_state : int
        ``random_state`` of every estimator (the CV's seed, so that each member is
        the configuration that was cross-validated).
    options : mapping family -> mapping, optional
        Fixed constructor options per family (``estimator_options`` config).
    n_jobs : int, default 1
        Worker processes (joblib/loky); each fit is single-threaded.

    Returns
    -------
    list of FittedGroup
        In order of first appearance; members of an ensemble family that differ
        only in ``n_estimators`` share one group fitted with their largest value
        (:func:`xaipipe.models.grid.prefix_groups`).

    Raises
    ------
    ValueError
        Missing columns, an unparsable ``config_id``, or a member whose refit
        fails (:func:`xaipipe.models.fitting.fit_group`); ``KeyError`` for an
        unknown family.
    """
    from joblib import Parallel, delayed

    if not {"family", "config_id"} <= set(members.columns):
        raise ValueError("members needs columns 'family' and 'config_id'")
    keys = members[["family", "config_id"]].astype(str).drop_duplicates()
    jobs = []
    for fam in pd.unique(keys["family"]):
        get_family(fam)
        cids = keys.loc[keys["family"] == fam, "config_id"].tolist()
        configs = [params_from_config_id(c) for c in cids]
        if get_family(fam).ensemble and all(PREFIX_PARAM in c for c in configs):
            for base, ks in prefix_groups(configs):
                ids = [config_id(dict(base, **{PREFIX_PARAM: k})) for k in ks]
                jobs.append((fam, base, ks, ids))
        else:
            for c, cid in zip(configs, cids):
                jobs.append((fam, dict(c), [], [cid]))
    opts = dict(options or {})
    # Longest fits first (a 2 000-tree forest alone can take as long as all the
    # other groups), so that the workers finish together; the order of the
    # returned groups does not change.
    order = sorted(range(len(jobs)), key=lambda i: -_fit_cost(jobs[i][0], jobs[i][2]))
    done = Parallel(n_jobs=n_jobs, backend="loky" if n_jobs != 1 else "sequential")(
        delayed(fit_group)(
            get_family(jobs[i][0]),
            task,
            jobs[i][1],
            X,
            y,
            n_estimators=jobs[i][2],
            random_state=random_state,
            options=opts.get(jobs[i][0]),
        )
        for i in order
    )
    fitted = [None] * len(jobs)
    for i, res in zip(order, done):
        if not res.ok:
            fam, _, _, ids = jobs[i]
            raise ValueError(f"refit of Rashomon-set member(s) {fam}:{ids[0]} failed: {res.message}")
        fitted[i] = res
    return [
        FittedGroup(fam, base, list(ks), ids, res.estimator, res.fit_time_s)
        for (fam, base, ks, ids), res in zip(jobs, fitted)
    ]


def group_reliance(
    group: FittedGroup,
    X,
    y,
    *,
    features=None,
    feature_names: Sequence[str] | None = None,
    estimator: str = "permutation",
    loss: str = "squared_error",
    permutations=None,
    method: str = "auto",
    max_rows_per_batch: int = DEFAULT_MAX_ROWS,
    n_jobs: int | None = 1,
) -> RelianceResult:
    """MR of every member of one fitted group in one pass.

    :func:`xaipipe.explain.reliance.model_reliance` of the group's model with its
    ``n_estimators`` prefixes as members: the tree engine for forests and gradient
    boosting (except ``e_divide``), all XGBoost prefixes from one call per switched
    data set, the exact closed form for a linear regressor with ``e_switch`` and
    squared loss.

    Parameters
    ----------
    group : FittedGroup
    X, y : test data
    features, feature_names, estimator, loss, permutations, method, max_rows_per_batch, n_jobs
        As :func:`xaipipe.explain.reliance.model_reliance`; give the same
        ``permutations`` (shape ``(G, R, n)``) to every group (common random numbers).

    Returns
    -------
    RelianceResult
        Members in the order of ``group.config_ids``.
    """
    return model_reliance(
        group.model,
        X,
        y,
        n_estimators=group.n_estimators or None,
        method=method,
        n_jobs=n_jobs,
        features=features,
        feature_names=feature_names,
        estimator=estimator,
        loss=loss,
        permutations=permutations,
        max_rows_per_batch=max_rows_per_batch,
    )
