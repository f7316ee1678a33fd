"""The large-data policy of model reliance: each repeat of ``permutation`` / ``e_divide`` on its own
seeded subsample of rows (private; used by :func:`xaipipe.explain.reliance.model_reliance` through
``subsample_rows=``, config ``large_data.reliance_rows``).

Why and what
------------
``permutation`` and ``e_divide`` cost ``R x G x n`` predictions (repeats x variables x rows); on a
100 000-row test set that is the bulk of the ``model_reliance`` rule. With ``subsample_rows = m``
repeat ``r`` draws its own ``m`` rows ``S_r`` without replacement, one permutation / halving of them,
and contributes the paired difference

.. math:: d_r = \\hat e_{switch}(S_r) - \\hat e_{orig}(S_r)

(the switched and the unchanged loss on the *same* rows, so the row-to-row spread of the loss
cancels). ``e_orig`` is the loss on all ``n`` rows (one pass, ``O(n)``), and the repeat's switched
loss is reported as ``e_orig + d_r``, so that ``mr_difference`` is the mean of the ``d_r`` and
``mr_ratio`` is ``1 + mean(d_r) / e_orig``.

The ``d_r`` are independent and identically distributed given the test set (fresh rows and a fresh
permutation per repeat), so ``sd(d_r) / sqrt(R)`` -- the existing ``mr_*_se`` columns -- is the
Monte-Carlo SE of the estimate as an estimate of the *full test set's* quantity, subsample and
permutation error together. Their mean: ``e_divide`` is unbiased for the full set's
``ê_switch - ê_orig`` (the all-pairs U-statistic of a random subsample is unbiased for that of the
full set, and a random halving for the subsample's); ``permutation`` has expectation
``(1 - 1/m)(ê_switch - ê_orig)`` against ``(1 - 1/n)(ê_switch - ê_orig)`` on all rows (a permutation
keeps a row in place with probability ``1/m``; the package docstring), a relative difference of
``1/m - 1/n`` (5e-4 at the default ``m = 2 000``).
``tests/explain/reliance/test_subsample.py`` checks the mean and the SE against the spread of 300
fresh estimates on a linear model whose full-data ``ê_switch`` is exact (closed form).
"""

from __future__ import annotations

import numpy as np

from ._base import RelianceResult

__all__ = ["subsampled_reliance"]

#: The ``algorithm`` label of a subsampled estimator.
SUBSAMPLED = {"permutation": "subsampled_permutations", "e_divide": "subsampled_halvings"}


def subsample_design(n: int, m: int, n_repeats: int, random_state) -> list[tuple[np.ndarray, int]]:
    """The rows and the permutation seed of each repeat: ``[(rows_r, seed_r), ...]``.

    ``rng = np.random.default_rng(random_state)``; repeat ``r`` takes
    ``rows_r = np.sort(rng.choice(n, m, replace=False))`` then ``seed_r = int(rng.integers(2**63))``
    (the ``random_state`` of its one permutation / halving), in repeat order.
    """
    rng = np.random.default_rng(random_state)
    out = []
    for _ in range(int(n_repeats)):
        rows = np.sort(rng.choice(n, m, replace=False))
        out.append((rows, int(rng.integers(2**63))))
    return out


def subsampled_reliance(
    reliance,
    model,
    X: np.ndarray,
    y: np.ndarray,
    *,
    estimator: str,
    loss,
    loss_fn,
    loss_name: str,
    groups: dict,
    feature_names,
    n_repeats: int,
    subsample_rows: int,
    random_state,
    n_estimators,
    method: str,
    max_rows_per_batch: int,
    n_jobs,
) -> RelianceResult:
    """:func:`~xaipipe.explain.reliance.model_reliance` of ``permutation`` / ``e_divide`` with each of
    the ``n_repeats`` repeats on its own subsample of ``subsample_rows`` rows (module docstring).

    ``X`` (n, p) and ``y`` (n,) are validated; ``groups`` the resolved variables (name -> column
    indices); ``reliance`` is :func:`~xaipipe.explain.reliance.model_reliance` (passed in: no import
    cycle), called once per repeat on its rows with ``n_repeats=1``. Returns a
    :class:`RelianceResult` with ``e_orig`` on all rows, ``e_switch`` of shape ``(m, G, R)`` equal
    to ``e_orig + d_r``, ``n_samples = subsample_rows`` and ``algorithm``
    ``"subsampled_permutations"`` / ``"subsampled_halvings"``.
    """
    from ...models.prefix import member_predictor
    from ._generic import generic_sums

    n = X.shape[0]
    cols = list(groups.values())
    is_callable = callable(model) and not hasattr(model, "predict")
    predict = model if is_callable else member_predictor(model, n_estimators, n_jobs=n_jobs)
    # e_orig on every row: one pass, no switched data set
    e_orig, _ = generic_sums(predict, X, y, loss_fn, loss_name, cols, [[] for _ in cols], max_rows_per_batch)
    diffs, method_used = [], "generic"
    for rows, seed in subsample_design(n, subsample_rows, n_repeats, random_state):
        part = reliance(
            model,
            X[rows],
            y[rows],
            estimator=estimator,
            loss=loss,
            features=groups,
            feature_names=feature_names,
            n_repeats=1,
            random_state=seed,
            n_estimators=n_estimators,
            method=method,
            max_rows_per_batch=max_rows_per_batch,
            n_jobs=n_jobs,
        )
        diffs.append(part.e_switch[:, :, 0] - part.e_orig[:, None])
        method_used = part.method
    diff = np.stack(diffs, axis=2)  # (m, G, R)
    return RelianceResult(
        features=list(groups),
        e_orig=e_orig,
        e_switch=e_orig[:, None, None] + diff,
        estimator=estimator,
        algorithm=SUBSAMPLED[estimator],
        loss=loss_name,
        n_samples=int(subsample_rows),
        n_estimators=None if n_estimators is None else [int(k) for k in n_estimators],
        method=method_used,
    )
