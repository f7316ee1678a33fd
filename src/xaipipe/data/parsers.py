"""Named parsers of original dataset files (the ``parser`` of a registry source).

A source of kind ``uci`` (read from the offline mirror) or ``sklearn`` (bundled
files) names the parser of its file format in ``config/datasets.yaml``; the
parser turns the verified file contents into a table whose columns carry the
registry entry's names. Every parser has the signature::

    parser(blobs, entry) -> pandas.DataFrame

where ``blobs`` maps each file's registry path to its bytes (in the order of
``source.files``) and ``entry`` is the :class:`~xaipipe.data.registry.DatasetEntry`
(its ``id_columns``, ``feature_columns``, ``target`` name the columns of
header-less files, in file order). The table is normalised afterwards
(column order, dtypes: :func:`xaipipe.data.sources.normalize_canonical`).

========================  ===================================================  ==============
parser                    file format                                          used by
========================  ===================================================  ==============
``whitespace_table``      whitespace-separated numbers, no header;             Airfoil
                          columns: features, target
``biff8_xls``             legacy Excel (BIFF8) workbook, first sheet with a    Concrete
                          header row; columns renamed to features, target
``wine_quality_pair``     ``winequality-red.csv`` + ``winequality-white.csv``  Wine Quality
                          (``;``-separated, header); names stripped, spaces
                          -> ``_``; a ``color`` column (``red`` / ``white``);
                          red rows first
``csv_no_header``         comma-separated, no header; columns: id, features,   Abalone
                          target
``wdbc``                  ``wdbc.data``: comma-separated, no header; columns:  Breast Cancer
                          ID, diagnosis (the target), the 30 features
``diabetes_raw``          scikit-learn's ``diabetes_data_raw.csv.gz`` +        Diabetes
                          ``diabetes_target.csv.gz`` (gzip, space-separated)
========================  ===================================================  ==============

New formats are added with :func:`register_parser`.
"""

from __future__ import annotations

import gzip
import io
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

import numpy as np
import pandas as pd

from ..io import read_csv

__all__ = ["PARSERS", "register_parser", "get_parser"]


class DatasetEntry(Protocol):
    """What a parser reads of its :class:`xaipipe.data.registry.DatasetEntry` (the registry imports
    this module, so the type is described here rather than imported)."""

    dataset: str
    target: str
    feature_columns: Sequence[str] | None
    id_columns: Sequence[str]


Parser = Callable[[Mapping[str, bytes], DatasetEntry], pd.DataFrame]

#: parser name -> function
PARSERS: dict[str, Parser] = {}


def register_parser(name: str) -> Callable[[Parser], Parser]:
    """Decorator adding a parser to :data:`PARSERS` under ``name``.

    Raises
    ------
    ValueError
        If ``name`` is already registered.
    """

    def decorate(func: Parser) -> Parser:
        if name in PARSERS:
            raise ValueError(f"parser {name!r} is already registered")
        PARSERS[name] = func
        return func

    return decorate


def get_parser(name: str, dataset: str | None = None) -> Parser:
    """The parser registered as ``name``.

    Raises
    ------
    ValueError
        Unknown name; the message names the dataset and lists the known parsers.
    """
    try:
        return PARSERS[name]
    except KeyError:
        where = f"dataset {dataset!r}: " if dataset else ""
        raise ValueError(f"{where}unknown parser {name!r} (source.parser); known parsers: {sorted(PARSERS)}") from None


def _single(blobs: Mapping[str, bytes], entry: DatasetEntry) -> bytes:
    if len(blobs) != 1:
        raise ValueError(f"dataset {entry.dataset!r}: parser expects one file, got {list(blobs)}")
    return next(iter(blobs.values()))


def _named(blobs: Mapping[str, bytes], suffix: str, entry: DatasetEntry) -> bytes:
    found = [b for p, b in blobs.items() if p.endswith(suffix)]
    if len(found) != 1:
        raise ValueError(f"dataset {entry.dataset!r}: expected one file ending in {suffix!r}, got {list(blobs)}")
    return found[0]


