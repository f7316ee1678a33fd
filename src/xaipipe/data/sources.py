"""Dataset sources: from a registry entry to the canonical table.

Every dataset is declared in the registry (``config/datasets.yaml``, or inline
in the configuration: :mod:`xaipipe.data.registry`); its ``source`` has one of
four kinds, and :func:`load_canonical` turns each into one canonical table and
its JSON sidecar:

* ``uci``: with the config key ``uci_mirror`` set, the original UCI files are
  read from a folder laid out like ``shared/data/uci``, verified against the
  SHA-256 values of the registry (:class:`ChecksumError` names the file, the
  expected and the actual hash) and read by the entry's named parser
  (:mod:`xaipipe.data.parsers`). Without it, :func:`fetch_uci` wraps
  :func:`ucimlrepo.fetch_ucirepo` with a socket timeout, retries with
  exponential back-off, an on-disk cache and one clear error that names the
  ``uci_mirror`` config option.
* ``sklearn``: a dataset bundled with scikit-learn: checksummed files of
  ``sklearn/datasets/data`` read by a named parser (Diabetes' unscaled copy), or
  a ``load_*`` function of :mod:`sklearn.datasets`.
* ``file``: a CSV or Parquet file, local (relative to the working directory) or
  downloaded from a URL (cached under ``download.cache_dir``), checked against
  its SHA-256 (required for URLs, optional for local files).
* ``openml``: :func:`sklearn.datasets.fetch_openml` by id or name (+ version),
  cached under ``download.cache_dir``.

The canonical table (:func:`normalize_canonical`) has the source's column names:
ID columns first, then features, then the target, then "other" columns (Wine's
``color``). Numeric columns are float64; categorical features, the labels of a
classification target and non-numeric other columns are text; IDs int64. Rows
keep the source's order unless the entry declares ``order_by`` (Wine Quality:
red rows first, then white, each in file order, whatever order UCI serves).
"""

from __future__ import annotations

import io
import json
import os
import socket
import time
import urllib.request
from pathlib import Path
from typing import Any, Callable, Mapping

import numpy as np
import pandas as pd

from ..io import sha256_bytes
from .parsers import get_parser
from .registry import DatasetEntry

__all__ = [
    "ChecksumError",
    "DownloadError",
    "load_sources",
    "normalize_canonical",
    "read_mirror",
    "read_sklearn",
    "read_file_source",
    "fetch_openml_source",
    "canonical_from_ucimlrepo",
    "fetch_uci",
    "load_canonical",
    "canonical_sha256",
    "canonical_to_csv_bytes",
    "read_canonical",
]


class ChecksumError(ValueError):
    """A data file is missing, truncated or altered (SHA-256 mismatch)."""


class DownloadError(RuntimeError):
    """A download failed (no network, timeout, server error)."""


def load_sources(path: str | os.PathLike) -> dict[str, DatasetEntry]:
    """The entries of a registry file (``config/datasets.yaml``), without configuration.

    Shorthand of :func:`xaipipe.data.registry.load_registry` ``(path)``.
    """
    from .registry import load_registry

    return load_registry(path)


