"""Split-gain (impurity) importance of tree models: Friedman's relative influence.

Definition (Friedman 2001, "Greedy function approximation: a gradient boosting
machine", Ann. Statist. 29(5), §8.1)
---------------------------------------------------------------------------
For one regression tree ``T`` with ``J`` leaves, the squared relative influence of
variable ``j`` is the total improvement in squared error of the splits on ``j``:

``Î_j²(T) = Σ_{t=1}^{J-1} î_t² 1(v_t = j)``                          (eq. 44)

summed over the ``J - 1`` internal nodes ``t`` with splitting variable ``v_t``
and improvement ``î_t²``; for an ensemble of ``M`` trees it is averaged,
``Î_j² = (1/M) Σ_m Î_j²(T_m)`` (eq. 45).

What is computed
----------------
``kind = "mdi"`` -- scikit-learn trees, random forests, extra trees and gradient
    boosting: ``feature_importances_`` ("mean decrease in impurity"). For a tree
    it is eq. 44 with the node's weighted impurity decrease as ``î_t²``
    (squared-error / Friedman-MSE for regression trees and boosting stages,
    Gini or entropy for classification trees), normalised to sum 1. Gradient
    boosting averages the unnormalised per-tree sums over all stages (eq. 45)
    then normalises; forests normalise each tree before averaging.
``kind = "total_gain"`` -- XGBoost: the booster's ``total_gain`` (sum of the
    loss-reduction *gain* of every split on the feature over all trees, i.e.
    eq. 44-45 with XGBoost's regularised gain), mapped back to column order
    (features never used get 0) and normalised to sum 1. This is not XGBoost's
    default ``feature_importances_`` (``"gain"``, the *average* gain per split).

Both are reported as shares summing to 1, i.e. normalised *squared* influences;
Friedman's plotted ``I_j`` is the square root, rescaled to a maximum of 100. For
a feature group (e.g. the one-hot columns of ``Sex``) the shares of its columns
are summed. A model with no split at all gets all zeros.

Caveats
-------
Impurity importance is computed on the training data and is biased: it favours
continuous and high-cardinality variables (more candidate split points) and
spreads or inflates credit among correlated variables (Strobl, Boulesteix,
Zeileis & Hothorn 2007; Strobl, Boulesteix, Kneib, Augustin & Zeileis 2008;
Zhou & Hooker 2021). Model reliance (:mod:`xaipipe.explain.reliance`) on held-out
data does not have the cardinality bias.

Departure from the seed (001 §4.1.1)
------------------------------------
Eq. 4.1 of the seed, ``Î_j²(T) = Σ_{t=1}^{j-1} î_t² 1(v_t = 1)``, indexes the
indicator with the constant 1 and sums to ``j - 1``; Friedman's eq. 44 uses
``1(v_t = j)`` summed over the ``J - 1`` internal nodes, as implemented here. The
seed also describes the measure as counting splits; it sums split improvements.

References
----------
Friedman, J. H. (2001). Greedy function approximation: a gradient boosting
machine. The Annals of Statistics 29(5), 1189-1232.
Strobl, C., Boulesteix, A.-L., Zeileis, A. & Hothorn, T. (2007). Bias in random
forest variable importance measures. BMC Bioinformatics 8, 25.
Strobl, C., Boulesteix, A.-L., Kneib, T., Augustin, T. & Zeileis, A. (2008).
Conditional variable importance for random forests. BMC Bioinformatics 9, 307.
Zhou, Z. & Hooker, G. (2021). Unbiased measurement of feature importance in
tree-based methods. ACM TKDD 15(2), 26.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ...models.families import family_of
from ._base import resolve_features

__all__ = ["split_gain_columns", "split_gain_importance"]


def _xgboost_booster(model):
    try:
        import xgboost as xgb
    except ImportError:  # pragma: no cover - xgboost is a hard dependency
        return None
    if isinstance(model, xgb.Booster):
        return model
    if isinstance(model, xgb.XGBModel):
        return model.get_booster()  # raises NotFittedError if unfitted
    return None


def _normalise(values: np.ndarray) -> np.ndarray:
    values = np.asarray(values, dtype=np.float64)
    total = values.sum()
    return values / total if total > 0 else np.zeros_like(values)


def split_gain_columns(model) -> tuple[np.ndarray, str]:
    """Normalised split-gain importance per input column.

    Parameters
    ----------
    model : fitted tree model
        A model of a family whose registry entry declares ``split_gain``
        (:mod:`xaipipe.models.families`: scikit-learn decision tree, random
        forest, extra trees and gradient boosting -> ``"mdi"``; XGBoost ->
        ``"total_gain"``), an XGBoost ``Booster``, or a ``Pipeline`` ending in one
        whose earlier steps keep the columns.

    Returns
    -------
    importance : ndarray of shape (n_features,)
        Non-negative shares summing to 1 (all zeros if the model never splits).
    kind : {"mdi", "total_gain"}

    Raises
    ------
    TypeError
        If the model is not a supported tree model (e.g. a linear model).
    sklearn.exceptions.NotFittedError
        If it is not fitted.
    """
    from sklearn.pipeline import Pipeline
    from sklearn.utils.validation import check_is_fitted

    est = model
    if isinstance(model, Pipeline):
        est = model.steps[-1][1]
        n_in, n_final = getattr(model, "n_features_in_", None), getattr(est, "n_features_in_", None)
        if n_in is not None and n_final is not None and n_in != n_final:
            raise TypeError(
                f"pipeline changes the number of columns ({n_in} -> {n_final}); "
                "split gains cannot be mapped back to the input columns"
            )

    fam = family_of(est)
    kind = fam.split_gain if fam is not None else None
    booster = _xgboost_booster(est) if kind in (None, "total_gain") else None
    if booster is not None:
        scores = booster.get_score(importance_type="total_gain")
        n = booster.num_features()
        names = booster.feature_names or [f"f{i}" for i in range(n)]
        position = {name: i for i, name in enumerate(names)}
        gains = np.zeros(n)
        for name, value in scores.items():
            if name not in position:
                raise ValueError(f"XGBoost reports gain for unknown feature {name!r}")
            gains[position[name]] = value
        return _normalise(gains), "total_gain"
    if kind == "mdi":
        check_is_fitted(est)
        return _normalise(est.feature_importances_), "mdi"
    raise TypeError(
        f"split-gain importance needs a tree model (scikit-learn trees, forests, gradient "
        f"boosting or XGBoost); got {type(est).__name__}"
    )


def split_gain_importance(
    model,
    *,
    features=None,
    feature_names: Sequence[str] | None = None,
) -> pd.DataFrame:
    """Split-gain importance (Friedman 2001, eqs. 44-45) per variable or group.

    Parameters
    ----------
    model : fitted tree model
        See :func:`split_gain_columns`.
    features : mapping name -> columns, sequence, or None
        Variables / feature groups as in
        :func:`xaipipe.explain.reliance.resolve_features`; the shares of a
        group's columns are summed. Default: every column.
    feature_names : sequence of str, optional
        Column names (default ``x0, x1, ...``).

    Returns
    -------
    DataFrame
        Columns ``feature``, ``split_gain`` (share in [0, 1]; sums to 1 over
        disjoint groups covering all columns), ``kind`` (``"mdi"`` or
        ``"total_gain"``), in the order of ``features``.

    Raises
    ------
    TypeError
        For non-tree models.
    ValueError
        For an invalid feature specification.
    """
    shares, kind = split_gain_columns(model)
    groups = resolve_features(features, shares.shape[0], feature_names)
    return pd.DataFrame(
        {
            "feature": list(groups),
            "split_gain": [float(shares[cols].sum()) for cols in groups.values()],
            "kind": kind,
        }
    )
