"""xaipipe.paths: the result catalog fills the wildcards it is given, keeps the others
for Snakemake, and rejects unknown results and wildcards."""

from __future__ import annotations

import string

import pytest

from xaipipe.paths import PATHS, result_path


def test_fills_given_wildcards_and_keeps_others():
    assert (
        result_path("cv", "results/v1", dataset="airfoil", family="xgboost")
        == "results/v1/models/airfoil/cv/xgboost.csv"
    )
    assert result_path("cv", "results/v1", dataset="airfoil") == "results/v1/models/airfoil/cv/{family}.csv"
    assert result_path("cv", "results/v1") == "results/v1/models/{dataset}/cv/{family}.csv"
    assert result_path("manifest", "results/v2") == "results/v2/manifest.json"
    assert result_path("model_figure", "r", dataset="wine", kind="ice", ext="pdf") == "r/figures/wine/{family}/ice.pdf"
    # a study takes the dataset slot of the Rashomon paths
    assert result_path("mcr", "r", dataset="abalone_study") == "r/rashomon/abalone_study/mcr.csv"


def test_rejects_unknown_results_and_wildcards():
    with pytest.raises(KeyError, match="unknown result 'cvs'"):
        result_path("cvs", "results/v1")
    with pytest.raises(KeyError, match=r"has no wildcard\(s\) \['family'\]"):
        result_path("split", "results/v1", dataset="airfoil", family="xgboost")
    with pytest.raises(KeyError, match=r"\['dataset'\]"):
        result_path("manifest", "results/v1", dataset="airfoil")


def test_catalog_is_relative_and_uses_the_workflow_wildcards():
    wildcards = {"dataset", "family", "name", "kind", "ext", "illustration", "shard"}
    for key, template in PATHS.items():
        assert not template.startswith("/") and ".." not in template, key
        fields = {f for _, f, _, _ in string.Formatter().parse(template) if f}
        assert fields <= wildcards, (key, fields)
        assert result_path(key, "R", **{f: f.upper() for f in fields}).startswith("R/")
