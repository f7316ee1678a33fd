"""The generic path of model reliance: any predict-many function, batched predict calls.

Every switched data set (:func:`~xaipipe.explain.reliance._base.switch_designs`)
is built once (one fancy-indexed copy of ``X`` per variable and repeat) and passed
through ``predict`` once for all members; several small data sets are stacked
into one call up to ``max_rows_per_batch`` rows. Per-data-set loss sums do not
depend on the batching.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["generic_sums"]


@dataclass(frozen=True)
class _Job:
    slot: tuple[int, int] | None  # (group, repeat); None = the original data
    cols: np.ndarray | None  # switched columns
    recipients: np.ndarray  # rows giving y and the other columns
    donors: np.ndarray | None  # rows giving the switched columns


def _run_jobs(predict, X, y, loss_fn, jobs, max_rows, name, with_losses=False):
    """Yield (job, loss sum over its rows, shape (m,)) with batched predict calls; with ``with_losses``,
    (job, loss sum, the rows' losses of shape (m, rows of the job))."""
    state = {"m": None}

    def run(batch):
        rows = sum(len(j.recipients) for j in batch)
        Xb = np.empty((rows, X.shape[1]), dtype=X.dtype)
        yb = np.empty(rows, dtype=y.dtype)
        bounds = []
        start = 0
        for job in batch:
            stop = start + len(job.recipients)
            block = Xb[start:stop]
            np.take(X, job.recipients, axis=0, out=block)
            if job.cols is not None:
                block[:, job.cols] = X[np.ix_(job.donors, job.cols)]
            yb[start:stop] = y[job.recipients]
            bounds.append((start, stop))
            start = stop
        out = np.asarray(predict(Xb))
        if out.ndim not in (2, 3) or out.shape[1] != rows:
            raise ValueError(
                f"predict must return shape (n_members, {rows}) or "
                f"(n_members, {rows}, n_classes) for {rows} rows; got {out.shape}"
            )
        if state["m"] is None:
            state["m"] = out.shape[0]
        elif out.shape[0] != state["m"]:
            raise ValueError(f"predict returned {out.shape[0]} members, earlier {state['m']}")
        losses = np.asarray(loss_fn(yb, out), dtype=np.float64)
        if losses.shape != (out.shape[0], rows):
            raise ValueError(f"loss {name!r} returned shape {losses.shape}, expected {(out.shape[0], rows)}")
        if with_losses:
            return [(job, losses[:, a:b].sum(axis=1), losses[:, a:b]) for job, (a, b) in zip(batch, bounds)]
        return [(job, losses[:, a:b].sum(axis=1)) for job, (a, b) in zip(batch, bounds)]

    batch, rows = [], 0
    for job in jobs:
        size = len(job.recipients)
        if batch and rows + size > max_rows:
            yield from run(batch)
            batch, rows = [], 0
        batch.append(job)
        rows += size
    if batch:
        yield from run(batch)


def generic_sums(predict, X, y, loss_fn, loss_name, cols, designs, max_rows: int, pairs=None):
    """``e_orig`` of shape ``(m,)`` and the switched loss sums ``(m, G, R)``.

    Parameters
    ----------
    predict : callable
        Predict-many ``X -> (m, rows)`` or ``(m, rows, n_classes)``.
    X, y : validated data (``n`` rows)
    loss_fn, loss_name : the per-sample loss
    cols : list of column-index arrays (the variables)
    designs : per variable, ``(repeat, recipients, donors)`` triples
        (:func:`~xaipipe.explain.reliance._base.switch_designs`); empty lists for
        e_orig only.
    max_rows : int
        Rows per ``predict`` call (a single data set is never split).
    pairs : :class:`._subsample.PairSums`, optional
        Receives every loss by recipient and donor row, and the unchanged rows' losses (the
        ``e_switch`` subsample's SE); the sums do not change.
    """
    n = X.shape[0]
    R = 1 + max((r for dg in designs for r, _, _ in dg), default=0)

    def jobs():
        # Generated lazily: the all-pairs index arrays exist one chunk at a time.
        yield _Job(None, None, np.arange(n), None)
        for g, dg in enumerate(designs):
            for r, recip, donors in dg:
                yield _Job((g, r), cols[g], recip, donors)

    sums = None
    e_orig = None
    for job, s, *losses in _run_jobs(predict, X, y, loss_fn, jobs(), int(max_rows), loss_name, pairs is not None):
        if job.slot is None:
            e_orig = s / n
            sums = np.zeros((s.shape[0], len(cols), R))
            if pairs is not None:
                for i in range(s.shape[0]):
                    pairs.add_unchanged([i], losses[0][i])
            continue
        g, r = job.slot
        sums[:, g, r] += s
        if pairs is not None:
            for i in range(s.shape[0]):
                pairs.add([i], g, job.recipients, job.donors, losses[0][i])
    return e_orig, sums
