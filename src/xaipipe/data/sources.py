"""The six datasets: where they come from and their canonical tables.

Dataset identifiers (used everywhere): ``airfoil``, ``concrete``,
``wine_quality``, ``abalone``, ``diabetes``, ``breast_cancer``.

Two ways in, one canonical table per dataset:

* **ucimlrepo** (default): :func:`fetch_uci` wraps
  :func:`ucimlrepo.fetch_ucirepo` with a socket timeout, retries with
  exponential back-off, an on-disk cache, and one clear error that names the
  ``uci_mirror`` config option. Diabetes is not a UCI dataset: it is read from
  scikit-learn's bundled unscaled copy (checksummed like a mirror file).
* **mirror** (config ``uci_mirror``): the original UCI files are read from a
  folder laid out like ``shared/data/uci`` and verified against the SHA-256
  values of ``config/sources.yaml`` (:class:`ChecksumError` names the file, the
  expected and the actual hash).

The canonical table has the UCI variable names as columns (``frequency``,
``attack-angle``, ``Cement``, ``fixed_acidity``, ``Whole_weight``, ``Rings``, ...):
ID columns first, then features, then the target, then "other" columns (Wine's
``color``). Numeric columns are float64, categorical ones strings, IDs int64.
Wine Quality holds both colours, red rows first (file order) then white rows,
with a ``color`` column; the variant (white / red / both) is chosen in
preparation.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import socket
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

import numpy as np
import pandas as pd
import yaml

from ..io import sha256_bytes

__all__ = [
    "DATASETS",
    "DatasetSource",
    "ChecksumError",
    "DownloadError",
    "load_sources",
    "canonical_columns",
    "read_mirror",
    "canonical_from_ucimlrepo",
    "fetch_uci",
    "load_canonical",
    "canonical_sha256",
    "canonical_to_csv_bytes",
    "read_canonical",
]

DATASETS = ("airfoil", "concrete", "wine_quality", "abalone", "diabetes", "breast_cancer")


class ChecksumError(ValueError):
    """A mirror file is missing, truncated or altered (SHA-256 mismatch)."""


class DownloadError(RuntimeError):
    """``ucimlrepo`` could not deliver a dataset (no network, timeout, server error)."""


@dataclass(frozen=True)
class DatasetSource:
    """Source metadata of one dataset (one entry of ``config/sources.yaml``)."""

    dataset: str
    name: str
    uci_id: int | None
    task: str
    target: str
    doi: str
    citation: str
    files: tuple[dict, ...] = field(default_factory=tuple)


def load_sources(path: str | os.PathLike) -> dict[str, DatasetSource]:
    """Read ``config/sources.yaml``.

    Raises
    ------
    ValueError
        If the file lists an unknown dataset or lacks a required key (the
        message names the file and the key).
    """
    raw = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {}
    out = {}
    for name, entry in raw.items():
        if name not in DATASETS:
            raise ValueError(f"{path}: unknown dataset {name!r}; known: {list(DATASETS)}")
        try:
            out[name] = DatasetSource(
                dataset=name,
                name=entry["name"],
                uci_id=entry.get("uci_id"),
                task=entry["task"],
                target=entry["target"],
                doi=entry["doi"],
                citation=" ".join(str(entry["citation"]).split()),
                files=tuple(dict(f) for f in entry["files"]),
            )
        except KeyError as exc:
            raise ValueError(f"{path}: dataset {name!r} lacks key {exc.args[0]!r}") from None
    return out


# --------------------------------------------------------------------------- #
# Canonical column layout
# --------------------------------------------------------------------------- #
_BC_BASE = [
    "radius", "texture", "perimeter", "area", "smoothness", "compactness",
    "concavity", "concave_points", "symmetry", "fractal_dimension",
]
_LAYOUT: dict[str, dict[str, list[str]]] = {
    "airfoil": {
        "id": [],
        "features": ["frequency", "attack-angle", "chord-length", "free-stream-velocity",
                     "suction-side-displacement-thickness"],
        "target": ["scaled-sound-pressure"],
        "other": [],
        "categorical": [],
    },
    "concrete": {
        "id": [],
        "features": ["Cement", "Blast Furnace Slag", "Fly Ash", "Water", "Superplasticizer",
                     "Coarse Aggregate", "Fine Aggregate", "Age"],
        "target": ["Concrete compressive strength"],
        "other": [],
        "categorical": [],
    },
    "wine_quality": {
        "id": [],
        "features": ["fixed_acidity", "volatile_acidity", "citric_acid", "residual_sugar",
                     "chlorides", "free_sulfur_dioxide", "total_sulfur_dioxide", "density", "pH",
                     "sulphates", "alcohol"],
        "target": ["quality"],
        "other": ["color"],
        "categorical": ["color"],
    },
    "abalone": {
        "id": [],
        "features": ["Sex", "Length", "Diameter", "Height", "Whole_weight", "Shucked_weight",
                     "Viscera_weight", "Shell_weight"],
        "target": ["Rings"],
        "other": [],
        "categorical": ["Sex"],
    },
    "diabetes": {
        "id": [],
        "features": ["AGE", "SEX", "BMI", "BP", "S1", "S2", "S3", "S4", "S5", "S6"],
        "target": ["Y"],
        "other": [],
        "categorical": [],
    },
    "breast_cancer": {
        "id": ["ID"],
        "features": [f"{b}{i}" for i in (1, 2, 3) for b in _BC_BASE],
        "target": ["Diagnosis"],
        "other": [],
        "categorical": ["Diagnosis"],
    },
}


def canonical_columns(dataset: str) -> dict[str, list[str]]:
    """Column roles of the canonical table: keys ``id``, ``features``,
    ``target``, ``other``, ``categorical`` (lists of column names)."""
    _check_dataset(dataset)
    return {k: list(v) for k, v in _LAYOUT[dataset].items()}


def _check_dataset(dataset: str) -> None:
    if dataset not in _LAYOUT:
        raise ValueError(f"unknown dataset {dataset!r}; known datasets: {list(DATASETS)}")


def _normalize(dataset: str, frame: pd.DataFrame) -> pd.DataFrame:
    """Order columns and fix dtypes of a canonical table."""
    lay = _LAYOUT[dataset]
    order = lay["id"] + lay["features"] + lay["target"] + lay["other"]
    missing = [c for c in order if c not in frame.columns]
    if missing:
        raise ValueError(f"dataset {dataset!r}: source table lacks columns {missing}")
    out = frame[order].copy()
    for col in order:
        if col in lay["categorical"]:
            out[col] = out[col].astype(str).str.strip()
        elif col in lay["id"]:
            out[col] = out[col].astype("int64")
        else:
            out[col] = pd.to_numeric(out[col], errors="raise").astype("float64")
    if dataset == "wine_quality":
        # red first, then white, each in file order (stable sort)
        rank = out["color"].map({"red": 0, "white": 1})
        if rank.isna().any():
            raise ValueError(f"dataset 'wine_quality': unexpected color values {sorted(out['color'].unique())}")
        out = out.iloc[np.argsort(rank.to_numpy(), kind="stable")]
    return out.reset_index(drop=True)


# --------------------------------------------------------------------------- #
# Mirror path
# --------------------------------------------------------------------------- #
def _verified_bytes(path: Path, spec: Mapping[str, Any], dataset: str) -> bytes:
    if not path.is_file():
        raise ChecksumError(
            f"dataset {dataset!r}: mirror file {path} does not exist "
            f"(expected SHA-256 {spec['sha256']}); check the config key uci_mirror"
        )
    data = path.read_bytes()
    actual = sha256_bytes(data)
    if actual != spec["sha256"]:
        raise ChecksumError(
            f"dataset {dataset!r}: checksum mismatch for {path}: expected SHA-256 "
            f"{spec['sha256']}, got {actual} ({len(data)} bytes, expected {spec.get('bytes', '?')}); "
            "the file is truncated or altered"
        )
    return data


def _parse_files(dataset: str, blobs: dict[str, bytes]) -> pd.DataFrame:
    """Parse the original files (``{relative path: bytes}``) of ``dataset``."""
    lay = _LAYOUT[dataset]
    if dataset == "airfoil":
        (data,) = blobs.values()
        frame = pd.read_csv(io.BytesIO(data), sep=r"\s+", header=None, names=lay["features"] + lay["target"])
    elif dataset == "concrete":
        (data,) = blobs.values()
        import warnings

        with warnings.catch_warnings():
            # The original file is legacy BIFF8 Excel; xlrd reads it exactly (pandas 3.1
            # deprecates the engine in favour of calamine, an extra dependency).
            warnings.filterwarnings("ignore", message="The xlrd engine is deprecated")
            frame = pd.read_excel(io.BytesIO(data), engine="xlrd", sheet_name=0)
        if frame.shape[1] != 9:
            raise ValueError(f"dataset 'concrete': expected 9 columns in Sheet1, got {frame.shape[1]}")
        frame.columns = lay["features"] + lay["target"]
    elif dataset == "wine_quality":
        parts = []
        for color in ("red", "white"):
            (data,) = [b for p, b in blobs.items() if p.endswith(f"winequality-{color}.csv")]
            part = pd.read_csv(io.BytesIO(data), sep=";")
            part.columns = [c.strip().replace(" ", "_") for c in part.columns]
            part["color"] = color
            parts.append(part)
        frame = pd.concat(parts, ignore_index=True)
    elif dataset == "abalone":
        (data,) = blobs.values()
        frame = pd.read_csv(io.BytesIO(data), header=None, names=lay["features"] + lay["target"])
    elif dataset == "breast_cancer":
        (data,) = blobs.values()
        frame = pd.read_csv(io.BytesIO(data), header=None, names=lay["id"] + lay["target"] + lay["features"])
    elif dataset == "diabetes":
        (raw,) = [b for p, b in blobs.items() if p.endswith("diabetes_data_raw.csv.gz")]
        (tgt,) = [b for p, b in blobs.items() if p.endswith("diabetes_target.csv.gz")]
        X = np.loadtxt(gzip.open(io.BytesIO(raw)))
        y = np.loadtxt(gzip.open(io.BytesIO(tgt)))
        frame = pd.DataFrame(X, columns=lay["features"])
        frame[lay["target"][0]] = y
    else:  # pragma: no cover - guarded by _check_dataset
        raise AssertionError(dataset)
    return _normalize(dataset, frame)


def read_mirror(source: DatasetSource, mirror: str | os.PathLike) -> tuple[pd.DataFrame, list[dict]]:
    """Read and verify one dataset's original files from a mirror folder.

    Parameters
    ----------
    source : DatasetSource
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
    """
    _check_dataset(source.dataset)
    root = Path(mirror)
    blobs, records = {}, []
    for spec in source.files:
        path = root / spec["path"]
        data = _verified_bytes(path, spec, source.dataset)
        blobs[spec["path"]] = data
        records.append({"path": str(path.resolve()), "sha256": spec["sha256"], "bytes": len(data)})
    return _parse_files(source.dataset, blobs), records


def _sklearn_diabetes(source: DatasetSource) -> tuple[pd.DataFrame, list[dict]]:
    """Diabetes from scikit-learn's bundled copy, checksummed like a mirror file."""
    from importlib import resources

    base = resources.files("sklearn.datasets") / "data"
    blobs, records = {}, []
    for spec in source.files:
        path = Path(str(base / Path(spec["path"]).name))
        data = _verified_bytes(path, spec, source.dataset)
        blobs[spec["path"]] = data
        records.append({"path": str(path), "sha256": spec["sha256"], "bytes": len(data)})
    return _parse_files("diabetes", blobs), records


