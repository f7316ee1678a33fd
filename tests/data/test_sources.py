"""Dataset sources: the verified mirror, the ucimlrepo path (offline, loopback
stand-in of the UCI API), checksum and download errors."""

from __future__ import annotations

import json
import shutil
import socket
import time
from urllib.parse import parse_qs, urlparse

import numpy as np
import pandas as pd
import pytest

from tests.conftest import REPO
from tests.conftest import THESIS_DATASETS as DATASETS
from tests.data._loopback import LoopbackServer
from xaipipe.data.sources import (
    ChecksumError,
    DownloadError,
    canonical_sha256,
    fetch_uci,
    load_canonical,
    read_canonical,
    read_mirror,
)
from xaipipe.io import write_json


def canonical_columns(dataset):
    """Column roles of a dataset's registry entry (config/datasets.yaml)."""
    from xaipipe.data.registry import load_registry

    e = load_registry(REPO / "config" / "datasets.yaml")[dataset]
    return {
        "id": list(e.id_columns),
        "features": list(e.feature_columns),
        "target": [e.target],
        "other": list(e.other_columns),
    }


EXPECTED_SHAPES = {
    "airfoil": (1503, 6),
    "concrete": (1030, 9),
    "wine_quality": (6497, 13),
    "abalone": (4177, 9),
    "diabetes": (442, 11),
    "breast_cancer": (569, 32),
}


# --------------------------------------------------------------------------- #
# Mirror path
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("dataset", DATASETS)
def test_mirror_canonical_tables(canonical, dataset):
    frame, sidecar = canonical[dataset]
    assert frame.shape == EXPECTED_SHAPES[dataset]
    assert (sidecar["n_rows"], sidecar["n_columns"]) == EXPECTED_SHAPES[dataset]
    lay = canonical_columns(dataset)
    assert list(frame.columns) == lay["id"] + lay["features"] + lay["target"] + lay["other"]
    assert sidecar["target"] == lay["target"][0]
    assert sidecar["source"] == ("scikit-learn" if dataset == "diabetes" else "uci_mirror")
    assert sidecar["canonical_sha256"] == canonical_sha256(frame)
    assert all(len(r["sha256"]) == 64 for r in sidecar["raw"])
    assert not frame.isna().any().any()


def test_known_first_rows(canonical):
    air = canonical["airfoil"][0].iloc[0].tolist()
    assert air == [800, 0, 0.3048, 71.3, 0.00266337, 126.201]
    conc = canonical["concrete"][0].iloc[0]
    assert conc["Cement"] == 540 and conc["Age"] == 28
    assert conc["Concrete compressive strength"] == pytest.approx(79.98611076, abs=1e-8)
    wine = canonical["wine_quality"][0]
    assert (wine["color"] == "red").sum() == 1599 and (wine["color"] == "white").sum() == 4898
    assert wine.iloc[0]["fixed_acidity"] == 7.4  # red first
    assert wine[wine["color"] == "white"].iloc[0]["residual_sugar"] == 20.7
    aba = canonical["abalone"][0]
    assert aba["Sex"].value_counts().to_dict() == {"M": 1528, "I": 1342, "F": 1307}
    bc = canonical["breast_cancer"][0]
    assert bc["Diagnosis"].value_counts().to_dict() == {"B": 357, "M": 212}
    assert bc.iloc[0]["ID"] == 842302 and bc.iloc[0]["radius1"] == 17.99
    dia = canonical["diabetes"][0]
    assert dia.iloc[0].tolist() == [59, 2, 32.1, 101, 157, 93.2, 38, 4, 4.8598, 87, 151]


def test_breast_cancer_matches_sklearn_bundle(canonical):
    from sklearn.datasets import load_breast_cancer

    frame = canonical["breast_cancer"][0]
    X, y = load_breast_cancer(return_X_y=True)
    features = canonical_columns("breast_cancer")["features"]
    np.testing.assert_array_equal(frame[features].to_numpy(), X)
    np.testing.assert_array_equal((frame["Diagnosis"] == "B").astype(int).to_numpy(), y)


