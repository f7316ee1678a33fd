"""xaipipe.validation: integer / fraction / confidence checks name the argument and
reject booleans; check_random_state is scikit-learn's."""

from __future__ import annotations

import numpy as np
import pytest

from xaipipe.validation import check_confidence, check_fraction, check_int, check_random_state


def test_check_int():
    assert check_int(3, "k") == 3 and type(check_int(np.int64(3), "k")) is int
    assert check_int(0, "k", minimum=0) == 0
    assert check_int(None, "k", allow_none=True) is None
    with pytest.raises(ValueError, match="n_repeats must be >= 1, got 0"):
        check_int(0, "n_repeats", minimum=1)
    for bad in (True, np.bool_(False), 2.0, "3", None):
        with pytest.raises(TypeError, match="k must be an integer"):
            check_int(bad, "k")
    with pytest.raises(TypeError, match="an integer or None"):
        check_int(1.5, "k", allow_none=True)


def test_check_fraction_and_confidence():
    assert check_fraction(1, "f") == 1.0 and check_fraction(np.float32(0.25), "f") == 0.25
    assert check_fraction(0, "f", low_open=False) == 0.0
    for bad, kw in (
        (0, {}),
        (1.5, {}),
        (np.nan, {}),
        (np.inf, {}),
        (1.0, {"high_open": True}),
        (-0.1, {"low_open": False}),
    ):
        with pytest.raises(ValueError, match="f must lie in"):
            check_fraction(bad, "f", **kw)
    with pytest.raises(ValueError, match=r"f must lie in \[0, 1\)"):
        check_fraction(1.0, "f", low_open=False, high_open=True)
    for bad in (True, "0.5", None):
        with pytest.raises(TypeError, match="f must be a number"):
            check_fraction(bad, "f")
    assert check_confidence(0.95) == 0.95
    for bad in (0.0, 1.0, 95):
        with pytest.raises(ValueError, match=r"confidence must lie in \(0, 1\)"):
            check_confidence(bad)
    with pytest.raises(ValueError, match=r"level must lie in"):
        check_confidence(1.0, "level")


def test_check_random_state_is_scikit_learns():
    from sklearn.utils import check_random_state as sk

    a, b = check_random_state(5), sk(5)
    assert isinstance(a, np.random.RandomState)
    np.testing.assert_array_equal(a.randint(1000, size=10), b.randint(1000, size=10))
    rs = np.random.RandomState(0)
    assert check_random_state(rs) is rs
    with pytest.raises(ValueError):
        check_random_state("seed")


def test_check_finite_agrees_with_numpy_and_names_the_argument():
    from xaipipe.validation import check_finite

    ok = np.array([[0.0, 1.5], [-2.0, 3.0]])
    assert check_finite(ok, "X") is not None
    np.testing.assert_array_equal(check_finite([1, 2, 3], "y"), [1, 2, 3])  # integers pass
    for bad in (np.nan, np.inf, -np.inf):
        arr = ok.copy()
        arr[1, 0] = bad
        assert not np.isfinite(arr).all()  # the independent oracle
        with pytest.raises(ValueError, match=r"^X contains NaN or infinite values$"):
            check_finite(arr, "X")
    with_nan = ok.copy()
    with_nan[0, 1] = np.nan
    check_finite(with_nan, "X", allow_nan=True)  # missing values an imputer fills
    with_nan[1, 1] = np.inf
    with pytest.raises(ValueError, match=r"^X contains infinite values$"):
        check_finite(with_nan, "X", allow_nan=True)


def test_check_matrix_is_scikit_learns_check_array_with_the_projects_messages():
    import pandas as pd
    from sklearn.utils import check_array

    from xaipipe.validation import check_matrix

    ints = np.arange(12).reshape(4, 3)
    got = check_matrix(ints, "X")
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got, check_array(ints, dtype=np.float64))  # the oracle
    frame = pd.DataFrame(ints, columns=["a", "b", "c"])
    assert check_matrix(frame, "X").tobytes() == np.asarray(frame, dtype=np.float64).tobytes()
    for bad in (np.arange(3.0), np.zeros((2, 2, 2)), [["a", "b"]]):
        with pytest.raises(ValueError, match=r"^X must be a 2-D numeric array"):
            check_matrix(bad, "X")
    with pytest.raises(ValueError, match=r"^X must be a 2-D numeric array"):
        check_matrix(ints, "X", min_rows=5)
    with pytest.raises(ValueError, match=r"with 2 columns"):
        check_matrix(ints, "X", n_features=2)
    nan = ints.astype(float)
    nan[0, 0] = np.nan
    with pytest.raises(ValueError, match=r"^X_test contains NaN or infinite values$"):
        check_matrix(nan, "X_test")
    assert np.isnan(check_matrix(nan, "X", allow_nan=True)[0, 0])
