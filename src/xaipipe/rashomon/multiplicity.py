"""Predictive multiplicity over a Rashomon set: how much equally good models disagree on each row.

MCR says how much the members' *reliance* on a variable can differ; predictive multiplicity says
how much their *predictions* differ, row by row. Input: the members' test predictions as a matrix
``P`` of shape ``(m, n)`` (regression: the prediction; binary classification: the probability of
class 1), the reference member :math:`h_0` (the scope's CV-best configuration) and which members
are in the set (so one matrix serves every ε of the path and every scope).

Definitions
-----------
*Viable prediction range* (Watson-Daniels, Parkes & Ustun 2023, "Predictive multiplicity in
probabilistic classification", AAAI 37(9); for regression the same range of the predictions): per
row ``i``, :math:`[\\min_{h \\in R} P_{h,i}, \\max_{h \\in R} P_{h,i}]` and its width, in output units
(target units; probability). Summaries: mean, median and largest width, and the row with the largest.

*Ambiguity and discrepancy* (Marx, Calmon & Ustun 2020, "Predictive multiplicity in
classification", ICML, Definitions 3-4), with the predicted class :math:`\\hat y_h(x_i) =
1[P_{h,i} > \\text{threshold}]` (0.5: the pipeline's hard label, class 0 on ties):

* ambiguity :math:`\\alpha = \\frac1n \\sum_i \\max_{h \\in R} 1[\\hat y_h(x_i) \\ne \\hat y_{h_0}(x_i)]`,
  the share of rows whose class some member changes;
* discrepancy :math:`\\delta = \\max_{h \\in R} \\frac1n \\sum_i 1[\\hat y_h(x_i) \\ne \\hat y_{h_0}(x_i)]`,
  the most rows one member changes.

Always :math:`\\delta \\le \\alpha \\le \\sum_{h} \\frac1n \\sum_i 1[\\hat y_h \\ne \\hat y_{h_0}]` (a
row counted by the ambiguity is changed by at least one member). Marx et al. compute both over the
whole ε-level set by mixed-integer programs; here the set is the finite set of refitted members,
so both are exact for it (and lower bounds for the ε-set of the whole model class).

*Rashomon capacity* (Hsu & Calmon 2022, "Rashomon capacity: a metric for predictive
multiplicity in classification", NeurIPS 35): per row, :math:`2^{C_i}` with :math:`C_i` the
capacity (bits) of the channel from a member :math:`h` to a class :math:`y` with transition
:math:`p_h(y \\mid x_i)`, :math:`C_i = \\max_{q \\in \\Delta_m} I(q)` (mutual information between a
member drawn from ``q`` and its class); exact for a binary task (only the two extreme members
matter, :func:`rashomon_capacity`), by Blahut-Arimoto iterations otherwise. It is 1 when all
members give the row the same probabilities and ``c`` (2 for a
binary task) when members predict each class with certainty. Classification only.

*Distinct functions*: members whose test predictions are bitwise identical are one function (on
Airfoil, XGBoost prefixes past convergence); :func:`n_distinct_functions` counts the distinct ones.
Duplicates change no range, ambiguity or discrepancy; they change only counts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..validation import check_finite, check_int
from ._frames import NamedFrames

__all__ = [
    "MultiplicityResult",
    "MultiplicityTables",
    "n_distinct_functions",
    "rashomon_capacity",
    "predictive_multiplicity",
    "multiplicity_path",
    "scope_multiplicity",
    "members_predictions",
    "function_count_columns",
    "multiplicity_tables",
]

#: ``task`` options.
TASKS = ("regression", "classification")


def _check_predictions(predictions, task: str | None = None) -> np.ndarray:
    P = np.asarray(predictions)
    if P.ndim != 2 or P.shape[0] < 1 or P.shape[1] < 1:
        raise ValueError(f"predictions must have shape (n_members, n_rows), got {P.shape}")
    if P.dtype.kind not in "biuf":
        raise ValueError(f"predictions must be numeric, got dtype {P.dtype}")
    check_finite(P, "predictions")
    if task == "classification" and (P.min() < 0 or P.max() > 1):
        raise ValueError("classification predictions must be probabilities of class 1 in [0, 1]")
    return P


def _check_task(task: str) -> str:
    if task not in TASKS:
        raise ValueError(f"task must be one of {TASKS}, got {task!r}")
    return task


def n_distinct_functions(predictions) -> int:
    """Members whose predictions are bitwise distinct.

    Parameters
    ----------
    predictions : array-like of shape (m, n)
        One row per member (test predictions).

    Returns
    -------
    int
        The number of distinct rows, compared byte for byte (``-0.0`` and ``0.0`` differ; a
        float32 member differs from its float64 copy unless cast first).

    Raises
    ------
    ValueError
        Not a 2-D numeric array.
    """
    P = np.ascontiguousarray(_check_predictions(predictions))
    return len({row.tobytes() for row in P})


def _binary_kl(p: np.ndarray, r: np.ndarray) -> np.ndarray:
    """``D(Bernoulli(p) || Bernoulli(r))`` in nats, ``0 log 0 = 0``."""
    with np.errstate(divide="ignore", invalid="ignore"):
        a = np.where(p > 0, p * np.log(p / r), 0.0)
        b = np.where(p < 1, (1 - p) * np.log((1 - p) / (1 - r)), 0.0)
    return a + b


def rashomon_capacity(probabilities, *, max_iter: int = 5000, tol: float = 1e-12) -> np.ndarray:
    """Rashomon capacity :math:`2^{C_i}` of each row (Hsu & Calmon 2022).

    The capacity is the information radius :math:`C_i = \\min_r \\max_h D(p_h \\| r)` of the
    members' class distributions (Gallager 1968, Thm 4.5.1). *Binary* task: :math:`D(p \\| r)` is
    convex in ``p``, so only the two extreme members matter, and ``C`` is :math:`D(p_{min} \\| r^*)`
    with :math:`r^*` the root of :math:`D(p_{min} \\| r) = D(p_{max} \\| r)`, found by bisection
    (exact to float precision). More classes: Blahut-Arimoto iterations (Blahut 1972, Arimoto
    1972) until the upper and lower bounds of ``C`` meet within ``tol`` bits.

    Parameters
    ----------
    probabilities : array-like of shape (m, n) or (m, n, c)
        Class-1 probabilities of ``m`` members on ``n`` rows (binary), or every class's.
    max_iter : int, default 5000
        Blahut-Arimoto iterations at most (``c > 2``).
    tol : float, default 1e-12

    Returns
    -------
    ndarray of shape (n,)
        In ``[1, c]``.

    Raises
    ------
    ValueError
        Probabilities outside [0, 1] or rows that do not sum to 1.
    """
    W = np.asarray(probabilities, dtype=np.float64)
    if W.ndim == 2:
        if W.min() < 0 or W.max() > 1:
            raise ValueError("class-1 probabilities must lie in [0, 1]")
        lo, hi = W.min(axis=0), W.max(axis=0)
        a, b = lo.copy(), hi.copy()  # bracket of r*: D(lo || r) - D(hi || r) rises from < 0 to > 0
        for _ in range(200):
            mid = (a + b) / 2
            up = _binary_kl(lo, mid) > _binary_kl(hi, mid)
            b = np.where(up, mid, b)
            a = np.where(up, a, mid)
        r = (a + b) / 2
        cap = np.where(hi > lo, np.maximum(_binary_kl(lo, r), _binary_kl(hi, r)), 0.0)
        return np.power(2.0, np.clip(cap, 0.0, None) / np.log(2))
    if W.ndim != 3 or W.min() < 0 or W.max() > 1 or not np.allclose(W.sum(axis=-1), 1.0, atol=1e-8):
        raise ValueError("probabilities must be (m, n) class-1 probabilities or (m, n, c) distributions")
    W = np.transpose(W, (1, 0, 2))  # (n, m, c)
    n, m, _ = W.shape
    q = np.full((n, m), 1.0 / m)
    logW = np.log(np.where(W > 0, W, 1.0))

    def divergences(q):
        r = np.einsum("nm,nmc->nc", q, W)
        logr = np.log(np.where(r > 0, r, 1.0))
        return np.einsum("nmc,nmc->nm", W, logW - logr[:, None, :])  # D(W_h || r) in nats

    for _ in range(check_int(max_iter, "max_iter", minimum=1)):
        D = divergences(q)
        lower = np.log(np.einsum("nm,nm->n", q, np.exp(D)))
        upper = D.max(axis=1)
        if np.all(upper - lower < tol * np.log(2)):
            break
        q = q * np.exp(D)
        q /= q.sum(axis=1, keepdims=True)
    D = divergences(q)
    capacity_bits = np.clip(np.einsum("nm,nm->n", q, D), 0.0, None) / np.log(2)
    return np.power(2.0, capacity_bits)


@dataclass(frozen=True)
class MultiplicityResult:
    """Predictive multiplicity of one Rashomon set.

    Attributes
    ----------
    rows : DataFrame
        One row per test row: ``row``, ``reference`` (the reference member's prediction),
        ``min``, ``max``, ``width``; for classification also ``class_reference``,
        ``n_class_1`` (members predicting class 1), ``flips`` (members disagree on the class),
        ``ambiguous`` (some member's class differs from the reference's) and, when computed,
        ``rashomon_capacity``.
    summary : dict
        ``task``, ``n_members``, ``n_distinct_functions``, ``n_rows``, ``mean_width``,
        ``median_width``, ``max_width``, ``max_width_row``; classification: ``ambiguity``,
        ``discrepancy``, ``disagreement_sum`` (the sum bound), ``share_flipping``,
        ``mean_capacity``, ``max_capacity`` (NaN unless computed).
    member_disagreement : ndarray of shape (m,)
        Classification: each member's share of rows whose class differs from the reference's
        (NaN for regression).
    """

    rows: pd.DataFrame
    summary: dict
    member_disagreement: np.ndarray = field(repr=False)

    def to_frame(self) -> pd.DataFrame:
        """The per-row table (:attr:`rows`)."""
        return self.rows

    def summary_frame(self) -> pd.DataFrame:
        """The summary as a one-row table."""
        return pd.DataFrame([self.summary])


def _select(P: np.ndarray, members, reference: int) -> tuple[np.ndarray, int]:
    m = P.shape[0]
    reference = check_int(reference, "reference", minimum=0)
    if reference >= m:
        raise ValueError(f"reference {reference} out of range for {m} members")
    if members is None:
        return P, reference
    sel = np.asarray(members)
    if sel.dtype == bool:
        if sel.shape != (m,):
            raise ValueError(f"a boolean members mask must have shape ({m},), got {sel.shape}")
        idx = np.flatnonzero(sel)
    else:
        idx = np.unique(sel.astype(np.intp))
        if idx.size and (idx.min() < 0 or idx.max() >= m):
            raise ValueError(f"member index out of range for {m} members")
    if reference not in set(idx.tolist()):
        raise ValueError(f"the reference member {reference} is not among the selected members")
    return P[idx], int(np.flatnonzero(idx == reference)[0])


def predictive_multiplicity(
    predictions,
    *,
    task: str,
    reference: int = 0,
    members=None,
    threshold: float = 0.5,
    capacity: bool = False,
    row_ids=None,
) -> MultiplicityResult:
    """Viable prediction ranges, ambiguity, discrepancy (and Rashomon capacity) of a set of models.

    Parameters
    ----------
    predictions : array-like of shape (m, n)
        Test predictions of every candidate member (regression: target units; classification: the
        probability of class 1).
    task : {"regression", "classification"}
    reference : int, default 0
        Row of ``predictions`` holding the reference model :math:`h_0`.
    members : bool mask of shape (m,) or sequence of int, optional
        The members of the set (default: all rows); must include ``reference``.
    threshold : float, default 0.5
        Class 1 iff probability ``> threshold``.
    capacity : bool, default False
        Also compute the Rashomon capacity per row (classification).
    row_ids : array-like of shape (n,), optional
        Identifiers of the rows (e.g. positions in the prepared table); default ``0..n-1``.

    Returns
    -------
    MultiplicityResult

    Raises
    ------
    ValueError
        Invalid shapes, task, probabilities outside [0, 1], a reference outside the selection,
        ``capacity`` for regression.
    """
    task = _check_task(task)
    P_all = _check_predictions(predictions, task)
    P, ref = _select(P_all, members, reference)
    m, n = P.shape
    ids = np.arange(n) if row_ids is None else np.asarray(row_ids)
    if ids.shape != (n,):
        raise ValueError(f"row_ids must have shape ({n},), got {ids.shape}")
    lo, hi = P.min(axis=0), P.max(axis=0)
    width = (hi - lo).astype(np.float64)
    rows = pd.DataFrame(
        {"row": ids, "reference": P[ref].astype(np.float64), "min": lo.astype(np.float64), "max": hi, "width": width}
    )
    k = int(np.argmax(width))
    summary = {
        "task": task,
        "n_members": int(m),
        "n_distinct_functions": n_distinct_functions(P),
        "n_rows": int(n),
        "mean_width": float(width.mean()),
        "median_width": float(np.median(width)),
        "max_width": float(width[k]),
        "max_width_row": ids[k].item() if hasattr(ids[k], "item") else ids[k],
    }
    disagreement = np.full(m, np.nan)
    if task == "classification":
        cls = P > float(threshold)
        differ = cls != cls[ref]
        disagreement = differ.mean(axis=1)
        ambiguous = differ.any(axis=0)
        rows["class_reference"] = cls[ref].astype(np.int64)
        rows["n_class_1"] = cls.sum(axis=0).astype(np.int64)
        rows["flips"] = cls.any(axis=0) & ~cls.all(axis=0)
        rows["ambiguous"] = ambiguous
        summary.update(
            ambiguity=float(ambiguous.mean()),
            discrepancy=float(disagreement.max()),
            disagreement_sum=float(disagreement.sum()),
            share_flipping=float(rows["flips"].mean()),
            mean_capacity=float("nan"),
            max_capacity=float("nan"),
        )
        if capacity:
            rc = rashomon_capacity(P)
            rows["rashomon_capacity"] = rc
            summary.update(mean_capacity=float(rc.mean()), max_capacity=float(rc.max()))
    elif capacity:
        raise ValueError("the Rashomon capacity is defined for classification only")
    return MultiplicityResult(rows=rows, summary=summary, member_disagreement=disagreement)


def multiplicity_path(
    predictions,
    *,
    task: str,
    reference: int,
    min_epsilon,
    epsilons: Sequence[float],
    threshold: float = 0.5,
    capacity: bool = False,
) -> pd.DataFrame:
    """The summary of :func:`predictive_multiplicity` along an ε grid (the nested sets of one scope).

    Parameters
    ----------
    predictions : array-like of shape (m, n)
    task, reference, threshold, capacity
        As :func:`predictive_multiplicity`.
    min_epsilon : array-like of shape (m,)
        Smallest ε whose set contains each member (NaN: never), e.g. the ``min_epsilon_family``
        / ``min_epsilon_cross_family`` columns of ``members.csv``; member ``h`` is in
        :math:`R(\\epsilon)` iff ``min_epsilon[h] <= ε``.
    epsilons : sequence of float

    Returns
    -------
    DataFrame
        One row per ε (ascending): ``epsilon`` and the summary columns.

    Raises
    ------
    ValueError
        Mismatched shapes; an ε whose set lacks the reference.
    """
    from .sets import check_epsilons

    P = _check_predictions(predictions, task)
    me = np.asarray(min_epsilon, dtype=np.float64)
    if me.shape != (P.shape[0],):
        raise ValueError(f"min_epsilon must have shape ({P.shape[0]},), got {me.shape}")
    out = []
    for eps in check_epsilons(epsilons):
        with np.errstate(invalid="ignore"):
            mask = np.nan_to_num(me, nan=np.inf) <= eps
        res = predictive_multiplicity(
            P, task=task, reference=reference, members=mask, threshold=threshold, capacity=capacity
        )
        out.append({"epsilon": eps, **res.summary})
    return pd.DataFrame(out)


def scope_multiplicity(
    predictions,
    keys: pd.DataFrame,
    members: pd.DataFrame,
    *,
    task: str,
    epsilons: Sequence[float],
    threshold: float = 0.5,
    capacity: bool = False,
) -> pd.DataFrame:
    """:func:`multiplicity_path` of every scope of a member table (every family and the cross-family set).

    Parameters
    ----------
    predictions : array-like of shape (m, n)
        Test predictions in the order of ``keys`` (:func:`members_predictions`).
    keys : DataFrame
        ``family``, ``config_id`` of each row of ``predictions``.
    members : DataFrame
        ``members.csv`` (:func:`xaipipe.rashomon.members.member_table`; any number of rows per member):
        ``family``, ``config_id``, ``min_epsilon_family``, ``is_reference_family`` and, when there
        is a cross-family set, ``min_epsilon_cross_family``, ``is_reference_cross_family``.
    task, epsilons, threshold, capacity
        As :func:`multiplicity_path`.

    Returns
    -------
    DataFrame
        ``scope`` then :func:`multiplicity_path`'s columns; family scopes in alphabetical order,
        then ``cross_family``.

    Raises
    ------
    ValueError
        A member of the table without predictions, a scope without its reference.
    """
    from .sets import CROSS_FAMILY

    key = ["family", "config_id"]
    base = members.drop_duplicates(key).astype({"family": str, "config_id": str})
    k = keys[key].astype(str).reset_index(drop=True)
    pos = {tuple(r): i for i, r in enumerate(k.itertuples(index=False, name=None))}
    missing = [tuple(r) for r in base[key].itertuples(index=False, name=None) if tuple(r) not in pos]
    if missing:
        raise ValueError(f"no predictions for member(s) {missing[:3]}")
    P = _check_predictions(predictions, task)
    if P.shape[0] != len(k):
        raise ValueError(f"predictions has {P.shape[0]} rows but keys has {len(k)}")
    tables = []
    scopes = sorted(base["family"].unique().tolist())
    if f"min_epsilon_{CROSS_FAMILY}" in base and base[f"is_reference_{CROSS_FAMILY}"].astype(bool).any():
        scopes.append(CROSS_FAMILY)
    for scope in scopes:
        part = base if scope == CROSS_FAMILY else base[base["family"] == scope]
        label = CROSS_FAMILY if scope == CROSS_FAMILY else "family"
        ref_rows = part[part[f"is_reference_{label}"].astype(bool)]
        if len(ref_rows) != 1:
            raise ValueError(f"scope {scope!r} has {len(ref_rows)} reference members; expected 1")
        idx = np.array([pos[tuple(r)] for r in part[key].itertuples(index=False, name=None)])
        ref = int(np.flatnonzero(idx == pos[tuple(ref_rows[key].iloc[0])])[0])
        path = multiplicity_path(
            P[idx],
            task=task,
            reference=ref,
            min_epsilon=part[f"min_epsilon_{label}"].to_numpy(dtype=float),
            epsilons=epsilons,
            threshold=threshold,
            capacity=capacity,
        )
        path.insert(0, "scope", scope)
        tables.append(path)
    return pd.concat(tables, ignore_index=True)


def members_predictions(groups, X, *, class_index: int = 1) -> tuple[pd.DataFrame, np.ndarray]:
    """Test predictions of every member of fitted groups (:func:`xaipipe.rashomon.refit.fit_member_groups`).

    One predict-many pass per group (:func:`xaipipe.models.prefix.member_predictor`: every
    ``n_estimators`` prefix at once).

    Parameters
    ----------
    groups : sequence of FittedGroup
    X : array-like of shape (n, p)
    class_index : int, default 1
        Probability column of a classifier.

    Returns
    -------
    keys : DataFrame
        ``family``, ``config_id`` of each member, in group order.
    predictions : ndarray of shape (m, n), float64
        Regression predictions or class-``class_index`` probabilities.
    """
    from ..models.prefix import member_predictor

    Xv = X.to_numpy() if hasattr(X, "to_numpy") else np.asarray(X)
    fams, cids, blocks = [], [], []
    for g in groups:
        out = np.asarray(member_predictor(g.model, g.n_estimators or None)(Xv))
        if out.ndim == 3:
            out = out[..., class_index]
        blocks.append(out.astype(np.float64))
        fams += [g.family] * out.shape[0]
        cids += list(g.config_ids)
    return pd.DataFrame({"family": fams, "config_id": cids}), np.concatenate(blocks, axis=0)


def function_count_columns(
    table: pd.DataFrame,
    members: pd.DataFrame,
    keys: pd.DataFrame,
    predictions,
    *,
    default_epsilon: float,
    path: bool = False,
) -> pd.DataFrame:
    """``table`` with ``n_distinct_functions`` and ``is_default`` appended (``sets.csv``, ``mcr.csv``,
    ``mcr_path.csv``).

    ``n_distinct_functions`` counts the members of the row's set whose test predictions are bitwise
    distinct (:func:`n_distinct_functions`): the set of scope ``s`` at ε holds the members of
    ``members`` (of family ``s``, or all for ``cross_family``) with ``min_epsilon_<s> <= ε`` (ε-grid
    tables) or, on the exact path (``path=True``), with entry ``max(gap_<s>, 0) <= ε`` (as
    :func:`xaipipe.rashomon.mcr.mcr_path`). Scopes without members in ``members`` (``linear_exact``:
    a continuum of linear models, not refitted members) get NaN. ``size`` / ``n_members`` and the
    Rashomon ratio count members (configurations, every ``n_estimators`` prefix and every copy of a
    function); ``n_distinct_functions <= n_members``.

    ``is_default`` marks the configured default ε (config ``rashomon.epsilon``): on the ε grid the
    rows at that ε; on the exact path, per scope, the rows of the last step at or below it (the set
    in effect at the default ε).

    Parameters
    ----------
    table : DataFrame
        Rows with ``scope`` and ``epsilon``.
    members : DataFrame
        ``members.csv`` (:func:`xaipipe.rashomon.members.member_table`).
    keys : DataFrame
        ``family``, ``config_id`` of each row of ``predictions``.
    predictions : array-like of shape (m, n)
        The members' test predictions.
    default_epsilon : float
    path : bool, default False

    Returns
    -------
    DataFrame
        A copy of ``table`` with the two columns last.

    Raises
    ------
    ValueError
        A member without predictions; mismatched shapes.
    """
    from .sets import CROSS_FAMILY

    P = np.ascontiguousarray(_check_predictions(predictions))
    k = keys[["family", "config_id"]].astype(str).reset_index(drop=True)
    if len(k) != P.shape[0]:
        raise ValueError(f"predictions has {P.shape[0]} rows but keys has {len(k)}")
    digest = {tuple(r): P[i].tobytes() for i, r in enumerate(k.itertuples(index=False, name=None))}
    base = members.drop_duplicates(["family", "config_id"]).astype({"family": str, "config_id": str})
    missing = [
        tuple(r) for r in base[["family", "config_id"]].itertuples(index=False, name=None) if tuple(r) not in digest
    ]
    if missing:
        raise ValueError(f"no predictions for member(s) {missing[:3]}")
    families = set(base["family"])
    cache: dict = {}

    def count(scope: str, eps: float) -> float:
        if scope not in families and scope != CROSS_FAMILY:
            return float("nan")
        key = (scope, eps)
        if key not in cache:
            label = CROSS_FAMILY if scope == CROSS_FAMILY else "family"
            part = base if scope == CROSS_FAMILY else base[base["family"] == scope]
            if path:
                entry = np.maximum(part[f"gap_{label}"].to_numpy(dtype=float), 0.0)
                inside = np.nan_to_num(entry, nan=np.inf) <= eps
            else:
                inside = np.nan_to_num(part[f"min_epsilon_{label}"].to_numpy(dtype=float), nan=np.inf) <= eps
            sel = part[inside]
            cache[key] = float(len({digest[(f, c)] for f, c in zip(sel["family"], sel["config_id"])}))
        return cache[key]

    out = table.copy()
    scopes = out["scope"].astype(str).to_numpy()
    eps = out["epsilon"].to_numpy(dtype=float)
    out["n_distinct_functions"] = pd.Series([count(s, e) for s, e in zip(scopes, eps)], index=out.index).astype("Int64")
    if path:
        default = np.zeros(len(out), dtype=bool)
        for s in pd.unique(scopes):
            mine = scopes == s
            below = eps[mine][eps[mine] <= float(default_epsilon) + 1e-12]
            if below.size:
                default[mine] = eps[mine] == below.max()
        out["is_default"] = default
    else:
        out["is_default"] = eps == float(default_epsilon)
    return out


@dataclass(frozen=True)
class MultiplicityTables(NamedFrames):
    """The tables of the ``multiplicity`` rule (:func:`multiplicity_tables`).

    Attributes
    ----------
    multiplicity, path, rows : DataFrame
        Per scope on the ε grid (``multiplicity.csv``), on the exact ε-path
        (``multiplicity_path.csv``) and per scope and test row at the default ε
        (``multiplicity_rows.csv``).
    """

    multiplicity: pd.DataFrame
    path: pd.DataFrame
    rows: pd.DataFrame

    #: The tables, in the order the rule writes them.
    FRAMES = ("multiplicity", "path", "rows")


def multiplicity_tables(
    predictions,
    index: pd.DataFrame,
    members: pd.DataFrame,
    *,
    task: str,
    epsilons: Sequence[float],
    default_epsilon: float,
    row_ids=None,
    y_true=None,
    capacity: bool | None = None,
    dataset: str = "",
) -> MultiplicityTables:
    """The ``multiplicity`` rule: predictive multiplicity of every Rashomon scope on the ε grid, on the
    exact ε-path, and per test row at the default ε.

    Parameters
    ----------
    predictions : array-like of shape (m, n)
        The members' test predictions (``member_predictions.npy``: regression predictions or
        class-1 probabilities).
    index : DataFrame
        ``family``, ``config_id`` of each row of ``predictions`` (``member_predictions_index.csv``).
    members : DataFrame
        ``members.csv``.
    task : {"regression", "classification"}
    epsilons : sequence of float
        The ε grid (config ``rashomon.epsilons``); the exact path runs to its largest value.
    default_epsilon : float
        Config ``rashomon.epsilon`` (the ``is_default`` rows and the per-row table).
    row_ids, y_true : array-like of shape (n,), optional
        Row ids of the test rows (``row`` column: positions in ``prepared.csv``) and the observed
        response (``y_true``).
    capacity : bool, optional
        Rashomon capacity per row (default: for classification).
    dataset : str

    Returns
    -------
    MultiplicityTables
        ``multiplicity``: :func:`scope_multiplicity` on the ε grid with ``dataset`` first and
        ``is_default`` last; ``path``: the same at every entry ε of each scope up to the largest
        grid ε (member ``h`` enters at ``max(gap_h, 0)``, as :func:`xaipipe.rashomon.mcr.mcr_path`),
        ``is_default`` marking the step in effect at the default ε; ``rows``: per scope and test
        row at the default ε, :func:`predictive_multiplicity`'s rows with ``dataset``, ``scope``,
        ``epsilon``, ``row`` (the test row's id), ``y_true``. ``max_width_row`` is a row id
        (``row_ids``) in every table.

    Raises
    ------
    ValueError
        As :func:`scope_multiplicity`.
    """
    from .sets import CROSS_FAMILY

    task = _check_task(task)
    cap = (task == "classification") if capacity is None else bool(capacity)
    P = _check_predictions(predictions, task)
    grid = sorted({float(e) for e in epsilons})
    table = scope_multiplicity(P, index, members, task=task, epsilons=grid, capacity=cap)
    table.insert(0, "dataset", dataset)
    table["is_default"] = table["epsilon"].to_numpy(dtype=float) == float(default_epsilon)

    # exact path: the entry ε of every member (gap clipped at 0), evaluated as a min_epsilon grid
    base = members.drop_duplicates(["family", "config_id"]).copy()
    steps = {}
    for label in ("family", CROSS_FAMILY):
        if f"gap_{label}" in base:
            entry = np.maximum(base[f"gap_{label}"].to_numpy(dtype=float), 0.0)
            entry[~(entry <= grid[-1] + 1e-12)] = np.nan
            base[f"min_epsilon_{label}"] = entry
    scopes = sorted(base["family"].astype(str).unique().tolist())
    for s in scopes + [CROSS_FAMILY]:
        label = CROSS_FAMILY if s == CROSS_FAMILY else "family"
        if f"min_epsilon_{label}" not in base:
            continue
        part = base if s == CROSS_FAMILY else base[base["family"].astype(str) == s]
        e = part[f"min_epsilon_{label}"].to_numpy(dtype=float)
        steps[s] = np.unique(e[np.isfinite(e)])
    union = sorted({float(v) for v in np.concatenate(list(steps.values()))}) if steps else [0.0]
    path = scope_multiplicity(P, index, base, task=task, epsilons=union, capacity=cap)
    keep = np.array(
        [float(e) in set(steps.get(s, np.array([])).tolist()) for s, e in zip(path["scope"], path["epsilon"])]
    )
    path = path[keep].reset_index(drop=True)
    path.insert(0, "dataset", dataset)
    default = np.zeros(len(path), dtype=bool)
    sc, ep = path["scope"].to_numpy(), path["epsilon"].to_numpy(dtype=float)
    for s in pd.unique(sc):
        mine = sc == s
        below = ep[mine][ep[mine] <= float(default_epsilon) + 1e-12]
        if below.size:
            default[mine] = ep[mine] == below.max()
    path["is_default"] = default

    # per row at the default ε
    keys = index[["family", "config_id"]].astype(str).reset_index(drop=True)
    pos = {tuple(r): i for i, r in enumerate(keys.itertuples(index=False, name=None))}
    m0 = members.drop_duplicates(["family", "config_id"]).astype({"family": str, "config_id": str})
    n = P.shape[1]
    ids = np.arange(n) if row_ids is None else np.asarray(row_ids)
    if ids.shape != (n,):
        raise ValueError(f"row_ids must have shape ({n},), got {ids.shape}")
    for t in (table, path):  # the row of the widest range by its id, as in the per-row table
        t["max_width_row"] = ids[t["max_width_row"].to_numpy(dtype=np.int64)]
    frames = []
    for s in table["scope"].drop_duplicates():
        label = CROSS_FAMILY if s == CROSS_FAMILY else "family"
        part = m0 if s == CROSS_FAMILY else m0[m0["family"] == s]
        ref = part[part[f"is_reference_{label}"].astype(bool)]
        idx = np.array([pos[(f, c)] for f, c in zip(part["family"], part["config_id"])])
        inside = np.nan_to_num(part[f"min_epsilon_{label}"].to_numpy(dtype=float), nan=np.inf) <= float(default_epsilon)
        ref_pos = int(np.flatnonzero(idx == pos[(ref["family"].iloc[0], ref["config_id"].iloc[0])])[0])
        res = predictive_multiplicity(P[idx], task=task, reference=ref_pos, members=inside, capacity=cap, row_ids=ids)
        rows = res.rows.copy()
        rows.insert(0, "epsilon", float(default_epsilon))
        rows.insert(0, "scope", s)
        rows.insert(0, "dataset", dataset)
        if y_true is not None:
            rows.insert(4, "y_true", np.asarray(y_true, dtype=np.float64))
        frames.append(rows)
    return MultiplicityTables(multiplicity=table, path=path, rows=pd.concat(frames, ignore_index=True))
