"""Consensus over the Rashomon set: the partial order of variables that every member agrees on.

Definition (Laberge, Pequignot, Mathieu, Khomh & Marchand 2023, "Partial order in chaos: consensus
on feature attributions in the Rashomon set", JMLR 24(364), §3-4: a statement is *consensual*
when every model of the Rashomon set makes it)
-----------------------------------------------------------------------------------------------
For a Rashomon set :math:`\\mathcal R(\\epsilon)` (:mod:`xaipipe.rashomon.sets`) and an importance
:math:`\\phi_j(f)` of each variable ``j`` (here model reliance, :mod:`xaipipe.explain.reliance`),
two variables ``A``, ``B`` stand in exactly one relation:

* ``a_over_b`` (:math:`A \\succ B`): :math:`\\phi_A(f) > \\phi_B(f)` for **every** member ``f``;
* ``b_over_a``: the reverse for every member;
* ``tie``: :math:`\\phi_A(f) = \\phi_B(f)` for every member (e.g. two variables no tree of the set
  splits on, both with MR exactly 1);
* ``incomparable``: anything else -- some members order them one way and others the other way, or
  some tie them and some do not (weak dominance is *not* consensus).

:math:`\\succ` is a strict partial order (irreflexive, transitive: :math:`\\phi_A > \\phi_B` and
:math:`\\phi_B > \\phi_C` in every member give :math:`\\phi_A > \\phi_C` in every member) and ``tie`` an
equivalence whose classes compare alike with every other variable; the Hasse diagram
(:func:`hasse_diagram`) draws the covering pairs of the quotient order. The relation over a set of
members is the same whatever their order and however often a function appears in the set: it is a
statement about *every* member, so a member that is the same function as another (bitwise equal
test predictions: :func:`xaipipe.rashomon.multiplicity.n_distinct_functions`) changes nothing;
``n_functions`` reports how many distinct functions stand behind it. The reference model is a
member, so every consensual pair agrees with the reference model's own ranking, which orders all
pairs; the share of them the whole set confirms is the point of the table.

Estimator
---------
MR of member ``f`` on the test split with common random numbers (:mod:`xaipipe.rashomon.members`,
``members.csv``): per estimator (``permutation``, ``e_divide``, ...), the variables' order in a
member is that of :math:`e_{switch}` (the ratio :math:`e_{switch}/e_{orig}` and the difference
:math:`e_{switch} - e_{orig}` share the member's :math:`e_{orig}`, so both give that order; the
comparison is made on ``e_switch`` itself, which no rounding of a ratio can tie). The sets are the
scopes of the MCR table (each family, ``cross_family``) at every ε of its grid, read from the
members' ``min_epsilon_*`` columns (nested sets; as :func:`xaipipe.rashomon.mcr.mcr_table`). It is
the consensus of the *fitted members on this test split*: Monte-Carlo error of the permutations is
shared by all members (common random numbers), the test split's sampling error is not assessed
here (the Rashomon bootstrap, ``rashomon_bootstrap``, does that for MCR).

SHAP importance: the members carry no SHAP values (computing them for every member is not part of
the Rashomon step), so no consensus by SHAP is computed.

What is certified at the exact linear scope (``linear_exact``)
--------------------------------------------------------------
The class of all linear models (:mod:`xaipipe.rashomon.linear`) is infinite; its MCR bounds are
certified: every model of :math:`\\mathcal R(\\epsilon)` has
:math:`MR_A(f) \\ge` ``mcr_minus_lower(A)`` and :math:`MR_B(f) \\le` ``mcr_plus_upper(B)``. Hence

.. math:: \\text{mcr\\_minus\\_lower}(A) > \\text{mcr\\_plus\\_upper}(B) \\implies
          MR_A(f) > MR_B(f) \\ \\forall f \\in \\mathcal R(\\epsilon),

a **sufficient** condition for :math:`A \\succ B` (for the ratio or the difference: per model both
order the variables alike, so either certificate suffices); rows ``method = mcr_bounds``. It is not
necessary: the models that attain :math:`MCR_-(A)` and :math:`MCR_+(B)` are in general different,
so a pair can be ordered by every linear model without this certificate. Pairs without it are
``not_certified`` (never ``tie``: no finite check certifies equality over a continuum).

The order is also decided **exactly** (rows ``method = exact``;
:mod:`xaipipe.rashomon.linear_order`): :math:`A \\succ B` over the whole class iff the minimum of
:math:`e_{switch,A} - e_{switch,B}` over :math:`\\mathcal R(\\epsilon)` is positive, one trust-region
problem per pair with a certified bound; an ``incomparable`` pair comes with two models of the set
that order it both ways.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..data.prepare import importance_groups
from ..explain.reliance import features_from_groups
from .linear_order import linear_exact_order
from .sets import CROSS_FAMILY

__all__ = [
    "CONSENSUS_COLUMNS",
    "RELATIONS",
    "SUMMARY_COLUMNS",
    "ConsensusTables",
    "certified_order",
    "consensus_study",
    "consensus_tables",
    "default_summary",
    "hasse_diagram",
    "partial_order",
    "ranking_string",
]

#: Relations of a pair (``not_certified``: the linear scope's pairs without a certificate).
RELATIONS = ("a_over_b", "b_over_a", "tie", "incomparable", "not_certified")

#: The leading columns of both tables: what a row is about.
_KEY = ["dataset", "scope", "epsilon", "is_default", "quantity", "estimator", "method"]

#: Columns of ``consensus.csv``.
CONSENSUS_COLUMNS = [
    *_KEY,
    "feature_a",
    "feature_b",
    "relation",
    "n_a_over_b",
    "n_b_over_a",
    "n_equal",
    "n_members",
    "n_functions",
]

#: Columns of ``consensus_summary.csv`` (and of ``tables/consensus.csv``, its default-ε rows).
SUMMARY_COLUMNS = [
    *_KEY,
    "n_features",
    "n_pairs",
    "n_ordered",
    "n_ties",
    "n_incomparable",
    "share_ordered",
    "n_members",
    "n_functions",
    "reference",
    "reference_ranking",
    "reference_n_ordered",
]


def partial_order(values, features: Sequence[str] | None = None) -> pd.DataFrame:
    """The consensus relation of every pair of variables over a set of members.

    Parameters
    ----------
    values : array-like of shape (m, p) or DataFrame
        Importance of each variable (column) in each member (row); a DataFrame's columns name the
        variables. NaN: the member's value is undefined; the pair is then ``incomparable``.
    features : sequence of str, optional
        Variable names (default: the DataFrame's columns, else ``x0 .. x{p-1}``).

    Returns
    -------
    DataFrame
        One row per pair ``i < j`` in column order: ``feature_a``, ``feature_b``, ``relation``
        (``a_over_b``, ``b_over_a``, ``tie``, ``incomparable``; module docstring), ``n_a_over_b``,
        ``n_b_over_a``, ``n_equal`` (members with :math:`\\phi_A > \\phi_B`, :math:`<`, :math:`=`).

    Raises
    ------
    ValueError
        Not 2-D, no member, or a wrong number of names.
    """
    names = [str(c) for c in values.columns] if hasattr(values, "columns") else None
    V = np.asarray(values, dtype=np.float64)
    if V.ndim != 2 or V.shape[0] < 1 or V.shape[1] < 1:
        raise ValueError(f"values must be 2-D (members x variables) with a member, got shape {V.shape}")
    if features is not None:
        names = [str(f) for f in features]
    if names is None:
        names = [f"x{j}" for j in range(V.shape[1])]
    if len(names) != V.shape[1]:
        raise ValueError(f"{len(names)} names for {V.shape[1]} variables")
    gt = (V[:, :, None] > V[:, None, :]).sum(axis=0)
    eq = (V[:, :, None] == V[:, None, :]).sum(axis=0)
    m = V.shape[0]
    i, j = np.triu_indices(V.shape[1], k=1)
    rel = np.full(i.size, "incomparable", dtype=object)
    rel[gt[i, j] == m] = "a_over_b"
    rel[gt[j, i] == m] = "b_over_a"
    rel[eq[i, j] == m] = "tie"
    return pd.DataFrame(
        {
            "feature_a": [names[k] for k in i],
            "feature_b": [names[k] for k in j],
            "relation": rel,
            "n_a_over_b": gt[i, j],
            "n_b_over_a": gt[j, i],
            "n_equal": eq[i, j],
        }
    )


def certified_order(lower, upper, features: Sequence[str]) -> pd.DataFrame:
    """Pairs ordered by certified MCR bounds: ``a_over_b`` where ``lower[A] > upper[B]``.

    Parameters
    ----------
    lower, upper : array-like of shape (q, p) or (p,)
        Certified lower bound of :math:`MCR_-` and upper bound of :math:`MCR_+` of each variable,
        one row per MR quantity (ratio, difference): a pair is certified by any row.
    features : sequence of str

    Returns
    -------
    DataFrame
        As :func:`partial_order`, ``relation`` ``a_over_b`` / ``b_over_a`` / ``not_certified`` and
        ``n_*`` counts NaN (no members).
    """
    lo = np.atleast_2d(np.asarray(lower, dtype=np.float64))
    hi = np.atleast_2d(np.asarray(upper, dtype=np.float64))
    if lo.shape != hi.shape or lo.shape[1] != len(features):
        raise ValueError(f"lower {lo.shape} and upper {hi.shape} must have one column per feature ({len(features)})")
    over = (lo[:, :, None] > hi[:, None, :]).any(axis=0)  # over[a, b]: A > B certified
    i, j = np.triu_indices(len(features), k=1)
    rel = np.full(i.size, "not_certified", dtype=object)
    rel[over[i, j]] = "a_over_b"
    rel[over[j, i]] = "b_over_a"
    nan = np.full(i.size, np.nan)
    return pd.DataFrame(
        {
            "feature_a": [features[k] for k in i],
            "feature_b": [features[k] for k in j],
            "relation": rel,
            "n_a_over_b": nan,
            "n_b_over_a": nan,
            "n_equal": nan,
        }
    )


def ranking_string(values, features: Sequence[str]) -> str:
    """One model's full ranking, ``"a > b = c > d"`` (largest first; equal values tied; names in
    ``features`` order among equals)."""
    v = np.asarray(values, dtype=np.float64)
    order = np.argsort(-v, kind="stable")
    out = str(features[order[0]])
    for prev, k in zip(order[:-1], order[1:]):
        out += (" = " if v[k] == v[prev] else " > ") + str(features[k])
    return out


def hasse_diagram(pairs: pd.DataFrame):
    """The Hasse diagram of a pair table: tie classes merged, covering relations only.

    Parameters
    ----------
    pairs : DataFrame
        ``feature_a``, ``feature_b``, ``relation`` (:func:`partial_order` or
        :func:`certified_order`).

    Returns
    -------
    networkx.DiGraph
        One node per tie class (label ``"a = b"``; attribute ``members``: its variables), an edge
        ``u -> v`` for each covering pair :math:`u \\succ v` (``networkx.transitive_reduction`` of
        the order), and ``level`` per node: the length of the longest chain above it.

    Raises
    ------
    ValueError
        A pair table whose strict relation has a cycle (not a partial order).
    """
    import networkx as nx

    feats = list(pd.unique(pd.concat([pairs["feature_a"], pairs["feature_b"]], ignore_index=True)))
    ties = nx.Graph()
    ties.add_nodes_from(feats)
    ties.add_edges_from(pairs.loc[pairs["relation"] == "tie", ["feature_a", "feature_b"]].itertuples(index=False))
    classes = sorted(
        (sorted(c, key=feats.index) for c in nx.connected_components(ties)), key=lambda c: feats.index(c[0])
    )
    label = {f: " = ".join(c) for c in classes for f in c}
    order = nx.DiGraph()
    for c in classes:
        order.add_node(label[c[0]], members=tuple(c))
    for a, b, r in pairs[["feature_a", "feature_b", "relation"]].itertuples(index=False):
        if r == "a_over_b":
            order.add_edge(label[a], label[b])
        elif r == "b_over_a":
            order.add_edge(label[b], label[a])
    if not nx.is_directed_acyclic_graph(order):
        raise ValueError("the relation has a cycle: not a partial order")
    hasse = nx.transitive_reduction(order)
    hasse.add_nodes_from(order.nodes(data=True))
    for node in nx.topological_sort(order):
        preds = list(order.predecessors(node))
        hasse.nodes[node]["level"] = 1 + max(hasse.nodes[u]["level"] for u in preds) if preds else 0
    return hasse


@dataclass(frozen=True)
class ConsensusTables:
    """The tables of the ``consensus`` rule (:func:`consensus_tables`).

    Attributes
    ----------
    pairs : DataFrame
        :data:`CONSENSUS_COLUMNS`: one row per scope x ε x estimator x pair.
    summary : DataFrame
        :data:`SUMMARY_COLUMNS`: one row per scope x ε x estimator.
    """

    pairs: pd.DataFrame
    summary: pd.DataFrame

    def to_frames(self) -> dict[str, pd.DataFrame]:
        """The tables by the rule's output names."""
        return {"consensus": self.pairs, "summary": self.summary}


