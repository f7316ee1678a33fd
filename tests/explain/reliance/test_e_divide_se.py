"""The e_divide SE of model_reliance.csv matches the spread of fresh estimates (issue 43 item 5).

``reliance_report`` reports for ``e_divide`` the Monte-Carlo SE of the mean of its ``R`` halvings
from the variance of one halving, computed from ``e_switch``'s switched losses (exact on all rows,
a U-statistic estimate from the ``e_switch_max_rows`` subsample): checked here against the SD of
300 fresh estimates (fresh halvings, same model and test rows) on skewed variables whose rows are
sorted, SE / SD within 0.8-1.25, where ``sd / sqrt(R)`` of one seed can be a third of it."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from sklearn.ensemble import GradientBoostingRegressor
from sklearn.linear_model import LinearRegression

from xaipipe.data.preparation import prepare_table
from xaipipe.data.prepare import load_prepared
from xaipipe.data.registry import load_registry, preparation_options
from xaipipe.data.sources import load_canonical
from xaipipe.data.split import make_split
from xaipipe.explain.reliance import (
    RelianceOptions,
    draw_variance,
    matching_draw_variance,
    model_reliance,
    reliance_report,
)
from xaipipe.io import write_csv, write_json

from ...conftest import REPO

R, FRESH = 20, 300


def _spread(model, X, y, names):
    """SD of FRESH independent e_divide estimates of R halvings each (mr_difference), per variable."""
    draws = model_reliance(
        model,
        X,
        y,
        estimator="e_divide",
        n_repeats=FRESH * R,
        random_state=12345,
        options=RelianceOptions(feature_names=names),
    ).mr_difference()[0]
    return draws.reshape(len(names), FRESH, R).mean(axis=2).std(axis=1, ddof=1), draws


def _reported(model, X, y, names, *, cap=400, seed=0):
    table = reliance_report(
        model, X, y, feature_names=names, estimators=("e_divide", "e_switch"), n_repeats=R,
        e_switch_max_rows=cap, random_state=seed,
    )  # fmt: skip
    return table[table["estimator"] == "e_divide"].reset_index(drop=True)


def test_the_estimate_from_a_subsample_is_unbiased_and_exact_on_all_rows():
    rng = np.random.default_rng(3)
    for n in (4, 5, 8, 9):
        M = rng.lognormal(sigma=1.5, size=(2, n, n))
        np.testing.assert_allclose(matching_draw_variance(M), draw_variance(M, "e_divide")[1], rtol=1e-10)
    for n, m in ((8, 4), (9, 5), (9, 7)):  # the mean over every subsample of m rows is the n-row variance
        M = rng.lognormal(sigma=1.5, size=(n, n))
        est = [matching_draw_variance(M[np.ix_(c, c)], n) for c in itertools.combinations(range(n), m)]
        assert np.mean(est) == pytest.approx(draw_variance(M[None], "e_divide")[1][0], rel=1e-10)
    with pytest.raises(ValueError, match="at least 4 rows"):
        matching_draw_variance(np.ones((3, 3)), 10)


@pytest.fixture(scope="module")
def diabetes():
    """Diabetes prepared and split as the default study (bundled with scikit-learn, no download)."""
    import tempfile
    from pathlib import Path

    import yaml

    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    entry = load_registry(REPO / "config" / "datasets.yaml", config.get("datasets"))["diabetes"]
    canonical, sidecar = load_canonical(entry)
    prepared, info, _ = prepare_table(canonical, sidecar, preparation_options(entry))
    split = make_split(
        prepared[info["target"]].to_numpy(), "regression", test_size=config["split"]["test_size"],
        n_folds=config["split"]["cv_folds"], random_state=config["seed"],
    )  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        write_csv(t / "p.csv", prepared), write_json(t / "p.json", info), write_json(t / "s.json", split)
        return load_prepared(t / "p.csv", t / "p.json", t / "s.json")


def test_diabetes_ols_age_se_matches_the_spread_of_fresh_repeats(diabetes):
    d = diabetes
    model = LinearRegression().fit(d.X_train, d.y_train)
    sd, draws = _spread(model, d.X_test, d.y_test, d.features)
    for seed in (0, 1):  # every variable, any seed: the SE does not depend on the halvings drawn
        se = _reported(model, d.X_test, d.y_test, d.features, seed=seed)["mr_difference_se"].to_numpy()
        assert np.all((se / sd > 0.8) & (se / sd < 1.25)), dict(zip(d.features, se / sd))
    age = d.features.index("AGE")
    assert 10 < sd[age] < 17  # the spread the issue measured (13.18)
    # sd / sqrt(R) of one seed's halvings: too small on some seeds (as small as ~0.3 of the spread)
    old = draws[age].reshape(FRESH, R).std(axis=1, ddof=1) / np.sqrt(R)
    assert old.min() / sd[age] < 0.5 and np.median(old) / sd[age] > 0.8


def test_a_sorted_skewed_variable_and_a_subsample_estimate():
    rng = np.random.default_rng(0)
    n = 442
    X = np.column_stack([rng.lognormal(sigma=1.2, size=n), rng.normal(size=n), rng.exponential(size=n)])
    y = 2.0 * X[:, 0] + X[:, 1] + 0.5 * X[:, 2] ** 2 + rng.standard_t(3, size=n)
    order = np.argsort(X[:, 0])  # rows sorted by the skewed variable: file order is not random
    X, y = X[order], y[order]
    test = np.arange(n) % 5 == 0
    names = ["skewed", "normal", "exponential"]
    for model in (
        LinearRegression().fit(X[~test], y[~test]),
        GradientBoostingRegressor(n_estimators=30, random_state=0).fit(X[~test], y[~test]),
    ):
        sd, _ = _spread(model, X[test], y[test], names)
        exact = _reported(model, X[test], y[test], names)
        ratio = exact["mr_difference_se"].to_numpy() / sd
        assert np.all((ratio > 0.8) & (ratio < 1.25)), (type(model).__name__, ratio)
        np.testing.assert_allclose(exact["mr_ratio_se"], exact["mr_difference_se"] / exact["e_orig"])
        # e_switch on a seeded subsample of 60 of the 89 rows: a linear model's matrix still takes all
        # rows (the same SE); a tree model's variance is estimated from the subsample (unbiased, but a
        # subsample may miss the rare rows a heavy tail rests on: docs/methods_dependent_features.md §5)
        sub = _reported(model, X[test], y[test], names, cap=60)["mr_difference_se"].to_numpy()
        if isinstance(model, LinearRegression):
            np.testing.assert_array_equal(sub, exact["mr_difference_se"].to_numpy())
        else:
            assert not np.array_equal(sub, exact["mr_difference_se"].to_numpy()) and np.all(sub > 0)


@pytest.mark.parametrize("method", ["auto", "generic"])
def test_switch_matrix_is_the_estimates_own_losses(method):
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.linear_model import LogisticRegression

    from xaipipe.explain.reliance import switch_loss_matrix
    from xaipipe.losses import log_loss, squared_error
    from xaipipe.models.prefix import member_predictor

    rng = np.random.default_rng(2)
    X = rng.lognormal(size=(50, 3))
    y = X[:, 0] - X[:, 1] + rng.normal(size=50)
    yc = (y > np.median(y)).astype(int)
    cases = [
        (LinearRegression().fit(X, y), y, squared_error),
        (GradientBoostingRegressor(n_estimators=15, random_state=0).fit(X, y), y, squared_error),
        (RandomForestClassifier(n_estimators=8, random_state=0).fit(X, yc), yc, log_loss),
        (LogisticRegression().fit(X, yc), yc, log_loss),
    ]
    for model, target, loss in cases:
        for cap in (None, 30):
            kw = {"random_state": 4, "method": method, "loss": loss}
            matrix = RelianceOptions(max_samples=cap, switch_matrix=True)
            with_matrix = model_reliance(model, X, target, estimator="e_switch", options=matrix, **kw)
            plain = model_reliance(
                model, X, target, estimator="e_switch", options=RelianceOptions(max_samples=cap), **kw
            )
            assert np.array_equal(with_matrix.e_switch, plain.e_switch) and plain.switch_losses is None
            m = with_matrix.switch_losses.shape[-1]
            rows = np.arange(50) if cap is None else np.sort(np.random.default_rng(4).choice(50, cap, replace=False))
            assert m == len(rows)
            expected = np.stack(
                [
                    switch_loss_matrix(member_predictor(model, None), X[rows], target[rows], [j], loss)[0]
                    for j in range(3)
                ]
            )
            np.testing.assert_allclose(with_matrix.switch_losses[0], expected, rtol=1e-9, atol=1e-12)
    with pytest.raises(ValueError, match="switch_matrix applies to estimator='e_switch'"):
        model_reliance(cases[0][0], X, y, estimator="e_divide", options=RelianceOptions(switch_matrix=True))
