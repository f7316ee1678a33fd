"""xaipipe.explain.dependence: the workflow tables of issue 35 (ALE beside PD, H², SHAP interaction
summary, conditional / grouped MR rows and their ranking agreement), against brute force, closed forms
and the library functions they wrap."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.ensemble import GradientBoostingRegressor
from sklearn.linear_model import LinearRegression

from xaipipe.config import AleSettings, HStatisticSettings, LargeDataSettings, RelianceSettings
from xaipipe.explain.dependence import (
    ALE_2D_COLUMNS,
    ALE_TABLE_COLUMNS,
    ale_tables,
    dependent_ranking_agreement,
    dependent_reliance_rows,
    h_statistic_table,
    shap_interaction_tables,
)
from xaipipe.explain.pdp._grid import DEFAULT_MAX_BATCH_ROWS
from xaipipe.explain.reliance import RelianceOptions, conditional_model_reliance, model_reliance
from xaipipe.explain.summary import ranking_tables, reliance_tables

NAMES = ["a", "b", "c", "S_F", "S_I", "S_M"]
GROUPS = {"S": ["S_F", "S_I", "S_M"]}
#: The entries' settings of these tests: seed 0, the model's own output, no large-data policy.
ALE = AleSettings(seed=0, output="auto", max_batch_rows=DEFAULT_MAX_BATCH_ROWS, large_data=None)
H2 = HStatisticSettings(seed=0, output="auto", max_batch_rows=DEFAULT_MAX_BATCH_ROWS, n_rows_random_forest=300)
MR = RelianceSettings(seed=7, n_repeats=10, large_data=None)


def _split(X, names=NAMES, groups=None, classes=None):
    """The test rows ``X`` as the entries' data object."""
    return SimpleNamespace(X_test=X, features=list(names), feature_groups=groups, classes=classes)


def _mr_split(X, y, n_train):
    """Training rows ``X[:n_train]``, test rows the rest: the MR entries' data object."""
    return SimpleNamespace(
        X_train=X[:n_train], X_test=X[n_train:], y_test=y[n_train:], features=NAMES, feature_groups=GROUPS, dataset="d"
    )


def _reliance_rows(m):
    """The ``reliance`` policy with cap ``m``, applying above ``m`` test rows."""
    return LargeDataSettings(min_rows=m, reliance_rows=m, shap_rows=None, pd_rows=None, shap_trees=None)


def _data(n=300, seed=0, coupling=0.05):
    """a, b correlated (b = a + noise), c independent, a one-hot group S whose level depends on c."""
    rng = np.random.default_rng(seed)
    a = rng.uniform(-1, 1, n)
    b = a + coupling * rng.normal(size=n)
    c = rng.uniform(-1, 1, n)
    level = np.digitize(c + 0.5 * rng.normal(size=n), [-0.3, 0.3])
    X = np.column_stack([a, b, c, np.eye(3)[level]])
    y = 2 * a + c + X[:, 3] - 0.5 * X[:, 5] + 0.3 * rng.normal(size=n)
    return X, y


def _pd_brute(model, X, col_values: dict) -> float:
    Z = X.copy()
    for j, v in col_values.items():
        Z[:, j] = v
    return float(model.predict(Z).mean())


def test_ale_equals_pd_for_a_model_additive_in_the_variable():
    # linear model: PD and ALE are the same line (and the same level effects) even though a and b
    # are strongly dependent, once both are centred the same way (both centerings)
    X, y = _data()
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
    X, y = _data(n=200, seed=1)
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
    X, y = _data(n=100, seed=3)
    X[:, 2] = 0.5  # c constant
    lr = LinearRegression().fit(X, y)
    ale, ale_2d, skipped = ale_tables(lr, _split(X, groups=GROUPS), ALE, pair=("a", "S"))
    assert skipped == ["c"] and "c" not in set(ale["feature"])
    assert ale_2d.empty and list(ale_2d.columns) == ALE_2D_COLUMNS  # a group is no numeric pair


