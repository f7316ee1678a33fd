"""Source kinds ``file`` (a CSV or Parquet file, local or downloaded from a URL) and ``openml``
(:func:`sklearn.datasets.fetch_openml`): their readers, dispatched by
:data:`xaipipe.data.sources.SOURCE_READERS`."""

from __future__ import annotations

import io
import socket
import time
import urllib.request
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from ..io import read_csv, sha256_bytes
from ._source_common import DownloadError, _check_sha256, _frame_record, normalize_canonical
from .registry import DatasetEntry

__all__ = ["fetch_openml_source", "read_file_source"]


# --------------------------------------------------------------------------- #
# Files: local or URL
# --------------------------------------------------------------------------- #
_COMPRESSION = {".gz": "gzip", ".bz2": "bz2", ".zip": "zip", ".xz": "xz", ".zst": "zstd"}


#: read_csv options that do not change which text is the header row
_HEADER_UNRELATED = (
    "header",
    "nrows",
    "usecols",
    "index_col",
    "dtype",
    "converters",
    "names",
    "na_values",
    "keep_default_na",
    "parse_dates",
    "true_values",
    "false_values",
    "chunksize",
    "iterator",
)


def _check_csv_header(entry: DatasetEntry, data: bytes, options: Mapping[str, Any], name: str) -> None:
    """Reject a CSV whose header row repeats a column name.

    ``pandas.read_csv`` renames the second ``value`` to ``value.1`` (pandas 3 has no switch
    that turns this off), which would then be used as a feature of its own; the header row is
    read again as plain text (same separator, encoding, skipped rows) and checked here.

    Raises
    ------
    ValueError
        Naming the dataset, the file, the repeated name(s), their column positions and the fix.
    """
    header = options.get("header", "infer")
    if options.get("names") is not None or isinstance(header, (list, tuple)) or header is None:
        return  # names given by the user (pandas rejects repeats itself), a multi-row or no header
    row = 0 if header == "infer" else int(header)
    plain = {k: v for k, v in options.items() if k not in _HEADER_UNRELATED}
    raw = read_csv(io.BytesIO(data), header=None, nrows=row + 1, dtype=str, keep_default_na=False, **plain)
    names = [str(v).strip() for v in raw.iloc[row].tolist()]
    seen: dict[str, list[int]] = {}
    for position, col in enumerate(names, start=1):
        seen.setdefault(col, []).append(position)
    repeated = {col: pos for col, pos in seen.items() if len(pos) > 1}
    if repeated:
        where = ", ".join(f"{col!r} (columns {', '.join(map(str, pos))})" for col, pos in repeated.items())
        first = list(repeated)[0]
        raise ValueError(
            f"dataset {entry.dataset!r}: {name} has duplicate column name(s) {where}, which pandas would read as "
            f"new columns ({first + '.1'!r}, ...); give every column its own name in the file, or name the columns "
            f"with datasets.{entry.dataset}.source.read_options.names (every column, in order) and "
            "read_options.header: 0 (the file's header row is then skipped)"
        )


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
    raise ValueError(
        f"dataset {entry.dataset!r}: cannot tell the format of {name} from its extension; set "
        f"datasets.{entry.dataset}.source.format to csv or parquet"
    )


def _download_url(entry: DatasetEntry, url: str, expected: str, download: Mapping[str, Any]) -> tuple[bytes, dict]:
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


def read_file_source(
    entry: DatasetEntry, download: Mapping[str, Any] | None = None
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
            frame = read_csv(io.BytesIO(data), **options)
        else:
            frame = pd.read_parquet(io.BytesIO(data), **options)
    except (ValueError, TypeError, ImportError, OSError, UnicodeDecodeError, pd.errors.ParserError) as exc:
        raise ValueError(
            f"dataset {entry.dataset!r}: cannot read {name} as {fmt} "
            f"(read_options {options}): {type(exc).__name__}: {exc}"
        ) from exc
    if fmt == "csv":
        _check_csv_header(entry, data, options, name)
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
        bunch = fetch(
            **query,
            data_home=data_home,
            target_column=None,
            as_frame=True,
            n_retries=max(1, int(download.get("retries", 3))),
            delay=max(1e-3, float(download.get("backoff_s", 5))),
        )
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
    record = _frame_record(
        frame,
        url or f"openml:{details.get('id', source.get('data_id', source.get('name')))}",
        "SHA-256 of fetch_openml's frame written with DataFrame.to_csv(index=False)",
    )
    if details.get("md5_checksum"):
        record["md5_checksum"] = details["md5_checksum"]
    info = {
        "data_id": details.get("id", source.get("data_id")),
        "name": details.get("name", source.get("name")),
        "version": details.get("version", source.get("version")),
        "url": url,
    }
    return normalize_canonical(entry, frame, label), [record], info
