"""The multinomial logit table against statsmodels' formula interface, an unpenalised scikit-learn
fit, the LP separation check on iris, and its reports of aliased terms."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import statsmodels.formula.api as smf
from scipy import stats
from sklearn.datasets import load_iris
from sklearn.linear_model import LogisticRegression

from xaipipe.models.families import make_estimator
from xaipipe.models.mnlogit import mnlogit_inference, multinomial_separation

NAMES = ["x1", "site_a", "site_b", "site_c", "x2"]
GROUPS = {"site": ["site_a", "site_b", "site_c"]}


@pytest.fixture(scope="module")
def table():
    rng = np.random.default_rng(4)
    n = 400
    x1, x2 = rng.normal(size=n), rng.normal(2.0, 3.0, size=n)
    site = rng.choice(["a", "b", "c"], size=n)
    eta = np.column_stack([np.zeros(n), 0.4 + 1.0 * x1 + 0.9 * (site == "b"), -0.2 - 0.3 * x2 + 1.1 * (site == "c")])
    P = np.exp(eta) / np.exp(eta).sum(axis=1, keepdims=True)
    y = (rng.uniform(size=n)[:, None] > np.cumsum(P, axis=1)).sum(axis=1)
    X = np.column_stack([x1, site == "a", site == "b", site == "c", x2]).astype(float)
    return X, y, pd.DataFrame({"y": y, "x1": x1, "x2": x2, "site": site})


def test_coefficients_and_wald_inference_are_statsmodels_formula(table):
    X, y, frame = table
    out = mnlogit_inference(X, y, NAMES, feature_groups=GROUPS, classes=["lo", "mid", "hi"])
    assert set(out["class"]) == {"mid", "hi"} and set(out["base_class"]) == {"lo"}
    assert out.loc[out.term == "site_b", "reference_level"].tolist() == ["site_a", "site_a"]
    assert "site_a" not in set(out["term"])  # the reference level is dropped
    z = frame.assign(
        z1=(frame.x1 - frame.x1.mean()) / frame.x1.std(ddof=0), z2=(frame.x2 - frame.x2.mean()) / frame.x2.std(ddof=0)
    )
    ref = smf.mnlogit("y ~ z1 + C(site) + z2", z).fit(disp=0, method="newton")
    rename = {"Intercept": "const", "z1": "x1", "C(site)[T.b]": "site_b", "C(site)[T.c]": "site_c", "z2": "x2"}
    for col, label in enumerate(["mid", "hi"]):
        got = out[out["class"] == label].set_index("term")
        params = ref.params.iloc[:, col].rename(rename)
        bse = ref.bse.iloc[:, col].rename(rename)
        np.testing.assert_allclose(got.loc[params.index, "coefficient"], params, rtol=1e-6)
        np.testing.assert_allclose(got.loc[bse.index, "std_error"], bse, rtol=1e-5)
        q = stats.norm.ppf(0.975)
        np.testing.assert_allclose(got["ci_low"], got["coefficient"] - q * got["std_error"], rtol=1e-12)
        np.testing.assert_allclose(got["rrr"], np.exp(got["coefficient"]), rtol=1e-12)
    assert out["converged"].all() and (out["separation"] == "none").all() and out["identified"].all()
    assert (out["note"] == "").all() and out["log_likelihood"].iloc[0] == pytest.approx(ref.llf, rel=1e-10)


def test_unpenalised_sklearn_fit_gives_the_same_contrasts(table):
    """An independent optimiser: scikit-learn's multinomial fit without penalty, whose class vectors
    are identified up to a shift; their contrasts against class 0 are the table's coefficients."""
    X, y, _ = table
    out = mnlogit_inference(X, y, NAMES, feature_groups=GROUPS)
    Z = X[:, [0, 2, 3, 4]].copy()  # site_a is the reference level
    for j in (0, 3):
        Z[:, j] = (Z[:, j] - Z[:, j].mean()) / Z[:, j].std()
    lr = LogisticRegression(C=np.inf, tol=1e-12, max_iter=10_000).fit(Z, y)
    for k in (1, 2):
        got = out[out["class"] == str(k)]["coefficient"].to_numpy()
        want = np.concatenate([[lr.intercept_[k] - lr.intercept_[0]], lr.coef_[k] - lr.coef_[0]])
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-6)


