"""Atomic file output and small readers shared by every step.

Every writer in the package goes through :func:`atomic_path`: the content is
written to a temporary file outside ``results/`` (in ``$XAIPIPE_TMPDIR`` or
``.tmp/`` under the working directory, which is on the same file system) and
moved into place with :func:`os.replace`. A job killed mid-write therefore never
leaves a truncated file under ``results/``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

__all__ = [
    "atomic_path",
    "write_json",
    "read_json",
    "write_csv",
    "read_csv",
    "csv_read_options",
    "write_joblib",
    "read_joblib",
    "open_model",
    "sha256_file",
    "sha256_bytes",
    "to_jsonable",
    "with_ids",
]


def _tmp_root(target: Path) -> Path:
    root = os.environ.get("XAIPIPE_TMPDIR")
    if root:
        return Path(root)
    return Path.cwd() / ".tmp"


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary path; on success move it onto ``path`` atomically.

    Parameters
    ----------
    path : str or path-like
        Final destination. Its parent directories are created.

    Yields
    ------
    pathlib.Path
        Temporary file to write to (same suffix as ``path`` so that writers that
        infer the format from the suffix, e.g. matplotlib, keep working).

    Notes
    -----
    If the body raises, the temporary file is removed and ``path`` is left
    untouched. When the temporary directory is on another file system than
    ``path`` the move falls back to copy-then-rename in the destination
    directory's parent temp folder, which is still atomic for readers.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    root = _tmp_root(target)
    root.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=target.stem + ".", suffix=target.suffix, dir=root)
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        try:
            os.replace(tmp_path, target)
        except OSError:  # cross-device: copy next to the target under a hidden name
            import shutil

            with tempfile.NamedTemporaryFile(dir=target.parent, prefix="." + target.name + ".", delete=False) as fh:
                side = Path(fh.name)
            shutil.copyfile(tmp_path, side)
            os.replace(side, target)
            tmp_path.unlink(missing_ok=True)
    except BaseException:
        tmp_path.unlink(missing_ok=True)
        raise


def to_jsonable(obj: Any) -> Any:
    """Convert numpy / pandas scalars and containers to plain JSON types.

    Non-finite floats become ``None`` so that the output is strict JSON.
    """
    if isinstance(obj, dict):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return to_jsonable(obj.tolist())
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, (np.floating, float)):
        value = float(obj)
        return value if math.isfinite(value) else None
    if isinstance(obj, (np.bool_,)):
        return bool(obj)
    if isinstance(obj, Path):
        return str(obj)
    if isinstance(obj, pd.Timestamp):
        return obj.isoformat()
    return obj


def write_json(path: str | os.PathLike, obj: Any) -> None:
    """Write ``obj`` as indented, key-sorted UTF-8 JSON, atomically."""
    text = json.dumps(to_jsonable(obj), indent=2, sort_keys=True, ensure_ascii=False)
    with atomic_path(path) as tmp:
        tmp.write_text(text + "\n", encoding="utf-8")


def read_json(path: str | os.PathLike) -> Any:
    """Read a JSON file; the error names the file when it is not valid JSON."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not valid JSON ({exc})") from exc


def write_csv(path: str | os.PathLike, frame: pd.DataFrame, **kwargs: Any) -> None:
    """Write a data frame as CSV atomically with a fixed float format.

    ``float_format="%.17g"`` round-trips every double exactly, so that two runs
    with the same inputs give byte-identical tables.
    """
    kwargs.setdefault("index", False)
    kwargs.setdefault("float_format", "%.17g")
    kwargs.setdefault("lineterminator", "\n")
    with atomic_path(path) as tmp:
        frame.to_csv(tmp, **kwargs)


#: pandas' major version: before 3 its C parser's default float conversion is not exact
PANDAS_MAJOR = int(pd.__version__.split(".")[0])


def csv_read_options(pandas_major: int = PANDAS_MAJOR, **kwargs: Any) -> dict:
    """``kwargs`` for :func:`pandas.read_csv` with every decimal string parsed to the nearest double.

    pandas 2.x's C parser converts with its own ``precise_xstrtod`` by default, which misses the
    correctly rounded double by one ulp on many 17-digit strings (47 % of ``"%.17g"`` strings of
    random doubles under pandas 2.2.3, none under 3.1.1); pandas 3's default is exact (and
    deprecates ``float_precision``). Under pandas < 3 the C engine is therefore given
    ``float_precision="round_trip"`` (CPython's correctly rounded ``PyOS_string_to_double``), so
    that a table reads to the same doubles under every pandas that ``pyproject.toml`` allows, and
    :func:`write_csv`'s ``"%.17g"`` round-trips. The Python engine (``engine="python"``, or a
    separator that is a regular expression other than ``\\s+``) and pyarrow parse exactly already
    and take no ``float_precision``. A ``float_precision`` given in ``kwargs`` is kept.
    """
    out = dict(kwargs)
    if pandas_major >= 3:
        return out
    engine = out.get("engine")
    sep = out.get("sep", out.get("delimiter"))
    regex_sep = isinstance(sep, str) and len(sep) > 1 and sep != r"\s+"
    if engine in (None, "c") and not regex_sep:
        out.setdefault("float_precision", "round_trip")
    return out


def read_csv(path: str | os.PathLike | Any, **kwargs: Any) -> pd.DataFrame:
    """:func:`pandas.read_csv` with exact float parsing under every supported pandas.

    The one reader of CSV text in the package and the workflow's scripts (result tables, prepared
    data, a user's or a mirror's raw files; ``tests/test_io.py`` checks that no other module calls
    :func:`pandas.read_csv`): ``path`` is anything pandas reads (a path, a buffer), ``kwargs`` its
    options, completed by :func:`csv_read_options`.
    """
    return pd.read_csv(path, **csv_read_options(**kwargs))


def write_joblib(path: str | os.PathLike, obj: Any, compress: int = 3) -> None:
    """Pickle ``obj`` with joblib (zlib ``compress`` level) atomically."""
    import joblib

    with atomic_path(path) as tmp:
        joblib.dump(obj, tmp, compress=compress)


def read_joblib(path: str | os.PathLike) -> Any:
    """Load an object written by :func:`write_joblib`, or the whole forest of a forest store
    (:func:`xaipipe.models.forest_store.load_forest`: a large forest written in blocks of trees)."""
    import joblib

    from .models.forest_store import is_forest_store, load_forest

    if is_forest_store(path):
        return load_forest(path)
    return joblib.load(path)


def open_model(path: str | os.PathLike) -> Any:
    """A fitted model file for a job that only predicts (and TreeSHAP over sub-forests): a forest
    store opened lazily (:func:`xaipipe.models.forest_store.open_forest`: one block of trees in
    memory, predictions bitwise those of the whole forest), anything else as :func:`read_joblib`."""
    from .models.forest_store import is_forest_store, open_forest

    if is_forest_store(path):
        return open_forest(path)
    return read_joblib(path)


def sha256_bytes(data: bytes) -> str:
    """Hex SHA-256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: str | os.PathLike, chunk_size: int = 1 << 20) -> str:
    """Hex SHA-256 of a file, read in chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(chunk_size), b""):
            digest.update(block)
    return digest.hexdigest()


def with_ids(frame: pd.DataFrame, **ids: Any) -> pd.DataFrame:
    """``frame`` with constant identifier columns (e.g. ``dataset``, ``model``) first, in the given order.

    Existing columns of the same names are replaced. Returns a new frame.
    """
    out = frame.drop(columns=[k for k in ids if k in frame.columns])
    for pos, (name, value) in enumerate(ids.items()):
        out.insert(pos, name, value)
    return out
