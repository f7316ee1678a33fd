"""Consensus over the Rashomon set (issue 45, item 4): a hand-checkable member table, brute force on
random member tables with ties, transitivity of the relation, independence of the member order
(rows sorted by the values themselves, shuffled), the Hasse diagram's covering pairs, and the exact
linear scope's certified pairs against a brute-force sample of the linear Rashomon set."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from xaipipe.rashomon.consensus import (
    CONSENSUS_COLUMNS,
    SUMMARY_COLUMNS,
    certified_order,
    consensus_tables,
    default_summary,
    hasse_diagram,
    partial_order,
    ranking_string,
)


def _relation(a: np.ndarray, b: np.ndarray) -> str:
    """The definition, one member at a time."""
    if all(x > y for x, y in zip(a, b)):
        return "a_over_b"
    if all(x < y for x, y in zip(a, b)):
        return "b_over_a"
    if all(x == y for x, y in zip(a, b)):
        return "tie"
    return "incomparable"


def test_hand_checkable_order():
    values = pd.DataFrame(
        {"a": [5.0, 4.0, 6.0], "b": [3.0, 2.0, 1.0], "c": [3.0, 2.0, 1.0], "d": [1.0, 3.0, 0.0]}
    )  # three members
    po = partial_order(values).set_index(["feature_a", "feature_b"])
    assert po.loc[("a", "b"), "relation"] == "a_over_b"
    assert po.loc[("a", "d"), "relation"] == "a_over_b"  # 5 > 1, 4 > 3, 6 > 0
    assert po.loc[("b", "c"), "relation"] == "tie"
    assert po.loc[("b", "d"), "relation"] == "incomparable"  # 3 > 1 but 2 < 3
    assert po.loc[("b", "d"), ["n_a_over_b", "n_b_over_a", "n_equal"]].tolist() == [2, 1, 0]
    assert po["relation"].value_counts().to_dict() == {"a_over_b": 3, "incomparable": 2, "tie": 1}
    # weak dominance is not consensus: equal in one member, above in the others
    weak = partial_order(pd.DataFrame({"p": [2.0, 1.0], "q": [1.0, 1.0]}))
    assert weak["relation"].tolist() == ["incomparable"]
    assert partial_order(pd.DataFrame({"p": [1.0], "q": [np.nan]}))["relation"].tolist() == ["incomparable"]
    g = hasse_diagram(po.reset_index())
    assert set(g.nodes) == {"a", "b = c", "d"}
    assert set(g.edges) == {("a", "b = c"), ("a", "d")}
    assert g.nodes["a"]["level"] == 0 and g.nodes["d"]["level"] == 1


def test_brute_force_on_random_members_with_ties():
    rng = np.random.default_rng(0)
    for _ in range(200):
        m, p = rng.integers(1, 6), rng.integers(2, 6)
        base = rng.integers(0, 4, p) * 3  # shared structure, so that consensus happens
        V = base + rng.integers(0, 3, (m, p))  # integer values: ties
        po = partial_order(V)
        for rec in po.itertuples(index=False):
            i, j = int(rec.feature_a[1:]), int(rec.feature_b[1:])
            assert rec.relation == _relation(V[:, i], V[:, j])
            assert rec.n_a_over_b == (V[:, i] > V[:, j]).sum() and rec.n_equal == (V[:, i] == V[:, j]).sum()


def test_the_relation_is_a_partial_order_and_ties_an_equivalence():
    rng = np.random.default_rng(1)
    for _ in range(100):
        m, p = rng.integers(1, 5), 6
        V = np.round(rng.normal(size=p)[None, :] * 3 + rng.normal(size=(m, p)), 0)
        po = partial_order(V)
        rel = {}
        for rec in po.itertuples(index=False):
            rel[(rec.feature_a, rec.feature_b)] = rec.relation
            flipped = {"a_over_b": "b_over_a", "b_over_a": "a_over_b"}.get(rec.relation, rec.relation)
            rel[(rec.feature_b, rec.feature_a)] = flipped
        names = [f"x{j}" for j in range(p)]
        for a, b, c in itertools.permutations(names, 3):
            if rel[(a, b)] == "a_over_b" and rel[(b, c)] == "a_over_b":
                assert rel[(a, c)] == "a_over_b"
            if rel[(a, b)] == "tie" and rel[(b, c)] == "tie":
                assert rel[(a, c)] == "tie"
            if rel[(a, b)] == "tie":  # tied variables compare alike with everything else
                assert rel[(a, c)] == rel[(b, c)]
        hasse_diagram(po)  # acyclic: no error


def _members_table(rng, n_members=7, features=("u", "v", "w", "z")):
    """A members.csv-like table: two families, entry epsilons, two estimators, integer e_switch."""
    rows = []
    fams = ["tree", "boost"]
    for k in range(n_members):
        fam = fams[k % 2]
        eps_fam = 0.0 if k < 2 else float(rng.choice([0.5, 1.0, 2.0, np.nan]))
        eps_cross = 0.0 if k == 0 else float(rng.choice([0.5, 1.0, 2.0, np.nan]))
        for est in ("permutation", "e_divide"):
            vals = np.array([6, 4, 4, 1]) + rng.integers(0, 3, 4)
            for f, v in zip(features, vals):
                rows.append(
                    {
                        "family": fam,
                        "config_id": f"c{k}",
                        "min_epsilon_family": eps_fam,
                        "min_epsilon_cross_family": eps_cross,
                        "is_reference_family": k < 2,
                        "is_reference_cross_family": k == 0,
                        "feature": f,
                        "estimator": est,
                        "e_switch": float(v),
                        "mr_ratio": float(v) / 2.0,
                    }
                )
    members = pd.DataFrame(rows)
    grid = [0.0, 0.5, 1.0, 2.0]
    mcr = pd.DataFrame(
        [
            {"scope": s, "epsilon": e, "n_distinct_functions": 3, "is_default": e == 1.0}
            for s in ("tree", "boost", "cross_family")
            for e in grid
        ]
    )
    return members, mcr


def test_consensus_tables_against_brute_force_per_scope_and_epsilon():
    rng = np.random.default_rng(2)
    members, mcr = _members_table(rng)
    out = consensus_tables(members, mcr, features=["u", "v", "w", "z"], dataset="toy")
    assert list(out.pairs.columns) == CONSENSUS_COLUMNS and list(out.summary.columns) == SUMMARY_COLUMNS
    for (scope, eps, est), part in out.pairs.groupby(["scope", "epsilon", "estimator"]):
        label = "cross_family" if scope == "cross_family" else "family"
        sel = members[(members.estimator == est) & (members[f"min_epsilon_{label}"] <= eps)]
        if scope != "cross_family":
            sel = sel[sel.family == scope]
        wide = sel.pivot(index=["family", "config_id"], columns="feature", values="e_switch")
        assert (part["n_members"] == len(wide)).all()
        for rec in part.itertuples(index=False):
            assert rec.relation == _relation(wide[rec.feature_a].to_numpy(), wide[rec.feature_b].to_numpy())
    s = out.summary
    assert (s["n_ordered"] + s["n_ties"] + s["n_incomparable"] == s["n_pairs"]).all() and (s["n_pairs"] == 6).all()
    # the sets are nested in epsilon: consensus can only be lost as epsilon grows
    for _, part in s.groupby(["scope", "estimator"]):
        assert part.sort_values("epsilon")["n_ordered"].is_monotonic_decreasing
    ref = s[(s.scope == "cross_family") & (s.estimator == "permutation")].iloc[0]
    assert ref["reference"] == "tree:c0"
    vals = members[(members.config_id == "c0") & (members.estimator == "permutation")]["e_switch"].to_numpy()
    assert ref["reference_ranking"] == ranking_string(vals, ["u", "v", "w", "z"])
    top = default_summary([s])
    assert top["is_default"].all() and top["scope"].iloc[0] == "cross_family"


def test_the_consensus_does_not_depend_on_the_member_order():
    rng = np.random.default_rng(3)
    members, mcr = _members_table(rng, n_members=9)
    ref = consensus_tables(members, mcr, features=["u", "v", "w", "z"])
    for order in (
        members.sort_values("e_switch", kind="stable").index,  # sorted by the values themselves
        members.sort_values("e_switch", ascending=False, kind="stable").index,
        rng.permutation(len(members)),
    ):
        other = consensus_tables(members.iloc[order].reset_index(drop=True), mcr, features=["u", "v", "w", "z"])
        pd.testing.assert_frame_equal(other.pairs, ref.pairs)
        pd.testing.assert_frame_equal(other.summary, ref.summary)


def test_bad_member_tables_are_rejected():
    rng = np.random.default_rng(4)
    members, mcr = _members_table(rng)
    with pytest.raises(ValueError, match="not in features"):
        consensus_tables(members, mcr, features=["u", "v", "w"])
    with pytest.raises(ValueError, match="lacks MR values"):
        consensus_tables(members.iloc[1:], mcr, features=["u", "v", "w", "z"])


def test_chain_keeps_only_covering_pairs():
    V = pd.DataFrame({"a": [3.0, 9.0], "b": [2.0, 5.0], "c": [1.0, 4.0], "d": [0.0, 4.5]})
    g = hasse_diagram(partial_order(V))
    assert set(g.edges) == {("a", "b"), ("b", "c"), ("b", "d")}  # a > c, a > d implied
    assert [g.nodes[n]["level"] for n in "abcd"] == [0, 1, 2, 2]


def _e_switch_pairs(X, y, b0, beta, j):
    """Fisher et al.'s e_switch by brute force: every ordered pair (donor i of x_j, recipient k)."""
    n = len(y)
    c = y - b0 - np.delete(X, j, axis=1) @ np.delete(beta, j)  # recipient k's part
    d = X[:, j] * beta[j]  # donor i's part
    R = c[:, None] - d[None, :]
    return ((R**2).sum() - (np.diag(R) ** 2).sum()) / (n * (n - 1))


