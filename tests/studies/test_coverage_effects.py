"""Coverage audit of learner-SHAP importance and learner-ALE (issue 45): f*'s closed-form ALE
against the ALE estimator on a large sample of f*, the new rows after every row of before (which
stay byte for byte those of an audit without them), their learner truth against the fits by hand."""

from __future__ import annotations

import io
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from xaipipe.config import CoverageSettings
from xaipipe.data.simulated import get_dgp
from xaipipe.explain.pdp import accumulated_local_effects
from xaipipe.studies.coverage import coverage_audit
from xaipipe.studies.coverage_effects import ale_f_star

#: a tiny audit (the constructor's defaults otherwise; options None: no estimator options)
TINY = CoverageSettings(
    n=120,
    n_repetitions=2,
    learners={"gradient_boosting": {"n_estimators": 5, "max_depth": 2}},
    learner_config={
        "n_refits": 3,
        "n_repeats": 2,
        "pd_features": ["x1", "x6"],
        "grid": [-0.5, 0.5],
        "truth_fits": 3,
        "truth_eval_rows": 150,
        "ale_grid": [-1.0, -0.5, 0.0, 0.5, 1.0],
    },
    rashomon_config={
        "families": {"linear_regression": {}, "gradient_boosting": {"n_estimators": [3, 6], "max_depth": [1]}},
        "epsilons": [0.0, 1.0],
        "n_repeats": 2,
        "population_rows": 200,
    },
    options=None,
    random_state=3,
)


def _csv(frame: pd.DataFrame) -> bytes:
    buf = io.StringIO()
    frame.to_csv(buf, index=False, float_format="%.17g", lineterminator="\n")
    return buf.getvalue().encode()


@pytest.mark.parametrize("dgp", ["friedman1", "goldstein2015"])
@pytest.mark.parametrize("centering", ["ale_plot", "paper"])
def test_closed_form_ale_of_f_star_matches_the_estimator_on_a_large_sample(dgp, centering):
    model = get_dgp(dgp)
    edges = [-1.0, -0.6, -0.1, 0.3, 1.0]  # unequal bins
    truth = ale_f_star(model, ["x1", "x2", "x3", "x6"], edges, p=6, centering=centering)
    X = model.sample_X(np.random.default_rng(0), 400_000, 6)
    for f in ["x1", "x2", "x3", "x6"]:
        col = int(f[1:]) - 1
        est = accumulated_local_effects(model.f, X, col, edges=np.array(edges), centering=centering).ale
        np.testing.assert_allclose([truth[(f, z)] for z in edges], est, atol=0.05)  # Monte-Carlo error
    with pytest.raises(ValueError, match="cover"):
        ale_f_star(model, ["x1"], [-0.9, 0.0, 1.0], p=6)


@pytest.fixture(scope="module")
def runs():
    with_effects = coverage_audit(TINY)
    without = coverage_audit(replace(TINY, learner_config={**TINY.learner_config, "effects": []}))
    return with_effects, without


def test_the_new_rows_come_after_the_rows_of_before_which_are_unchanged(runs):
    (reps, cov), (reps0, cov0) = runs
    new = reps["quantity"].isin(["learner_shap", "learner_ale"]).to_numpy()
    assert new.any() and not new[: len(reps0)].any() and new[len(reps0) :].all()
    assert _csv(reps.iloc[: len(reps0)].reset_index(drop=True)) == _csv(reps0)
    assert _csv(cov.iloc[: len(cov0)].reset_index(drop=True)) == _csv(cov0)
    assert set(cov.iloc[len(cov0) :]["quantity"]) == {"learner_shap", "learner_ale"}


def test_effect_rows_and_their_truths(runs):
    (reps, cov), _ = runs
    shap = reps[reps.quantity == "learner_shap"]
    ale = reps[reps.quantity == "learner_ale"]
    assert len(shap) == 2 * 10 and shap["truth"].isna().all() and shap["truth_learner"].notna().all()
    assert set(ale["feature"]) == {"x1", "x6"} and set(ale["grid_value"]) == {-1.0, -0.5, 0.0, 0.5, 1.0}
    f_star = ale_f_star(get_dgp("friedman1"), ["x1", "x6"], TINY.learner_config["ale_grid"], p=10)
    np.testing.assert_array_equal(ale["truth"], [f_star[(f, z)] for f, z in zip(ale["feature"], ale["grid_value"])])
    assert np.allclose(ale[ale.feature == "x6"]["truth"], 0.0)  # an irrelevant input: flat ALE
    assert (shap["df"] == 2).all() and (shap["se"] >= shap["se_naive"]).all() and (shap["se"] > 0).any()
    # every learner truth is the same for all repetitions (one estimate per audit)
    assert shap.groupby("feature")["truth_learner"].nunique().eq(1).all()
    rows = cov[(cov.quantity == "learner_shap") & (cov.feature == "all")]
    assert set(rows["target"]) == {"learner"}  # no f* target for SHAP
    assert set(cov[cov.quantity == "learner_ale"]["target"]) == {"learner", "f_star"}


def test_learner_truth_of_the_effects_is_the_mean_over_fresh_fits():
    """The learner target of learner_shap / learner_ale: the fits of the documented streams, by hand."""
    import shap as shap_lib

    from xaipipe.data.simulated import simulate
    from xaipipe.explain.learner import estimator_factory
    from xaipipe.studies.coverage import _ints, _split_sizes

    lc = TINY.learner_config
    reps, _ = coverage_audit(replace(TINY, n_repetitions=2, rashomon_config=False))
    n_train, _ = _split_sizes(TINY.n, 0.2, 5)
    n1 = round(0.632 * n_train)
    truth_root, _ = np.random.SeedSequence(TINY.random_state).spawn(2)
    shap_vals, ale_vals = [], []
    for child in truth_root.spawn(lc["truth_fits"]):
        s_train, s_eval, s_model = _ints(child, 3)
        train = simulate("friedman1", n=n1, p=10, noise_sd=1.0, random_state=s_train)
        ev = simulate("friedman1", n=2 * lc["truth_eval_rows"], p=10, noise_sd=1.0, random_state=s_eval).to_numpy()
        X = ev[: lc["truth_eval_rows"], :10]
        model = estimator_factory("gradient_boosting", "regression", TINY.learners["gradient_boosting"])(
            random_state=s_model
        ).fit(train.to_numpy()[:, :10], train["y"].to_numpy())
        phi = shap_lib.TreeExplainer(model, feature_perturbation="tree_path_dependent").shap_values(X)
        shap_vals.append(np.abs(phi).mean(axis=0))
        ale_vals.append(accumulated_local_effects(model, X, 0, edges=np.array(lc["ale_grid"])).ale)
    got = reps[reps.quantity == "learner_shap"].drop_duplicates("feature").set_index("feature")["truth_learner"]
    np.testing.assert_allclose(got[[f"x{j + 1}" for j in range(10)]], np.mean(shap_vals, axis=0), rtol=1e-9)
    ale = reps[(reps.quantity == "learner_ale") & (reps.feature == "x1") & (reps.repetition == 0)]
    np.testing.assert_allclose(ale.sort_values("grid_value")["truth_learner"], np.mean(ale_vals, axis=0), rtol=1e-9)
