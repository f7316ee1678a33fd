#!/usr/bin/env python
"""Timing helpers of the benchmark scripts (not part of the package).

:func:`truncated_ensemble` stands a prefix of a fitted ensemble in for a separately
fitted member; :func:`time_reliance_paths` times three ways to get the permutation
MR of every prefix member (the tree engine, the generic predict-many path, and
``sklearn.inspection.permutation_importance`` per member). Moved here from the
package (they were ``xaipipe.rashomon.engine.truncated_ensemble`` /
``time_reliance_paths``); ``tests/report/test_reliance_timing.py`` tests them.

As a script, on Friedman's (1991) simulated regression data (scikit-learn's
``make_friedman1``; repository root, virtual environment active)::

    python benchmarks/reliance_timing.py [--family gradient_boosting] [--n-estimators 100]
                                         [--members 10] [--rows 500] [--repeats 10]
    python benchmarks/reliance_timing.py --tiny    # 6 trees, 3 members, 60 rows, 2 repeats: seconds
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from xaipipe.explain.reliance import RelianceOptions, model_reliance, random_permutations, resolve_features
from xaipipe.explain.reliance._engine import supports_engine
from xaipipe.models.prefix import ensemble_kind, n_members

__all__ = ["truncated_ensemble", "time_reliance_paths"]


def truncated_ensemble(model, k: int):
    """A shallow copy of a fitted random forest / gradient boosting model keeping
    its first ``k`` trees (stages).

    Its predictions equal those of the model refitted with ``n_estimators = k``
    (the prefix property of :mod:`xaipipe.models.prefix`), so it stands in for a
    separately fitted member, e.g. in :func:`time_reliance_paths`.

    Raises
    ------
    TypeError
        Unsupported model. ``ValueError``: ``k`` outside ``[1, n_trees]``.
    """
    import copy

    if not supports_engine(model):
        raise TypeError(f"{type(model).__name__} is not a forest or gradient boosting model with engine support")
    total = n_members(model)
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= int(k) <= total:
        raise ValueError(f"k must be an int in [1, {total}], got {k!r}")
    k = int(k)
    out = copy.copy(model)
    out.estimators_ = model.estimators_[:k]
    out.n_estimators = k
    if ensemble_kind(model) == "boosting":
        out.n_estimators_ = k
        for name in ("train_score_", "oob_improvement_", "oob_scores_"):
            if hasattr(model, name):
                setattr(out, name, getattr(model, name)[:k])
    return out


def time_reliance_paths(
    model,
    X,
    y,
    n_estimators: Sequence[int],
    *,
    features=None,
    feature_names: Sequence[str] | None = None,
    n_repeats: int = 20,
    random_state=0,
    scoring: str = "neg_mean_squared_error",
    baseline: bool = True,
) -> dict:
    """CPU seconds of three ways to get the permutation MR of every prefix member.

    * ``engine_s``: ``model_reliance(..., method="engine")``;
    * ``generic_s``: ``model_reliance(..., method="generic")`` (one ``predict`` of
      all prefixes per permuted data set);
    * ``permutation_importance_s``: ``sklearn.inspection.permutation_importance``
      called once per member (:func:`truncated_ensemble`), ``n_repeats`` repeats,
      every column permuted separately (it cannot permute a one-hot group
      jointly) - what a user without this library would run.

    Times are ``time.process_time`` differences (CPU of this process, robust to
    other load on the machine). Evidence for the performance issue, not a test.

    Returns
    -------
    dict
        The three times, ``members``, ``equal`` (engine and generic results
        bitwise equal).
    """
    import time

    Xv = np.asarray(X.to_numpy() if hasattr(X, "to_numpy") else X)
    ks = [int(k) for k in n_estimators]
    G = len(resolve_features(features, Xv.shape[1], feature_names))
    perms = random_permutations(Xv.shape[0], n_repeats, G, random_state)
    kw = dict(features=features, options=RelianceOptions(feature_names=feature_names, permutations=perms))
    t = time.process_time()
    a = model_reliance(model, Xv, y, n_estimators=ks, method="engine", **kw)
    engine_s = time.process_time() - t
    t = time.process_time()
    b = model_reliance(model, Xv, y, n_estimators=ks, method="generic", **kw)
    generic_s = time.process_time() - t
    out = {
        "members": len(ks),
        "engine_s": engine_s,
        "generic_s": generic_s,
        "equal": bool(np.array_equal(a.e_orig, b.e_orig) and np.array_equal(a.e_switch, b.e_switch)),
    }
    if baseline:
        from sklearn.inspection import permutation_importance

        t = time.process_time()
        for k in ks:
            permutation_importance(
                truncated_ensemble(model, k), Xv, y, n_repeats=n_repeats, random_state=random_state, scoring=scoring
            )
        out["permutation_importance_s"] = time.process_time() - t
    return out


FAMILIES = ("gradient_boosting", "random_forest", "extra_trees")


def main(argv=None) -> int:
    import argparse
    import os

    from sklearn.datasets import make_friedman1

    from xaipipe.models.families import make_estimator

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--family", choices=FAMILIES, default="gradient_boosting")
    ap.add_argument("--n-estimators", type=int, default=100, help="trees (stages) of the fitted model")
    ap.add_argument("--members", type=int, default=10, help="prefix members, evenly spaced up to --n-estimators")
    ap.add_argument("--rows", type=int, default=500, help="rows of the fit and of the MR data each")
    ap.add_argument("--repeats", type=int, default=10, help="permutations per variable")
    ap.add_argument("--no-baseline", action="store_true", help="skip permutation_importance per member")
    ap.add_argument("--tiny", action="store_true", help="6 trees, 3 members, 60 rows, 2 repeats (seconds)")
    args = ap.parse_args(argv)
    if args.tiny:
        args.n_estimators, args.members, args.rows, args.repeats = 6, 3, 60, 2
    if not 1 <= args.members <= args.n_estimators:
        ap.error("--members must be in [1, --n-estimators]")
    X, y = make_friedman1(n_samples=2 * args.rows, n_features=10, noise=1.0, random_state=0)
    model = make_estimator(
        args.family, "regression", {"n_estimators": args.n_estimators, "max_depth": 3}, random_state=0, n_jobs=1
    ).fit(X[: args.rows], y[: args.rows])
    ks = sorted({max(1, round(args.n_estimators * (i + 1) / args.members)) for i in range(args.members)})
    model_reliance(model, X[:20], y[:20], n_repeats=1, random_state=0, method="engine")  # load the numba kernels
    out = time_reliance_paths(
        model, X[args.rows :], y[args.rows :], ks, n_repeats=args.repeats, baseline=not args.no_baseline
    )
    print(
        f"{args.family} n_estimators={args.n_estimators} members={out['members']} rows={args.rows} "
        f"repeats={args.repeats} load_average={os.getloadavg()[0]:.2f}"
    )
    line = f"engine_s={out['engine_s']:.2f} generic_s={out['generic_s']:.2f}"
    if "permutation_importance_s" in out:
        line += f" permutation_importance_s={out['permutation_importance_s']:.2f}"
    print(line + f" generic/engine={out['generic_s'] / max(out['engine_s'], 1e-9):.2f} bitwise_equal={out['equal']}")
    return 0 if out["equal"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