# --------------------------------------------------------------------------- #
# Canonical layout
# --------------------------------------------------------------------------- #
def _labels(series: pd.Series) -> pd.Series:
    """Text labels (missing values stay missing); integral numbers lose their ``.0``."""
    if pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series):
        values = series.to_numpy(dtype=float)
        finite = values[~np.isnan(values)]
        if np.all(finite == np.round(finite)):
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
        Naming the dataset and the column: the target or a declared column is
        not in the table, a regression target is not numeric, an id column has
        missing or non-integer values, an ``order_by`` column has undeclared levels.
    """
    dataset = entry.dataset
    columns = [str(c) for c in frame.columns]
    if entry.target not in columns:
        raise ValueError(
            f"dataset {dataset!r}: the target {entry.target!r} (datasets.{dataset}.target) is not a column of "
            f"{where}; its columns are {columns}"
        )
    for key, cols in (("columns.id", entry.id_columns), ("columns.features", entry.feature_columns or ()),
                      ("columns.other", entry.other_columns), ("categorical", entry.categorical)):
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
                raise ValueError(
                    f"dataset {dataset!r}: the regression target {col!r} is not numeric (values such as "
                    f"{examples}); regression needs a numeric target"
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


# --------------------------------------------------------------------------- #
# Checksummed files: the UCI mirror, scikit-learn's bundled files
# --------------------------------------------------------------------------- #
def _check_sha256(data: bytes, expected: str, path: Any, dataset: str, size: Any = "?") -> None:
    actual = sha256_bytes(data)
    if actual != expected:
        raise ChecksumError(
            f"dataset {dataset!r}: checksum mismatch for {path}: expected SHA-256 "
            f"{expected}, got {actual} ({len(data)} bytes, expected {size}); "
            "the file is truncated or altered"
        )


def _verified_bytes(path: Path, spec: Mapping[str, Any], dataset: str, what: str, hint: str = "") -> bytes:
    if not path.is_file():
        raise ChecksumError(
            f"dataset {dataset!r}: {what} {path} does not exist (expected SHA-256 {spec['sha256']}){hint}"
        )
    data = path.read_bytes()
    _check_sha256(data, spec["sha256"], path, dataset, spec.get("bytes", "?"))
    return data


def _parse(entry: DatasetEntry, blobs: dict[str, bytes], where: str) -> pd.DataFrame:
    frame = get_parser(entry.source["parser"], entry.dataset)(blobs, entry)
    return normalize_canonical(entry, frame, where)


def read_mirror(entry: DatasetEntry, mirror: str | os.PathLike) -> tuple[pd.DataFrame, list[dict]]:
    """Read and verify one ``uci`` dataset's original files from a mirror folder.

    Parameters
    ----------
    entry : DatasetEntry
        A registry entry of kind ``uci`` with ``source.files`` and ``source.parser``.
    mirror : path
        Folder laid out like ``shared/data/uci`` (``<mirror>/<path>`` for every
        file of ``source.files``).

    Returns
    -------
    (canonical table, raw file records)
        Records have keys ``path`` (absolute), ``sha256``, ``bytes``.

    Raises
    ------
    ChecksumError
        Missing, truncated or altered file; the message names the file and both hashes.
    ValueError
        The entry declares no mirror files.
    """
    if entry.kind != "uci" or not entry.files:
        raise ValueError(
            f"dataset {entry.dataset!r}: the config key uci_mirror is set but the registry entry declares no "
            "mirror files (source.kind uci with source.files and source.parser); add them or unset uci_mirror"
        )
    root = Path(mirror)
    blobs, records = {}, []
    for spec in entry.files:
        path = root / spec["path"]
        data = _verified_bytes(path, spec, entry.dataset, "mirror file", "; check the config key uci_mirror")
        blobs[spec["path"]] = data
        records.append({"path": str(path.resolve()), "sha256": spec["sha256"], "bytes": len(data)})
    return _parse(entry, blobs, f"the mirror files of {entry.dataset!r}"), records


def _frame_record(frame: pd.DataFrame, path: str, note: str) -> dict:
    raw = frame.to_csv(index=False, lineterminator="\n").encode("utf-8")
    return {"path": path, "sha256": sha256_bytes(raw), "bytes": len(raw), "note": note}


def read_sklearn(entry: DatasetEntry) -> tuple[pd.DataFrame, list[dict]]:
    """A dataset bundled with scikit-learn (source kind ``sklearn``).

    ``source.files`` (paths relative to ``sklearn/datasets/data``) are checksummed
    like mirror files and read by ``source.parser``; or ``source.loader`` names a
    ``load_*`` function of :mod:`sklearn.datasets`, called with ``as_frame=True``.

    Raises
    ------
    ChecksumError
        A bundled file differs from the registry's SHA-256 (another scikit-learn version).
    ValueError
        ``source.loader`` is not a function of :mod:`sklearn.datasets`.
    """
    source = entry.source
    if "loader" in source:
        import sklearn.datasets

        loader = getattr(sklearn.datasets, source["loader"], None)
        if not callable(loader) or not source["loader"].startswith("load_"):
            raise ValueError(f"dataset {entry.dataset!r}: source.loader {source['loader']!r} is not a load_* "
                             "function of sklearn.datasets")
        bunch = loader(as_frame=True)
        frame = bunch.frame
        record = _frame_record(frame, f"sklearn.datasets.{source['loader']}",
                               "SHA-256 of the loader's frame written with DataFrame.to_csv(index=False)")
        return normalize_canonical(entry, frame, f"sklearn.datasets.{source['loader']}"), [record]
    from importlib import resources

    base = resources.files("sklearn.datasets") / "data"
    blobs, records = {}, []
    for spec in entry.files:
        path = Path(str(base / spec["path"]))
        data = _verified_bytes(path, spec, entry.dataset, "scikit-learn's bundled file",
                               "; another scikit-learn version may bundle other bytes")
        blobs[spec["path"]] = data
        records.append({"path": str(path), "sha256": spec["sha256"], "bytes": len(data)})
    return _parse(entry, blobs, "scikit-learn's bundled files"), records


# --------------------------------------------------------------------------- #
# ucimlrepo path
# --------------------------------------------------------------------------- #
def _with_roles(entry: DatasetEntry, columns: list[str], roles: Mapping[str, str]) -> DatasetEntry:
    """Column roles from ucimlrepo's variable roles, where the entry declares no features."""
    if entry.feature_columns is not None or not roles:
        return entry
    from dataclasses import replace

    def of(role):
        return tuple(c for c in columns if roles.get(c) == role and c != entry.target)

    ids = entry.id_columns or of("ID")
    other = entry.other_columns or of("Other")
    features = tuple(c for c in of("Feature") if c not in ids + other)
    return replace(entry, id_columns=ids, other_columns=other, feature_columns=features)