def test_h_statistic_table_totals_for_every_variable_pairs_of_the_top():
    X, y = _data(n=120, seed=4)
    lr = LinearRegression().fit(X, y)
    table = h_statistic_table(lr, _split(X, groups=GROUPS), replace(H2, n_rows=60, n_bootstrap=5), top=["c", "a", "S"])
    tot = table[table.kind == "total"]
    assert tot["feature"].tolist() == ["a", "b", "c", "S"]
    assert tot.set_index("feature")["rank"].to_dict() == {"a": 2, "b": 0, "c": 1, "S": 3}
    pw = table[table.kind == "pairwise"]
    assert set(zip(pw.feature_1, pw.feature_2)) == {("c", "a"), ("c", "S"), ("a", "S")}
    assert (table["h2"].abs() < 1e-20).all()  # additive model: no interaction
    assert (table["n_rows"] == 60).all() and (table["n_bootstrap"] == 5).all()


def test_shap_interaction_tables_from_the_long_table():
    rng = np.random.default_rng(5)
    iv = rng.normal(size=(7, 3, 3))
    iv = (iv + iv.transpose(0, 2, 1)) / 2
    names = ["u", "v", "w"]
    long = pd.DataFrame(
        [
            {
                "dataset": "d",
                "model": "m",
                "row": r,
                "feature_1": names[j],
                "feature_2": names[k],
                "interaction_value": iv[r, j, k],
            }
            for r in range(7)
            for j in range(3)
            for k in range(3)
        ]
    ).sample(frac=1, random_state=0)
    pairs, matrix, summary = shap_interaction_tables(long)
    M = matrix.pivot(index="feature_1", columns="feature_2", values="mean_abs_interaction").loc[names, names]
    np.testing.assert_allclose(M.to_numpy(), np.abs(iv).mean(axis=0), atol=1e-15)
    assert len(pairs) == 3 and pairs["rank"].tolist() == [1, 2, 3]
    top = pairs.iloc[0]
    assert top["mean_abs_pair"] == pytest.approx(2 * M.loc[top.feature_1, top.feature_2])
    empty = shap_interaction_tables(long.iloc[:0])
    assert empty[0].empty and empty[1].empty and empty[2] is None


def _reliance(model, X, y, n_train, estimators=("permutation",)):
    split = _mr_split(X, y, n_train)
    rel, gain = reliance_tables(model, split, replace(MR, estimators=tuple(estimators)), family="f")
    dep = dependent_reliance_rows(model, split, MR, family="f", columns=list(rel.columns))
    return rel, gain, dep


def test_dependent_rows_have_the_columns_of_the_marginal_rows():
    X, y = _data(n=500, seed=6)
    lr = LinearRegression().fit(X[:300], y[:300])
    rel, _, dep = _reliance(lr, X, y, 300)
    assert list(dep.columns) == list(rel.columns)
    assert dep["estimator"].tolist() == ["conditional_permutation"] * 4 + ["grouped_permutation"] * 3
    grouped = dep[dep.estimator == "grouped_permutation"].set_index("feature")
    assert list(grouped.index) == ["a+b", "c", "S"]  # |r(a, b)| > 0.9: one cluster
    cond = dep[dep.estimator == "conditional_permutation"].set_index("feature")["mr_difference"]
    marg = rel.set_index("feature")["mr_difference"]
    # a is nearly a function of b: its conditional MR is far below the marginal one; c, only partly
    # predictable from S, keeps a good share of it
    assert cond["a"] < 0.1 * marg["a"] and cond["c"] > 0.25 * marg["c"]
    # the clusters permuted jointly: model_reliance with those groups and the same seed, bitwise
    ref = model_reliance(
        lr, X[300:], y[300:], features={"a+b": [0, 1], "c": [2], "S": [3, 4, 5]}, options=RelianceOptions(feature_names=NAMES),
        estimator="permutation", n_repeats=10, random_state=7,
    ).to_frame().set_index("feature")  # fmt: skip
    np.testing.assert_array_equal(grouped["mr_difference"].to_numpy(), ref["mr_difference"].to_numpy())