def _scope_members(members: pd.DataFrame, scope: str, eps: float) -> pd.DataFrame:
    label = CROSS_FAMILY if scope == CROSS_FAMILY else "family"
    part = members if scope == CROSS_FAMILY else members[members["family"] == scope]
    entry = np.nan_to_num(part[f"min_epsilon_{label}"].to_numpy(dtype=float), nan=np.inf)
    return part[entry <= eps]


def _summary(pairs: pd.DataFrame, common: dict, ranking: tuple[str, int], n_features: int) -> dict:
    rel = pairs["relation"]
    n_pairs = len(pairs)
    n_ordered = int(rel.isin(["a_over_b", "b_over_a"]).sum())
    return {
        **common,
        # the variables of the pairs; a dataset with one variable has no pair, and n_features 1
        "n_features": len(pd.unique(pd.concat([pairs["feature_a"], pairs["feature_b"]]))) if n_pairs else n_features,
        "n_pairs": n_pairs,
        "n_ordered": n_ordered,
        "n_ties": int((rel == "tie").sum()),
        "n_incomparable": int(rel.isin(["incomparable", "not_certified"]).sum()),
        "share_ordered": n_ordered / n_pairs if n_pairs else np.nan,
        "reference_ranking": ranking[0],
        "reference_n_ordered": ranking[1],
    }


