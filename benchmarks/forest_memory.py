#!/usr/bin/env python
"""Peak RSS of the random forest's jobs, whole forest against blocks of trees (issue 34 item 2).

Usage (from the repository root, virtual environment active)::

    python -m benchmarks.forest_memory --n 4000 --trees 2000      # ~10 min on 2 cores
    python -m benchmarks.forest_memory --tiny                     # 300 rows, 30 trees, seconds
    python -m benchmarks.forest_memory --n 4000 --trees 2000 --steps rashomon   # one step

Data: the ``simulated`` dataset's DGP (Friedman 1 on U(-1, 1)^10, noise N(0, 1);
:mod:`xaipipe.data.simulated`), ``n`` rows split 80/20 as the pipeline does, the default random
forest (``n_estimators`` trees, fully grown, ``max_features=1.0``, seed 20250223). Each step runs
in a fresh Python process (``--step``) and reports its peak RSS (``getrusage`` maxrss at exit) and
wall seconds; the pairs are

* ``cv``: one prefix group on one CV fold (64 % of the rows, prefixes 100, 200, ..., ``trees``):
  ``fit_group`` + ``prefix_predictions`` (whole) against ``forest_block_prefix_predictions``
  (blocks of ``--block`` trees); the prefix predictions are asserted bitwise equal;
* ``fit``: ``fit_best`` + ``write_joblib`` (whole) against ``fit_best(forest_store=...)``
  (the fit rule above ``large_data.forest_block_rows``); the test predictions are asserted equal;
* ``predict``: ``read_joblib`` + ``predict`` of the test rows (what ``pd_ice`` / ``ale`` /
  ``h_statistic`` hold) against ``open_model`` (one block at a time); asserted equal;
* ``mr``: permutation MR of the test rows (3 repeats, the tree engine), ``read_joblib``
  against ``open_model`` (the engine walks the store's blocks outermost); asserted equal;
* ``shap``: TreeSHAP of ``--shap-rows`` test rows, whole forest against the lazily opened
  store; asserted equal;
* ``rashomon``: what the ``rashomon`` job does with its forest members (``rashomon_refit`` and
  ``rashomon_bootstrap_shard`` the same per job / resample): two prefix groups
  (``max_features`` 1.0 and 0.5, prefixes 100, 200, ..., ``trees``) refitted on the training rows
  (``fit_member_groups``), every member's test predictions (``members_predictions``), permutation
  MR (3 repeats, the tree engine) and the PD of one variable (5 grid points), whole forests
  against ``forest_blocks=(1, --block)`` (stores in a scratch folder, read a block at a time);
  asserted equal.

Prints one line per step and path and ``ratio`` lines (whole / blocks) for the peak RSS.
Evidence for ``docs/performance.md`` ("Peak RSS"), not a test.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np

REPO = Path(__file__).resolve().parents[1]
SEED = 20250223


def _data(n: int):
    from sklearn.model_selection import KFold, train_test_split

    from xaipipe.data.simulated import simulate

    frame = simulate("friedman1", n=n, p=10, noise_sd=1.0, random_state=SEED)
    X, y = frame.drop(columns="y").to_numpy(dtype=float), frame["y"].to_numpy(dtype=float)
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, random_state=SEED)
    train, valid = next(KFold(5, shuffle=True, random_state=SEED).split(X_train))
    return X_train, y_train, X_test, y_test, train, valid


def _step(args) -> dict:
    from xaipipe.config import CVSettings
    from xaipipe.io import open_model, read_joblib, write_joblib
    from xaipipe.models.families import make_estimator
    from xaipipe.models.fitting import fit_best, fit_group
    from xaipipe.models.forest_blocks import forest_block_prefix_predictions
    from xaipipe.models.prefix import prefix_predictions

    X_train, y_train, X_test, y_test, train, valid = _data(args.n)
    work = Path(args.work)
    step, path = args.step.split(":")
    t0 = time.perf_counter()
    ks = list(range(min(100, args.trees), args.trees + 1, min(100, args.trees)))
    if step == "cv":
        Xf, yf, Xv = X_train[train], y_train[train], X_train[valid]
        if path == "whole":
            fit = fit_group("random_forest", "regression", {}, Xf, yf, n_estimators=ks, random_state=SEED)
            out = prefix_predictions(fit.estimator, Xv, ks)
        else:
            forest = make_estimator("random_forest", "regression", {"n_estimators": max(ks)}, random_state=SEED)
            out = forest_block_prefix_predictions(forest, Xf, yf, Xv, ks, args.block)[0]
        np.save(work / f"cv_{path}.npy", out)
    elif step == "fit":
        data = SimpleNamespace(
            X_train=X_train, y_train=y_train, X_test=X_test, y_test=y_test, test_rows=np.arange(len(y_test)), dataset=""
        )
        settings = CVSettings(
            task="regression", family="random_forest", grid=None, sample=None, options={}, selection="rmse", seed=SEED
        )
        params = {"n_estimators": args.trees}
        if path == "whole":
            model, _, pred = fit_best(data, settings, params)
            write_joblib(work / "whole.joblib", model)
        else:
            _, _, pred = fit_best(data, settings, params, forest_store=(work / "blocks.joblib", args.block))
        np.save(work / f"fit_{path}.npy", pred["y_pred"].to_numpy())
    elif step == "predict":
        model = read_joblib(work / "whole.joblib") if path == "whole" else open_model(work / "blocks.joblib")
        np.save(work / f"predict_{path}.npy", model.predict(X_test))
    elif step == "mr":
        from xaipipe.explain.reliance import model_reliance

        model = read_joblib(work / "whole.joblib") if path == "whole" else open_model(work / "blocks.joblib")
        res = model_reliance(model, X_test, y_test, estimator="permutation", n_repeats=3, random_state=0)
        np.save(work / f"mr_{path}.npy", res.e_switch)
    elif step == "shap":
        from xaipipe.explain.shapley import ShapOptions, shap_values

        model = read_joblib(work / "whole.joblib") if path == "whole" else open_model(work / "blocks.joblib")
        np.save(
            work / f"shap_{path}.npy",
            shap_values(model, X_test[: args.shap_rows], options=ShapOptions(chunk_size=args.block)).values,
        )
    elif step == "shap_check":
        from xaipipe.explain.shapley import kernel_vs_tree_shap

        model = read_joblib(work / "whole.joblib") if path == "whole" else open_model(work / "blocks.joblib")
        check = kernel_vs_tree_shap(
            model, X_test[: args.shap_rows], X_train, n_samples=(16, 64), background_size=20, random_state=0
        )
        np.save(work / f"shap_check_{path}.npy", check.values["kernel_shap"].to_numpy())
        np.save(work / f"shap_check_tree_{path}.npy", check.values["tree_shap"].to_numpy())
    elif step == "rashomon":
        np.save(work / f"rashomon_{path}.npy", _rashomon_members(args, X_train, y_train, X_test, y_test, ks, path))
    else:
        raise SystemExit(f"unknown step {args.step!r}")
    wall = time.perf_counter() - t0
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux -> MiB
    return {"step": step, "path": path, "peak_rss_mb": rss, "wall_s": wall}


def _rashomon_members(args, X_train, y_train, X_test, y_test, ks, path) -> np.ndarray:
    """The ``rashomon`` step: member refits, predictions, MR and PD of two forest prefix groups,
    concatenated into one array."""
    import pandas as pd

    from xaipipe.models.grid import config_id
    from xaipipe.rashomon.envelope import members_partial_dependence
    from xaipipe.rashomon.members import members_reliance
    from xaipipe.rashomon.multiplicity import members_predictions
    from xaipipe.rashomon.refit import fit_member_groups, member_store_dir

    ids = [config_id({"max_features": mf, "n_estimators": k}) for mf in (1.0, 0.5) for k in ks]
    members = pd.DataFrame({"family": "random_forest", "config_id": ids})
    blocks = None if path == "whole" else (1, args.block)
    with member_store_dir(blocks, len(y_train)) as store:
        groups = fit_member_groups(
            members, "regression", X_train, y_train, random_state=SEED, forest_blocks=blocks, store_dir=store
        )
        _, pred = members_predictions(groups, X_test)
        rel = members_reliance(groups, X_test, y_test, n_repeats=3, random_state=0)
        grid = np.quantile(X_test[:, 0], [0.1, 0.3, 0.5, 0.7, 0.9])
        pdv = members_partial_dependence(groups, X_test, [0], grid)["pd"].to_numpy()
    mr = rel[["e_orig", "e_switch", "mr_ratio"]].to_numpy(dtype=float).ravel()
    return np.concatenate([pred.ravel(), mr, pdv])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=4000, help="rows of the simulated dataset")
    parser.add_argument("--trees", type=int, default=2000)
    parser.add_argument("--block", type=int, default=100, help="trees per block")
    parser.add_argument("--shap-rows", type=int, default=10)
    parser.add_argument("--steps", nargs="+", default=["cv", "fit", "predict", "mr", "shap", "rashomon"])
    parser.add_argument("--tiny", action="store_true", help="300 rows, 30 trees, blocks of 7")
    parser.add_argument("--step", help=argparse.SUPPRESS)
    parser.add_argument("--work", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.tiny:
        args.n, args.trees, args.block, args.shap_rows = 300, 30, 7, 3
    if args.step:
        print(json.dumps(_step(args)))
        return 0
    results = {}
    with tempfile.TemporaryDirectory(prefix="forest_memory.") as work:
        for step in args.steps:
            for path in ("whole", "blocks"):
                cmd = [sys.executable, "-m", "benchmarks.forest_memory", "--step", f"{step}:{path}", "--work", work]
                cmd += ["--n", str(args.n), "--trees", str(args.trees), "--block", str(args.block)]
                cmd += ["--shap-rows", str(args.shap_rows)]
                done = subprocess.run(cmd, cwd=REPO, check=True, capture_output=True, text=True)
                rec = json.loads(done.stdout.strip().splitlines()[-1])
                results[step, path] = rec
                print(
                    f"{step:8s} {path:7s} peak_rss_mb={rec['peak_rss_mb']:.0f} wall_s={rec['wall_s']:.1f}", flush=True
                )
            a, b = (np.load(Path(work) / f"{step}_{p}.npy") for p in ("whole", "blocks"))
            assert a.shape == b.shape and np.array_equal(a, b), f"{step}: whole and blocks differ"
            if step == "shap_check":  # TreeSHAP per block: equal to shap's precision, not bitwise
                a, b = (np.load(Path(work) / f"shap_check_tree_{p}.npy") for p in ("whole", "blocks"))
                assert np.abs(a - b).max() <= 1e-6 * np.abs(a).max(), "shap_check: TreeSHAP values differ"
        if "fit" in args.steps:
            sizes = {p: (Path(work) / f"{p}.joblib").stat().st_size / 2**20 for p in ("whole", "blocks")}
    print(
        f"n={args.n} trees={args.trees} block={args.block}: model file whole {sizes['whole']:.1f} MiB, "
        f"store {sizes['blocks']:.1f} MiB"
        if "fit" in args.steps
        else f"n={args.n} trees={args.trees}"
    )
    for step in args.steps:
        w, b = results[step, "whole"]["peak_rss_mb"], results[step, "blocks"]["peak_rss_mb"]
        print(f"ratio {step}: whole/blocks peak RSS = {w / b:.2f}")
    print(
        "check: outputs of the whole and the block paths bitwise equal in every step"
        + (" (shap_check's TreeSHAP values to 1e-6 relative)" if "shap_check" in args.steps else "")
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