def canonical_from_ucimlrepo(entry: DatasetEntry, original: pd.DataFrame, roles: Mapping[str, str]) -> pd.DataFrame:
    """Canonical table from what :func:`ucimlrepo.fetch_ucirepo` returns.

    Parameters
    ----------
    entry : DatasetEntry
    original : DataFrame
        ``result.data.original`` (every variable, UCI names).
    roles : mapping
        Variable name -> role (``ID``, ``Feature``, ``Target``, ``Other``) from
        ``result.variables``; checks that the target is where we expect, and
        gives the column roles when the entry declares no features.

    Raises
    ------
    ValueError
        ucimlrepo gives the target another role; see :func:`normalize_canonical`.
    """
    target = entry.target
    if roles and roles.get(target, "Target") != "Target":
        raise ValueError(
            f"dataset {entry.dataset!r}: ucimlrepo lists {target!r} with role {roles.get(target)!r}, expected 'Target'"
        )
    frame = original.copy()
    frame.columns = [str(c).strip() for c in frame.columns]
    entry = _with_roles(entry, list(frame.columns), roles)
    return normalize_canonical(entry, frame, f"the ucimlrepo table of UCI id {entry.uci_id}")


def _default_fetch(uci_id: int):  # pragma: no cover - needs the network
    from ucimlrepo import fetch_ucirepo

    return fetch_ucirepo(id=uci_id)


