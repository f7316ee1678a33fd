"""The Rashomon step of one dataset: the entries of the ``rashomon`` and ``rashomon_refit`` rules.

* :func:`mcr_study` (rule ``rashomon``): sets, member MR, MCR table and ε-path, set sizes, the PD
  envelope, the exact MCR of all linear models (``linear_exact``) and the members' predictions
  with the distinct-function counts (:mod:`xaipipe.rashomon.multiplicity`).
* :func:`rashomon_refit` (rule ``rashomon_refit``, config key ``rashomon.refit_jobs``): the
  member refits, member MR and PD curves of some families in a job of their own;
  :func:`mcr_study` with ``refits=`` combines such jobs into the same tables, byte for byte.
* :func:`rashomon_reliance`: sets, refits, member MR, member and MCR tables in one call (no
  envelope, ε-path or ``linear_exact``): the core of :func:`mcr_study` without refit jobs, and the
  per-replicate step of the coverage study (:mod:`xaipipe.studies.coverage`).

Each takes ``(data, settings, summary)``: the split (:class:`xaipipe.data.prepare.PreparedData`), the
step's :class:`xaipipe.config.RashomonSettings` and the CV summaries.

The definitions (Fisher, Rudin & Dominici 2019, §4) are in :mod:`xaipipe.rashomon.mcr`; the sets in
:mod:`xaipipe.rashomon.sets`; the members in :mod:`xaipipe.rashomon.members`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

import numpy as np
import pandas as pd

from ..config.rashomon import RashomonSettings
from ..data.prepare import expand_user_groups, importance_groups
from ..explain.reliance import features_from_groups
from ._frames import NamedFrames
from .mcr import MCR_FIRST, mcr_path, mcr_table
from .members import _member_base, member_table, members_reliance
from .multiplicity import function_count_columns, members_predictions
from .refit import member_store_dir, refit_members
from .sets import check_epsilons, rashomon_scopes, select_set

__all__ = ["RashomonRefit", "RashomonStudy", "mcr_study", "rashomon_refit", "rashomon_reliance"]


def rashomon_reliance(
    data,
    settings: RashomonSettings,
    summary: pd.DataFrame,
    *,
    n_jobs: int = 1,
    forest_blocks: tuple[int, int] | None = None,
    store_dir=None,
) -> tuple:
    """Sets, member refits, member MR, the member and MCR tables of one dataset, in one call.

    The core of :func:`mcr_study` without refit jobs (no PD envelope, ε-path or
    ``linear_exact`` scope), and the per-replicate step of the coverage study.

    Parameters
    ----------
    data : PreparedData
        The split (:class:`xaipipe.data.prepare.PreparedData`, or any object with its attributes
        ``X_train``, ``y_train``, ``X_test``, ``y_test``, ``features``, ``feature_groups`` and
        ``dataset``). The variables of MR are the columns, one-hot groups counting as one
        (:func:`xaipipe.explain.reliance.features_from_groups`); ``features=None``: every column
        its own variable, named by position.
    settings : RashomonSettings
        :class:`xaipipe.config.RashomonSettings`: ``task``, ``metric`` (the CV loss defining the
        sets), ``epsilons`` (members are those of the largest ε), ``epsilon_mode``, ``scopes``
        (``linear_exact`` is left out: it has no fitted members; see :func:`rashomon_scopes`),
        ``estimators``, ``loss``, ``n_repeats``, ``e_switch_max_rows`` (see
        :func:`members_reliance`), ``seed`` (estimators' ``random_state`` as in the CV, and the
        permutation seed) and ``options`` (``estimator_options``).
    summary : DataFrame
        The dataset's CV summaries (``<family>_summary.csv``), concatenated.
    n_jobs : int
        Processes for the refits.
    forest_blocks, store_dir
        Memory only (:func:`xaipipe.rashomon.refit.fit_member_groups`): large forests fitted
        in blocks of trees into forest stores in ``store_dir`` and read one block at a time;
        the tables are bitwise the same. ``store_dir`` must outlive the returned groups.

    Returns
    -------
    members : DataFrame
        :func:`member_table`.
    mcr : DataFrame
        :func:`mcr_table`.
    groups : list of FittedGroup
        The refitted models (for PD envelopes).
    """
    grid, sets, candidates = _largest_sets(summary, settings)
    groups = refit_members(data, settings, candidates, n_jobs, forest_blocks, store_dir)
    rel = _reliance(data, settings, groups, n_jobs)
    members = member_table(sets, rel, epsilons=grid, dataset=data.dataset)
    return members, mcr_table(members, sets, epsilons=grid), groups


def _grid_scopes(settings: RashomonSettings) -> list[str]:
    """The scopes of ``settings`` that are sets of fitted members (all but ``linear_exact``)."""
    from .linear import LINEAR_EXACT

    return [s for s in settings.scopes if s != LINEAR_EXACT]


def _largest_sets(summary: pd.DataFrame, settings: RashomonSettings):
    """``(ε grid, the sets of every grid scope at the largest ε, their members' family and
    config_id)``: what the members are refitted from."""
    grid = check_epsilons(settings.epsilons)
    sets = rashomon_scopes(
        summary,
        metric=settings.metric,
        epsilon=grid[-1],
        mode=settings.epsilon_mode,
        scopes=_grid_scopes(settings),
    )
    candidates = pd.concat([rs.members[["family", "config_id"]] for rs in sets.values()], ignore_index=True)
    return grid, sets, candidates


def _reliance(data, settings: RashomonSettings, groups, n_jobs: int) -> pd.DataFrame:
    """:func:`members_reliance` of fitted ``groups`` on the test split, as ``settings`` say."""
    # MR of the members: one-hot and user groups one variable each
    features = None if data.features is None else features_from_groups(data.features, importance_groups(data))
    return members_reliance(
        groups,
        data.X_test,
        data.y_test,
        features=features,
        feature_names=data.features,
        estimators=list(settings.estimators),
        loss=settings.loss,
        n_repeats=settings.n_repeats,
        random_state=settings.seed,
        e_switch_max_rows=settings.e_switch_max_rows,
        n_jobs=n_jobs,
    )


def _figure_scope(sets: Mapping[str, Any], figure_scope: str) -> str:
    """The scope of the PD envelope: ``figure_scope`` when it has a set, else the first scope."""
    return figure_scope if figure_scope in sets else next(iter(sets))


@dataclass(frozen=True)
class RashomonRefit:
    """The result of one ``rashomon_refit`` job (:func:`rashomon_refit`).

    Attributes
    ----------
    families : list of str
        The job's families.
    reliance : DataFrame
        :func:`members_reliance` rows of their members, estimator-major, in group order.
    curves : DataFrame
        :func:`~xaipipe.rashomon.envelope.members_curves` of their members in the envelope's set,
        every variable.
    n_groups : int
        Fitted prefix groups.
    predictions : (DataFrame, ndarray)
        :func:`~xaipipe.rashomon.multiplicity.members_predictions` of their members: keys and the
        ``(m, n_test)`` test predictions, float64.
    """

    families: list
    reliance: pd.DataFrame
    curves: pd.DataFrame
    n_groups: int
    predictions: tuple

    def to_dict(self) -> dict[str, Any]:
        """The fields by name, in their order: what the rule pickles for :func:`mcr_study`."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


