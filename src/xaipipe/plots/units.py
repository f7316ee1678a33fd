"""Units on the figures' axes: the explained output with the dataset's ``target_unit``, and ε.

An effect (PD, ICE, ALE, a SHAP value) is in the units of the model output it explains. The
dataset registry's ``target_unit`` (``config/datasets.yaml``; :class:`xaipipe.data.DatasetEntry`)
says what those are:

* regression (output ``predict`` / ``prediction``): the target's unit, appended to the label,
  ``"prediction"`` -> ``"prediction (MPa)"`` (``inner=True``, inside a parenthesis:
  ``"prediction, MPa"``);
* binary classification (probability / log-odds of class 1): what class 1 is, named in place of
  ``"class 1"``: ``"predicted probability of class 1"`` -> ``"predicted probability of malignant"``.

Without a unit (a dataset of your own without ``target_unit``), and for one class of a multiclass
model (``"... of class k"``), a label is returned unchanged.

ε of a Rashomon set is in the unit of the ε rule (``rashomon.epsilon_mode``, docs/rashomon.md):
multiples of the reference's CV-loss standard error (``se``), a fraction of the reference's CV loss
(``relative``) or CV-loss units (``absolute``): :func:`epsilon_label`.
"""

from __future__ import annotations

__all__ = ["REGRESSION_OUTPUTS", "EPSILON_UNITS", "with_unit", "epsilon_label", "wrap_label"]

#: Output codes of a regression model (PD / ALE tables: ``predict``; SHAP results: ``prediction``).
REGRESSION_OUTPUTS = frozenset({"predict", "prediction"})

#: ``rashomon.epsilon_mode`` -> the unit of ε (``{metric}``: the selection metric, e.g. rmse).
EPSILON_UNITS = {
    "se": "multiples of the SE of the reference's CV {metric}",
    "relative": "fraction of the reference's CV {metric}",
    "absolute": "CV {metric} units",
}


def with_unit(label: str, output: str, target_unit: str | None, *, inner: bool = False) -> str:
    """``label`` (an output's name, e.g. ``"prediction"``) with the dataset's ``target_unit``.

    Parameters
    ----------
    label : str
        The label without a unit.
    output : str
        The output code of the table or result (``predict``, ``prediction``, ``proba``, ``logit``,
        ``probability``, ``log_odds``, ...).
    target_unit : str or None
        The registry's ``target_unit``; None or ``""``: ``label`` unchanged.
    inner : bool, default False
        The label sits inside a parenthesis (``"PD (prediction, MPa)"``): the unit follows a comma.

    Returns
    -------
    str
        Regression: ``"<label> (<unit>)"`` (``"<label>, <unit>"`` with ``inner``); classification:
        ``label`` with ``"class 1"`` replaced by ``target_unit``; otherwise ``label``.
    """
    if not target_unit:
        return label
    if str(output) in REGRESSION_OUTPUTS:
        return f"{label}, {target_unit}" if inner else f"{label} ({target_unit})"
    if "class 1" in label:
        return label.replace("class 1", str(target_unit))
    return label


def wrap_label(label: str, width: int = 34) -> str:
    """``label`` on lines of at most ``width`` characters (a vertical axis or colour-bar label with a long
    unit, e.g. Diabetes' "disease progression at one year", would overrun its axes); unchanged when short."""
    import textwrap

    return label if len(label) <= width else textwrap.fill(label, width, break_on_hyphens=False)


def epsilon_label(epsilon_mode: str | None, metric: str | None = None) -> str:
    """Axis label of ε with its unit: ``"ε (multiples of the SE of the reference's CV rmse)"``.

    Parameters
    ----------
    epsilon_mode : {"se", "relative", "absolute"} or None
        The ε rule (``rashomon.epsilon_mode``); None: ``"ε"``.
    metric : str, optional
        The CV loss of the sets (``selection.<task>``, e.g. ``rmse``, ``log_loss``); default "loss".

    Raises
    ------
    ValueError
        An unknown ``epsilon_mode``.
    """
    if epsilon_mode is None:
        return "ε"
    if epsilon_mode not in EPSILON_UNITS:
        raise ValueError(f"epsilon_mode must be one of {list(EPSILON_UNITS)}, got {epsilon_mode!r}")
    return f"ε ({EPSILON_UNITS[epsilon_mode].format(metric=metric or 'loss')})"
