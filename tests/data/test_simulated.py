"""Simulated data: reproducibility from the seed, the distribution drawn, the regression
functions against independent implementations, and the sidecar."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import integrate, stats

from xaipipe.data.simulated import (
    DEFAULT_DGP,
    DGPS,
    Friedman1,
    feature_index,
    feature_names,
    get_dgp,
    load_simulated,
    simulate,
    simulation_sidecar,
)
from xaipipe.data.sources import (
    canonical_sha256,
    canonical_to_csv_bytes,
    read_canonical,
)
from xaipipe.io import sha256_bytes


def test_same_seed_gives_identical_bytes_and_another_seed_differs():
    a = canonical_to_csv_bytes(simulate(random_state=20250223))
    b = canonical_to_csv_bytes(simulate(random_state=20250223))
    c = canonical_to_csv_bytes(simulate(random_state=20250224))
    assert a == b
    assert a != c
    fa, fc = simulate(random_state=1), simulate(random_state=2)
    assert not np.any(fa.to_numpy() == fc.to_numpy())  # no value shared by chance


def test_csv_bytes_round_trip_exactly_and_sidecar_hash_matches(tmp_path):
    frame, sidecar = load_simulated(n=200, random_state=7)
    data = canonical_to_csv_bytes(frame)
    assert sidecar["canonical_sha256"] == sha256_bytes(data) == canonical_sha256(frame)
    path = tmp_path / "simulated.csv"
    path.write_bytes(data)
    back = read_canonical(path, sidecar)
    pd.testing.assert_frame_equal(back, frame, check_exact=True)
    # the sidecar itself is deterministic (no time stamp)
    assert load_simulated(n=200, random_state=7)[1] == sidecar


def test_streams_x_independent_of_noise_and_prefix_stable():
    f = get_dgp()
    small, big = simulate(n=300, random_state=3), simulate(n=1000, random_state=3)
    pd.testing.assert_frame_equal(small, big.iloc[:300], check_exact=True)
    quiet, loud = simulate(n=300, noise_sd=0.5, random_state=3), simulate(n=300, noise_sd=2.0, random_state=3)
    cols = feature_names(10)
    np.testing.assert_array_equal(quiet[cols], loud[cols])
    X = quiet[cols].to_numpy()
    np.testing.assert_allclose((quiet["y"] - f.f(X)) / 0.5, (loud["y"] - f.f(X)) / 2.0, rtol=0, atol=1e-12)
    # the same noise whatever p; noiseless data are f* exactly
    wide = simulate(n=300, p=20, random_state=3)
    np.testing.assert_allclose(wide["y"] - f.f(wide.iloc[:, :20].to_numpy()), small["y"] - f.f(X), atol=1e-12)
    exact = simulate(n=50, noise_sd=0.0, random_state=3)
    np.testing.assert_array_equal(exact["y"], f.f(exact[cols].to_numpy()))


def test_inputs_are_uniform_and_noise_is_gaussian_with_the_given_sd():
    frame = simulate(n=5000, p=10, noise_sd=1.7, random_state=11)
    X = frame[feature_names(10)].to_numpy()
    assert X.min() > -1 and X.max() < 1
    for j in range(10):
        assert stats.kstest(X[:, j], stats.uniform(loc=-1, scale=2).cdf).pvalue > 1e-3
    assert abs(np.corrcoef(X, rowvar=False)[np.triu_indices(10, 1)]).max() < 0.06
    eps = frame["y"].to_numpy() - get_dgp().f(X)
    assert stats.kstest(eps, stats.norm(scale=1.7).cdf).pvalue > 1e-3
    assert eps.std(ddof=1) == pytest.approx(1.7, rel=0.05)


def test_friedman1_equals_scikit_learn_on_rescaled_inputs():
    from sklearn.datasets import make_friedman1

    U, y = make_friedman1(n_samples=2000, n_features=10, noise=0.0, random_state=0)
    X = 2 * U - 1
    np.testing.assert_allclose(get_dgp("friedman1").f(X), y, rtol=1e-13, atol=1e-12)
    # the x-form of the formula in the docstring
    x = X
    alt = 10 * np.sin(np.pi * (1 + x[:, 0]) * (1 + x[:, 1]) / 4) + 5 * x[:, 2] ** 2 + 5 * x[:, 3] + 2.5 * x[:, 4] + 7.5
    np.testing.assert_allclose(get_dgp().f(X), alt, rtol=1e-12)


def test_goldstein_function_at_hand_computed_points():
    g = get_dgp("goldstein2015")
    X = np.array([[0.5, 0.4, 0.1, 0.9], [0.5, 0.4, -0.1, -0.9], [-1.0, -0.2, 0.0, 0.0]])
    np.testing.assert_allclose(g.f(X), [0.1 - 2 + 4, 0.1 - 2, -0.2 + 1 - 2], atol=1e-15)
    grad = g.gradient(X)
    np.testing.assert_array_equal(grad[:, :3], [[0.2, 5, 0], [0.2, -5, 0], [0.2, 5, 0]])
    assert np.all(grad[:, 3] == 0)


@pytest.mark.parametrize("name", sorted(DGPS))
def test_mean_and_variance_against_monte_carlo(name):
    dgp = get_dgp(name)
    X = dgp.sample_X(np.random.default_rng(5), 400_000, 10)
    f = dgp.f(X)
    se_mean = f.std(ddof=1) / np.sqrt(f.size)
    assert abs(f.mean() - dgp.mean()) < 4.5 * se_mean
    se_var = np.sqrt(np.var((f - f.mean()) ** 2, ddof=1) / f.size)
    assert abs(f.var(ddof=1) - dgp.variance()) < 4.5 * se_var


def test_friedman_constants_against_quadrature():
    """The Si / Cin expressions of the module docstring against numerical integration."""
    d = get_dgp("friedman1")
    a = integrate.dblquad(lambda s, t: np.sin(np.pi * s * t) ** 2, 0, 1, 0, 1, epsabs=1e-13)[0]
    inner = lambda t: integrate.quad(lambda s: np.sin(np.pi * s * t), 0, 1, epsabs=1e-14)[0]
    b = integrate.quad(lambda t: inner(t) ** 2, 0, 1, epsabs=1e-13)[0]
    c = integrate.dblquad(lambda s, t: np.sin(np.pi * s * t), 0, 1, 0, 1, epsabs=1e-13)[0]
    assert d.mr_difference("x1") == pytest.approx(200 * (a - b), rel=1e-10)
    assert d.mean() == pytest.approx(10 * c + 5 / 3 + 7.5, rel=1e-12)
    assert [d.mr_difference(f"x{j}") for j in (3, 4, 5)] == pytest.approx([40 / 9, 50 / 3, 25 / 6], rel=1e-15)


def test_sidecar_fields_and_the_pipeline_prepare_step_accepts_it():
    from xaipipe.data.preparation import prepare_table

    frame, side = load_simulated("friedman1", n=120, p=12, noise_sd=0.5, random_state=9, dataset="sim_f1")
    assert side["dataset"] == "sim_f1" and side["source"] == "simulated" and side["dgp"] == "friedman1"
    assert side["n"] == side["n_rows"] == 120 and side["p"] == 12 and side["n_columns"] == 13
    assert side["noise_sd"] == 0.5 and side["seed"] == 9 and side["task"] == "regression" and side["target"] == "y"
    assert side["feature_columns"] == feature_names(12)
    assert side["active_features"] == feature_names(5) and side["irrelevant_features"] == feature_names(12)[5:]
    assert side["interactions"] == [["x1", "x2"]]
    assert all(c["dtype"] == "float64" for c in side["columns"])
    assert "sin(pi u1 u2)" in side["formula"] and side["numpy_version"] == np.__version__
    assert side["population"]["r2_bound"] == pytest.approx(get_dgp().variance() / (get_dgp().variance() + 0.25))
    prepared, info, _ = prepare_table(frame, side, {})
    assert info["features"] == feature_names(12) and info["task"] == "regression"
    np.testing.assert_array_equal(prepared["row_id"], np.arange(120))
    np.testing.assert_array_equal(prepared["y"], frame["y"])


def test_bad_input_is_rejected_with_named_parameters():
    with pytest.raises(ValueError, match="unknown DGP 'nope'.*friedman1"):
        simulate("nope")
    with pytest.raises(ValueError, match="p >= 5"):
        simulate(p=4)
    with pytest.raises(ValueError, match="noise_sd"):
        simulate(noise_sd=-1.0)
    with pytest.raises(ValueError, match="random_state"):
        simulate(random_state=None)
    with pytest.raises(ValueError, match="random_state"):
        simulate(random_state=-3)
    with pytest.raises(ValueError, match="n must be"):
        simulate(n=0)
    with pytest.raises(ValueError, match="columns x1..xp"):
        simulation_sidecar(pd.DataFrame({"a": [1.0], "y": [2.0]}), dgp="friedman1", noise_sd=1.0, random_state=0)
    with pytest.raises(ValueError, match="at least 5 input columns"):
        get_dgp().f(np.zeros((3, 4)))
    with pytest.raises(ValueError, match="feature must be"):
        feature_index("age")
    with pytest.raises(ValueError, match="out of range"):
        feature_index("x11", 10)


def test_registry_and_defaults():
    assert DEFAULT_DGP == "friedman1" and isinstance(get_dgp(), Friedman1)
    assert get_dgp(get_dgp("goldstein2015")) is get_dgp("goldstein2015")
    for dgp in DGPS.values():
        assert dgp.n_active <= 10 and dgp.low == -1 and dgp.high == 1
        assert all(isinstance(a, str) and isinstance(b, str) for a, b in dgp.interactions)
    assert feature_index("x1") == 0 and feature_index(3) == 3
