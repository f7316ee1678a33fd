"""Checks of a user's own table before any fit (issue 32): duplicate column names, one-hot name
collisions, missing-value policies, and data too small for the split, the folds, the bootstrap and
the learner refits. Each error is one line naming the dataset and the column, class or key."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import StratifiedKFold

from tests.data.test_registry import entry, user_frame
from xaipipe.data.checks import DataCheckError
from xaipipe.data.impute import MissingValueImputer
from xaipipe.data.preparation import prepare_table
from xaipipe.data.prepare import load_prepared
from xaipipe.data.registry import load_registry, preparation_options
from xaipipe.data.sources import load_canonical, normalize_canonical
from xaipipe.data.split import check_sample_size, folds_from_split, make_checked_split, make_split
from xaipipe.io import write_csv, write_json


def one_line(exc) -> str:
    text = str(exc.value)
    assert "\n" not in text, text
    return text


def load(tmp_path, frame, text=None, **keys):
    path = tmp_path / "my.csv"
    if text is None:
        frame.to_csv(path, index=False)
    else:
        path.write_text(text)
    e = entry(source={"kind": "file", "path": str(path)}, **keys)
    return e, *load_canonical(e)


# --------------------------------------------------------------------------- #
# Duplicate column names, one-hot collisions, the reserved row_id
# --------------------------------------------------------------------------- #
def test_duplicate_column_names_are_refused_not_renamed(tmp_path):
    text = "x1,value,x2,value,y\n" + "\n".join(f"{i},{i % 3},{i * 2},{i % 5},{i}" for i in range(20)) + "\n"
    with pytest.raises(ValueError) as info:
        load(tmp_path, None, text=text)
    message = one_line(info)
    assert message.startswith("dataset 'my_data': ") and "duplicate column name(s) 'value' (columns 2, 4)" in message
    assert message == (
        f"dataset 'my_data': {tmp_path / 'my.csv'} has duplicate column name(s) 'value' (columns 2, 4), which pandas "
        "would read as new columns ('value.1', ...); give every column its own name in the file, or name the columns "
        "with datasets.my_data.source.read_options.names (every column, in order) and read_options.header: 0 (the "
        "file's header row is then skipped)"
    )
    # the same with a separator and a skipped preamble line: the header row is the one pandas reads
    text2 = "# preamble\n" + text.replace(",", ";")
    with pytest.raises(ValueError, match=r"duplicate column name\(s\) 'value' \(columns 2, 4\)"):
        _load_opts(tmp_path, text2)
    # names given explicitly: the file's header row is data the user replaces
    names = ["x1", "v1", "x2", "v2", "y"]
    e = entry(source={"kind": "file", "path": str(tmp_path / "my.csv"), "read_options": {"names": names, "header": 0}})
    (tmp_path / "my.csv").write_text(text)
    frame, _ = load_canonical(e)
    assert list(frame.columns) == names
    # frames from other sources (openml, a loader): repeated labels are refused as well
    bad = pd.DataFrame([[1.0, 2.0, 3.0]], columns=["a", "a", "y"])
    with pytest.raises(ValueError, match=r"'my_data': the source table has duplicate column name\(s\) \['a'\]"):
        normalize_canonical(entry(), bad)


def _load_opts(tmp_path, text):
    path = tmp_path / "my2.csv"
    path.write_text(text)
    e = entry(source={"kind": "file", "path": str(path), "read_options": {"sep": ";", "skiprows": 1}})
    return load_canonical(e)


def test_one_hot_names_that_collide_are_named(tmp_path):
    frame = user_frame(40)
    frame["region_north"] = np.arange(40.0)
    e, canonical, sidecar = load(tmp_path, frame, categorical=["region"])
    with pytest.raises(ValueError) as info:
        prepare_table(canonical, sidecar, preparation_options(e))
    assert one_line(info) == (
        "dataset 'my_data': the one-hot column 'region_north' of categorical 'region' (level 'north') collides "
        "with column 'region_north'; rename that column or the level in the source, or drop one of them with "
        "datasets.my_data.drop"
    )
    # dropping the other column resolves it
    prepared, info2, _ = prepare_table(canonical, sidecar, {"drop": ["region_north"]})
    assert info2["feature_groups"]["region"] == ["region_east", "region_north", "region_south"]
    # two categoricals whose dummies share a name ('a' level 'b_c' and 'a_b' level 'c')
    frame = user_frame(40).drop(columns="region")
    frame["a"] = np.where(np.arange(40) % 2, "b_c", "d")
    frame["a_b"] = np.where(np.arange(40) % 3, "c", "e")
    e, canonical, sidecar = load(tmp_path, frame, categorical=["a", "a_b"])
    with pytest.raises(ValueError, match=r"'a_b_c' of categorical 'a_b' \(level 'c'\) collides with the one-hot"):
        prepare_table(canonical, sidecar, preparation_options(e))
    # a feature called row_id would be overwritten by the prepared table's row numbers
    frame = user_frame(40).rename(columns={"x1": "row_id"})
    e, canonical, sidecar = load(tmp_path, frame, categorical=["region"])
    with pytest.raises(ValueError, match=r"column 'row_id' is reserved.*datasets\.my_data\.columns\.id"):
        prepare_table(canonical, sidecar, preparation_options(e))


# --------------------------------------------------------------------------- #
# Missing values: error / drop_rows / impute
# --------------------------------------------------------------------------- #
def frame_with_missing(n=80, seed=3) -> pd.DataFrame:
    frame = user_frame(n, seed)
    frame["x3"] = np.random.default_rng(seed).normal(size=n)
    frame.loc[[1, 5, 9], "x1"] = np.nan
    frame.loc[[5, 12], "region"] = None
    frame.loc[[20], "y"] = np.nan
    frame.loc[[30, 31], "x3"] = np.nan  # only in a dropped column: never counts
    return frame


def test_missing_values_under_error_name_every_column_at_once(tmp_path):
    """NaN in the target, a numeric and a categorical column: one error, one line each (issue 43)."""
    e, canonical, sidecar = load(tmp_path, frame_with_missing(), categorical=["region"], drop=["x3"])
    with pytest.raises(DataCheckError) as info:
        prepare_table(canonical, sidecar, preparation_options(e))
    lines = str(info.value).split("\n")
    assert info.value.problems == lines and len(lines) == 3, lines
    assert lines[0] == (
        "dataset 'my_data': the target 'y' has 1 missing value(s) in 80 rows; set datasets.my_data.missing to "
        "drop_rows or impute (both remove the rows without a target)"
    )
    fix = "set datasets.my_data.missing to drop_rows or impute (config/README.md), or drop the column with datasets.my_data.drop"
    assert lines[1] == f"dataset 'my_data': column 'x1' has 3 missing value(s) in 80 rows; {fix}"
    assert lines[2] == f"dataset 'my_data': column 'region' has 2 missing value(s) in 80 rows; {fix}"
    # x3's NaN are in a dropped column: no problem; fixed by the policy, the table prepares
    prepared, _, _ = prepare_table(canonical, sidecar, {**preparation_options(e), "missing": "drop_rows"})
    assert len(prepared) == 80 - 5
    with pytest.raises(ValueError, match=r"datasets\.my_data\.missing must be one of .*did you mean 'impute'"):
        prepare_table(canonical, sidecar, {"missing": "imputed"})


def test_constant_text_date_and_id_columns_are_told_apart(tmp_path):
    n = 40
    frame = user_frame(n)
    frame["const_text"] = "same"
    frame["const_num"] = 2.5
    frame["when"] = pd.date_range("2020-01-01", periods=n, freq="D").strftime("%Y-%m-%d")
    frame["when_eu"] = pd.date_range("2021-03-01", periods=n, freq="D").strftime("%d/%m/%Y")
    frame["code"] = [f"id-{i:04d}" for i in range(n)]
    frame["colour"] = np.where(np.arange(n) % 3 == 0, "red", np.where(np.arange(n) % 3 == 1, "blue", "green"))
    frame["empty"] = np.nan
    e, canonical, sidecar = load(tmp_path, frame, categorical=["region"])
    with pytest.raises(DataCheckError) as info:
        prepare_table(canonical, sidecar, preparation_options(e))
    by_column = {p.split("'")[3]: p for p in info.value.problems}
    assert list(by_column) == ["const_text", "const_num", "when", "when_eu", "code", "colour", "empty"]
    assert (
        "is constant (every value 'same')" in by_column["const_text"] and "categorical" not in by_column["const_text"]
    )
    assert "is constant (every value 2.5)" in by_column["const_num"]
    for col in ("when", "when_eu"):
        assert "holds dates" in by_column[col] and "datasets.my_data.columns.other" in by_column[col]
    assert "an identifier" in by_column["code"] and "datasets.my_data.columns.other" in by_column["code"]
    assert (
        "is text (3 levels: 'blue', 'green', 'red'); declare it categorical (datasets.my_data.categorical"
        in (by_column["colour"])
    )
    assert "datasets.my_data.columns.other" in by_column["colour"]
    assert "is empty (40 missing values in 40 rows)" in by_column["empty"]
    assert all(p.startswith("dataset 'my_data': column ") and "datasets.my_data." in p for p in info.value.problems)
    # the advice works: dates and ids beside the data (columns.other), the constants dropped, colour categorical
    e, canonical, sidecar = load(
        tmp_path, frame, categorical=["region", "colour"], drop=["const_text", "const_num", "empty"],
        columns={"other": ["when", "when_eu", "code"]},
    )  # fmt: skip
    _, info2, _ = prepare_table(canonical, sidecar, preparation_options(e))
    assert set(info2["feature_groups"]) == {"region", "colour"} and "when" not in info2["features"]


def test_drop_rows_removes_and_reports_the_rows(tmp_path):
    frame = frame_with_missing()
    e, canonical, sidecar = load(tmp_path, frame, categorical=["region"], drop=["x3"], missing="drop_rows")
    assert preparation_options(e) == {"drop": ["x3"], "missing": "drop_rows"}
    prepared, info, corr = prepare_table(canonical, sidecar, preparation_options(e))
    bad = frame[["x1", "region", "x2", "y"]].isna().any(axis=1)
    assert prepared["row_id"].tolist() == np.flatnonzero(~bad).tolist()  # rows 30, 31 (x3 only) are kept
    assert info["n_rows"] == 80 - 5 and not prepared.isna().any().any()
    assert info["missing"] == {
        "policy": "drop_rows",
        "missing_values": {"x1": 3, "region": 2, "y": 1},
        "rows_dropped": 5,
        "rows_imputed": 0,
        "imputed": {},
    }
    assert len(corr) == 75  # the correlation matrix sees the kept rows


def test_impute_keeps_nan_for_the_fits_and_drops_rows_without_target(tmp_path):
    frame = frame_with_missing()
    e, canonical, sidecar = load(tmp_path, frame, categorical=["region"], drop=["x3"], missing="impute")
    prepared, info, _ = prepare_table(canonical, sidecar, preparation_options(e))
    assert 20 not in prepared["row_id"].tolist() and info["n_rows"] == 79
    row = prepared.set_index("row_id")
    assert row.loc[[1, 5, 9], "x1"].isna().all()
    group = info["feature_groups"]["region"]
    assert group == ["region_east", "region_north", "region_south"]  # the observed levels only
    assert row.loc[[5, 12], group].isna().all().all() and not row.drop(index=[5, 12])[group].isna().any().any()
    assert info["missing"] == {
        "policy": "impute",
        "missing_values": {"x1": 3, "region": 2, "y": 1},
        "rows_dropped": 1,
        "rows_imputed": 4,
        "imputed": {"x1": 3, "region": 2},
    }
    # a column that is missing everywhere cannot be imputed
    frame["x2"] = np.nan
    e, canonical, sidecar = load(tmp_path, frame, categorical=["region"], drop=["x3"], missing="impute")
    with pytest.raises(
        ValueError,
        match=r"'my_data': column 'x2' is empty \(79 missing values in 79 rows\); drop it with datasets\.my_data\.drop",
    ):
        prepare_table(canonical, sidecar, preparation_options(e))


def test_complete_tables_are_unchanged_by_the_policy(tmp_path):
    e, canonical, sidecar = load(tmp_path, user_frame(50), categorical=["region"])
    a = prepare_table(canonical, sidecar, {"drop": []})
    for policy in ("drop_rows", "impute"):
        b = prepare_table(canonical, sidecar, {"drop": [], "missing": policy})
        pd.testing.assert_frame_equal(a[0], b[0])
        assert {k: v for k, v in b[1].items() if k != "missing"} == a[1] and "missing" not in a[1]
    # the thesis datasets' registry entries keep their preparation options (no `missing` key)
    registry = load_registry(entry.__globals__["REGISTRY_FILE"])
    assert all("missing" not in preparation_options(reg) for reg in registry.values())
    assert all("missing" not in reg.to_mapping() for reg in registry.values())


def test_load_prepared_imputes_with_the_training_split_only(tmp_path):
    frame = frame_with_missing(120)
    frame.loc[list(range(40, 120, 9)), "x1"] = np.nan
    e, canonical, sidecar = load(tmp_path, frame, categorical=["region"], drop=["x3"], missing="impute")
    prepared, info, _ = prepare_table(canonical, sidecar, preparation_options(e))
    split = make_split(prepared["y"].to_numpy(), "regression", test_size=0.3, n_folds=3, random_state=0)
    write_csv(tmp_path / "p.csv", prepared)
    write_json(tmp_path / "p.json", info)
    write_json(tmp_path / "s.json", split)
    data = load_prepared(tmp_path / "p.csv", tmp_path / "p.json", tmp_path / "s.json")
    raw_train = prepared.iloc[split["train"]][info["features"]].to_numpy()
    np.testing.assert_array_equal(data.X_train_raw, raw_train)
    assert np.isnan(data.X_train_raw).any() and not np.isnan(data.X_train).any() and not np.isnan(data.X_test).any()
    median = np.nanmedian(raw_train[:, 0])  # x1: the training rows' median, not all rows'
    assert median != np.nanmedian(prepared["x1"])
    missing_test = np.isnan(data.X_test_raw[:, 0])
    assert missing_test.any() and np.all(data.X_test[missing_test, 0] == median)
    assert isinstance(data.imputer, MissingValueImputer) and not hasattr(data.imputer, "statistics_")
    assert data.missing["policy"] == "impute"
    # a table without missing values: the same arrays, no imputer
    e, canonical, sidecar = load(tmp_path, user_frame(40), categorical=["region"])
    prepared, info, _ = prepare_table(canonical, sidecar, preparation_options(e))
    write_csv(tmp_path / "p.csv", prepared)
    write_json(tmp_path / "p.json", info)
    write_json(
        tmp_path / "s.json",
        make_split(prepared["y"].to_numpy(), "regression", test_size=0.3, n_folds=3, random_state=0),
    )
    data = load_prepared(tmp_path / "p.csv", tmp_path / "p.json", tmp_path / "s.json")
    assert data.imputer is None and data.X_train_raw is data.X_train
    # NaN in a prepared table whose policy is not impute: stale files, refused
    prepared.loc[0, "x1"] = np.nan
    write_csv(tmp_path / "p.csv", prepared)
    with pytest.raises(ValueError, match=r"missing feature values but its missing-value policy is 'error'"):
        load_prepared(tmp_path / "p.csv", tmp_path / "p.json", tmp_path / "s.json")


# --------------------------------------------------------------------------- #
# Too few rows for the split, the folds, the bootstrap, the learner refits
# --------------------------------------------------------------------------- #
def split_of(y, task="regression", **kw):
    kw = {"test_size": 0.2, "n_folds": 5, "random_state": 20250223, "dataset": "mine", "target": "y", **kw}
    return make_checked_split(np.asarray(y), task, **kw)


def test_too_few_rows_for_regression():
    with pytest.raises(ValueError) as info:
        split_of(np.arange(12.0))
    message = one_line(info)
    assert message.startswith("dataset 'mine': 12 rows are too few: the split leaves 3 test row(s) and 9 training")
    assert "smallest validation fold 1" in message and "split.cv_folds (5)" in message
    split = split_of(np.arange(14.0))  # every fold and the test split get 2 rows
    assert min(len(v) for _, v in folds_from_split(split)) == 2 and len(split["test"]) == 3
    with pytest.raises(ValueError, match=r"'mine': 4 rows cannot be split \(.*n_splits=5"):
        split_of(np.arange(4.0))


def test_too_few_rows_of_a_class():
    y = np.array([0] * 30 + [1] * 5)
    with pytest.raises(ValueError) as info:
        split_of(y, "classification", positive_class="yes")
    assert one_line(info).startswith("dataset 'mine': class 1 (positive_class 'yes') of the target 'y' has 5 row(s)")
    # the check is exact: it refuses a table exactly when a class misses the test split or a
    # validation fold, or has fewer than 2 rows in a fold's training rows
    outcomes = set()
    for n0 in range(4, 11):
        for n1 in range(4, 11):
            y = np.array([0] * n0 + [1] * n1)
            try:
                split = make_split(y, "classification", test_size=0.2, n_folds=5, random_state=0)
            except ValueError:
                ok = False
            else:
                ytr, yte = y[np.asarray(split["train"])], y[np.asarray(split["test"])]
                ok = all(
                    (yte == c).sum() >= 1
                    and all((ytr[v] == c).sum() >= 1 and (ytr[t] == c).sum() >= 2 for t, v in folds_from_split(split))
                    for c in (0, 1)
                )
            outcomes.add(ok)
            if ok:
                assert split_of(y, "classification", random_state=0) == split
            else:
                with pytest.raises(ValueError, match=r"^dataset 'mine': class [01] of the target 'y' has \d+ row"):
                    split_of(y, "classification", random_state=0)
    assert outcomes == {True, False}
    # enough rows: every class in the test split, in every validation fold, twice in every training fold
    y = np.array([0] * 30 + [1] * 8)
    split = split_of(y, "classification")
    ytr = y[np.asarray(split["train"])]
    assert y[np.asarray(split["test"])].sum() >= 1
    folds = list(StratifiedKFold(5, shuffle=True, random_state=20250223).split(np.zeros(len(ytr)), ytr))
    assert all(ytr[v].sum() >= 1 and ytr[t].sum() >= 2 for t, v in folds)


def test_bootstrap_and_learner_and_min_fit_rows_are_checked_exactly():
    from xaipipe.data.resample import subsample_splits

    y = np.arange(14.0)
    split = make_split(y, "regression", test_size=0.2, n_folds=5, random_state=0)
    n_train = len(split["train"])
    # the check fails exactly when the bootstrap itself would (same resamples, same seed)
    outcome = {seed: _bootstrap_ok(n_train, seed) for seed in range(40)}
    bad = [s for s, ok in outcome.items() if not ok]
    good = [s for s, ok in outcome.items() if ok]
    assert bad and good
    with pytest.raises(ValueError) as info:
        check_sample_size(
            split,
            y,
            dataset="mine",
            target="y",
            task="regression",
            bootstrap={"n_bootstrap": 10, "random_state": bad[0]},
        )
    assert one_line(info).startswith("dataset 'mine': the Rashomon bootstrap of the 11 training rows: resample ")
    assert "rashomon.bootstrap.families" in str(info.value)
    check_sample_size(
        split, y, dataset="mine", target="y", task="regression", bootstrap={"n_bootstrap": 10, "random_state": good[0]}
    )
    with pytest.raises(ValueError, match=r"learner refit 0 \(explain\.learner\.fraction 0\.95 of the 11 training"):
        check_sample_size(
            split,
            y,
            dataset="mine",
            target="y",
            task="regression",
            learner={"n_refits": 3, "fraction": 0.95, "random_state": 0},
        )
    assert len(subsample_splits(n_train, 3, 0.95, 0)[0][1]) == 1
    with pytest.raises(ValueError) as info:
        check_sample_size(
            split,
            y,
            dataset="mine",
            target="y",
            task="regression",
            min_fit_rows={"n_neighbors = 9 of grids.classification.knn": 9},
        )
    assert one_line(info) == (
        "dataset 'mine': n_neighbors = 9 of grids.classification.knn needs at least 9 training rows per fit, but a "
        "CV fold trains on 8: lower it, leave the family out with datasets.mine.families, or add rows"
    )


def _bootstrap_ok(n, seed):
    from xaipipe.rashomon.bootstrap import bootstrap_indices

    try:
        bootstrap_indices(n, 10, seed)
        return True
    except ValueError:
        return False


def test_the_thesis_sizes_pass():
    """Breast Cancer's class counts (357 / 212) and Airfoil's 1503 rows pass every check of the default study."""
    y = np.array([0] * 357 + [1] * 212)
    checks = {
        "bootstrap": {"n_bootstrap": 10, "random_state": 20250223},
        "learner": {"n_refits": 10, "fraction": 0.632, "random_state": 20250223},
        "min_fit_rows": {"n_neighbors = 31 of grids.classification.knn": 31},
    }
    split_of(y, "classification", positive_class="M", **checks)
    split_of(np.random.default_rng(0).normal(size=1503), **checks)
