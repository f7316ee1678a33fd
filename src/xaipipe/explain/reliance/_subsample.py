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
here: its set-up per call would cost more than the rows it saves). On a forest store opened lazily
every one of those calls is answered from a single pass over its blocks of trees
(:func:`xaipipe.models.forest_store.predict_in_one_pass`; bitwise the same losses), instead of one
decompression of the whole store per call.

The conditional permutation's policy (``strata=``, :func:`subsample_design`) uses the same stream
with donors from a permutation of all rows within their strata; the ``e_switch`` subsample's SE is
:class:`PairSums`, gathered while the estimate is formed.
"""

from __future__ import annotations

import numpy as np

from ._base import RelianceResult, conditional_permutations, estimator_stream, random_permutations
from ._generic import _Job, _run_jobs

__all__ = ["PairSums", "subsample_design", "subsampled_reliance"]

#: The ``algorithm`` label of a subsampled estimator.
SUBSAMPLED = {"permutation": "subsampled_permutations", "e_divide": "subsampled_halvings"}


def subsample_design(
    estimator: str, n: int, m: int, n_repeats: int, n_groups: int, random_state, *, strata=None
) -> list[tuple[np.ndarray, np.ndarray]]:
    """The rows and the per-variable permutations of each repeat: ``[(rows_r, perms_r), ...]``.

    ``rng = np.random.default_rng(estimator_stream(estimator, random_state))`` (``e_divide``: an
    independent stream of the seed, as without subsampling); repeat ``r`` takes
    ``rows_r = np.sort(rng.choice(n, m, replace=False))``, then
    ``perms_r = random_permutations(m, 1, n_groups, int(rng.integers(2**63)))[:, 0]`` of shape
    ``(G, m)`` (positions within ``rows_r``), in repeat order.

    With ``strata`` (integer labels, shape ``(G, n)``: the conditional permutation's leaves of all
    ``n`` rows, :func:`~xaipipe.explain.reliance.conditional_strata`), ``perms_r`` is instead
    ``conditional_permutations(strata, 1, int(rng.integers(2**63)))[:, 0]`` of shape ``(G, n)``:
    a permutation of *all* rows within their strata, of which repeat ``r`` evaluates the recipients
    ``rows_r`` (row ``rows_r[q]`` gets the variable of row ``perms_r[g, rows_r[q]]``), so that each
    recipient's donor is drawn from its whole stratum, exactly as without subsampling.
    """
    rng = np.random.default_rng(estimator_stream(estimator, random_state))
    if strata is not None:
        strata = np.atleast_2d(np.asarray(strata))
        if strata.shape != (n_groups, n):
            raise ValueError(f"strata must have shape ({n_groups}, {n}), got {strata.shape}")
    out = []
    for _ in range(int(n_repeats)):
        rows = np.sort(rng.choice(n, m, replace=False))
        seed = int(rng.integers(2**63))
        if strata is None:
            perms = random_permutations(m, 1, n_groups, seed)[:, 0]
        else:
            perms = conditional_permutations(strata, 1, seed)[:, 0]
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
    loss: tuple,
    groups: dict,
    design: list,
    n_estimators,
    max_rows_per_batch: int,
    n_jobs,
    strata=None,
) -> RelianceResult:
    """:func:`~xaipipe.explain.reliance.model_reliance` of ``permutation`` / ``e_divide`` with each of
    the repeats on its own subsample of rows (module docstring).

    ``X`` (n, p) and ``y`` (n,) are validated; ``loss`` the resolved ``(loss_name, loss_fn)``;
    ``groups`` the resolved variables (name -> column indices); ``design`` the repeats' rows and
    permutations, :func:`subsample_design` (``R`` repeats of ``m`` rows). Returns a
    :class:`RelianceResult` with ``e_orig`` on all rows, ``e_switch`` of shape ``(members, G, R)``
    equal to ``e_orig + d_r``, ``n_samples = m``, ``algorithm`` ``"subsampled_permutations"`` /
    ``"subsampled_halvings"`` and ``method`` ``"generic"``. ``strata`` (``estimator="permutation"``
    only; shape ``(G, n)``, as given to :func:`subsample_design`): the donors are those of a
    permutation of all rows within their strata: the conditional permutation's policy
    (:func:`~xaipipe.explain.reliance.conditional_model_reliance`).
    """
    if strata is not None and estimator != "permutation":
        raise ValueError(f"strata apply to estimator='permutation', not {estimator!r}")
    from ...models.forest_store import plans_predictions, predict_in_one_pass
    from ...models.prefix import member_predictor

    loss_name, loss_fn = loss
    m, R = len(design[0][0]), len(design)
    cols = list(groups.values())
    is_callable = callable(model) and not hasattr(model, "predict")
    h = m // 2
    jobs, sizes = [], np.zeros(R)
    for r, (rows, perms) in enumerate(design):
        for g, perm in enumerate(perms):
            shown = perm[rows] if strata is not None else rows[perm]
            if estimator == "permutation":  # row rows[q] gets the variable of row shown[q]
                recipients, donors = rows, shown
            else:  # the halving shown[:h] <-> shown[h:2h]
                recipients, donors = shown[: 2 * h], np.concatenate([shown[h : 2 * h], shown[:h]])
            jobs.append(_Job((g, r), cols[g], recipients, donors))
        sizes[r] = m if estimator == "permutation" else 2 * h

    def losses(fitted, threads=n_jobs):
        """Every row's unchanged loss ``(members, n)`` and the jobs' switched loss sums ``(members, G, R)``."""
        predict = fitted if is_callable else member_predictor(fitted, n_estimators, n_jobs=threads)
        orig = _row_losses(predict, X, y, loss_fn, int(max_rows_per_batch))
        sums = np.zeros((orig.shape[0], len(cols), R))
        for job, s in _run_jobs(predict, X, y, loss_fn, jobs, int(max_rows_per_batch), loss_name):
            g, r = job.slot
            sums[:, g, r] = s
        return orig, sums

    if not is_callable and n_estimators is None and plans_predictions(model):
        # a forest store: the predict calls (in one thread: a plan replays them in order) answered
        # from one pass over its blocks, bitwise
        orig, sums = predict_in_one_pass(model, lambda fitted: losses(fitted, 1))
    else:
        orig, sums = losses(model)
    e_orig = orig.mean(axis=1)
    orig_sums = np.zeros_like(sums)
    for job in jobs:
        g, r = job.slot
        orig_sums[:, g, r] = orig[:, job.recipients].sum(axis=1)
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


class PairSums:
    """Row and column sums of the switched-loss matrix of ``e_switch`` and its diagonal, per member
    and variable, gathered from the losses the estimate is formed from (no more predictions): the
    policy's Monte-Carlo SE of the ``e_switch_max_rows`` subsample (:meth:`standard_errors`).

    ``M[i, j]`` is the loss of recipient ``i`` with the variable of donor ``j``
    (:func:`~xaipipe.explain.reliance.switch_loss_matrix`); the ``e_switch`` design
    (:func:`~xaipipe.explain.reliance._base.switch_designs`) holds every ordered pair ``i != j``
    once, and ``M[i, i]`` is row ``i``'s unchanged loss. The engine
    (:func:`~xaipipe.explain.reliance._engine.engine_sums`) and the generic path
    (:func:`~xaipipe.explain.reliance._generic.generic_sums`) call :meth:`add` with each batch's
    losses and :meth:`add_unchanged` with the unchanged rows'.

    Parameters
    ----------
    n : int
        Rows of the (sub)sample: ``M`` is ``n x n``.
    n_groups : int
        Variables ``G``.
    """

    def __init__(self, n: int, n_groups: int):
        self.n, self.n_groups = int(n), int(n_groups)
        self.by_recipient: dict[int, np.ndarray] = {}  # member -> (G, n): sum_j M[i, j], j != i
        self.by_donor: dict[int, np.ndarray] = {}  # member -> (G, n): sum_i M[i, j], i != j
        self.unchanged: dict[int, np.ndarray] = {}  # member -> (n,): M[i, i]

    def _of(self, store: dict, member: int) -> np.ndarray:
        if member not in store:
            store[member] = np.zeros((self.n_groups, self.n))
        return store[member]

    def add(self, members, g: int, recipients: np.ndarray, donors: np.ndarray, losses: np.ndarray) -> None:
        """Add the switched losses ``losses`` (shape ``(rows,)``) of rows ``recipients[q]`` with the
        variable ``g`` of rows ``donors[q]`` to the sums of each member in ``members``."""
        by_r = np.bincount(recipients, weights=losses, minlength=self.n)
        by_d = np.bincount(donors, weights=losses, minlength=self.n)
        for i in members:
            self._of(self.by_recipient, i)[g] += by_r
            self._of(self.by_donor, i)[g] += by_d

    def add_unchanged(self, members, losses: np.ndarray) -> None:
        """The unchanged rows' losses (shape ``(n,)``) of each member in ``members``."""
        for i in members:
            self.unchanged[i] = np.array(losses, dtype=np.float64)

    def standard_errors(self, n_total: int) -> tuple[np.ndarray, np.ndarray]:
        """``(mr_ratio_se, mr_difference_se)``, each of shape ``(members, G)``: the Monte-Carlo SE of
        ``e_switch`` on this subsample of ``n`` rows, drawn without replacement from ``n_total``, as
        an estimate of the all-rows value.

        ``D = ê_switch - ê_orig`` is the U-statistic of the kernel ``K[i, j] = M[i, j] - M[i, i]``
        over the ordered pairs of the subsample. Its first-order (Hoeffding 1948) projection gives
        row ``k`` the influence ``ψ_k = (sum_{j≠k} K[k, j] + sum_{i≠k} K[i, k]) / (n - 1)``, from the
        row sums (``by_recipient[k] - (n - 1) M[k, k]``) and the column sums
        (``by_donor[k] - sum_{i≠k} M[i, i]``), and ``SE(D) = sd(ψ) / sqrt(n) * sqrt(1 - n / n_total)``
        (sampling without replacement; the difference kernel keeps the row-to-row spread of the
        loss out of ``ψ``). The ratio ``ê_switch / ê_orig`` by the delta method: influence
        ``ψ_k / ē - D (M[k, k] - ē) / ē²``, ``ē = ê_orig``.
        ``tests/explain/reliance/test_subsample.py`` checks it against the whole matrix and against
        200 fresh subsamples around the exact all-rows value.
        """
        m = self.n
        fpc = np.sqrt(max(1.0 - m / int(n_total), 0.0) / m)
        members = sorted(self.unchanged)
        ratio_se, diff_se = np.empty((len(members), self.n_groups)), np.empty((len(members), self.n_groups))
        for i, member in enumerate(members):
            diag = self.unchanged[member]
            row = self.by_recipient[member] - (m - 1) * diag  # (G, n): sum_j K[k, j]
            col = self.by_donor[member] - (diag.sum() - diag)  # (G, n): sum_i K[i, k]
            psi = (row + col) / (m - 1)
            D = row.sum(axis=1, keepdims=True) / (m * (m - 1))
            e_bar = diag.mean()
            diff_se[i] = psi.std(axis=1, ddof=1) * fpc
            with np.errstate(divide="ignore", invalid="ignore"):
                ratio_se[i] = (psi / e_bar - D * (diag - e_bar) / e_bar**2).std(axis=1, ddof=1) * fpc
        return ratio_se, diff_se
