"""SHAP interaction values summarised (xaipipe.explain.shapley.shap_interaction_summary) and the
``shap_interaction_summary`` rule's tables (shap_interaction_tables): against the values themselves,
from a result, an array and the long table in any row order."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from xaipipe.explain.shapley import shap_interaction_summary, shap_interaction_tables


@pytest.fixture(scope="module")
def shap_result():
    from xaipipe.explain.shapley import shap_values
    from xaipipe.models.families import make_estimator

    rng = np.random.default_rng(3)
    X = rng.normal(size=(300, 4))
    y = X[:, 0] + 3 * X[:, 2] * X[:, 3] + 0.1 * rng.normal(size=300)
    model = make_estimator("xgboost", "regression", {"n_estimators": 60, "max_depth": 3}, random_state=0)
    model.fit(X[:200], y[:200])
    return shap_values(model, X[200:], feature_names=["a", "b", "c", "d"], interactions=True)


def test_shap_interaction_summary_from_result_array_and_table(shap_result):
    from xaipipe.explain.shapley import interaction_frame

    iv = shap_result.interaction_values
    s = shap_interaction_summary(shap_result)
    np.testing.assert_allclose(s.matrix.to_numpy(), np.abs(iv).mean(axis=0), rtol=1e-6, atol=1e-9)
    assert list(s.matrix.index) == ["a", "b", "c", "d"]
    t = s.to_frame()
    assert len(t) == 6 and (t["feature_1"].iloc[0], t["feature_2"].iloc[0]) == ("c", "d")
    np.testing.assert_allclose(t["mean_abs_pair"], 2 * t["mean_abs_interaction"])
    assert t["share"].sum() == pytest.approx(1.0) and t["rank"].tolist() == list(range(1, 7))
    np.testing.assert_allclose(s.main_effects().to_numpy(), np.abs(np.diagonal(iv, axis1=1, axis2=2)).mean(0))
    from_array = shap_interaction_summary(iv, ["a", "b", "c", "d"])
    long = interaction_frame(shap_result).assign(dataset="sim", model="xgboost")
    from_table = shap_interaction_summary(long.sample(frac=1.0, random_state=0))  # row order does not matter
    for other in (from_array, from_table):
        names = list(s.matrix.index)  # a shuffled table lists the features in another order
        np.testing.assert_allclose(other.matrix.loc[names, names].to_numpy(), s.matrix.to_numpy(), rtol=1e-12)
        np.testing.assert_allclose(
            other.signed.loc[names, names].to_numpy(), s.signed.to_numpy(), rtol=1e-12, atol=1e-15
        )


def test_shap_interaction_summary_errors():
    with pytest.raises(ValueError, match="shape"):
        shap_interaction_summary(np.zeros((3, 2, 4)))
    with pytest.raises(ValueError, match="columns"):
        shap_interaction_summary(pd.DataFrame({"row": [0]}))
    with pytest.raises(ValueError, match="no rows"):
        shap_interaction_summary(pd.DataFrame(columns=["row", "feature_1", "feature_2", "interaction_value"]))
    bad = pd.DataFrame({"row": [0, 0, 0], "feature_1": ["a", "a", "b"], "feature_2": ["a", "b", "a"]})
    with pytest.raises(ValueError, match="every pair"):
        shap_interaction_summary(bad.assign(interaction_value=1.0))


def test_shap_interaction_tables_from_the_long_table():
    rng = np.random.default_rng(5)
    iv = rng.normal(size=(7, 3, 3))
    iv = (iv + iv.transpose(0, 2, 1)) / 2
    names = ["u", "v", "w"]
    long = pd.DataFrame(
        [
            {
                "dataset": "d",
                "model": "m",
                "row": r,
                "feature_1": names[j],
                "feature_2": names[k],
                "interaction_value": iv[r, j, k],
            }
            for r in range(7)
            for j in range(3)
            for k in range(3)
        ]
    ).sample(frac=1, random_state=0)
    pairs, matrix, summary = shap_interaction_tables(long)
    M = matrix.pivot(index="feature_1", columns="feature_2", values="mean_abs_interaction").loc[names, names]
    np.testing.assert_allclose(M.to_numpy(), np.abs(iv).mean(axis=0), atol=1e-15)
    assert len(pairs) == 3 and pairs["rank"].tolist() == [1, 2, 3]
    top = pairs.iloc[0]
    assert top["mean_abs_pair"] == pytest.approx(2 * M.loc[top.feature_1, top.feature_2])
    empty = shap_interaction_tables(long.iloc[:0])
    assert empty[0].empty and empty[1].empty and empty[2] is None


def test_shap_interaction_tables_of_a_multiclass_model_are_per_class():
    """A ``class`` column (the multiclass SHAP job's table): each class's rows equal the summary of
    that class alone, the figure summary is ``figure_class``'s, an unknown class is named."""
    from xaipipe.explain.shapley import shap_interaction_tables

    rng = np.random.default_rng(0)
    names, n = ["u", "v", "w"], 6
    blocks = {}
    for label in ("low", "mid", "high"):
        iv = rng.normal(size=(n, 3, 3))
        blocks[label] = pd.DataFrame(
            {
                "row": np.repeat(np.arange(n), 9),
                "feature_1": np.tile(np.repeat(names, 3), n),
                "feature_2": np.tile(names, n * 3),
                "interaction_value": iv.reshape(-1),
            }
        )
    table = pd.concat([b.assign(**{"class": k}) for k, b in blocks.items()], ignore_index=True)
    table = table[["class", "row", "feature_1", "feature_2", "interaction_value"]]
    pairs, matrix, summary = shap_interaction_tables(table, figure_class="mid")
    assert list(pairs.columns)[0] == "class" and list(pd.unique(pairs["class"])) == ["low", "mid", "high"]
    for label, block in blocks.items():
        p1, m1, s1 = shap_interaction_tables(block)
        pd.testing.assert_frame_equal(pairs[pairs["class"] == label].drop(columns="class").reset_index(drop=True), p1)
        pd.testing.assert_frame_equal(matrix[matrix["class"] == label].drop(columns="class").reset_index(drop=True), m1)
    pd.testing.assert_frame_equal(summary.matrix, shap_interaction_tables(blocks["mid"])[2].matrix)
    assert shap_interaction_tables(table)[2].matrix.equals(shap_interaction_tables(blocks["low"])[2].matrix)
    with pytest.raises(ValueError, match="explain.figure_class.*'top'"):
        shap_interaction_tables(table, figure_class="top")
