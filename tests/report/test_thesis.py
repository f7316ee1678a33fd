from __future__ import annotations

import pandas as pd
import pytest
import yaml

from tests.conftest import REPO
from xaipipe.report.thesis import (
    available,
    check_mapping,
    figure_sources,
    importance_before_shap,
    latex_table,
    render_figure,
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
    expected |= {f"000_fig_4_{i}" for i in range(1, 9)} | {f"000_fig_4_{i}_waterfall" for i in range(3, 6)}
    expected |= {"001_fig_2_1", "001_fig_2_2", "001_fig_3_1_oob", "001_fig_3_1", "001_fig_3_2", "001_fig_3_3"}
    expected |= {"001_fig_4_3_ale"}  # PD beside ALE of Abalone's weights (issue 35)
    assert figures == expected
    figs = config["thesis"]["figures"]
    for i, which in ((3, "high"), (4, "low"), (5, "near_base")):  # force plots as printed; waterfalls kept
        assert figs[f"000_fig_4_{i}"]["kind"] == f"shap_force_{which}"
        assert figs[f"000_fig_4_{i}_waterfall"]["kind"] == f"shap_waterfall_{which}"
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
        "frequency",
        "suction-side-displacement-thickness",
    ]
    assert thesis_pd_features(config["thesis"], "abalone", "gradient_boosting") == ["Whole_weight"]
    assert figure_sources(entry, "results/v1") == {"curves": "results/v1/explain/airfoil/gradient_boosting/pd_ice.csv"}


def test_latex_table_uses_booktabs():
    tex = latex_table(pd.DataFrame({"Model": ["a"], "RMSE": [1.23456], "n": [3]}), caption="c", label="tab:x")
    assert "\\toprule" in tex and "\\midrule" in tex and "\\bottomrule" in tex
    assert "1.2346" in tex and " 3 " in tex + " " and "\\label{tab:x}" in tex


def test_render_test_metrics_table(tmp_path):
    metrics = pd.DataFrame(
        {
            "dataset": ["airfoil"] * 2,
            "model": ["random_forest", "gradient_boosting"],
            "rmse": [1.8, 1.5],
            "mae": [1.3, 1.0],
            "r2": [0.93, 0.95],
        }
    )
    path = tmp_path / "m.csv"
    metrics.to_csv(path, index=False)
    reference = {
        "test_metrics": {
            "rows": [{"dataset": "airfoil", "model": "random_forest", "rmse": 1.8258, "mae": 1.3177, "r2": 0.9335}]
        }
    }
    table, tex = render_table({"kind": "test_metrics", "dataset": "airfoil"}, {"metrics": str(path)}, reference, "t")
    assert table["Model"].tolist() == ["Random Forest", "Gradient Boosting"]
    assert table.loc[0, "RMSE (thesis)"] == 1.8258 and pd.isna(table.loc[1, "RMSE (thesis)"])
    assert "--" in tex


