"""The class a one-output step of a multiclass model explains (config key ``explain.figure_class``).

A step that explains one output (the ALE, the H-statistic, LIME, the SHAP check, the learner-PD, the
Rashomon PD envelope) explains a multiclass model's probability of one class: :func:`class_choice`.
A leaf: the Rashomon and dependence steps name their class without importing the SHAP code.
"""

from __future__ import annotations

__all__ = ["class_choice"]


def class_choice(classes, figure_class=None) -> dict:
    """Keyword arguments choosing the explained class of a one-output step (LIME, the SHAP check).

    Parameters
    ----------
    classes : sequence of str or None
        A multiclass dataset's labels in code order (``prepared.json``); None for
        regression and binary classification.
    figure_class : str, optional
        Config key ``explain.figure_class``; None: the first class.

    Returns
    -------
    dict
        ``{}`` without classes, else ``{"class_index": k}``.

    Raises
    ------
    ValueError
        ``figure_class`` is not one of ``classes``.
    """
    if classes is None:
        return {}
    labels = [str(c) for c in classes]
    if figure_class is None:
        return {"class_index": 0}
    if str(figure_class) not in labels:
        raise ValueError(f"config key explain.figure_class: {figure_class!r} is not a class; classes are {labels}")
    return {"class_index": labels.index(str(figure_class))}
