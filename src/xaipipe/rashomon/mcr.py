"""Model class reliance (MCR) over empirical Rashomon sets of CV grids.

Definition (Fisher, Rudin & Dominici 2019, JMLR 20(177), §4, eqs. for
:math:`MCR_-` and :math:`MCR_+`; seed 001 §4.1.3)
---------------------------------------------------------------------------
For a Rashomon set :math:`\\mathcal R(\\epsilon)` (:mod:`xaipipe.rashomon.sets`)
and a variable (one column or a one-hot group such as Abalone's ``Sex``),

.. math:: [MCR_-(\\epsilon), MCR_+(\\epsilon)] =
   [\\min_{f \\in \\mathcal R(\\epsilon)} MR(f), \\max_{f \\in \\mathcal R(\\epsilon)} MR(f)],

with :math:`MR(f) = e_{switch}(f) / e_{orig}(f)` the model reliance
(:mod:`xaipipe.explain.reliance`). *Plug-in* estimate (seed §4.1.3.2): every
member of the empirical set :math:`\\hat{\\mathcal R}(\\epsilon)` is refitted on the
training data and :math:`\\widehat{MR}` is computed on the test set; the interval
is the min and max over members. Fisher et al. define MCR on the ratio; the
difference ``e_switch - e_orig`` (loss units) is reported as a second
``quantity``.

Reading (Fisher et al. §4): :math:`MCR_+(\\epsilon)` near 1 means no
well-performing model relies on the variable; :math:`MCR_-(\\epsilon) > 1` means
*every* model in :math:`\\mathcal R(\\epsilon)` relies on it (each has
:math:`MR > 1`) - a statement about the set, not a comparison with the
reference model (the seed's §4.1.3.1 says "more than the reference model",
which is wrong: the reference's own MR lies inside the interval by
construction). :math:`MCR_-` near 1 means some good model barely uses the
variable, so it is not *necessary* for good prediction, though it may still be
heavily used by other good models.

Computation and cost
--------------------
* Members of :math:`\\hat{\\mathcal R}(\\epsilon_{max})` (the union over the
  requested scopes: each family alone and the cross-family set) are refitted once
  per *prefix group*: configurations that differ only in ``n_estimators`` come
  from one fit with the group's largest ``n_estimators``
  (:func:`xaipipe.models.grid.prefix_groups`, :mod:`xaipipe.models.prefix`).
* MR of all members of a fitted group comes from one pass: the tree engine
  (:mod:`xaipipe.rashomon.engine`) for random forests and gradient boosting,
  otherwise :func:`xaipipe.explain.reliance.reliance_arrays` with a predict-many
  callable (one ``predict`` per permuted data set for all prefixes).
* **Common random numbers**: every member is evaluated on the *same* permuted
  data sets (one array of permutations of shape ``(G, R, n)`` drawn once), and
  the same ``e_switch`` subsample, so differences of MR between members are not
  Monte-Carlo noise.
* ε-sensitivity reuses the members' MR: the sets are nested, only the min/max
  are recomputed per ε.

References
----------
Fisher, A., Rudin, C. & Dominici, F. (2019). All models are wrong, but many are
useful. JMLR 20(177), 1-81. Semenova, L., Rudin, C. & Parr, R. (2022). On the
existence of simpler machine learning models. FAccT '22 (Rashomon ratio).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from ..explain.reliance import (
    DEFAULT_MAX_ROWS,
    ESTIMATORS,
    RelianceArrays,
    features_from_groups,
    fitted_reliance_arrays,
    linear_coefficients,
    member_predictor,
    random_permutations,
    reliance_table,
    resolve_features,
)
from ..models.boosting import fit_estimator
from ..models.families import PREFIX_PARAM, get_family, make_estimator
from ..models.grid import config_id, prefix_groups
from .sets import CROSS_FAMILY, QUANTITIES, check_epsilons, epsilon_min, rashomon_set, select_set

__all__ = [
    "QUANTITIES",
    "SCOPES",
    "FittedGroup",
    "params_from_config_id",
    "fit_member_groups",
    "group_reliance",
    "members_reliance",
    "rashomon_scopes",
    "member_table",
    "mcr_table",
    "rashomon_reliance",
    "members_partial_dependence",
    "pd_envelope",
    "pd_envelope_table",
    "select_set",
]

#: Scope kinds: each family's own set, and the set over all families together.
SCOPES = ("family", CROSS_FAMILY)

#: Columns of a CV summary that are not hyperparameters.
_SUMMARY_FIXED = {
    "dataset", "family", "config_id", "config_index", "prefix_group", "n_folds", "status",
    "message", "fit_time_s", "predict_time_s", "loss", "gap", "in_set", "is_reference",
}


# ----------------------------------------------------------------------------- configurations


def params_from_config_id(cid: str) -> dict:
    """Hyperparameters of a configuration from its :func:`config_id`.

    Values are parsed as JSON (``2`` -> int, ``0.1`` -> float, ``null`` -> None,
    ``true`` -> True) and kept as text otherwise (``huber``). The result is checked
    to give back the same identifier.

    Raises
    ------
    ValueError
        A malformed identifier, or one that does not round-trip.
    """
    if not isinstance(cid, str) or not cid:
        raise ValueError(f"config_id must be a non-empty string, got {cid!r}")
    if cid == "default":
        return {}
    params = {}
    for part in cid.split(";"):
        key, sep, text = part.partition("=")
        if not sep or not key:
            raise ValueError(f"malformed config_id {cid!r} (part {part!r})")
        try:
            value = json.loads(text)
        except json.JSONDecodeError:
            value = text
        if isinstance(value, (list, dict)):
            value = text
        params[key] = value
    if config_id(params) != cid:
        raise ValueError(f"config_id {cid!r} does not round-trip (parsed {params})")
    return params


def _hyperparameter_columns(frame: pd.DataFrame) -> list[str]:
    out = []
    for c in frame.columns:
        if c in _SUMMARY_FIXED or c.endswith("_mean") or c.endswith("_std"):
            continue
        if c.startswith(("gap_", "min_epsilon_", "is_reference_")):
            continue
        out.append(c)
    return out


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


def _fit_one(family, task, base, ks, X, y, seed, options):
    params = dict(base)
    if ks:
        params[PREFIX_PARAM] = max(ks)
    est = make_estimator(family, task, params, seed=seed, n_jobs=1, options=options)
    t0 = time.perf_counter()
    fit_estimator(est, X, y)
    return est, time.perf_counter() - t0


#: Relative fit cost per tree by family (Wine, full run: a 2 000-tree forest 34 s,
#: a 2 000-stage gradient boosting 13 s, a 2 000-round XGBoost 0.6-2.3 s); only
#: orders the refits.
_FIT_COST_PER_TREE = {"random_forest": 3.0, "gradient_boosting": 1.0, "xgboost": 0.1}


def _fit_cost(family, ks) -> float:
    return _FIT_COST_PER_TREE.get(family, 0.01) * (max(ks) if ks else 1)


def fit_member_groups(
    members: pd.DataFrame,
    task: str,
    X,
    y,
    *,
    seed: int,
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
    seed : int
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
        Missing columns or an unparsable ``config_id``; ``KeyError`` for an
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
        delayed(_fit_one)(jobs[i][0], task, jobs[i][1], jobs[i][2], X, y, seed, opts.get(jobs[i][0]))
        for i in order
    )
    fitted = [None] * len(jobs)
    for i, res in zip(order, done):
        fitted[i] = res
    return [
        FittedGroup(fam, base, list(ks), ids, est, t)
        for (fam, base, ks, ids), (est, t) in zip(jobs, fitted)
    ]


# ----------------------------------------------------------------------------- reliance


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
    use_engine: bool = True,
    max_rows_per_batch: int = DEFAULT_MAX_ROWS,
    n_jobs: int | None = 1,
) -> RelianceArrays:
    """MR of every member of one fitted group in one pass.

    Gradient boosting and random forests (except for ``e_divide``:
    :func:`xaipipe.rashomon.engine.engine_preferred`) go through the tree engine
    (:func:`xaipipe.rashomon.engine.ensemble_reliance_arrays`, bitwise equal to
    the generic path); other models through
    :func:`xaipipe.explain.reliance.reliance_arrays` with
    :func:`~xaipipe.explain.reliance.member_predictor` (all prefixes of XGBoost
    from one call per permuted data set; a linear regressor with
    ``estimator="e_switch"`` and squared loss uses the exact closed form).

    Parameters
    ----------
    group : FittedGroup
    X, y : test data
    features, feature_names, estimator, loss, permutations, max_rows_per_batch
        As :func:`xaipipe.explain.reliance.model_reliance`; give the same
        ``permutations`` (shape ``(G, R, n)``) to every group.
    use_engine : bool, default True
        False forces the generic path (used to check the engine).
    n_jobs : int or None, default 1
        Threads of the tree engine's compiled kernel, or of the row blocks of
        the generic path's ensemble predictions (:func:`member_predictor`); the
        result does not depend on it.

    Returns
    -------
    RelianceArrays
        Members in the order of ``group.config_ids``.
    """
    linear = None
    if not group.n_estimators and estimator == "e_switch" and loss == "squared_error":
        try:
            linear = linear_coefficients(group.model)
        except TypeError:
            linear = None
    return fitted_reliance_arrays(
        group.model, X, y, n_estimators=group.n_estimators or None, linear=linear, n_jobs=n_jobs,
        use_engine=use_engine, features=features, feature_names=feature_names, estimator=estimator, loss=loss,
        permutations=permutations, max_rows_per_batch=max_rows_per_batch,
    )


def members_reliance(
    groups: Sequence[FittedGroup],
    X,
    y,
    *,
    features=None,
    feature_names: Sequence[str] | None = None,
    estimators: Sequence[str] = ("permutation",),
    loss: str = "squared_error",
    n_repeats: int = 20,
    random_state=None,
    e_switch_max_rows: int | None = 400,
    use_engine: bool = True,
    max_rows_per_batch: int = DEFAULT_MAX_ROWS,
    n_jobs: int | None = 1,
) -> pd.DataFrame:
    """Model reliance of every member of every group, with common random numbers.

    Parameters
    ----------
    groups : sequence of FittedGroup
    X : array-like of shape (n, p)
        Test data.
    y : array-like of shape (n,)
    features : mapping name -> columns, optional
        Variables (one-hot groups permuted jointly); default every column.
    feature_names : sequence of str, optional
    estimators : sequence of {"permutation", "e_divide", "e_switch"}
    loss : str
        ``squared_error`` (regression), ``log_loss`` or ``zero_one``.
    n_repeats : int, default 20
        Permutations per variable (``"permutation"``).
    random_state : int or None
        Seed of the permutations (drawn once, shared by all members) and of the
        ``e_switch`` subsample.
    e_switch_max_rows : int or None, default 400
        ``e_switch`` uses all ``n(n-1)`` pairs of at most this many test rows, a
        seeded subsample shared by all members (as
        :func:`xaipipe.explain.summary.reliance_report`); None: all rows.
    use_engine : bool, default True
    max_rows_per_batch : int
    n_jobs : int or None, default 1
        Threads of the tree engine or of the generic path's row blocks
        (:func:`group_reliance`); results do not depend on it.

    Returns
    -------
    DataFrame
        One row per member × variable × estimator: ``family``, ``config_id``,
        ``n_estimators`` (NaN for non-ensembles) and the columns of
        :data:`xaipipe.explain.reliance.RELIANCE_COLUMNS` except ``member``
        (``e_orig`` is the member's test loss), plus ``compute_time_s`` (seconds
        of its group's pass for that estimator).

    Raises
    ------
    ValueError
        Unknown estimator, empty ``groups``, or invalid inputs.
    """
    if not groups:
        raise ValueError("no fitted groups given")
    bad = [e for e in estimators if e not in ESTIMATORS]
    if bad or not estimators:
        raise ValueError(f"estimators must be a non-empty subset of {list(ESTIMATORS)}, got {list(estimators)}")
    Xv = X.to_numpy() if hasattr(X, "to_numpy") else np.asarray(X)
    if feature_names is None and hasattr(X, "columns"):
        feature_names = [str(c) for c in X.columns]
    yv = np.asarray(y)
    n = Xv.shape[0]
    G = len(resolve_features(features, Xv.shape[1], feature_names))
    frames = []
    for est_name in estimators:
        Xe, ye, perms = Xv, yv, None
        if est_name == "permutation":
            perms = random_permutations(n, int(n_repeats), G, random_state)
        elif est_name == "e_switch" and e_switch_max_rows is not None and n > e_switch_max_rows:
            rows = np.sort(np.random.default_rng(random_state).choice(n, int(e_switch_max_rows), replace=False))
            Xe, ye = Xv[rows], yv[rows]
        for grp in groups:
            t0 = time.perf_counter()
            arr = group_reliance(
                grp, Xe, ye, features=features, feature_names=feature_names, estimator=est_name,
                loss=loss, permutations=perms, use_engine=use_engine, max_rows_per_batch=max_rows_per_batch,
                n_jobs=n_jobs,
            )
            elapsed = time.perf_counter() - t0
            tab = reliance_table(arr)
            member = tab.pop("member").to_numpy()
            tab.insert(0, "n_estimators", [grp.n_estimators[i] if grp.n_estimators else np.nan for i in member])
            tab.insert(0, "config_id", [grp.config_ids[i] for i in member])
            tab.insert(0, "family", grp.family)
            tab["compute_time_s"] = elapsed
            frames.append(tab)
    return pd.concat(frames, ignore_index=True)


# ----------------------------------------------------------------------------- sets and tables


def rashomon_scopes(
    summary: pd.DataFrame,
    *,
    metric: str,
    epsilon: float,
    mode: str = "relative",
    scopes: Sequence[str] = SCOPES,
    references: Mapping[str, Any] | None = None,
) -> dict:
    """Rashomon sets of every scope at one ε.

    Parameters
    ----------
    summary : DataFrame
        CV summaries of one dataset, one or several families concatenated.
    scopes : sequence of {"family", "cross_family"}
        ``"family"``: one set per family (its own reference); ``"cross_family"``:
        one set over all rows (skipped when there is only one family).
    references : mapping scope -> reference, optional
        Reference per scope name (a family name or ``"cross_family"``), as
        :func:`~xaipipe.rashomon.sets.rashomon_set`'s ``reference``.

    Returns
    -------
    dict scope name -> RashomonSet
    """
    bad = [s for s in scopes if s not in SCOPES]
    if bad or not scopes:
        raise ValueError(f"scopes must be a non-empty subset of {list(SCOPES)}, got {list(scopes)}")
    references = dict(references or {})
    out = {}
    fams = list(pd.unique(summary["family"].astype(str)))
    if "family" in scopes:
        for fam in fams:
            part = summary[summary["family"].astype(str) == fam]
            out[fam] = rashomon_set(part, metric=metric, epsilon=epsilon, mode=mode, reference=references.get(fam))
    if CROSS_FAMILY in scopes and (len(fams) > 1 or "family" not in scopes):
        out[CROSS_FAMILY] = rashomon_set(
            summary, metric=metric, epsilon=epsilon, mode=mode, reference=references.get(CROSS_FAMILY)
        )
    return out


def member_table(
    sets: Mapping[str, Any],
    reliance: pd.DataFrame,
    *,
    epsilons: Sequence[float],
    dataset: str | None = None,
) -> pd.DataFrame:
    """Member-level table: one row per member × variable × estimator.

    Parameters
    ----------
    sets : mapping scope -> RashomonSet
        At the largest ε (:func:`rashomon_scopes`).
    reliance : DataFrame
        :func:`members_reliance` output for (at least) the members of ``sets``.
    epsilons : sequence of float
        The ε grid (for the ``min_epsilon_*`` columns).
    dataset : str, optional

    Returns
    -------
    DataFrame
        ``dataset``, ``family``, ``config_id``, the hyperparameter columns,
        ``cv_metric``, ``cv_loss`` (CV mean), ``cv_loss_std``, ``epsilon_mode``,
        and per scope ``s`` of the member's family and the cross-family scope:
        ``gap_<s>`` (distance to that scope's reference), ``min_epsilon_<s>``
        (smallest grid ε whose set contains the member; NaN if none: the member is
        in ``R(ε)`` iff ``min_epsilon <= ε``) and ``is_reference_<s>``; the family
        scope's columns are named ``*_family``. Then the reliance columns
        (``feature``, ``estimator``, ``algorithm``, ``loss``, ``e_orig``,
        ``e_switch``, ``mr_ratio``, ``mr_difference``, their ``_std`` / ``_se``,
        ``n_repeats``, ``n_samples``) and ``rank_mr_ratio`` (1 = the member's most
        relied-on variable, per member and estimator; ties share the minimum rank).

    Raises
    ------
    ValueError
        A set member without reliance rows.
    """
    grid = check_epsilons(epsilons)
    first = next(iter(sets.values()))
    metric, mode = first.metric, first.mode
    # every configuration in any scope's largest set
    parts = []
    for scope, rs in sets.items():
        mem = rs.members.copy()
        parts.append(mem)
    members = pd.concat(parts, ignore_index=True).drop_duplicates(["family", "config_id"])
    hyper = _hyperparameter_columns(members)
    base = members[["family", "config_id"] + hyper].copy()
    base.insert(0, "dataset", dataset if dataset is not None else (
        members["dataset"].iloc[0] if "dataset" in members else ""))
    base["cv_metric"] = metric
    base["cv_loss"] = members[f"{metric}_mean"].to_numpy(dtype=float)
    std = f"{metric}_std"
    base["cv_loss_std"] = members[std].to_numpy(dtype=float) if std in members else np.nan
    base["epsilon_mode"] = mode
    key = ["family", "config_id"]
    base["family"] = base["family"].astype(str)
    base["config_id"] = base["config_id"].astype(str)
    scoped = {
        "family": [rs.table for name, rs in sets.items() if name != CROSS_FAMILY],
        CROSS_FAMILY: [sets[CROSS_FAMILY].table] if CROSS_FAMILY in sets else [],
    }
    for label, tables in scoped.items():
        if tables:
            info = pd.concat([t[key + ["gap", "is_reference"]] for t in tables], ignore_index=True)
            info = info.astype({"family": str, "config_id": str})
            info = base[key].merge(info, on=key, how="left", validate="one_to_one")
            gap = info["gap"].to_numpy(dtype=float)
            ref = info["is_reference"].fillna(False).to_numpy(dtype=bool)
        else:
            gap = np.full(len(base), np.nan)
            ref = np.zeros(len(base), dtype=bool)
        base[f"gap_{label}"] = gap
        base[f"min_epsilon_{label}"] = epsilon_min(gap, grid)
        base[f"is_reference_{label}"] = ref
    rel = reliance.copy()
    rel["family"] = rel["family"].astype(str)
    rel["config_id"] = rel["config_id"].astype(str)
    rel = rel.drop(columns=[c for c in ("compute_time_s",) if c in rel.columns])
    if "n_estimators" in base.columns:
        rel = rel.drop(columns=[c for c in ("n_estimators",) if c in rel.columns])
    merged = base.merge(rel, on=key, how="left", validate="one_to_many")
    missing = merged["feature"].isna()
    if missing.any():
        f, c = merged.loc[missing, key].iloc[0]
        raise ValueError(f"no reliance rows for member ({f}, {c})")
    merged["rank_mr_ratio"] = (
        merged.groupby(["family", "config_id", "estimator"])["mr_ratio"]
        .rank(ascending=False, method="min")
        .astype(int)
    )
    return merged.reset_index(drop=True)


def mcr_table(
    members: pd.DataFrame,
    sets: Mapping[str, Any],
    *,
    epsilons: Sequence[float],
    quantities: Sequence[str] = QUANTITIES,
) -> pd.DataFrame:
    """Model class reliance intervals for every scope, ε, variable, estimator.

    Parameters
    ----------
    members : DataFrame
        :func:`member_table` output.
    sets : mapping scope -> RashomonSet
        The sets used for ``members`` (their reference per scope).
    epsilons : sequence of float
        ε grid; each set ``R(ε)`` is read from the ``min_epsilon_*`` columns
        (nested sets, the members' MR is reused).
    quantities : sequence of {"mr_ratio", "mr_difference"}

    Returns
    -------
    DataFrame
        One row per scope × ε × variable × estimator × quantity: ``dataset``,
        ``scope``, ``epsilon``, ``epsilon_mode``, ``cv_metric``,
        ``reference_family``, ``reference_config_id``, ``feature``, ``estimator``,
        ``loss``, ``quantity``, ``mcr_minus`` (min over ``R(ε)``), ``mcr_plus``
        (max), ``mr_reference`` (the reference model's value), ``n_members``
        (``|R(ε)|``), ``n_undefined`` (members with a NaN/inf value, left out of
        min/max), ``argmin_config`` / ``argmax_config`` (``family:config_id`` of
        the extreme members), ``rashomon_ratio`` (``|R(ε)| / |F|`` of the scope's
        grid), ``grid_size``.

    Raises
    ------
    ValueError
        Unknown quantity, or a scope without its reference in ``members``.
    """
    grid = check_epsilons(epsilons)
    bad = [q for q in quantities if q not in QUANTITIES]
    if bad or not quantities:
        raise ValueError(f"quantities must be a non-empty subset of {list(QUANTITIES)}")
    rows = []
    dataset = members["dataset"].iloc[0] if "dataset" in members and len(members) else ""
    for scope, rs in sets.items():
        label = CROSS_FAMILY if scope == CROSS_FAMILY else "family"
        part = members if scope == CROSS_FAMILY else members[members["family"] == scope]
        col = f"min_epsilon_{label}"
        ref_rows = part[part[f"is_reference_{label}"]]
        if ref_rows.empty:
            raise ValueError(f"scope {scope!r}: the reference model has no rows in the member table")
        grid_size = rs.grid_size
        for eps in grid:
            in_set = part[part[col] <= eps]
            n_members = in_set[["family", "config_id"]].drop_duplicates().shape[0]
            for (feature, est), sub in in_set.groupby(["feature", "estimator"], sort=False):
                ref = ref_rows[(ref_rows["feature"] == feature) & (ref_rows["estimator"] == est)]
                for q in quantities:
                    v = sub[q].to_numpy(dtype=float)
                    fin = np.isfinite(v)
                    if fin.any():
                        lo, hi = int(np.flatnonzero(fin)[np.argmin(v[fin])]), int(np.flatnonzero(fin)[np.argmax(v[fin])])
                        mn, mx = float(v[lo]), float(v[hi])
                        amin = f"{sub['family'].iloc[lo]}:{sub['config_id'].iloc[lo]}"
                        amax = f"{sub['family'].iloc[hi]}:{sub['config_id'].iloc[hi]}"
                    else:
                        mn = mx = np.nan
                        amin = amax = ""
                    rows.append({
                        "dataset": dataset,
                        "scope": scope,
                        "epsilon": eps,
                        "epsilon_mode": rs.mode,
                        "cv_metric": rs.metric,
                        "reference_family": str(rs.reference["family"]),
                        "reference_config_id": str(rs.reference["config_id"]),
                        "feature": feature,
                        "estimator": est,
                        "loss": sub["loss"].iloc[0],
                        "quantity": q,
                        "mcr_minus": mn,
                        "mcr_plus": mx,
                        "mr_reference": float(ref[q].iloc[0]) if len(ref) else np.nan,
                        "n_members": n_members,
                        "n_undefined": int((~fin).sum()),
                        "argmin_config": amin,
                        "argmax_config": amax,
                        "rashomon_ratio": n_members / grid_size,
                        "grid_size": grid_size,
                    })
    return pd.DataFrame(rows)


def rashomon_reliance(
    summary: pd.DataFrame,
    X_train,
    y_train,
    X_test,
    y_test,
    *,
    task: str,
    metric: str,
    epsilons: Sequence[float],
    epsilon_mode: str = "relative",
    scopes: Sequence[str] = SCOPES,
    references: Mapping[str, Any] | None = None,
    features=None,
    feature_names: Sequence[str] | None = None,
    feature_groups: Mapping[str, Sequence[str]] | None = None,
    estimators: Sequence[str] = ("permutation",),
    loss: str | None = None,
    n_repeats: int = 20,
    e_switch_max_rows: int | None = 400,
    seed: int = 0,
    options: Mapping[str, Mapping[str, Any]] | None = None,
    dataset: str | None = None,
    n_jobs: int = 1,
    use_engine: bool = True,
) -> tuple[pd.DataFrame, pd.DataFrame, list]:
    """The whole MCR step of one dataset: sets, refits, MR, member and MCR tables.

    Parameters
    ----------
    summary : DataFrame
        The dataset's CV summaries (``<family>_summary.csv``), concatenated.
    X_train, y_train, X_test, y_test : arrays
        The prepared split (:class:`xaipipe.data.prepare.PreparedData`).
    task : {"regression", "classification"}
    metric : str
        CV loss defining the sets (``rmse`` / ``log_loss``).
    epsilons : sequence of float
        ε grid; members are those of the largest ε.
    epsilon_mode : {"relative", "absolute"}
    scopes, references
        See :func:`rashomon_scopes`.
    features : mapping name -> columns, optional
        Variables; default from ``feature_names`` and ``feature_groups``
        (:func:`xaipipe.explain.reliance.features_from_groups`: one-hot groups
        count as one variable).
    estimators, n_repeats, e_switch_max_rows
        See :func:`members_reliance`.
    loss : str, optional
        MR loss; default ``squared_error`` (regression) / ``log_loss``.
    seed : int
        Estimators' ``random_state`` (as in the CV) and the permutation seed.
    options : mapping family -> mapping
        ``estimator_options``.
    dataset : str, optional
    n_jobs : int
        Processes for the refits.
    use_engine : bool

    Returns
    -------
    members : DataFrame
        :func:`member_table`.
    mcr : DataFrame
        :func:`mcr_table`.
    groups : list of FittedGroup
        The refitted models (for PD envelopes).
    """
    grid = check_epsilons(epsilons)
    sets = rashomon_scopes(summary, metric=metric, epsilon=grid[-1], mode=epsilon_mode,
                           scopes=scopes, references=references)
    candidates = pd.concat([rs.members[["family", "config_id"]] for rs in sets.values()], ignore_index=True)
    groups = fit_member_groups(candidates, task, X_train, y_train, seed=seed, options=options, n_jobs=n_jobs)
    if features is None and feature_names is not None:
        features = features_from_groups(feature_names, feature_groups)
    if loss is None:
        loss = "squared_error" if task == "regression" else "log_loss"
    rel = members_reliance(
        groups, X_test, y_test, features=features, feature_names=feature_names, estimators=estimators,
        loss=loss, n_repeats=n_repeats, random_state=seed, e_switch_max_rows=e_switch_max_rows,
        use_engine=use_engine, n_jobs=n_jobs,
    )
    members = member_table(sets, rel, epsilons=grid, dataset=dataset)
    return members, mcr_table(members, sets, epsilons=grid), groups


# ----------------------------------------------------------------------------- PD envelope


def members_partial_dependence(
    groups: Sequence[FittedGroup],
    X,
    columns: Sequence[int],
    grid,
    *,
    class_index: int = 1,
    max_batch_rows: int = 100_000,
) -> pd.DataFrame:
    """Partial dependence of every member, one batched pass per fitted group.

    PD (Friedman 2001, §8.2): :math:`\\bar f_S(z_k) = \\frac1N \\sum_i f(z_k,
    x_C^{(i)})`. The ``N × K`` stacked rows (every observation at every grid
    point, grid-point major as :func:`xaipipe.explain.pdp.ice_curves`) are passed
    in chunks to the group's predict-many callable
    (:func:`xaipipe.explain.reliance.member_predictor`), which returns all
    ``n_estimators`` prefixes at once, so the cost is one pass per fitted group,
    not per member.

    Parameters
    ----------
    groups : sequence of FittedGroup
    X : array-like of shape (N, p)
    columns : sequence of int
        Column(s) set jointly to each grid point (one feature or a one-hot group).
    grid : array-like of shape (K,) or (K, len(columns))
    class_index : int, default 1
        Probability column for classifiers.
    max_batch_rows : int

    Returns
    -------
    DataFrame
        One row per member × grid point: ``family``, ``config_id``,
        ``grid_index``, ``pd`` (model output units: target units or probability).

    Raises
    ------
    ValueError
        Invalid columns or grid.
    """
    Xv = np.asarray(X.to_numpy() if hasattr(X, "to_numpy") else X, dtype=np.float64)
    cols = [int(c) for c in columns]
    if not cols or min(cols) < 0 or max(cols) >= Xv.shape[1] or len(set(cols)) != len(cols):
        raise ValueError(f"columns must be distinct indices in [0, {Xv.shape[1]}), got {columns!r}")
    Gm = np.asarray(grid, dtype=np.float64)
    if Gm.ndim == 1:
        Gm = Gm[:, None]
    if Gm.ndim != 2 or Gm.shape[1] != len(cols) or Gm.shape[0] == 0 or not np.isfinite(Gm).all():
        raise ValueError(f"grid must be finite with shape (K,) or (K, {len(cols)})")
    n, K = Xv.shape[0], Gm.shape[0]
    total = n * K
    frames = []
    for grp in groups:
        predict = member_predictor(grp.model, grp.n_estimators or None)
        sums = None
        for start in range(0, total, int(max_batch_rows)):
            stop = min(start + int(max_batch_rows), total)
            k, i = np.divmod(np.arange(start, stop), n)
            chunk = Xv[i]
            chunk[:, cols] = Gm[k]
            out = np.asarray(predict(chunk), dtype=np.float64)
            if out.ndim == 3:
                out = out[..., class_index]
            if sums is None:
                sums = np.zeros((out.shape[0], K))
            # rows are grid-point major: contiguous runs of one grid point
            starts = np.flatnonzero(np.r_[True, k[1:] != k[:-1]])
            sums[:, k[starts]] += np.add.reduceat(out, starts, axis=1)
        pdv = sums / n
        m = pdv.shape[0]
        frames.append(pd.DataFrame({
            "family": grp.family,
            "config_id": np.repeat(np.asarray(grp.config_ids, dtype=object), K),
            "grid_index": np.tile(np.arange(K), m),
            "pd": pdv.ravel(),
        }))
    return pd.concat(frames, ignore_index=True)


def pd_envelope(
    pd_members: pd.DataFrame,
    reference: tuple[str, str],
    members: pd.DataFrame | None = None,
    grid=None,
) -> pd.DataFrame:
    """Pointwise envelope of PD curves across a Rashomon set.

    Parameters
    ----------
    pd_members : DataFrame
        :func:`members_partial_dependence` output.
    reference : (family, config_id)
        The reference model.
    members : DataFrame with ``family``, ``config_id``, optional
        Restrict to these members (e.g. :func:`select_set` at one ε); default all.
    grid : array-like of shape (K,) or sequence of labels, optional
        Grid values (or level labels of a one-hot group) added as column ``x``.

    Returns
    -------
    DataFrame
        One row per grid point: ``grid_index``, ``x`` (if ``grid``), ``pd_min``,
        ``pd_max`` (pointwise min / max over the members), ``pd_reference``,
        ``n_members``.

    Raises
    ------
    ValueError
        The reference is not among the curves, or ``grid`` has the wrong length.
    """
    frame = pd_members
    if members is not None:
        keys = set(zip(members["family"].astype(str), members["config_id"].astype(str)))
        mask = [(f, c) in keys for f, c in zip(frame["family"].astype(str), frame["config_id"].astype(str))]
        frame = frame[np.asarray(mask, dtype=bool)]
    ref = frame[(frame["family"].astype(str) == str(reference[0]))
                & (frame["config_id"].astype(str) == str(reference[1]))]
    if ref.empty:
        raise ValueError(f"reference {reference!r} has no PD curve among the members")
    agg = frame.groupby("grid_index")["pd"].agg(["min", "max"]).rename(columns={"min": "pd_min", "max": "pd_max"})
    agg["pd_reference"] = ref.set_index("grid_index")["pd"]
    agg["n_members"] = frame[["family", "config_id"]].drop_duplicates().shape[0]
    agg = agg.reset_index()
    if grid is not None:
        values = list(np.asarray(grid).tolist()) if np.ndim(grid) == 1 else list(grid)
        if len(values) != len(agg):
            raise ValueError(f"grid has {len(values)} values for {len(agg)} grid points")
        agg.insert(1, "x", [values[i] for i in agg["grid_index"]])
    return agg


def pd_envelope_table(
    groups: Sequence[FittedGroup],
    members: pd.DataFrame,
    X,
    *,
    scope: str,
    epsilon: float,
    feature_names: Sequence[str],
    feature_groups: Mapping[str, Sequence[str]] | None = None,
    top_k: int = 2,
    estimator: str = "permutation",
    quantity: str = "mr_ratio",
    resolution: int = 30,
    percentiles: tuple[float, float] = (0.05, 0.95),
    max_batch_rows: int = 100_000,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """PD envelopes of the ``top_k`` variables of a Rashomon set, ready to save.

    The variables are the reference model's ``top_k`` by ``quantity``
    (``estimator``); grids come from :func:`xaipipe.explain.pdp.feature_grid`
    (numeric variables) or :func:`xaipipe.explain.pdp.onehot_grid` (one-hot
    groups, labelled by level). Only the members of ``R(ε)`` of ``scope`` are
    evaluated, one batched pass per fitted group.

    Returns
    -------
    envelope : DataFrame
        ``feature`` + the :func:`pd_envelope` columns (``x`` = grid value or
        level label) + ``scope``, ``epsilon``.
    curves : DataFrame
        ``feature`` + the :func:`members_partial_dependence` rows of the members.

    Raises
    ------
    ValueError
        ``top_k < 1`` or an empty selection.
    """
    from ..explain.pdp import feature_grid, onehot_grid

    if top_k < 1:
        raise ValueError(f"top_k must be >= 1, got {top_k!r}")
    sel = select_set(members, scope, epsilon)
    kind = CROSS_FAMILY if scope == CROSS_FAMILY else "family"
    ref_rows = sel[sel[f"is_reference_{kind}"].astype(bool) & (sel["estimator"] == estimator)]
    if ref_rows.empty:
        raise ValueError(f"no reference rows for estimator {estimator!r}")
    ref_key = (str(ref_rows["family"].iloc[0]), str(ref_rows["config_id"].iloc[0]))
    top = ref_rows.sort_values(quantity, ascending=False)["feature"].head(top_k).tolist()
    spec = features_from_groups(feature_names, feature_groups)
    keys = set(zip(sel["family"].astype(str), sel["config_id"].astype(str)))
    chosen = []
    for g in groups:
        idx = [i for i, c in enumerate(g.config_ids) if (g.family, c) in keys]
        if idx:
            chosen.append(FittedGroup(g.family, g.base_params, [g.n_estimators[i] for i in idx] if g.n_estimators
                                      else [], [g.config_ids[i] for i in idx], g.model, g.fit_time_s))
    Xv = np.asarray(X.to_numpy() if hasattr(X, "to_numpy") else X, dtype=np.float64)
    envs, curves = [], []
    for feature in top:
        cols = spec[feature]
        if len(cols) > 1:
            grid = onehot_grid(Xv[:, cols])
            names = [feature_names[c] for c in cols]
            labels = [names[int(np.argmax(v))] if v.any() else "(none)" for v in grid]
        else:
            grid = feature_grid(Xv[:, cols[0]], resolution, percentiles=percentiles)
            labels = grid
        pdm = members_partial_dependence(chosen, Xv, cols, grid, max_batch_rows=max_batch_rows)
        env = pd_envelope(pdm, ref_key, grid=labels)
        env.insert(0, "feature", feature)
        pdm.insert(0, "feature", feature)
        envs.append(env)
        curves.append(pdm)
    envelope = pd.concat(envs, ignore_index=True)
    envelope["scope"] = scope
    envelope["epsilon"] = float(epsilon)
    return envelope, pd.concat(curves, ignore_index=True)