def fetch_uci(
    dataset: str,
    uci_id: int,
    *,
    timeout_s: float = 60.0,
    retries: int = 3,
    backoff_s: float = 5.0,
    cache_dir: str | os.PathLike | None = None,
    fetch: Callable[[int], Any] | None = None,
) -> tuple[pd.DataFrame, dict[str, str], dict]:
    """Download one UCI dataset with ``ucimlrepo``: timeout, retries, cache.

    Parameters
    ----------
    dataset : str
        Identifier, for messages.
    uci_id : int
        UCI repository id.
    timeout_s : float
        Socket timeout (seconds) of every connection ``ucimlrepo`` opens (it
        sets none itself).
    retries : int
        Attempts before giving up; waits ``backoff_s * 2**(attempt-1)`` between.
    cache_dir : path, optional
        If given, the downloaded table and variable roles are stored in
        ``<cache_dir>/<uci_id>/`` and reused by later calls.
    fetch : callable, optional
        Replacement for ``fetch_ucirepo(id=...)`` (tests).

    Returns
    -------
    (original table, variable roles, info)
        ``info`` has ``ucimlrepo_version``, ``cached`` (bool), ``attempts``,
        ``data_url``.

    Raises
    ------
    DownloadError
        After the last failed attempt, or at once for a non-network error. The
        message names the ``uci_mirror`` config option.
    """
    cache = Path(cache_dir) / str(uci_id) if cache_dir else None
    if cache is not None and (cache / "original.csv").is_file() and (cache / "meta.json").is_file():
        meta = json.loads((cache / "meta.json").read_text())
        original = pd.read_csv(cache / "original.csv")
        return original, meta["roles"], {**meta["info"], "cached": True}

    fetch = fetch or _default_fetch
    hint = (
        "Without access to archive.ics.uci.edu, point the config key `uci_mirror` to a folder "
        "laid out like shared/data/uci, e.g. `snakemake --cores 8 --config uci_mirror=../shared/data/uci`."
    )
    last: BaseException | None = None
    attempt = 0
    for attempt in range(1, max(1, retries) + 1):
        previous = socket.getdefaulttimeout()
        socket.setdefaulttimeout(timeout_s)
        try:
            result = fetch(uci_id)
            break
        except OSError as exc:  # URLError, ConnectionError, TimeoutError, socket errors
            last = exc
        except Exception as exc:  # not a network problem: do not retry
            raise DownloadError(
                f"ucimlrepo failed for dataset {dataset!r} (UCI id {uci_id}): "
                f"{type(exc).__name__}: {exc}. {hint}"
            ) from exc
        finally:
            socket.setdefaulttimeout(previous)
        if attempt < retries:
            time.sleep(backoff_s * 2 ** (attempt - 1))
    else:
        cause = f"{type(last).__name__}: {last}"
        if last is not None and last.__cause__ is not None:
            cause += f" (caused by {type(last.__cause__).__name__}: {last.__cause__})"
        raise DownloadError(
            f"could not download dataset {dataset!r} (UCI id {uci_id}) with ucimlrepo after "
            f"{attempt} attempt(s), timeout {timeout_s:g} s: {cause}. {hint}"
        ) from last

    original = result.data.original
    variables = result.variables
    roles = {str(n): str(r) for n, r in zip(variables["name"], variables["role"])}
    try:
        import importlib.metadata as md

        version = md.version("ucimlrepo")
    except Exception:  # pragma: no cover
        version = None
    info = {
        "ucimlrepo_version": version,
        "cached": False,
        "attempts": attempt,
        "data_url": (result.metadata or {}).get("data_url") if hasattr(result, "metadata") else None,
    }
    if cache is not None:
        from ..io import atomic_path, write_json

        with atomic_path(cache / "original.csv") as tmp:
            original.to_csv(tmp, index=False)
        write_json(cache / "meta.json", {"roles": roles, "info": info})
    return original, roles, info


# --------------------------------------------------------------------------- #
# Files: local or URL
# --------------------------------------------------------------------------- #
_COMPRESSION = {".gz": "gzip", ".bz2": "bz2", ".zip": "zip", ".xz": "xz", ".zst": "zstd"}


def _file_format(entry: DatasetEntry, name: str) -> str:
    fmt = entry.source.get("format")
    if fmt:
        return fmt
    suffixes = [s.lower() for s in Path(name).suffixes]
    if suffixes and suffixes[-1] in _COMPRESSION:
        suffixes = suffixes[:-1]
    if suffixes and suffixes[-1] in (".csv", ".txt", ".tsv"):
        return "csv"
    if suffixes and suffixes[-1] in (".parquet", ".pq"):
        return "parquet"
    raise ValueError(f"dataset {entry.dataset!r}: cannot tell the format of {name} from its extension; set "
                     f"datasets.{entry.dataset}.source.format to csv or parquet")


def _download_url(entry: DatasetEntry, url: str, expected: str,
                  download: Mapping[str, Any]) -> tuple[bytes, dict]:
    """Bytes of ``url`` (from the cache when there), checked against ``expected``."""
    cache_dir = download.get("cache_dir")
    name = Path(url.split("?")[0]).name or "data"
    cached = Path(cache_dir) / "url" / expected / name if cache_dir else None
    if cached is not None and cached.is_file():
        data = cached.read_bytes()
        if sha256_bytes(data) == expected:
            return data, {"url": url, "cached": True, "attempts": 0}
    timeout_s = float(download.get("timeout_s", 60))
    retries = max(1, int(download.get("retries", 3)))
    backoff_s = float(download.get("backoff_s", 5))
    last: BaseException | None = None
    attempt = 0
    for attempt in range(1, retries + 1):
        try:
            with urllib.request.urlopen(url, timeout=timeout_s) as response:
                data = response.read()
            break
        except OSError as exc:  # URLError, HTTPError, timeouts, refused connections
            last = exc
        if attempt < retries:
            time.sleep(backoff_s * 2 ** (attempt - 1))
    else:
        raise DownloadError(
            f"could not download dataset {entry.dataset!r} from {url} after {attempt} attempt(s), timeout "
            f"{timeout_s:g} s: {type(last).__name__}: {last}. Without network, download the file by hand and "
            f"give its local path in datasets.{entry.dataset}.source.path"
        ) from last
    _check_sha256(data, expected, url, entry.dataset)
    if cached is not None:
        from ..io import atomic_path

        with atomic_path(cached) as tmp:
            tmp.write_bytes(data)
    return data, {"url": url, "cached": False, "attempts": attempt}