def test_penalised_pipeline_contrasts_on_the_table_scale(table):
    X, y, _ = table
    model = make_estimator("logistic_regression", "classification", {"C": 0.5}, random_state=0).fit(X, y)
    out = mnlogit_inference(X, y, NAMES, feature_groups=GROUPS, penalized_model=model)
    # the table's parametrisation reproduces the pipeline's log relative odds on every training row
    rows = out[out["class"] == "2"].set_index("term")["penalized_coefficient"]
    z1 = (X[:, 0] - X[:, 0].mean()) / X[:, 0].std()
    z2 = (X[:, 4] - X[:, 4].mean()) / X[:, 4].std()
    eta = rows["const"] + rows["x1"] * z1 + rows["site_b"] * X[:, 2] + rows["site_c"] * X[:, 3] + rows["x2"] * z2
    dec = model.decision_function(X)
    np.testing.assert_allclose(eta, dec[:, 2] - dec[:, 0], rtol=1e-9, atol=1e-9)
    assert (out["C"] == 0.5).all() and np.allclose(out["penalized_rrr"], np.exp(out["penalized_coefficient"]))


def test_iris_is_separated_and_reported_not_raised():
    X, y = load_iris(return_X_y=True)
    out = mnlogit_inference(X, y, ["sl", "sw", "pl", "pw"], classes=["setosa", "versicolor", "virginica"])
    assert (out["separation"] == "quasi-complete").all()  # setosa is separable, the other two overlap
    assert out["coefficient"].isna().all() and not out["converged"].any()
    assert out["note"].str.contains("separation").all()
    design = np.column_stack([np.ones(150), X])
    sep = multinomial_separation(design, y)
    assert sep["separated"] and sep["identified"].shape == (2, 5)
    # two well-mixed Gaussian classes and a third one: no separation
    rng = np.random.default_rng(0)
    Xm = rng.normal(size=(120, 2))
    ym = rng.integers(0, 3, size=120)
    assert not multinomial_separation(np.column_stack([np.ones(120), Xm]), ym)["separated"]


def test_complete_separation_by_one_feature():
    x = np.linspace(-3, 3, 60)
    y = np.digitize(x, [-1.0, 1.0])  # three classes in order along x: completely separated
    sep = multinomial_separation(np.column_stack([np.ones(60), x]), y)
    assert sep["kind"] == "complete"


def test_aliased_and_constant_terms_get_notes(table):
    X, y, _ = table
    Xa = np.column_stack([X[:, 0], np.ones(len(y)), X[:, 4], X[:, 0] + X[:, 4]])
    out = mnlogit_inference(Xa, y, ["x1", "one", "x2", "sum"])
    notes = out[out["class"] == "1"].set_index("term")["note"]
    assert "constant" in notes["one"] and "x1, x2" in notes["sum"]
    assert out.loc[out.term.isin(["one", "sum"]), "coefficient"].isna().all()
    assert out.loc[out.term.isin(["x1", "x2"]), "coefficient"].notna().all()


@pytest.mark.parametrize(
    "y, match",
    [
        (np.array([0, 1] * 10), "K > 2"),
        (np.array([0, 2, 3] * 6 + [0, 2]), "each present"),
        (np.array(["a", "b", "c"] * 6 + ["a", "b"]), "integer class codes"),
    ],
)
def test_bad_labels(y, match):
    X = np.random.default_rng(0).normal(size=(20, 2))
    with pytest.raises(ValueError, match=match):
        mnlogit_inference(X, y, ["a", "b"])