def rashomon_refit(
    data,
    settings: RashomonSettings,
    summary: pd.DataFrame,
    *,
    families: Sequence[str],
    n_jobs: int = 1,
    pd_class_index: int = 1,
    forest_blocks: tuple[int, int] | None = None,
) -> RashomonRefit:
    """The ``rashomon_refit`` rule: refits, MR and PD curves of the Rashomon-set members of ``families``.

    The member refits of :func:`rashomon_reliance`, restricted to ``families``: the sets come from
    the whole ``summary`` (every family, so the cross-family set and its reference are those of one
    job); the members of ``families`` at the largest ε are refitted (:func:`fit_member_groups`) and
    their MR computed (:func:`members_reliance`: the permutations are drawn from the seed alone, so a
    member's MR does not depend on which other members a job holds). The PD envelope's variables
    (the reference model's top ``k`` by MR) are only known once every MR is, so the PD curves of
    this job's members of the envelope's set are computed for every variable that has a grid
    (:func:`xaipipe.rashomon.envelope.members_curves`; a column group that is not one-hot has none,
    and the combining call raises if the envelope needs it, as one job does). :func:`mcr_study`
    with ``refits=`` combines such results into the tables of one job, byte for byte.

    Parameters
    ----------
    data, settings, summary, n_jobs, pd_class_index, forest_blocks
        As :func:`mcr_study`.
    families : sequence of str
        The families of this job (others are left out; a family without members gives empty
        frames).

    Returns
    -------
    RashomonRefit
        The rule pickles its :meth:`~RashomonRefit.to_dict` for :func:`mcr_study`.

    Raises
    ------
    ValueError
        Empty ``families`` or an invalid input.
    """
    families = [str(f) for f in families]
    if not families:
        raise ValueError("families must not be empty")
    grid, sets, candidates = _largest_sets(summary, settings)
    mine = candidates[candidates["family"].astype(str).isin(families)]
    if mine.empty:
        empty = (pd.DataFrame({"family": [], "config_id": []}), np.empty((0, len(data.X_test))))
        return RashomonRefit(families, pd.DataFrame(), pd.DataFrame(), 0, empty)
    with member_store_dir(forest_blocks, len(data.y_train)) as store_dir:
        return _refit_tables(
            data, settings, sets, grid, mine, families, n_jobs, pd_class_index, forest_blocks, store_dir
        )


