"""000 Fig. 4.1 (response against each feature) and Fig. 4.2 (FI and PFI)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from xaipipe.plots.seed000 import plot_importance_before_shap, plot_response_vs_features  # noqa: E402


@pytest.fixture(scope="module")
def frame():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(300, 7))
    return pd.DataFrame(X, columns=[f"f{j}" for j in range(7)]).assign(
        row_id=np.arange(300), diagnosis=(X[:, 0] > 0).astype(int), strength=X[:, 1] * 2 + rng.normal(size=300)
    )


def test_response_vs_features_binary_draws_boxes(frame):
    fig = plot_response_vs_features(frame.drop(columns="strength"), "diagnosis", n_cols=3, title="Fig. 4.1")
    assert isinstance(fig, Figure)
    visible = [ax for ax in fig.axes if ax.get_visible()]
    assert len(fig.axes) == 9 and len(visible) == 7  # 3 x 3 grid, 7 features
    assert [ax.get_title() for ax in visible] == [f"f{j}" for j in range(7)]
    ax = visible[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["0", "1"] and ax.get_xlabel() == "diagnosis"
    # the box medians are the class medians of the feature
    medians = sorted(
        line.get_ydata()[0]
        for line in ax.lines
        if len(line.get_ydata()) == 2 and line.get_ydata()[0] == line.get_ydata()[1] and line.get_color() != "k"
    )
    for c in (0, 1):
        assert any(np.isclose(m, frame.loc[frame.diagnosis == c, "f0"].median()) for m in medians)


def test_response_vs_features_continuous_draws_scatter(frame):
    fig = plot_response_vs_features(frame, "strength", ["f0", "f1"], max_points=100)
    assert len(fig.axes) == 2 and fig.axes[0].get_ylabel() == "strength"
    offsets = fig.axes[1].collections[0].get_offsets()
    assert len(offsets) == 100
    with pytest.raises(ValueError, match="'nope'"):
        plot_response_vs_features(frame, "nope")
    with pytest.raises(ValueError, match=r"\['zz'\]"):
        plot_response_vs_features(frame, "strength", ["zz"])


def test_importance_before_shap(frame):
    imp = pd.DataFrame(
        {
            "feature": [f"f{j}" for j in range(7)],
            "builtin_importance": [0.4, 0.2, 0.1, 0.1, 0.1, 0.05, 0.05],
            "permutation_importance": [0.01, 0.3, 0.02, 0.0, 0.05, 0.0, 0.1],
            "pfi_std": np.full(7, 0.01),
        }
    )
    fig = plot_importance_before_shap(imp, permutation_std="pfi_std", max_display=4, title="Fig. 4.2")
    assert len(fig.axes) == 2
    left, right = fig.axes
    assert [t.get_text() for t in left.get_yticklabels()][::-1][0] == "f0"  # largest FI on top
    assert [t.get_text() for t in right.get_yticklabels()][::-1][0] == "f1"  # largest PFI on top
    assert left.get_title(loc="left") == "FI" and right.get_title(loc="left") == "PFI"
    assert "split gain" in left.get_xlabel() and "permutation" in right.get_xlabel()
    assert len(left.patches) == 4
    with pytest.raises(ValueError, match="lacks columns"):
        plot_importance_before_shap(imp.drop(columns="permutation_importance"))
