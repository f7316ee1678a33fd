"""result_differences (tests/workflow/conftest.py): two result folders compared byte for byte
apart from measured times and provenance."""

from __future__ import annotations

import json

from .conftest import result_differences


def _write(root, files):
    for name, data in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data if isinstance(data, bytes) else data.encode())


def test_times_and_provenance_are_ignored_everything_else_counts(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    common = {"figures/x.png": b"\x89PNG same"}
    _write(
        a,
        {
            **common,
            "models/cv.csv": "config_id,rmse,fit_time_s\nc1,1.5,0.25\n",
            "models/test.json": json.dumps({"rmse": 1.5, "fit_time_s": 0.2, "params": {"k": 1}}),
            "data/canonical.json": json.dumps({"sha": "x", "retrieved_at": "2026-11-23T10:00:00"}),
            "manifest.json": json.dumps({"git": {"commit": "a"}}),
        },
    )
    _write(
        b,
        {
            **common,
            "models/cv.csv": "config_id,rmse,fit_time_s\nc1,1.5,0.31\n",
            "models/test.json": json.dumps({"fit_time_s": 0.9, "params": {"k": 1}, "rmse": 1.5}),
            "data/canonical.json": json.dumps({"sha": "x", "retrieved_at": "2026-11-23T11:00:00"}),
            "manifest.json": json.dumps({"git": {"commit": "b"}}),
        },
    )
    assert result_differences(a, b) == []
    # a number, a figure byte, a missing file: each is a difference
    _write(
        b,
        {
            "models/cv.csv": "config_id,rmse,fit_time_s\nc1,1.50000001,0.31\n",
            "figures/x.png": b"\x89PNG diff",
            "tables/extra.csv": "a\n1\n",
        },
    )
    (a / "data" / "canonical.json").write_text(json.dumps({"sha": "y", "retrieved_at": "2026-11-23T10:00:00"}))
    assert result_differences(a, b) == [
        f"only in {b}: tables/extra.csv",
        "differs: data/canonical.json",
        "differs: figures/x.png",
        "differs: models/cv.csv",
    ]
    # a CSV without timing columns is compared byte for byte (a reformatted number differs)
    _write(a, {"tables/t.csv": "k,v\na,1.0\n"})
    _write(b, {"tables/t.csv": "k,v\na,1.00\n", "tables/extra.csv": ""})
    (b / "tables" / "extra.csv").unlink()
    assert "differs: tables/t.csv" in result_differences(a, b)
