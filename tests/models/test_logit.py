"""Logistic coefficient table against closed forms, scikit-learn and a direct minimiser;
separation detection on data whose answer is known."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from scipy.optimize import minimize
from scipy.special import expit
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression

from xaipipe.models.families import make_estimator
from xaipipe.models.logit import logit_inference, separation


@pytest.fixture(scope="module")
def simulated():
    rng = np.random.default_rng(11)
    n = 800
    X = np.column_stack([rng.normal(5, 2, n), rng.exponential(3, n), rng.normal(0, 0.1, n)])
    z = (X - X.mean(0)) / X.std(0)
    y = rng.binomial(1, expit(-0.5 + 1.0 * z[:, 0] - 0.7 * z[:, 1] + 0.0 * z[:, 2]))
    order = np.argsort(y, kind="stable")  # adversarial row order: sorted by class
    return X[order], y[order]


def test_table_matches_closed_form_and_sklearn(simulated):
    X, y = simulated
    table = logit_inference(X, y, ["a", "b", "c"])
    Z = (X - X.mean(0)) / X.std(0)  # population SD, as StandardScaler
    D = np.column_stack([np.ones(len(Z)), Z])
    ref = LogisticRegression(C=np.inf, tol=1e-12, max_iter=10000).fit(Z, y)  # unpenalised
    beta = np.r_[ref.intercept_, ref.coef_[0]]
    p = expit(D @ beta)
    se = np.sqrt(np.diag(np.linalg.inv(D.T @ (D * (p * (1 - p))[:, None]))))
    np.testing.assert_allclose(table["coefficient"], beta, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(table["std_error"], se, rtol=1e-5)
    np.testing.assert_allclose(table["z_value"], beta / se, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(table["p_value"], 2 * stats.norm.sf(np.abs(beta / se)), rtol=1e-4, atol=1e-12)
    q = stats.norm.ppf(0.975)
    np.testing.assert_allclose(table["ci_low"], beta - q * se, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(table["ci_high"], beta + q * se, rtol=1e-5, atol=1e-7)
    # odds ratios are exp of the coefficient columns, exactly
    for col, base in [
        ("odds_ratio", "coefficient"),
        ("odds_ratio_ci_low", "ci_low"),
        ("odds_ratio_ci_high", "ci_high"),
    ]:
        np.testing.assert_array_equal(table[col].to_numpy(), np.exp(table[base].to_numpy()))
    np.testing.assert_allclose(table["sd"].iloc[1:], X.std(0))
    assert list(table["term"]) == ["const", "a", "b", "c"]
    assert list(table["scale"]) == ["log-odds at the mean"] + ["per 1 SD"] * 3
    assert table["separation"].eq("none").all() and table["identified"].all() and table["converged"].all()
    # the truth: a strong positive, b negative, c null
    assert table.loc[1, "p_value"] < 1e-10 and table.loc[2, "coefficient"] < 0 and table.loc[3, "p_value"] > 0.001


def test_alpha_changes_the_intervals(simulated):
    X, y = simulated
    t90 = logit_inference(X, y, ["a", "b", "c"], alpha=0.10)
    t95 = logit_inference(X, y, ["a", "b", "c"])
    assert np.all(t90["ci_high"] - t90["ci_low"] < t95["ci_high"] - t95["ci_low"])
    np.testing.assert_allclose(
        (t90["ci_high"] - t90["ci_low"]) / (t95["ci_high"] - t95["ci_low"]),
        stats.norm.ppf(0.95) / stats.norm.ppf(0.975),
    )


def test_penalized_columns_are_the_pipeline_model_on_the_same_scale(simulated):
    X, y = simulated
    C = 0.05
    model = make_estimator(
        "logistic_regression", "classification", {"C": C}, random_state=0, options={"tol": 1e-12}
    ).fit(X, y)
    table = logit_inference(X, y, ["a", "b", "c"], penalized_model=model)
    Z = (X - X.mean(0)) / X.std(0)
    D = np.column_stack([np.ones(len(Z)), Z])

    def objective(w):  # 0.5 ||w_slopes||^2 + C sum logloss, the documented objective
        eta = D @ w
        return (
            0.5 * w[1:] @ w[1:] + C * np.sum(np.logaddexp(0, eta) - y * eta),
            np.r_[0.0, w[1:]] + C * D.T @ (expit(eta) - y),
        )

    opt = minimize(
        objective, np.zeros(4), jac=True, method="L-BFGS-B", options={"ftol": 1e-15, "gtol": 1e-11, "maxiter": 10000}
    )
    np.testing.assert_allclose(table["penalized_coefficient"], opt.x, atol=1e-5)
    np.testing.assert_array_equal(table["penalized_odds_ratio"], np.exp(table["penalized_coefficient"]))
    assert table["C"].eq(C).all()
    # shrinkage: every slope smaller in absolute value than the MLE's
    assert np.all(np.abs(table["penalized_coefficient"].iloc[1:]) < np.abs(table["coefficient"].iloc[1:]))
    other = make_estimator("logistic_regression", "classification", {"C": C}, random_state=0).fit(X[:500], y[:500])
    with pytest.raises(ValueError, match="other training rows"):
        logit_inference(X, y, ["a", "b", "c"], penalized_model=other)


def test_breast_cancer_separates_completely():
    data = load_breast_cancer()
    X, y = data.data[::2], 1 - data.target[::2]  # every other row: still separated, faster LPs
    model = make_estimator("logistic_regression", "classification", {"C": 1.0}, random_state=0).fit(X, y)
    table = logit_inference(X, y, list(data.feature_names), penalized_model=model)
    assert table["separation"].eq("complete").all()
    # the MLE does not exist: no unpenalised number is reported
    assert table[["coefficient", "std_error", "p_value", "odds_ratio"]].isna().all().all()
    assert not table["converged"].any()
    assert (~table["identified"]).sum() > 0
    # the penalised model is reported in full
    assert table["penalized_coefficient"].notna().all()
    # a separating direction exists: an (almost) unpenalised fit classifies every row
    D = np.column_stack([np.ones(len(X)), (X - X.mean(0)) / X.std(0)])
    sep = separation(D, y)
    assert sep["separated"] and sep["kind"] == "complete"


def test_quasi_complete_separation_names_the_coefficient():
    rng = np.random.default_rng(5)
    n = 400
    x1 = np.r_[rng.uniform(0.1, 2, 150), np.zeros(100), -rng.uniform(0.1, 2, 150)]
    y = np.r_[np.ones(150, int), rng.binomial(1, 0.5, 100), np.zeros(150, int)]
    x2 = rng.normal(size=n)
    D = np.column_stack([np.ones(n), x1, x2])
    sep = separation(D, y)
    assert sep["separated"] and sep["kind"] == "quasi-complete"
    # only x1 diverges (to +inf); the intercept and x2 are pinned by the tied rows at x1 = 0
    np.testing.assert_array_equal(sep["identified"], [True, False, True])
    np.testing.assert_array_equal(sep["direction"], [0, 1, 0])
    assert not separation(D[:, [0, 2]], y)["separated"]


def test_bad_input_is_named():
    X = np.random.default_rng(0).normal(size=(30, 2))
    with pytest.raises(ValueError, match="both classes"):
        logit_inference(X, np.zeros(30), ["a", "b"])
    with pytest.raises(ValueError, match="feature_names"):
        logit_inference(X, np.r_[np.zeros(15), np.ones(15)], ["a"])
    with pytest.raises(ValueError, match="'g' names column"):
        logit_inference(X, np.r_[np.zeros(15), np.ones(15)], ["a", "b"], feature_groups={"g": ["a", "c"]})
    with pytest.raises(ValueError, match="more than one feature group"):
        logit_inference(X, np.r_[np.zeros(15), np.ones(15)], ["a", "b"], feature_groups={"g": ["a"], "h": ["a"]})


# --- reference (k - 1) coding of one-hot groups; aliased terms reported, not raised -----------------


def _grouped_table(n=900, seed=3):
    """x1, x2 numeric; region with levels east / north / south one-hot (every level a column, as
    the pipeline prepares it); y depends on x1 and on region = north. Rows sorted by class."""
    rng = np.random.default_rng(seed)
    region = rng.choice(["east", "north", "south"], size=n, p=[0.3, 0.3, 0.4])
    x1 = rng.normal(2, 3, n)
    x2 = rng.exponential(1.0, n)
    eta = -0.3 + 0.4 * x1 + 1.2 * (region == "north") - 0.5 * (region == "south")
    y = rng.binomial(1, expit(eta))
    order = np.argsort(y, kind="stable")  # adversarial row order: sorted by class
    frame = pd.DataFrame({"x1": x1, "region": region, "x2": x2, "y": y}).iloc[order].reset_index(drop=True)
    dummies = pd.get_dummies(frame["region"], prefix="region", dtype=float)  # levels sorted
    X = pd.concat([frame[["x1"]], dummies, frame[["x2"]]], axis=1)
    groups = {"region": list(dummies.columns)}
    return frame, X, groups


def test_groups_use_reference_coding_as_statsmodels_formula():
    import statsmodels.formula.api as smf

    frame, X, groups = _grouped_table()
    table = logit_inference(X.to_numpy(), frame["y"].to_numpy(), list(X.columns), feature_groups=groups)
    assert list(table["term"]) == ["const", "x1", "region_north", "region_south", "x2"]
    assert list(table["reference_level"]) == ["", "", "region_east", "region_east", ""]
    assert list(table["group"]) == ["", "", "region", "region", ""]
    assert list(table["scale"])[2:4] == ["vs reference level"] * 2
    assert table["identified"].all() and table["separation"].eq("none").all() and "note" not in table
    # oracle: statsmodels' formula interface, treatment coding with the first level as base, on the
    # numeric features standardised with the population SD
    z = frame.assign(
        x1=(frame.x1 - frame.x1.mean()) / frame.x1.std(ddof=0), x2=(frame.x2 - frame.x2.mean()) / frame.x2.std(ddof=0)
    )
    ref = smf.logit("y ~ x1 + C(region) + x2", data=z).fit(disp=0)
    order = ["Intercept", "x1", "C(region)[T.north]", "C(region)[T.south]", "x2"]
    np.testing.assert_allclose(table["coefficient"], ref.params[order], rtol=1e-8)
    np.testing.assert_allclose(table["std_error"], ref.bse[order], rtol=1e-7)
    np.testing.assert_allclose(table["odds_ratio"], np.exp(ref.params[order]), rtol=1e-8)
    # a level's mean is its share of the rows
    assert table.loc[2, "mean"] == pytest.approx((frame.region == "north").mean())
    # the truth: north raises the odds against east, south lowers them
    assert table.loc[2, "ci_low"] > 0 and table.loc[3, "ci_high"] < 0


def test_penalized_columns_with_groups_are_the_pipeline_model_on_the_table_scale():
    frame, X, groups = _grouped_table()
    y = frame["y"].to_numpy()
    model = make_estimator("logistic_regression", "classification", {"C": 0.5}, random_state=0).fit(X.to_numpy(), y)
    table = logit_inference(X.to_numpy(), y, list(X.columns), feature_groups=groups, penalized_model=model)
    cols = list(X.columns)
    means = X.mean().to_numpy()

    def log_odds(level):  # the pipeline's model at the numeric means and one region level
        row = means.copy()
        row[[cols.index(c) for c in groups["region"]]] = 0.0
        row[cols.index(level)] = 1.0
        return float(model.decision_function(row[None, :])[0])

    pen = table.set_index("term")["penalized_coefficient"]
    assert pen["const"] == pytest.approx(log_odds("region_east"), rel=1e-10)
    assert pen["region_north"] == pytest.approx(log_odds("region_north") - log_odds("region_east"), rel=1e-9)
    assert pen["region_south"] == pytest.approx(log_odds("region_south") - log_odds("region_east"), rel=1e-9)
    lr = model[-1]
    assert pen["x1"] == lr.coef_[0][cols.index("x1")]  # numeric: per SD, as without groups


def test_aliased_terms_are_reported_and_the_rest_fitted_without_them():
    frame, X, groups = _grouped_table()
    y = frame["y"].to_numpy()
    Xa = X.assign(x3=X.x1 + 2 * X.x2, flat=1.5)  # x3 collinear with x1 and x2; flat constant
    table = logit_inference(Xa.to_numpy(), y, list(Xa.columns), feature_groups=groups).set_index("term")
    assert not table.loc["x3", "identified"] and np.isnan(table.loc["x3", "coefficient"])
    # standardised, x3 is a combination of the standardised x1 and x2 (no intercept)
    assert table.loc["x3", "note"] == "not identified: a linear combination of x1, x2 in the training rows (aliased)"
    assert table.loc["flat", "note"].startswith("not identified: constant")
    plain = logit_inference(X.to_numpy(), y, list(X.columns), feature_groups=groups).set_index("term")
    np.testing.assert_allclose(table.loc[plain.index, "coefficient"], plain["coefficient"], rtol=1e-9)
    assert table.loc[plain.index, "note"].eq("").all()


def test_a_level_absent_from_the_training_rows_is_aliased_not_an_error():
    frame, X, groups = _grouped_table()
    X = X.assign(region_west=0.0)  # a level seen only in the test rows
    groups = {"region": groups["region"] + ["region_west"]}
    table = logit_inference(X.to_numpy(), frame["y"].to_numpy(), list(X.columns), feature_groups=groups)
    west = table.set_index("term").loc["region_west"]
    assert not west["identified"] and west["note"].startswith("not identified: constant")
    assert table["coefficient"].drop(index=table.index[table.term == "region_west"]).notna().all()


def test_a_separating_level_is_reported_not_raised():
    frame, X, groups = _grouped_table()
    y = frame["y"].to_numpy().copy()
    y[frame.region.to_numpy() == "south"] = 0  # south never positive: quasi-complete separation
    table = logit_inference(X.to_numpy(), y, list(X.columns), feature_groups=groups).set_index("term")
    assert table["separation"].eq("quasi-complete").all()
    assert not table.loc["region_south", "identified"] and table.loc["region_south", "direction"] == -1
    assert table["coefficient"].isna().all()
