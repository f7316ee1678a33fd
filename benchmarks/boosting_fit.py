#!/usr/bin/env python
"""Gradient boosting fits: plain scikit-learn against the pipeline's exact fit path.

Usage (from the repository root, virtual environment active)::

    python benchmarks/boosting_fit.py                      # Abalone, the Table 4.1 grid's losses
    python benchmarks/boosting_fit.py --stages 300 --rounds 2 --depths 2 5
    python benchmarks/boosting_fit.py --tiny               # benchmarks/run.py's tiny regression table, seconds

On the first CV fold of Abalone's training rows (the pipeline's split), fits one
``GradientBoostingRegressor`` per ``max_depth`` x ``loss`` (``learning_rate``
0.1, ``random_state`` the config seed) three ways, in an order that alternates
between rounds so that this machine's drift hits all of them alike:

* ``plain``: ``estimator.fit(X, y)`` (what ``GridSearchCV`` runs);
* ``leaf``: inside :func:`xaipipe.models.boosting.fast_leaf_updates` only (the
  exact vectorised leaf updates);
* ``pipeline``: :func:`xaipipe.models.boosting.fit_estimator` (leaf updates,
  hyperparameters validated once instead of once per stage tree).

Asserts that the three give bitwise-equal training predictions and prints one
line per path and loss and the ratios
``<loss>: plain_s=<x> leaf_s=<y> pipeline_s=<z> ratio=<x/z> validation_saving=<1-z/y>``.
Evidence for ``docs/performance.md``, not a test. ``--tiny`` runs the same on the first fold
of ``benchmarks/run.py --tiny``'s self-made regression table (10 stages, depth 2, 2 rounds).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]


def _run_module():
    """benchmarks/run.py, loaded by path (the package itself must be installed: ``pip install -e .``)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_run", REPO / "benchmarks" / "run.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


LOSSES = ("squared_error", "absolute_error", "huber")


def main(argv=None) -> int:
    run = _run_module()
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--mirror",
        default=run.default_mirror(),
        help="offline UCI mirror (default $XAIPIPE_UCI_MIRROR or ../shared/data/uci)",
    )
    parser.add_argument(
        "--tiny", action="store_true", help="a tiny self-made table, 10 stages, depth 2, 2 rounds (seconds)"
    )
    parser.add_argument("--stages", type=int, default=900, help="n_estimators of every fit (default 900)")
    parser.add_argument("--depths", type=int, nargs="+", default=[2, 3, 5], help="max_depth values")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds (default 3)")
    args = parser.parse_args(argv)
    if args.tiny:
        import tempfile

        args.stages, args.depths, args.rounds = 10, [2], 2
        with tempfile.TemporaryDirectory(prefix="boosting_fit_tiny_") as folder:
            cfg = run.tiny_config(run.load_config(), Path(folder))
            return _main(args, cfg, run.load_dataset(next(iter(run.TINY_DATASETS)), cfg, None))
    cfg = run.load_config()
    return _main(args, cfg, run.load_dataset("abalone", cfg, args.mirror))


def _main(args, cfg, data) -> int:
    from sklearn.ensemble import GradientBoostingRegressor

    from xaipipe.models.boosting import fast_leaf_updates, fit_estimator

    train, _ = data["folds"][0]
    X, y = data["X_train"][train], data["y_train"][train]
    print(
        f"{data['name']} fold 0: {X.shape[0]} rows x {X.shape[1]} features, {args.stages} stages, "
        f"depths {args.depths}, {args.rounds} rounds",
        flush=True,
    )

    def plain(est):
        return est.fit(X, y)

    def leaf(est):
        with fast_leaf_updates():
            return est.fit(X, y)

    def pipeline(est):
        return fit_estimator(est, X, y)

    paths = {"plain": plain, "leaf": leaf, "pipeline": pipeline}
    seconds = {(p, loss): 0.0 for p in paths for loss in LOSSES}
    for r in range(args.rounds):
        order = list(paths) if r % 2 == 0 else list(reversed(paths))
        for depth in args.depths:
            for loss in LOSSES:
                preds = {}
                for name in order:
                    est = GradientBoostingRegressor(
                        n_estimators=args.stages,
                        max_depth=depth,
                        loss=loss,
                        learning_rate=0.1,
                        random_state=cfg["seed"],
                    )
                    t = time.perf_counter()
                    paths[name](est)
                    seconds[(name, loss)] += time.perf_counter() - t
                    preds[name] = est.predict(X)
                for name in ("leaf", "pipeline"):
                    if not np.array_equal(preds[name].view(np.int64), preds["plain"].view(np.int64)):
                        raise AssertionError(f"{name} differs from plain scikit-learn: depth {depth}, {loss}")
        print(f"round {r + 1} done", flush=True)
    tot = {p: sum(seconds[(p, loss)] for loss in LOSSES) for p in paths}
    for loss in LOSSES + ("all",):
        s = tot if loss == "all" else {p: seconds[(p, loss)] for p in paths}
        print(
            f"{loss}: plain_s={s['plain']:.2f} leaf_s={s['leaf']:.2f} pipeline_s={s['pipeline']:.2f} "
            f"ratio={s['plain'] / s['pipeline']:.2f} validation_saving={1 - s['pipeline'] / s['leaf']:.1%}"
        )
    print("check: training predictions bitwise equal on every fit")
    return 0


if __name__ == "__main__":
    sys.exit(main())
