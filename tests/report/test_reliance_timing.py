"""benchmarks/reliance_timing.py: a truncated ensemble equals the refitted smaller one;
the timing helper times three paths that agree."""

import importlib.util

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.ensemble import (
    ExtraTreesRegressor,
    GradientBoostingClassifier,
    GradientBoostingRegressor,
    RandomForestClassifier,
)
from sklearn.linear_model import LinearRegression

from tests.conftest import REPO
from xaipipe.models.output import model_output

_spec = importlib.util.spec_from_file_location("reliance_timing", REPO / "benchmarks" / "reliance_timing.py")
reliance_timing = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(reliance_timing)

N, P = 48, 5
FEATURES = {"a": [0], "b": [1], "cd": [2, 3], "e": [4]}


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(N, P))
    X[:, 3] = rng.integers(0, 2, N)
    y = X[:, 0] + np.sin(2 * X[:, 1]) + 0.5 * X[:, 3] + 0.3 * rng.normal(size=N)
    return X, y, (y > np.median(y)).astype(int)


MODELS = {
    "gb_squared": GradientBoostingRegressor(n_estimators=12, max_depth=2, random_state=0),
    "gb_classifier": GradientBoostingClassifier(n_estimators=12, max_depth=2, subsample=0.8, random_state=0),
    "rf_classifier": RandomForestClassifier(n_estimators=10, max_depth=3, random_state=0),
    "et_regressor": ExtraTreesRegressor(n_estimators=10, max_depth=4, random_state=0),
}


@pytest.mark.parametrize("name", list(MODELS))
def test_truncated_ensemble_equals_refit(name, data):
    X, yr, yc = data
    y = yc if "classifier" in name else yr
    model = clone(MODELS[name]).fit(X, y)
    short = reliance_timing.truncated_ensemble(model, 4)
    refit = clone(model).set_params(n_estimators=4).fit(X, y)
    np.testing.assert_array_equal(model_output(short)(X), model_output(refit)(X))
    assert len(model.estimators_) > 4 and short.n_estimators == 4  # the original is untouched
    if name.startswith("gb"):
        assert short.n_estimators_ == 4 and len(short.train_score_) == 4
    with pytest.raises(ValueError):
        reliance_timing.truncated_ensemble(model, 0)
    with pytest.raises(ValueError):
        reliance_timing.truncated_ensemble(model, len(model.estimators_) + 1)
    with pytest.raises(TypeError):
        reliance_timing.truncated_ensemble(LinearRegression().fit(X, yr), 1)


def test_time_reliance_paths_reports_three_timings(data):
    X, y, _ = data
    model = clone(MODELS["gb_squared"]).fit(X, y)
    out = reliance_timing.time_reliance_paths(model, X, y, [4, 12], features=FEATURES, n_repeats=2)
    assert out["equal"] and out["members"] == 2
    assert all(out[k] >= 0 for k in ("engine_s", "generic_s", "permutation_importance_s"))
    fast = reliance_timing.time_reliance_paths(model, X, y, [3], n_repeats=2, baseline=False)
    assert fast["equal"] and "permutation_importance_s" not in fast