def _sample_linear_set(rng, Xt, yt, bound, n_boundary, n_inside):
    """Slopes of linear models spread over the linear Rashomon set {e_orig(beta, m = 0) <= bound} of
    the sample (Xt, yt): ``n_boundary`` on its boundary, ``n_inside`` inside; and each one's
    cost-free intercept."""
    m, p = Xt.shape
    xm, ym = Xt.mean(axis=0), yt.mean()
    A = (Xt - xm).T @ (Xt - xm) / m
    beta_hat = np.linalg.lstsq(Xt - xm, yt - ym, rcond=None)[0]
    e_min = np.mean((yt - ym - (Xt - xm) @ beta_hat) ** 2)
    u = rng.normal(size=(n_boundary + n_inside, p))
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    radius = np.sqrt(bound - e_min) * np.r_[np.ones(n_boundary), rng.uniform(size=n_inside) ** (1 / p)]
    L = np.linalg.cholesky(A)
    betas = beta_hat + np.linalg.solve(L.T, (u * radius[:, None]).T).T  # (b - b_hat)' A (b - b_hat) = r^2
    return betas, ym - betas @ xm


def test_linear_certificates_hold_for_every_sampled_member_of_the_linear_rashomon_set():
    """Certified pairs (mcr_minus_lower(A) > mcr_plus_upper(B)) of the exact linear scope hold in
    every model of a brute-force sample of R(eps) (inside and on its boundary)."""
    from xaipipe.rashomon.linear import linear_exact_scope

    rng = np.random.default_rng(5)
    n = 90
    X = rng.uniform(-1, 1, (n, 3))
    X[:, 2] += 0.6 * X[:, 1]  # correlated columns
    y = 3 * X[:, 0] + 1.0 * X[:, 1] + 0.2 * X[:, 2] + rng.normal(0, 0.6, n)
    order = np.argsort(y)  # adversarial row order: sorted by the target
    X, y = X[order], y[order]
    tr, te = np.arange(n) % 3 != 0, np.arange(n) % 3 == 0
    names = ["x0", "x1", "x2"]
    _, _, detail = linear_exact_scope(
        X[tr], y[tr], X[te], y[te], epsilons=[0.0, 1.0, 6.0], feature_names=names, path_points=2
    )
    Xt, yt = X[te], y[te]
    n_certified = 0
    for _eps, part in detail.groupby("epsilon_grid"):
        lo = part.pivot(index="quantity", columns="feature", values="mcr_minus_lower")[names].to_numpy()
        hi = part.pivot(index="quantity", columns="feature", values="mcr_plus_upper")[names].to_numpy()
        cert = certified_order(lo, hi, names)
        bound = float(part["loss_bound"].iloc[0])
        betas, b0s = _sample_linear_set(rng, Xt, yt, bound, 500, 1000)
        mr = np.empty((len(betas), 3))
        for s, (beta, b0) in enumerate(zip(betas, b0s)):
            e_orig = np.mean((yt - b0 - Xt @ beta) ** 2)
            assert e_orig <= bound * (1 + 1e-9)
            mr[s] = [_e_switch_pairs(Xt, yt, b0, beta, j) / e_orig for j in range(3)]
        for j, f in enumerate(names):  # the sample lies within the certified MCR bounds
            row = part[(part.feature == f) & (part.quantity == "mr_ratio")].iloc[0]
            assert row.mcr_minus_lower - 1e-9 <= mr[:, j].min() and mr[:, j].max() <= row.mcr_plus_upper + 1e-9
        for rec in cert.itertuples(index=False):
            a, b = names.index(rec.feature_a), names.index(rec.feature_b)
            if rec.relation == "a_over_b":
                assert (mr[:, a] > mr[:, b]).all()
            elif rec.relation == "b_over_a":
                assert (mr[:, b] > mr[:, a]).all()
            n_certified += rec.relation != "not_certified"
        assert set(cert["relation"]) <= {"a_over_b", "b_over_a", "not_certified"}
    assert n_certified >= 2  # not vacuous: x0 above the others at small epsilon
    # the same pairs through consensus_tables (the linear rows beside the members' ones)
    mcr = pd.DataFrame({"scope": ["linear_exact"] * 3, "epsilon": [0.0, 1.0, 6.0], "is_default": [False, True, False]})
    out = consensus_tables(
        pd.DataFrame(columns=["family", "config_id", "feature", "estimator", "e_switch"]).astype(
            {"family": str, "config_id": str}
        ),
        mcr,
        detail,
        features=names,
    )
    lin = out.pairs[out.pairs.scope == "linear_exact"]
    assert (lin["method"] == "mcr_bounds").all() and lin["n_members"].isna().all()
    assert int((lin["relation"] != "not_certified").sum()) == n_certified
    assert out.summary["is_default"].tolist() == [False, True, False]


