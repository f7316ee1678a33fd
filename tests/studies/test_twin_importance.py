"""SAGE and H² on the twins (xaipipe.studies.twin_importance): the exact SAGE against brute-force
Shapley values and the package's sampler, truths and shards on a toy twin whose rows are sorted, the
coverage rows joined to the other kinds."""

from __future__ import annotations

from itertools import permutations
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LinearRegression

from xaipipe.config import TwinImportanceSettings
from xaipipe.explain.sage import sage_importance
from xaipipe.studies.twin import build_twin
from xaipipe.studies.twin_importance import IMPORTANCE_COLUMNS, exact_sage, importance_shard, importance_truth
from xaipipe.studies.twin_table import importance_captions, twin_coverage, twin_repetitions
from xaipipe.studies.twin_truth import f_star_truth

from .test_twin import NAMES, _design, _table


def _brute_force_sage(model, X, y, background):
    """Shapley values by averaging marginal contributions over every order (d! orders)."""
    d = X.shape[1]

    def loss(cols):
        Z = np.repeat(background[np.newaxis], len(X), axis=0)
        Z[:, :, cols] = X[:, np.newaxis, cols]
        f = model.predict(Z.reshape(-1, d)).reshape(len(X), len(background)).mean(axis=1)
        return np.mean((y - f) ** 2)

    phi = np.zeros(d)
    orders = list(permutations(range(d)))
    for order in orders:
        for k, j in enumerate(order):
            phi[j] += loss(list(order[:k])) - loss(list(order[: k + 1]))
    return phi / len(orders)


def test_exact_sage_equals_brute_force_and_the_sampler_s_expectation():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(40, 3))
    X = X[np.argsort(X[:, 0])]  # sorted rows
    y = X[:, 0] * X[:, 1] + X[:, 2] + 0.1 * rng.normal(size=40)
    model = LinearRegression().fit(np.column_stack([X, X[:, 0] * X[:, 1]])[:, :3], y)
    bg = X[::5]
    exact = exact_sage(model, X, y, bg, loss="squared_error", feature_names=NAMES)
    np.testing.assert_allclose(exact, _brute_force_sage(model, X, y, bg), rtol=1e-10, atol=1e-12)
    # efficiency: the values add up to the loss of the mean prediction minus the model's
    f0 = model.predict(bg).mean()
    np.testing.assert_allclose(exact.sum(), np.mean((y - f0) ** 2) - np.mean((y - model.predict(X)) ** 2))
    res = sage_importance(
        model, X, y, bg, loss="squared_error", feature_names=NAMES, threshold=0.01, max_permutations=20000
    )
    assert (np.abs(res.values - exact) <= 5 * res.se).all()


