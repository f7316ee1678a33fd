"""Preparation choices of the thesis and their error messages."""

from __future__ import annotations

import numpy as np
import pytest

from xaipipe.data.preparation import correlation_matrix, prepare_table
from xaipipe.data.prepare import check_features


def test_airfoil_drops_attack_angle(canonical):
    prepared, info, corr_in = prepare_table(*canonical["airfoil"], {"drop": ["attack-angle"]})
    assert "attack-angle" not in info["features"]
    assert "attack-angle" in corr_in.columns  # correlation is computed before the drop
    assert list(prepared.columns) == ["row_id"] + info["features"] + ["scaled-sound-pressure"]
    assert prepared.shape == (1503, 1 + 4 + 1)


def test_wine_white_variant_is_the_thesis_data(canonical):
    prepared, info, _ = prepare_table(*canonical["wine_quality"], {"variant": "white", "drop": ["free_sulfur_dioxide"]})
    assert info["n_rows"] == 4898
    assert len(info["features"]) == 10 and "free_sulfur_dioxide" not in info["features"]
    assert "color" not in prepared.columns
    assert prepared["row_id"].min() == 1599  # row ids point into the canonical table (red rows first)


def test_wine_both_adds_colour_feature(canonical):
    prepared, info, _ = prepare_table(*canonical["wine_quality"], {"variant": "both"})
    assert info["n_rows"] == 6497 and "color_red" in info["features"]
    assert prepared["color_red"].sum() == 1599


def test_abalone_one_hot_sex_is_a_group(canonical):
    prepared, info, _ = prepare_table(*canonical["abalone"], {"one_hot": ["Sex"]})
    assert info["feature_groups"] == {"Sex": ["Sex_F", "Sex_I", "Sex_M"]}
    assert info["features"][:3] == ["Sex_F", "Sex_I", "Sex_M"]
    np.testing.assert_array_equal(prepared[["Sex_F", "Sex_I", "Sex_M"]].sum(axis=1), 1.0)
    assert prepared["Sex_M"].sum() == 1528


def test_breast_cancer_malignant_is_one(canonical):
    prepared, info, corr_in = prepare_table(*canonical["breast_cancer"], {"positive_class": "M"})
    assert info["class_counts"] == {"0": 357, "1": 212}
    assert prepared["Diagnosis"].dtype == np.int64
    assert "ID" not in info["features"] and len(info["features"]) == 30
    assert "Diagnosis" in corr_in.columns


def test_unknown_columns_name_the_config_key(canonical):
    with pytest.raises(ValueError, match=r"datasets.airfoil.drop.*'angle'"):
        prepare_table(*canonical["airfoil"], {"drop": ["angle"]})
    with pytest.raises(ValueError, match=r"datasets.abalone.one_hot"):
        prepare_table(*canonical["abalone"], {"one_hot": ["sex"]})
    with pytest.raises(
        ValueError,
        match=r"column 'Sex' is text \(3 levels: 'F', 'I', 'M'\); declare it categorical \(datasets\.abalone\.categorical",
    ):
        prepare_table(*canonical["abalone"], {"one_hot": []})
    with pytest.raises(ValueError, match=r"variant"):
        prepare_table(*canonical["wine_quality"], {"variant": "rose"})
    with pytest.raises(ValueError, match=r"positive_class"):
        prepare_table(*canonical["breast_cancer"], {"positive_class": "X"})


def test_constant_and_nan_columns_are_rejected(canonical):
    frame, sidecar = canonical["concrete"]
    const = frame.copy()
    const["Age"] = 28.0
    with pytest.raises(ValueError, match=r"'concrete': column 'Age' is constant \(every value 28\.0\)"):
        prepare_table(const, sidecar, {})
    nan = frame.copy()
    nan["Water"] = np.nan
    with pytest.raises(ValueError, match=r"'concrete': column 'Water' is empty"):
        prepare_table(nan, sidecar, {})
    some = frame.copy()
    some.loc[3, "Cement"] = np.nan
    with pytest.raises(ValueError, match=r"missing values"):
        check_features(some, "concrete", ["Cement"])


def test_correlation_matrix_is_pandas_pearson(canonical):
    _, _, corr_in = prepare_table(*canonical["concrete"], {})
    corr = correlation_matrix(corr_in)
    assert corr["variable"].tolist() == list(corr_in.columns)
    np.testing.assert_allclose(corr.drop(columns="variable").to_numpy(), np.corrcoef(corr_in.to_numpy().T), atol=1e-12)
