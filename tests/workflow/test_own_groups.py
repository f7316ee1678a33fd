"""A user's own table with their own feature groups (issue 45 item 3) through the whole workflow:
a block of three related numeric columns grouped as ``soil``, a categorical grouped with a numeric
column as ``place``, one column left alone; MR, MCR, conditional MR, SHAP (summed), SAGE play each
group as one variable, PD / ICE / ALE / H² their columns; SAGE's table and figure exist."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from .conftest import copy_workflow, snakemake

pytestmark = pytest.mark.integration

GROUPS_CONFIG = """\
version: groups
datasets:
  airfoil: {enabled: false}
  plots:
    source: {kind: file, path: data/plots.csv}
    task: regression
    target: yield
    categorical: [region]
    groups:
      soil: [s1, s2, s3]
      place: [region, elev]
    families: [linear_regression, gradient_boosting]
threads: {rashomon: 1}
rashomon: {epsilons: [0.0, 0.05], epsilon: 0.05, estimators: [permutation]}
explain:
  sage: {threshold: 0.1, background_size: 16, batch_size: 64, max_permutations: 4096}
"""

SOIL, PLACE = ["s1", "s2", "s3"], ["region_east", "region_north", "region_south", "elev"]
VARIABLES = {"soil", "place", "x"}


def plots_frame(n: int = 240, seed: int = 8) -> pd.DataFrame:
    """yield = 2 z + 3 [region = north] + elev + noise; s1..s3 noisy copies of z; x pure noise.
    Sorted by the response (adversarial row order)."""
    rng = np.random.default_rng(seed)
    z = rng.normal(size=n)
    region = rng.choice(["east", "north", "south"], size=n)
    elev = rng.uniform(0, 2, size=n)
    frame = pd.DataFrame(
        {
            "s1": z + 0.3 * rng.normal(size=n),
            "x": rng.normal(size=n),
            "s2": z + 0.3 * rng.normal(size=n),
            "region": region,
            "s3": z + 0.3 * rng.normal(size=n),
            "elev": elev,
        }
    )
    frame["yield"] = 2 * z + 3 * (region == "north") + elev + rng.normal(scale=0.3, size=n)
    return frame.sort_values("yield", kind="stable").reset_index(drop=True)


@pytest.fixture(scope="module")
def groups_run(tmp_path_factory, mirror_dir):
    work = copy_workflow(tmp_path_factory.mktemp("groups") / "repo")
    (work / "data").mkdir()
    plots_frame().to_csv(work / "data" / "plots.csv", index=False)
    (work / "groups.yaml").write_text(GROUPS_CONFIG)
    args = ["--configfile", "config/config.yaml", "tests/configs/small.yaml", "tests/configs/tiny.yaml", "groups.yaml"]
    snakemake(work, "--cores", "2", *args, "--config", f"uci_mirror={mirror_dir}")
    return work / "results" / "groups"


def test_groups_are_recorded_and_every_importance_plays_them_as_one_variable(groups_run):
    res = groups_run
    info = json.loads((res / "data" / "plots" / "prepared.json").read_text())
    assert info["user_groups"] == {"soil": SOIL, "place": PLACE}
    assert info["feature_groups"] == {"region": PLACE[:3]}
    reliance = pd.read_csv(res / "tables" / "model_reliance.csv")
    marginal = reliance[reliance["estimator"].isin(["permutation", "e_divide", "e_switch"])]
    assert set(marginal["feature"]) == VARIABLES
    conditional = reliance[reliance["estimator"] == "conditional_permutation"]
    assert set(conditional["feature"]) == VARIABLES
    mcr = pd.read_csv(res / "tables" / "mcr.csv")
    assert set(mcr["feature"]) == VARIABLES
    for family in ("linear_regression", "gradient_boosting"):
        explain = res / "explain" / "plots" / family
        importance = pd.read_csv(explain / "shap_importance.csv")
        assert set(importance["feature"]) == VARIABLES
        values = pd.read_csv(explain / "shap_values.csv", keep_default_na=False)
        per_row = values.groupby("row").agg(base=("base_value", "first"), out=("model_output", "first"))
        per_row["sum"] = values.groupby("row")["shap_value"].sum()
        np.testing.assert_allclose(per_row["base"] + per_row["sum"], per_row["out"], atol=1e-8)  # summed groups
        perm = marginal[(marginal["model"] == family) & (marginal["estimator"] == "permutation")]
        ranked = perm.sort_values("mr_difference", ascending=False)["feature"].tolist()
        assert ranked[-1] == "x"  # pure noise last
        # PD / ICE and ALE explain columns: the groups' columns, never a group's name
        curves = pd.read_csv(explain / "pd_ice.csv")
        assert not set(curves["feature"]) & {"soil", "place"}
        assert set(curves["feature"]) <= {"s1", "s2", "s3", "region", "elev", "x"}
        ale = pd.read_csv(explain / "ale.csv", keep_default_na=False, na_values=[""])
        assert set(ale["feature"]) == {"s1", "s2", "s3", "region", "elev", "x"}


def test_sage_table_and_figure_of_every_model(groups_run):
    res = groups_run
    table = pd.read_csv(res / "tables" / "sage.csv")
    assert set(table["model"]) == {"linear_regression", "gradient_boosting"}
    for family, rows in table.groupby("model"):
        rows = rows.set_index("feature")
        assert set(rows.index) == VARIABLES
        assert (rows["sage_se"] > 0).all() and rows["converged"].all()
        assert rows.loc["soil", "sage"] > 10 * abs(rows.loc["x", "sage"])
        assert rows.loc["place", "sage"] > 10 * abs(rows.loc["x", "sage"])
        # efficiency, up to the Monte-Carlo error of the total
        total, se = rows["sage"].sum(), np.sqrt((rows["sage_se"] ** 2).sum())
        gap = rows["loss_mean_prediction"].iloc[0] - rows["loss_model"].iloc[0]
        assert abs(total - gap) < 6 * se + 0.05 * gap, (family, total, gap)
        assert set(rows["background"]) == {16} and set(rows["n_rows"]) == {48}
        assert (res / "figures" / "plots" / family / "sage.pdf").stat().st_size > 1000
