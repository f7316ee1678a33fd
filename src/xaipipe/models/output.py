"""The numeric output of a fitted model: the one function every step evaluates.

Cross-validation and test metrics score ``predict`` (regressors) or
``predict_proba`` (classifiers); PD / ICE, SHAP and model reliance explain a
scalar output: the prediction, the probability of one class, or its log-odds.
:func:`model_output` builds each of them, so that "the model's output" means the
same thing in every table.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["LOGIT_EPS", "OUTPUTS", "model_output", "logit"]

#: Outputs :func:`model_output` can build.
OUTPUTS = ("auto", "predict", "predict_proba", "proba", "logit")
#: Default clipping of probabilities before the logit (``[eps, 1 - eps]``).
LOGIT_EPS = 1e-6


def logit(p: np.ndarray) -> np.ndarray:
    """``log(p / (1 - p))`` computed as ``log(p) - log1p(-p)``."""
    return np.log(p) - np.log1p(-p)


def _is_classifier(model) -> bool:
    """scikit-learn's ``is_classifier``, tolerant of duck-typed models without tags."""
    from sklearn.base import is_classifier

    try:
        return bool(is_classifier(model))
    except (AttributeError, TypeError):
        return getattr(model, "_estimator_type", None) == "classifier"


def _model_input(model, Z):
    """``Z`` as the model expects it (a DataFrame when fitted on named columns)."""
    names = getattr(model, "feature_names_in_", None)
    if names is not None and not hasattr(Z, "columns"):
        import pandas as pd

        return pd.DataFrame(Z, columns=list(names))
    return Z


def model_output(
    model,
    output: str = "auto",
    *,
    class_index: int = 1,
    clip: float = LOGIT_EPS,
    exact_log_odds: bool = True,
) -> Callable[[Any], np.ndarray]:
    """The output function ``f(X)`` of a fitted model.

    Parameters
    ----------
    model : fitted estimator
        A regressor with ``predict`` or a classifier with ``predict_proba``
        (scikit-learn API, possibly a ``Pipeline``).
    output : {"auto", "predict", "predict_proba", "proba", "logit"}, default "auto"
        ``"predict"``: ``model.predict``, shape ``(n,)`` (regressors only);
        ``"predict_proba"``: every class probability, shape ``(n, n_classes)``;
        ``"proba"``: the probability of ``classes_[class_index]``, shape ``(n,)``;
        ``"logit"``: the log-odds of that class, shape ``(n,)``;
        ``"auto"``: what the pipeline scores, ``"predict"`` for regressors and
        ``"predict_proba"`` for classifiers.
    class_index : int, default 1
        Column of ``predict_proba`` (1 = the positive class of a 0/1 problem).
    clip : float, default 1e-6
        ``"logit"`` of a probability: ``p`` clipped to ``[clip, 1 - clip]`` first.
    exact_log_odds : bool, default True
        ``"logit"`` of a binary classifier whose family declares exact log-odds
        (:attr:`xaipipe.models.families.Family.log_odds`: the decision function of
        logistic regression / QDA, the joint log-likelihoods of naive Bayes) uses
        them (they equal ``log p1 - log p0`` without clipping); otherwise, and with
        ``False``, the logit of the clipped probability.

    Returns
    -------
    callable
        ``f(X) -> ndarray``: ``"predict"`` and ``"predict_proba"`` return what the
        model returns (float32 for XGBoost); ``"proba"`` and ``"logit"`` float64.

    Raises
    ------
    ValueError
        Unknown ``output``; ``"predict"`` for a classifier; a probability output
        for a model without ``predict_proba``; ``class_index`` out of range.
    TypeError
        ``model`` has no ``predict``.
    """
    if output not in OUTPUTS:
        raise ValueError(f"output must be one of {OUTPUTS}, got {output!r}")
    if not hasattr(model, "predict"):
        raise TypeError(f"model must be a fitted estimator with predict, got {type(model).__name__}")
    classifier = _is_classifier(model)
    if output == "auto":
        output = "predict_proba" if classifier else "predict"
    if output == "predict":
        if classifier:
            raise ValueError("output='predict' would use class labels; use 'proba' or 'logit' for classifiers")

        def predict(X):
            return model.predict(_model_input(model, X))

        return predict
    if not hasattr(model, "predict_proba"):
        raise ValueError(f"output={output!r} needs predict_proba, which {type(model).__name__} lacks")
    if output == "predict_proba":

        def predict_proba(X):
            return model.predict_proba(_model_input(model, X))

        return predict_proba
    from ..validation import check_int

    class_index = check_int(class_index, "class_index", minimum=0)

    def proba(X):
        p = np.asarray(model.predict_proba(_model_input(model, X)), dtype=np.float64)
        if p.ndim != 2 or p.shape[1] <= class_index:
            raise ValueError(f"class_index={class_index} but predict_proba returned shape {p.shape}")
        return p[:, class_index]

    if output == "proba":
        return proba
    exact = _exact_log_odds(model, class_index) if exact_log_odds else None
    if exact is not None:
        return exact

    def clipped_logit(X):
        return logit(np.clip(proba(X), clip, 1.0 - clip))

    return clipped_logit


def _exact_log_odds(model, class_index: int):
    """Exact class-1 log-odds of a binary classifier, or None (see :func:`model_output`)."""
    from .families import family_of, final_estimator

    fam = family_of(model)
    est = final_estimator(model)
    classes = getattr(est, "classes_", None)
    if fam is None or fam.log_odds is None or class_index != 1 or classes is None or len(classes) != 2:
        return None
    if fam.log_odds == "decision_function":

        def decision(X):
            return np.asarray(model.decision_function(_model_input(model, X)), dtype=np.float64).reshape(-1)

        decision.source = "decision_function"
        return decision

    def joint(X):
        Z = _model_input(model, X)
        if est is not model:
            Z = model[:-1].transform(Z)
        jll = est.predict_joint_log_proba(Z)
        return np.asarray(jll[:, 1] - jll[:, 0], dtype=np.float64)

    joint.source = "joint_log_likelihood"
    return joint