def test_diabetes_without_mirror_uses_sklearn_copy(canonical, registry):
    frame, sidecar = load_canonical(registry["diabetes"])
    assert sidecar["source"] == "scikit-learn"
    pd.testing.assert_frame_equal(frame, canonical["diabetes"][0])


def test_canonical_csv_roundtrip(canonical, tmp_path):
    for dataset in ("abalone", "breast_cancer", "wine_quality"):
        frame, sidecar = canonical[dataset]
        path = tmp_path / f"{dataset}.csv"
        frame.to_csv(path, index=False, float_format="%.17g", lineterminator="\n")
        back = read_canonical(path, sidecar)
        pd.testing.assert_frame_equal(back, frame)
        assert canonical_sha256(back) == sidecar["canonical_sha256"]


def _copy_mirror(mirror, tmp_path, dataset, registry):
    dst = tmp_path / "mirror"
    for spec in registry[dataset].files:
        target = dst / spec["path"]
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(mirror / spec["path"], target)
    return dst


def test_truncated_mirror_file_names_file_and_hashes(mirror, registry, tmp_path):
    dst = _copy_mirror(mirror, tmp_path, "abalone", registry)
    path = dst / "abalone" / "abalone.data"
    path.write_bytes(path.read_bytes()[:-100])
    with pytest.raises(ChecksumError) as info:
        read_mirror(registry["abalone"], dst)
    msg = str(info.value)
    assert str(path) in msg
    assert registry["abalone"].files[0]["sha256"] in msg
    import hashlib

    assert hashlib.sha256(path.read_bytes()).hexdigest() in msg


def test_corrupt_mirror_file_same_size(mirror, registry, tmp_path):
    dst = _copy_mirror(mirror, tmp_path, "airfoil", registry)
    path = dst / "airfoil-self-noise" / "airfoil_self_noise.dat"
    data = bytearray(path.read_bytes())
    data[10] = ord("9") if data[10] != ord("9") else ord("8")
    path.write_bytes(bytes(data))
    with pytest.raises(ChecksumError, match="checksum mismatch"):
        read_mirror(registry["airfoil"], dst)


def test_missing_mirror_file(registry, tmp_path):
    with pytest.raises(ChecksumError, match="does not exist.*uci_mirror"):
        read_mirror(registry["concrete"], tmp_path)


# --------------------------------------------------------------------------- #
# ucimlrepo path against a loopback stand-in of the UCI API
# --------------------------------------------------------------------------- #
def _uci_frame(dataset: str, frame: pd.DataFrame) -> tuple[pd.DataFrame, list[dict]]:
    """What UCI serves: the table with UCI variable names, plus variable roles."""
    lay = canonical_columns(dataset)
    served = frame.copy()
    if dataset == "wine_quality":  # serve white first to check the canonical re-ordering
        served = pd.concat([served[served.color == "white"], served[served.color == "red"]])
    if dataset == "breast_cancer":
        served = served[lay["id"] + lay["target"] + lay["features"]]
    for col in served.columns:  # integer-valued columns come as integers in UCI's CSV
        if served[col].dtype == float and np.all(served[col] == np.round(served[col])):
            served[col] = served[col].astype(int)
    roles = (
        [{"name": c, "role": "ID", "type": "Integer"} for c in lay["id"]]
        + [{"name": c, "role": "Feature", "type": "Continuous"} for c in lay["features"]]
        + [{"name": c, "role": "Target", "type": "Continuous"} for c in lay["target"]]
        + [{"name": c, "role": "Other", "type": "Categorical"} for c in lay["other"]]
    )
    return served, roles


class _FakeUCI(LoopbackServer):
    """Loopback server answering like archive.ics.uci.edu's API."""

    def __init__(self, tables: dict[int, tuple[pd.DataFrame, list[dict]]], delay: float = 0.0):
        self.tables = tables
        super().__init__(delay)

    def respond(self, path):
        url = urlparse(path)
        if url.path == "/api/dataset":
            uci_id = int(parse_qs(url.query)["id"][0])
            frame, roles = self.tables[uci_id]
            body = json.dumps(
                {
                    "status": 200,
                    "data": {
                        "uci_id": uci_id,
                        "name": f"dataset {uci_id}",
                        "data_url": f"{self.base}/static/public/{uci_id}/data.csv",
                        "variables": roles,
                        "additional_info": None,
                        "intro_paper": None,
                    },
                }
            ).encode()
            return body, "application/json"
        if url.path.startswith("/static/public/"):
            uci_id = int(url.path.split("/")[3])
            return self.tables[uci_id][0].to_csv(index=False).encode(), "text/csv"
        return None