def read_file_source(entry: DatasetEntry, download: Mapping[str, Any] | None = None
                     ) -> tuple[pd.DataFrame, list[dict], dict]:
    """A CSV or Parquet file (source kind ``file``), local or downloaded.

    Parameters
    ----------
    entry : DatasetEntry
        ``source`` has ``path`` (relative to the working directory) or ``url``;
        optional ``format`` (``csv`` | ``parquet``; default from the extension),
        ``sha256`` (required with ``url``), ``read_options`` (keyword arguments of
        :func:`pandas.read_csv` / :func:`pandas.read_parquet`).
    download : mapping, optional
        ``timeout_s``, ``retries``, ``backoff_s``, ``cache_dir`` (URL downloads
        are cached in ``<cache_dir>/url/<sha256>/``).

    Returns
    -------
    (canonical table, raw file records, info)

    Raises
    ------
    FileNotFoundError
        The local file does not exist (the message names it and the working directory).
    ChecksumError
        The file's SHA-256 differs from ``source.sha256`` (both hashes named).
    DownloadError
        A URL could not be downloaded.
    ValueError
        Unreadable file (pandas' message, with the file) or unknown format.
    """
    source = entry.source
    download = dict(download or {})
    if "url" in source:
        name = source["url"]
        data, info = _download_url(entry, source["url"], source["sha256"], download)
        origin = "url"
    else:
        path = Path(source["path"])
        if not path.is_file():
            raise FileNotFoundError(
                f"dataset {entry.dataset!r}: file {path} (datasets.{entry.dataset}.source.path) does not exist; "
                f"relative paths start at the working directory {Path.cwd()}"
            )
        name = str(path.resolve())
        data = path.read_bytes()
        if source.get("sha256"):
            _check_sha256(data, source["sha256"], path, entry.dataset)
        info, origin = {}, "file"
    fmt = _file_format(entry, name)
    options = dict(source.get("read_options") or {})
    try:
        if fmt == "csv":
            suffix = Path(name.split("?")[0]).suffix.lower()
            if suffix in _COMPRESSION:
                options.setdefault("compression", _COMPRESSION[suffix])
            frame = pd.read_csv(io.BytesIO(data), **options)
        else:
            frame = pd.read_parquet(io.BytesIO(data), **options)
    except (ValueError, TypeError, ImportError, OSError, UnicodeDecodeError, pd.errors.ParserError) as exc:
        raise ValueError(f"dataset {entry.dataset!r}: cannot read {name} as {fmt} "
                         f"(read_options {options}): {type(exc).__name__}: {exc}") from exc
    frame.columns = [str(c) for c in frame.columns]
    record = {"path": name, "sha256": sha256_bytes(data), "bytes": len(data)}
    info = {"origin": origin, "format": fmt, **info}
    return normalize_canonical(entry, frame, name), [record], info


