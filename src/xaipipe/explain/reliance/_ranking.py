"""The variables a step explains, ranked by model reliance (MR): the top ``k`` of a model's MR table.

The PD / ICE, ALE, H² and learner steps pick their variables from the ``model_reliance.csv`` of the
model with :func:`ranked_features` (the settings' ``ranking`` and ``loss``: config keys
``explain.reliance.ranking`` and ``explain.reliance.losses.<task>``). pandas only: a step that ranks
imports none of the MR estimators.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

__all__ = ["ranked_features", "top_features"]


def top_features(
    reliance: pd.DataFrame, k: int, *, estimator: str, loss: str, quantity: str = "mr_difference"
) -> list[str]:
    """The ``k`` variables with the largest MR (``quantity``) for one estimator and loss.

    Raises
    ------
    ValueError
        If the table has no rows for ``estimator`` / ``loss``.
    """
    part = reliance[(reliance["estimator"] == estimator) & (reliance["loss"] == loss)]
    if part.empty:
        raise ValueError(f"no model-reliance rows for estimator={estimator!r}, loss={loss!r}")
    ordered = part.sort_values([quantity, "feature"], ascending=[False, True], kind="stable")
    return ordered["feature"].head(k).tolist()


def ranked_features(reliance: pd.DataFrame, settings: Any, k: int | None = None) -> list[str]:
    """The top ``k`` variables of a ``model_reliance.csv`` table by the MR that ``settings`` rank by.

    :func:`top_features` with ``settings.ranking`` (``estimator``, ``quantity``: config key
    ``explain.reliance.ranking``) and ``settings.loss`` (the first of
    ``explain.reliance.losses.<task>``): how the PD / ICE, ALE and H² steps pick their variables
    (:class:`xaipipe.config.PdIceSettings`, :class:`~xaipipe.config.AleSettings`,
    :class:`~xaipipe.config.HStatisticSettings`).

    Parameters
    ----------
    reliance : DataFrame
        The model's MR table (``estimator``, ``loss``, ``feature`` and the quantity's column).
    settings : settings object
        With ``ranking`` (a mapping) and ``loss``.
    k : int, optional
        Variables kept; None: every variable of the table, by decreasing MR.

    Raises
    ------
    ValueError
        As :func:`top_features` (no rows of the ranking's estimator and loss).
    """
    return top_features(
        reliance,
        len(reliance) if k is None else k,
        estimator=settings.ranking["estimator"],
        loss=settings.loss,
        quantity=settings.ranking["quantity"],
    )
