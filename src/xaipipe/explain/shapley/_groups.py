"""SHAP values of variables: a one-hot group's value is the sum of its columns' values (private).

See :mod:`xaipipe.explain.shapley`, section "Feature groups", for the definition and its
sources; :func:`group_shap_result` is the one function that builds the grouped result.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import fields

import numpy as np

from ._result import NO_LEVEL, GroupedShapResult, ShapResult

__all__ = ["group_shap_result"]


def _onehot_codes(block: np.ndarray, members: Sequence[str]) -> tuple[np.ndarray, tuple] | None:
    """(level code per row, level labels) of a one-hot block, or None when it is not one-hot."""
    if not np.all((block == 0) | (block == 1)):
        return None
    sums = block.sum(axis=1)
    if np.any(sums > 1):
        return None
    none = bool(np.any(sums == 0))
    labels = ((NO_LEVEL,) if none else ()) + tuple(members)
    codes = np.where(sums == 0, 0, np.argmax(block, axis=1) + int(none)).astype(np.float64)
    return codes, labels


def group_shap_result(result: ShapResult, feature_groups: Mapping[str, Sequence[str]] | None) -> ShapResult:
    """SHAP values per variable: each group's columns summed (section "Feature groups").

    Parameters
    ----------
    result : ShapResult
        Per-column SHAP values (:func:`xaipipe.explain.shapley.shap_values`).
    feature_groups : mapping of str -> sequence of str, or None
        Groups of columns, e.g. ``prepared.json``'s ``feature_groups``
        (``{"Sex": ["Sex_F", "Sex_I", "Sex_M"]}``).

    Returns
    -------
    ShapResult
        ``result`` itself when ``feature_groups`` is empty or None (nothing to
        group); otherwise a :class:`GroupedShapResult` with ``q`` variables.

    Raises
    ------
    TypeError
        If ``result`` is not a ShapResult or is already grouped.
    ValueError
        A member that is not a column of ``result``, a column in two groups, a
        group named like an ungrouped column, an empty group
        (:func:`xaipipe.explain.reliance.features_from_groups`).
    """
    from ..reliance import features_from_groups

    if not isinstance(result, ShapResult):
        raise TypeError(f"expected a ShapResult, got {type(result).__name__}")
    if isinstance(result, GroupedShapResult):
        raise TypeError("the result is already grouped (its columns are in result.columns)")
    groups = {str(g): tuple(str(c) for c in m) for g, m in dict(feature_groups or {}).items()}
    if not groups:
        return result
    spec = features_from_groups(list(result.feature_names), groups)
    n, q = result.n_rows, len(spec)
    values = np.empty((n, q))
    data = np.empty((n, q))
    levels: dict[str, tuple] = {}
    for g, (name, cols) in enumerate(spec.items()):
        if name in groups:
            values[:, g] = result.values[:, cols].sum(axis=1)
            coded = _onehot_codes(result.data[:, cols], [result.feature_names[j] for j in cols])
            if coded is None:
                data[:, g] = np.nan
            else:
                data[:, g], levels[name] = coded
        else:
            values[:, g] = result.values[:, cols[0]]
            data[:, g] = result.data[:, cols[0]]
    interactions = None
    if result.interaction_values is not None:
        iv = result.interaction_values
        interactions = np.empty((n, q, q))
        blocks = list(spec.values())
        for a, ca in enumerate(blocks):
            for b, cb in enumerate(blocks):
                interactions[:, a, b] = iv[:, ca][:, :, cb].sum(axis=(1, 2))
    # the fields of ``result`` (rows, outputs, algorithm, ...) with the per-column ones replaced by the grouped
    kept = {f.name: getattr(result, f.name) for f in fields(ShapResult)}
    kept.update(
        values=values,
        data=data,
        feature_names=tuple(spec),
        interaction_values=interactions,
        details=dict(result.details),
    )
    return GroupedShapResult(
        **kept,
        columns=result,
        feature_groups={g: groups[g] for g in spec if g in groups},
        levels=levels,
    )