@pytest.mark.parametrize("task", ["regression", "classification"])
def test_importance_truths_and_shards_join_the_coverage_table(task):
    data = _table(n=80, task=task)
    twin = build_twin(data, "gradient_boosting", seed=0, params={"n_estimators": 10})
    design = _design(
        n=80,
        model=("gradient_boosting", {"n_estimators": 10}),
        reliance={
            "estimators": ["permutation"],
            "losses": ["squared_error" if task == "regression" else "log_loss"],
            "n_repeats": 3,
            "e_switch_max_rows": None,
        },
        learner={**_design().learner, "grids": {}},
    )
    bundle = SimpleNamespace(twin=twin, design=design, sanity=None)
    f_star = f_star_truth(twin, design)
    base = TwinImportanceSettings(task=task)
    s = TwinImportanceSettings.from_params(
        {**base.to_params(), "truth_rows": 40, "truth_background": 16, "h2": {**base.h2.to_params(), "top_k": 2}}
    )
    truth = importance_truth(bundle, f_star, s)
    assert set(truth["quantity"]) == {
        "sage",
        "h2_total",
        "h2_pairwise",
        "h2_unnormalised_total",
        "h2_unnormalised_pairwise",
    }
    assert (truth.loc[truth["quantity"] == "sage", "method"] == "exact").all()  # 2^3 coalitions
    assert len(truth[truth["quantity"] == "h2_total"]) == 2 and len(truth[truth["quantity"] == "h2_pairwise"]) == 1
    # a twin of at most truth_rows rows: the H² truths are the population's values, exact
    s_all = TwinImportanceSettings.from_params({**s.to_params(), "truth_rows": 80})
    exact = importance_truth(bundle, f_star, s_all)
    h2_exact = exact[exact["quantity"].str.startswith("h2")]
    assert (h2_exact["method"] == "exact").all() and (h2_exact["planted_se"] == 0).all()
    whole = importance_shard(bundle, truth, s, 0, 1)
    parts = pd.concat([importance_shard(bundle, truth, s, k, 2) for k in range(2)]).sort_values(
        "repetition", kind="stable"
    )
    pd.testing.assert_frame_equal(whole.reset_index(drop=True), parts.reset_index(drop=True))
    assert list(whole.columns) == IMPORTANCE_COLUMNS
    sage = whole[whole["kind"] == "sage"]
    assert len(sage) == 4 * 3 and (sage["claimed_se"] == 0).all()  # exact claimed truth
    # the sampler's estimate sits within a few SEs of the exact SAGE it claims
    assert (np.abs(sage["estimate"] - sage["claimed"]) <= 6 * sage["se"] + 1e-12).all()
    h2 = whole[whole["kind"] == "h2"]
    assert (h2["claimed_se"] > 0).all() and h2["se"].notna().all()
    reps = twin_repetitions([whole], f_star, None, truth)
    assert reps.loc[reps["kind"] == "sage", "planted"].notna().all()
    assert reps.loc[reps["kind"] == "h2", "planted"].notna().all()
    cov = twin_coverage(reps, nominal=(0.95,))
    pooled = cov[(cov["feature"] == "all") & (cov["target"] == "claimed")]
    assert set(pooled["kind"]) == {"sage", "h2"}
    assert set(pooled.loc[pooled["kind"] == "sage", "interval"]) == {"se"}
    # the repair needs >= 19 values per half at 0.95 (calibrated_multiplier): none from 4 replicates
    assert set(pooled.loc[pooled["kind"] == "h2", "interval"]) == {"se"}
    many = pd.concat([reps.assign(repetition=reps["repetition"] + 4 * k) for k in range(10)], ignore_index=True)
    cov_many = twin_coverage(many, nominal=(0.95,))
    pooled_many = cov_many[(cov_many["feature"] == "all") & (cov_many["target"] == "claimed")]
    assert set(pooled_many.loc[pooled_many["kind"] == "h2", "interval"]) == {"se", "calibrated"}
    assert pooled["coverage"].between(0, 1).all() and (pooled["n_repetitions"] == 4).all()
    # the captions of the SAGE and H² figures: the audited family's own, another family's named
    caps = importance_captions(cov, "toy", "gradient_boosting")
    assert caps["sage"].startswith("± z SE (95 %): covers ") and caps["sage"].endswith(
        "(twin of toy, gradient_boosting)"
    )
    assert "of the exact SAGE of the rows explained" in caps["sage"] and "of f*'s SAGE" in caps["sage"]
    assert "of the model's H² on the population" in caps["h_statistic_pairs"]
    assert "calibrated" not in caps["h_statistic"] and "calibrated" not in caps["sage"]
    caps_many = importance_captions(cov_many, "toy", "gradient_boosting")
    assert "; calibrated on the twin: estimate ± " in caps_many["h_statistic"] and "calibrated" not in caps_many["sage"]
    assert "measured on the twin of toy's gradient_boosting" in importance_captions(cov, "toy", "decision_tree")["sage"]
    assert importance_captions(None, "toy", "gradient_boosting") == {}


def test_an_additive_model_has_no_h2_rows():
    data = _table(n=60)
    twin = build_twin(data, "linear_regression", seed=0)
    design = _design(model=("linear_regression", {}), learner={**_design().learner, "grids": {}})
    bundle = SimpleNamespace(twin=twin, design=design, sanity=None)
    s = TwinImportanceSettings.from_params({**TwinImportanceSettings().to_params(), "truth_rows": 30})
    truth = importance_truth(bundle, f_star_truth(twin, design), s)
    assert truth.loc[truth["quantity"].str.startswith("h2"), "planted"].abs().max() < 1e-12
    shard = importance_shard(bundle, truth, s, 0, 2)
    assert set(shard["kind"]) == {"sage"}