# --------------------------------------------------------------------------- #
# OpenML
# --------------------------------------------------------------------------- #
def fetch_openml_source(
    entry: DatasetEntry,
    download: Mapping[str, Any] | None = None,
    *,
    fetch: Callable[..., Any] | None = None,
) -> tuple[pd.DataFrame, list[dict], dict]:
    """An OpenML dataset (source kind ``openml``) with :func:`sklearn.datasets.fetch_openml`.

    Parameters
    ----------
    entry : DatasetEntry
        ``source`` has ``data_id``, or ``name`` and optionally ``version``
        (default ``active``).
    download : mapping, optional
        ``timeout_s`` (socket timeout), ``retries`` (``n_retries``),
        ``backoff_s`` (``delay``), ``cache_dir`` (``data_home``: scikit-learn
        caches under ``<cache_dir>/openml``; its default folder when empty).
    fetch : callable, optional
        Replacement for ``fetch_openml`` (tests).

    Returns
    -------
    (canonical table, raw records, info)
        The raw record holds the SHA-256 of the fetched frame written as CSV and
        OpenML's ``md5_checksum`` of its file; ``info`` has the OpenML id, name,
        version and URL.

    Raises
    ------
    DownloadError
        ``fetch_openml`` failed (no network, unknown id or name); the message
        names the dataset and the OpenML id / name.
    """
    source = entry.source
    download = dict(download or {})
    if fetch is None:
        import sklearn.datasets

        fetch = sklearn.datasets.fetch_openml
    if "data_id" in source:
        query: dict[str, Any] = {"data_id": int(source["data_id"])}
        label = f"OpenML id {source['data_id']}"
    else:
        query = {"name": source["name"], "version": source.get("version", "active")}
        label = f"OpenML name {source['name']!r} version {query['version']}"
    cache_dir = download.get("cache_dir")
    data_home = str(cache_dir) if cache_dir else None  # fetch_openml appends "openml"
    previous = socket.getdefaulttimeout()
    socket.setdefaulttimeout(float(download.get("timeout_s", 60)))
    try:
        bunch = fetch(**query, data_home=data_home, target_column=None, as_frame=True,
                      n_retries=max(1, int(download.get("retries", 3))),
                      delay=max(1e-3, float(download.get("backoff_s", 5))))
    except Exception as exc:  # network errors, unknown ids: one clear message
        raise DownloadError(
            f"could not fetch dataset {entry.dataset!r} ({label}) with scikit-learn's fetch_openml: "
            f"{type(exc).__name__}: {exc}. Without network, export the table to CSV and use a source of kind file"
        ) from exc
    finally:
        socket.setdefaulttimeout(previous)
    frame = bunch.frame if getattr(bunch, "frame", None) is not None else bunch.data
    details = dict(getattr(bunch, "details", None) or {})
    url = getattr(bunch, "url", None) or details.get("url")
    record = _frame_record(frame, url or f"openml:{details.get('id', source.get('data_id', source.get('name')))}",
                           "SHA-256 of fetch_openml's frame written with DataFrame.to_csv(index=False)")
    if details.get("md5_checksum"):
        record["md5_checksum"] = details["md5_checksum"]
    info = {"data_id": details.get("id", source.get("data_id")), "name": details.get("name", source.get("name")),
            "version": details.get("version", source.get("version")), "url": url}
    return normalize_canonical(entry, frame, label), [record], info


# --------------------------------------------------------------------------- #
# Entry point
# --------------------------------------------------------------------------- #
def canonical_to_csv_bytes(frame: pd.DataFrame) -> bytes:
    """The canonical CSV serialization (exact float round trip, LF line ends)."""
    return frame.to_csv(index=False, float_format="%.17g", lineterminator="\n").encode("utf-8")


def canonical_sha256(frame: pd.DataFrame) -> str:
    """SHA-256 of :func:`canonical_to_csv_bytes`."""
    return sha256_bytes(canonical_to_csv_bytes(frame))


def read_canonical(path: str | os.PathLike, sidecar: Mapping[str, Any]) -> pd.DataFrame:
    """Read a canonical CSV with the dtypes recorded in its sidecar."""
    dtypes = {c["name"]: c["dtype"] for c in sidecar["columns"]}
    frame = pd.read_csv(path, dtype={k: ("str" if v == "object" or v == "str" else v) for k, v in dtypes.items()},
                        keep_default_na=False, na_values=[""])
    return frame[list(dtypes)]


