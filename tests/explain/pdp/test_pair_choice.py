"""The pair of the 2-D PD and the second-order ALE: the pair of largest H² (issue 43)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd


def _friedman1(Z):
    """Friedman's benchmark 1 on [0, 1]^5: the only interaction is x0 x x1."""
    return 10 * np.sin(np.pi * Z[:, 0] * Z[:, 1]) + 20 * (Z[:, 2] - 0.5) ** 2 + 10 * Z[:, 3] + 5 * Z[:, 4]


class _Friedman1:
    """The function as a fitted regressor (``predict``), as the pipeline's models are."""

    def fit(self, X, y=None):
        return self

    def predict(self, X):
        return _friedman1(np.asarray(X, dtype=float))


def test_the_2d_pd_pair_is_the_pair_of_largest_h2():
    """Ranked by MR the top two are x3 and x0 (x3's linear effect is the largest); H² ranks x0 x x1, the
    DGP's only interaction, first, and the 2-D PD is drawn for it (issue 43)."""
    from xaipipe.config import HStatisticSettings, PdIceSettings
    from xaipipe.explain.pdp import h_statistic_table, pd_ice_tables, strongest_h2_pair

    rng = np.random.default_rng(7)
    X = rng.uniform(0, 1, size=(200, 5))
    names = [f"x{j}" for j in range(5)]
    top = ["x3", "x0", "x1", "x2"]  # an MR order: x3 first
    data = SimpleNamespace(
        X_test=X, features=names, feature_groups=None, test_rows=None, task="regression", classes=None
    )
    h2 = HStatisticSettings(seed=0, output="auto", n_rows=100, n_rows_random_forest=100, n_bootstrap=0)
    table = h_statistic_table(_friedman1, data, h2, top=top)
    pairs = table[table["kind"] == "pairwise"]
    assert len(pairs) == 6
    pair = strongest_h2_pair(table, top)
    assert pair == ("x0", "x1")
    assert float(pairs.loc[pairs["feature"] == "x0:x1", "h2"].iloc[0]) > 10 * float(
        pairs.loc[pairs["feature"] != "x0:x1", "h2"].max()
    )
    model = _Friedman1()
    pd_settings = PdIceSettings(seed=0, top_k=2, smooth=0, large_data=None)
    _, pd_2d = pd_ice_tables(model, data, pd_settings, top=top[:2], pair=pair)
    assert set(pd_2d["feature_1"]) == {"x0"} and set(pd_2d["feature_2"]) == {"x1"}
    _, by_mr = pd_ice_tables(model, data, pd_settings, top=top[:2])
    assert set(by_mr["feature_1"]) == {"x3"} and set(by_mr["feature_2"]) == {"x0"}  # pair=None: the top two
    # the 2-D PD of the chosen pair is that of explain_pair on the same rows
    from xaipipe.explain.pdp import explain_pair

    direct = explain_pair(
        model,
        X,
        ("x0", "x1"),
        feature_names=names,
        resolution=20,
        output="predict",
        kind="uniform",
        percentiles=(0.0, 1.0),
    )
    np.testing.assert_allclose(pd_2d["pd"].to_numpy(), np.asarray(direct.pd).ravel())


def test_strongest_h2_pair_falls_back_to_the_mr_pair():
    from xaipipe.explain.pdp import strongest_h2_pair

    total = pd.DataFrame(
        {"kind": ["total", "total"], "feature": ["a", "b"], "feature_1": "", "feature_2": "", "h2": 0.3}
    )
    assert strongest_h2_pair(total, ["b", "a", "c"]) == ("b", "a")  # no pairwise row
    nan = pd.concat(
        [
            total,
            pd.DataFrame(
                {"kind": ["pairwise"], "feature": ["a:b"], "feature_1": ["a"], "feature_2": ["b"], "h2": [np.nan]}
            ),
        ]
    )
    assert strongest_h2_pair(nan, ["b", "a"]) == ("b", "a")  # no finite H²
    assert strongest_h2_pair(total.iloc[:0], ["a"]) is None  # fewer than two variables
    # an additive model: every H² is rounding error (a linear regression's, 1e-31 .. 1e-28), not a pick
    additive = pd.DataFrame(
        {
            "kind": "pairwise",
            "feature": ["a:b", "a:c", "b:c"],
            "feature_1": ["a", "a", "b"],
            "feature_2": ["b", "c", "c"],
            "h2": [5.7e-30, 4.0e-30, 1.2e-28],
        }
    )
    assert strongest_h2_pair(additive, ["a", "b", "c"]) == ("a", "b")
    assert strongest_h2_pair(additive, ["a", "b", "c"], zero=0.0) == ("b", "c")
    tie = pd.DataFrame(
        {
            "kind": "pairwise",
            "feature": ["a:b", "a:c"],
            "feature_1": ["a", "a"],
            "feature_2": ["b", "c"],
            "h2": [0.5, 0.5],
        }
    )
    assert strongest_h2_pair(tie, []) == ("a", "b")  # ties: the first row
