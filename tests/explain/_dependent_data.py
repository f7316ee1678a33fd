"""Shared data of the rule-table tests (pdp/test_ale_tables.py, reliance/test_dependent.py): a table
with two correlated variables, an independent one and a one-hot group whose level depends on it."""

from __future__ import annotations

import numpy as np

NAMES = ["a", "b", "c", "S_F", "S_I", "S_M"]
GROUPS = {"S": ["S_F", "S_I", "S_M"]}


def dependent_data(n=300, seed=0, coupling=0.05):
    """a, b correlated (b = a + noise), c independent, a one-hot group S whose level depends on c."""
    rng = np.random.default_rng(seed)
    a = rng.uniform(-1, 1, n)
    b = a + coupling * rng.normal(size=n)
    c = rng.uniform(-1, 1, n)
    level = np.digitize(c + 0.5 * rng.normal(size=n), [-0.3, 0.3])
    X = np.column_stack([a, b, c, np.eye(3)[level]])
    y = 2 * a + c + X[:, 3] - 0.5 * X[:, 5] + 0.3 * rng.normal(size=n)
    return X, y