def _header_less_names(entry: DatasetEntry) -> list[str]:
    return list(entry.id_columns) + list(entry.feature_columns or ()) + [entry.target]


def _check_width(frame: pd.DataFrame, names: list[str], entry: DatasetEntry) -> None:
    if frame.shape[1] != len(names):
        raise ValueError(
            f"dataset {entry.dataset!r}: the file has {frame.shape[1]} columns, the registry entry names "
            f"{len(names)} ({names})"
        )


@register_parser("whitespace_table")
def parse_whitespace_table(blobs: Mapping[str, bytes], entry: DatasetEntry) -> pd.DataFrame:
    """Whitespace-separated table without header (Airfoil's ``airfoil_self_noise.dat``)."""
    names = _header_less_names(entry)
    return read_csv(io.BytesIO(_single(blobs, entry)), sep=r"\s+", header=None, names=names)


@register_parser("biff8_xls")
def parse_biff8_xls(blobs: Mapping[str, bytes], entry: DatasetEntry) -> pd.DataFrame:
    """First sheet of a legacy Excel workbook (Concrete's ``Concrete_Data.xls``); its header
    row is replaced by the registry's names."""
    with warnings.catch_warnings():
        # The original file is legacy BIFF8 Excel; xlrd reads it exactly (pandas 3.1
        # deprecates the engine in favour of calamine, an extra dependency).
        warnings.filterwarnings("ignore", message="The xlrd engine is deprecated")
        frame = pd.read_excel(io.BytesIO(_single(blobs, entry)), engine="xlrd", sheet_name=0)
    names = _header_less_names(entry)
    _check_width(frame, names, entry)
    frame.columns = names
    return frame


@register_parser("wine_quality_pair")
def parse_wine_quality_pair(blobs: Mapping[str, bytes], entry: DatasetEntry) -> pd.DataFrame:
    """The red and white Wine Quality files, red rows first, with a ``color`` column."""
    parts = []
    for color in ("red", "white"):
        part = read_csv(io.BytesIO(_named(blobs, f"winequality-{color}.csv", entry)), sep=";")
        part.columns = [c.strip().replace(" ", "_") for c in part.columns]
        part["color"] = color
        parts.append(part)
    return pd.concat(parts, ignore_index=True)


@register_parser("csv_no_header")
def parse_csv_no_header(blobs: Mapping[str, bytes], entry: DatasetEntry) -> pd.DataFrame:
    """Comma-separated file without header (Abalone's ``abalone.data``)."""
    names = _header_less_names(entry)
    return read_csv(io.BytesIO(_single(blobs, entry)), header=None, names=names)


@register_parser("wdbc")
def parse_wdbc(blobs: Mapping[str, bytes], entry: DatasetEntry) -> pd.DataFrame:
    """Breast Cancer Wisconsin (Diagnostic) ``wdbc.data``: ID, diagnosis, 30 features, no header."""
    names = list(entry.id_columns) + [entry.target] + list(entry.feature_columns or ())
    return read_csv(io.BytesIO(_single(blobs, entry)), header=None, names=names)


@register_parser("diabetes_raw")
def parse_diabetes_raw(blobs: Mapping[str, bytes], entry: DatasetEntry) -> pd.DataFrame:
    """scikit-learn's unscaled Diabetes files (Efron et al. 2004): ten features, the response."""
    X = np.loadtxt(gzip.open(io.BytesIO(_named(blobs, "diabetes_data_raw.csv.gz", entry))))
    y = np.loadtxt(gzip.open(io.BytesIO(_named(blobs, "diabetes_target.csv.gz", entry))))
    features = list(entry.feature_columns or ())
    if X.ndim != 2 or X.shape[1] != len(features):
        raise ValueError(
            f"dataset {entry.dataset!r}: the data file has shape {X.shape}, the registry names {len(features)} features"
        )
    frame = pd.DataFrame(X, columns=features)
    frame[entry.target] = y
    return frame
