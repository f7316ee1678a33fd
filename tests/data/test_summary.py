"""The data summary table (issue 43 item 3): rows read, selected, dropped and used, missing values and
imputed cells per dataset and column, the policy, the logit table's separation; the manifest's record."""

from __future__ import annotations

import pandas as pd

from tests.data.test_own_data_checks import frame_with_missing, load
from xaipipe.data.preparation import prepare_table
from xaipipe.data.registry import preparation_options
from xaipipe.data.summary import DATA_SUMMARY_COLUMNS, data_summary_record, data_summary_table


def _prepared(tmp_path, **keys):
    e, canonical, sidecar = load(tmp_path, frame_with_missing(), categorical=["region"], drop=["x3"], **keys)
    return prepare_table(canonical, sidecar, preparation_options(e))[1], sidecar


def test_an_imputed_dataset_against_its_table(tmp_path):
    info, sidecar = _prepared(tmp_path, missing="impute")
    raw = frame_with_missing()
    table = data_summary_table([info], [sidecar])
    assert list(table.columns) == DATA_SUMMARY_COLUMNS
    assert table["column"].tolist() == ["y", "x1", "region", "x2"]  # the target, then the variables in order
    assert table["role"].tolist() == ["target", "numeric", "categorical (3 levels)", "numeric"]
    row = table.set_index("column")
    assert (table["policy"] == "impute").all() and (table["rows_read"] == 80).all()
    assert (
        (table["rows_dropped"] == 1).all() and (table["rows_used"] == 79).all() and (table["rows_selected"] == 80).all()
    )
    # missing values counted on the raw table (x3 is dropped: not a variable)
    for col in ("y", "x1", "region", "x2"):
        assert row.loc[col, "missing_values"] == raw[col].isna().sum()
    # imputed: rows of the prepared table where the variable is missing (row 20 without y is gone)
    kept = raw.drop(index=20)
    assert row.loc["x1", "cells_imputed"] == kept["x1"].isna().sum() == 3
    assert row.loc["region", "cells_imputed"] == kept["region"].isna().sum() == 2
    assert row.loc["y", "cells_imputed"] == 0 and row.loc["x2", "cells_imputed"] == 0
    assert row.loc["x1", "imputed_share"] == 3 / 79 and row.loc["x1", "imputed"] and not row.loc["x2", "imputed"]
    assert (table["logit_separation"] == "").all()  # regression
    # the manifest's record: the non-zero counts
    record = data_summary_record(table, [{"dataset": "my_data", "warnings": ["w"]}])
    assert record == {
        "my_data": {
            "policy": "impute", "rows_read": 80, "rows_selected": 80, "rows_dropped": 1, "rows_used": 79,
            "missing_values": {"y": 1, "x1": 3, "region": 2}, "cells_imputed": {"x1": 3, "region": 2},
            "logit_separation": "", "warnings": ["w"],
        }
    }  # fmt: skip


def test_drop_rows_and_a_complete_dataset(tmp_path):
    info, sidecar = _prepared(tmp_path, missing="drop_rows")
    table = data_summary_table([info], [sidecar]).set_index("column")
    assert (
        (table["rows_dropped"] == 5).all() and (table["rows_used"] == 75).all() and (table["cells_imputed"] == 0).all()
    )
    assert table.loc["x1", "missing_values"] == 3 and table.loc["y", "missing_values"] == 1
    # a complete table under the default policy: nothing missing, nothing dropped
    frame = frame_with_missing().dropna(subset=["x1", "region", "y"])
    e, canonical, sidecar2 = load(tmp_path, frame, categorical=["region"], drop=["x3"])
    info2 = prepare_table(canonical, sidecar2, preparation_options(e))[1]
    both = data_summary_table([info, info2], [sidecar, sidecar2])
    second = both[both.index >= 4]
    assert (second["policy"] == "error").all() and (second["missing_values"] == 0).all()
    assert (second["rows_read"] == second["rows_used"]).all() and not second["imputed"].any()


def test_logit_checks_are_carried_per_column():
    info = {
        "dataset": "survey", "target": "y", "n_rows": 10, "features": ["x", "g_a", "g_b"],
        "feature_groups": {"g": ["g_a", "g_b"]},
    }  # fmt: skip
    checks = {
        "logit": {
            "separation": "quasi-complete", "not_identified": ["g_b"],
            "rare_levels": [{"column": "g", "level": "b", "term": "g_b", "rows": 2, "classes": ["1"]}],
        }
    }  # fmt: skip
    table = data_summary_table([info], [{"n_rows": 10}], [checks]).set_index("column")
    assert (table["logit_separation"] == "quasi-complete").all()
    assert table.loc["g", "logit_note"] == "level 'b': 2 training rows, classes 1; coefficient diverges (separation)"
    assert table.loc["x", "logit_note"] == "" and table.loc["y", "imputed_share"] == 0.0
    empty = data_summary_table([], [])
    assert isinstance(empty, pd.DataFrame) and list(empty.columns) == DATA_SUMMARY_COLUMNS and empty.empty
