"""Refits of Rashomon-set members (one fit per prefix group) and the MR of a fitted group.

Members of an ensemble family that differ only in ``n_estimators`` come from one
fit with the group's largest value (:func:`xaipipe.models.grid.prefix_groups`,
:mod:`xaipipe.models.prefix`; the fitter is :func:`xaipipe.models.fitting.fit_group`,
the same as the cross-validation's), and the MR of all of them comes from one pass
(:func:`group_reliance`). Above ``large_data.forest_block_rows`` training rows a forest group is
fitted in blocks of trees into a forest store and read back one block at a time
(``forest_blocks`` of :func:`fit_member_groups`, :func:`member_store_dir`).
"""

from __future__ import annotations

import logging
import os
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from ..explain.reliance import DEFAULT_MAX_ROWS, RelianceOptions, RelianceResult, model_reliance
from ..models.families import PREFIX_PARAM, get_family
from ..models.fitting import fit_group
from ..models.grid import config_id, params_from_config_id, prefix_groups

__all__ = [
    "FittedGroup",
    "params_from_config_id",
    "fit_member_groups",
    "refit_members",
    "group_reliance",
    "member_store_dir",
]


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
    forest_blocks: tuple[int, int] | None = None,
    store_dir: str | os.PathLike | None = None,
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
    forest_blocks : (min_rows, block_trees), optional
        Memory (config keys ``large_data.forest_block_rows`` / ``forest_block_trees``,
        :func:`xaipipe.models.forest_blocks.forest_block_setting`): with at least ``min_rows``
        training rows, a random forest / extra-trees group is fitted ``block_trees`` trees at a
        time into a forest store in ``store_dir`` and its model is that store opened lazily
        (:func:`xaipipe.models.fitting.fit_group`'s ``forest_store``): the trees, hence every
        member's predictions, MR and PD, are bitwise those of the whole fit, and a job holds one
        block of trees per worker instead of whole forests. Other families, or fewer rows: no
        change.
    store_dir : path, optional
        Folder of those forest stores (one file per group, ``group<i>.forest``); required when
        ``forest_blocks`` applies, and must outlive the returned groups
        (:func:`member_store_dir` makes a temporary one).

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
        fails (:func:`xaipipe.models.fitting.fit_group`); ``forest_blocks`` applies but
        ``store_dir`` is None; ``KeyError`` for an unknown family.
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
    blocks = _block_trees(forest_blocks, len(y))
    if blocks is not None and store_dir is None:
        raise ValueError("fit_member_groups: forest_blocks applies (large training set) but store_dir is None")
    stores = [
        (Path(store_dir) / f"group{i}.forest", blocks)
        if blocks is not None and get_family(jobs[i][0]).prefix == "forest"
        else None
        for i in range(len(jobs))
    ]
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
            forest_store=stores[i],
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


def refit_members(data, settings, candidates, n_jobs: int = 1, forest_blocks=None, store_dir=None) -> list[FittedGroup]:
    """The ``candidates`` refitted on the training rows as the cross-validation fitted them.

    Parameters
    ----------
    data : :class:`~xaipipe.data.prepare.PreparedData`
        The dataset (its ``X_train``, ``y_train``).
    settings : :class:`~xaipipe.config.rashomon.RashomonSettings`
        Its ``task``, ``seed`` and estimator ``options``.
    candidates : DataFrame
        ``family``, ``config_id`` of the members to refit.
    n_jobs, forest_blocks, store_dir
        As :func:`fit_member_groups` (large forests in blocks into ``store_dir``).

    Returns
    -------
    list of FittedGroup
        One group per prefix group (:func:`fit_member_groups`).
    """
    return fit_member_groups(
        candidates,
        settings.task,
        data.X_train,
        data.y_train,
        random_state=settings.seed,
        options=settings.options,
        n_jobs=n_jobs,
        forest_blocks=forest_blocks,
        store_dir=store_dir,
    )


def _block_trees(forest_blocks, n_rows: int) -> int | None:
    """``block_trees`` of ``forest_blocks = (min_rows, block_trees)`` when ``n_rows`` reaches ``min_rows``, else None."""
    if forest_blocks is None or int(n_rows) < int(forest_blocks[0]):
        return None
    return int(forest_blocks[1])


@contextmanager
def member_store_dir(forest_blocks, n_rows: int) -> Iterator[Path | None]:
    """A temporary folder for the forest stores of :func:`fit_member_groups` (removed on exit), or None
    when ``forest_blocks`` does not apply to ``n_rows`` training rows (nothing is created).

    The folder is made in Python's temporary directory (``TMPDIR``; a forest of 2 000 fully grown
    trees on 64 000 rows takes a few GB there, compressed)."""
    block = _block_trees(forest_blocks, n_rows)
    if block is None:
        yield None
        return
    with tempfile.TemporaryDirectory(prefix="xaipipe-forests-") as tmp:
        logging.getLogger("xaipipe").info(
            "%d training rows >= large_data.forest_block_rows (%d): any random forest / extra-trees refit goes to a "
            "forest store in blocks of %d trees in %s",
            int(n_rows),
            int(forest_blocks[0]),
            block,
            tmp,
        )
        yield Path(tmp)


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
        options=RelianceOptions(
            feature_names=feature_names, permutations=permutations, max_rows_per_batch=max_rows_per_batch
        ),
        estimator=estimator,
        loss=loss,
    )
