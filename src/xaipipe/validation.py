"""Input checks shared by every subpackage, on top of scikit-learn's: the one place for them.

scikit-learn's ``check_scalar`` / ``check_random_state`` / ``check_array`` (its finite-value test
``sklearn.utils.assert_all_finite``) do the work; these wrappers add what the pipeline needs
everywhere: booleans are not integers, ``None`` may be allowed, and messages name the argument
(``"X contains NaN or infinite values"``).
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

__all__ = ["check_int", "check_fraction", "check_confidence", "check_finite", "check_matrix", "check_random_state"]


def check_int(value: Any, name: str, *, minimum: int | None = None, allow_none: bool = False) -> int | None:
    """An integer argument, optionally bounded below.

    Raises
    ------
    TypeError
        ``value`` is not an integer (booleans are not), or None when not allowed.
    ValueError
        ``value < minimum``.
    """
    if value is None and allow_none:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer{' or None' if allow_none else ''}, got {value!r}")
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return int(value)


def check_fraction(value: Any, name: str, *, low_open: bool = True, high_open: bool = False) -> float:
    """A number in ``(0, 1]`` (bounds open or closed as asked).

    Raises
    ------
    TypeError
        Not a real number. ``ValueError``: outside the interval.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number, got {value!r}")
    v = float(value)
    low_ok = v > 0 if low_open else v >= 0
    high_ok = v < 1 if high_open else v <= 1
    if not (np.isfinite(v) and low_ok and high_ok):
        lo, hi = "(" if low_open else "[", ")" if high_open else "]"
        raise ValueError(f"{name} must lie in {lo}0, 1{hi}, got {value!r}")
    return v


def check_confidence(value: Any, name: str = "confidence") -> float:
    """A confidence level in ``(0, 1)``."""
    return check_fraction(value, name, high_open=True)


def check_random_state(random_state):
    """``numpy.random.RandomState`` from a seed (scikit-learn's ``check_random_state``)."""
    from sklearn.utils import check_random_state as _check

    return _check(random_state)


def check_finite(values: Any, name: str, *, allow_nan: bool = False) -> np.ndarray:
    """An array without infinite values (and without NaN unless ``allow_nan``).

    The test is scikit-learn's (``sklearn.utils.assert_all_finite``, the one ``check_array`` runs);
    integer and boolean arrays pass as they are.

    Parameters
    ----------
    values : array-like
        Any shape.
    name : str
        The argument's name, for the message.
    allow_nan : bool, default False
        NaN allowed (e.g. missing values that an imputer fills); infinite values never are.

    Returns
    -------
    ndarray
        ``np.asarray(values)``.

    Raises
    ------
    ValueError
        ``"<name> contains NaN or infinite values"`` (``"<name> contains infinite values"`` with
        ``allow_nan``).
    """
    from sklearn.utils import assert_all_finite

    arr = np.asarray(values)
    try:
        assert_all_finite(arr, allow_nan=allow_nan, input_name=name)
    except ValueError:
        raise ValueError(f"{name} contains {'infinite' if allow_nan else 'NaN or infinite'} values") from None
    return arr


def check_matrix(
    X: Any, name: str = "X", *, allow_nan: bool = False, min_rows: int = 1, n_features: int | None = None
) -> np.ndarray:
    """A data matrix: 2-D, numeric, as float64, finite -- the project's one matrix check, built on
    scikit-learn's ``sklearn.utils.check_array``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        An array or a DataFrame (its values; the caller keeps the column names).
    name : str, default "X"
        The argument's name, for the messages.
    allow_nan : bool, default False
        NaN allowed (missing values that an imputer fills); infinite values never are.
    min_rows : int, default 1
        Fewest rows accepted.
    n_features : int, optional
        The number of columns required.

    Returns
    -------
    ndarray of shape (n_samples, n_features), float64
        ``check_array(X, dtype=float64)``: the same values as ``np.asarray(X, dtype=float64)``.

    Raises
    ------
    ValueError
        ``"<name> must be a 2-D numeric array ..."`` (not 2-D, not numeric, fewer than ``min_rows``
        rows, or not ``n_features`` columns), or :func:`check_finite`'s message.
    """
    from sklearn.utils import check_array

    try:
        arr = check_array(X, dtype=np.float64, ensure_all_finite=False, ensure_min_samples=min_rows, input_name=name)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a 2-D numeric array (n_samples, n_features): {exc}") from None
    if n_features is not None and arr.shape[1] != n_features:
        raise ValueError(f"{name} must be a 2-D numeric array with {n_features} columns, got shape {arr.shape}")
    check_finite(arr, name, allow_nan=allow_nan)
    return arr