def _refit_tables(data, settings, sets, grid, mine, families, n_jobs, pd_class_index, forest_blocks, store_dir):
    """:func:`rashomon_refit` from its candidate members ``mine`` on: refits, predictions, MR, PD curves."""
    from .envelope import members_curves, selected_groups

    groups = refit_members(data, settings, mine, n_jobs, forest_blocks, store_dir)
    predictions = members_predictions(groups, data.X_test)
    reliance = _reliance(data, settings, groups, n_jobs)
    base = _member_base(sets, grid, None)
    chosen = selected_groups(
        groups, select_set(base, _figure_scope(sets, settings.figure_scope), settings.epsilon, allow_empty=True)
    )
    curves = members_curves(
        chosen,
        data.X_test,
        feature_names=data.features,
        feature_groups=data.feature_groups,
        resolution=settings.pd["resolution"],
        percentiles=(0.0, 1.0),
        skip_invalid=True,
        class_index=pd_class_index,
    )
    return RashomonRefit(
        families=families, reliance=reliance, curves=curves, n_groups=len(groups), predictions=predictions
    )


def _combined_reliance(
    refits: Sequence[Mapping[str, Any]], families: Sequence[str], estimators: Sequence[str]
) -> pd.DataFrame:
    """The reliance rows of :func:`rashomon_refit` jobs in the order of one job: estimator-major,
    then the families in ``families`` order (each family's groups are contiguous)."""
    owner = {}
    for r in refits:
        for f in r["families"]:
            if f in owner:
                raise ValueError(f"family {f!r} is in two rashomon_refit results")
            owner[f] = r
    lost = [f for f in families if f not in owner]
    if lost:
        raise ValueError(f"no rashomon_refit result for the Rashomon-set family/families {lost}")
    blocks = []
    for est in estimators:
        for f in families:
            rel = owner[f]["reliance"]
            if len(rel):
                block = rel[(rel["family"].astype(str) == f) & (rel["estimator"] == est)]
                if len(block):
                    blocks.append(block)
    if not blocks:
        raise ValueError("no fitted groups given")
    return pd.concat(blocks, ignore_index=True)


def _fitted_exactly(X_test, dataset) -> bool:
    """True (and a warning in the log) when a linear model fits every test row exactly: the
    ``linear_exact`` scope's MR (a ratio to ``e_orig = 0``) is then undefined and the scope is left
    out. That is the case when the centred test design has rank ``n_test - 1`` (e.g. at most
    ``p + 1`` test rows for ``p`` features)."""
    import logging

    X = np.asarray(X_test, dtype=np.float64)
    n = X.shape[0]
    if n > X.shape[1] + 1 or np.linalg.matrix_rank(X - X.mean(axis=0)) < n - 1:
        return False
    logging.getLogger("xaipipe").warning(
        "dataset %r: the %d test rows are fitted exactly by a linear model (%d features): the linear_exact "
        "scope's MR is undefined: left out of mcr.csv, noted in linear_exact.csv (add rows, or raise split.test_size)",
        dataset,
        n,
        X.shape[1],
    )
    return True


