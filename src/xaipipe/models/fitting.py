"""Fitting one configuration, or one prefix group, of a model family.

A *prefix group* is the set of configurations of an ensemble family that differ
only in ``n_estimators``: one fit with the largest value gives every member
exactly (:mod:`xaipipe.models.prefix`). :func:`fit_group` is the one fitter used by
cross-validation (:mod:`xaipipe.models.cv`), the Rashomon-set refits
(:mod:`xaipipe.rashomon.refit`) and the bootstrap of the Rashomon set
(:mod:`xaipipe.rashomon.bootstrap`).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from ..config.models import CVSettings
from .boosting import fit_estimator
from .families import PREFIX_PARAM, make_estimator

__all__ = ["FitResult", "GroupFit", "fit_group", "fit_best"]


@dataclass
class GroupFit:
    """Result of :func:`fit_group`.

    Attributes
    ----------
    estimator : fitted estimator or None
        None when the fit failed.
    fit_time_s : float
        Wall seconds of the fit (``time.perf_counter``).
    message : str
        ``"LinAlgError: ..."`` for a failed fit, else ``""``.
    """

    estimator: Any
    fit_time_s: float
    message: str = ""

    @property
    def ok(self) -> bool:
        return not self.message


def fit_group(
    family: str,
    task: str,
    params: Mapping[str, Any],
    X: np.ndarray,
    y: np.ndarray,
    *,
    n_estimators: Sequence[int] = (),
    random_state: int,
    options: Mapping[str, Any] | None = None,
    n_jobs: int = 1,
    forest_store: tuple[Any, int] | None = None,
) -> GroupFit:
    """Fit one configuration (or one prefix group) of ``family`` on ``X, y``.

    Parameters
    ----------
    family : str or Family
        Family identifier (:data:`xaipipe.models.families.FAMILIES`) or the resolved
        :class:`~xaipipe.models.families.Family` (what worker processes receive).
    task : {"regression", "classification"}
    params : mapping
        Hyperparameters (without ``n_estimators`` when ``n_estimators`` is given).
    X : ndarray of shape (n, p)
    y : ndarray of shape (n,)
    n_estimators : sequence of int, optional
        The group's ``n_estimators`` values: the model is fitted with the largest.
    random_state : int
        ``random_state`` of seeded families (the pipeline's seed, so that a refit is
        the configuration that was cross-validated).
    options : mapping, optional
        Fixed constructor options (``estimator_options`` config, this family's).
    n_jobs : int, default 1
        Threads of families that take ``n_jobs``.
    forest_store : (path, block_trees), optional
        Memory (issue 34 item 2; the Rashomon refits above ``large_data.forest_block_rows``): a
        random forest / extra trees (:func:`xaipipe.models.forest_blocks.supports_forest_blocks`)
        is fitted ``block_trees`` trees at a time and written block by block to the forest store
        ``path`` (:class:`xaipipe.models.forest_store.ForestBlockWriter`), and the returned
        estimator is that store opened lazily (:func:`xaipipe.models.forest_store.open_forest`:
        one block of trees in memory; pickles as its path). Its trees are bitwise those of the
        whole fit, so its prefix predictions, MR and PD are too. ``path`` must outlive the
        estimator (the caller's scratch folder). Other families ignore it.

    Returns
    -------
    GroupFit
        A fit that raises :class:`numpy.linalg.LinAlgError` (QDA with a
        rank-deficient class covariance: scikit-learn >= 1.9 raises) is returned
        with ``estimator=None`` and the message; any other exception propagates.
    """
    p = dict(params)
    if n_estimators:
        p[PREFIX_PARAM] = max(int(k) for k in n_estimators)
    est = make_estimator(family, task, p, random_state=random_state, n_jobs=n_jobs, options=options)
    if forest_store is not None:
        from .forest_blocks import supports_forest_blocks
        from .forest_store import open_forest

        if supports_forest_blocks(est):
            path, block_trees = forest_store
            _, fit_time = _fit_forest_store(est, X, y, None, path, block_trees, atomic=False)
            return GroupFit(open_forest(path), fit_time)
    t0 = time.perf_counter()
    try:
        fit_estimator(est, X, y)
    except np.linalg.LinAlgError as exc:
        return GroupFit(None, time.perf_counter() - t0, f"LinAlgError: {exc}")
    return GroupFit(est, time.perf_counter() - t0)


class FitResult(NamedTuple):
    """The outputs of the ``fit`` rule (:func:`fit_best`); a named triple, so that
    ``model, record, predictions = fit_best(...)`` unpacks it.

    Attributes
    ----------
    model : fitted estimator or None
        The refitted model (None when it went to a forest store).
    record : dict
        ``test/<family>.json``: ``dataset``, ``task``, ``model`` (the family), ``params``,
        ``n_train``, ``n_test``, ``fit_time_s``, ``metrics`` (with the confusion matrix for
        classifiers).
    predictions : DataFrame
        ``predictions/<family>.csv``: ``row``, ``y_true``, ``y_pred``; binary classifiers also
        ``proba_1``, multiclass ones ``proba_0 .. proba_{K-1}``.
    """

    model: Any
    record: dict
    predictions: Any

    def to_frame(self):
        """The test predictions (the rule's ``predictions`` output)."""
        return self.predictions


def fit_best(
    data,
    settings: CVSettings,
    params: Mapping[str, Any],
    *,
    n_jobs: int = 1,
    forest_store: tuple[Any, int] | None = None,
) -> FitResult:
    """The ``fit`` rule: refit a family's best configuration on the training rows, evaluate on the test rows.

    Parameters
    ----------
    data : PreparedData
        The dataset's split (:func:`xaipipe.data.prepare.load_prepared`; any object with these
        attributes): ``X_train``, ``y_train`` (the fit), ``X_test``, ``y_test`` (the test metrics
        and predictions), ``test_rows`` (row positions of the test rows in ``prepared.csv``: the
        ``row`` column) and ``dataset``.
    settings : CVSettings
        :meth:`xaipipe.config.CVSettings.from_config` of the family (the rule's ``params.cv``):
        ``family``, ``task``, ``seed`` (``random_state``), ``options`` (config key
        ``estimator_options.<family>``) as :func:`fit_group`, and ``beta`` (weight of the
        ``f_beta`` test metric of a classifier; config key ``metrics.beta``).
    params : mapping
        The configuration (``best/<family>.json``'s ``params``).
    n_jobs : int, default 1
        Threads of the fit; the saved model is set to ``n_jobs=1`` so that its predictions are
        bitwise reproducible.
    forest_store : (path, block_trees), optional
        A random forest / extra trees (:func:`xaipipe.models.forest_blocks.supports_forest_blocks`)
        is fitted ``block_trees`` trees at a time and written block by block to ``path`` as a
        forest store (:class:`xaipipe.models.forest_store.ForestBlockWriter`; the fit rule's
        ``model.joblib`` when the training rows reach ``large_data.forest_block_rows``), its test
        output accumulated block by block: the stored forest (:func:`xaipipe.io.read_joblib`),
        the test metrics and predictions are bitwise those of the whole fit, and at most two
        blocks of trees are in memory. Other families ignore it.

    Returns
    -------
    FitResult
        ``(model, record, predictions)``: the fitted model (None when it went to
        ``forest_store``), the record of ``test/<family>.json`` and the test predictions (the
        metrics of a multiclass model hold its ``confusion_matrix``).

    Raises
    ------
    numpy.linalg.LinAlgError
        The fit failed (e.g. QDA with a rank-deficient class covariance).
    """
    import pandas as pd

    from .forest_blocks import supports_forest_blocks
    from .metrics import evaluate
    from .output import model_output

    family, task = settings.family, settings.task
    X_train, y_train, X_test, y_test = data.X_train, data.y_train, data.X_test, data.y_test
    est = make_estimator(family, task, params, random_state=settings.seed, n_jobs=n_jobs, options=settings.options)
    if forest_store is not None and supports_forest_blocks(est):
        output, fit_time = _fit_forest_store(est, X_train, y_train, X_test, *forest_store)
        est = None
    else:
        t0 = time.perf_counter()
        fit_estimator(est, X_train, y_train)  # bitwise est.fit, faster leaf updates
        fit_time = time.perf_counter() - t0
        if hasattr(est, "n_jobs"):
            est.set_params(n_jobs=1)  # predictions of the saved model are then bitwise reproducible
        output = model_output(est)(X_test)
    metrics = evaluate(task, y_test, output, confusion=True, beta=settings.beta)
    record = {
        "dataset": data.dataset,
        "task": task,
        "model": family,
        "params": params,
        "n_train": len(y_train),
        "n_test": len(y_test),
        "fit_time_s": fit_time,
        "metrics": metrics,
    }
    predictions = pd.DataFrame({"row": data.test_rows, "y_true": y_test})
    if task == "regression":
        predictions["y_pred"] = output
    elif output.shape[1] == 2:
        predictions["proba_1"] = output[:, 1]
        predictions["y_pred"] = output.argmax(axis=1)
    else:  # multiclass: every class's probability (proba_1 among them marks a classifier's table)
        for k in range(output.shape[1]):
            predictions[f"proba_{k}"] = output[:, k]
        predictions["y_pred"] = output.argmax(axis=1)
    return FitResult(est, record, predictions)


def _fit_forest_store(forest, X_train, y_train, X_test, path, block_trees, *, atomic: bool = True):
    """Fit ``forest`` in blocks into the forest store ``path``; its test output (``predict`` /
    ``predict_proba`` with ``n_jobs=1``: ``out += p_b`` in tree order, ``out /= K``; None when
    ``X_test`` is None) and the fit's wall seconds. ``atomic``: written to a temporary path of
    :func:`xaipipe.io.atomic_path` and moved (a rule's output); else in place (a scratch file,
    removed again when the fit raises)."""
    import contextlib

    from sklearn.base import is_classifier

    from ..io import atomic_path
    from .forest_blocks import fit_forest_blocks
    from .forest_store import ForestBlockWriter

    classifier = is_classifier(forest)
    acc = Xv = shell = None
    fit_time = 0.0
    place = atomic_path(path) if atomic else contextlib.nullcontext(path)
    with place as tmp, ForestBlockWriter(tmp, block_trees) as writer:
        t0 = time.perf_counter()
        for _, trees, shell in fit_forest_blocks(forest, X_train, y_train, block_trees):
            fit_time += time.perf_counter() - t0
            writer.add(trees)
            if X_test is None:
                del trees
                t0 = time.perf_counter()
                continue
            if Xv is None:  # BaseForest.predict's validation (float32)
                Xv = shell._validate_X_predict(X_test)
            for tree in trees:
                p = tree.predict_proba(Xv, check_input=False) if classifier else tree.predict(Xv, check_input=False)
                if acc is None:
                    acc = np.zeros_like(p, dtype=np.float64)
                acc += p
            del trees
            t0 = time.perf_counter()
        if atomic:
            shell.set_params(n_jobs=1)  # as the whole fit's saved model
        writer.finish(shell)
    if acc is not None:
        acc /= shell.n_estimators
    return acc, fit_time
