"""Differences between the tables of two result versions.

``python -m xaipipe.report.diff results/v1 results/v2 [--out diff.csv] [--rtol 1e-9]``
compares every CSV under ``tables/`` present in both versions: rows are matched on
their non-numeric (key) columns, numeric columns are compared value by value.
The output lists every number that changed (beyond ``rtol``/``atol``), with both
values and the absolute and relative change, and a per-table summary.

Noise: a Monte-Carlo or bootstrap estimate changes whenever the random numbers
behind it do (another seed stream, a reordered loop), without its result changing.
Where a table carries the standard error of such an estimate (:func:`noise_se_column`:
the column ``<value>_se``, e.g. ``mr_ratio_se`` of the permutation and ``e_divide``
MR estimators, ``coverage_se``; ``e_switch`` by ``mr_difference_se``; a learner
interval's ``mean`` by its ``se``), a change of at most ``noise_z`` standard errors
of the difference of two independent estimates, ``|b - a| <= noise_z *
sqrt(se_a^2 + se_b^2)``, is listed as ``within_noise``, not as ``changed``; so is
a change of a column that only estimates uncertainty (standard errors, standard
deviations over repeats, interval bounds: :func:`is_uncertainty_column`), as
``uncertainty``. An exact quantity (SE 0, or no SE column) is flagged by any change.

``--all`` checks that two versions are *identical apart from measured times and
provenance* (the test of a refactor): every file under the two folders, CSVs
exactly (``rtol = atol = 0``; the columns :data:`TIME_COLUMNS` are ignored), JSON
files key by key (the keys :data:`PROVENANCE_KEYS` and time keys ignored, at any
depth), pickled result objects field by field (a pickle's bytes name the module
of its class, which a refactor may move; pickled tables without :data:`TIME_COLUMNS`),
every other file (figures, fitted models) by SHA-256. It prints one line
per differing file and exits with status 1 when any differs (:func:`compare_trees`).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from ..config_files import refuse_config_option
from ..io import read_csv

__all__ = ["diff_tables", "diff_versions", "file_difference", "compare_trees", "main"]

#: Measured times: they differ between any two runs.
TIME_COLUMNS = frozenset({"fit_time_s", "predict_time_s", "compute_time_s"})
#: Provenance fields of the JSON sidecars and the manifest: when and where a run happened.
PROVENANCE_KEYS = frozenset(
    {
        "retrieved_at",
        "mirror",
        "path",
        "git",
        "run",
        "started_at",
        "finished_at",
        "created_at",
        "log",
        "host",
        "python",
        "platform",
        "packages",
        "config_sha256",
        "config",
        "command",
        "cores",
        "workdir",
        "xaipipe",
    }
)

DIFF_COLUMNS = ["table", "key", "column", "value_a", "value_b", "abs_diff", "rel_diff", "noise_se", "status"]

#: Value column -> the column of its Monte-Carlo / bootstrap standard error, beyond the
#: ``<value>_se`` convention (:func:`noise_se_column`).
NOISE_SE = {
    # e_switch - e_orig = mr_difference, and e_orig is exact: the same Monte-Carlo error
    "e_switch": "mr_difference_se",
    # learner-PD / learner-PFI intervals: the mean over refits and its corrected SE
    "mean": "se",
}

#: Default number of standard errors within which a change is noise.
NOISE_Z = 3.0


def is_uncertainty_column(column: str) -> bool:
    """Whether a column only estimates uncertainty: a standard error (``se``, ``se_*``,
    ``*_se``), a standard deviation over repeats (``std``, ``*_std``) or an interval bound
    (``ci_low``, ``ci_high`` and their variants)."""
    return (
        column in ("se", "std")
        or column.startswith(("se_", "ci_low", "ci_high"))
        or column.endswith(("_se", "_std", "_se_naive"))
    )


def noise_se_column(column: str, columns) -> str | None:
    """The column holding the Monte-Carlo / bootstrap SE of ``column`` in a table with
    ``columns``, or None: ``<column>_se`` when present, else :data:`NOISE_SE`."""
    columns = set(columns)
    if f"{column}_se" in columns:
        return f"{column}_se"
    se = NOISE_SE.get(column)
    return se if se in columns else None


def _key_columns(frame: pd.DataFrame) -> list[str]:
    return [c for c in frame.columns if not pd.api.types.is_numeric_dtype(frame[c])]


def diff_tables(
    a: pd.DataFrame,
    b: pd.DataFrame,
    *,
    name: str = "",
    rtol: float = 1e-9,
    atol: float = 0.0,
    noise_z: float = NOISE_Z,
) -> pd.DataFrame:
    """Changed numbers between two versions of one table.

    Parameters
    ----------
    a, b : DataFrame
        The same table in version A and version B.
    name : str
        Table name written in the ``table`` column.
    rtol, atol : float
        A value counts as different when ``|b - a| > atol + rtol * |a|`` (or when
        exactly one of them is NaN).
    noise_z : float, default=3.0
        A difference of at most ``noise_z * sqrt(se_a^2 + se_b^2)`` in a column
        with a Monte-Carlo / bootstrap SE column (:func:`noise_se_column`) is
        ``within_noise``; ``0`` flags every difference as ``changed``.

    Returns
    -------
    DataFrame
        Columns ``table``, ``key`` (the key columns' values joined by ``|``),
        ``column``, ``value_a``, ``value_b``, ``abs_diff``, ``rel_diff``
        (``abs_diff / |value_a|``), ``noise_se`` (``sqrt(se_a^2 + se_b^2)``,
        NaN without an SE column), ``status`` (``changed``, ``within_noise``,
        ``uncertainty`` (:func:`is_uncertainty_column`), ``only_in_a``,
        ``only_in_b``, ``column_only_in_a``, ``column_only_in_b``).
    """
    if not (isinstance(noise_z, (int, float)) and noise_z >= 0):
        raise ValueError(f"noise_z must be a number >= 0, got {noise_z!r}")
    keys = [c for c in _key_columns(a) if c in b.columns]
    rows = []
    for col in a.columns.difference(b.columns):
        rows.append({"table": name, "key": "", "column": col, "status": "column_only_in_a"})
    for col in b.columns.difference(a.columns):
        rows.append({"table": name, "key": "", "column": col, "status": "column_only_in_b"})

    def keyed(frame):
        frame = frame.copy()
        frame["_key"] = frame[keys].astype(str).agg("|".join, axis=1) if keys else frame.index.astype(str)
        frame["_n"] = frame.groupby("_key").cumcount()  # duplicates matched in order
        return frame.set_index(["_key", "_n"])

    ka, kb = keyed(a), keyed(b)
    for key in ka.index.difference(kb.index):
        rows.append({"table": name, "key": key[0], "column": "", "status": "only_in_a"})
    for key in kb.index.difference(ka.index):
        rows.append({"table": name, "key": key[0], "column": "", "status": "only_in_b"})
    common = ka.index.intersection(kb.index)
    numeric = [
        c
        for c in a.columns
        if c in b.columns
        and c not in keys
        and pd.api.types.is_numeric_dtype(a[c])
        and pd.api.types.is_numeric_dtype(b[c])
    ]
    for col in numeric:
        va = ka.loc[common, col].to_numpy(dtype=float)
        vb = kb.loc[common, col].to_numpy(dtype=float)
        nan_a, nan_b = np.isnan(va), np.isnan(vb)
        with np.errstate(invalid="ignore"):
            changed = (nan_a != nan_b) | (~nan_a & ~nan_b & (np.abs(vb - va) > atol + rtol * np.abs(va)))
        se_col = noise_se_column(col, set(a.columns) & set(b.columns))
        if se_col is not None and se_col in numeric:
            se = np.hypot(ka.loc[common, se_col].to_numpy(dtype=float), kb.loc[common, se_col].to_numpy(dtype=float))
        else:
            se = np.full(len(common), np.nan)
        uncertainty = is_uncertainty_column(col)
        for i in np.flatnonzero(changed):
            diff = vb[i] - va[i]
            if uncertainty:
                status = "uncertainty"
            elif noise_z > 0 and se[i] > 0 and abs(diff) <= noise_z * se[i]:
                status = "within_noise"
            else:
                status = "changed"
            rows.append(
                {
                    "table": name,
                    "key": common[i][0],
                    "column": col,
                    "value_a": va[i],
                    "value_b": vb[i],
                    "abs_diff": abs(diff),
                    "rel_diff": abs(diff) / abs(va[i]) if va[i] not in (0.0,) else np.inf,
                    "noise_se": se[i],
                    "status": status,
                }
            )
    return pd.DataFrame(rows, columns=DIFF_COLUMNS)


def diff_versions(
    dir_a: str | Path,
    dir_b: str | Path,
    *,
    rtol: float = 1e-9,
    atol: float = 0.0,
    noise_z: float = NOISE_Z,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Compare every ``tables/*.csv`` of two ``results/<version>`` folders.

    Returns
    -------
    (details, summary)
        ``details`` as :func:`diff_tables` (with ``noise_z``); ``summary`` one row
        per table: ``table``, ``in_a``, ``in_b``, ``n_changed`` (flagged changes),
        ``max_abs_diff``, ``max_rel_diff`` (over them), ``n_within_noise``,
        ``n_uncertainty``, ``rows_only_in_a``, ``rows_only_in_b``.

    Raises
    ------
    FileNotFoundError
        If a folder has no ``tables/`` subfolder.
    """
    ta, tb = Path(dir_a) / "tables", Path(dir_b) / "tables"
    for t in (ta, tb):
        if not t.is_dir():
            raise FileNotFoundError(f"{t} does not exist: not a results/<version> folder")
    names = sorted({p.name for p in ta.glob("*.csv")} | {p.name for p in tb.glob("*.csv")})
    details, summary = [], []
    for name in names:
        pa, pb = ta / name, tb / name
        rec = {"table": name, "in_a": pa.is_file(), "in_b": pb.is_file()}
        if rec["in_a"] and rec["in_b"]:
            d = diff_tables(read_csv(pa), read_csv(pb), name=name, rtol=rtol, atol=atol, noise_z=noise_z)
            details.append(d)
            changed = d[d["status"] == "changed"]
            rec.update(
                {
                    "n_changed": len(changed),
                    "max_abs_diff": changed["abs_diff"].max() if len(changed) else 0.0,
                    "max_rel_diff": changed["rel_diff"].max() if len(changed) else 0.0,
                    "n_within_noise": int((d["status"] == "within_noise").sum()),
                    "n_uncertainty": int((d["status"] == "uncertainty").sum()),
                    "rows_only_in_a": int((d["status"] == "only_in_a").sum()),
                    "rows_only_in_b": int((d["status"] == "only_in_b").sum()),
                }
            )
        summary.append(rec)
    details = pd.concat(details, ignore_index=True) if details else pd.DataFrame(columns=DIFF_COLUMNS)
    return details, pd.DataFrame(summary)


def _json_without(obj, drop):
    if isinstance(obj, dict):
        return {k: _json_without(v, drop) for k, v in obj.items() if k not in drop}
    if isinstance(obj, list):
        return [_json_without(v, drop) for v in obj]
    return obj


def _csv_identical(pa: Path, pb: Path) -> str:
    a = read_csv(pa, keep_default_na=False, na_values=[""])
    b = read_csv(pb, keep_default_na=False, na_values=[""])
    a = a.drop(columns=[c for c in a.columns if c in TIME_COLUMNS])
    b = b.drop(columns=[c for c in b.columns if c in TIME_COLUMNS])
    if list(a.columns) != list(b.columns):
        return f"columns differ: {list(a.columns)} vs {list(b.columns)}"
    if a.shape != b.shape:
        return f"shape {a.shape} vs {b.shape}"
    for col in a.columns:
        va, vb = a[col], b[col]
        if pd.api.types.is_numeric_dtype(va) and pd.api.types.is_numeric_dtype(vb):
            x, y = va.to_numpy(dtype=float), vb.to_numpy(dtype=float)
            same = (x == y) | (np.isnan(x) & np.isnan(y))
        else:
            same = ((va.astype(object) == vb.astype(object)) | (va.isna() & vb.isna())).to_numpy(dtype=bool)
        if not same.all():
            i = int(np.flatnonzero(~same)[0])
            return f"column {col!r} differs in {int((~same).sum())} row(s), first row {i}: {va.iloc[i]!r} vs {vb.iloc[i]!r}"
    return ""


def _same_object(a, b) -> bool:
    """Exact equality of loaded results: arrays bitwise, dataclasses and containers field by field."""
    import dataclasses

    if dataclasses.is_dataclass(a) and dataclasses.is_dataclass(b):
        return type(a).__name__ == type(b).__name__ and all(
            _same_object(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a)
        )
    if isinstance(a, pd.DataFrame) and isinstance(b, pd.DataFrame):  # e.g. a cv_shard table
        a, b = (t.drop(columns=[c for c in t.columns if c in TIME_COLUMNS]) for t in (a, b))
        return list(a.columns) == list(b.columns) and list(a.dtypes) == list(b.dtypes) and a.equals(b)
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        return a.shape == b.shape and a.dtype == b.dtype and bool(np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same_object(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same_object(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float) and np.isnan(a) and np.isnan(b):
        return True
    return a == b


def _joblib_identical(pa: Path, pb: Path) -> str:
    """A pickle's bytes name the classes' modules; compare what it holds: a dataclass result
    (e.g. a ShapResult) field by field, arrays bitwise, a table (a ``cv_shard``) or a dict of
    tables (a ``rashomon_refit`` result) without its :data:`TIME_COLUMNS`; anything else
    (fitted models) by its bytes, which already differed; a forest store (a large forest written
    in blocks, :mod:`xaipipe.models.forest_store`) against a store or a pickled forest by the
    forest it holds (:func:`~xaipipe.models.forest_store.forests_equal`)."""
    import dataclasses

    import joblib

    from ..models.forest_store import is_forest_store

    if is_forest_store(pa) or is_forest_store(pb):  # a forest stored in blocks (config large_data)
        from ..io import read_joblib
        from ..models.forest_store import forests_equal

        a, b = read_joblib(pa), read_joblib(pb)
        return (
            "" if hasattr(a, "estimators_") and hasattr(b, "estimators_") and forests_equal(a, b) else "forests differ"
        )
    a, b = joblib.load(pa), joblib.load(pb)
    if (dataclasses.is_dataclass(a) or isinstance(a, (pd.DataFrame, dict))) and _same_object(a, b):
        return ""
    return "pickled objects differ"


def file_difference(pa: str | Path, pb: str | Path) -> str:
    """How two result files differ apart from measured times and provenance ("" when they do not).

    Bytes first; then by kind: a CSV table without :data:`TIME_COLUMNS`, exactly; JSON
    without :data:`PROVENANCE_KEYS` and time keys at any depth; a pickled result object
    (``.joblib``) by what it holds (:func:`_joblib_identical`); anything else (figures,
    fitted models) by SHA-256.

    Parameters
    ----------
    pa, pb : path
        Two existing files of the same kind.

    Returns
    -------
    str
        Empty when equal, else a one-line description of the first difference.
    """
    import hashlib
    import json

    pa, pb = Path(pa), Path(pb)
    if pa.read_bytes() == pb.read_bytes():
        return ""
    name = pa.name
    if name.endswith(".csv"):
        return _csv_identical(pa, pb)
    if name.endswith(".json"):
        drop = PROVENANCE_KEYS | TIME_COLUMNS
        ja = _json_without(json.loads(pa.read_text()), drop)
        jb = _json_without(json.loads(pb.read_text()), drop)
        return "" if ja == jb else "JSON content differs"
    if name.endswith(".joblib"):
        return _joblib_identical(pa, pb)
    ha, hb = (hashlib.sha256(p.read_bytes()).hexdigest()[:12] for p in (pa, pb))
    return f"SHA-256 {ha} vs {hb}"


def compare_trees(dir_a: str | Path, dir_b: str | Path) -> pd.DataFrame:
    """Every file of two ``results/<version>`` folders, identical apart from times and provenance?

    Returns
    -------
    DataFrame
        One row per file present in either folder that differs: ``file``
        (relative path), ``status`` (``only_in_a``, ``only_in_b``, ``differs``) and
        ``detail``. Empty when the versions agree.
    """
    ra, rb = Path(dir_a), Path(dir_b)
    files_a = {p.relative_to(ra).as_posix() for p in ra.rglob("*") if p.is_file()}
    files_b = {p.relative_to(rb).as_posix() for p in rb.rglob("*") if p.is_file()}
    rows = []
    for rel in sorted(files_a | files_b):
        if rel not in files_b:
            rows.append({"file": rel, "status": "only_in_a", "detail": ""})
            continue
        if rel not in files_a:
            rows.append({"file": rel, "status": "only_in_b", "detail": ""})
            continue
        detail = file_difference(ra / rel, rb / rel)
        if detail:
            rows.append({"file": rel, "status": "differs", "detail": detail})
    return pd.DataFrame(rows, columns=["file", "status", "detail"])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m xaipipe.report.diff", description=__doc__.split("\n\n")[0], allow_abbrev=False
    )
    refuse_config_option(parser, "the diff compares two finished results folders and reads no config")
    parser.add_argument("version_a", help="results/<version> folder A (e.g. results/v1)")
    parser.add_argument("version_b", help="results/<version> folder B")
    parser.add_argument("--out", help="write the changed numbers to this CSV")
    parser.add_argument("--rtol", type=float, default=1e-9)
    parser.add_argument("--atol", type=float, default=0.0)
    parser.add_argument(
        "--noise-z",
        type=float,
        default=NOISE_Z,
        help="changes within this many Monte-Carlo / bootstrap SEs are listed as noise (0: flag every change)",
    )
    parser.add_argument(
        "--all",
        action="store_true",
        help="every file, identical apart from measured times and provenance (exit 1 otherwise)",
    )
    args = parser.parse_args(argv)
    if args.all:
        diffs = compare_trees(args.version_a, args.version_b)
        for rec in diffs.itertuples(index=False):
            print(f"{rec.status}: {rec.file} {rec.detail}")
        n = sum(1 for p in Path(args.version_a).rglob("*") if p.is_file())
        print(f"{len(diffs)} of {n} files differ (apart from measured times and provenance)")
        if args.out:
            from ..io import write_csv

            write_csv(args.out, diffs)
        return 1 if len(diffs) else 0
    details, summary = diff_versions(
        args.version_a, args.version_b, rtol=args.rtol, atol=args.atol, noise_z=args.noise_z
    )
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(summary.to_string(index=False))
        flagged = details[details["status"] == "changed"]
        print(f"\n{len(flagged)} changed value(s) beyond the Monte-Carlo / bootstrap noise:")
        if len(flagged):
            print(flagged.drop(columns="status").to_string(index=False, max_rows=60))
        noise = details["status"].isin(["within_noise", "uncertainty"])
        print(
            f"within noise: {int((details['status'] == 'within_noise').sum())} value(s) within "
            f"{args.noise_z:g} SE, {int((details['status'] == 'uncertainty').sum())} uncertainty estimate(s) "
            f"(SEs, SDs, interval bounds); {int(noise.sum())} in all, listed with --out"
        )
    if args.out:
        from ..io import write_csv

        write_csv(args.out, details)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
