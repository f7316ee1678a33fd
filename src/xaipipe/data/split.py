"""The train/test split and the cross-validation folds, stored as row indices.

Every later step (grids, refits, model reliance, PD/ICE, SHAP, Rashomon sets)
reads ``split.json``, so all of them use the same 80 % / 20 % split and the same
K folds of the 80 %.
"""

from __future__ import annotations

import numpy as np
from sklearn.model_selection import KFold, StratifiedKFold, train_test_split

__all__ = ["make_split", "folds_from_split"]


def make_split(y: np.ndarray, task: str, *, test_size: float, n_folds: int, random_state: int) -> dict:
    """Split rows into train/test and assign K folds to the training rows.

    Parameters
    ----------
    y : ndarray of shape (n,)
        Target (stratification variable for classification).
    task : {"regression", "classification"}
    test_size : float in (0, 1)
    n_folds : int >= 2
    random_state : int
        ``random_state`` of ``train_test_split`` and of the (shuffled) K-fold
        (recorded as ``seed`` in the result).

    Returns
    -------
    dict
        ``train`` and ``test`` (sorted row positions), ``train_fold`` (fold id of
        each ``train`` entry, in ``train`` order), ``seed``, ``test_size``,
        ``n_folds``, ``stratified``.

    Notes
    -----
    Folds are those of ``KFold(n_folds, shuffle=True, random_state=random_state)``
    (``StratifiedKFold`` for classification) applied to the training rows in
    ascending order, so ``folds_from_split`` returns exactly the index arrays
    that scikit-learn's splitter yields.
    """
    n = len(y)
    if not 0 < test_size < 1:
        raise ValueError(f"split.test_size must be in (0, 1), got {test_size}")
    if n_folds < 2:
        raise ValueError(f"split.cv_folds must be >= 2, got {n_folds}")
    stratified = task == "classification"
    idx = np.arange(n)
    train, test = train_test_split(
        idx, test_size=test_size, random_state=random_state, stratify=y if stratified else None
    )
    train, test = np.sort(train), np.sort(test)
    splitter = (StratifiedKFold if stratified else KFold)(n_splits=n_folds, shuffle=True, random_state=random_state)
    fold = np.full(len(train), -1, dtype=np.int64)
    for k, (_, valid) in enumerate(splitter.split(np.zeros(len(train)), y[train])):
        fold[valid] = k
    return {
        "train": train.tolist(),
        "test": test.tolist(),
        "train_fold": fold.tolist(),
        "seed": int(random_state),
        "test_size": float(test_size),
        "n_folds": int(n_folds),
        "stratified": stratified,
    }


def folds_from_split(split: dict) -> list[tuple[np.ndarray, np.ndarray]]:
    """``[(train_positions, valid_positions), ...]`` into the training rows."""
    fold = np.asarray(split["train_fold"], dtype=np.int64)
    return [(np.flatnonzero(fold != k), np.flatnonzero(fold == k)) for k in range(int(split["n_folds"]))]