def test_seed000_figures_4_1_to_4_5_render_from_stored_results(tmp_path):
    """Figs 4.1 (response against each variable), 4.2 (split gain beside permutation MR)
    and the force plots 4.3-4.5 render from files laid out as the pipeline writes them."""
    import numpy as np
    from sklearn.datasets import load_breast_cancer

    from xaipipe.explain.shapley import shap_values
    from xaipipe.io import write_joblib, write_json
    from xaipipe.models.families import make_estimator
    from xaipipe.plots.style import figure_style

    data = load_breast_cancer()
    names = [n.replace(" ", "_") for n in data.feature_names[:6]]
    X, y = data.data[:, :6], 1 - data.target
    frame = pd.DataFrame(X, columns=names).assign(Diagnosis=y)
    frame.insert(0, "row_id", np.arange(len(frame)))
    res = "results/v"
    entry = {"dataset": "breast_cancer", "model": "xgboost"}
    sources = {
        **figure_sources({"kind": "response_vs_features", **entry}, res),
        **figure_sources({"kind": "importance_before_shap", **entry}, res),
        **figure_sources({"kind": "shap_force_high", **entry}, res),
    }
    assert sources["split_gain"] == "results/v/explain/breast_cancer/xgboost/split_gain.csv"
    sources = {k: str(tmp_path / v) for k, v in sources.items()}
    for path in sources.values():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(sources["prepared"], index=False)
    write_json(sources["prepared_info"], {"target": "Diagnosis", "features": names})
    gain = pd.DataFrame(
        {
            "dataset": "breast_cancer",
            "model": "xgboost",
            "feature": names,
            "split_gain": np.arange(6.0),
            "kind": "total_gain",
        }
    )
    gain.to_csv(sources["split_gain"], index=False)
    reliance = pd.DataFrame(
        {
            "feature": names * 3,
            "estimator": ["permutation"] * 12 + ["e_divide"] * 6,
            "loss": ["log_loss"] * 6 + ["zero_one"] * 6 + ["log_loss"] * 6,
            "mr_ratio": np.r_[np.linspace(1, 2, 6), np.full(6, 3.0), np.ones(6)],
            "mr_ratio_std": np.r_[np.full(6, 0.1), np.zeros(12)],
        }
    )
    reliance.to_csv(sources["reliance"], index=False)
    model = make_estimator("xgboost", "classification", {"n_estimators": 10, "max_depth": 2}, random_state=0)
    model.fit(X[:400], y[:400])
    write_joblib(sources["shap"], shap_values(model, X[400:440], feature_names=names))

    table = importance_before_shap(gain, reliance, loss="log_loss")
    assert table["feature"].tolist() == names
    assert table["permutation_importance"].tolist() == np.linspace(1, 2, 6).tolist()  # permutation rows only
    with pytest.raises(ValueError, match="different features"):
        importance_before_shap(gain.iloc[1:], reliance, loss="log_loss")
    with pytest.raises(ValueError, match="several losses"):
        importance_before_shap(gain, reliance)
    with pytest.raises(ValueError, match="permutation"):
        importance_before_shap(gain, reliance[reliance.estimator != "permutation"], loss="log_loss")
    with figure_style():
        fig = render_figure({"kind": "response_vs_features", **entry}, sources)
        assert {ax.get_title() for ax in fig.axes if ax.get_visible()} >= set(names)
        fig = render_figure({"kind": "importance_before_shap", **entry}, sources, loss="log_loss")
        assert len(fig.axes) == 2
        for which in ("high", "low", "near_base"):
            fig = render_figure({"kind": f"shap_force_{which}", **entry, "title": which}, sources)
            assert fig.axes


def test_thesis_effect_figures_carry_the_target_unit(tmp_path):
    """The PD / ICE thesis figures label their axes with the dataset's target_unit and explained output
    (issue 43); without them the labels are as before."""
    import numpy as np
    from sklearn.linear_model import LinearRegression

    from xaipipe.explain import pdp
    from xaipipe.plots.style import figure_style

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2))
    model = LinearRegression().fit(X, X[:, 0] - 2 * X[:, 1])
    effects = [pdp.explain_feature(model, X, j, feature_names=["a", "b"], resolution=5) for j in (0, 1)]
    path = tmp_path / "pd_ice.csv"
    pdp.effects_table(effects, max_curves=10).to_csv(path, index=False)
    with figure_style():
        pd_fig = render_figure(
            {"kind": "pd", "features": ["a"]}, {"curves": str(path)}, target_unit="rings", output="predict"
        )
        assert pd_fig.axes[0].get_ylabel() == "partial dependence (rings)"
        ice = render_figure(
            {"kind": "ice", "features": ["a", "b"]}, {"curves": str(path)}, target_unit="dB", output="predict"
        )
        assert ice.axes[0].get_ylabel() == "prediction (dB)"
        assert render_figure({"kind": "pd", "features": ["a"]}, {"curves": str(path)}).axes[0].get_ylabel() == (
            "partial dependence"
        )
