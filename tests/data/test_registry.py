"""The dataset registry: schema, merging with the configuration, every source kind, and the
errors a user's own data can trigger (each names the dataset and the column / key / file)."""

from __future__ import annotations

import gzip
import hashlib
import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from tests.conftest import REPO, THESIS_DATASETS
from tests.data._loopback import LoopbackServer
from xaipipe.data.parsers import PARSERS, get_parser
from xaipipe.data.preparation import prepare_table
from xaipipe.data.registry import (
    DatasetEntry,
    RegistryError,
    check_ols_inference,
    input_files,
    load_registry,
    preparation_options,
    validate_entry,
)
from xaipipe.data.sources import (
    ChecksumError,
    DownloadError,
    canonical_sha256,
    load_canonical,
    read_canonical,
)

REGISTRY_FILE = REPO / "config" / "datasets.yaml"


def entry(dataset="my_data", **keys) -> DatasetEntry:
    """A validated entry: a regression on a local CSV unless ``keys`` say otherwise."""
    mapping = {"task": "regression", "target": "y", "source": {"kind": "file", "path": "my.csv"}, **keys}
    return validate_entry(dataset, mapping)


def user_frame(n=200, seed=0) -> pd.DataFrame:
    """A regression table with a categorical column (the README's worked example)."""
    rng = np.random.default_rng(seed)
    region = rng.choice(["north", "south", "east"], size=n)
    x1 = rng.normal(size=n)
    x2 = rng.uniform(0, 10, size=n)
    y = 2 * x1 + 0.5 * x2 + (region == "north") * 3 + rng.normal(scale=0.1, size=n)
    return pd.DataFrame({"x1": x1, "region": region, "x2": x2, "y": y})


# --------------------------------------------------------------------------- #
# The registry file and its schema
# --------------------------------------------------------------------------- #
def test_registry_file_declares_the_six_datasets():
    reg = load_registry(REGISTRY_FILE)
    assert list(reg) == list(THESIS_DATASETS) + ["simulated"]  # + the seed's simulated data (issue 23)
    assert reg.pop("simulated").kind == "simulated"
    assert {d: e.kind for d, e in reg.items()} == {d: ("sklearn" if d == "diabetes" else "uci") for d in reg}
    assert reg["breast_cancer"].task == "classification" and reg["breast_cancer"].positive_class == "M"
    assert reg["abalone"].categorical == ("Sex",)
    assert reg["wine_quality"].variants["default"] == "white"
    assert all(e.doi and e.citation for e in reg.values())
    # every parser the registry names exists, and every registered parser is used
    assert {e.source["parser"] for e in reg.values()} == set(PARSERS)


def test_registry_file_is_valid_against_the_schema_with_jsonschema():
    from jsonschema import Draft202012Validator

    schema = yaml.safe_load((REPO / "workflow" / "schemas" / "datasets.schema.yaml").read_text())
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"].endswith("draft/2020-12/schema")
    errors = list(Draft202012Validator(schema).iter_errors(yaml.safe_load(REGISTRY_FILE.read_text())))
    assert errors == []


@pytest.mark.parametrize(
    "keys,pattern",
    [
        ({"task": "multiclass"}, r"'my_data'.*datasets\.my_data\.task.*'multiclass'"),
        ({"source": {"kind": "ftp", "path": "x"}}, r"unknown source kind 'ftp'.*source\.kind.*uci.*openml"),
        (
            {"source": {"kind": "uci", "uci_id": 1, "parser": "mystery", "files": []}},
            r"unknown parser 'mystery'.*known parsers.*whitespace_table",
        ),
        ({"source": {"kind": "file", "url": "https://example.org/a.csv"}}, r"source\.url needs source\.sha256"),
        ({"source": {"kind": "file", "path": "a.csv", "sha256": "abc"}}, r"datasets\.my_data\.source\.sha256"),
        ({"source": {"kind": "file"}}, r"datasets\.my_data\.source"),
        (
            {"source": {"kind": "file", "path": "a.csv", "sep": ";"}},
            r"^dataset 'my_data': datasets\.my_data\.source: unknown key 'sep'$",
        ),
        ({"source": {"kind": "openml"}}, r"datasets\.my_data\.source"),
        (
            {"source": {"kind": "uci", "uci_id": 1, "parser": "wdbc"}},
            r"datasets\.my_data\.source: 'files' is needed with 'parser'",
        ),
        ({"columns": {"features": ["a", "b"], "other": ["b"]}}, r"column 'b' is in .*other and .*features"),
        ({"columns": {"features": ["a", "y"]}}, r"target 'y' is also in datasets\.my_data\.columns\.features"),
        ({"categorical": ["y"]}, r"categorical lists the target 'y'"),
        ({"columns": {"features": ["a"]}, "categorical": ["b"]}, r"categorical names unknown column\(s\) \['b'\]"),
        ({"positive_class": "yes"}, r"positive_class is only defined for classification"),
        (
            {
                "columns": {"other": ["c"]},
                "variants": {"column": "c", "default": "z", "options": {"a": {"rows": ["a"]}}},
            },
            r"variants\.default 'z' is not one of",
        ),
        ({"colour": "red"}, r"datasets\.my_data: unknown key 'colour' \(did you mean 'columns'\?\)$"),
        ({"targte": "y"}, r"datasets\.my_data: unknown key 'targte' \(did you mean 'target'\?\)$"),
    ],
)
def test_invalid_entries_name_the_dataset_and_key(keys, pattern):
    with pytest.raises(RegistryError, match=pattern):
        entry(**keys)