def load_canonical(
    entry: DatasetEntry,
    *,
    mirror: str | os.PathLike | None = None,
    download: Mapping[str, Any] | None = None,
    fetch: Callable[..., Any] | None = None,
) -> tuple[pd.DataFrame, dict]:
    """Canonical table and sidecar metadata of one dataset.

    Parameters
    ----------
    entry : DatasetEntry
        Registry entry (:func:`xaipipe.data.registry.load_registry`).
    mirror : path, optional
        When non-empty, ``uci`` sources are read from this mirror folder.
    download : mapping, optional
        ``timeout_s``, ``retries``, ``backoff_s``, ``cache_dir`` for downloads
        (:func:`fetch_uci`, URL files, OpenML).
    fetch : callable, optional
        Replacement for the network call of a ``uci`` (``fetch_ucirepo(id)``) or
        ``openml`` (``fetch_openml(**kwargs)``) source (tests).

    Returns
    -------
    (table, sidecar)
        The sidecar holds: ``dataset``, ``name``, ``source`` (``uci_mirror``,
        ``ucimlrepo``, ``scikit-learn``, ``file``, ``url`` or ``openml``),
        ``source_kind``, ``uci_id``, ``doi``, ``citation``, ``task``, ``target``,
        the column roles (``id_columns``, ``feature_columns``, ``other_columns``,
        ``categorical_columns``) and dtypes (``columns``), the preparation's
        declared data (``positive_class``, ``variants``), ``raw`` (SHA-256 and
        size of the raw data), ``canonical_sha256``, ``n_rows``, ``n_columns``,
        ``retrieved_at`` (UTC, ISO 8601), and per kind ``mirror``,
        ``ucimlrepo``, ``file`` or ``openml`` details.

    Raises
    ------
    ChecksumError, DownloadError, FileNotFoundError, ValueError
        See :func:`read_mirror`, :func:`fetch_uci`, :func:`read_file_source`,
        :func:`fetch_openml_source`, :func:`normalize_canonical`.
    """
    download = dict(download or {})
    kind = entry.kind
    if kind == "uci" and mirror:
        frame, raw = read_mirror(entry, mirror)
        origin, extra = "uci_mirror", {"mirror": str(Path(mirror).resolve())}
    elif kind == "uci":
        original, roles, info = fetch_uci(
            entry.dataset,
            int(entry.uci_id),
            timeout_s=float(download.get("timeout_s", 60)),
            retries=int(download.get("retries", 3)),
            backoff_s=float(download.get("backoff_s", 5)),
            cache_dir=download.get("cache_dir") or None,
            fetch=fetch,
        )
        frame = canonical_from_ucimlrepo(entry, original, roles)
        entry = _with_roles(entry, [str(c).strip() for c in original.columns], roles)
        raw = [_frame_record(original, info.get("data_url") or f"ucimlrepo:{entry.uci_id}",
                             "SHA-256 of ucimlrepo's data.original written with DataFrame.to_csv(index=False)")]
        origin, extra = "ucimlrepo", {"ucimlrepo": info}
    elif kind == "sklearn":
        frame, raw = read_sklearn(entry)
        origin, extra = "scikit-learn", {}
    elif kind == "file":
        frame, raw, info = read_file_source(entry, download)
        origin, extra = info.pop("origin"), {"file": info}
    elif kind == "openml":
        frame, raw, info = fetch_openml_source(entry, download, fetch=fetch)
        origin, extra = "openml", {"openml": info}
    else:
        raise ValueError(f"dataset {entry.dataset!r}: unknown source kind {kind!r} (datasets.{entry.dataset}"
                         f".source.kind); known kinds: uci, sklearn, file, openml")
    ids, other, target = list(entry.id_columns), list(entry.other_columns), entry.target
    sidecar = {
        "dataset": entry.dataset,
        "name": entry.name,
        "source": origin,
        "source_kind": kind,
        "uci_id": entry.uci_id,
        "doi": entry.doi,
        "citation": entry.citation,
        "task": entry.task,
        "target": target,
        "id_columns": [c for c in frame.columns if c in ids],
        "feature_columns": [c for c in frame.columns if c not in ids + other + [target]],
        "other_columns": [c for c in frame.columns if c in other],
        "categorical_columns": list(entry.categorical),
        "positive_class": entry.positive_class,
        "variants": entry.variants,
        "columns": [{"name": c, "dtype": str(frame[c].dtype)} for c in frame.columns],
        "raw": raw,
        "canonical_sha256": canonical_sha256(frame),
        "n_rows": int(frame.shape[0]),
        "n_columns": int(frame.shape[1]),
        "retrieved_at": pd.Timestamp.now(tz="UTC").isoformat(timespec="seconds"),
        **extra,
    }
    return frame, sidecar
