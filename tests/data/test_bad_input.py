"""Bad input, second pass (issue 52, item 1): what used to pass every check and crash in the first
fit, and advice that led astray. Each case asserts the message word for word, then follows the fix
the message names and checks that the table then prepares with the values it holds.

The same cases run through Snakemake in tests/workflow/test_own_data_intake.py."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tests.data.test_registry import entry, user_frame
from xaipipe.data.checks import DataCheckError, numeric_reading, reading_advice
from xaipipe.data.preparation import prepare_table
from xaipipe.data.registry import preparation_options
from xaipipe.data.sources import load_canonical


def prepare(tmp_path, frame, *, read_options=None, **keys):
    """``prepare_table`` of ``frame`` written to a CSV and read as the user's file source."""
    path = tmp_path / "my.csv"
    frame.to_csv(path, index=False)
    source = {"kind": "file", "path": str(path)}
    if read_options:
        source["read_options"] = read_options
    keys.setdefault("categorical", ["region"])
    e = entry(source=source, **keys)
    canonical, sidecar = load_canonical(e)
    return prepare_table(canonical, sidecar, preparation_options(e))


def message(info) -> list[str]:
    return str(info.value).split("\n")


def test_infinite_values_are_named_per_column_and_the_missing_policy_takes_them(tmp_path):
    f = user_frame(60)
    f.loc[3, "x1"], f.loc[5, "x2"], f.loc[9, "x2"] = np.inf, -np.inf, np.inf
    with pytest.raises(DataCheckError) as info:
        prepare(tmp_path, f)
    assert message(info) == [
        "dataset 'my_data': column 'x1' has 1 infinite value(s) (inf) in 60 rows, which no model fits on; set "
        "datasets.my_data.missing to drop_rows or impute (infinite values then count as missing), or drop the "
        "column with datasets.my_data.drop",
        "dataset 'my_data': column 'x2' has 2 infinite value(s) (inf, -inf) in 60 rows, which no model fits on; set "
        "datasets.my_data.missing to drop_rows or impute (infinite values then count as missing), or drop the "
        "column with datasets.my_data.drop",
    ]
    # the fix: drop_rows removes the three rows, impute keeps them as missing for the fits
    prepared, info_ = prepare(tmp_path, f, missing="drop_rows")[:2]
    assert len(prepared) == 57 and np.isfinite(prepared[["x1", "x2"]].to_numpy()).all()
    assert info_["missing"]["missing_values"] == {"x1": 1, "x2": 2} and info_["missing"]["rows_dropped"] == 3
    prepared = prepare(tmp_path, f, missing="impute")[0]
    assert len(prepared) == 60 and not np.isinf(prepared[["x1", "x2"]].to_numpy()).any()
    assert prepared["x2"].isna().sum() == 2
    # or the column goes
    assert "x2" not in prepare(tmp_path, f.assign(x1=f["x1"].clip(-9, 9)), drop=["x2"])[0].columns
    # an infinite target is named as well (its fix: a missing policy removes the row)
    g = user_frame(60)
    g.loc[0, "y"] = -np.inf
    with pytest.raises(DataCheckError) as info:
        prepare(tmp_path, g)
    assert message(info) == [
        "dataset 'my_data': the target 'y' has 1 infinite value(s) (-inf) in 60 rows, which no model fits on; set "
        "datasets.my_data.missing to drop_rows or impute (infinite values then count as missing)"
    ]
    assert len(prepare(tmp_path, g, missing="impute")[0]) == 59


def test_thousands_separator_gets_read_options_not_categorical(tmp_path):
    f = user_frame(60)
    f["x2"] = [f"{1000 + 3.5 * i:,.1f}" for i in range(60)]  # '1,000.0', '1,003.5', ...
    with pytest.raises(DataCheckError) as info:
        prepare(tmp_path, f)
    assert message(info) == [
        "dataset 'my_data': column 'x2' is text, but 100% of its 60 values are numbers: 60 are written with a "
        "thousands separator ('1,000.0', '1,003.5', '1,007.0', ...); read them as numbers with "
        "datasets.my_data.source.read_options.thousands: ','"
    ]
    prepared = prepare(tmp_path, f, read_options={"thousands": ","})[0]
    np.testing.assert_array_equal(prepared["x2"], 1000 + 3.5 * np.arange(60))
    # the old advice, followed, is now refused: a number declared categorical would be 60 one-hot columns
    with pytest.raises(DataCheckError) as info:
        prepare(tmp_path, f, categorical=["region", "x2"])
    assert message(info) == [
        "dataset 'my_data': column 'x2' is declared categorical (datasets.my_data.categorical) but 100% of its 60 "
        "values are numbers: 60 are written with a thousands separator ('1,000.0', '1,003.5', '1,007.0', ...); read "
        "them as numbers with datasets.my_data.source.read_options.thousands: ','; take it out of "
        "datasets.my_data.categorical (one-hot encoding would make 60 columns of a number)"
    ]


