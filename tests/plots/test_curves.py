"""ROC and precision-recall figures of several families."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from sklearn.metrics import average_precision_score, roc_auc_score  # noqa: E402

from xaipipe.plots.curves import plot_precision_recall_curves, plot_roc_curves  # noqa: E402


@pytest.fixture(scope="module")
def scores():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 250)
    return {
        "gradient_boosting": (y, 1 / (1 + np.exp(-(3 * (y - 0.5) + rng.normal(size=250))))),
        "gaussian_nb": (y, 1 / (1 + np.exp(-(1 * (y - 0.5) + rng.normal(size=250))))),
        "knn": (y, rng.random(250)),
    }


def _legend(fig):
    return [t.get_text() for t in fig.axes[0].get_legend().get_texts()]


def test_roc_figure_lists_every_family_with_its_auc(scores):
    fig = plot_roc_curves(scores, title="ROC")
    assert isinstance(fig, Figure) and len(fig.axes) == 1
    ax = fig.axes[0]
    labels = _legend(fig)
    for family, (y, s) in scores.items():
        assert f"{family} (AUC = {roc_auc_score(y, s):.2f})" in labels
    assert any(lab.startswith("Chance level") for lab in labels)
    assert "false-positive rate" in ax.get_xlabel() and "true-positive rate" in ax.get_ylabel()
    assert ax.get_title() == "ROC"
    assert len(ax.get_lines()) == len(scores) + 1


def test_pr_figure_lists_every_family_with_its_ap(scores):
    fig = plot_precision_recall_curves(scores)
    labels = _legend(fig)
    for family, (y, s) in scores.items():
        assert f"{family} (AP = {average_precision_score(y, s):.2f})" in labels
    ax = fig.axes[0]
    assert ax.get_xlabel() == "recall" and ax.get_ylabel() == "precision"


def test_bad_scores_are_named(scores):
    y, s = scores["knn"]
    with pytest.raises(ValueError, match="knn"):
        plot_roc_curves({"knn": (y, s[:-1])})
    with pytest.raises(ValueError, match="class-1 column"):
        plot_roc_curves({"knn": (y, np.column_stack([1 - s, s]))})
    with pytest.raises(ValueError, match="both classes"):
        plot_roc_curves({"knn": (np.zeros_like(y), s)})
    with pytest.raises(ValueError, match="non-empty"):
        plot_roc_curves({})