def test_exact_linear_order_against_a_sampled_set_and_its_witnesses():
    """The exact pairwise order of all linear models of R(eps): every ordered pair holds in every
    sampled member; every incomparable pair has two witness models in R(eps) (checked by brute force)
    that order it both ways; the MCR-bounds certificate is never stronger than the exact order."""
    import json

    from xaipipe.rashomon.linear import linear_exact_scope
    from xaipipe.rashomon.linear_order import linear_exact_order

    rng = np.random.default_rng(6)
    n = 120
    X = rng.uniform(-1, 1, (n, 4))
    X[:, 2] += 0.7 * X[:, 1]
    y = 3 * X[:, 0] + 1.2 * X[:, 1] + 0.3 * X[:, 2] + 0.1 * X[:, 3] + rng.normal(0, 0.7, n)
    X, y = X[np.argsort(X[:, 0])], y[np.argsort(X[:, 0])]  # rows sorted by a feature
    tr, te = np.arange(n) % 4 != 0, np.arange(n) % 4 == 0
    names = ["x0", "x1", "x2", "x3"]
    grid = [0.0, 1.0, 5.0]
    order = linear_exact_order(X[tr], y[tr], X[te], y[te], epsilons=grid, feature_names=names)
    _, _, detail = linear_exact_scope(X[tr], y[tr], X[te], y[te], epsilons=grid, feature_names=names, path_points=2)
    Xt, yt = X[te], y[te]

    def e_switch(b0, beta):
        return np.array([_e_switch_pairs(Xt, yt, b0, beta, j) for j in range(4)])

    seen = set()
    for eps in grid:
        part = order[order.epsilon_grid == eps]
        bound = float(part["loss_bound"].iloc[0])
        betas, b0s = _sample_linear_set(rng, Xt, yt, bound, 300, 500)
        es = np.array([e_switch(b0, b) for b, b0 in zip(betas, b0s)])
        for rec in part.itertuples(index=False):
            a, b = names.index(rec.feature_a), names.index(rec.feature_b)
            diff = es[:, a] - es[:, b]
            assert (
                rec.d_min_lower <= rec.d_min <= diff.min() + 1e-9 and diff.max() - 1e-9 <= rec.d_max <= rec.d_max_upper
            )
            seen.add(rec.relation)
            if rec.relation == "a_over_b":
                assert (diff > 0).all()
            elif rec.relation == "b_over_a":
                assert (diff < 0).all()
            else:
                assert rec.relation == "incomparable"
                for b0, coef, sign in ((rec.intercept_min, rec.coef_min, -1), (rec.intercept_max, rec.coef_max, 1)):
                    beta = np.array(json.loads(coef))
                    assert np.mean((yt - b0 - Xt @ beta) ** 2) <= bound * (1 + 1e-9)  # a member of R(eps)
                    e = e_switch(b0, beta)
                    assert sign * (e[a] - e[b]) >= -1e-9 * abs(e[a])  # it orders the pair the other way
        # the MCR bounds certify a subset of the exact order, in the same direction
        lo = detail[detail.epsilon_grid == eps].pivot(index="quantity", columns="feature", values="mcr_minus_lower")
        hi = detail[detail.epsilon_grid == eps].pivot(index="quantity", columns="feature", values="mcr_plus_upper")
        cert = certified_order(lo[names].to_numpy(), hi[names].to_numpy(), names)
        exact = part.set_index(["feature_a", "feature_b"])["relation"]
        for rec in cert.itertuples(index=False):
            if rec.relation != "not_certified":
                assert exact[(rec.feature_a, rec.feature_b)] == rec.relation
    assert {"a_over_b", "incomparable"} <= seen
    # monotone in epsilon: an ordered pair can only become incomparable as the set grows
    wide = order.pivot(index=["feature_a", "feature_b"], columns="epsilon_grid", values="relation")
    ordered = wide.isin(["a_over_b", "b_over_a"])
    assert (ordered[5.0] <= ordered[1.0]).all() and (ordered[1.0] <= ordered[0.0]).all()


def test_one_variable_has_no_pair_and_counts_one_variable():
    """A dataset with one feature (issue 52, degenerate tables): no pair, n_features 1, and the
    figure says so instead of failing."""
    import matplotlib

    matplotlib.use("Agg")
    from xaipipe.plots.consensus import consensus_figures

    rng = np.random.default_rng(4)
    members, mcr = _members_table(rng, n_members=3)
    one = members[members["feature"] == "u"]
    out = consensus_tables(one, mcr, features=["u"], dataset="toy")
    assert out.pairs.empty and len(out.summary)
    assert (out.summary["n_features"] == 1).all() and (out.summary["n_pairs"] == 0).all()
    fig = consensus_figures(out.pairs, out.summary, scope="cross_family", epsilon=1.0, estimator="permutation")
    assert [t.get_text() for t in fig.axes[0].texts] == [
        "no consensus order to draw: 1 variable, no pair of variables to order"
    ]
    # with two or more variables, n_features counts the variables of the pairs, as before
    assert (consensus_tables(members, mcr, features=["u", "v", "w", "z"]).summary["n_features"] == 4).all()