# ----------------------------------------------------------------------------- rule entries


@dataclass(frozen=True)
class RashomonStudy(NamedFrames):
    """The tables of the ``rashomon`` rule (:func:`mcr_study`).

    Attributes
    ----------
    sets, members, mcr, path, envelope, curves, linear_exact, prediction_index : DataFrame
        ``sets.csv`` (set sizes per ε), ``members.csv`` (:func:`member_table`), ``mcr.csv``
        (:func:`mcr_table`, columns :data:`~xaipipe.rashomon.mcr.MCR_FIRST` first; ``linear_exact``
        rows appended), ``path.csv`` (:func:`mcr_path`), ``envelope.csv`` / ``curves.csv`` (the PD
        envelope), ``linear_exact.csv`` (no rows unless that scope runs) and the index of
        ``predictions`` (``member``, ``family``, ``config_id``). ``sets``, ``mcr`` and ``path`` end
        with ``n_distinct_functions`` and ``is_default``.
    n_groups : int
        Fitted prefix groups.
    predictions : ndarray of shape (m, n_test), float64
        The members' test predictions (class-1 probabilities of a classifier), in the order of
        ``members``' first appearance.
    """

    sets: pd.DataFrame
    members: pd.DataFrame
    mcr: pd.DataFrame
    path: pd.DataFrame
    envelope: pd.DataFrame
    curves: pd.DataFrame
    linear_exact: pd.DataFrame
    n_groups: int
    predictions: np.ndarray
    prediction_index: pd.DataFrame

    #: The tables, in the order the rule writes them.
    FRAMES = ("sets", "members", "mcr", "path", "envelope", "curves", "linear_exact", "prediction_index")


def mcr_study(
    data,
    settings: RashomonSettings,
    summary: pd.DataFrame,
    *,
    refits: Sequence[Mapping[str, Any]] | None = None,
    n_jobs: int = 1,
    pd_class_index: int = 1,
    forest_blocks: tuple[int, int] | None = None,
) -> RashomonStudy:
    """The ``rashomon`` rule: sets, member MR, MCR, ε-path, PD envelope of one model class.

    Sets at the largest ε (:func:`~xaipipe.rashomon.sets.rashomon_scopes`), member refits and MR
    (:func:`rashomon_reliance`, :func:`member_table`, :func:`mcr_table`), set sizes per ε
    (:func:`xaipipe.rashomon.sets.set_sizes`), the exact ε-path (:func:`mcr_path`), the PD envelope
    of the ``figure_scope`` set at ``epsilon`` (the first scope when that one does not exist;
    :func:`xaipipe.rashomon.envelope.pd_envelope_table`), for regression with ``"linear_exact"``
    among the scopes the exact MCR of all linear models
    (:func:`xaipipe.rashomon.linear.linear_exact_scope`: its rows join ``mcr`` and ``path``), and the
    members' test predictions with the distinct-function counts
    (:func:`xaipipe.rashomon.multiplicity.function_count_columns`; ``epsilon`` is the default ε).

    With ``refits`` (the results of :func:`rashomon_refit` jobs for some families, the config key
    ``rashomon.refit_jobs``), those families' members are not refitted here: their MR and PD curves
    come from the jobs, the remaining families' from one :func:`rashomon_refit` call in this
    process, and the tables are the same, byte for byte, as without ``refits``. Sets, MR and MCR of
    a multiclass model use the multiclass losses (:mod:`xaipipe.explain.reliance`).

    Parameters
    ----------
    data : PreparedData
        The dataset's split (:func:`xaipipe.data.prepare.load_prepared`): ``X_train``, ``y_train``,
        ``X_test``, ``y_test``, ``features``, ``feature_groups``, ``dataset``.
    settings : RashomonSettings
        :meth:`xaipipe.config.RashomonSettings.from_config` (ε grid and rule, scopes,
        estimators, loss, repeats, the ``e_switch`` row cap, PD ``top_k`` / ``resolution``, seed,
        estimator options).
    summary : DataFrame
        The dataset's CV summaries, every family of the model class, concatenated.
    refits : sequence of RashomonRefit or dict, optional
        :func:`rashomon_refit` results (or their ``to_dict()``, as the rule stores them) of some families (config key ``rashomon.refit_jobs``): their
        members are not refitted here; the tables are the same, byte for byte, as without.
    n_jobs : int, default 1
        Processes of the refits, threads of the MR engine; results do not depend on it.
    pd_class_index : int, default 1
        Probability column of the PD envelope of classifiers (1: the positive class of a binary
        model; a multiclass model's chosen class).
    forest_blocks : (min_rows, block_trees), optional
        Memory only (config keys ``large_data.forest_block_rows`` / ``forest_block_trees``,
        :func:`xaipipe.models.forest_blocks.forest_block_setting`): with at least ``min_rows``
        training rows, every random forest / extra-trees refit is fitted ``block_trees`` trees at
        a time into a forest store in a temporary folder (:func:`~xaipipe.rashomon.refit.member_store_dir`)
        and its predictions, MR (the tree engine's block path) and PD curves read it one block at
        a time (:func:`~xaipipe.rashomon.refit.fit_member_groups`); the tables are bitwise the
        same. None (or fewer rows): forests are fitted and held whole.

    Returns
    -------
    RashomonStudy
    """
    with member_store_dir(forest_blocks, len(data.y_train)) as store_dir:
        return _mcr_study(data, settings, summary, refits, n_jobs, pd_class_index, forest_blocks, store_dir)


