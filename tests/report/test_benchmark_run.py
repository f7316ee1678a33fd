"""benchmarks/run.py's stages on tiny synthetic data: the naive scikit-learn code and the
pipeline's code agree (the script's own assertions), with the package's current API."""

import importlib.util
import re

import numpy as np
import pytest

from tests.conftest import REPO

_spec = importlib.util.spec_from_file_location("bench_run", REPO / "benchmarks" / "run.py")
bench_run = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench_run)

CFG = {
    "seed": 3,
    "grids": {
        "regression": {
            "decision_tree": {"max_depth": [1, 3]},
            "gradient_boosting": {"n_estimators": [2, 5], "max_depth": [1, 2]},
            "random_forest": {"n_estimators": [2, 4], "max_depth": [3]},
        },
        "classification": {"gradient_boosting": {"n_estimators": [2, 4], "max_depth": [1]}},
    },
    "estimator_options": {},
    "selection": {"regression": "rmse", "classification": "log_loss"},
    "rashomon": {
        "n_repeats": 3,
        "epsilons": [0.0, 0.5],
        "epsilon_mode": "relative",
        "scopes": ["family", "cross_family"],
        "abalone_study": {
            "grid": {"n_estimators": [2, 4], "learning_rate": [0.1, 0.3], "max_depth": [1], "loss": ["squared_error"]}
        },
    },
}


def _data(name, task, n=90, p=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n + 30, p))
    y = X[:, 0] + X[:, 1] ** 2 + 0.3 * rng.normal(size=n + 30)
    if task == "classification":
        y = (y > np.median(y)).astype(np.int64)
    folds = [(np.flatnonzero(np.arange(n) % 3 != k), np.flatnonzero(np.arange(n) % 3 == k)) for k in range(3)]
    return {
        "name": name,
        "task": task,
        "X_train": X[:n],
        "y_train": y[:n],
        "X_test": X[n:],
        "y_test": y[n:],
        "folds": folds,
        "features": [f"x{j}" for j in range(p)],
        "feature_groups": {},
    }


@pytest.fixture()
def recorder():
    rss = bench_run.PeakRSS(interval=0.05)
    yield bench_run.Recorder(rss)
    rss.close()


def test_grid_and_rashomon_stages(recorder, capsys):
    reg, clf = _data("toy", "regression"), _data("toy_clf", "classification", seed=1)
    out = bench_run.grid_stage(
        recorder, [reg, clf], CFG, 1, False, ["decision_tree", "gradient_boosting", "random_forest"]
    )
    assert out["stage"] == "grid (all)" and out["naive_s"] > 0 and out["pipeline_s"] > 0
    checks = {r["stage"]: r["check"] for r in recorder.stages}
    assert checks["grid toy/gradient_boosting"].startswith("12 fold RMSEs bitwise equal; n_estimators=2 refitted")
    assert checks["grid toy_clf/gradient_boosting"].startswith("6 fold accuracies bitwise equal")
    assert set(reg["cv"]) == {"decision_tree", "gradient_boosting", "random_forest"}
    # the Rashomon set of the grid stage's CV results: permutation_importance of every member
    rec = bench_run.dataset_rashomon_stage(recorder, reg, CFG, 1)
    assert rec["stage"] == "rashomon reliance toy" and "bitwise equal" in rec["check"]
    m = re.match(r"(\d+) importances, (\d+) bitwise equal", rec["check"])
    assert m and int(m.group(1)) > 0 and int(m.group(2)) > 0
    assert "grid toy/random_forest: naive_s=" in capsys.readouterr().out


def test_abalone_study_stage_full_mode(recorder):
    data = _data("abalone", "regression", seed=2)
    rec = bench_run.abalone_study_stages(recorder, data, CFG, 1, False)
    stages = [r["stage"] for r in recorder.stages]
    assert stages == ["rashomon refit abalone-4", "rashomon reliance abalone-4"]
    assert recorder.stages[0]["check"] == "4 fits vs 2; test predictions bitwise equal"
    assert rec["check"].startswith("48 importances")  # 4 members x 4 columns x 3 repeats


def test_member_models_and_warm_up():
    from xaipipe.models.families import make_estimator
    from xaipipe.rashomon.refit import FittedGroup

    data = _data("toy", "regression")
    gb = make_estimator("gradient_boosting", "regression", {"n_estimators": 6}, random_state=0).fit(
        data["X_train"], data["y_train"]
    )
    tree = make_estimator("decision_tree", "regression", {"max_depth": 2}, random_state=0).fit(
        data["X_train"], data["y_train"]
    )
    groups = [
        FittedGroup("gradient_boosting", {}, [3, 6], ["n_estimators=3", "n_estimators=6"], gb),
        FittedGroup("decision_tree", {"max_depth": 2}, [], ["max_depth=2"], tree),
    ]
    models = bench_run.member_models(groups)
    assert [(g, i) for g, i, _ in models] == [(0, 0), (0, 1), (1, 0)]
    assert models[0][2].n_estimators == 3 and models[2][2] is tree
    np.testing.assert_array_equal(models[1][2].predict(data["X_test"]), gb.predict(data["X_test"]))
    assert bench_run.warm_up(1) >= 0
