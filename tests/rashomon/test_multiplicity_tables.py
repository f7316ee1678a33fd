"""The workflow functions of predictive multiplicity (issue 35, round 2): the distinct-function and
default-epsilon columns of sets / mcr / mcr_path, and the multiplicity rule's tables, on hand-made sets
whose answers are counted by hand."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from xaipipe.rashomon.multiplicity import (
    function_count_columns,
    multiplicity_tables,
    predictive_multiplicity,
    scope_multiplicity,
)

GRID = [0.0, 0.5, 1.0, 2.0]


def _members():
    """Family A: a1 (reference), a2 (entry 0.3, a copy of a1's function), a3 (entry 1.5);
    family B: b1 (reference), b2 (entry 0.8). Cross-family: a1 the reference, b1 enters at 0.2,
    a2 at 0.4, b2 at 1.2, a3 beyond 2."""
    rows = [
        ("A", "a1", 0.0, True, 0.0, True),
        ("A", "a2", 0.3, False, 0.4, False),
        ("A", "a3", 1.5, False, 2.5, False),
        ("B", "b1", 0.0, True, 0.2, False),
        ("B", "b2", 0.8, False, 1.2, False),
    ]
    out = []
    for fam, cid, gf, rf, gc, rc in rows:
        for feature in ("x", "z"):  # members.csv has one row per member x variable
            out.append(
                {
                    "family": fam,
                    "config_id": cid,
                    "gap_family": gf,
                    "min_epsilon_family": min(e for e in GRID if e >= gf),
                    "is_reference_family": rf,
                    "gap_cross_family": gc,
                    "min_epsilon_cross_family": min((e for e in GRID if e >= gc), default=np.nan),
                    "is_reference_cross_family": rc,
                    "feature": feature,
                }
            )
    return pd.DataFrame(out)


def _predictions(task="regression"):
    P = np.array(
        [
            [0.2, 0.4, 0.6, 0.8],  # a1
            [0.2, 0.4, 0.6, 0.8],  # a2: the same function
            [0.9, 0.1, 0.6, 0.3],  # a3
            [0.3, 0.6, 0.4, 0.8],  # b1
            [0.1, 0.4, 0.7, 0.45],  # b2
        ]
    )
    keys = pd.DataFrame({"family": ["A", "A", "A", "B", "B"], "config_id": ["a1", "a2", "a3", "b1", "b2"]})
    return P, keys


def test_distinct_functions_on_the_grid_and_on_the_path():
    P, keys = _predictions()
    members = _members()
    grid = pd.DataFrame(
        [(s, e) for s in ("A", "B", "cross_family", "linear_exact") for e in GRID], columns=["scope", "epsilon"]
    )
    out = function_count_columns(grid, members, keys[::-1], P[::-1], default_epsilon=1.0)  # any key order
    got = out.set_index(["scope", "epsilon"])["n_distinct_functions"]
    # A: {a1} at 0, {a1, a2} = one function at 0.5 and 1, + a3 at 2
    assert [got["A", e] for e in GRID] == [1, 1, 1, 2]
    assert [got["B", e] for e in GRID] == [1, 1, 2, 2]
    # cross: a1 | a1 b1 a2 (two functions) | same | + b2
    assert [got["cross_family", e] for e in GRID] == [1, 2, 2, 3]
    assert out.loc[out.scope == "linear_exact", "n_distinct_functions"].isna().all()
    assert out["is_default"].tolist() == [e == 1.0 for e in out["epsilon"]]
    assert list(out.columns) == ["scope", "epsilon", "n_distinct_functions", "is_default"]
    # exact path: entry epsilons; the default marks the last step at or below 1.0 per scope
    path = pd.DataFrame(
        {
            "scope": ["A", "A", "A", "cross_family", "cross_family", "cross_family"],
            "epsilon": [0.0, 0.3, 1.5, 0.0, 0.2, 0.4],
        }
    )
    p = function_count_columns(path, members, keys, P, default_epsilon=1.0, path=True)
    assert p["n_distinct_functions"].tolist() == [1, 1, 2, 1, 2, 2]
    assert p["is_default"].tolist() == [False, True, False, False, False, True]
    with pytest.raises(ValueError, match="no predictions"):
        function_count_columns(grid, members, keys.iloc[:4], P[:4], default_epsilon=1.0)


def test_multiplicity_tables_regression():
    P, keys = _predictions()
    members = _members()
    out = multiplicity_tables(
        P, keys, members, task="regression", epsilons=GRID, default_epsilon=1.0, row_ids=[10, 11, 12, 13],
        y_true=[0.0, 0.5, 0.5, 1.0], dataset="toy",
    )  # fmt: skip
    assert list(out.to_frames()) == ["multiplicity", "path", "rows"] and out.to_frames()["rows"] is out.rows
    table = out.multiplicity
    expected = scope_multiplicity(P, keys, members, task="regression", epsilons=GRID)
    expected["max_width_row"] = np.array([10, 11, 12, 13])[expected["max_width_row"]]  # row ids
    pd.testing.assert_frame_equal(table.drop(columns=["dataset", "is_default"]), expected)
    assert (table["dataset"] == "toy").all() and table["is_default"].tolist() == [e == 1.0 for e in table["epsilon"]]
    # cross family at 1.0: a1, a2, b1 -> widths per row 0.1, 0.2, 0.2, 0.0
    row = table[(table.scope == "cross_family") & (table.epsilon == 1.0)].iloc[0]
    assert row["mean_width"] == pytest.approx(np.mean([0.1, 0.2, 0.2, 0.0]))
    assert row["n_members"] == 3 and row["n_distinct_functions"] == 2
    assert row["max_width_row"] in (11, 12)  # a row id; rows 11 and 12 tie at 0.2
    assert table.loc[(table.scope == "A") & (table.epsilon == 2.0), "max_width_row"].iloc[0] == 10  # a3: 0.7
    # the exact path: one row per entry epsilon of the scope (up to the largest grid epsilon)
    path = out.path
    assert path.loc[path.scope == "A", "epsilon"].tolist() == [0.0, 0.3, 1.5]
    assert path.loc[path.scope == "cross_family", "epsilon"].tolist() == [0.0, 0.2, 0.4, 1.2]
    assert path.loc[path.scope == "B", "epsilon"].tolist() == [0.0, 0.8]
    # at a grid epsilon, the path's set in effect equals the grid's set
    eff = path[path.is_default].set_index("scope")
    grid_default = table[table.is_default].set_index("scope")
    for col in ("n_members", "mean_width", "max_width"):
        pd.testing.assert_series_equal(eff[col], grid_default[col], check_names=False)
    rows = out.rows
    assert set(rows["scope"]) == {"A", "B", "cross_family"} and (rows["epsilon"] == 1.0).all()
    cross = rows[rows.scope == "cross_family"]
    assert cross["row"].tolist() == [10, 11, 12, 13] and cross["y_true"].tolist() == [0.0, 0.5, 0.5, 1.0]
    np.testing.assert_allclose(cross["width"], [0.1, 0.2, 0.2, 0.0], atol=1e-15)
    assert (cross["reference"] == P[0]).all()


def test_multiplicity_tables_classification():
    P, keys = _predictions()
    members = _members()
    out = multiplicity_tables(P, keys, members, task="classification", epsilons=GRID, default_epsilon=2.0)
    table = out.multiplicity
    assert table["ambiguity"].between(0, 1).all() and (table["discrepancy"] <= table["ambiguity"] + 1e-15).all()
    assert table["mean_capacity"].between(1, 2).all()
    # cross family at 2.0: a1, a2, b1, b2; classes of a1: 0 0 1 1; b1: 0 1 0 1; b2: 0 0 1 0
    row = table[(table.scope == "cross_family") & (table.epsilon == 2.0)].iloc[0]
    assert row["ambiguity"] == pytest.approx(3 / 4) and row["discrepancy"] == pytest.approx(2 / 4)
    rows = out.rows[lambda t: t.scope == "cross_family"]
    direct = predictive_multiplicity(P[[0, 1, 3, 4]], task="classification", reference=0, capacity=True)
    np.testing.assert_array_equal(rows["ambiguous"].to_numpy(), direct.rows["ambiguous"].to_numpy())
    np.testing.assert_allclose(rows["rashomon_capacity"], direct.rows["rashomon_capacity"])
