"""The TreeFARMS scope: the set's count against a brute-force enumeration of every tree on a tiny
table, each tree's labels (evaluated here) against TreeFARMS' own predictions and its objective
against TreeFARMS' metric, the binarisation, and the rule's tables."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from xaipipe.rashomon.treefarms import _fit, _leaves, binarize, tree_predict, treefarms_scope

LAM = 0.02


def _tiny():
    rng = np.random.default_rng(1)
    B = pd.DataFrame(rng.integers(0, 2, (60, 3)), columns=["a", "b", "c"])
    y = ((B["a"] ^ B["b"]) | (rng.random(60) < 0.15)).astype(int).to_numpy()
    return B, y


def _brute_force(B, y, depth=2):
    """Objective and triviality of every tree of depth <= 2 on binary columns (leaves: the majority
    label, class 0 on ties and in empty leaves)."""

    def trees(d, feats):
        yield ("leaf",)
        if d:
            for f in feats:
                rest = [g for g in feats if g != f]
                for left in trees(d - 1, rest):
                    for right in trees(d - 1, rest):
                        yield (f, left, right)

    def evaluate(t, mask):
        if t[0] == "leaf":
            yy = y[mask]
            label = int(yy.mean() > 0.5) if yy.size else 0
            return int((yy != label).sum()), 1, [label]
        f, left, right = t
        e1, n1, p1 = evaluate(left, mask & (B[f].to_numpy() == 1))
        e2, n2, p2 = evaluate(right, mask & (B[f].to_numpy() == 0))
        return e1 + e2, n1 + n2, p1 + p2

    def trivial(t, mask):  # a split into two leaves of one label ("trivial extension")
        if t[0] == "leaf":
            return False
        f, left, right = t
        on, off = mask & (B[f].to_numpy() == 1), mask & (B[f].to_numpy() == 0)
        if left[0] == right[0] == "leaf" and evaluate(left, on)[2] == evaluate(right, off)[2]:
            return True
        return trivial(left, on) or trivial(right, off)

    full = np.ones(len(y), bool)
    out = []
    for t in trees(depth, list(B.columns)):
        errors, leaves, _ = evaluate(t, full)
        out.append((errors / len(y) + LAM * leaves, trivial(t, full)))
    return out


@pytest.mark.parametrize("adder", [0.03, 0.08, 0.2])
def test_the_count_is_every_non_trivial_tree_within_the_bound(adder):
    B, y = _tiny()
    brute = _brute_force(B, y)
    optimum = min(o for o, _ in brute)
    want = sum(1 for o, trivial in brute if o <= optimum + adder + 1e-9 and not trivial)
    model = _fit(B, y, LAM, adder, depth_budget=3)
    assert model.get_tree_count() == want
    objectives = [model.model_set.get_tree_metric_at_idx(i)["objective"] for i in range(model.get_tree_count())]
    assert min(objectives) == pytest.approx(optimum, abs=1e-6)
    assert max(objectives) <= optimum + adder + 1e-6


def test_each_tree_s_labels_and_objective_are_treefarms_own():
    B, y = _tiny()
    model = _fit(B, y, LAM, 0.2, depth_budget=3)
    for i in range(model.get_tree_count()):
        raw = model.model_set.get_tree_at_idx_raw(i)
        mine = tree_predict(raw, B.to_numpy())
        theirs = np.asarray(model[i].predict(B)).astype(int)
        np.testing.assert_array_equal(mine, theirs)
        objective = np.mean(mine != y) + LAM * _leaves(raw)
        assert objective == pytest.approx(model.model_set.get_tree_metric_at_idx(i)["objective"], abs=1e-6)


def test_binarize():
    X = np.column_stack([np.arange(10.0), np.r_[np.zeros(5), np.ones(5)], np.full(10, 3.0)])
    B, t = binarize(X, X, ["x", "flag", "const"], n_thresholds=3)
    assert list(t["feature"]) == ["x", "x", "x", "flag"]  # a constant gets no column
    assert list(t["threshold"]) == [2.0, 4.0, 6.0, 0.0]  # the lower 25 / 50 / 75 % quantiles
    assert list(B.columns) == ["x <= 2", "x <= 4", "x <= 6", "flag <= 0"]
    np.testing.assert_array_equal(B["x <= 4"], (X[:, 0] <= 4).astype(int))
    with pytest.raises(ValueError, match="do not match"):
        binarize(X, X[:, :2], ["x", "flag", "const"])


def _data(task="classification"):
    rng = np.random.default_rng(5)
    X = rng.normal(size=(300, 4))
    y = ((X[:, 0] > 0) & (X[:, 1] > -0.5)).astype(int)
    y = np.where(rng.random(300) < 0.05, 1 - y, y)
    return SimpleNamespace(
        X_train=X[:200],
        y_train=y[:200],
        X_test=X[200:],
        y_test=y[200:],
        features=["a", "b", "c", "d"],
        task=task,
        dataset="toy",
    )


def test_the_rule_s_tables():
    data = _data()
    # the grid's decision_tree set: a stump entering at ε = 0, a depth-3 tree at ε = 2
    grid = pd.DataFrame(
        {
            "family": "decision_tree",
            "config_id": ["max_depth=1", "max_depth=3"],
            "min_epsilon_family": [0.0, 2.0],
        }
    )
    out = treefarms_scope(
        data,
        epsilons=[0.0, 1.0, 2.0],
        n_thresholds=2,
        n_repeats=3,
        grid_members=grid,
        max_trees=50,
        default_epsilon=1.0,
    )
    s = out.summary.set_index("epsilon")
    assert s["n_trees"].is_monotonic_increasing and (s["n_evaluated"] <= 50).all()
    assert (s["n_distinct_functions"] <= s["n_evaluated"]).all() and (s["bound"] >= s["objective_min"]).all()
    m = out.mcr[(out.mcr["epsilon"] == 1.0) & (out.mcr["quantity"] == "mr_difference")].set_index("feature")
    assert m.loc["a", "mcr_plus"] > 0.1 and m.loc["a", "mcr_plus"] >= m.loc["a", "mcr_minus"]
    assert (m["grid_n_members"] == 1).all() and m.loc["a", "grid_mcr_plus"] > 0  # the stump splits on a
    two = out.mcr[(out.mcr["epsilon"] == 2.0) & (out.mcr["quantity"] == "mr_difference")].set_index("feature")
    assert (two["grid_n_members"] == 2).all() and (two["grid_mcr_plus"] >= m["grid_mcr_plus"]).all()
    assert set(out.members["feature"]) == {"a", "b", "c", "d"}
    members = out.members.drop_duplicates(["epsilon", "tree"])
    assert (members["objective"] <= s.loc[members["epsilon"], "bound"].to_numpy() + 1e-9).all()

    # TimberTrek's JSON of the set at the default ε: its trie's leaves number the trees 1..n
    def tree_ids(node):
        return {node["t"]} if "t" in node else set().union(*(tree_ids(c) for c in node.get("c", [])))

    assert tree_ids(out.decision_paths["trie"]) == set(range(1, int(s.loc[1.0, "n_trees"]) + 1))
    big = treefarms_scope(data, epsilons=[2.0], n_thresholds=2, n_repeats=1, max_trees=1, default_epsilon=2.0)
    assert "not exported" in big.decision_paths["note"]
    three = _data()
    three.y_train = np.arange(len(three.y_train)) % 3
    three.classes = ["a", "b", "c"]
    not_binary = treefarms_scope(three, epsilons=[0.0, 1.0])
    assert len(not_binary.summary) == 1 and "3 classes" in not_binary.summary["note"].iloc[0]
    assert not_binary.mcr.empty and not_binary.members.empty and "note" in not_binary.decision_paths
    with pytest.raises(ValueError, match="'toy'.*binary classification"):
        treefarms_scope(_data("regression"), epsilons=[0.0])
