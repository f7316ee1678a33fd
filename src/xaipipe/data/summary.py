"""The data summary table: what each dataset's rows and missing values became (``tables/data_summary.csv``).

Missing values change results (imputed cells move a variable's MR, its PD, its SHAP values), so the
reader of any table or figure must be able to see, per dataset and column, how many values were
missing, how many rows the policy removed and how many cells the fits impute. This table gathers
what ``prepared.json`` (``missing``: the policy's counts), the canonical sidecar (rows read) and the
split's ``checks.json`` (the logit table's separation and rare levels) record, one row per dataset
and column (the target first, then the features in the prepared order, a categorical column once
for its one-hot group). ``manifest.json`` holds the same per dataset (:func:`data_summary_record`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["DATA_SUMMARY_COLUMNS", "data_summary_table", "data_summary_record"]

#: the columns of ``tables/data_summary.csv``, in order
DATA_SUMMARY_COLUMNS = [
    "dataset",
    "column",
    "role",
    "policy",
    "rows_read",
    "rows_selected",
    "rows_dropped",
    "rows_used",
    "missing_values",
    "cells_imputed",
    "imputed_share",
    "imputed",
    "logit_separation",
    "logit_note",
]


def _variables(info: Mapping[str, Any]) -> list[tuple[str, str]]:
    """``(column, role)`` of the target and of each feature variable (a one-hot group once)."""
    groups = info.get("feature_groups") or {}
    member = {c: g for g, cols in groups.items() for c in cols}
    out = [(info["target"], "target")]
    for c in dict.fromkeys(member.get(c, c) for c in info["features"]):
        out.append((c, f"categorical ({len(groups[c])} levels)" if c in groups else "numeric"))
    return out


def _logit_notes(checks: Mapping[str, Any] | None) -> tuple[str, dict[str, list[str]]]:
    logit = (checks or {}).get("logit")
    if not logit:
        return "", {}
    notes: dict[str, list[str]] = {}
    for lv in logit.get("rare_levels", []):
        notes.setdefault(lv["column"], []).append(
            f"level {lv['level']!r}: {lv['rows']} training rows, classes {', '.join(lv['classes']) or 'none'}"
        )
    for term in logit.get("not_identified", []):
        notes.setdefault(term, []).append("coefficient diverges (separation)")
    return str(logit.get("separation", "")), notes


def data_summary_table(
    infos: Iterable[Mapping[str, Any]],
    sidecars: Iterable[Mapping[str, Any]],
    checks: Iterable[Mapping[str, Any] | None] | None = None,
) -> pd.DataFrame:
    """One row per dataset and variable: rows read, kept, dropped; missing values and imputed cells.

    Parameters
    ----------
    infos : iterable of mappings
        Each dataset's ``prepared.json`` (:func:`xaipipe.data.preparation.prepare_table`'s ``info``).
    sidecars : iterable of mappings
        Each dataset's canonical sidecar (``canonical.json``), same order: ``n_rows``.
    checks : iterable of mappings or None, optional
        Each dataset's ``checks.json`` (the split rule), same order: the logit table's separation.

    Returns
    -------
    DataFrame
        :data:`DATA_SUMMARY_COLUMNS`: ``dataset``; ``column`` (the target, then each feature variable:
        a categorical column once for its one-hot group); ``role`` (``target``, ``numeric``,
        ``categorical (k levels)``); ``policy`` (``datasets.<d>.missing``: ``error``, ``drop_rows``,
        ``impute``); ``rows_read`` (rows of the canonical table), ``rows_selected`` (after a
        ``variant``'s rows), ``rows_dropped`` (removed by the policy: a missing value under
        ``drop_rows``, a missing target under ``impute``), ``rows_used`` (``prepared.csv``: what is
        split and fitted); ``missing_values`` (the column's missing values in the selected rows,
        before any is removed), ``cells_imputed`` (rows of ``prepared.csv`` whose value the fits
        impute), ``imputed_share`` (``cells_imputed / rows_used``), ``imputed`` (True where any cell
        is imputed: results of this dataset rest on imputed values); ``logit_separation``
        (classification: the separation of the logit table's design, ``none`` / ``quasi-complete``
        / ``complete``; empty for regression) and ``logit_note`` (the column's rare levels and
        diverging coefficients, from ``checks.json``).
    """
    checks = list(checks) if checks is not None else None
    rows = []
    for k, (info, sidecar) in enumerate(zip(infos, sidecars, strict=True)):
        missing = info.get("missing") or {}
        policy = missing.get("policy", "error")
        dropped = int(missing.get("rows_dropped", 0))
        used = int(info["n_rows"])
        counts, imputed = missing.get("missing_values", {}), missing.get("imputed", {})
        separation, notes = _logit_notes(checks[k] if checks is not None else None)
        groups = info.get("feature_groups") or {}
        for column, role in _variables(info):
            cells = int(imputed.get(column, 0))
            note = notes.get(column, []) + [n for m in groups.get(column, []) for n in notes.get(m, [])]
            rows.append(
                {
                    "dataset": info["dataset"],
                    "column": column,
                    "role": role,
                    "policy": policy,
                    "rows_read": int(sidecar["n_rows"]),
                    "rows_selected": used + dropped,
                    "rows_dropped": dropped,
                    "rows_used": used,
                    "missing_values": int(counts.get(column, 0)),
                    "cells_imputed": cells,
                    "imputed_share": cells / used if used else np.nan,
                    "imputed": cells > 0,
                    "logit_separation": separation,
                    "logit_note": "; ".join(note),
                }
            )
    return pd.DataFrame(rows, columns=DATA_SUMMARY_COLUMNS)


def data_summary_record(table: pd.DataFrame, checks: Iterable[Mapping[str, Any]] | None = None) -> dict:
    """The manifest's ``data_summary``: per dataset its policy, rows and per-column counts.

    Parameters
    ----------
    table : DataFrame
        :func:`data_summary_table`.
    checks : iterable of mappings, optional
        The datasets' ``checks.json``: their ``warnings`` are added per dataset.

    Returns
    -------
    dict
        dataset -> ``policy``, ``rows_read``, ``rows_selected``, ``rows_dropped``, ``rows_used``,
        ``missing_values`` and ``cells_imputed`` (column -> count, the non-zero ones),
        ``logit_separation`` and ``warnings`` (the split's lines).
    """
    warnings = {c["dataset"]: list(c.get("warnings", [])) for c in (checks or [])}
    out = {}
    for dataset, rows in table.groupby("dataset", sort=False):
        first = rows.iloc[0]
        out[str(dataset)] = {
            "policy": str(first["policy"]),
            **{k: int(first[k]) for k in ("rows_read", "rows_selected", "rows_dropped", "rows_used")},
            "missing_values": {str(c): int(n) for c, n in zip(rows["column"], rows["missing_values"]) if n},
            "cells_imputed": {str(c): int(n) for c, n in zip(rows["column"], rows["cells_imputed"]) if n},
            "logit_separation": str(first["logit_separation"]) if isinstance(first["logit_separation"], str) else "",
            "warnings": warnings.get(str(dataset), []),
        }
    return out