def _ordered_pairs(values: np.ndarray) -> int:
    v = np.asarray(values, dtype=float)
    i, j = np.triu_indices(v.size, k=1)
    return int((v[i] != v[j]).sum())


def _estimators(part: pd.DataFrame, mcr: pd.DataFrame) -> list:
    """The MR estimators of ``part`` in the MCR table's order (the config's), others sorted after:
    the output does not depend on the member table's row order."""
    known = list(pd.unique(mcr["estimator"])) if "estimator" in mcr else []
    present = set(part["estimator"])
    return [e for e in known if e in present] + sorted(present - set(known))


def _member_rows(members, mcr, features, dataset):
    """Pairs and summaries of the member scopes (every family, cross_family) at every ε."""
    pairs, summary = [], []
    keys = ["family", "config_id"]
    grid = mcr[mcr["scope"] != "linear_exact"][["scope", "epsilon"]].drop_duplicates()
    info = mcr.drop_duplicates(["scope", "epsilon"]).set_index(["scope", "epsilon"])
    for scope, eps in grid.itertuples(index=False):
        part = _scope_members(members, scope, float(eps))
        label = CROSS_FAMILY if scope == CROSS_FAMILY else "family"
        n_members = part[keys].drop_duplicates().shape[0]
        row = info.loc[(scope, eps)]
        n_functions = row.get("n_distinct_functions", np.nan)
        for est in _estimators(part, mcr):
            sub = part[part["estimator"] == est]
            wide = sub.pivot(index=keys, columns="feature", values="e_switch")
            wide = wide.reindex(columns=features)
            ref = sub[sub[f"is_reference_{label}"].astype(bool)]
            ref_values = ref.set_index("feature")["e_switch"].reindex(features).to_numpy(dtype=float)
            reference = f"{ref['family'].iloc[0]}:{ref['config_id'].iloc[0]}" if len(ref) else ""
            common = {
                "dataset": dataset,
                "scope": scope,
                "epsilon": float(eps),
                "is_default": bool(row.get("is_default", False)),
                "quantity": "mr",
                "estimator": est,
                "method": "all_members",
            }
            po = partial_order(wide.to_numpy(), features)
            counts = {"n_members": n_members, "n_functions": n_functions}
            pairs.append(po.assign(**common, **counts))
            ranking = (ranking_string(ref_values, features), _ordered_pairs(ref_values)) if len(ref) else ("", 0)
            summary.append({**_summary(po, common, ranking, len(features)), **counts, "reference": reference})
    return pairs, summary


