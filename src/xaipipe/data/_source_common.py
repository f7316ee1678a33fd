"""What the source readers share (:mod:`xaipipe.data.sources`, :mod:`xaipipe.data._file_sources`):
their errors, the checksum check, the record of a fetched table and the one normalisation to the
canonical table (:func:`normalize_canonical`)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..io import sha256_bytes
from .checks import reading_advice
from .registry import DatasetEntry

__all__ = ["ChecksumError", "DownloadError", "normalize_canonical"]


class ChecksumError(ValueError):
    """A data file is missing, truncated or altered (SHA-256 mismatch)."""


class DownloadError(RuntimeError):
    """A download failed (no network, timeout, server error)."""


# --------------------------------------------------------------------------- #
# Canonical layout
# --------------------------------------------------------------------------- #
def _labels(series: pd.Series) -> pd.Series:
    """Text labels (missing values stay missing); integral numbers lose their ``.0``."""
    if pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series):
        values = series.to_numpy(dtype=float)
        finite = values[~np.isnan(values)]
        if np.all(finite == np.round(finite)):
            if np.isnan(values).any():  # Series.map would infer float64 again: 1.0, nan, 2.0
                series = pd.Series(
                    [v if np.isnan(v) else str(int(v)) for v in values], index=series.index, dtype=object
                )
            else:
                series = series.map(lambda v: v if pd.isna(v) else int(v))
    return series.astype(str).str.strip()


def _numeric_or_text(series: pd.Series) -> pd.Series:
    if pd.api.types.is_numeric_dtype(series):
        return series.astype("float64")
    try:
        return pd.to_numeric(series, errors="raise").astype("float64")
    except (ValueError, TypeError):
        return series.astype(str).str.strip()


def normalize_canonical(entry: DatasetEntry, frame: pd.DataFrame, where: str = "the source table") -> pd.DataFrame:
    """Order the columns, fix the dtypes and the row order of a canonical table.

    Parameters
    ----------
    entry : DatasetEntry
    frame : DataFrame
        The source's table (all columns, source names).
    where : str
        What ``frame`` was read from, for messages.

    Returns
    -------
    DataFrame
        Columns id, features, target, other (``entry.feature_columns``, or every
        remaining column in source order). Categorical features and
        classification labels are text; other non-numeric columns stay text
        (preparation rejects non-numeric features not declared categorical); ids
        int64; the rest float64. Index 0..n-1.

    Raises
    ------
    ValueError
        Naming the dataset and the column: repeated column names, the target or a
        declared column is not in the table, a regression target is not numeric, an id column has
        missing or non-integer values, an ``order_by`` column has undeclared levels.
    """
    dataset = entry.dataset
    columns = [str(c) for c in frame.columns]
    repeated = sorted({c for c in columns if columns.count(c) > 1})
    if repeated:
        raise ValueError(
            f"dataset {dataset!r}: {where} has duplicate column name(s) {repeated}; give every column its own "
            "name in the source"
        )
    if entry.target not in columns:
        raise ValueError(
            f"dataset {dataset!r}: the target {entry.target!r} (datasets.{dataset}.target) is not a column of "
            f"{where}; its columns are {columns}"
        )
    for key, cols in (
        ("columns.id", entry.id_columns),
        ("columns.features", entry.feature_columns or ()),
        ("columns.other", entry.other_columns),
        ("categorical", entry.categorical),
    ):
        missing = [c for c in cols if c not in columns]
        if missing:
            raise ValueError(
                f"dataset {dataset!r}: datasets.{dataset}.{key} names column(s) {missing} that {where} lacks; "
                f"its columns are {columns}"
            )
    ids, other = list(entry.id_columns), list(entry.other_columns)
    if entry.feature_columns is not None:
        features = list(entry.feature_columns)
    else:
        features = [c for c in columns if c not in ids + other + [entry.target]]
    order = ids + features + [entry.target] + other
    out = frame[order].copy()
    for col in order:
        series = out[col]
        if col in entry.categorical or (col == entry.target and entry.task == "classification"):
            out[col] = _labels(series)
        elif col in ids:
            if pd.api.types.is_numeric_dtype(series):
                if series.isna().any() or not np.all(series == np.round(series)):
                    raise ValueError(f"dataset {dataset!r}: id column {col!r} has missing or non-integer values")
                out[col] = series.astype("int64")
            else:
                out[col] = series.astype(str).str.strip()
        else:
            out[col] = _numeric_or_text(series)
            if col == entry.target and not pd.api.types.is_numeric_dtype(out[col]):
                examples = sorted(set(out[col].dropna()))[:5]
                advice = reading_advice(series, dataset, source_kind=entry.kind, policy=entry.missing or "error")
                fix = advice or f"if it names classes, set datasets.{dataset}.task: classification"
                raise ValueError(
                    f"dataset {dataset!r}: the regression target {col!r} is not numeric (values such as "
                    f"{examples}); regression needs a numeric target: {fix}"
                )
    if entry.order_by:
        col, levels = entry.order_by["column"], list(entry.order_by["levels"])
        if col not in out.columns:
            raise ValueError(f"dataset {dataset!r}: datasets.{dataset}.order_by.column {col!r} is not a column")
        rank = out[col].map({lvl: i for i, lvl in enumerate(levels)})
        if rank.isna().any():
            raise ValueError(
                f"dataset {dataset!r}: column {col!r} has values {sorted(map(str, out[col].unique()))} "
                f"not all in datasets.{dataset}.order_by.levels {levels}"
            )
        out = out.iloc[np.argsort(rank.to_numpy(), kind="stable")]
    return out.reset_index(drop=True)


def _check_sha256(data: bytes, expected: str, path: Any, dataset: str, size: Any = "?") -> None:
    actual = sha256_bytes(data)
    if actual != expected:
        raise ChecksumError(
            f"dataset {dataset!r}: checksum mismatch for {path}: expected SHA-256 "
            f"{expected}, got {actual} ({len(data)} bytes, expected {size}); "
            "the file is truncated or altered"
        )


def _frame_record(frame: pd.DataFrame, path: str, note: str) -> dict:
    raw = frame.to_csv(index=False, lineterminator="\n").encode("utf-8")
    return {"path": path, "sha256": sha256_bytes(raw), "bytes": len(raw), "note": note}
