"""The exact Monte-Carlo variance of one permutation / halving draw, by enumerating every draw of
small samples, and against the estimators' own draws."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from sklearn.linear_model import LinearRegression

from xaipipe.explain.reliance import draw_variance, exact_monte_carlo_se, model_reliance, switch_loss_matrix
from xaipipe.losses import squared_error


def _matchings(rows):
    """Every perfect matching of an even-sized list of rows."""
    if not rows:
        yield []
        return
    a = rows[0]
    for k in range(1, len(rows)):
        rest = rows[1:k] + rows[k + 1 :]
        for m in _matchings(rest):
            yield [(a, rows[k])] + m


@pytest.mark.parametrize("n", [4, 5, 6])
def test_variances_equal_enumeration(n):
    rng = np.random.default_rng(n)
    M = rng.lognormal(size=(2, n, n))  # two members, skewed losses
    mean_p, var_p = draw_variance(M, "permutation")
    vals = np.array([[M[k, np.arange(n), list(p)].mean() for p in itertools.permutations(range(n))] for k in range(2)])
    np.testing.assert_allclose(mean_p, vals.mean(axis=1), rtol=1e-12)
    np.testing.assert_allclose(var_p, vals.var(axis=1), rtol=1e-10)
    # e_divide: a uniform permutation's halves; enumerating permutations covers odd n (one row left out)
    h = n // 2
    draws = []
    for p in itertools.permutations(range(n)):
        a, b = p[:h], p[h : 2 * h]
        draws.append([(M[k, list(a), list(b)].sum() + M[k, list(b), list(a)].sum()) / (2 * h) for k in range(2)])
    draws = np.array(draws).T
    mean_d, var_d = draw_variance(M, "e_divide")
    np.testing.assert_allclose(mean_d, draws.mean(axis=1), rtol=1e-12)
    np.testing.assert_allclose(var_d, draws.var(axis=1), rtol=1e-10)
    if n % 2 == 0:  # the same by perfect matchings
        S = M + M.transpose(0, 2, 1)
        by_matching = np.array(
            [[sum(S[k, a, b] for a, b in m) / n for m in _matchings(list(range(n)))] for k in range(2)]
        )
        np.testing.assert_allclose(var_d, by_matching.var(axis=1), rtol=1e-10)


def test_exact_se_matches_the_spread_of_fresh_draws_on_a_skewed_variable():
    rng = np.random.default_rng(0)
    n = 60
    x = rng.lognormal(sigma=1.0, size=(n, 2))  # skewed variables
    y = 1.5 * x[:, 0] - x[:, 1] + rng.normal(size=n)
    model = LinearRegression().fit(x, y)
    exact = exact_monte_carlo_se(model, x, y, estimator="e_divide", n_repeats=1).set_index("feature")
    for estimator in ("e_divide", "permutation"):
        ex = exact_monte_carlo_se(model, x, y, estimator=estimator, n_repeats=1).set_index("feature")
        draws = model_reliance(model, x, y, estimator=estimator, n_repeats=20000, random_state=1).e_switch[0]
        np.testing.assert_allclose(draws.mean(axis=1), ex["e_switch_expected"], rtol=0.01)
        np.testing.assert_allclose(draws.std(axis=1), ex["draw_sd"], rtol=0.05)
    # e_divide is unbiased for the exact e_switch
    es = model_reliance(model, x, y, estimator="e_switch").e_switch[0, :, 0]
    np.testing.assert_allclose(exact["e_switch_expected"], es, rtol=1e-12)
    # R repeats: SE = draw_sd / sqrt(R); ratio SE = that / e_orig
    t = exact_monte_carlo_se(model, x, y, estimator="e_divide", n_repeats=25)
    np.testing.assert_allclose(t["mr_difference_se_exact"], t["draw_sd"] / 5)
    np.testing.assert_allclose(t["mr_ratio_se_exact"], t["draw_sd"] / 5 / t["e_orig"])


def test_switch_loss_matrix_entries():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(7, 3))
    y = rng.normal(size=7)

    def predict(Z):
        return (Z @ [1.0, -2.0, 0.5])[None]

    M = switch_loss_matrix(predict, X, y, [1, 2], squared_error, max_rows_per_batch=5)
    for r in range(7):
        for d in range(7):
            z = X[r].copy()
            z[[1, 2]] = X[d, [1, 2]]
            assert M[0, r, d] == pytest.approx((y[r] - z @ [1.0, -2.0, 0.5]) ** 2)
    with pytest.raises(ValueError, match="permutation"):
        draw_variance(M, "e_switch")