def _linear_rows(linear: pd.DataFrame, mcr: pd.DataFrame, features, dataset, order: pd.DataFrame | None = None):
    """Pairs and summaries of the ``linear_exact`` scope: certified by the MCR bounds, and (``order``,
    :func:`xaipipe.rashomon.linear_order.linear_exact_order`) decided exactly."""
    pairs, summary = [], []
    if linear is None or linear.empty or "epsilon_grid" not in linear:
        return pairs, summary
    info = mcr[mcr["scope"] == "linear_exact"].drop_duplicates("epsilon").set_index("epsilon")
    for eps, part in linear.groupby("epsilon_grid", sort=True):
        lo = part.pivot(index="quantity", columns="feature", values="mcr_minus_lower").reindex(columns=features)
        hi = part.pivot(index="quantity", columns="feature", values="mcr_plus_upper").reindex(columns=features)
        po = certified_order(lo.to_numpy(), hi.to_numpy(), list(features))
        ref = part[part["quantity"] == "mr_difference"].set_index("feature")["mr_reference"].reindex(features)
        default = bool(info.loc[eps, "is_default"]) if eps in info.index and "is_default" in info else False
        common = {
            "dataset": dataset,
            "scope": "linear_exact",
            "epsilon": float(eps),
            "is_default": default,
            "quantity": "mr",
            "estimator": "e_switch",
            "method": "mcr_bounds",
        }
        counts = {"n_members": np.nan, "n_functions": np.nan}
        pairs.append(po.assign(**common, **counts))
        values = ref.to_numpy(dtype=float)
        ranking = (ranking_string(values, features), _ordered_pairs(values))
        summary.append({**_summary(po, common, ranking, len(features)), **counts, "reference": "linear_regression:ols"})
        if order is not None and len(order):
            exact = order[np.isclose(order["epsilon_grid"].astype(float), float(eps), rtol=0, atol=1e-12)]
            exact = _in_order(exact, features)
            nan = np.full(len(exact), np.nan)
            po = exact[["feature_a", "feature_b", "relation"]].assign(n_a_over_b=nan, n_b_over_a=nan, n_equal=nan)
            common = {**common, "method": "exact"}
            pairs.append(po.assign(**common, **counts))
            summary.append(
                {**_summary(po, common, ranking, len(features)), **counts, "reference": "linear_regression:ols"}
            )
    return pairs, summary


