"""illustration_table: the `illustration` rule's entry point gives each function's own table."""

from __future__ import annotations

import pandas as pd
import pytest

from xaipipe.data.simulated import simulate
from xaipipe.studies import illustrations as ill


@pytest.fixture(scope="module")
def frame():
    return simulate("friedman1", n=200, p=10, noise_sd=1.0, random_state=3)


def test_same_as_calling_the_function_on_the_pipeline_split(frame):
    got = ill.illustration_table("pruning_path", frame, test_size=0.2, random_state=11, max_alphas=8)
    s = ill.simulated_split(frame, test_size=0.2, random_state=11)
    want = ill.pruning_path(s["X_train"], s["y_train"], s["X_test"], s["y_test"], random_state=11, max_alphas=8)
    pd.testing.assert_frame_equal(got, want)
    assert len(s["test"]) == 40


def test_lists_from_the_config_become_tuples(frame):
    got = ill.illustration_table(
        "boosting_depth", frame, random_state=2, depths=[1, 2], n_estimators=5, learning_rate=0.1
    )
    assert got["max_depth"].tolist() == [1, 2]
    curves = ill.illustration_table(
        "boosting_staged",
        frame,
        random_state=2,
        learning_rates=[0.5],
        n_estimators=60,
        max_depth=2,
        n_iter_no_change=3,
        validation_fraction=0.1,
        tol=1e-4,
    )
    assert set(curves["learning_rate"]) == {0.5} and len(curves) == 60


def test_loss_functions_need_no_data():
    table = ill.illustration_table("loss_functions", None, delta=0.5)
    pd.testing.assert_frame_equal(table, ill.loss_functions(delta=0.5))


def test_errors(frame):
    with pytest.raises(ValueError, match="unknown illustration 'fig_9'"):
        ill.illustration_table("fig_9", frame)
    with pytest.raises(ValueError, match="needs the simulated data"):
        ill.illustration_table("oob_curve", None)


def test_every_illustration_has_a_plot_and_config_entry():
    import yaml

    from tests.conftest import REPO
    from xaipipe.report.thesis import ILLUSTRATION_PLOTS

    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text(encoding="utf-8"))
    assert set(ILLUSTRATION_PLOTS) == set(ill.ILLUSTRATIONS) | {"diabetes_tree"}
    assert set(config["illustrations"]) - {"enabled", "data"} == set(ILLUSTRATION_PLOTS)
    mapped = {e["illustration"] for e in config["thesis"]["figures"].values() if e["kind"] == "illustration"}
    assert mapped == set(ILLUSTRATION_PLOTS)
