"""ROC and precision-recall curves of several classifiers on one test set (seed 004).

Seed 004 draws the ROC curve (true-positive rate against false-positive rate as
the threshold falls from 1 to 0) and its area (AUC) to compare classifiers
"without worrying about the chosen threshold", with the chance diagonal as the
classifier that guesses (AUC = 0.5).  :func:`plot_roc_curves` draws that figure
for every family at once; :func:`plot_precision_recall_curves` its companion,
precision against recall, whose summary is the average precision
``AP = sum_k (R_k - R_{k-1}) P_k`` (scikit-learn's step-wise definition, not the
trapezoidal area; Davis & Goadrich 2006, ICML).  Both are scikit-learn's
``RocCurveDisplay.from_predictions`` / ``PrecisionRecallDisplay.from_predictions``,
so the AUC and AP in the legend are ``roc_auc_score`` and
``average_precision_score`` of the same scores.

Input: a mapping ``family -> (y_true, score)`` where ``score`` is the class-1
probability (or any score increasing in it, e.g. log-odds) on the test rows.

Multiclass models: :func:`plot_ovr_curves` draws the one-vs-rest curves, one panel
per class ``k`` (``y == k`` against the probability of class ``k``), every family
in each panel; the macro average of the per-class AUCs is the ``roc_auc`` of
:func:`xaipipe.models.metrics.multiclass_metrics`.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from .style import figure_style

__all__ = ["plot_ovr_curves", "plot_precision_recall_curves", "plot_roc_curves"]


def _check_scores(scores: Mapping) -> dict:
    if not isinstance(scores, Mapping) or not scores:
        raise ValueError("scores must be a non-empty mapping family -> (y_true, score)")
    out = {}
    for family, pair in scores.items():
        try:
            y_true, score = pair
        except (TypeError, ValueError):
            raise ValueError(f"scores[{family!r}] must be a pair (y_true, score)") from None
        y_true = np.asarray(y_true).reshape(-1)
        score = np.asarray(score, dtype=float)
        if score.ndim == 2 and score.shape[1] == 2:
            raise ValueError(f"scores[{family!r}]: pass the class-1 column of predict_proba, not both columns")
        score = score.reshape(-1)
        if y_true.shape != score.shape:
            raise ValueError(f"scores[{family!r}]: y_true has {y_true.size} rows but score has {score.size}")
        if not np.all(np.isfinite(score)):
            raise ValueError(f"scores[{family!r}]: score contains NaN or infinite values")
        if np.unique(y_true).size != 2:
            raise ValueError(f"scores[{family!r}]: y_true must hold both classes, got {np.unique(y_true).tolist()}")
        out[str(family)] = (y_true, score)
    return out


def _curves(display_cls, scores, pos_label, title, xlabel, ylabel):
    import matplotlib.pyplot as plt

    scores = _check_scores(scores)
    with figure_style():
        fig, ax = plt.subplots(figsize=(5.2, 4.6), layout="constrained")
        for k, (family, (y_true, score)) in enumerate(scores.items()):
            display_cls.from_predictions(
                y_true,
                score,
                pos_label=pos_label,
                name=family,
                ax=ax,
                plot_chance_level=(k == len(scores) - 1),
            )
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.set_xlim(-0.01, 1.01)
        ax.set_ylim(-0.01, 1.01)
        ax.legend(loc="lower right" if display_cls.__name__.startswith("Roc") else "lower left", fontsize="small")
        if title:
            ax.set_title(title)
    return fig


def plot_roc_curves(scores: Mapping, *, pos_label=1, title: str | None = None):
    """ROC curves of several classifiers on one test set, AUC in the legend.

    Parameters
    ----------
    scores : mapping str -> (array-like (n,), array-like (n,))
        ``family -> (y_true, score)``; ``score`` is the class-1 probability (or
        any monotone transform of it). Families are drawn in mapping order.
    pos_label : int or str, default=1
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
        One axes: one curve per family labelled ``"<family> (AUC = 0.99)"`` and the
        chance level (AUC = 0.5) diagonal.

    Raises
    ------
    ValueError
        Empty mapping, lengths differ, non-finite scores, two probability
        columns, or a single class in ``y_true`` (the curve is undefined).
    """
    from sklearn.metrics import RocCurveDisplay

    return _curves(
        RocCurveDisplay,
        scores,
        pos_label,
        title,
        "false-positive rate (1 - specificity)",
        "true-positive rate (sensitivity)",
    )


def plot_precision_recall_curves(scores: Mapping, *, pos_label=1, title: str | None = None):
    """Precision-recall curves of several classifiers on one test set, AP in the legend.

    Parameters and errors as :func:`plot_roc_curves`.

    Returns
    -------
    matplotlib.figure.Figure
        One axes: one curve per family labelled ``"<family> (AP = 0.98)"`` and the
        chance level (precision = prevalence of ``pos_label``).
    """
    from sklearn.metrics import PrecisionRecallDisplay

    return _curves(PrecisionRecallDisplay, scores, pos_label, title, "recall", "precision")


def plot_ovr_curves(scores: Mapping, *, kind: str = "roc", classes=None, title: str | None = None):
    """One-vs-rest ROC or precision-recall curves of several multiclass models, one panel per class.

    Parameters
    ----------
    scores : mapping str -> (array-like (n,), array-like (n, K))
        ``family -> (y_true, proba)``: labels ``0 .. K-1`` and ``predict_proba``.
    kind : {"roc", "precision_recall"}, default "roc"
    classes : sequence of str, optional
        Class labels for the panel titles (default ``0 .. K-1``).
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
        Panel ``k``: each family's curve of ``y == k`` scored by ``proba[:, k]``
        (scikit-learn's displays; AUC / AP in the legend) and the chance level; a
        class absent from the test rows gets a panel saying so (its curve is undefined).

    Raises
    ------
    ValueError
        Empty mapping, probabilities not of shape ``(n, K)`` with ``K > 2``, lengths or
        numbers of classes that differ, an unknown ``kind``.
    """
    import matplotlib.pyplot as plt
    from sklearn.metrics import PrecisionRecallDisplay, RocCurveDisplay

    if kind not in ("roc", "precision_recall"):
        raise ValueError(f"kind must be 'roc' or 'precision_recall', got {kind!r}")
    if not isinstance(scores, Mapping) or not scores:
        raise ValueError("scores must be a non-empty mapping family -> (y_true, proba)")
    checked = {}
    for family, (y_true, proba) in scores.items():
        y_true = np.asarray(y_true).reshape(-1)
        P = np.asarray(proba, dtype=float)
        if P.ndim != 2 or P.shape[1] < 3 or P.shape[0] != y_true.size or not np.isfinite(P).all():
            raise ValueError(f"scores[{family!r}]: need finite probabilities of shape ({y_true.size}, K > 2)")
        checked[str(family)] = (y_true, P)
    K = {P.shape[1] for _, P in checked.values()}
    if len(K) != 1:
        raise ValueError(f"families have different numbers of classes: {sorted(K)}")
    K = K.pop()
    labels = [str(c) for c in (range(K) if classes is None else classes)]
    if len(labels) != K:
        raise ValueError(f"{len(labels)} class labels for {K} probability columns")
    display = RocCurveDisplay if kind == "roc" else PrecisionRecallDisplay
    with figure_style():
        ncol = min(K, 4)
        nrow = -(-K // ncol)
        fig, axes = plt.subplots(nrow, ncol, figsize=(3.6 * ncol, 3.4 * nrow), squeeze=False, layout="constrained")
        for k in range(nrow * ncol):
            ax = axes.flat[k]
            if k >= K:
                ax.set_axis_off()
                continue
            ax.set_title(f"class {labels[k]} vs rest", fontsize="small")
            y0 = next(iter(checked.values()))[0]
            if np.unique(y0 == k).size != 2:
                ax.text(0.5, 0.5, "class absent from (or alone in)\nthe test rows: no curve", ha="center", va="center")
                ax.set_axis_off()
                continue
            for j, (family, (y_true, P)) in enumerate(checked.items()):
                display.from_predictions(
                    (y_true == k).astype(int),
                    P[:, k],
                    pos_label=1,
                    name=family,
                    ax=ax,
                    plot_chance_level=(j == len(checked) - 1),
                )
            ax.set_xlim(-0.01, 1.01)
            ax.set_ylim(-0.01, 1.01)
            ax.set_xlabel("false-positive rate" if kind == "roc" else "recall")
            ax.set_ylabel("true-positive rate" if kind == "roc" else "precision")
            ax.legend(loc="lower right" if kind == "roc" else "lower left", fontsize="xx-small")
        if title:
            fig.suptitle(title)
    return fig
