"""A user's own CSV dataset, added with one config entry, through the whole workflow."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pandas as pd
import pytest

from .conftest import copy_workflow, snakemake

pytestmark = pytest.mark.integration

#: the extra config file: ONE dataset entry (the README's worked example + a family subset); tiny's
#: Airfoil switched off and the Rashomon grid of the tiny configuration cut, so that the run stays short
OWN_CONFIG = """\
version: own
datasets:
  airfoil: {enabled: false}
  my_data:
    source: {kind: file, path: data/my.csv}
    task: regression
    target: y
    categorical: [region]
    families: [linear_regression, gradient_boosting]
threads: {rashomon: 1}
rashomon: {epsilons: [0.0, 0.05], epsilon: 0.05, estimators: [permutation]}
"""


def own_frame(n: int = 200, seed: int = 7) -> pd.DataFrame:
    """y = 2 x1 + 0.2 x2 + 3 [region = north] + noise; x3 is pure noise (no effect on y).

    MR ranks x1, then region (a variance of 2 in y against 0.33 for x2): the top two
    variables hold the categorical group, so the 2-D PD is region x x1.
    """
    rng = np.random.default_rng(seed)
    region = rng.choice(["north", "south", "east"], size=n)
    x1 = rng.normal(size=n)
    x2 = rng.uniform(0, 10, size=n)
    x3 = rng.normal(size=n)
    y = 2 * x1 + 0.2 * x2 + 3 * (region == "north") + rng.normal(scale=0.3, size=n)
    return pd.DataFrame({"x1": x1, "region": region, "x2": x2, "x3": x3, "y": y})


@pytest.fixture(scope="module")
def own_run(tmp_path_factory, mirror_dir):
    work = copy_workflow(tmp_path_factory.mktemp("own") / "repo")
    (work / "data").mkdir()
    own_frame().to_csv(work / "data" / "my.csv", index=False)
    (work / "my.yaml").write_text(OWN_CONFIG)
    snakemake(
        work,
        "--cores",
        "2",
        "--configfile",
        "config/config.yaml",
        "tests/configs/small.yaml",
        "tests/configs/tiny.yaml",
        "my.yaml",
        "--config",
        f"uci_mirror={mirror_dir}",
    )
    return work


def test_own_dataset_gets_every_result(own_run):
    res = own_run / "results" / "own"
    info = json.loads((res / "data" / "my_data" / "prepared.json").read_text())
    assert info["feature_groups"] == {"region": ["region_east", "region_north", "region_south"]}
    assert info["n_rows"] == 200 and info["target"] == "y"

    metrics = pd.read_csv(res / "tables" / "test_metrics.csv")
    assert set(metrics["dataset"]) == {"my_data"}
    assert set(metrics["model"]) == {"linear_regression", "gradient_boosting"}
    linear = metrics.set_index("model").loc["linear_regression"]
    assert linear["n_test"] == 40 and linear["r2"] > 0.95  # the data are linear in the features

    mr = pd.read_csv(res / "tables" / "model_reliance.csv")
    lin = mr[(mr.dataset == "my_data") & (mr.model == "linear_regression") & (mr.estimator == "permutation")]
    lin = lin.set_index("feature")
    assert set(lin.index) == {"x1", "region", "x2", "x3"}  # the one-hot group is one variable
    assert lin["mr_difference"].idxmax() == "x1"
    assert lin.loc["x3", "mr_difference"] < 0.01 * lin.loc["x1", "mr_difference"]  # x3 is pure noise

    mcr = pd.read_csv(res / "tables" / "mcr.csv")
    mcr = mcr[mcr.dataset == "my_data"]
    assert {"x1", "region", "x2", "x3"} <= set(mcr["feature"])
    tol = 1e-12 * mcr["mr_reference"].abs().max()
    assert (mcr["mcr_minus"] <= mcr["mr_reference"] + tol).all()
    assert (mcr["mr_reference"] <= mcr["mcr_plus"] + tol).all()

    figures = res / "figures" / "my_data"
    assert (figures / "correlation.pdf").is_file()
    for family in ("linear_regression", "gradient_boosting"):
        for name in ("model_reliance", "ice", "c_ice", "d_ice", "shap_bar", "shap_beeswarm"):
            assert (figures / family / f"{name}.pdf").stat().st_size > 1000, (family, name)
    for name in ("member_reliance", "mcr_intervals", "rid"):
        assert (figures / "rashomon" / f"{name}.pdf").stat().st_size > 1000, name


def test_own_dataset_categorical_group_is_one_variable_in_shap_and_pd(own_run):
    from xaipipe.data.prepare import load_prepared
    from xaipipe.explain.pdp import strongest_h2_pair
    from xaipipe.io import read_joblib

    res = own_run / "results" / "own"
    levels = {"region_east", "region_north", "region_south"}
    data = load_prepared(*(res / "data" / "my_data" / f for f in ("prepared.csv", "prepared.json", "split.json")))
    rankings = pd.read_csv(res / "explain" / "my_data" / "importance_rankings.csv")
    for family in ("linear_regression", "gradient_boosting"):
        explain = res / "explain" / "my_data" / family
        # SHAP tables list the group, not its dummies; a group's value is the sum of its columns'
        values = pd.read_csv(explain / "shap_values.csv", keep_default_na=False)  # "" stays "" (no level)
        assert list(pd.unique(values["feature"])) == ["x1", "region", "x2", "x3"]
        region = values[values["feature"] == "region"]
        assert set(region["level"]) <= levels and set(values.loc[values["feature"] != "region", "level"]) == {""}
        per_row = values.groupby("row").agg(base=("base_value", "first"), out=("model_output", "first"))
        per_row["sum"] = values.groupby("row")["shap_value"].sum()
        np.testing.assert_allclose(per_row["base"] + per_row["sum"], per_row["out"], atol=1e-8)  # additivity
        importance = pd.read_csv(explain / "shap_importance.csv").set_index("feature")
        assert set(importance.index) == {"x1", "region", "x2", "x3"}
        assert importance.loc["region", "mean_abs_shap"] == pytest.approx(region["shap_value"].abs().mean(), rel=1e-12)
        ranked = rankings[rankings["model"] == family].set_index("feature")
        assert ranked.loc["region", "mean_abs_shap"] == pytest.approx(importance.loc["region", "mean_abs_shap"])
        result = read_joblib(explain / "shap_result.joblib")  # the dummies' values are kept
        assert result.feature_names == ("x1", "region", "x2", "x3")
        assert result.columns.feature_names == ("x1", "region_east", "region_north", "region_south", "x2", "x3")
        np.testing.assert_allclose(result.values[:, 1], result.columns.values[:, 1:4].sum(axis=1), rtol=1e-12)
        # the 2-D PD's pair: the largest H² (the group is one variable of the H-statistic table),
        # else the top two by MR, region and x1 (the additive linear model), one curve per level
        pairs = pd.read_csv(explain / "pd_2d.csv", keep_default_na=False, na_values=[""])
        h2 = pd.read_csv(explain / "h_statistic.csv", keep_default_na=False, na_values=[""])
        assert not pairs.empty
        pair = set(pairs[["feature_1", "feature_2"]].iloc[0])
        assert pair == set(strongest_h2_pair(h2, ("region", "x1")))
        if family == "linear_regression":
            assert pair == {"region", "x1"}  # additive: no H² above rounding error
        if "region" not in pair:
            continue
        group_side = "1" if pairs["feature_1"].iloc[0] == "region" else "2"
        assert set(pairs[f"level_{group_side}"]) == levels
        model = read_joblib(res / "models" / "my_data" / "fitted" / f"{family}.joblib")
        for _, cell in pairs.iloc[[0, len(pairs) // 2, len(pairs) - 1]].iterrows():
            Z = data.X_test.copy()
            level = cell[f"level_{group_side}"]
            Z[:, 1:4] = [float(c == level) for c in ("region_east", "region_north", "region_south")]
            Z[:, 0] = cell["value_2" if group_side == "1" else "value_1"]
            assert cell["pd"] == pytest.approx(model.predict(Z).mean(), rel=1e-9)  # brute force
    for family in ("linear_regression", "gradient_boosting"):
        assert (res / "figures" / "my_data" / family / "pd_2d.pdf").stat().st_size > 1000


def test_own_dataset_provenance_and_thesis_outputs(own_run):
    res = own_run / "results" / "own"
    manifest = json.loads((res / "manifest.json").read_text())
    assert set(manifest["datasets"]) == {"my_data"}
    raw = (own_run / "data" / "my.csv").read_bytes()
    assert manifest["datasets"]["my_data"]["source"] == "file"
    assert manifest["datasets"]["my_data"]["raw"][0]["sha256"] == hashlib.sha256(raw).hexdigest()
    # thesis outputs know only the theses' datasets: nothing of them for my_data, no failure
    comparison = pd.read_csv(res / "tables" / "thesis_comparison.csv")
    assert "my_data" not in set(comparison["dataset"]) and comparison["reproduced"].isna().all()
    assert not (res / "rashomon" / "abalone_study").exists()
    assert not (res / "thesis").exists() or not any((res / "thesis").iterdir())


def test_own_dataset_in_the_explorer(own_run):
    """The explorer page holds the user's dataset like the theses' ones: its members' PD and ALE
    of every variable (the one-hot group as one, by level) and its coverage rates."""
    res = own_run / "results" / "own"
    html = (res / "explorer" / "index.html").read_text(encoding="utf-8")
    assert 'id="spec-my_data"' in html and '<option value="my_data">' in html
    effects = pd.read_csv(res / "rashomon" / "my_data" / "member_effects.csv")
    assert set(effects["feature"]) == {"x1", "region", "x2", "x3"} and set(effects["kind"]) == {"pd", "ale"}
    levels = set(effects.loc[effects["feature"] == "region", "level"])
    assert levels == {"region_east", "region_north", "region_south"}
    coverage = pd.read_csv(res / "explorer" / "coverage.csv")
    assert set(coverage["dataset"]) == {"my_data"} and len(coverage) == 8  # PD and ALE of four variables
    assert coverage["coverage_rate"].dropna().between(0, 1).all()
