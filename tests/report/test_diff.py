from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from xaipipe.report.diff import diff_tables, diff_versions, main


def test_diff_tables_reports_changed_numbers_only():
    a = pd.DataFrame(
        {"dataset": ["x", "x", "y"], "model": ["m1", "m2", "m1"], "rmse": [1.0, 2.0, 3.0], "r2": [0.5, 0.6, np.nan]}
    )
    b = a.copy()
    b.loc[1, "rmse"] = 2.5
    b.loc[2, "r2"] = 0.1
    d = diff_tables(a, b, name="t.csv")
    assert set(zip(d["key"], d["column"])) == {("x|m2", "rmse"), ("y|m1", "r2")}
    row = d[d.column == "rmse"].iloc[0]
    assert row["abs_diff"] == pytest.approx(0.5) and row["rel_diff"] == pytest.approx(0.25)
    assert diff_tables(a, a).empty


def test_rows_and_columns_only_in_one_version():
    a = pd.DataFrame({"k": ["a", "b"], "v": [1.0, 2.0]})
    b = pd.DataFrame({"k": ["a", "c"], "v": [1.0, 2.0], "w": [0.0, 0.0]})
    d = diff_tables(a, b)
    assert set(d["status"]) == {"only_in_a", "only_in_b", "column_only_in_b"}


def test_diff_versions_and_cli(tmp_path, capsys):
    for v, value in (("v1", 1.0), ("v2", 1.5)):
        (tmp_path / v / "tables").mkdir(parents=True)
        pd.DataFrame({"k": ["a"], "v": [value]}).to_csv(tmp_path / v / "tables" / "t.csv", index=False)
    details, summary = diff_versions(tmp_path / "v1", tmp_path / "v2")
    assert summary.loc[0, "n_changed"] == 1 and summary.loc[0, "max_abs_diff"] == 0.5
    out = tmp_path / "d.csv"
    assert main([str(tmp_path / "v1"), str(tmp_path / "v2"), "--out", str(out)]) == 0
    assert pd.read_csv(out).loc[0, "value_b"] == 1.5
    assert "t.csv" in capsys.readouterr().out
    with pytest.raises(FileNotFoundError, match="tables"):
        diff_versions(tmp_path / "v1", tmp_path / "nope")


def test_compare_trees_skips_measured_times_of_pickled_tables(tmp_path):
    """--all: a pickled table (a cv_shard) differing only in fit_time_s is identical; a changed
    score, a changed dtype or another kind of pickle is not."""
    import joblib

    from xaipipe.report.diff import compare_trees

    table = pd.DataFrame(
        {
            "config_id": ["a", "b"],
            "rmse": [1.5, 2.25],
            "min_samples_split": [2.0, float("nan")],
            "fit_time_s": [0.1, 0.2],
        }
    )
    for name in ("a", "b"):
        (tmp_path / name / "shards").mkdir(parents=True)
    joblib.dump(table, tmp_path / "a/shards/t.joblib")
    joblib.dump(table.assign(fit_time_s=[9.0, 8.0]), tmp_path / "b/shards/t.joblib")
    assert compare_trees(tmp_path / "a", tmp_path / "b").empty
    joblib.dump(table.assign(rmse=[1.5, 2.2500000000000004]), tmp_path / "b/shards/t.joblib")
    assert list(compare_trees(tmp_path / "a", tmp_path / "b")["file"]) == ["shards/t.joblib"]
    joblib.dump(table.astype({"rmse": "float32"}), tmp_path / "b/shards/t.joblib")
    assert len(compare_trees(tmp_path / "a", tmp_path / "b")) == 1
    joblib.dump({"x": 1}, tmp_path / "a/shards/t.joblib")
    joblib.dump({"x": 1, "fit_time_s": 2}, tmp_path / "b/shards/t.joblib")
    assert len(compare_trees(tmp_path / "a", tmp_path / "b")) == 1
    # a dict of tables (a rashomon_refit result): the tables' measured times are skipped, not the rest
    rel = pd.DataFrame({"config_id": ["a"], "mr_ratio": [1.25], "compute_time_s": [0.5]})
    refit = {"families": ["ridge"], "reliance": rel, "n_groups": 1}
    joblib.dump(refit, tmp_path / "a/shards/t.joblib")
    joblib.dump(dict(refit, reliance=rel.assign(compute_time_s=[3.0])), tmp_path / "b/shards/t.joblib")
    assert compare_trees(tmp_path / "a", tmp_path / "b").empty
    joblib.dump(dict(refit, n_groups=2), tmp_path / "b/shards/t.joblib")
    assert len(compare_trees(tmp_path / "a", tmp_path / "b")) == 1


def _reliance_table(model, X, y, seed):
    from xaipipe.explain.reliance import model_reliance

    return model_reliance(model, X, y, estimator="permutation", n_repeats=10, random_state=seed).to_frame()


def test_fresh_permutations_are_within_noise_and_a_changed_model_is_flagged():
    """Two runs of the permutation MR estimator with other seeds differ only by Monte-Carlo error:
    every change is within 3 SE (or an uncertainty column); a changed model is flagged."""
    from sklearn.linear_model import LinearRegression

    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 3))
    y = X @ [2.0, 1.0, 0.0] + rng.normal(size=400)
    order = np.argsort(y)  # adversarial row order: sorted by the response
    X, y = X[order], y[order]
    model = LinearRegression().fit(X, y)
    a, b = _reliance_table(model, X, y, 1), _reliance_table(model, X, y, 2)
    d = diff_tables(a, b, name="model_reliance.csv")
    assert len(d) and not d["status"].eq("changed").any(), d
    assert {"within_noise", "uncertainty"} == set(d["status"])
    within = d[d.status == "within_noise"]
    assert (within["abs_diff"] <= 3 * within["noise_se"]).all()
    # noise_z = 0: every difference is flagged (apart from uncertainty columns)
    assert diff_tables(a, b, noise_z=0)["status"].eq("changed").any()
    # another model: its MR moves far beyond the Monte-Carlo error
    other = LinearRegression().fit(X, X @ [2.0, 2.0, 0.0] + rng.normal(size=400))
    flagged = diff_tables(a, _reliance_table(other, X, y, 1))
    assert set(flagged.loc[flagged.status == "changed", "column"]) >= {"mr_ratio", "mr_difference", "e_switch"}
    with pytest.raises(ValueError, match="noise_z"):
        diff_tables(a, b, noise_z=-1)


def test_an_exact_quantity_is_flagged_by_any_change():
    a = pd.DataFrame({"k": ["a"], "mr_ratio": [1.5], "mr_ratio_se": [0.0]})
    b = a.assign(mr_ratio=1.5 + 1e-6)
    assert diff_tables(a, b)["status"].tolist() == ["changed"]
    assert diff_tables(a, b.assign(mr_ratio_se=[1e-3]))["status"].tolist() == ["within_noise", "uncertainty"]
