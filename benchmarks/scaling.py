#!/usr/bin/env python
"""How the cost of the pipeline's two heavy kernels grows: rows, features, grid size, Rashomon-set size.

Usage (repository root, virtual environment active; about 10 minutes on 2 cores)::

    python benchmarks/scaling.py [--cores 1] [--json scaling.json]
    python benchmarks/scaling.py --tiny     # the same points, cut down, on a tiny self-made table (seconds)

Measured on Abalone (thesis 001's Table 4.1 data; the pipeline's split and folds):

* ``grid_cv`` -- :func:`xaipipe.models.cv.cross_validate_grid` of a gradient boosting
  grid (5-fold CV), varying the training rows ``n``, the columns ``p``, the largest
  ``n_estimators`` ``K`` (20 values ``K/20 .. K``: the shared-prefix cost grows with
  ``K``, the naive cost with the sum of the values, ``10.5 K``) and the number of
  configurations (learning rates);
* ``mr`` -- the model reliance of the members of a Rashomon set with the tree engine
  (:func:`xaipipe.explain.reliance.model_reliance` with ``method="engine"``,
  permutation estimator, 20 repeats), varying the evaluation rows ``n``, the columns ``p`` (one variable
  each), and the number of members ``m`` (prefix groups of the 324-model grid of
  thesis 001 Table 4.1, 9 members each).

Each point is the minimum wall time (``time.perf_counter``) of ``--repeats`` runs
(default 2). The exponent ``b`` of ``cost = a * size**b`` is the least-squares
slope of ``log cost`` on ``log size``. Rows and columns are subsets of the real
data (rows without replacement, seeded; columns in the data's order), so larger
sizes are the full data set.

``--tiny`` measures the same factors with the sizes of :data:`TINY` (two points each, one
repeat) on ``benchmarks/run.py --tiny``'s self-made regression table and a 2 x 2 x 2 x 2 grid
in place of Table 4.1's; its numbers mean nothing (``tests/test_benchmarks.py`` runs it).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import time
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]


def _run_module():
    """benchmarks/run.py, loaded by path (the package itself must be installed: ``pip install -e .``)."""
    spec = importlib.util.spec_from_file_location("bench_run", REPO / "benchmarks" / "run.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SEED = 20250223

#: The sizes measured: rows, columns, largest n_estimators K and learning rates of the grid CV;
#: evaluation rows and columns of the MR; the members' grid (None: thesis 001 Table 4.1's);
#: permutations per variable.
FULL = {
    "grid_rows": (800, 1600, 3200),
    "grid_features": (3, 5, 10),
    "base_K": 500,
    "grid_K": (250, 500, 1000),
    "grid_lrs": (1, 2, 4),
    "mr_rows": (209, 418, 836),
    "mr_features": (2, 5, 10),
    "study_grid": None,
    "repeats_R": 20,
}
TINY = {
    "grid_rows": (30, 60),
    "grid_features": (2, 4),
    "base_K": 20,
    "grid_K": (20, 40),
    "grid_lrs": (1, 2),
    "mr_rows": (10, 20),
    "mr_features": (2, 4),
    "study_grid": {
        "n_estimators": {"start": 2, "stop": 6, "step": 2},
        "learning_rate": [0.1, 0.3],
        "max_depth": [1, 2],
        "loss": ["squared_error", "huber"],
    },
    "repeats_R": 3,
}


def best_time(fn, repeats):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def exponent(sizes, costs) -> float:
    x, y = np.log(np.asarray(sizes, float)), np.log(np.asarray(costs, float))
    return float(np.polyfit(x, y, 1)[0])


def subsample_folds(n, n_folds, seed):
    from sklearn.model_selection import KFold

    return list(KFold(n_folds, shuffle=True, random_state=seed).split(np.zeros(n)))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cores", type=int, default=1, help="n_jobs of the measured code (default 1)")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument(
        "--mirror", default=None, help="offline UCI mirror (default $XAIPIPE_UCI_MIRROR or ../shared/data/uci)"
    )
    parser.add_argument("--json")
    parser.add_argument("--tiny", action="store_true", help="the sizes of TINY on a tiny self-made table (seconds)")
    args = parser.parse_args(argv)
    run = _run_module()
    if args.tiny:
        import tempfile

        args.repeats = 1
        with tempfile.TemporaryDirectory(prefix="scaling_tiny_") as folder:
            cfg = run.tiny_config(run.load_config(), Path(folder))
            return measure(args, run.load_dataset(next(iter(run.TINY_DATASETS)), cfg, None), TINY)
    return measure(args, run.load_dataset("abalone", run.load_config(), args.mirror or run.default_mirror()), FULL)


def measure(args, data, plan):
    from xaipipe.explain.reliance import RelianceOptions, model_reliance, sklearn_permutations
    from xaipipe.models.cv import cross_validate_grid
    from xaipipe.models.grid import config_id, expand_grid
    from xaipipe.rashomon.refit import fit_member_groups
    from xaipipe.studies.abalone import THESIS_GRID

    print(
        f"load_average={os.getloadavg()[0]:.2f} cores={args.cores} repeats={args.repeats} data={data['name']}",
        flush=True,
    )
    Xtr, ytr, Xte, yte = data["X_train"], data["y_train"], data["X_test"], data["y_test"]
    rng = np.random.default_rng(SEED)
    rows = []

    def record(kernel, factor, size, seconds, **fixed):
        rows.append({"kernel": kernel, "factor": factor, "size": size, "seconds": seconds, **fixed})
        print(f"{kernel:8s} {factor:9s} size={size:>5} {seconds:8.3f} s  {fixed}", flush=True)

    # ---------------------------------------------------------------- grid CV
    def k_range(K):
        return {"start": K // 20, "stop": K, "step": K // 20}

    base_K = plan["base_K"]
    base_grid = {"n_estimators": k_range(base_K), "learning_rate": [0.1]}

    def cv(X, y, grid, folds):
        return cross_validate_grid(
            "gradient_boosting", "regression", grid, X, y, folds, random_state=SEED, n_jobs=args.cores
        )

    for n in plan["grid_rows"]:
        idx = np.sort(rng.choice(len(ytr), n, replace=False))
        folds = subsample_folds(n, 5, SEED)
        record(
            "grid_cv",
            "rows",
            n,
            best_time(lambda: cv(Xtr[idx], ytr[idx], base_grid, folds), args.repeats),
            p=Xtr.shape[1],
            K=base_K,
            configs=20,
        )
    folds = data["folds"]
    for p in plan["grid_features"]:
        record(
            "grid_cv",
            "features",
            p,
            best_time(lambda: cv(Xtr[:, :p], ytr, base_grid, folds), args.repeats),
            n=len(ytr),
            K=base_K,
            configs=20,
        )
    for K in plan["grid_K"]:
        grid = {"n_estimators": k_range(K), "learning_rate": [0.1]}
        record(
            "grid_cv",
            "K",
            K,
            best_time(lambda: cv(Xtr, ytr, grid, folds), args.repeats),
            n=len(ytr),
            p=Xtr.shape[1],
            configs=20,
            naive_trees_per_fold=sum(range(K // 20, K + 1, K // 20)),
        )
    for n_lr in plan["grid_lrs"]:
        grid = dict(base_grid, learning_rate=[0.05, 0.1, 0.2, 0.3][:n_lr])
        record(
            "grid_cv",
            "configs",
            20 * n_lr,
            best_time(lambda: cv(Xtr, ytr, grid, folds), args.repeats),
            n=len(ytr),
            p=Xtr.shape[1],
            K=base_K,
        )

    # ---------------------------------------------------------------- MR of Rashomon members
    configs = expand_grid(plan["study_grid"] or THESIS_GRID)
    members = pd.DataFrame({"family": "gradient_boosting", "config_id": [config_id(c) for c in configs]})
    t0 = time.perf_counter()
    groups = fit_member_groups(members, "regression", Xtr, ytr, random_state=SEED, n_jobs=max(1, args.cores))
    print(f"(fitted {len(groups)} prefix groups in {time.perf_counter() - t0:.1f} s)", flush=True)
    R = plan["repeats_R"]

    def mr(gs, X, y, cols=None):
        perms = sklearn_permutations(X.shape[0], R, SEED)
        for g in gs:
            model_reliance(
                g.model,
                X,
                y,
                n_estimators=g.n_estimators,
                options=RelianceOptions(permutations=perms),
                features=cols,
                n_jobs=args.cores,
                method="engine",
            )

    def n_members(gs):
        return sum(len(g.n_estimators) for g in gs)

    # the groups of learning rate 0.1 (the sizes below keep this mix of depths and losses)
    lr01 = [g for g in groups if g.base_params["learning_rate"] == 0.1]
    mr(lr01[:1], Xte[:50], yte[:50])  # load the compiled kernels
    for n in plan["mr_rows"]:
        idx = np.sort(rng.choice(len(yte), n, replace=False)) if n < len(yte) else np.arange(len(yte))
        record(
            "mr",
            "rows",
            n,
            best_time(lambda: mr(lr01, Xte[idx], yte[idx]), args.repeats),
            members=n_members(lr01),
            p=Xte.shape[1],
        )
    for p in plan["mr_features"]:
        record(
            "mr",
            "features",
            p,
            best_time(lambda: mr(lr01, Xte, yte, list(range(p))), args.repeats),
            members=n_members(lr01),
            n=len(yte),
        )
    # members: one group per depth (lr 0.1, squared error; 4 in Table 4.1), every depth and loss
    # at lr 0.1 (12), the whole grid (36): every size has the same share of each depth
    sizes = [[g for g in lr01 if g.base_params["loss"] == "squared_error"], lr01, groups]
    for chosen in sizes:
        record(
            "mr",
            "members",
            n_members(chosen),
            best_time(lambda: mr(chosen, Xte, yte), args.repeats),
            n=len(yte),
            p=Xte.shape[1],
            groups=len(chosen),
        )

    report(rows, args.json)


def report(rows, json_path):
    """Print the scaling table (one exponent per kernel and factor) and write ``json_path`` if given."""
    frame = pd.DataFrame(rows)
    print("\n| kernel | factor | sizes | seconds | exponent b |")
    print("|---|---|---|---|---|")
    fits = []
    for (kernel, factor), part in frame.groupby(["kernel", "factor"], sort=False):
        b = exponent(part["size"], part["seconds"])
        fits.append({"kernel": kernel, "factor": factor, "exponent": b})
        print(
            f"| {kernel} | {factor} | {', '.join(str(s) for s in part['size'])} | "
            f"{', '.join(f'{s:.2f}' for s in part['seconds'])} | {b:.2f} |"
        )
    if json_path:
        Path(json_path).write_text(json.dumps({"points": rows, "exponents": fits}, indent=2))


if __name__ == "__main__":
    main()