def test_entry_without_source_and_bad_identifier():
    with pytest.raises(RegistryError, match=r"lacks registry key\(s\) \['source'\]"):
        validate_entry("d", {"task": "regression", "target": "y"})
    with pytest.raises(RegistryError, match=r"invalid identifier 'my-data'"):
        validate_entry("my-data", {"task": "regression", "target": "y", "source": {"kind": "file", "path": "a"}})


def test_to_mapping_round_trip():
    reg = load_registry(REGISTRY_FILE)
    for dataset, e in reg.items():
        again = DatasetEntry.from_mapping(dataset, e.to_mapping())
        assert again == e
        assert "drop" not in e.to_mapping(preparation=False)


# --------------------------------------------------------------------------- #
# Merging with the configuration
# --------------------------------------------------------------------------- #
def test_config_entry_declares_a_new_dataset():
    config = {
        "my_data": {
            "source": {"kind": "file", "path": "data/my.csv"},
            "task": "regression",
            "target": "y",
            "categorical": ["region"],
            "families": ["linear_regression"],
            "enabled": True,
        }
    }
    reg = load_registry(REGISTRY_FILE, config)
    assert list(reg)[-1] == "my_data" and len(reg) == 8  # six theses + simulated + my_data
    e = reg["my_data"]
    assert (e.kind, e.task, e.target, e.categorical, e.name) == ("file", "regression", "y", ("region",), "my_data")
    assert "config key datasets.my_data" in e.origin
    assert input_files(e) == ["data/my.csv"]


def test_config_keys_replace_the_registry_keys():
    config = {
        "airfoil": {"drop": ["attack-angle"]},
        "breast_cancer": {"positive_class": "B"},
        "abalone": {"categorical": [], "name": "Abalone (no Sex groups)"},
    }
    reg = load_registry(REGISTRY_FILE, config)
    assert reg["airfoil"].drop == ("attack-angle",)
    assert reg["breast_cancer"].positive_class == "B"
    assert reg["abalone"].categorical == () and reg["abalone"].name == "Abalone (no Sex groups)"
    assert reg["abalone"].source == load_registry(REGISTRY_FILE)["abalone"].source  # untouched keys stay
    assert load_registry(REGISTRY_FILE)["airfoil"].drop == ()


def test_merged_entry_is_checked_against_the_schema():
    with pytest.raises(RegistryError, match=r"merged with config key datasets\.airfoil.*task"):
        load_registry(REGISTRY_FILE, {"airfoil": {"task": "ranking"}})
    with pytest.raises(RegistryError, match=r"positive_class is only defined for classification"):
        load_registry(REGISTRY_FILE, {"airfoil": {"positive_class": "M"}})


def test_unknown_dataset_without_source_is_refused():
    with pytest.raises(RegistryError, match=r"datasets\.iris: unknown dataset 'iris'.*declares no source"):
        load_registry(REGISTRY_FILE, {"iris": {}})
    with pytest.raises(RegistryError, match=r"^datasets\.airfoil: unknown key 'colour' \(did you mean 'columns'\?\)$"):
        load_registry(REGISTRY_FILE, {"airfoil": {"colour": 1}})


