"""The train/test split and the cross-validation folds, stored as row indices.

Every later step (grids, refits, model reliance, PD/ICE, SHAP, Rashomon sets)
reads ``split.json``, so all of them use the same 80 % / 20 % split and the same
K folds of the 80 %.
"""

from __future__ import annotations

import numpy as np
from sklearn.model_selection import KFold, StratifiedKFold, train_test_split

__all__ = ["make_split", "make_checked_split", "folds_from_split", "check_sample_size"]


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


def make_checked_split(
    y: np.ndarray,
    task: str,
    *,
    test_size: float,
    n_folds: int,
    random_state: int,
    dataset: str,
    target: str,
    positive_class=None,
    **checks,
) -> dict:
    """:func:`make_split`, refusing data too small for the study with one clear line.

    A classification class with fewer than 2 rows cannot be stratified; an error of
    scikit-learn's splitters (too few rows for the folds) is re-raised naming the
    dataset; then :func:`check_sample_size` (``checks``: its ``bootstrap``, ``learner``,
    ``min_fit_rows``).

    Raises
    ------
    ValueError
        Naming the dataset, the class and its count or the config key, and the fix.
    """
    y = np.asarray(y)
    fix = f"add rows, or lower split.cv_folds ({n_folds}) / split.test_size ({test_size})"
    if task == "classification":
        classes, counts = np.unique(y, return_counts=True)
        names = _class_names(classes, positive_class)
        for c, n_c in zip(classes, counts):
            if n_c < n_folds + 1:  # 1 test row and 1 row in each of the folds at the very least
                raise ValueError(
                    f"dataset {dataset!r}: class {names[c]} of the target {target!r} has {int(n_c)} row(s); "
                    + _class_need(n_folds, test_size, fix)
                )
    try:
        split = make_split(y, task, test_size=test_size, n_folds=n_folds, random_state=random_state)
    except ValueError as exc:
        raise ValueError(f"dataset {dataset!r}: {len(y)} rows cannot be split ({exc}): {fix}") from None
    check_sample_size(split, y, dataset=dataset, target=target, task=task, positive_class=positive_class, **checks)
    return split


def _class_need(n_folds: int, test_size: float, fix: str) -> str:
    need = int(np.ceil(max(n_folds, 3) / (1 - test_size))) + 1
    return (
        "every class needs at least 1 test row, 1 row in every CV fold and 2 in every fold's training rows "
        f"(about {need} rows of the class): {fix}"
    )


def _class_names(classes, positive_class) -> dict:
    """Class code -> name for messages (``1 (positive_class 'M')``)."""

    def name(c):
        return str(int(c)) if isinstance(c, (int, np.integer)) else repr(c.item() if hasattr(c, "item") else c)

    if positive_class is None or {name(c) for c in classes} - {"0", "1"}:
        return {c: name(c) for c in classes}
    return {c: (f"1 (positive_class {positive_class!r})" if c == 1 else f"0 (not {positive_class!r})") for c in classes}


def check_sample_size(
    split: dict,
    y: np.ndarray,
    *,
    dataset: str,
    target: str,
    task: str,
    positive_class=None,
    bootstrap: dict | None = None,
    learner: dict | None = None,
    min_fit_rows: dict | None = None,
) -> None:
    """Check, before any fit, that the data suffice for every fit and score of the study.

    The conditions are evaluated on the actual row sets (the split of
    :func:`make_split`, the bootstrap resamples of
    :func:`xaipipe.data.resample.bootstrap_indices`, the learner subsamples of
    :func:`xaipipe.data.resample.subsample_splits`, all seeded; within each class for a
    multiclass target, as those steps draw them), so they are exact:

    * regression: every CV validation fold and the test split have at least 2 rows
      (R², MR's ``e_divide`` halves and the model comparison need 2);
    * classification: every class is in the test split and in every validation fold, and
      at least twice in every training fold (logistic regression, QDA and gradient
      boosting need two classes, QDA two rows per class);
    * ``bootstrap`` (``{"n_bootstrap", "random_state"}``, when the Rashomon bootstrap runs
      on the dataset): every resample has at least 2 out-of-bag rows and, for
      classification, every class at least twice in-bag;
    * ``learner`` (``{"n_refits", "fraction", "random_state"}``, when learner-PD/PFI runs):
      every refit keeps at least 2 rows out and, for classification, has every class at
      least twice;
    * ``min_fit_rows`` (``{what: rows}``, e.g. ``{"n_neighbors = 31 of grids.classification.knn": 31}``):
      every CV training fold has at least that many rows.

    Parameters
    ----------
    split : dict
        :func:`make_split`'s result.
    y : ndarray of shape (n,)
        The prepared target (0/1 codes for classification).
    dataset, target : str
        For messages.
    task : {"regression", "classification"}
    positive_class : optional
        The class coded 1, for messages.

    Raises
    ------
    ValueError
        One line naming the dataset, the class (with its count) or the step, and the fix.
    """
    y = np.asarray(y)
    train = np.asarray(split["train"], dtype=np.int64)
    folds = folds_from_split(split)
    _check_split_rows(split, y, folds, dataset=dataset, target=target, task=task, positive_class=positive_class)
    for key, rows in (min_fit_rows or {}).items():
        smallest = min(len(t) for t, _ in folds)
        if smallest < rows:
            raise ValueError(
                f"dataset {dataset!r}: {key} needs at least {rows} training rows per fit, but a CV fold trains on "
                f"{smallest}: lower it, leave the family out with datasets.{dataset}.families, or add rows"
            )
    y_train = y[train]
    # a multiclass target is resampled within each class by the bootstrap and the learner refits
    strata = y_train if task == "classification" and np.unique(y).size > 2 else None
    if bootstrap:
        _check_bootstrap_rows(y_train, strata, bootstrap, dataset=dataset, task=task, positive_class=positive_class)
    if learner:
        _check_learner_rows(y_train, strata, learner, dataset=dataset, task=task, positive_class=positive_class)