def _in_order(pairs: pd.DataFrame, features) -> pd.DataFrame:
    """The pair rows with ``feature_a`` before ``feature_b`` in ``features`` order (relations flipped
    where a pair came the other way round), sorted as :func:`partial_order` lists pairs."""
    pos = {f: k for k, f in enumerate(features)}
    out = pairs.copy()
    swap = np.array([pos[a] > pos[b] for a, b in zip(out["feature_a"], out["feature_b"])], dtype=bool)
    if swap.any():
        flip = {"a_over_b": "b_over_a", "b_over_a": "a_over_b"}
        out.loc[swap, ["feature_a", "feature_b"]] = out.loc[swap, ["feature_b", "feature_a"]].to_numpy()
        out.loc[swap, "relation"] = [flip.get(r, r) for r in out.loc[swap, "relation"]]
    key = [(pos[a], pos[b]) for a, b in zip(out["feature_a"], out["feature_b"])]
    return out.iloc[sorted(range(len(out)), key=key.__getitem__)].reset_index(drop=True)


def consensus_tables(
    members: pd.DataFrame,
    mcr: pd.DataFrame,
    linear: pd.DataFrame | None = None,
    *,
    features: Sequence[str] | None = None,
    dataset: str = "",
    linear_order: pd.DataFrame | None = None,
) -> ConsensusTables:
    """The ``consensus`` rule: the partial order of the variables by MR over every Rashomon set.

    Parameters
    ----------
    members : DataFrame
        ``members.csv`` (:func:`xaipipe.rashomon.members.member_table`): ``family``,
        ``config_id``, ``min_epsilon_family`` / ``min_epsilon_cross_family``,
        ``is_reference_family`` / ``is_reference_cross_family``, ``feature``, ``estimator``,
        ``e_switch``.
    mcr : DataFrame
        ``mcr.csv``: its ``scope`` x ``epsilon`` grid, ``n_distinct_functions`` and ``is_default``.
    linear : DataFrame, optional
        ``linear_exact.csv`` (:data:`xaipipe.rashomon.linear.LINEAR_EXACT_COLUMNS`): the certified
        order of the ``linear_exact`` scope; None or empty: no such rows.
    features : sequence of str, optional
        The variables in output order (the pipeline: the dataset's, one-hot groups as one
        variable); default: their first appearance in ``members``.
    dataset : str
    linear_order : DataFrame, optional
        :func:`xaipipe.rashomon.linear_order.linear_exact_order`: the exact order of the
        ``linear_exact`` scope (rows with ``method = exact``, beside the MCR bounds' certificates).

    Returns
    -------
    ConsensusTables

    Raises
    ------
    ValueError
        A member without a value for a variable of ``features``.
    """
    feats = list(pd.unique(members["feature"])) if features is None else [str(f) for f in features]
    missing = sorted(set(pd.unique(members["feature"])) - set(feats))
    if missing:
        raise ValueError(f"members.csv has variables {missing} that are not in features {feats}")
    members = members.astype({"family": str, "config_id": str})
    counts = members.groupby(["family", "config_id", "estimator"])["feature"].nunique()
    if (counts != len(feats)).any():
        (f, c, e) = counts[counts != len(feats)].index[0]
        raise ValueError(f"member {f}:{c} ({e}) lacks MR values of some of the {len(feats)} variables")
    pairs, summary = _member_rows(members, mcr, feats, dataset)
    lp, ls = _linear_rows(linear, mcr, feats, dataset, linear_order)
    pairs_t = pd.concat(pairs + lp, ignore_index=True) if pairs or lp else pd.DataFrame(columns=CONSENSUS_COLUMNS)
    summary_t = pd.DataFrame(summary + ls, columns=SUMMARY_COLUMNS)
    return ConsensusTables(pairs=pairs_t[CONSENSUS_COLUMNS], summary=summary_t)


