from __future__ import annotations

import pandas as pd
import pytest
import yaml

from tests.conftest import REPO
from xaipipe.report.thesis import (
    available,
    check_mapping,
    figure_sources,
    latex_table,
    render_table,
    thesis_pd_features,
)


@pytest.fixture(scope="module")
def config():
    return yaml.safe_load((REPO / "config" / "config.yaml").read_text())


def test_default_mapping_is_valid_and_complete(config):
    check_mapping(config["thesis"])
    figures = set(config["thesis"]["figures"])
    expected = {f"001_fig_4_{i}" for i in range(1, 6)} | {f"001_fig_5_{i}" for i in range(1, 10)}
    expected |= {f"000_fig_4_{i}" for i in range(3, 9)}
    expected |= {"001_fig_2_1", "001_fig_2_2", "001_fig_3_1_oob", "001_fig_3_1", "001_fig_3_2", "001_fig_3_3"}
    assert figures == expected
    assert set(config["thesis"]["tables"]) == {"001_table_4_1", "001_table_5_2", "001_table_5_4", "001_table_5_6"}


def test_check_mapping_names_the_key():
    with pytest.raises(ValueError, match=r"thesis.figures.x: unknown kind 'pie'"):
        check_mapping({"figures": {"x": {"kind": "pie"}}})
    with pytest.raises(ValueError, match=r"thesis.figures.y: kind 'ice' needs key\(s\) \['model', 'features'\]"):
        check_mapping({"figures": {"y": {"kind": "ice", "dataset": "airfoil"}}})


def test_available_and_pd_features(config):
    fams = {"airfoil": ["gradient_boosting"], "abalone": ["gradient_boosting"]}.get
    entry = config["thesis"]["figures"]["001_fig_5_3"]
    assert available(entry, ["airfoil"], fams)
    assert not available(entry, ["abalone"], fams)
    assert not available({"kind": "rashomon_rank_heatmap", "study": "abalone_study"}, ["abalone"], fams, [])
    assert thesis_pd_features(config["thesis"], "airfoil", "gradient_boosting") == [
        "frequency", "suction-side-displacement-thickness"]
    assert thesis_pd_features(config["thesis"], "abalone", "gradient_boosting") == ["Whole_weight"]
    assert figure_sources(entry, "results/v1") == {"curves": "results/v1/explain/airfoil/gradient_boosting/pd_ice.csv"}


def test_latex_table_uses_booktabs():
    tex = latex_table(pd.DataFrame({"Model": ["a"], "RMSE": [1.23456], "n": [3]}), caption="c", label="tab:x")
    assert "\\toprule" in tex and "\\midrule" in tex and "\\bottomrule" in tex
    assert "1.2346" in tex and " 3 " in tex + " " and "\\label{tab:x}" in tex


def test_render_test_metrics_table(tmp_path):
    metrics = pd.DataFrame({"dataset": ["airfoil"] * 2, "model": ["random_forest", "gradient_boosting"],
                            "rmse": [1.8, 1.5], "mae": [1.3, 1.0], "r2": [0.93, 0.95]})
    path = tmp_path / "m.csv"
    metrics.to_csv(path, index=False)
    reference = {"test_metrics": {"rows": [
        {"dataset": "airfoil", "model": "random_forest", "rmse": 1.8258, "mae": 1.3177, "r2": 0.9335}]}}
    table, tex = render_table({"kind": "test_metrics", "dataset": "airfoil"}, {"metrics": str(path)}, reference,
                              "t")
    assert table["Model"].tolist() == ["Random Forest", "Gradient Boosting"]
    assert table.loc[0, "RMSE (thesis)"] == 1.8258 and pd.isna(table.loc[1, "RMSE (thesis)"])
    assert "--" in tex
