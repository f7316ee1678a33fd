"""The ``ale`` and ``h_statistic`` rules' tables (xaipipe.explain.pdp.ale_tables, h_statistic_table):
ALE beside PD and H² of every variable, against brute force, closed forms and the library functions
they wrap."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pytest
from sklearn.ensemble import GradientBoostingRegressor
from sklearn.linear_model import LinearRegression

from tests.conftest import REPO
from tests.explain._dependent_data import GROUPS, NAMES, dependent_data
from xaipipe.config import AleSettings, HStatisticSettings
from xaipipe.explain.pdp import ALE_2D_COLUMNS, ALE_TABLE_COLUMNS, ale_tables, h_statistic_table
from xaipipe.explain.pdp._grid import DEFAULT_MAX_BATCH_ROWS

#: The entries' settings of these tests: seed 0, the model's own output, no large-data policy.
ALE = AleSettings(seed=0, output="auto", max_batch_rows=DEFAULT_MAX_BATCH_ROWS, large_data=None)
H2 = HStatisticSettings(seed=0, output="auto", max_batch_rows=DEFAULT_MAX_BATCH_ROWS, n_rows_random_forest=300)


def _split(X, names=NAMES, groups=None, classes=None):
    """The test rows ``X`` as the entries' data object."""
    return SimpleNamespace(X_test=X, features=list(names), feature_groups=groups, classes=classes)


def _pd_brute(model, X, col_values: dict) -> float:
    Z = X.copy()
    for j, v in col_values.items():
        Z[:, j] = v
    return float(model.predict(Z).mean())


def test_ale_equals_pd_for_a_model_additive_in_the_variable():
    # linear model: PD and ALE are the same line (and the same level effects) even though a and b
    # are strongly dependent, once both are centred the same way (both centerings)
    X, y = dependent_data()
    lr = LinearRegression().fit(X, y)
    for centering in ("ale_plot", "paper"):
        ale, ale_2d, skipped = ale_tables(
            lr, _split(X, groups=GROUPS), replace(ALE, centering=centering), ranking=["a", "S"], pair=("a", "c")
        )
        assert skipped == []
        assert list(ale.columns) == ALE_TABLE_COLUMNS
        assert set(ale["feature"]) == {"a", "b", "c", "S"}
        assert np.abs(ale["pd_centred"] - ale["ale"]).max() < 1e-12
        assert (ale["centering"] == centering).all()
        # the 2-D ALE of an additive model is 0
        assert list(ale_2d.columns) == ALE_2D_COLUMNS and np.abs(ale_2d["ale"]).max() < 1e-12
    ranks = ale.drop_duplicates("feature").set_index("feature")["rank"]
    assert ranks.to_dict() == {"a": 1, "b": 0, "c": 0, "S": 2}
    cat = ale[ale.feature == "S"]
    assert (cat["kind"] == "categorical").all() and set(cat["level"]) == {"S_F", "S_I", "S_M"}
    assert cat["n_rows"].sum() == len(X)


def test_pd_column_is_the_brute_force_partial_dependence():
    X, y = dependent_data(n=200, seed=1)
    gb = GradientBoostingRegressor(n_estimators=30, max_depth=3, random_state=0).fit(X, y)
    ale, _, _ = ale_tables(gb, _split(X, groups=GROUPS), replace(ALE, n_bins=8))
    num = ale[ale.feature == "a"]
    for z, pdv in zip(num["value"], num["pd"]):
        assert pdv == pytest.approx(_pd_brute(gb, X, {0: z}), abs=1e-12)
    lv = {"S_F": [1, 0, 0], "S_I": [0, 1, 0], "S_M": [0, 0, 1]}
    for level, pdv in zip(ale.loc[ale.feature == "S", "level"], ale.loc[ale.feature == "S", "pd"]):
        assert pdv == pytest.approx(_pd_brute(gb, X, dict(zip([3, 4, 5], lv[level]))), abs=1e-12)
    # bins: at most n_bins, every bin has rows, edges increasing
    assert num["position"].max() <= 8 and (num["n_rows"].iloc[1:] > 0).all()
    assert np.all(np.diff(num["value"].to_numpy()) > 0)


def test_pd_and_ale_part_where_the_model_extrapolates():
    # f = a * b on strongly dependent a ~ b: ALE of a follows the data (a * a), PD averages over
    # impossible (a, b) pairs and is flat; the gap is large
    rng = np.random.default_rng(2)
    a = rng.uniform(-1, 1, 500)
    X = np.column_stack([a, a + 0.02 * rng.normal(size=500)])

    class Product:
        def predict(self, Z):
            return Z[:, 0] * Z[:, 1]

    ale, _, _ = ale_tables(Product(), _split(X, ["a", "b"]), replace(ALE, output="predict"))
    part = ale[ale.feature == "a"]
    assert np.ptp(part["pd_centred"]) < 0.2 and np.ptp(part["ale"]) > 0.5


def test_constant_variables_and_group_pairs_are_skipped():
    X, y = dependent_data(n=100, seed=3)
    X[:, 2] = 0.5  # c constant
    lr = LinearRegression().fit(X, y)
    ale, ale_2d, skipped = ale_tables(lr, _split(X, groups=GROUPS), ALE, pair=("a", "S"))
    assert skipped == ["c"] and "c" not in set(ale["feature"])
    assert ale_2d.empty and list(ale_2d.columns) == ALE_2D_COLUMNS  # a group is no numeric pair


