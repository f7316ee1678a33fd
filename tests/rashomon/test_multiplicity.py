"""Predictive multiplicity: hand-computed cases, invariances (member order, duplicates), the bounds
between discrepancy, ambiguity and their sum, the Rashomon capacity against a brute-force maximum,
the ε-path, and the members' predictions from fitted groups."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.ensemble import GradientBoostingClassifier, GradientBoostingRegressor

from xaipipe.rashomon.multiplicity import (
    members_predictions,
    multiplicity_path,
    n_distinct_functions,
    predictive_multiplicity,
    rashomon_capacity,
    scope_multiplicity,
)
from xaipipe.rashomon.refit import FittedGroup

P_CLS = np.array(
    [
        [0.9, 0.2, 0.6, 0.4],  # reference: classes 1 0 1 0
        [0.8, 0.7, 0.4, 0.45],  # 1 1 0 0: differs on rows 1, 2
        [0.3, 0.1, 0.55, 0.6],  # 0 0 1 1: differs on rows 0, 3
    ]
)


def test_hand_computed_classification():
    r = predictive_multiplicity(P_CLS, task="classification", reference=0)
    s = r.summary
    assert s["ambiguity"] == 1.0 and s["discrepancy"] == 0.5 and s["disagreement_sum"] == 1.0
    np.testing.assert_allclose(r.rows["width"], [0.6, 0.6, 0.2, 0.2])
    np.testing.assert_allclose(r.rows["min"], [0.3, 0.1, 0.4, 0.4])
    assert r.rows["flips"].tolist() == [True, True, True, True]
    assert r.rows["n_class_1"].tolist() == [2, 1, 2, 1]
    np.testing.assert_allclose(r.member_disagreement, [0.0, 0.5, 0.5])
    assert s["max_width_row"] == 0 and s["n_members"] == 3 and s["n_distinct_functions"] == 3
    # only members 0 and 1: rows 1 and 2 change
    sub = predictive_multiplicity(P_CLS, task="classification", reference=0, members=[0, 1])
    assert sub.summary["ambiguity"] == 0.5 and sub.summary["discrepancy"] == 0.5
    assert sub.rows["ambiguous"].tolist() == [False, True, True, False]
    # another reference
    r2 = predictive_multiplicity(P_CLS, task="classification", reference=2)
    np.testing.assert_allclose(r2.member_disagreement, [0.5, 1.0, 0.0])
    assert r2.summary["discrepancy"] == 1.0 and r2.summary["ambiguity"] == 1.0


def test_hand_computed_regression():
    P = np.array([[1.0, 2.0, 3.0], [1.5, 2.0, 2.0], [0.5, 2.5, 3.0]])
    r = predictive_multiplicity(P, task="regression", reference=1, row_ids=[10, 20, 30])
    np.testing.assert_allclose(r.rows["width"], [1.0, 0.5, 1.0])
    np.testing.assert_allclose(r.rows["reference"], [1.5, 2.0, 2.0])
    assert r.summary["mean_width"] == pytest.approx(2.5 / 3) and r.summary["max_width"] == 1.0
    assert r.summary["max_width_row"] == 10 and r.rows["row"].tolist() == [10, 20, 30]
    assert "ambiguity" not in r.summary and np.isnan(r.member_disagreement).all()
    with pytest.raises(ValueError, match="classification only"):
        predictive_multiplicity(P, task="regression", capacity=True)


def test_member_order_and_duplicates():
    rng = np.random.default_rng(0)
    P = rng.uniform(size=(7, 40))
    base = predictive_multiplicity(P, task="classification", reference=2, capacity=True)
    order = rng.permutation(7)
    perm = predictive_multiplicity(
        P[order], task="classification", reference=int(np.flatnonzero(order == 2)[0]), capacity=True
    )
    pd.testing.assert_frame_equal(base.rows, perm.rows, rtol=1e-9)
    assert {k: v for k, v in base.summary.items()} == pytest.approx(perm.summary)
    dup = np.concatenate([P, P[[0, 0, 3, 5]]])
    more = predictive_multiplicity(dup, task="classification", reference=2, capacity=True)
    # copies change only the counts of members (n_members, n_class_1, the sum bound)
    pd.testing.assert_frame_equal(base.rows.drop(columns="n_class_1"), more.rows.drop(columns="n_class_1"), rtol=1e-9)
    diff = {k for k in base.summary if base.summary[k] != pytest.approx(more.summary[k])}
    assert diff == {"n_members", "disagreement_sum"}  # the sum bound counts copies; nothing else moves
    assert more.summary["n_distinct_functions"] == base.summary["n_distinct_functions"] == 7
    assert more.summary["n_members"] == 11
    assert n_distinct_functions(np.vstack([P[0], P[0].copy(), -0.0 * P[0] + P[0]])) == 1
    assert n_distinct_functions(np.array([[0.0], [-0.0]])) == 2  # bitwise


def test_discrepancy_ambiguity_and_the_sum_bound():
    rng = np.random.default_rng(1)
    for _ in range(50):
        m, n = rng.integers(1, 8), rng.integers(1, 30)
        P = rng.uniform(size=(m, n))
        s = predictive_multiplicity(P, task="classification", reference=int(rng.integers(m))).summary
        assert s["discrepancy"] <= s["ambiguity"] <= s["disagreement_sum"] + 1e-12


def test_rashomon_capacity_against_a_brute_force_maximum():
    # identical members: 1; members certain of different classes: 2 (one bit)
    np.testing.assert_allclose(rashomon_capacity(np.array([[0.3], [0.3]])), [1.0], atol=1e-9)
    np.testing.assert_allclose(rashomon_capacity(np.array([[0.0], [1.0], [1.0]])), [2.0], atol=1e-6)
    rng = np.random.default_rng(2)
    P = rng.uniform(size=(2, 25))
    got = rashomon_capacity(P)
    q = np.linspace(0, 1, 20001)
    for i in range(25):
        a, b = P[0, i], P[1, i]
        r = q * a + (1 - q) * b  # P(class 1) under the mixture

        def h(p):
            p = np.clip(p, 1e-300, 1)
            return -p * np.log2(p)

        mi = h(r) + h(1 - r) - q * (h(a) + h(1 - a)) - (1 - q) * (h(b) + h(1 - b))
        np.testing.assert_allclose(got[i], 2 ** mi.max(), rtol=1e-6)
    # the Blahut-Arimoto path (distributions over classes) agrees with the exact binary solution
    P3 = rng.uniform(size=(5, 10))
    both = np.stack([1 - P3, P3], axis=-1)
    np.testing.assert_allclose(rashomon_capacity(both), rashomon_capacity(P3), rtol=1e-6)
    three = rashomon_capacity(rng.dirichlet(np.ones(3), size=(4, 6)))
    assert ((three >= 1 - 1e-12) & (three <= 3 + 1e-12)).all()


def test_path_is_nested_and_equals_direct_selection():
    rng = np.random.default_rng(3)
    P = rng.normal(size=(6, 30))
    me = np.array([0.0, 1.0, np.nan, 0.5, 2.0, 1.0])
    path = multiplicity_path(P, task="regression", reference=0, min_epsilon=me, epsilons=[2.0, 0.0, 0.5, 1.0])
    assert path["epsilon"].tolist() == [0.0, 0.5, 1.0, 2.0]
    assert path["n_members"].tolist() == [1, 2, 4, 5]
    assert path["mean_width"].is_monotonic_increasing and path["mean_width"].iloc[0] == 0.0
    direct = predictive_multiplicity(P, task="regression", members=[0, 1, 3, 5])
    assert path.iloc[2]["mean_width"] == pytest.approx(direct.summary["mean_width"])
    with pytest.raises(ValueError, match="reference"):
        multiplicity_path(P, task="regression", reference=2, min_epsilon=me, epsilons=[1.0])


def test_scope_multiplicity_from_a_member_table():
    rng = np.random.default_rng(4)
    P = rng.uniform(size=(4, 20))
    keys = pd.DataFrame({"family": ["gb", "gb", "rf", "rf"], "config_id": ["a", "b", "c", "d"]})
    members = pd.DataFrame(
        {
            "family": ["gb", "gb", "rf", "rf", "rf"],
            "config_id": ["a", "b", "c", "d", "d"],  # several rows per member (variables) are fine
            "min_epsilon_family": [0.0, 1.0, 0.0, 0.5, 0.5],
            "is_reference_family": [True, False, True, False, False],
            "min_epsilon_cross_family": [0.0, 2.0, 1.0, np.nan, np.nan],
            "is_reference_cross_family": [True, False, False, False, False],
        }
    )
    t = scope_multiplicity(P, keys, members, task="classification", epsilons=[0.0, 1.0, 2.0])
    assert t["scope"].tolist() == ["gb"] * 3 + ["rf"] * 3 + ["cross_family"] * 3
    assert t["n_members"].tolist() == [1, 2, 2, 1, 2, 2, 1, 2, 3]
    cross = predictive_multiplicity(P, task="classification", reference=0, members=[0, 1, 2])
    assert t.iloc[-1]["ambiguity"] == cross.summary["ambiguity"]
    with pytest.raises(ValueError, match="no predictions"):
        scope_multiplicity(P[:3], keys.iloc[:3], members, task="classification", epsilons=[0.0])


def test_members_predictions_of_fitted_groups():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(120, 3))
    y = X[:, 0] + rng.normal(size=120)
    reg = GradientBoostingRegressor(n_estimators=30, random_state=0).fit(X, y)
    clf = GradientBoostingClassifier(n_estimators=20, random_state=0).fit(X, (y > 0).astype(int))
    groups = [
        FittedGroup("gradient_boosting", {}, [10, 30], ["n_estimators=10", "n_estimators=30"], reg),
        FittedGroup("x", {}, [], ["only"], reg),
    ]
    keys, P = members_predictions(groups, X[:15])
    assert keys["config_id"].tolist() == ["n_estimators=10", "n_estimators=30", "only"]
    staged = list(reg.staged_predict(X[:15]))
    np.testing.assert_allclose(P[0], staged[9], rtol=1e-12)
    np.testing.assert_allclose(P[1], reg.predict(X[:15]), rtol=1e-12)
    assert n_distinct_functions(P) == 2  # the full model twice
    _, Pc = members_predictions([FittedGroup("gb", {}, [20], ["k"], clf)], X[:15])
    np.testing.assert_allclose(Pc[0], clf.predict_proba(X[:15])[:, 1], rtol=1e-12)


def test_invalid_inputs():
    with pytest.raises(ValueError, match="shape"):
        predictive_multiplicity(np.zeros(3), task="regression")
    with pytest.raises(ValueError, match="task"):
        predictive_multiplicity(P_CLS, task="ranking")
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        predictive_multiplicity(P_CLS * 2, task="classification")
    with pytest.raises(ValueError, match="not among"):
        predictive_multiplicity(P_CLS, task="classification", reference=2, members=[0, 1])
    with pytest.raises(ValueError, match="out of range"):
        predictive_multiplicity(P_CLS, task="classification", reference=5)
