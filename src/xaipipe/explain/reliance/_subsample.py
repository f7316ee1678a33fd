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
``tests/explain/reliance/test_subsample.py`` checks the mean and the SE against the spread of 200
fresh estimates on a linear model whose full-data ``ê_switch`` is exact (closed form).

How
---
One pass over all ``n`` rows gives each row's unchanged loss (``e_orig`` and the paired terms);
then every repeat's switched data sets -- recipients ``S_r`` (``e_divide``: the ``2⌊m/2⌋`` rows of
the halving), donors permuted within ``S_r`` -- go through the generic path's batched ``predict``
(:func:`xaipipe.explain.reliance._generic._run_jobs`, stacked up to ``max_rows_per_batch`` rows per
call) in one stream: ``R x G x m`` predictions, no per-repeat set-up (the tree engine is not used
here: its set-up per call would cost more than the rows it saves).
"""

from __future__ import annotations

import numpy as np

from ._base import RelianceResult, estimator_stream, random_permutations
from ._generic import _Job, _run_jobs

__all__ = ["e_switch_subsample_se", "subsample_design", "subsampled_reliance"]

#: The ``algorithm`` label of a subsampled estimator.
SUBSAMPLED = {"permutation": "subsampled_permutations", "e_divide": "subsampled_halvings"}


def subsample_design(
    estimator: str, n: int, m: int, n_repeats: int, n_groups: int, random_state
) -> list[tuple[np.ndarray, np.ndarray]]:
    """The rows and the per-variable permutations of each repeat: ``[(rows_r, perms_r), ...]``.

    ``rng = np.random.default_rng(estimator_stream(estimator, random_state))`` (``e_divide``: an
    independent stream of the seed, as without subsampling); repeat ``r`` takes
    ``rows_r = np.sort(rng.choice(n, m, replace=False))``, then
    ``perms_r = random_permutations(m, 1, n_groups, int(rng.integers(2**63)))[:, 0]`` of shape
    ``(G, m)`` (positions within ``rows_r``), in repeat order.
    """
    rng = np.random.default_rng(estimator_stream(estimator, random_state))
    out = []
    for _ in range(int(n_repeats)):
        rows = np.sort(rng.choice(n, m, replace=False))
        perms = random_permutations(m, 1, n_groups, int(rng.integers(2**63)))[:, 0]
        out.append((rows, perms))
    return out


def _row_losses(predict, X: np.ndarray, y: np.ndarray, loss_fn, max_rows: int) -> np.ndarray:
    """Unchanged loss of every row, shape ``(members, n)``, in blocks of at most ``max_rows`` rows."""
    parts = []
    for a in range(0, X.shape[0], max_rows):
        out = np.asarray(predict(X[a : a + max_rows]))
        parts.append(np.asarray(loss_fn(y[a : a + max_rows], out), dtype=np.float64))
    return np.concatenate(parts, axis=1)


def subsampled_reliance(
    model,
    X: np.ndarray,
    y: np.ndarray,
    *,
    estimator: str,
    loss_fn,
    loss_name: str,
    groups: dict,
    n_repeats: int,
    subsample_rows: int,
    random_state,
    n_estimators,
    max_rows_per_batch: int,
    n_jobs,
) -> RelianceResult:
    """:func:`~xaipipe.explain.reliance.model_reliance` of ``permutation`` / ``e_divide`` with each of
    the ``n_repeats`` repeats on its own subsample of ``subsample_rows`` rows (module docstring).

    ``X`` (n, p) and ``y`` (n,) are validated; ``groups`` the resolved variables (name -> column
    indices). Returns a :class:`RelianceResult` with ``e_orig`` on all rows, ``e_switch`` of shape
    ``(members, G, R)`` equal to ``e_orig + d_r``, ``n_samples = subsample_rows``, ``algorithm``
    ``"subsampled_permutations"`` / ``"subsampled_halvings"`` and ``method`` ``"generic"``.
    """
    from ...models.prefix import member_predictor

    n, m, R = X.shape[0], int(subsample_rows), int(n_repeats)
    cols = list(groups.values())
    is_callable = callable(model) and not hasattr(model, "predict")
    predict = model if is_callable else member_predictor(model, n_estimators, n_jobs=n_jobs)
    orig = _row_losses(predict, X, y, loss_fn, int(max_rows_per_batch))  # (members, n)
    e_orig = orig.mean(axis=1)
    h = m // 2
    jobs, orig_sums, sizes = [], np.zeros((orig.shape[0], len(cols), R)), np.zeros(R)
    for r, (rows, perms) in enumerate(subsample_design(estimator, n, m, R, len(cols), random_state)):
        for g, perm in enumerate(perms):
            shown = rows[perm]
            if estimator == "permutation":  # row rows[q] gets the variable of row shown[q]
                recipients, donors = rows, shown
            else:  # the halving shown[:h] <-> shown[h:2h]
                recipients, donors = shown[: 2 * h], np.concatenate([shown[h : 2 * h], shown[:h]])
            jobs.append(_Job((g, r), cols[g], recipients, donors))
            orig_sums[:, g, r] = orig[:, recipients].sum(axis=1)
        sizes[r] = m if estimator == "permutation" else 2 * h
    sums = np.zeros_like(orig_sums)
    for job, s in _run_jobs(predict, X, y, loss_fn, jobs, int(max_rows_per_batch), loss_name):
        g, r = job.slot
        sums[:, g, r] = s
    diff = (sums - orig_sums) / sizes  # d_r: paired switched - unchanged loss on the repeat's rows
    return RelianceResult(
        features=list(groups),
        e_orig=e_orig,
        e_switch=e_orig[:, None, None] + diff,
        estimator=estimator,
        algorithm=SUBSAMPLED[estimator],
        loss=loss_name,
        n_samples=m,
        n_estimators=None if n_estimators is None else [int(k) for k in n_estimators],
        method="generic",
    )


def e_switch_subsample_se(
    model,
    X,
    y,
    *,
    features,
    feature_names,
    loss: str,
    max_samples: int,
    random_state,
    max_rows_per_batch: int = 65536,
    n_jobs=1,
) -> tuple[np.ndarray, np.ndarray]:
    """The Monte-Carlo SE of ``e_switch`` on the seeded subsample of ``max_samples`` rows
    (``model_reliance(..., max_samples=)``) as an estimate of the all-rows value: ``(ratio_se,
    diff_se)``, one per variable (the large-data policy; ``e_switch_max_rows`` alone reports none).

    With ``S`` the subsample (the rows ``model_reliance`` draws: ``np.sort(np.random.default_rng(
    random_state).choice(n, m, replace=False))``) and the switched-loss matrix ``M[i, j]`` of
    recipient ``i`` and donor ``j`` (:func:`~xaipipe.explain.reliance.switch_loss_matrix`), the
    estimate ``D = ê_switch(S) - ê_orig(S)`` is the U-statistic of the kernel
    ``K[i, j] = M[i, j] - M[i, i]`` over the ordered pairs of ``S``. Its first-order (Hoeffding 1948)
    projection gives each row the influence ``ψ_k = mean_{j≠k} K[k, j] + mean_{i≠k} K[i, k]`` and
    ``SE(D) = sd(ψ) / sqrt(m) * sqrt(1 - m/n)`` (sampling without replacement; the difference kernel
    keeps the row-to-row spread of the loss out of ``ψ``). The ratio ``ê_switch / ê_orig`` by the
    delta method: influence ``ψ_k / ē - D (M[k, k] - ē) / ē²``, ``ē = ê_orig(S)``.
    Cost: ``m² G`` more predictions (the matrix). ``tests/explain/reliance/test_subsample.py``
    checks it against 200 fresh subsamples around the exact all-rows value.
    """
    from ...losses import resolve_loss
    from ...models.prefix import member_predictor
    from ._base import check_X, check_y, resolve_features
    from ._engine import _stored
    from ._mc_error import switch_loss_matrix

    Xv, names = check_X(X)
    n = Xv.shape[0]
    yv = check_y(y, n)
    groups = resolve_features(features, Xv.shape[1], feature_names if feature_names is not None else names)
    _, loss_fn = resolve_loss(loss)
    m = int(max_samples)
    rows = np.sort(np.random.default_rng(random_state).choice(n, m, replace=False))
    Xs, ys = Xv[rows], yv[rows]
    predict = member_predictor(model, None, n_jobs=n_jobs)
    # a forest store decompresses every block on each predict call: one call per variable (m² rows),
    # the losses still per batch (bitwise the same: a forest's row outputs do not depend on the call)
    predict_rows = m * m if _stored(model) else None
    fpc = np.sqrt(max(1.0 - m / n, 0.0) / m)
    ratio_se, diff_se = [], []
    for cols in groups.values():
        M = switch_loss_matrix(predict, Xs, ys, cols, loss_fn, max_rows_per_batch, predict_rows)[0]
        diag = np.diag(M).copy()
        K = M - diag[:, None]  # K[i, i] = 0
        psi = K.sum(axis=1) / (m - 1) + K.sum(axis=0) / (m - 1)
        e_bar = diag.mean()
        D = K.sum() / (m * (m - 1))
        diff_se.append(psi.std(ddof=1) * fpc)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio_se.append((psi / e_bar - D * (diag - e_bar) / e_bar**2).std(ddof=1) * fpc)
    return np.asarray(ratio_se), np.asarray(diff_se)