def test_variant_option_is_checked_against_the_declared_variants():
    assert load_registry(REGISTRY_FILE, {"wine_quality": {"variant": "both"}})
    with pytest.raises(
        RegistryError,
        match=r"datasets\.wine_quality\.variant must be one of \['white', 'red', "
        r"'both'\], got 'rose'",
    ):
        load_registry(REGISTRY_FILE, {"wine_quality": {"variant": "rose"}})
    with pytest.raises(RegistryError, match=r"datasets\.airfoil\.variant: dataset 'airfoil' declares no variants"):
        load_registry(REGISTRY_FILE, {"airfoil": {"variant": "white"}})


def test_preparation_options_and_input_files(tmp_path):
    reg = load_registry(
        REGISTRY_FILE,
        {
            "airfoil": {"drop": ["attack-angle"], "families": ["xgboost"]},
            "abalone": {"one_hot": ["Sex"]},
            "wine_quality": {"variant": "red", "enabled": True},
        },
    )
    assert preparation_options(reg["airfoil"], {"drop": ["attack-angle"], "families": ["xgboost"]}) == {
        "drop": ["attack-angle"]
    }
    assert preparation_options(reg["abalone"], {"one_hot": ["Sex"]}) == {"drop": [], "one_hot": ["Sex"]}
    assert preparation_options(reg["wine_quality"], {"variant": "red"}) == {"drop": [], "variant": "red"}
    assert input_files(reg["wine_quality"], "m") == [
        "m/wine-quality/winequality-red.csv",
        "m/wine-quality/winequality-white.csv",
    ]
    assert input_files(reg["wine_quality"], "") == []
    assert input_files(reg["diabetes"], "m") == []  # bundled with scikit-learn, never from the mirror


def test_ols_inference_is_checked_against_the_registry():
    reg = load_registry(REGISTRY_FILE)
    assert check_ols_inference(["diabetes", "abalone"], reg, ["abalone", "airfoil"]) == ["abalone"]
    with pytest.raises(RegistryError, match=r"ols_inference lists 'breast_cancer', a classification dataset"):
        check_ols_inference(["breast_cancer"], reg, ["breast_cancer"])
    with pytest.raises(RegistryError, match=r"ols_inference lists 'iris', which is not a known dataset"):
        check_ols_inference(["iris"], reg, ["airfoil"])


