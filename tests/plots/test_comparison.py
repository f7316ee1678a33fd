"""The comparison figures draw what their docstrings say: the histogram is the density of
the draws, 0 and the observed difference are marked, the normal curve is the binomial
one, the reject-option lines are the table's columns, the scatter is (predicted,
observed) with the line y = x. Every figure renders to PNG with the pipeline style."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

from xaipipe.models.comparison import (
    bootstrap_error_rate,
    bootstrap_loss_difference,
    paired_bootstrap_test,
    predicted_vs_observed,
    reject_option_curve,
    row_losses,
)
from xaipipe.plots.comparison import (
    plot_error_distribution,
    plot_loss_difference,
    plot_predicted_vs_observed,
    plot_reject_option,
)
from xaipipe.plots.style import figure_style, save_figure


def _bars(ax):
    """The histogram's bars (its BarContainer), non-empty ones."""
    return [p for p in ax.containers[0].patches if p.get_height() > 0]


def _hist_area(ax):
    return sum(p.get_width() * p.get_height() for p in _bars(ax))


def _classifier_pair(n=114, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    a = np.where(rng.uniform(size=n) < 0.93, y, 1 - y)
    b = np.where(rng.uniform(size=n) < 0.96, y, 1 - y)
    return y, a, b


def test_difference_histogram_marks_zero_and_observed(tmp_path):
    y, a, b = _classifier_pair()
    la, lb = row_losses(y, a, "error_rate"), row_losses(y, b, "error_rate")
    draws = bootstrap_loss_difference(la, lb, n_bootstrap=500, random_state=0)
    res = paired_bootstrap_test(la, lb, n_bootstrap=500, random_state=0).assign(loss="error_rate")
    with figure_style():
        fig = plot_loss_difference(draws, res, labels=("naive Bayes", "QDA"))
        ax = fig.axes[0]
        assert _hist_area(ax) == pytest.approx(1.0, rel=1e-9)  # a density histogram
        # One bar per value reached: the draws are multiples of 1/n.
        assert len(_bars(ax)) == len(np.unique(np.round(draws * len(y))))
        vlines = [ln.get_xdata()[0] for ln in ax.get_lines() if len(ln.get_xdata())]
        assert 0.0 in vlines and pytest.approx(res["difference"].iloc[0]) in vlines
        assert "error rate(naive Bayes) - error rate(QDA)" in ax.get_xlabel()
        span = [p for p in ax.patches if p not in ax.containers[0].patches]
        assert len(span) == 1  # the percentile interval, in data coordinates along x
        assert span[0].get_x() == pytest.approx(res["ci_low"].iloc[0])
        assert span[0].get_x() + span[0].get_width() == pytest.approx(res["ci_high"].iloc[0])
        legend = [t.get_text() for t in ax.get_legend().get_texts()]
        assert any(f"z = {res['z'].iloc[0]:.2f}" in t and "two-sided p" in t for t in legend)
        save_figure(fig, tmp_path / "diff.png")
    assert (tmp_path / "diff.png").stat().st_size > 0


def test_difference_histogram_with_identical_models_and_bad_input():
    with figure_style():
        fig = plot_loss_difference(np.zeros(100))
        assert _hist_area(fig.axes[0]) == pytest.approx(1.0)
        fig.clf()
        with pytest.raises(ValueError, match="two finite"):
            plot_loss_difference([0.1])
        with pytest.raises(ValueError, match="one-row"):
            plot_loss_difference(np.arange(5.0), pd.DataFrame({"difference": [0, 1]}))


def test_error_distribution_draws_the_binomial_normal_curve(tmp_path):
    y, a, _ = _classifier_pair(n=600, seed=2)
    e = float(np.mean(a != y))
    draws = bootstrap_error_rate(y, a, n_bootstrap=500, random_state=0)["error_rate"]
    with figure_style():
        fig = plot_error_distribution(draws, e, 600)
        ax = fig.axes[0]
        curve = ax.get_lines()[0]
        x, d = curve.get_xdata(), curve.get_ydata()
        se = np.sqrt(e * (1 - e) / 600)
        np.testing.assert_allclose(d, norm.pdf(x, loc=e, scale=se))
        assert _hist_area(ax) == pytest.approx(1.0, rel=1e-9)
        assert f"{se:.4f}" in curve.get_label()
        save_figure(fig, tmp_path / "err.pdf")
    with pytest.raises(ValueError, match="error_rate"):
        plot_error_distribution(draws, 1.5, 600)


def test_reject_option_lines_are_the_table(tmp_path):
    rng = np.random.default_rng(1)
    P = rng.dirichlet([0.5, 0.5, 0.5], size=200)
    y = P.argmax(1)
    y[:20] = (y[:20] + 1) % 3
    curve = reject_option_curve(y, P)
    with figure_style():
        fig = plot_reject_option(curve, title="test")
        left, right = fig.axes
        share = curve["rejected_share"].to_numpy()
        np.testing.assert_allclose(left.get_lines()[0].get_ydata(), np.where(share > 0, share, np.nan))
        assert left.get_yscale() == "log"
        np.testing.assert_allclose(right.get_lines()[0].get_ydata(), curve["error_accepted"])  # NaN = gap
        np.testing.assert_allclose(left.get_lines()[0].get_xdata(), curve["risk"])
        save_figure(fig, tmp_path / "reject.png")
        fig = plot_reject_option(curve, log_scale=False)
        np.testing.assert_allclose(fig.axes[0].get_lines()[0].get_ydata(), share)
    with pytest.raises(ValueError, match="lacks columns"):
        plot_reject_option(curve.drop(columns="error_accepted"))


def test_predicted_vs_observed_scatter_and_identity_line(tmp_path):
    rng = np.random.default_rng(3)
    yt = rng.normal(150, 60, 89)
    yp = yt + rng.normal(0, 50, 89)
    pts = predicted_vs_observed(yt, yp)
    with figure_style():
        fig = plot_predicted_vs_observed(pts)
        ax = fig.axes[0]
        offsets = ax.collections[0].get_offsets()
        np.testing.assert_allclose(offsets[:, 0], yp)  # predicted on x, as in the seed
        np.testing.assert_allclose(offsets[:, 1], yt)
        line = ax.get_lines()[0]
        lo, hi = min(yt.min(), yp.min()), max(yt.max(), yp.max())
        np.testing.assert_allclose(line.get_xdata(), [lo, hi])
        np.testing.assert_allclose(line.get_ydata(), [lo, hi])
        text = "\n".join(t.get_text() for t in ax.texts)
        r2 = 1 - np.sum((yt - yp) ** 2) / np.sum((yt - yt.mean()) ** 2)
        assert f"R² = {r2:.3f}" in text and "n = 89" in text
        save_figure(fig, tmp_path / "pvo.png")
    with pytest.raises(ValueError, match="lacks columns"):
        plot_predicted_vs_observed(pts.drop(columns="y_pred"))


def _predictions(task, n=80, seed=3):
    """Long test-prediction tables of three families; 'good' is the best, 'fair' second."""
    rng = np.random.default_rng(seed)
    rows = np.sort(rng.choice(400, n, replace=False))
    frames = []
    for family, noise in (("fair", 1.0), ("good", 0.5), ("poor", 2.0)):
        if task == "classification":
            y = (np.arange(n) % 2).astype(int)
            p = 1 / (1 + np.exp(-((2 * y - 1) * 1.5 + rng.normal(0, noise, n))))
            frames.append(
                pd.DataFrame(
                    {"family": family, "row": rows, "y_true": y, "proba_1": p, "y_pred": (p > 0.5).astype(int)}
                )
            )
        else:
            y = np.linspace(0, 10, n)
            frames.append(
                pd.DataFrame({"family": family, "row": rows, "y_true": y, "y_pred": y + rng.normal(0, noise, n)})
            )
    return pd.concat(frames, ignore_index=True)


@pytest.mark.parametrize("task", ["classification", "regression"])
def test_comparison_figures_draw_the_tables_draws_for_the_best_families(task, tmp_path):
    """The rule's figures: the kinds of COMPARISON_FIGURES; Fig 3.3 is the best against the
    second-best family and its bars are the draws whose sd is the table's se; the ROC / PR
    axes hold one curve per family."""
    from xaipipe.models.comparison import bootstrap_differences, comparison_tables
    from xaipipe.plots.comparison import COMPARISON_FIGURES, comparison_figures

    preds = _predictions(task)
    pairs, loss = comparison_tables(preds, dataset="d", n_bootstrap=200, random_state=7)
    first = "error_rate" if task == "classification" else "mse"
    means = loss[loss.loss == first].set_index("family")["mean"]
    assert means.idxmin() == "good"
    with figure_style():
        figs = comparison_figures(preds, pairs, loss, n_bootstrap=200, random_state=7, dataset="d")
        assert tuple(figs) == COMPARISON_FIGURES[task]
        ax = figs["loss_difference"].axes[0]
        second = means.drop("good").idxmin()
        fa, fb = sorted(["good", second])
        assert fa in ax.get_xlabel() and fb in ax.get_xlabel()
        draws = bootstrap_differences(preds, loss=first, pairs=[(fa, fb)], n_bootstrap=200, random_state=7)
        assert _hist_area(ax) == pytest.approx(1.0, rel=1e-9)
        row = pairs[(pairs.family_a == fa) & (pairs.family_b == fb) & (pairs.loss == first)].iloc[0]
        assert np.std(draws["difference"], ddof=1) == row["se"]
        if task == "classification":
            for kind in ("roc", "precision_recall"):
                labels = [t.get_text() for t in figs[kind].axes[0].get_legend().get_texts()]
                assert sum(any(t.startswith(f) for t in labels) for f in ("fair", "good", "poor")) == 3
            from xaipipe.models.comparison import reject_option_curves

            curves = reject_option_curves(preds)
            left, right = figs["reject_option"].axes
            assert len(left.get_lines()) == len(right.get_lines()) == 3
            for line, (family, frame) in zip(right.get_lines(), curves.groupby("family"), strict=True):
                assert line.get_label() == family
                assert np.array_equal(line.get_ydata(), frame.sort_values("risk")["error_accepted"], equal_nan=True)
        else:
            assert "good" in figs["predicted_vs_observed"].axes[0].get_title()
        for kind, fig in figs.items():
            save_figure(fig, tmp_path / f"{kind}.png")
    with pytest.raises(ValueError, match="lacks families"):
        comparison_figures(preds, pairs, loss[loss.family != "poor"], n_bootstrap=200, random_state=7)
