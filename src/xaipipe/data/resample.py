"""Seeded row resamples of the training split: the bootstrap of the Rashomon set and the
subsamples of the learner refits.

They live in the data layer because the ``split`` rule checks, before any fit, that every
resample the study will draw is large enough (:func:`xaipipe.data.split.check_sample_size`),
on the very rows the later steps draw: :mod:`xaipipe.rashomon.bootstrap` and
:mod:`xaipipe.explain.learner` take their resamples from here (and re-export these names).
"""

from __future__ import annotations

import numpy as np

from ..validation import check_fraction, check_int

__all__ = ["DEFAULT_FRACTION", "bootstrap_indices", "refit_seeds", "resample_seeds", "subsample_splits"]

#: Default training fraction of a learner refit (the experiments of Molnar et al. 2023: 0.632).
DEFAULT_FRACTION = 0.632


def resample_seeds(random_state, n_bootstrap: int) -> list[tuple[np.random.SeedSequence, np.random.SeedSequence]]:
    """Per-resample streams (bootstrap rows, permutations).

    Child ``b`` of ``SeedSequence(random_state).spawn(n_bootstrap)``, spawned
    into two; resample ``b`` does not depend on ``n_bootstrap``.
    """
    B = check_int(n_bootstrap, "n_bootstrap", minimum=1)
    root = random_state if isinstance(random_state, np.random.SeedSequence) else np.random.SeedSequence(random_state)
    return [tuple(child.spawn(2)) for child in root.spawn(B)]


def bootstrap_indices(
    n_samples: int, n_bootstrap: int, random_state=None, strata=None
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Bootstrap rows and out-of-bag rows of each resample.

    Parameters
    ----------
    n_samples : int
        ``n``, rows of the data.
    n_bootstrap : int
        ``B``.
    random_state : int, SeedSequence or None
        Root seed (:func:`resample_seeds`; the stream
        :func:`bootstrap_rashomon` uses).
    strata : array-like of shape (n,), optional
        Stratified resampling (a multiclass target): the ``n_k`` rows of each stratum
        are drawn with replacement from that stratum (strata in sorted order, one
        generator), so every resample holds every class and a model refitted on it
        knows all ``K`` classes. None: plain resampling of all rows.

    Returns
    -------
    list of (boot, oob)
        ``boot``: ``n`` row indices drawn uniformly with replacement (within each
        stratum), sorted; ``oob``: the sorted rows never drawn.

    Raises
    ------
    ValueError
        ``n < 2`` or a resample with fewer than 2 out-of-bag rows.
    """
    n = check_int(n_samples, "n_samples", minimum=2)
    out = []
    for b, (s_boot, _) in enumerate(resample_seeds(random_state, n_bootstrap)):
        rng = np.random.default_rng(s_boot)
        if strata is None:
            boot = np.sort(rng.integers(0, n, size=n))
        else:
            labels = np.asarray(strata)
            parts = [rows[rng.integers(0, rows.size, size=rows.size)] for rows in _strata_rows(labels)]
            boot = np.sort(np.concatenate(parts))
        mask = np.ones(n, dtype=bool)
        mask[boot] = False
        oob = np.flatnonzero(mask)
        if oob.size < 2:
            raise ValueError(f"resample {b} has {oob.size} out-of-bag rows; need at least 2 (more data)")
        out.append((boot, oob))
    return out


def _strata_rows(labels: np.ndarray) -> list[np.ndarray]:
    """Row positions of each stratum, strata in sorted order."""
    return [np.flatnonzero(labels == v) for v in np.unique(labels)]


def refit_seeds(random_state, n_refits: int) -> list[tuple[np.random.SeedSequence, int, np.random.SeedSequence]]:
    """Per-refit random streams: (subsample seed, estimator seed, permutation seed).

    Parameters
    ----------
    random_state : int, SeedSequence or None
        Root seed; ``None`` draws fresh entropy (not reproducible).
    n_refits : int

    Returns
    -------
    list of (SeedSequence, int, SeedSequence), length ``n_refits``
        Child ``k`` of ``SeedSequence(random_state).spawn(n_refits)``, itself
        spawned into three; the estimator seed is an int in ``[0, 2**31)``.
        Refit ``k``'s streams do not depend on ``n_refits``.
    """
    n_refits = check_int(n_refits, "n_refits", minimum=1)
    root = random_state if isinstance(random_state, np.random.SeedSequence) else np.random.SeedSequence(random_state)
    out = []
    for child in root.spawn(n_refits):
        s_split, s_model, s_perm = child.spawn(3)
        out.append((s_split, int(s_model.generate_state(1)[0] % (2**31)), s_perm))
    return out


def subsample_splits(
    n_samples: int, n_refits: int, fraction: float = DEFAULT_FRACTION, random_state=None, strata=None
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Training subsamples (without replacement) and their complements.

    Parameters
    ----------
    n_samples : int
        Rows of the data, ``n``.
    n_refits : int
        Number of subsamples ``K``.
    fraction : float in (0, 1], default 0.632
        Training fraction; ``n_1 = round(fraction * n)`` rows per subsample.
    random_state : int, SeedSequence or None
        Root seed, as :func:`refit_seeds` (the same stream as
        :func:`learner_refits` uses, so these are its splits).
    strata : array-like of shape (n,), optional
        Stratified subsamples (a multiclass target): ``round(fraction * n_k)`` rows of
        each stratum ``k`` (at least 1, at most ``n_k - 1``; strata in sorted order,
        one generator), so that every refit knows every class. None: plain subsamples.

    Returns
    -------
    list of (train, holdout)
        Sorted row indices; ``train`` has ``n_1`` rows, ``holdout`` the other
        ``n - n_1`` (empty when ``fraction`` is 1).

    Raises
    ------
    ValueError
        ``n_1 < 2``.
    """
    n = check_int(n_samples, "n_samples", minimum=2)
    f = check_fraction(fraction, "fraction")
    n1 = int(round(f * n))
    if n1 < 2:
        raise ValueError(f"fraction={f} of {n} rows leaves {n1} training rows; need at least 2")
    rows = None
    if strata is not None:
        labels = np.asarray(strata)
        if labels.shape != (n,):
            raise ValueError(f"strata must have shape ({n},), got {labels.shape}")
        rows = [np.flatnonzero(labels == v) for v in np.unique(labels)]
        sizes = [min(max(int(round(f * r.size)), 1), max(r.size - (f < 1.0), 1)) for r in rows]
    out = []
    everyone = np.arange(n)
    for s_split, _, _ in refit_seeds(random_state, n_refits):
        rng = np.random.default_rng(s_split)
        if rows is None:
            train = np.sort(rng.choice(n, size=n1, replace=False))
        else:
            train = np.sort(np.concatenate([r[rng.choice(r.size, size=m, replace=False)] for r, m in zip(rows, sizes)]))
        mask = np.ones(n, dtype=bool)
        mask[train] = False
        out.append((train, everyone[mask]))
    return out
