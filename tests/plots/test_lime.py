"""Figure comparing LIME weights with SHAP values for the force-plot rows."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from sklearn.datasets import load_breast_cancer  # noqa: E402

from xaipipe.explain.lime import compare_lime_shap, lime_explanations  # noqa: E402
from xaipipe.explain.shapley import shap_values  # noqa: E402
from xaipipe.models.families import make_estimator  # noqa: E402
from xaipipe.plots.lime import plot_lime_vs_shap  # noqa: E402
from xaipipe.plots.shap_force import force_rows  # noqa: E402


@pytest.fixture(scope="module")
def comparison():
    data = load_breast_cancer()
    X, y = data.data[:, :8], 1 - data.target
    names = list(data.feature_names[:8])
    model = make_estimator("gradient_boosting", "classification", {"n_estimators": 15, "max_depth": 2}, random_state=0)
    model.fit(X[:400], y[:400])
    result = shap_values(model, X[400:450], feature_names=names)
    rows = {kind: int(result.row_index[i]) for kind, i in force_rows(result).items()}
    lime = lime_explanations(model, X[400:450], X[:400], rows=list(rows.values()), feature_names=names, num_samples=500)
    return compare_lime_shap(lime, result), rows


def test_one_panel_per_force_row(comparison):
    table, rows = comparison
    fig = plot_lime_vs_shap(table, rows, max_display=5, title="LIME and SHAP")
    assert isinstance(fig, Figure) and len(fig.axes) == 3
    for ax, (_kind, r) in zip(fig.axes, rows.items()):
        assert ax.get_xlabel() == "contribution (log-odds of class 1)"
        assert f"row {r}" in ax.get_title(loc="left")
        assert "g(x)" in ax.get_title(loc="left") and "base + sum" in ax.get_title(loc="left")
        assert len(ax.get_yticklabels()) == 5
        g = table[table.row == r]
        top = g.iloc[np.argsort(-np.abs(g["shap_value"].to_numpy()), kind="stable")[:5]]
        assert {t.get_text() for t in ax.get_yticklabels()} == set(top["condition"])
        widths = sorted(p.get_width() for p in ax.patches)
        np.testing.assert_allclose(widths, sorted(np.r_[top["shap_value"], top["lime_weight"]]))
    assert [t.get_text() for t in fig.axes[0].get_legend().get_texts()] == ["SHAP value", "LIME weight"]


def test_bad_input(comparison):
    table, _ = comparison
    with pytest.raises(ValueError, match="not in the comparison"):
        plot_lime_vs_shap(table, [10**6])
    with pytest.raises(ValueError, match="missing columns"):
        plot_lime_vs_shap(table.drop(columns=["shap_value"]))