def default_summary(summaries: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """``tables/consensus.csv``: the rows of every dataset's ``consensus_summary.csv`` at its default
    ε (``is_default``), in dataset order, each dataset's cross-family rows first.

    Raises
    ------
    ValueError
        A table without the :data:`SUMMARY_COLUMNS`.
    """
    frames = []
    for frame in summaries:
        missing = [c for c in SUMMARY_COLUMNS if c not in frame.columns]
        if missing:
            raise ValueError(f"a consensus summary lacks columns {missing}")
        part = frame[frame["is_default"].astype(bool)]
        first = (part["scope"] != CROSS_FAMILY).to_numpy()
        frames.append(part.iloc[np.argsort(first, kind="stable")])
    if not frames:
        return pd.DataFrame(columns=SUMMARY_COLUMNS)
    return pd.concat(frames, ignore_index=True)[SUMMARY_COLUMNS]


def consensus_study(
    data, members: pd.DataFrame, mcr: pd.DataFrame, linear: pd.DataFrame | None = None
) -> ConsensusTables:
    """The ``consensus`` rule: :func:`consensus_tables` of a dataset, with the exact order of its
    ``linear_exact`` scope (:func:`xaipipe.rashomon.linear_order.linear_exact_order`, on the same
    training / test rows, ε grid and ε rule as ``linear_exact.csv``) where ``mcr.csv`` has that scope.

    Parameters
    ----------
    data : PreparedData
        The dataset's split (:func:`xaipipe.data.prepare.load_prepared`): ``features``,
        ``feature_groups`` (one-hot groups: one variable each), ``X_train``, ``y_train``,
        ``X_test``, ``y_test``, ``task``, ``dataset``.
    members, mcr, linear : DataFrame
        ``members.csv``, ``mcr.csv``, ``linear_exact.csv``.

    Returns
    -------
    ConsensusTables
    """

    groups = importance_groups(data)  # one-hot and the user's groups: the variables of members.csv
    features = list(features_from_groups(list(data.features), groups))
    lin = mcr[mcr["scope"] == "linear_exact"]
    order = None
    if len(lin) and data.task == "regression" and linear is not None and "epsilon_grid" in linear and len(linear):
        order = linear_exact_order(
            data.X_train,
            data.y_train,
            data.X_test,
            data.y_test,
            epsilons=sorted(lin["epsilon"].astype(float).unique()),
            epsilon_mode=str(lin["epsilon_mode"].iloc[0]),
            feature_names=list(data.features),
            feature_groups=groups,
        )
    return consensus_tables(members, mcr, linear, features=features, dataset=data.dataset, linear_order=order)
