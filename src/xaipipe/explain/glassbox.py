"""A glass-box model's own explanation: an EBM's additive terms, their shapes and bagged error bars.

An Explainable Boosting Machine (EBM; Lou, Caruana & Gehrke 2012, "Intelligible models for
classification and regression", KDD; Lou et al. 2013, "Accurate intelligible models with pairwise
interactions", KDD; Nori et al. 2019, "InterpretML", arXiv:1909.09223) is a generalised additive
model with optional pairwise terms,

.. math:: g(E[y \\mid x]) = \\beta_0 + \\sum_j f_j(x_j) + \\sum_{(j, k)} f_{jk}(x_j, x_k),

with :math:`g` the identity (regression) or the logit (binary classification; one set of terms per
class for more classes). Each term is a step function over the bins of its variables, learnt by
cyclic boosting of shallow trees; interpret-core fits ``outer_bags`` (14) models on random 85 %
subsamples and averages them: ``term_scores_[t]`` is the mean over the bags per bin,
``standard_deviations_[t]`` the bags' standard deviation per bin (``bagged_scores_[t]`` each bag's
scores). InterpretML draws ``score ± standard deviation`` as its error bars (``explain_global``'s
``upper_bounds`` / ``lower_bounds``); its authors say they are not confidence intervals
(interpret #204), and this module labels them "±1 SD over the outer bags", nothing more.

The terms *are* the model's exact additive explanation: with no pair terms, the interventional SHAP
value of variable :math:`j` at :math:`x` against background rows :math:`B` is
:math:`f_j(x_j) - \\operatorname{mean}_{b \\in B} f_j(b_j)` (Shapley's additivity; tested against the
project's SHAP values of an EBM), and its partial dependence is :math:`f_j` plus a constant.

Which models: those of a family whose registry entry says ``terms="interpret"``
(:attr:`xaipipe.models.families.Family.terms`), not an ``isinstance`` test.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ..models.families import family_of, final_estimator
from ..rashomon._frames import NamedFrames

__all__ = [
    "EbmTerms",
    "TERM_COLUMNS",
    "SHAPE_COLUMNS",
    "bagging_se_factor",
    "ebm_pd_band",
    "ebm_terms",
    "ebm_terms_tables",
    "term_contributions",
]

#: Columns of :attr:`EbmTerms.terms`.
TERM_COLUMNS = ("term", "kind", "features", "importance", "test_importance", "share", "rank")
#: Columns of :attr:`EbmTerms.shapes` (main terms only; ``class`` is the class of a multiclass EBM's
#: term, empty otherwise).
SHAPE_COLUMNS = (
    "term",
    "feature",
    "output",
    "class",
    "bin",
    "level",
    "x_lower",
    "x_upper",
    "score",
    "sd",
    "se_subsampling",
    "lower",
    "upper",
    "train_weight",
    "n_bags",
)


class EbmTerms(NamedFrames):
    """The tables of :func:`ebm_terms`.

    Attributes
    ----------
    terms : DataFrame
        One row per term (:data:`TERM_COLUMNS`): ``term`` its variables' names joined by ``" & "``
        (interpret's convention, with the dataset's names for its ``feature_0000`` ...), ``kind``
        ``"main"`` or ``"pair"``, ``features`` the variables joined by ``" x "``, ``importance`` interpret's ``term_importances("avg_weight")``
        (the training rows' mean absolute score of the term, output units), ``test_importance`` the
        same on the rows given, ``share`` that over the sum of all terms', ``rank`` by it (1 = most).
    shapes : DataFrame
        One row per bin of each main term (:data:`SHAPE_COLUMNS`): a continuous variable's bins
        ``[x_lower, x_upper)`` (the training range closes the outer two), a categorical variable's
        ``level``; ``output`` ``"prediction"`` (regression) or ``"log_odds"`` (classification: the
        class's log-odds against the rest, the binary EBM's class 1); ``score`` the mean over the outer bags, ``sd`` their standard deviation,
        ``lower`` / ``upper`` = ``score ∓ sd`` (interpret's own error bars, *not* a confidence
        interval), ``se_subsampling`` = ``sd`` × :func:`bagging_se_factor` (the SD corrected for
        bags of overlapping subsamples; its coverage: ``docs/ebm.md``), ``train_weight`` the training rows in the bin, ``n_bags`` the outer bags.
    """

    FRAMES = ("terms", "shapes")

    def __init__(self, terms: pd.DataFrame, shapes: pd.DataFrame):
        self.terms = terms
        self.shapes = shapes


def _ebm(model):
    """The EBM inside ``model`` (a fitted EBM or a Pipeline ending in one); ValueError otherwise."""
    fam = family_of(model)
    if fam is None or fam.terms != "interpret":
        kind = type(final_estimator(model)).__name__
        raise ValueError(
            f"{kind} has no additive terms of its own: only a model of a family with terms='interpret' "
            "(an EBM, family 'ebm') has (xaipipe.models.families.Family.terms)"
        )
    est = final_estimator(model)
    if not hasattr(est, "term_scores_"):
        raise ValueError(f"{type(est).__name__} is not fitted: fit it before reading its terms")
    return est


def _model_rows(model, X) -> np.ndarray:
    """``X`` as the EBM sees it: transformed by the steps of a Pipeline before it."""
    est = final_estimator(model)
    if est is not model:
        return np.asarray(model[:-1].transform(X))
    return X


def term_contributions(model, X) -> tuple[np.ndarray, list[str]]:
    """Each term's score at each row of ``X``: the EBM's additive decomposition of its output.

    Parameters
    ----------
    model : fitted EBM (family ``ebm``) or a Pipeline ending in one
    X : array-like of shape (n_rows, n_features)

    Returns
    -------
    contributions : ndarray of shape (n_rows, n_terms), or (n_rows, n_terms, n_classes) for a
        multiclass EBM
        ``eval_terms(X)``: ``intercept_ + contributions.sum(axis=1)`` is the prediction
        (regression) or the log-odds (binary classification), to rounding.
    term_names : list of str
        The terms' names (``term_names_``; a pair ``"a & b"``).

    Raises
    ------
    ValueError
        The model is not an EBM (its family has no ``terms``), or not fitted.
    """
    est = _ebm(model)
    values = np.asarray(est.eval_terms(_model_rows(model, np.asarray(X))), dtype=np.float64)
    return values, list(est.term_names_)


def _bin_bounds(est, j: int, n_bins: int):
    """(level labels, lower, upper) of the main-term bins of variable ``j`` (1..n_bins of the scores)."""
    cuts = est.bins_[j][0]
    if isinstance(cuts, dict):  # nominal: category -> bin index
        levels = [""] * n_bins
        for level, index in cuts.items():
            if 1 <= index <= n_bins:
                levels[index - 1] = str(level)
        nan = [np.nan] * n_bins
        return levels, nan, nan
    lo, hi = (float(v) for v in est.feature_bounds_[j])
    edges = np.concatenate([[lo], np.asarray(cuts, dtype=np.float64), [hi]])
    return [""] * n_bins, edges[:-1].tolist(), edges[1:].tolist()


def _shape_rows(est, t: int, feature: str, feature_index: int, class_labels, factor: float) -> list[dict]:
    """Rows of :attr:`EbmTerms.shapes` for main term ``t`` (the bins between missing and unseen)."""
    scores = np.asarray(est.term_scores_[t], dtype=np.float64)
    sds = np.asarray(est.standard_deviations_[t], dtype=np.float64)
    weights = np.asarray(est.bin_weights_[t], dtype=np.float64)
    n_bins = scores.shape[0] - 2  # index 0: missing values; last: values unseen in training
    levels, lower, upper = _bin_bounds(est, feature_index, n_bins)
    n_bags = int(np.asarray(est.bagged_scores_[t]).shape[0])
    scores2 = scores.reshape(scores.shape[0], -1)
    sds2 = sds.reshape(sds.shape[0], -1)
    output = "log_odds" if hasattr(est, "classes_") else "prediction"
    rows = []
    for k in range(scores2.shape[1]):
        cls = "" if scores.ndim == 1 else str(class_labels[k])
        for b in range(1, n_bins + 1):
            s, d = float(scores2[b, k]), float(sds2[b, k])
            rows.append(
                {
                    "term": feature,
                    "feature": feature,
                    "output": output,
                    "class": cls,
                    "bin": b,
                    "level": levels[b - 1],
                    "x_lower": lower[b - 1],
                    "x_upper": upper[b - 1],
                    "score": s,
                    "sd": d,
                    "se_subsampling": d * factor,
                    "lower": s - d,
                    "upper": s + d,
                    "train_weight": float(weights[b]),
                    "n_bags": n_bags,
                }
            )
    return rows


def ebm_terms(model, X, *, feature_names: Sequence[str] | None = None) -> EbmTerms:
    """The terms of a fitted EBM: their importances and the shapes of its main terms with the
    bagged error bars (Lou et al. 2013; interpret-core's ``term_scores_``, ``standard_deviations_``).

    Parameters
    ----------
    model : fitted EBM (family ``ebm``) or a Pipeline ending in one
    X : array-like of shape (n_rows, n_features)
        Rows of ``test_importance`` (the test split in the study).
    feature_names : sequence of str, optional
        Names of the model's input variables (default: the EBM's ``feature_names_in_``).

    Returns
    -------
    EbmTerms
        ``terms`` (one row per term), ``shapes`` (one row per bin of each main term, per class of a
        multiclass EBM).

    Raises
    ------
    ValueError
        Not an EBM, not fitted, or ``feature_names`` of another length than the EBM's inputs.
    """
    est = _ebm(model)
    names = list(est.feature_names_in_) if feature_names is None else [str(f) for f in feature_names]
    if len(names) != len(est.feature_names_in_):
        raise ValueError(
            f"feature_names has {len(names)} names; the EBM has {len(est.feature_names_in_)} input variables"
        )
    contributions, term_names = term_contributions(model, X)
    test_imp = np.abs(contributions).mean(axis=0)
    if test_imp.ndim > 1:  # multiclass: mean over classes, as interpret's avg_weight does
        test_imp = test_imp.mean(axis=1)
    train_imp = np.asarray(est.term_importances("avg_weight"), dtype=np.float64)
    total = float(test_imp.sum())
    classes = getattr(est, "classes_", None)
    n_train = float(np.sum(est.bin_weights_[0]))  # every training row falls in one bin of a term
    factor = bagging_se_factor(model, int(round(n_train)))
    terms, shapes = [], []
    for t, features in enumerate(est.term_features_):
        terms.append(
            {
                "term": " & ".join(names[j] for j in features),
                "kind": "main" if len(features) == 1 else "pair",
                "features": " x ".join(names[j] for j in features),
                "importance": float(train_imp[t]),
                "test_importance": float(test_imp[t]),
                "share": float(test_imp[t] / total) if total > 0 else np.nan,
            }
        )
        if len(features) == 1:
            shapes += _shape_rows(est, t, names[features[0]], features[0], classes, factor)
    term_frame = pd.DataFrame(terms, columns=TERM_COLUMNS[:-1])
    term_frame["rank"] = term_frame["test_importance"].rank(ascending=False, method="first").astype(int)
    return EbmTerms(term_frame.loc[:, list(TERM_COLUMNS)], pd.DataFrame(shapes, columns=list(SHAPE_COLUMNS)))


def bagging_se_factor(model, n_rows: int | None = None) -> float:
    """The factor turning the outer bags' SD into a standard error of the bagged estimate:
    :math:`\\sqrt{m / (n - m)}`, with :math:`m / n` the share of the training rows each bag fits
    (``1 - validation_size``: 0.85 by default, factor 2.38).

    Each outer bag fits a random subsample of :math:`m` of the :math:`n` training rows without
    replacement; for a smooth statistic the spread of subsample estimates around the full-sample
    one has variance :math:`(1/m - 1/n)\\sigma^2` while the full-sample (and the bagged) estimate
    varies over training sets with :math:`\\sigma^2 / n`: their ratio is :math:`m / (n - m)`
    (the variance of a mean of a sample drawn without replacement, :math:`(1 - m/n) S^2 / m`:
    Cochran 1977, *Sampling Techniques*, 3rd ed., Theorem 2.2; the argument of Nadeau & Bengio's
    2003 correction of the learner intervals). The
    bar's SD understates the SE by that factor; the coverage audit measures how far the corrected
    SE still falls short (the boosting's own variance between bags is not that of a mean).

    Parameters
    ----------
    model : fitted EBM (family ``ebm``) or a Pipeline ending in one
    n_rows : int, optional
        Training rows; needed only when ``validation_size`` is a count (an int ≥ 1).

    Returns
    -------
    float

    Raises
    ------
    ValueError
        Not an EBM; ``validation_size`` 0 (no outer bags, no bar) or a count without ``n_rows``.
    """
    est = _ebm(model)
    v = est.validation_size
    if v is None or v <= 0:
        raise ValueError("the EBM has validation_size 0: no outer bags, no error bar to correct")
    if v >= 1:
        if n_rows is None:
            raise ValueError(f"validation_size {v} is a count of rows: give n_rows")
        v = float(v) / float(n_rows)
    return float(np.sqrt((1.0 - v) / v))


def ebm_pd_band(model, feature: int, grid) -> tuple[np.ndarray, np.ndarray]:
    """An EBM's partial dependence on variable ``feature`` at ``grid`` and its bagged error bar:
    ``intercept_ + f_j(z)`` and the outer bags' standard deviation of ``f_j`` in ``z``'s bin.

    Every other term is centred to mean zero over the training rows (interpret-core's convention),
    so ``intercept_ + f_j(z)`` is the EBM's PD on its training rows, exactly; on other rows it
    differs by the other terms' mean there. A value at a cut falls in the bin above it, one
    outside the training range in the outer bin (interpret-core's binning; tested against
    ``eval_terms``).

    Parameters
    ----------
    model : fitted EBM (family ``ebm``) or a Pipeline ending in one, of one output (regression or
        binary classification: the PD of the log-odds)
    feature : int
        Position of the variable among the EBM's inputs (a continuous one with a main term).
    grid : array-like of shape (n_grid,)

    Returns
    -------
    pd, sd : ndarray of shape (n_grid,)
        Output units (regression) or log-odds; ``pd ± sd`` is interpret's own error bar.

    Raises
    ------
    ValueError
        Not an EBM; a multiclass EBM; a variable without a main term or a categorical one.
    """
    est = _ebm(model)
    terms = [t for t, f in enumerate(est.term_features_) if tuple(f) == (int(feature),)]
    if not terms:
        raise ValueError(f"the EBM has no main term of variable {feature} (its terms: {list(est.term_names_)})")
    t = terms[0]
    scores = np.asarray(est.term_scores_[t], dtype=np.float64)
    if scores.ndim != 1:
        raise ValueError("a multiclass EBM has one PD per class: ebm_pd_band takes one output")
    cuts = est.bins_[int(feature)][0]
    if isinstance(cuts, dict):
        raise ValueError(f"variable {feature} of the EBM is categorical: its PD has levels, not a grid")
    z = np.asarray(grid, dtype=np.float64).reshape(-1)
    index = np.searchsorted(np.asarray(cuts, dtype=np.float64), z, side="right") + 1
    intercept = float(np.asarray(est.intercept_, dtype=np.float64).reshape(-1)[0])
    sds = np.asarray(est.standard_deviations_[t], dtype=np.float64)
    return intercept + scores[index], sds[index]


def ebm_terms_tables(model, data) -> EbmTerms:
    """The ``ebm_terms`` rule: :func:`ebm_terms` of a fitted EBM, importances on the test split.

    Parameters
    ----------
    model : fitted EBM
    data : PreparedData
        ``X_test``, ``features``.

    Returns
    -------
    EbmTerms
    """
    return ebm_terms(model, data.X_test, feature_names=list(data.features))
