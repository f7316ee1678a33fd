"""Force plots (000 Figs 4.3-4.5) and the self-contained stacked force plot HTML."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import re  # noqa: E402

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from sklearn.datasets import load_breast_cancer  # noqa: E402

from xaipipe.explain.shapley import shap_values  # noqa: E402
from xaipipe.models.families import make_estimator  # noqa: E402
from xaipipe.plots.shap import local_rows  # noqa: E402
from xaipipe.plots.shap_force import force_rows, plot_shap_force, plot_shap_force_local, save_force_html  # noqa: E402
from xaipipe.plots.style import figure_style, save_figure  # noqa: E402


@pytest.fixture(scope="module")
def result():
    data = load_breast_cancer()
    X, y = data.data[:, :10], 1 - data.target
    model = make_estimator("xgboost", "classification", {"n_estimators": 20, "max_depth": 2}, random_state=0)
    model.fit(X[:400], y[:400])
    return shap_values(model, X[400:460], feature_names=list(data.feature_names[:10]))


def _texts(fig):
    return [t.get_text() for ax in fig.axes for t in ax.texts] + [fig._suptitle.get_text() if fig._suptitle else ""]


def test_force_rows_are_the_waterfall_rows(result):
    assert force_rows(result) == local_rows(result)
    rows = force_rows(result)
    out = result.model_output
    assert out[rows["high"]] == out.max() and out[rows["low"]] == out.min()


def test_force_plot_of_one_row(result, tmp_path):
    i = force_rows(result)["high"]
    fig = plot_shap_force(result, i)
    assert isinstance(fig, Figure) and len(fig.axes) == 1
    texts = _texts(fig)
    assert f"{result.model_output[i]:.2f}" in texts  # shap prints f(x) with 2 decimals
    assert "base value" in texts and "f(x)" in texts
    assert fig.axes[0].get_xlabel() == "model output (log-odds of class 1)"
    assert any(f"row {int(result.row_index[i])}" in t for t in texts)
    # the forces span base value -> f(x): the drawn patches cover that interval
    xs = np.concatenate([p.get_path().vertices[:, 0] for p in fig.axes[0].patches])
    lo, hi = sorted([result.base_values[i], result.model_output[i]])
    assert xs.min() <= lo + 1e-6 and xs.max() >= hi - 1e-6
    with figure_style():
        save_figure(fig, tmp_path / "force.png")
    assert (tmp_path / "force.png").stat().st_size > 5000


def test_force_plots_of_the_three_rows(result):
    figs = plot_shap_force_local(result)
    assert list(figs) == ["high", "low", "near_base"]
    rows = force_rows(result)
    for kind, fig in figs.items():
        assert any(f"row {int(result.row_index[rows[kind]])}" in t for t in _texts(fig))
    with pytest.raises(ValueError, match="row"):
        plot_shap_force(result, result.n_rows)


def test_stacked_force_html_is_self_contained_and_reproducible(result, tmp_path):
    path = tmp_path / "force.html"
    save_force_html(result, path)
    html = path.read_text(encoding="utf-8")
    assert html.startswith("<html>") and html.rstrip().endswith("</html>")
    scripts = re.findall(r"<script[^>]*>", html)
    assert scripts and not any("src=" in s for s in scripts)  # nothing loaded from elsewhere
    assert not re.search(r"""src\s*=\s*["']?https?://""", html)
    assert "SHAP.AdditiveForceArrayVisualizer" in html and len(html) > 100_000  # the bundle is inline
    # every explained row is in the page, with its output
    assert html.count('"outValue"') == result.n_rows
    # same result -> same bytes; Python's random state is left as it was
    import random

    state = random.getstate()
    save_force_html(result, tmp_path / "again.html")
    assert random.getstate() == state
    assert (tmp_path / "again.html").read_bytes() == path.read_bytes()
    save_force_html(result, tmp_path / "some.html", rows=[0, 3], link="logit")
    assert (tmp_path / "some.html").read_text(encoding="utf-8").count('"outValue"') == 2
