"""Multiclass targets in preparation: coding 0..K-1, the recorded labels, the errors; binary records unchanged."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from xaipipe.data.preparation import prepare_table
from xaipipe.data.prepare import load_prepared
from xaipipe.data.registry import load_registry, preparation_options
from xaipipe.data.split import make_split
from xaipipe.io import write_json


def _table(labels, n=None, seed=0):
    rng = np.random.default_rng(seed)
    y = list(labels) if n is None else list(rng.choice(labels, size=n))
    k = len(y)
    frame = pd.DataFrame({"x1": rng.normal(size=k), "x2": rng.uniform(size=k), "y": y})
    sidecar = {
        "dataset": "mine",
        "task": "classification",
        "target": "y",
        "feature_columns": ["x1", "x2"],
        "categorical_columns": [],
    }
    return frame, sidecar


def test_seven_classes_coded_in_sorted_order():
    labels = ["g", "c", "a", "f", "b", "e", "d"]
    frame, sidecar = _table(labels * 5, seed=1)
    prepared, info, _ = prepare_table(frame, sidecar)
    assert info["classes"] == sorted(labels) and info["n_classes"] == 7
    assert info["class_coding"] == {c: k for k, c in enumerate(sorted(labels))}
    assert info["positive_class"] is None
    assert info["class_counts"] == {str(k): 5 for k in range(7)}
    codes = prepared["y"].to_numpy()
    assert codes.dtype == np.int64
    # decoding the codes with the recorded labels gives the raw column back
    assert (np.asarray(info["classes"])[codes] == frame["y"].to_numpy()).all()


def test_class_order_sets_the_codes():
    frame, sidecar = _table(["low", "mid", "high"] * 4)
    prepared, info, _ = prepare_table(frame, sidecar, {"class_order": ["low", "mid", "high"]})
    assert info["class_coding"] == {"low": 0, "mid": 1, "high": 2}
    np.testing.assert_array_equal(prepared["y"].to_numpy(), [0, 1, 2] * 4)


@pytest.mark.parametrize(
    "options, match",
    [
        ({"class_order": ["low", "mid"]}, r"datasets\.mine\.class_order .* each class"),
        ({"class_order": ["low", "mid", "high", "top"]}, r"datasets\.mine\.class_order"),
        ({"positive_class": "high"}, r"datasets\.mine\.positive_class is only defined for binary"),
    ],
)
def test_multiclass_option_errors_name_the_key(options, match):
    frame, sidecar = _table(["low", "mid", "high"] * 4)
    with pytest.raises(ValueError, match=match):
        prepare_table(frame, sidecar, options)


def test_binary_record_is_unchanged_and_rejects_class_order():
    frame, sidecar = _table(["no", "yes"] * 6)
    prepared, info, _ = prepare_table(frame, sidecar, {"positive_class": "yes"})
    assert set(info) == {
        "dataset",
        "task",
        "target",
        "features",
        "feature_groups",
        "dropped",
        "one_hot",
        "variant",
        "positive_class",
        "n_rows",
        "class_counts",
    }
    assert info["positive_class"] == "yes" and prepared["y"].tolist() == [0, 1] * 6
    with pytest.raises(ValueError, match=r"class_order is only defined for targets with more than two"):
        prepare_table(frame, sidecar, {"class_order": ["no", "yes"], "positive_class": "yes"})
    one, sidecar = _table(["a"] * 5)
    with pytest.raises(ValueError, match="single class"):
        prepare_table(one, sidecar)


def test_class_order_is_a_config_option(tmp_path):
    (tmp_path / "registry.yaml").write_text("{}\n")
    registry = load_registry(
        tmp_path / "registry.yaml",
        {
            "mine": {
                "source": {"kind": "file", "path": "x.csv"},
                "task": "classification",
                "target": "y",
                "class_order": ["b", "a", "c"],
            }
        },
    )
    opts = preparation_options(registry["mine"], {"class_order": ["b", "a", "c"]})
    assert opts["class_order"] == ["b", "a", "c"]
    assert "class_order" not in preparation_options(registry["mine"], {})


def test_load_prepared_carries_the_labels_and_stratifies(tmp_path):
    frame, sidecar = _table(["a", "b", "c"], n=90, seed=2)
    prepared, info, _ = prepare_table(frame, sidecar)
    split = make_split(prepared["y"].to_numpy(), "classification", test_size=0.2, n_folds=3, random_state=0)
    prepared.to_csv(tmp_path / "p.csv", index=False)
    write_json(tmp_path / "p.json", info)
    write_json(tmp_path / "s.json", split)
    data = load_prepared(tmp_path / "p.csv", tmp_path / "p.json", tmp_path / "s.json")
    assert data.multiclass and data.classes == ["a", "b", "c"]
    for train, _valid in data.folds:  # stratified folds: every class in every training fold
        assert set(np.unique(data.y_train[train])) == {0, 1, 2}
    assert set(np.unique(data.y_test)) == {0, 1, 2}
