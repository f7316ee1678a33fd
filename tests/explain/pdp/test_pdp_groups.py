"""Two-way PD with a one-hot group (category x numeric, category x category) against brute force."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats.mstats import mquantiles
from sklearn.ensemble import GradientBoostingRegressor, RandomForestClassifier

from xaipipe.explain import pdp
from xaipipe.io import write_csv

NAMES = ["x0", "s_f", "s_i", "s_m", "x1", "r_e", "r_w"]
GROUPS = {"s": ["s_f", "s_i", "s_m"], "r": ["r_e", "r_w"]}


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(21)
    n = 150
    s, r = rng.integers(0, 3, n), rng.integers(0, 2, n)
    X = np.column_stack([rng.normal(size=n), np.eye(3)[s], rng.uniform(0, 4, n), np.eye(2)[r]])
    y = X[:, 0] + np.array([0.0, 1.0, -2.0])[s] * X[:, 4] + 1.5 * r * (s == 1) + 0.1 * rng.normal(size=n)
    model = GradientBoostingRegressor(n_estimators=30, max_depth=3, random_state=0).fit(X, y)
    return X, y, model


def _brute(model, X, settings, output=lambda m, Z: m.predict(Z)):
    """Average prediction over the rows of X with the columns in ``settings`` set."""
    Z = X.copy()
    for cols, value in settings:
        Z[:, cols] = value
    return float(np.mean(output(model, Z)))


@pytest.mark.parametrize("order", ["group_first", "group_second"])
def test_category_by_numeric_equals_brute_force(data, order):
    X, _, model = data
    pair = ("s", "x1") if order == "group_first" else ("x1", "s")
    eff = pdp.explain_pair(model, X, pair, feature_names=NAMES, feature_groups=GROUPS, resolution=6)
    grid = np.linspace(*mquantiles(X[:, 4], [0.05, 0.95]), 6)  # explain_pair's default grid (scikit-learn's)
    if order == "group_first":
        assert eff.levels_1 == ("s_f", "s_i", "s_m") and eff.levels_2 is None
        np.testing.assert_array_equal(eff.values_1, [0.0, 1.0, 2.0])
        assert eff.deciles_1.size == 0 and eff.deciles_2.size == 9
        pd_level_by_grid = eff.pd
    else:
        assert eff.levels_1 is None and eff.levels_2 == ("s_f", "s_i", "s_m")
        pd_level_by_grid = eff.pd.T
    assert eff.categorical == ((True, False) if order == "group_first" else (False, True))
    assert pd_level_by_grid.shape == (3, 6)
    np.testing.assert_allclose(eff.values_2 if order == "group_first" else eff.values_1, grid, rtol=1e-12)
    for level in range(3):
        for k, z in enumerate(grid):
            want = _brute(model, X, [([1, 2, 3], np.eye(3)[level]), (4, z)])
            assert pd_level_by_grid[level, k] == pytest.approx(want, rel=1e-12, abs=1e-12)


def test_category_by_category_and_classifier_output(data):
    X, y, model = data
    eff = pdp.explain_pair(model, X, ("r", "s"), feature_names=NAMES, feature_groups=GROUPS)
    assert eff.pd.shape == (2, 3) and eff.levels_1 == ("r_e", "r_w") and eff.levels_2 == ("s_f", "s_i", "s_m")
    for a in range(2):
        for b in range(3):
            want = _brute(model, X, [([5, 6], np.eye(2)[a]), ([1, 2, 3], np.eye(3)[b])])
            assert eff.pd[a, b] == pytest.approx(want, rel=1e-12)
    # a classifier's probability of class 1, groups given as column lists, X as a DataFrame
    frame = pd.DataFrame(X, columns=NAMES)
    clf = RandomForestClassifier(n_estimators=20, random_state=0).fit(frame, (y > np.median(y)).astype(int))
    eff = pdp.explain_pair(clf, frame, (["s_f", "s_i", "s_m"], "x0"), resolution=4)
    assert eff.feature_1 == "s_f+s_i+s_m" and eff.output == "proba"
    for level in range(3):
        for k, z in enumerate(eff.values_2):
            settings = [([1, 2, 3], np.eye(3)[level]), (0, z)]
            want = _brute(clf, X, settings, lambda m, Z: m.predict_proba(pd.DataFrame(Z, columns=NAMES))[:, 1])
            assert eff.pd[level, k] == pytest.approx(want, rel=1e-12)


def test_drop_first_group_has_the_reference_level(data):
    X, _, model = data
    Xd = X.copy()
    Xd[Xd[:, 1] == 1, 1] = 0.0  # s_f dropped: those rows have no level set
    eff = pdp.explain_pair(model, Xd, ("s", "x0"), feature_names=NAMES, feature_groups=GROUPS, resolution=3)
    assert eff.levels_1 == ("(none)", "s_f", "s_i", "s_m")
    want = _brute(model, Xd, [([1, 2, 3], np.zeros(3)), (0, eff.values_2[1])])
    assert eff.pd[0, 1] == pytest.approx(want, rel=1e-12)


def test_pair_table_with_levels_round_trips_through_csv(data, tmp_path):
    X, _, model = data
    eff = pdp.explain_pair(model, X, ("x1", "s"), feature_names=NAMES, feature_groups=GROUPS, resolution=4)
    table = pdp.pair_table(eff)
    assert list(table.columns) == ["feature_1", "feature_2", "value_1", "value_2", "level_1", "level_2", "pd"]
    assert set(table["level_1"]) == {""} and list(table["level_2"][:3]) == ["s_f", "s_i", "s_m"]
    path = tmp_path / "pd_2d.csv"
    write_csv(path, table)
    back = pdp.pair_from_table(pd.read_csv(path, keep_default_na=False, na_values=[""]), "x1", "s")
    np.testing.assert_array_equal(back.pd, eff.pd)
    assert back.levels_1 is None and back.levels_2 == eff.levels_2
    # a numeric pair in the same table gets "" levels; alone it keeps the five columns
    both = pdp.pair_table([eff, pdp.explain_pair(model, X, (0, 4), resolution=3)])
    assert set(both.loc[both["feature_1"] == "x0", "level_1"]) == {""}
    assert list(pdp.pair_table(pdp.explain_pair(model, X, (0, 4), resolution=3)).columns) == [
        "feature_1",
        "feature_2",
        "value_1",
        "value_2",
        "pd",
    ]


def test_pair_input_errors(data):
    X, _, model = data
    kw = dict(feature_names=NAMES, feature_groups=GROUPS)
    with pytest.raises(ValueError, match="same feature twice"):
        pdp.explain_pair(model, X, ("s", "s_i"), **kw)
    with pytest.raises(ValueError, match="its grid is its levels"):
        pdp.explain_pair(model, X, ("s", "x0"), grids=([0, 1, 2], [0.0, 1.0]), **kw)
    with pytest.raises(ValueError, match="one-hot"):
        pdp.explain_pair(model, X, ([0, 4], "r_e"), **kw)  # two numeric columns are no one-hot group