# --------------------------------------------------------------------------- #
# ucimlrepo path
# --------------------------------------------------------------------------- #
def canonical_from_ucimlrepo(dataset: str, original: pd.DataFrame, roles: Mapping[str, str]) -> pd.DataFrame:
    """Canonical table from what :func:`ucimlrepo.fetch_ucirepo` returns.

    Parameters
    ----------
    dataset : str
    original : DataFrame
        ``result.data.original`` (every variable, UCI names).
    roles : mapping
        Variable name -> role (``ID``, ``Feature``, ``Target``, ``Other``) from
        ``result.variables``; used to check that the target is where we expect.
    """
    _check_dataset(dataset)
    lay = _LAYOUT[dataset]
    target = lay["target"][0]
    if roles and roles.get(target, "Target") != "Target":
        raise ValueError(
            f"dataset {dataset!r}: ucimlrepo lists {target!r} with role {roles.get(target)!r}, expected 'Target'"
        )
    frame = original.copy()
    frame.columns = [str(c).strip() for c in frame.columns]
    return _normalize(dataset, frame)


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
    source: DatasetSource,
    *,
    mirror: str | os.PathLike | None = None,
    download: Mapping[str, Any] | None = None,
    fetch: Callable[[int], Any] | None = None,
) -> tuple[pd.DataFrame, dict]:
    """Canonical table and sidecar metadata of one dataset.

    Parameters
    ----------
    source : DatasetSource
    mirror : path, optional
        When non-empty, read the original files from this mirror folder.
    download : mapping, optional
        ``timeout_s``, ``retries``, ``backoff_s``, ``cache_dir`` for :func:`fetch_uci`.
    fetch : callable, optional
        Replacement for the network call (tests).

    Returns
    -------
    (table, sidecar)
        The sidecar holds: ``dataset``, ``name``, ``source`` (``uci_mirror``,
        ``ucimlrepo`` or ``scikit-learn``), ``uci_id``, ``doi``, ``citation``,
        ``task``, ``target``, column roles and dtypes, ``raw`` (SHA-256 and size
        of the raw data), ``canonical_sha256``, ``n_rows``, ``n_columns``,
        ``retrieved_at`` (UTC, ISO 8601).
    """
    download = dict(download or {})
    if mirror:
        frame, raw = read_mirror(source, mirror)
        origin, extra = "uci_mirror", {"mirror": str(Path(mirror).resolve())}
    elif source.uci_id is None:
        frame, raw = _sklearn_diabetes(source)
        origin, extra = "scikit-learn", {}
    else:
        original, roles, info = fetch_uci(
            source.dataset,
            int(source.uci_id),
            timeout_s=float(download.get("timeout_s", 60)),
            retries=int(download.get("retries", 3)),
            backoff_s=float(download.get("backoff_s", 5)),
            cache_dir=download.get("cache_dir") or None,
            fetch=fetch,
        )
        frame = canonical_from_ucimlrepo(source.dataset, original, roles)
        raw_bytes = original.to_csv(index=False, lineterminator="\n").encode("utf-8")
        raw = [{"path": info.get("data_url") or f"ucimlrepo:{source.uci_id}",
                "sha256": sha256_bytes(raw_bytes), "bytes": len(raw_bytes),
                "note": "SHA-256 of ucimlrepo's data.original written with DataFrame.to_csv(index=False)"}]
        origin, extra = "ucimlrepo", {"ucimlrepo": info}
    lay = _LAYOUT[source.dataset]
    sidecar = {
        "dataset": source.dataset,
        "name": source.name,
        "source": origin,
        "uci_id": source.uci_id,
        "doi": source.doi,
        "citation": source.citation,
        "task": source.task,
        "target": source.target,
        "id_columns": lay["id"],
        "feature_columns": lay["features"],
        "other_columns": lay["other"],
        "columns": [{"name": c, "dtype": str(frame[c].dtype)} for c in frame.columns],
        "raw": raw,
        "canonical_sha256": canonical_sha256(frame),
        "n_rows": int(frame.shape[0]),
        "n_columns": int(frame.shape[1]),
        "retrieved_at": pd.Timestamp.now(tz="UTC").isoformat(timespec="seconds"),
        **extra,
    }
    return frame, sidecar