def test_grouped_rows_equal_the_permutation_rows_without_clusters():
    X, y = _data(n=400, seed=8, coupling=2.0)  # weakly correlated a, b: every cluster one variable
    lr = LinearRegression().fit(X[:200], y[:200])
    rel, _, dep = _reliance(lr, X, y, 200)
    grouped = dep[dep.estimator == "grouped_permutation"].drop(columns=["estimator"]).reset_index(drop=True)
    perm = rel.drop(columns=["estimator"]).reset_index(drop=True)
    pd.testing.assert_frame_equal(grouped, perm)


def test_grouped_rows_under_the_large_data_policy():
    """reliance_rows (large_data.reliance_rows): grouped_permutation on the subsample design of the
    permutation rows (equal to them without clusters), conditional_permutation on its own
    subsample design (conditional_model_reliance(..., subsample_rows=)), e_orig on every row."""
    X, y = _data(n=400, seed=8, coupling=2.0)
    lr = LinearRegression().fit(X[:200], y[:200])
    Xtr, Xte, yte = X[:200], X[200:], y[200:]
    split, sub = _mr_split(X, y, 200), replace(MR, large_data=_reliance_rows(50))
    rel, _ = reliance_tables(lr, split, replace(sub, estimators=("permutation",)), family="f")
    dep = dependent_reliance_rows(lr, split, sub, family="f", columns=list(rel.columns))
    full = dependent_reliance_rows(lr, split, MR, family="f", columns=list(rel.columns))
    grouped = dep[dep.estimator == "grouped_permutation"].drop(columns=["estimator"]).reset_index(drop=True)
    pd.testing.assert_frame_equal(grouped, rel.drop(columns=["estimator"]).reset_index(drop=True))
    assert (grouped["n_samples"] == 50).all() and (grouped["algorithm"] == "subsampled_permutations").all()
    cond = dep[dep.estimator == "conditional_permutation"].reset_index(drop=True)
    every = full[full.estimator == "conditional_permutation"].reset_index(drop=True)
    assert (cond["n_samples"] == 50).all() and (cond["algorithm"] == "subsampled_tree_strata_permutations").all()
    assert (every["n_samples"] == 200).all() and (every["algorithm"] == "tree_strata_permutations").all()
    pd.testing.assert_series_equal(cond["e_orig"], every["e_orig"])
    expected = conditional_model_reliance(
        lr,
        Xte,
        yte,
        Xtr,
        options=RelianceOptions(feature_groups=GROUPS, feature_names=NAMES, subsample_rows=50),
        n_repeats=10,
        random_state=7,
    ).to_frame()
    np.testing.assert_array_equal(cond["mr_difference"], expected["mr_difference"])
    assert cond["mr_difference_se"].notna().all()


def test_unknown_dependent_estimator_is_rejected():
    X, y = _data(n=60)
    with pytest.raises(ValueError, match="unknown dependent-feature estimator"):
        dependent_reliance_rows(
            LinearRegression().fit(X, y),
            SimpleNamespace(X_train=X, X_test=X, y_test=y, features=NAMES, feature_groups=None, dataset="d"),
            replace(MR, dependent={**MR.dependent, "estimators": ["e_switch"]}),
            family="f",
        )