def _check_split_rows(split, y, folds, *, dataset, target, task, positive_class) -> None:
    """:func:`check_sample_size`'s conditions on the split: rows (regression) or every class
    (classification) in the test split and in every CV fold."""
    train, test = np.asarray(split["train"], dtype=np.int64), np.asarray(split["test"], dtype=np.int64)
    k = int(split["n_folds"])
    fix = f"add rows, or lower split.cv_folds ({k}) / split.test_size ({split['test_size']})"
    if task == "regression":
        smallest = min(len(v) for _, v in folds)
        if smallest < 2 or len(test) < 2:
            raise ValueError(
                f"dataset {dataset!r}: {len(y)} rows are too few: the split leaves {len(test)} test row(s) and "
                f"{len(train)} training rows for {k} CV folds (smallest validation fold {smallest}); every fold and "
                f"the test split need at least 2 rows, i.e. about {2 * k + 2 + int(np.ceil(2 * k * split['test_size']))}"
                f" rows: {fix}"
            )
        return
    classes = np.unique(y)
    names = _class_names(classes, positive_class)
    for c in classes:
        n_c = int(np.sum(y == c))
        n_test = int(np.sum(y[test] == c))
        y_tr = y[train]
        valid = [int(np.sum(y_tr[v] == c)) for _, v in folds]
        fit = [int(np.sum(y_tr[t] == c)) for t, _ in folds]
        if n_test < 1 or min(valid) < 1 or min(fit) < 2:
            raise ValueError(
                f"dataset {dataset!r}: class {names[c]} of the target {target!r} has {n_c} rows: the stratified "
                f"split puts {n_test} in the test split and {int(np.sum(y_tr == c))} in the training split "
                f"({min(valid)} in the smallest of the {k} CV folds); " + _class_need(k, split["test_size"], fix)
            )


def _rare_class(y_rows, y_train, positive_class):
    """``(class name, count)`` of the first class of ``y_train`` that ``y_rows`` holds fewer than
    twice, else None."""
    counts = {c: int(np.sum(y_rows == c)) for c in np.unique(y_train)}
    rare = [c for c, n in counts.items() if n < 2]
    if not rare:
        return None
    names = _class_names(list(counts), positive_class)
    return names[rare[0]], counts[rare[0]]


def _check_bootstrap_rows(y_train, strata, bootstrap, *, dataset, task, positive_class) -> None:
    """:func:`check_sample_size`'s conditions on the Rashomon bootstrap's resamples."""
    from .resample import bootstrap_indices

    n_train = len(y_train)
    where = f"dataset {dataset!r}: the Rashomon bootstrap of the {n_train} training rows"
    fix_b = "add rows, or leave the dataset's families out of rashomon.bootstrap.families"
    try:
        resamples = bootstrap_indices(n_train, int(bootstrap["n_bootstrap"]), bootstrap["random_state"], strata=strata)
    except ValueError as exc:  # a resample with fewer than 2 out-of-bag rows
        raise ValueError(f"{where}: {exc}: {fix_b}") from None
    if task == "classification":
        for b, (boot, _) in enumerate(resamples):
            rare = _rare_class(y_train[boot], y_train, positive_class)
            if rare:
                raise ValueError(
                    f"{where}: resample {b} holds class {rare[0]} {rare[1]} time(s) (a fit needs 2): {fix_b}"
                )


def _check_learner_rows(y_train, strata, learner, *, dataset, task, positive_class) -> None:
    """:func:`check_sample_size`'s conditions on the learner-PD/PFI refits' subsamples."""
    from .resample import subsample_splits

    n_train = len(y_train)
    splits = subsample_splits(
        n_train, int(learner["n_refits"]), float(learner["fraction"]), learner["random_state"], strata=strata
    )
    for r, (fit_rows, held_out) in enumerate(splits):
        problem = None
        if len(held_out) < 2:
            problem = f"{len(held_out)} held-out row(s) (PD and PFI need 2)"
        elif task == "classification":
            rare = _rare_class(y_train[fit_rows], y_train, positive_class)
            if rare:
                problem = f"class {rare[0]} {rare[1]} time(s) (a fit needs 2)"
        if problem:
            raise ValueError(
                f"dataset {dataset!r}: learner refit {r} (explain.learner.fraction {learner['fraction']} of the "
                f"{n_train} training rows) has {problem}: add rows, change explain.learner.fraction, or leave the "
                "dataset's families out of explain.learner.families"
            )