@pytest.fixture()
def fake_uci(canonical, registry, monkeypatch):
    import ucimlrepo.fetch

    tables = {registry[d].uci_id: _uci_frame(d, canonical[d][0]) for d in DATASETS if registry[d].uci_id is not None}
    with _FakeUCI(tables) as server:
        monkeypatch.setattr(ucimlrepo.fetch, "API_BASE_URL", f"{server.base}/api/dataset")
        yield server


@pytest.mark.parametrize("dataset", [d for d in DATASETS if d != "diabetes"])
def test_ucimlrepo_path_gives_the_mirror_table(fake_uci, canonical, registry, dataset, tmp_path):
    frame, sidecar = load_canonical(registry[dataset], download={"retries": 1, "timeout_s": 10})
    assert sidecar["source"] == "ucimlrepo"
    assert sidecar["ucimlrepo"]["ucimlrepo_version"]
    pd.testing.assert_frame_equal(frame, canonical[dataset][0])
    assert sidecar["canonical_sha256"] == canonical[dataset][1]["canonical_sha256"]


def test_ucimlrepo_cache_is_reused(fake_uci, registry, tmp_path):
    cache = tmp_path / "cache"
    download = {"retries": 1, "timeout_s": 10, "cache_dir": str(cache)}
    first, side1 = load_canonical(registry["airfoil"], download=download)
    hits = fake_uci.hits
    assert hits == 2  # API metadata + data CSV
    second, side2 = load_canonical(registry["airfoil"], download=download)
    assert fake_uci.hits == hits
    assert side2["ucimlrepo"]["cached"] is True
    pd.testing.assert_frame_equal(first, second)


def test_timeout_then_clear_error(canonical, registry, monkeypatch):
    import ucimlrepo.fetch

    tables = {291: _uci_frame("airfoil", canonical["airfoil"][0])}
    with _FakeUCI(tables, delay=2.0) as server:
        monkeypatch.setattr(ucimlrepo.fetch, "API_BASE_URL", f"{server.base}/api/dataset")
        t0 = time.perf_counter()
        with pytest.raises(DownloadError) as info:
            fetch_uci("airfoil", 291, timeout_s=0.3, retries=2, backoff_s=0)
        elapsed = time.perf_counter() - t0
    msg = str(info.value)
    assert "uci_mirror" in msg and "'airfoil'" in msg and "2 attempt" in msg
    assert elapsed < 1.9  # the socket timeout bounded each attempt
    assert server.hits == 2


def test_no_network_clear_error(monkeypatch):
    import ucimlrepo.fetch

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()  # nothing listens on this port: connection refused
    monkeypatch.setattr(ucimlrepo.fetch, "API_BASE_URL", f"http://127.0.0.1:{port}/api/dataset")
    with pytest.raises(DownloadError, match=r"uci_mirror.*") as info:
        fetch_uci("abalone", 1, timeout_s=1, retries=3, backoff_s=0)
    assert "3 attempt" in str(info.value) and "UCI id 1" in str(info.value)


def test_non_network_error_is_not_retried():
    calls = []

    def broken(uci_id):
        calls.append(uci_id)
        raise KeyError("variables")

    with pytest.raises(DownloadError, match="KeyError.*uci_mirror"):
        fetch_uci("concrete", 165, retries=3, backoff_s=0, fetch=broken)
    assert calls == [165]


def test_sidecar_is_json_serialisable(canonical, tmp_path):
    write_json(tmp_path / "s.json", canonical["abalone"][1])
    assert json.loads((tmp_path / "s.json").read_text())["n_rows"] == 4177


def test_with_ids_puts_identifiers_first():
    from xaipipe.io import with_ids

    out = with_ids(pd.DataFrame({"a": [1, 2], "model": ["x", "y"]}), dataset="d", model="m")
    assert list(out.columns) == ["dataset", "model", "a"] and out["model"].tolist() == ["m", "m"]