def test_ranking_agreement_rows_of_the_new_measures():
    X, y = _data(n=500, seed=9)
    models = {"lr": LinearRegression().fit(X[:300], y[:300])}
    tables, gains, shaps = [], [], []
    for name, m in models.items():
        rel, gain, dep = _reliance(m, X, y, 300)
        tables.append(pd.concat([rel, dep], ignore_index=True).assign(model=name))
        gains.append(gain.assign(model=name))
        shap = pd.DataFrame(
            {"row": np.repeat(np.arange(5), 6), "feature": NAMES * 5, "shap_value": np.tile(np.arange(6.0), 5)}
        )
        shaps.append(shap)
    importances, agreement = ranking_tables(
        tables, gains, shaps, dataset="d", feature_groups=GROUPS, loss="squared_error"
    )
    extra = dependent_ranking_agreement(tables, importances, loss="squared_error")
    assert list(extra.columns) == list(agreement.columns)
    pairs = list(zip(extra.measure_1, extra.measure_2))
    assert pairs == [
        ("model_reliance", "conditional_reliance"),
        ("mean_abs_shap", "conditional_reliance"),
        ("split_gain", "conditional_reliance"),
        ("model_reliance", "grouped_reliance"),
        ("mean_abs_shap", "grouped_reliance"),
        ("split_gain", "grouped_reliance"),
        ("conditional_reliance", "grouped_reliance"),
    ]
    # the Spearman correlation of MR with conditional MR, recomputed
    rel = tables[0]
    cond = rel[rel.estimator == "conditional_permutation"].set_index("feature")["mr_difference"]
    marg = importances.set_index("feature")["model_reliance"]
    rho = stats.spearmanr(marg, cond.reindex(marg.index)).statistic
    assert extra["spearman"].iloc[0] == pytest.approx(rho)
    # grouped: a and b take the value of their cluster a+b
    grp = rel[rel.estimator == "grouped_permutation"].set_index("feature")["mr_difference"]
    rho_g = stats.spearmanr(marg, [grp["a+b"], grp["a+b"], grp["c"], grp["S"]]).statistic
    assert extra["spearman"].iloc[3] == pytest.approx(rho_g)
    assert np.isnan(extra["spearman"].iloc[2])  # no split gain for a linear model


def test_shap_interaction_tables_of_a_multiclass_model_are_per_class():
    """A ``class`` column (the multiclass SHAP job's table): each class's rows equal the summary of
    that class alone, the figure summary is ``figure_class``'s, an unknown class is named."""
    from xaipipe.explain.dependence import shap_interaction_tables

    rng = np.random.default_rng(0)
    names, n = ["u", "v", "w"], 6
    blocks = {}
    for label in ("low", "mid", "high"):
        iv = rng.normal(size=(n, 3, 3))
        blocks[label] = pd.DataFrame(
            {
                "row": np.repeat(np.arange(n), 9),
                "feature_1": np.tile(np.repeat(names, 3), n),
                "feature_2": np.tile(names, n * 3),
                "interaction_value": iv.reshape(-1),
            }
        )
    table = pd.concat([b.assign(**{"class": k}) for k, b in blocks.items()], ignore_index=True)
    table = table[["class", "row", "feature_1", "feature_2", "interaction_value"]]
    pairs, matrix, summary = shap_interaction_tables(table, figure_class="mid")
    assert list(pairs.columns)[0] == "class" and list(pd.unique(pairs["class"])) == ["low", "mid", "high"]
    for label, block in blocks.items():
        p1, m1, s1 = shap_interaction_tables(block)
        pd.testing.assert_frame_equal(pairs[pairs["class"] == label].drop(columns="class").reset_index(drop=True), p1)
        pd.testing.assert_frame_equal(matrix[matrix["class"] == label].drop(columns="class").reset_index(drop=True), m1)
    pd.testing.assert_frame_equal(summary.matrix, shap_interaction_tables(blocks["mid"])[2].matrix)
    assert shap_interaction_tables(table)[2].matrix.equals(shap_interaction_tables(blocks["low"])[2].matrix)
    with pytest.raises(ValueError, match="explain.figure_class.*'top'"):
        shap_interaction_tables(table, figure_class="top")


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

    repo = __import__("pathlib").Path(__file__).resolve().parents[2]
    config = yaml.safe_load((repo / "config" / "config.yaml").read_text())
    config = validate_config(config, repo / "workflow" / "schemas" / "config.schema.yaml") or config
    return AleSettings.from_config(config, "classification"), HStatisticSettings.from_config(
        config, "classification", "logistic_regression"
    )