def test_h_statistic_table_totals_for_every_variable_pairs_of_the_top():
    X, y = dependent_data(n=120, seed=4)
    lr = LinearRegression().fit(X, y)
    table = h_statistic_table(lr, _split(X, groups=GROUPS), replace(H2, n_rows=60, n_bootstrap=5), top=["c", "a", "S"])
    tot = table[table.kind == "total"]
    assert tot["feature"].tolist() == ["a", "b", "c", "S"]
    assert tot.set_index("feature")["rank"].to_dict() == {"a": 2, "b": 0, "c": 1, "S": 3}
    pw = table[table.kind == "pairwise"]
    assert set(zip(pw.feature_1, pw.feature_2)) == {("c", "a"), ("c", "S"), ("a", "S")}
    assert (table["h2"].abs() < 1e-20).all()  # additive model: no interaction
    assert (table["n_rows"] == 60).all() and (table["n_bootstrap"] == 5).all()


def test_ale_and_h_statistic_of_a_multiclass_model_explain_the_chosen_class():
    """``class_index`` picks the column of ``predict_proba``: the tables equal those of the callable
    that returns that class's probability (and differ from the default class 1)."""
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(2)
    X = rng.normal(size=(150, 3))
    y = np.digitize(X[:, 0] + 0.5 * X[:, 1] * X[:, 2] + 0.3 * rng.normal(size=150), [-0.5, 0.5])
    model = LogisticRegression().fit(X, y)
    names = ["a", "b", "c"]

    def proba_0(Z):
        return model.predict_proba(Z)[:, 0]

    # class 0 of a multiclass dataset: explain.figure_class "0" of the classes "0", "1", "2"
    multi, plain = _split(X, names, classes=["0", "1", "2"]), _split(X, names)
    ale_s = replace(ALE, output="proba", n_bins=5)
    ale = ale_tables(model, multi, replace(ale_s, figure_class="0")).ale.drop(columns="class")
    oracle = ale_tables(proba_0, plain, replace(ALE, n_bins=5)).ale
    np.testing.assert_allclose(ale["ale"], oracle["ale"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(ale["pd"], oracle["pd"], rtol=0, atol=1e-12)
    default = ale_tables(model, plain, ale_s).ale  # binary data: class 1
    assert not np.allclose(default["ale"], ale["ale"])
    h_s = replace(H2, n_rows=40, n_bootstrap=5)
    h = h_statistic_table(model, multi, replace(h_s, output="proba", figure_class="0"), top=names)
    h_oracle = h_statistic_table(proba_0, plain, h_s, top=names)
    np.testing.assert_allclose(h["h2"], h_oracle["h2"], rtol=0, atol=1e-12)


def test_the_entries_explain_figure_class_and_name_it_in_a_class_column(default_settings):
    """ale_tables / h_statistic_table of a multiclass dataset: ``explain.figure_class`` picks the
    column of ``predict_proba`` (the tables equal those of the callable returning that class's
    probability) and is the first column ``class``; None: the first class; an unknown class: an
    error naming the config key. Regression and binary data: no ``class`` column."""
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(8)
    X = rng.normal(size=(120, 3))
    y = np.digitize(X[:, 0] + X[:, 1] * X[:, 2] + 0.3 * rng.normal(size=120), [-0.5, 0.5])
    model = LogisticRegression().fit(X, y)
    ale_s, h_s = default_settings
    ale_s = replace(ale_s, output="proba", n_bins=5, pair_bins=3, large_data=None)
    h_s = replace(h_s, output="proba", n_rows=40, n_bootstrap=3)
    data = SimpleNamespace(X_test=X, features=["a", "b", "c"], feature_groups=None, classes=["low", "mid", "high"])
    plain = SimpleNamespace(**{**vars(data), "classes": None})  # the oracle: a callable, output "auto"
    ale_auto, h_auto = replace(ale_s, output="auto"), replace(h_s, output="auto")
    for figure_class, k in (("mid", 1), ("high", 2), (None, 0)):
        ale, ale_2d, _ = ale_tables(model, data, replace(ale_s, figure_class=figure_class), pair=("a", "b"))
        label = ["low", "mid", "high"][k]
        assert ale.columns[0] == "class" and (ale["class"] == label).all() and (ale_2d["class"] == label).all()
        oracle, oracle_2d, _ = ale_tables(lambda Z, k=k: model.predict_proba(Z)[:, k], plain, ale_auto, pair=("a", "b"))
        assert "class" not in oracle.columns
        np.testing.assert_allclose(ale["ale"], oracle["ale"], rtol=0, atol=1e-12)
        np.testing.assert_allclose(ale["pd"], oracle["pd"], rtol=0, atol=1e-12)
        np.testing.assert_allclose(ale_2d["ale"], oracle_2d["ale"], rtol=0, atol=1e-12)
        h = h_statistic_table(model, data, replace(h_s, figure_class=figure_class), top=["a", "b", "c"])
        h_oracle = h_statistic_table(lambda Z, k=k: model.predict_proba(Z)[:, k], plain, h_auto, top=["a", "b", "c"])
        assert h.columns[0] == "class" and (h["class"] == label).all()
        np.testing.assert_allclose(h["h2"], h_oracle["h2"], rtol=0, atol=1e-12)
    with pytest.raises(ValueError, match="config key explain.figure_class: 'medium' is not a class"):
        ale_tables(model, data, replace(ale_s, figure_class="medium"))


@pytest.fixture
def default_settings():
    """AleSettings and HStatisticSettings of the default configuration (classification, ridge)."""
    import yaml

    from xaipipe.schema import validate_config

    repo = REPO
    config = yaml.safe_load((repo / "config" / "config.yaml").read_text())
    config = validate_config(config, repo / "workflow" / "schemas" / "config.schema.yaml") or config
    return AleSettings.from_config(config, "classification"), HStatisticSettings.from_config(
        config, "classification", "logistic_regression"
    )