def test_decimal_comma_and_dotted_thousands(tmp_path):
    f = user_frame(40)
    values = 1000 + 12.25 * np.arange(40)
    f["x2"] = [f"{v:,.2f}".replace(",", "_").replace(".", ",").replace("_", ".") for v in values]  # '1.012,25'
    with pytest.raises(DataCheckError, match=r"read_options.thousands: '.' and datasets.my_data.source.read_options"):
        prepare(tmp_path, f)
    prepared = prepare(tmp_path, f, read_options={"thousands": ".", "decimal": ","})[0]
    np.testing.assert_allclose(prepared["x2"], values)
    f["x2"] = [f"{v:.2f}".replace(".", ",") for v in np.linspace(0, 9, 40)]  # '0,23'
    with pytest.raises(DataCheckError) as info:
        prepare(tmp_path, f)
    assert "written with a decimal comma ('0,00', '0,23', '0,46', ...); read them as numbers with " in message(info)[0]
    assert message(info)[0].endswith("datasets.my_data.source.read_options.decimal: ','")
    np.testing.assert_allclose(
        prepare(tmp_path, f, read_options={"decimal": ","})[0]["x2"], np.linspace(0, 9, 40).round(2)
    )


def test_missing_value_markers_get_na_values(tmp_path):
    f = user_frame(60)
    f["x2"] = f["x2"].round(3).astype(str)
    f.loc[[2, 7], "x2"] = "?"
    with pytest.raises(DataCheckError) as info:
        prepare(tmp_path, f)
    assert message(info) == [
        "dataset 'my_data': column 'x2' is text, but 97% of its 60 values are numbers: 2 are '?', a missing-value "
        "marker; read them as missing with datasets.my_data.source.read_options.na_values: ['?'] and set "
        "datasets.my_data.missing to drop_rows or impute"
    ]
    prepared = prepare(tmp_path, f, read_options={"na_values": ["?"]}, missing="drop_rows")[0]
    assert len(prepared) == 58 and prepared["x2"].dtype == np.float64
    # a real text column is still text (no numbers in it)
    assert numeric_reading(pd.Series(["north", "south", "?"] * 5)) is None
    # a column of plain numbers needs nothing
    assert numeric_reading(pd.Series(["1.5", "2", "3"])) is None
    # other sources take no read_options: the message says to convert the column in the source
    advice = reading_advice(pd.Series(["1,001.5", "2,000.0"] * 5), "d", source_kind="openml")
    assert advice == (
        "100% of its 10 values are numbers: 10 are written with a thousands separator ('1,001.5', '2,000.0'); read "
        "them as numbers with read_csv's thousands: ',' (datasets.d.source.kind 'openml' takes no read_options: "
        "convert the column in the source)"
    )


def test_a_target_that_contradicts_its_task(tmp_path):
    f = user_frame(220)
    with pytest.raises(DataCheckError) as info:
        prepare(tmp_path, f, task="classification")
    (line,) = message(info)
    assert line.startswith("dataset 'my_data': the classification target 'y' has 220 classes in 220 rows, numbers ")
    assert line.endswith(
        "that are not all integers (" + line.split("(", 1)[1].split(")")[0] + "): a continuous "
        "response; set datasets.my_data.task: regression"
    )
    assert prepare(tmp_path, f, task="regression")[0]["y"].dtype == np.float64
    # the other way round: a text target declared regression is told to be a classification
    g = user_frame(60).assign(y=lambda d: np.where(d["y"] > 1, "hi", "lo"))
    with pytest.raises(ValueError) as info:
        prepare(tmp_path, g)
    assert str(info.value) == (
        "dataset 'my_data': the regression target 'y' is not numeric (values such as ['hi', 'lo']); regression needs "
        "a numeric target: if it names classes, set datasets.my_data.task: classification"
    )
    prepared, info_ = prepare(tmp_path, g, task="classification", positive_class="hi")[:2]
    assert info_["positive_class"] == "hi" and set(prepared["y"]) == {0, 1}
    # integer classes (wine quality's 3..9) are classes
    h = user_frame(200).assign(y=lambda d: np.arange(200) % 25)
    assert prepare(tmp_path, h, task="classification")[1]["n_classes"] == 25


def test_a_target_missing_in_every_row_names_the_target_not_a_column_to_drop(tmp_path):
    f = user_frame(60).assign(y=np.nan, target=lambda d: d["x1"] * 2)
    with pytest.raises(ValueError) as info:
        prepare(tmp_path, f, missing="impute")
    assert str(info.value) == (
        "dataset 'my_data': the target 'y' is missing in every one of the 60 rows; datasets.my_data.target must "
        "name the column of the response (the table's columns: 'x1', 'region', 'x2', 'target', 'y'), and "
        "datasets.my_data.drop: [y] drop the empty column"
    )
    prepared = prepare(tmp_path, f, missing="impute", target="target", drop=["y"])[0]
    assert len(prepared) == 60
    # drop_rows leaving no row: the emptiest feature columns (never the target) and impute are named
    g = user_frame(60)
    g.loc[::2, "x1"] = np.nan
    g.loc[1::2, "x2"] = np.nan
    with pytest.raises(ValueError) as info:
        prepare(tmp_path, g, missing="drop_rows")
    assert str(info.value) == (
        "dataset 'my_data': datasets.my_data.missing: drop_rows leaves no row (missing values per column: {'x1': 30, "
        "'x2': 30}); drop the emptiest feature column(s) with datasets.my_data.drop; or set datasets.my_data.missing: "
        "impute (it keeps rows with missing features)"
    )
    assert len(prepare(tmp_path, g, missing="impute")[0]) == 60