def _mcr_study(data, settings, summary, refits, n_jobs, pd_class_index, forest_blocks, store_dir) -> RashomonStudy:
    """:func:`mcr_study` with the forest stores' folder ``store_dir`` (None: forests held whole)."""
    from .envelope import CurveOptions, pd_envelope_table
    from .linear import LINEAR_EXACT, LINEAR_EXACT_COLUMNS, linear_exact_scope
    from .sets import set_sizes

    task, metric, epsilon, epsilon_mode = settings.task, settings.metric, settings.epsilon, settings.epsilon_mode
    X_train, y_train, X_test, y_test, dataset = data.X_train, data.y_train, data.X_test, data.y_test, data.dataset
    feature_names, feature_groups, figure_scope = data.features, data.feature_groups, settings.figure_scope
    user_groups = getattr(data, "user_groups", None)  # MCR plays them as one variable, the PD envelope their columns
    grid_scopes = _grid_scopes(settings)
    eps_grid = check_epsilons(settings.epsilons)
    curves_parts = None
    if refits is None:
        members, mcr, groups = rashomon_reliance(
            data, settings, summary, n_jobs=n_jobs, forest_blocks=forest_blocks, store_dir=store_dir
        )
        n_groups = len(groups)
        pred_keys, pred = members_predictions(groups, X_test)
    else:
        groups = None
        largest = rashomon_scopes(summary, metric=metric, epsilon=eps_grid[-1], mode=epsilon_mode, scopes=grid_scopes)
        order = [
            str(f)
            for f in pd.unique(
                pd.concat([rs.members["family"] for rs in largest.values()], ignore_index=True).astype(str)
            )
        ]
        parts = [r.to_dict() if isinstance(r, RashomonRefit) else r for r in refits]
        done = {str(f) for r in parts for f in r["families"]}
        rest = [f for f in order if f not in done]
        if rest:
            parts.append(
                rashomon_refit(
                    data,
                    settings,
                    summary,
                    families=rest,
                    n_jobs=n_jobs,
                    pd_class_index=pd_class_index,
                    forest_blocks=forest_blocks,
                ).to_dict()
            )
        rel = _combined_reliance(parts, order, settings.estimators)
        members = member_table(largest, rel, epsilons=eps_grid, dataset=dataset)
        mcr = mcr_table(members, largest, epsilons=eps_grid)
        n_groups = sum(int(r["n_groups"]) for r in parts)
        pred_keys = pd.concat([r["predictions"][0] for r in parts], ignore_index=True)
        pred = np.concatenate([np.asarray(r["predictions"][1], dtype=np.float64) for r in parts], axis=0)
        curves_parts = []
        for f in order:
            for r in parts:
                c = r["curves"]
                if f in r["families"] and len(c):
                    curves_parts.append(c[c["family"].astype(str) == f])
    sets = set_sizes(summary, metric=metric, epsilons=eps_grid, mode=epsilon_mode, scopes=grid_scopes)
    sets.insert(0, "dataset", dataset)
    scope_sets = rashomon_scopes(summary, metric=metric, epsilon=eps_grid[-1], mode=epsilon_mode, scopes=grid_scopes)
    path = mcr_path(members, scope_sets, epsilon_max=eps_grid[-1])
    detail = pd.DataFrame(columns=list(LINEAR_EXACT_COLUMNS))  # a header, no rows: still a table
    exact_fit = LINEAR_EXACT in settings.scopes and task == "regression" and _fitted_exactly(X_test, dataset)
    if exact_fit:  # the scope's table says why it has no interval (a `note` column in this case only)
        detail = pd.DataFrame(
            [
                {
                    "dataset": dataset or "",
                    "n_samples": int(np.asarray(X_test).shape[0]),
                    "note": (
                        f"not estimable: the {np.asarray(X_test).shape[0]} test rows are fitted exactly by a linear "
                        f"model ({np.asarray(X_test).shape[1]} columns), so e_orig = 0 and MR = e_switch / e_orig "
                        "is undefined; add rows or raise split.test_size"
                    ),
                }
            ],
            columns=[*LINEAR_EXACT_COLUMNS, "note"],
        )
    if LINEAR_EXACT in settings.scopes and task == "regression" and not exact_fit:
        lin_mcr, lin_path, detail = linear_exact_scope(
            X_train,
            y_train,
            X_test,
            y_test,
            epsilons=eps_grid,
            epsilon_mode=epsilon_mode,
            feature_names=feature_names,
            feature_groups=importance_groups(data),
            dataset=dataset or "",
        )
        mcr = pd.concat([mcr, lin_mcr], ignore_index=True)
        path = pd.concat([path, lin_path], ignore_index=True)
    scope = figure_scope if figure_scope in set(mcr["scope"]) - {LINEAR_EXACT} else mcr["scope"].iloc[0]
    envelope, curves = pd_envelope_table(
        groups,
        expand_user_groups(members, feature_groups, user_groups),
        X_test,
        scope=scope,
        epsilon=epsilon,
        feature_names=feature_names,
        feature_groups=feature_groups,
        top_k=settings.pd["top_k"],
        estimator=settings.estimators[0],
        curves=curves_parts,
        curve_options=CurveOptions(
            resolution=settings.pd["resolution"], percentiles=(0.0, 1.0), class_index=pd_class_index
        ),
    )
    # the members' test predictions in the order of the member table (the same in one job and with
    # refit jobs), and the distinct functions / default-ε columns of sets, mcr and path (issue 35)
    index = members.drop_duplicates(["family", "config_id"])[["family", "config_id"]].astype(str)
    index = index.reset_index(drop=True)
    pos = {
        k: i for i, k in enumerate(pred_keys[["family", "config_id"]].astype(str).itertuples(index=False, name=None))
    }
    predictions = pred[[pos[k] for k in index.itertuples(index=False, name=None)]]
    index.insert(0, "member", np.arange(len(index)))
    counts = {"members": members, "keys": index, "predictions": predictions, "default_epsilon": epsilon}
    mcr = mcr[MCR_FIRST + [c for c in mcr.columns if c not in MCR_FIRST]]
    return RashomonStudy(
        sets=function_count_columns(sets, **counts),
        members=members,
        mcr=function_count_columns(mcr, **counts),
        path=function_count_columns(path, **counts, path=True),
        envelope=envelope,
        curves=curves,
        linear_exact=detail,
        n_groups=n_groups,
        predictions=predictions,
        prediction_index=index,
    )
