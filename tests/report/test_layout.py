"""The report's layout: a subcategory per seed document, and the captions' note on missing values."""

from __future__ import annotations

import pytest

from xaipipe.report.layout import DATA_SUMMARY_TABLE, THESES, missing_values_note, thesis_subcategory


def test_thesis_figures_and_tables_go_under_their_seed_document():
    import yaml

    from tests.workflow.test_report_captions import REPO

    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    names = list(config["thesis"]["figures"]) + list(config["thesis"]["tables"])
    assert {thesis_subcategory(n) for n in names} <= set(THESES.values())  # every configured one is known
    assert thesis_subcategory("001_fig_5_2") == THESES["001"] and thesis_subcategory("000_fig_4_8") == THESES["000"]
    assert thesis_subcategory("003") == THESES["003"]
    assert thesis_subcategory("042_fig_1") == "042"  # a prefix not listed is its own subcategory


def test_the_seed003_figures_share_the_subcategory_of_their_table():
    from xaipipe.plots.catalog import GROUPS

    assert (GROUPS["seed003"].category, GROUPS["seed003"].subcategory) == ("thesis", THESES["003"])


def test_missing_values_note():
    assert missing_values_note("abalone", "error") == ""
    imputed = missing_values_note("my_data", "impute")
    assert imputed.startswith("**Missing values imputed.**") and "``my_data``" in imputed
    assert DATA_SUMMARY_TABLE in imputed and "data/my_data/prepared.json" in imputed
    dropped = missing_values_note("my_data", "drop_rows")
    assert "dropped" in dropped and DATA_SUMMARY_TABLE in dropped
    with pytest.raises(ValueError, match="policy"):
        missing_values_note("my_data", "mean")
