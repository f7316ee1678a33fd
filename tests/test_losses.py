"""One registry of losses: canonical names, aliases, and the same numbers under either name."""

import numpy as np
import pytest
from sklearn.metrics import mean_absolute_error, mean_squared_error, zero_one_loss

from xaipipe.losses import LOSS_ALIASES, LOSS_TASKS, canonical_loss, default_loss, resolve_loss
from xaipipe.models.comparison import row_losses


def test_every_alias_names_a_canonical_loss():
    assert set(LOSS_ALIASES.values()) <= set(LOSS_TASKS)
    assert not set(LOSS_ALIASES) & set(LOSS_TASKS)
    assert canonical_loss("mse") == "squared_error"
    assert canonical_loss("error_rate") == "zero_one"
    assert canonical_loss("log_loss") == "log_loss"
    with pytest.raises(ValueError, match="unknown loss 'rmse'"):
        canonical_loss("rmse")


def test_resolve_loss_accepts_an_alias_and_reports_the_canonical_name():
    assert resolve_loss("mse") == resolve_loss("squared_error")
    assert resolve_loss("error_rate")[0] == "zero_one"
    with pytest.raises(ValueError, match="unknown loss"):
        resolve_loss("mae")  # no per-sample reliance loss of that name


def test_row_losses_are_the_same_under_either_name_and_match_sklearn():
    rng = np.random.default_rng(0)
    y, yhat = rng.normal(size=30), rng.normal(size=30)
    np.testing.assert_array_equal(row_losses(y, yhat, "mse"), row_losses(y, yhat, "squared_error"))
    assert row_losses(y, yhat, "squared_error").mean() == pytest.approx(mean_squared_error(y, yhat))
    assert row_losses(y, yhat, "absolute_error").mean() == pytest.approx(mean_absolute_error(y, yhat))
    lab, pred = rng.integers(0, 2, 30), rng.integers(0, 2, 30)
    np.testing.assert_array_equal(row_losses(lab, pred, "zero_one"), row_losses(lab, pred, "error_rate"))
    assert row_losses(lab, pred, "zero_one").mean() == pytest.approx(zero_one_loss(lab, pred))


def test_default_loss_by_task_is_a_canonical_loss_of_that_task():
    assert default_loss("regression") == "squared_error"
    assert default_loss("classification") == "log_loss"
    for task in ("regression", "classification"):
        assert LOSS_TASKS[default_loss(task)] == task
    with pytest.raises(ValueError, match="unknown task 'survival'"):
        default_loss("survival")
