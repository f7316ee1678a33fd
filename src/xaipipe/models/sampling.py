"""Random search over a model family: configurations sampled from documented distributions.

The seed's grids are kept exactly for the thesis (best configurations, Tables 5.x,
Table 4.1); a Rashomon set built from them alone holds almost nothing near the best
model (on Diabetes, one configuration within a CV standard error). The pipeline
therefore *samples the model class* too (issue 21, Bergstra & Bengio 2012, "Random
search for hyper-parameter optimization", JMLR 13): per family, ``n_iter``
configurations drawn with :class:`sklearn.model_selection.ParameterSampler` from
distributions given in config, each crossed with a small fixed grid (e.g. the
``n_estimators`` values, evaluated from one fit by exact shared-prefix evaluation).
They are cross-validated on the same folds as the grid and marked
``origin="sample"`` in the CV tables.

A sampling spec (config ``rashomon.sample.families.<task>.<family>``)::

    {n_iter: 12,
     distributions: {learning_rate: {loguniform: [0.01, 0.3]},
                     max_depth: {randint: [2, 8]},
                     subsample: {uniform: [0.5, 1.0]},
                     max_features: {choice: [1.0, sqrt]}},
     grid: {n_estimators: {start: 100, stop: 1000, step: 100}}}

``replicates: R`` (default 1) repeats every draw with R values of ``random_state``: the
draw's own (drawn, or the family's default when not drawn) and R − 1 more from a seeded
stream per draw (raising R keeps the replicates already drawn); for randomised learners
(row subsampling, bootstrap) these are different models of the same hyperparameters
(issue 21: "replicates over random_state for randomised learners").

Distributions (scipy.stats): ``loguniform: [a, b]`` (:func:`scipy.stats.loguniform`),
``uniform: [a, b]`` (on ``[a, b]``), ``randint: [a, b]`` (integers ``a..b``
inclusive), ``choice: [...]`` (uniform over the values); a plain value is fixed.
Sampled floats are rounded to 4 significant digits, so configuration identifiers
stay readable and reproducible.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from .grid import config_id, expand_grid

__all__ = ["distribution", "sample_configurations"]

#: Distribution keys of a sampling spec.
DISTRIBUTIONS = ("loguniform", "uniform", "randint", "choice")


def distribution(spec: Any, name: str = "parameter"):
    """The scipy.stats distribution (or list of values) of one sampled parameter.

    Raises
    ------
    ValueError
        An unknown distribution or malformed bounds (the message names ``name``).
    """
    from scipy import stats

    if not isinstance(spec, Mapping):
        return [spec]
    if len(spec) != 1 or next(iter(spec)) not in DISTRIBUTIONS:
        raise ValueError(f"sampling distribution of {name!r} must be one of {list(DISTRIBUTIONS)}, got {dict(spec)}")
    kind, args = next(iter(spec.items()))
    if kind == "choice":
        if not isinstance(args, (list, tuple)) or not args:
            raise ValueError(f"choice of {name!r} needs a non-empty list of values")
        return list(args)
    if not isinstance(args, (list, tuple)) or len(args) != 2 or not args[0] < args[1]:
        raise ValueError(f"{kind} of {name!r} needs bounds [a, b] with a < b, got {args!r}")
    a, b = args
    if kind == "loguniform":
        if a <= 0:
            raise ValueError(f"loguniform of {name!r} needs a > 0, got {a}")
        return stats.loguniform(a, b)
    if kind == "uniform":
        return stats.uniform(a, b - a)
    if not (float(a).is_integer() and float(b).is_integer()):
        raise ValueError(f"randint of {name!r} needs integer bounds, got {args!r}")
    return stats.randint(int(a), int(b) + 1)


def _round(value):
    if isinstance(value, float) and value != 0 and math.isfinite(value):
        return float(f"{value:.4g}")
    if hasattr(value, "item"):  # numpy scalars
        return _round(value.item())
    return value


def sample_configurations(spec: Mapping[str, Any], *, random_state: int, exclude=()) -> list[dict]:
    """The configurations of one family's random search.

    Parameters
    ----------
    spec : mapping
        ``n_iter`` (draws), ``distributions`` (parameter -> distribution, see the
        module docstring), optional ``grid`` (parameter -> values, crossed with
        every draw, e.g. ``n_estimators``) and optional ``replicates`` (int >= 1:
        random_state replicates of every draw, see the module docstring).
    random_state : int
        Seed of :class:`sklearn.model_selection.ParameterSampler`.
    exclude : iterable of mapping
        Configurations to leave out (the grid's): a draw equal to one of them is
        dropped, so no configuration is cross-validated twice.

    Returns
    -------
    list of dict
        ``n_iter`` draws (fewer if some coincide with each other or with ``exclude``)
        times ``replicates`` times the ``grid`` configurations, in draw order
        (replicates of a draw follow it).

    Raises
    ------
    ValueError
        A malformed spec (the message names the key).
    """
    from sklearn.model_selection import ParameterSampler

    unknown = set(spec) - {"n_iter", "distributions", "grid", "replicates"}
    if unknown:
        raise ValueError(
            f"sampling spec has unknown key(s) {sorted(unknown)}; expected n_iter, distributions, grid, replicates"
        )
    n_iter = int(spec.get("n_iter", 0))
    if n_iter < 0:
        raise ValueError(f"n_iter must be >= 0, got {n_iter}")
    replicates = spec.get("replicates", 1)
    if isinstance(replicates, bool) or not isinstance(replicates, int) or replicates < 1:
        raise ValueError(f"replicates must be an integer >= 1, got {replicates!r}")
    dists = {k: distribution(v, k) for k, v in (spec.get("distributions") or {}).items()}
    fixed = expand_grid(spec.get("grid") or {})
    if replicates > 1 and any("random_state" in extra for extra in fixed):
        raise ValueError("replicates draw random_state; it cannot also be in the sampling grid")
    if n_iter == 0:
        return []
    draws = list(ParameterSampler(dists, n_iter, random_state=random_state)) if dists else [{}]
    # R - 1 further seeds per draw, each draw from its own stream: replicates = 1 keeps the draws,
    # and raising R keeps the replicates already drawn
    seeds = [
        np.random.default_rng([random_state, 21, i]).integers(0, 2**31 - 1, size=replicates - 1)
        for i in range(len(draws))
    ]
    seen = {config_id(c) for c in exclude}
    out = []
    for draw, more in zip(draws, seeds):
        draw = {k: _round(v) for k, v in sorted(draw.items())}
        copies = [draw] + [dict(sorted({**draw, "random_state": int(s)}.items())) for s in more]
        for copy in copies:
            for extra in fixed:
                cfg = {**copy, **extra}
                cid = config_id(cfg)
                if cid not in seen:
                    seen.add(cid)
                    out.append(cfg)
    return out