# --------------------------------------------------------------------------- #
# Source kind `file`
# --------------------------------------------------------------------------- #
def test_file_csv_source(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    frame = user_frame()
    Path("data").mkdir()
    frame.to_csv("data/my.csv", index=False)
    e = entry(source={"kind": "file", "path": "data/my.csv"}, categorical=["region"])
    canonical, sidecar = load_canonical(e)
    assert list(canonical.columns) == ["x1", "region", "x2", "y"]  # features in file order, then the target
    assert canonical["region"].dtype == "str" and canonical["x1"].dtype == np.float64
    np.testing.assert_array_equal(canonical[["x1", "x2", "y"]].to_numpy(), frame[["x1", "x2", "y"]].to_numpy())
    assert sidecar["source"] == "file" and sidecar["source_kind"] == "file"
    assert sidecar["feature_columns"] == ["x1", "region", "x2"] and sidecar["categorical_columns"] == ["region"]
    raw = Path("data/my.csv").read_bytes()
    assert sidecar["raw"] == [
        {"path": str(Path("data/my.csv").resolve()), "sha256": hashlib.sha256(raw).hexdigest(), "bytes": len(raw)}
    ]
    # the categorical column becomes one feature group of 0/1 columns
    prepared, info, _ = prepare_table(canonical, sidecar, preparation_options(e))
    assert info["feature_groups"] == {"region": ["region_east", "region_north", "region_south"]}
    assert info["features"] == ["x1", "region_east", "region_north", "region_south", "x2"]
    np.testing.assert_array_equal(prepared["region_north"].to_numpy(), (frame["region"] == "north").astype(float))
    # the sidecar round trip of the workflow (canonical.csv -> read_canonical) keeps the table
    path = tmp_path / "canonical.csv"
    canonical.to_csv(path, index=False, float_format="%.17g", lineterminator="\n")
    back = read_canonical(path, json.loads(json.dumps(sidecar)))
    pd.testing.assert_frame_equal(back, canonical)
    assert canonical_sha256(back) == sidecar["canonical_sha256"]


def test_file_csv_read_options_sha256_and_compression(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    frame = user_frame(50)
    text = frame.to_csv(index=False, sep=";").encode()
    Path("my.csv.gz").write_bytes(gzip.compress(text, mtime=0))
    digest = hashlib.sha256(Path("my.csv.gz").read_bytes()).hexdigest()
    e = entry(
        source={"kind": "file", "path": "my.csv.gz", "sha256": digest, "read_options": {"sep": ";"}},
        categorical=["region"],
    )
    canonical, sidecar = load_canonical(e)
    assert canonical.shape == (50, 4) and sidecar["raw"][0]["sha256"] == digest
    wrong = "0" * 64
    with pytest.raises(ChecksumError) as info:
        load_canonical(
            entry(source={"kind": "file", "path": "my.csv.gz", "sha256": wrong, "read_options": {"sep": ";"}})
        )
    msg = str(info.value)
    assert "'my_data'" in msg and "my.csv.gz" in msg and wrong in msg and digest in msg


def test_file_parquet_source_equals_csv(tmp_path, monkeypatch):
    pytest.importorskip("pyarrow")
    monkeypatch.chdir(tmp_path)
    frame = user_frame()
    frame.to_csv("my.csv", index=False)
    frame.to_parquet("my.parquet", index=False)
    from_csv, _ = load_canonical(entry(source={"kind": "file", "path": "my.csv"}, categorical=["region"]))
    from_parquet, sidecar = load_canonical(entry(source={"kind": "file", "path": "my.parquet"}, categorical=["region"]))
    pd.testing.assert_frame_equal(from_parquet, from_csv, check_exact=False, rtol=1e-15)
    assert sidecar["file"]["format"] == "parquet"


def test_file_errors_name_the_file_and_format(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(FileNotFoundError, match=r"'my_data': file data/none\.csv .*does not exist.*working directory"):
        load_canonical(entry(source={"kind": "file", "path": "data/none.csv"}))
    Path("table.xlsx").write_bytes(b"x")
    with pytest.raises(ValueError, match=r"cannot tell the format of .*table\.xlsx.*source\.format"):
        load_canonical(entry(source={"kind": "file", "path": "table.xlsx"}))
    Path("bad.csv").write_text("a,b\n1,2\n")
    with pytest.raises(ValueError, match=r"'my_data': cannot read .*bad\.csv as csv.*TypeError"):
        load_canonical(entry(source={"kind": "file", "path": "bad.csv", "read_options": {"no_such_option": 1}}))


class _Server(LoopbackServer):
    """Loopback server serving fixed bytes at /data/my.csv."""

    def __init__(self, body: bytes):
        self.body = body
        super().__init__()
        self.url = f"{self.base}/data/my.csv"

    def respond(self, path):
        return (self.body, "text/csv") if path == "/data/my.csv" else None


def test_file_url_source_is_checked_and_cached(tmp_path, monkeypatch):
    monkeypatch.setenv("no_proxy", "127.0.0.1")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    body = user_frame(30).to_csv(index=False).encode()
    digest = hashlib.sha256(body).hexdigest()
    download = {"cache_dir": str(tmp_path / "cache"), "retries": 1, "timeout_s": 10}
    with _Server(body) as server:
        e = entry(source={"kind": "file", "url": server.url, "sha256": digest}, categorical=["region"])
        first, sidecar = load_canonical(e, download=download)
        assert server.hits == 1 and sidecar["source"] == "url" and sidecar["file"]["cached"] is False
        second, sidecar = load_canonical(e, download=download)
        assert server.hits == 1 and sidecar["file"]["cached"] is True  # served from the cache
        pd.testing.assert_frame_equal(first, second)
        assert (tmp_path / "cache" / "url" / digest / "my.csv").read_bytes() == body
        wrong = "f" * 64
        bad = entry(source={"kind": "file", "url": server.url, "sha256": wrong})
        with pytest.raises(ChecksumError) as info:
            load_canonical(bad, download=download)
        assert server.url in str(info.value) and wrong in str(info.value) and digest in str(info.value)
        assert not (tmp_path / "cache" / "url" / wrong).exists()  # a wrong download is not cached
        missing = entry(source={"kind": "file", "url": server.url + "x", "sha256": digest})
        with pytest.raises(DownloadError, match=r"'my_data' from .*my\.csvx after 2 attempt.*source\.path"):
            load_canonical(missing, download={"retries": 2, "backoff_s": 0, "timeout_s": 5})


# --------------------------------------------------------------------------- #
# Source kind `openml`
# --------------------------------------------------------------------------- #
def _openml_cache(home: Path, data_id: int) -> Path:
    """An OpenML cache (as fetch_openml writes it) built from scikit-learn's own test fixtures."""
    from importlib import resources
    from urllib.parse import urlparse

    try:
        src = Path(str(resources.files("sklearn.datasets.tests.data.openml") / f"id_{data_id}"))
    except ModuleNotFoundError:
        pytest.skip("scikit-learn's OpenML test fixtures are not installed")
    desc = json.loads(gzip.open(src / f"api-v1-jd-{data_id}.json.gz").read())["data_set_description"]
    paths = {
        f"api-v1-jd-{data_id}.json.gz": f"api/v1/json/data/{data_id}",
        f"api-v1-jdf-{data_id}.json.gz": f"api/v1/json/data/features/{data_id}",
        f"api-v1-jdq-{data_id}.json.gz": f"api/v1/json/data/qualities/{data_id}",
        f"data-v1-dl-{desc['file_id']}.arff.gz": urlparse(desc["url"]).path.lstrip("/"),
    }
    for name, path in paths.items():
        target = home / "openml" / "openml.org" / (path + ".gz")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src / name, target)
    return home


@pytest.fixture()
def no_openml_network(monkeypatch):
    import sklearn.datasets._openml as openml

    def refuse(*args, **kwargs):
        raise OSError("no network in this test")

    monkeypatch.setattr(openml, "urlopen", refuse)


@pytest.mark.filterwarnings("ignore:Invalid cache:RuntimeWarning")
def test_openml_source_reads_the_fetch_openml_cache(tmp_path, no_openml_network):
    """The real fetch_openml, offline, on OpenML 561 (cpu: 209 machines, a categorical vendor)."""
    cache = _openml_cache(tmp_path / "cache", 561)
    e = entry("cpu", source={"kind": "openml", "data_id": 561}, target="class", categorical=["vendor"])
    canonical, sidecar = load_canonical(e, download={"cache_dir": str(cache), "retries": 1, "backoff_s": 0})
    assert canonical.shape == (209, 8) and list(canonical.columns)[-1] == "class"
    assert canonical["vendor"].dtype == "str" and canonical["vendor"].iloc[0] == "adviser"
    assert canonical["class"].iloc[:3].tolist() == [199.0, 253.0, 253.0]
    assert sidecar["source"] == "openml" and sidecar["openml"]["data_id"] == "561"
    assert sidecar["raw"][0]["md5_checksum"] == "e1c69097976ecd20de7d215919130ccc"
    prepared, info, _ = prepare_table(canonical, sidecar, {})
    assert len(info["feature_groups"]["vendor"]) == canonical["vendor"].nunique()
    # nothing cached: fetch_openml's error, wrapped with the dataset and the id
    with pytest.raises(DownloadError, match=r"'cpu' \(OpenML id 561\).*kind file"):
        load_canonical(e, download={"cache_dir": str(tmp_path / "empty"), "retries": 1, "backoff_s": 0})


def test_openml_multiclass_target_is_coded(tmp_path, no_openml_network):
    cache = _openml_cache(tmp_path / "cache", 61)
    e = entry("iris", task="classification", target="class", source={"kind": "openml", "data_id": 61})
    canonical, sidecar = load_canonical(e, download={"cache_dir": str(cache), "retries": 1, "backoff_s": 0})
    assert canonical.shape == (150, 5)
    prepared, info, _ = prepare_table(canonical, sidecar, {})  # three classes: coded 0..2 (docs/multiclass.md)
    assert info["classes"] == sorted(canonical["class"].unique()) and info["n_classes"] == 3
    assert info["class_counts"] == {"0": 50, "1": 50, "2": 50}
    with pytest.raises(ValueError, match=r"datasets\.iris\.positive_class is only defined for binary"):
        prepare_table(canonical, sidecar, {"positive_class": info["classes"][0]})


def test_openml_by_name_passes_the_query(monkeypatch, tmp_path):
    import sklearn.datasets
    from sklearn.utils import Bunch

    calls = []

    def fake_fetch_openml(**kwargs):
        calls.append(kwargs)
        frame = user_frame(40)
        return Bunch(
            frame=frame,
            data=frame,
            details={"id": "9", "name": "mine", "version": "2"},
            url="https://www.openml.org/d/9",
        )

    monkeypatch.setattr(sklearn.datasets, "fetch_openml", fake_fetch_openml)
    e = entry(source={"kind": "openml", "name": "mine", "version": 2}, categorical=["region"])
    canonical, sidecar = load_canonical(e, download={"cache_dir": str(tmp_path), "retries": 4, "backoff_s": 2})
    (call,) = calls
    assert call["name"] == "mine" and call["version"] == 2 and "data_id" not in call
    assert call["data_home"] == str(tmp_path) and call["target_column"] is None and call["as_frame"] is True
    assert call["n_retries"] == 4 and call["delay"] == 2
    assert sidecar["openml"] == {"data_id": "9", "name": "mine", "version": "2", "url": "https://www.openml.org/d/9"}
    assert canonical.shape == (40, 4)


# --------------------------------------------------------------------------- #
# Source kinds `sklearn` and `uci`
# --------------------------------------------------------------------------- #
def test_sklearn_files_source_is_the_unscaled_diabetes():
    from sklearn.datasets import load_diabetes

    canonical, sidecar = load_canonical(load_registry(REGISTRY_FILE)["diabetes"])
    X, y = load_diabetes(return_X_y=True, scaled=False)
    np.testing.assert_array_equal(canonical.iloc[:, :10].to_numpy(), X)
    np.testing.assert_array_equal(canonical["Y"].to_numpy(), y)
    assert sidecar["source"] == "scikit-learn"
    assert [r["sha256"][:8] for r in sidecar["raw"]] == ["7fc0ded5", "8e53f65e"]


def test_sklearn_files_checksum_error(monkeypatch):
    e = load_registry(REGISTRY_FILE)["diabetes"]
    bad = dict(e.source, files=[dict(e.source["files"][0], sha256="1" * 64), e.source["files"][1]])
    with pytest.raises(
        ChecksumError,
        match=r"'diabetes': checksum mismatch for .*diabetes_data_raw\.csv\.gz: "
        r"expected SHA-256 1{64}, got 7fc0ded5",
    ):
        load_canonical(DatasetEntry.from_mapping("diabetes", {**e.to_mapping(), "source": bad}))


def test_sklearn_loader_source_binary_labels():
    from sklearn.datasets import load_breast_cancer

    e = entry("bc", task="classification", target="target", source={"kind": "sklearn", "loader": "load_breast_cancer"})
    canonical, sidecar = load_canonical(e)
    X, y = load_breast_cancer(return_X_y=True)
    np.testing.assert_array_equal(canonical.iloc[:, :30].to_numpy(), X)
    assert sorted(canonical["target"].unique()) == ["0", "1"]  # labels are text
    prepared, info, _ = prepare_table(canonical, sidecar, {})
    assert info["positive_class"] == "1" and info["class_counts"] == {"0": 212, "1": 357}
    np.testing.assert_array_equal(prepared["target"].to_numpy(), y)
    with pytest.raises(RegistryError, match=r"source\.loader"):
        entry(source={"kind": "sklearn", "loader": "fetch_openml"})


def test_uci_mirror_parsers_read_every_row_of_the_manifest(mirror):
    """Each named parser reads its mirror files whole: rows as counted in the mirror's MANIFEST.tsv
    (the tables themselves are checked in test_sources.py)."""
    manifest = pd.read_csv(mirror / "MANIFEST.tsv", sep="\t")
    rows = dict(zip(manifest["file"], manifest["rows"]))
    for dataset, e in load_registry(REGISTRY_FILE).items():
        if e.kind != "uci":
            continue
        blobs = {f["path"]: (mirror / f["path"]).read_bytes() for f in e.files}
        frame = get_parser(e.source["parser"], dataset)(blobs, e)
        assert len(frame) == sum(int(rows[f["path"]]) for f in e.files), dataset
        declared = set(e.id_columns) | set(e.feature_columns) | {e.target} | set(e.other_columns)
        assert declared <= set(frame.columns), dataset
    with pytest.raises(ValueError, match=r"'x': unknown parser 'nope'.*known parsers"):
        get_parser("nope", "x")


def test_uci_without_mirror_files_cannot_use_the_mirror(mirror):
    e = entry("other_uci", source={"kind": "uci", "uci_id": 9})
    with pytest.raises(
        ValueError,
        match=r"'other_uci': the config key uci_mirror is set but the registry entry "
        r"declares no mirror files",
    ):
        load_canonical(e, mirror=mirror)


# --------------------------------------------------------------------------- #
# Errors on a user's own data (canonical table and preparation)
# --------------------------------------------------------------------------- #
def _load(tmp_path, frame, **keys):
    path = tmp_path / "my.csv"
    frame.to_csv(path, index=False)
    e = entry(source={"kind": "file", "path": str(path)}, **keys)
    return e, *load_canonical(e)


def test_unknown_target_and_columns_are_named(tmp_path):
    frame = user_frame(30)
    with pytest.raises(
        ValueError,
        match=r"'my_data': the target 'price' \(datasets\.my_data\.target\) is not a "
        r"column of .*my\.csv; its columns are \['x1', 'region', 'x2', 'y'\]",
    ):
        _load(tmp_path, frame, target="price")
    with pytest.raises(ValueError, match=r"datasets\.my_data\.categorical names column\(s\) \['area'\]"):
        _load(tmp_path, frame, categorical=["area"])
    with pytest.raises(ValueError, match=r"datasets\.my_data\.columns\.id names column\(s\) \['key'\]"):
        _load(tmp_path, frame, columns={"id": ["key"]})
    e, canonical, sidecar = _load(tmp_path, frame, categorical=["region"], drop=["x3"])
    with pytest.raises(ValueError, match=r"datasets\.my_data\.drop names unknown column\(s\) \['x3'\]"):
        prepare_table(canonical, sidecar, preparation_options(e))


def test_non_numeric_column_not_declared_categorical(tmp_path):
    e, canonical, sidecar = _load(tmp_path, user_frame(30))
    assert canonical["region"].dtype == "str"  # kept as text in the canonical table
    with pytest.raises(
        ValueError,
        match=r"'my_data': column 'region' is text \(3 levels: 'east', 'north', 'south'\); declare it "
        r"categorical \(datasets\.my_data\.categorical",
    ):
        prepare_table(canonical, sidecar, preparation_options(e))
    # dropping it is the other way out
    prepared, info, _ = prepare_table(canonical, sidecar, {"drop": ["region"]})
    assert info["features"] == ["x1", "x2"]


def test_non_numeric_regression_target(tmp_path):
    frame = user_frame(30)
    frame["y"] = np.where(frame["y"] > 0, "high", "low")
    with pytest.raises(ValueError, match=r"'my_data': the regression target 'y' is not numeric.*'high'"):
        _load(tmp_path, frame, categorical=["region"])


def test_missing_values_are_named(tmp_path):
    frame = user_frame(30)
    frame.loc[[3, 7], "x2"] = np.nan
    e, canonical, sidecar = _load(tmp_path, frame, categorical=["region"])
    with pytest.raises(
        ValueError, match=r"'my_data': column 'x2' has 2 missing value\(s\) in 30 rows; set datasets\.my_data\.missing"
    ):
        prepare_table(canonical, sidecar, preparation_options(e))
    frame = user_frame(30)
    frame.loc[4, "region"] = None
    e, canonical, sidecar = _load(tmp_path, frame, categorical=["region"])
    with pytest.raises(ValueError, match=r"'my_data': column 'region' has 1 missing value\(s\)"):
        prepare_table(canonical, sidecar, preparation_options(e))
    frame = user_frame(30)
    frame.loc[5, "y"] = np.nan
    e, canonical, sidecar = _load(tmp_path, frame, categorical=["region"])
    with pytest.raises(ValueError, match=r"'my_data': the target 'y' has 1 missing value\(s\) in 30 rows"):
        prepare_table(canonical, sidecar, preparation_options(e))


def test_constant_columns_are_named(tmp_path):
    frame = user_frame(30)
    frame["x2"] = 1.5
    e, canonical, sidecar = _load(tmp_path, frame, categorical=["region"])
    with pytest.raises(
        ValueError, match=r"'my_data': column 'x2' is constant \(every value 1\.5\).*datasets\.my_data\.drop"
    ):
        prepare_table(canonical, sidecar, preparation_options(e))
    frame = user_frame(30)
    frame["y"] = 2.0
    e, canonical, sidecar = _load(tmp_path, frame, categorical=["region"])
    with pytest.raises(ValueError, match=r"'my_data': the regression target 'y' is constant"):
        prepare_table(canonical, sidecar, preparation_options(e))


def test_classification_targets(tmp_path):
    frame = user_frame(60)
    frame["y"] = np.arange(60) % 4
    e, canonical, sidecar = _load(tmp_path, frame, task="classification", categorical=["region"])
    prepared, info, _ = prepare_table(canonical, sidecar, {})  # four classes: a multiclass target
    assert info["classes"] == ["0", "1", "2", "3"] and prepared["y"].tolist() == list(np.arange(60) % 4)
    frame["y"] = "ham"
    e, canonical, sidecar = _load(tmp_path, frame, task="classification", categorical=["region"])
    with pytest.raises(ValueError, match=r"'my_data': the classification target 'y' has a single class 'ham'"):
        prepare_table(canonical, sidecar, {})
    frame["y"] = np.where(np.arange(60) % 3 == 0, "spam", "ham")
    e, canonical, sidecar = _load(tmp_path, frame, task="classification", categorical=["region"])
    with pytest.raises(ValueError, match=r"give datasets\.my_data\.positive_class.*\['ham', 'spam'\]"):
        prepare_table(canonical, sidecar, {})
    e, canonical, sidecar = _load(tmp_path, frame, task="classification", categorical=["region"], positive_class="spam")
    prepared, info, _ = prepare_table(canonical, sidecar, {})
    assert info["class_counts"] == {"0": 40, "1": 20} and info["positive_class"] == "spam"
    with pytest.raises(ValueError, match=r"datasets\.my_data\.positive_class 'eggs' is not a level"):
        prepare_table(canonical, sidecar, {"positive_class": "eggs"})
    # integer labels 0/1 (written as 0.0/1.0 by some tools) need no positive_class: 1 is coded 1
    frame["y"] = (np.arange(60) % 3 == 0).astype(float)
    e, canonical, sidecar = _load(tmp_path, frame, task="classification", categorical=["region"])
    assert sorted(canonical["y"].unique()) == ["0", "1"]
    prepared, info, _ = prepare_table(canonical, sidecar, {})
    assert info["positive_class"] == "1" and prepared["y"].sum() == 20


def test_variants_and_order_are_declared_data(tmp_path):
    """The Wine-Quality mechanism on any dataset: order_by + variants from the registry entry."""
    frame = user_frame(40)
    frame["site"] = np.where(np.arange(40) < 25, "b", "a")  # served b first
    keys = dict(
        columns={"other": ["site"]},
        categorical=["region"],
        order_by={"column": "site", "levels": ["a", "b"]},
        variants={
            "column": "site",
            "default": "only_a",
            "options": {"only_a": {"rows": ["a"]}, "all": {"indicators": {"site_b": "b"}}},
        },
    )
    e, canonical, sidecar = _load(tmp_path, frame, **keys)
    assert canonical["site"].tolist() == ["a"] * 15 + ["b"] * 25  # stable: rows keep file order within a level
    np.testing.assert_array_equal(canonical["x1"].iloc[:15], frame["x1"].iloc[25:])
    prepared, info, _ = prepare_table(canonical, sidecar, {})
    assert info["variant"] == "only_a" and info["n_rows"] == 15 and "site_b" not in info["features"]
    prepared, info, _ = prepare_table(canonical, sidecar, {"variant": "all"})
    assert info["n_rows"] == 40 and info["features"][-1] == "site_b" and prepared["site_b"].sum() == 25
    with pytest.raises(ValueError, match=r"datasets\.my_data\.variant must be one of \['only_a', 'all'\]"):
        prepare_table(canonical, sidecar, {"variant": "b"})
    frame["site"] = "c"
    with pytest.raises(ValueError, match=r"column 'site' has values \['c'\] not all in datasets\.my_data\.order_by"):
        _load(tmp_path, frame, **keys)


def test_target_unit_of_the_seven_datasets_and_of_own_data():
    """Every dataset of the registry names the unit of its explained output (issue 43); an own entry may
    leave it out (None); it is not part of what the canonical table depends on."""
    reg = load_registry(REGISTRY_FILE)
    assert {d: e.target_unit for d, e in reg.items()} == {
        "airfoil": "dB",
        "concrete": "MPa",
        "wine_quality": "quality score, 0-10",
        "abalone": "rings",
        "diabetes": "disease progression at one year",
        "breast_cancer": "malignant",
        "simulated": "units of y",
    }
    assert "target_unit" not in reg["concrete"].to_mapping(preparation=False)
    assert reg["concrete"].to_mapping()["target_unit"] == "MPa"
    assert entry().target_unit is None
    assert entry(target_unit="kg").target_unit == "kg"
    with pytest.raises(RegistryError, match="target_unit"):
        entry(target_unit="")
    # inline in the configuration, as any registry key
    merged = load_registry(REGISTRY_FILE, {"concrete": {"target_unit": "N/mm²"}})
    assert merged["concrete"].target_unit == "N/mm²"
