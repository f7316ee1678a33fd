#!/usr/bin/env python
"""Model reliance of fitted forests and boosting models: the tree engine against the generic path.

Usage (from the repository root, virtual environment active, after a run that
fitted the models, e.g. ``snakemake --cores 2 --config version=full ...``)::

    python benchmarks/reliance_paths.py results/full
    python benchmarks/reliance_paths.py results/full --datasets wine_quality --families random_forest
    python benchmarks/reliance_paths.py --tiny   # a stand-in results folder (benchmarks/_tiny.py), seconds

For every fitted random forest and gradient boosting model of the run
(``models/<dataset>/fitted/<family>.joblib``) and every MR estimator of the
``model_reliance`` rule (``permutation`` with 20 repeats, ``e_divide``,
``e_switch`` on at most 400 test rows, the rule's first loss), times on one thread

* ``generic``: :func:`xaipipe.explain.reliance.model_reliance` with
  ``method="generic"`` (:func:`~xaipipe.models.prefix.member_predictor`:
  scikit-learn's ``tree.predict`` of every tree on every switched data set);
* ``engine``: ``model_reliance(..., method="engine")`` (the tree engine: only the
  trees that split on the variable, resumed at the entry node; one interval
  search per recipient and tree for a one-column variable, trees in cache-sized
  blocks),

asserts that both give bitwise-equal ``e_orig`` and ``e_switch`` and prints
``<dataset>/<family> <estimator>: generic_s=<x> engine_s=<y> ratio=<x/y> used=<path>``
(``used``: the path ``method="auto"`` takes,
:func:`xaipipe.explain.reliance._engine.engine_preferred`).
Evidence for the choice in ``engine_preferred``, not a test. ``--tiny`` writes a stand-in
results folder to a temporary folder (``benchmarks/_tiny.py``: a regression and a classification
table prepared and split by the pipeline's code, a random forest, extra trees and gradient
boosting model of 10 trees of depth 3 fitted on each by the ``fit`` rule's function) and runs
the same on it.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np

#: The families with tree-engine support (:attr:`xaipipe.models.families.Family.engine`).
FAMILIES = ("random_forest", "extra_trees", "gradient_boosting")
#: --tiny: the stand-in results' datasets and models
TINY_DATASETS = {"tiny_regression": "regression", "tiny_classification": "classification"}
TINY_PARAMS = {"n_estimators": 10, "max_depth": 3}


def tiny_results(folder: Path) -> Path:
    """A stand-in ``results/<version>`` under ``folder`` (:data:`TINY_DATASETS`, :data:`FAMILIES`)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("_tiny", Path(__file__).resolve().parent / "_tiny.py")
    tiny = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tiny)
    models = {f: TINY_PARAMS for f in FAMILIES}
    return tiny.standin_results(folder, TINY_DATASETS, {"regression": models, "classification": models})


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results", type=Path, nargs="?", help="results/<version> of a run that fitted the models")
    ap.add_argument("--datasets", default=None, help="comma-separated (default: every dataset of the run)")
    ap.add_argument("--families", default=",".join(FAMILIES))
    ap.add_argument("--estimators", default="permutation,e_divide,e_switch")
    ap.add_argument("--seed", type=int, default=20250223)
    ap.add_argument("--tiny", action="store_true", help="a stand-in results folder of two tiny tables (seconds)")
    args = ap.parse_args(argv)
    if args.tiny:
        import tempfile

        with tempfile.TemporaryDirectory(prefix="reliance_paths_tiny_") as folder:
            rest = ["--families", args.families, "--estimators", args.estimators, "--seed", str(args.seed)]
            return main([str(tiny_results(Path(folder))), *rest])
    if args.results is None:
        ap.error("give results/<version> (or --tiny)")

    from xaipipe.data.prepare import load_prepared
    from xaipipe.explain.reliance import RelianceOptions, features_from_groups, model_reliance
    from xaipipe.explain.reliance._engine import engine_preferred
    from xaipipe.io import read_joblib

    root = args.results
    if not (root / "models").is_dir():
        ap.error(f"{root}/models not found: give results/<version> of a run that fitted the models")
    datasets = args.datasets.split(",") if args.datasets else sorted(p.name for p in (root / "models").iterdir())
    print(f"results={root} load_average={os.getloadavg()[0]:.2f} threads=1", flush=True)
    total = {"generic": 0.0, "engine": 0.0}
    warmed = False
    for ds in datasets:
        d = root / "data" / ds
        data = load_prepared(d / "prepared.csv", d / "prepared.json", d / "split.json")
        X = np.asarray(data.X_test, dtype=np.float64)
        y = np.asarray(data.y_test, dtype=np.float64)
        for fam in args.families.split(","):
            path = root / "models" / ds / "fitted" / f"{fam}.joblib"
            if not path.exists():
                continue
            model = read_joblib(path)
            classifier = hasattr(model, "classes_")
            loss = "log_loss" if classifier else "squared_error"
            if not warmed:  # numba kernels load / compile outside the timings
                model_reliance(model, X[:20], y[:20], n_repeats=2, random_state=0, loss=loss, method="engine")
                warmed = True
            for est in args.estimators.split(","):
                rows = np.arange(len(y))
                if est == "e_switch" and len(y) > 400:
                    rows = np.sort(np.random.default_rng(args.seed).choice(len(y), 400, replace=False))
                kw = dict(
                    estimator=est,
                    loss=loss,
                    features=features_from_groups(list(data.features), data.feature_groups),
                    options=RelianceOptions(feature_names=list(data.features)),
                    random_state=args.seed,
                    n_repeats=20 if est == "permutation" else None,
                )
                t = time.perf_counter()
                a = model_reliance(model, X[rows], y[rows], method="generic", **kw)
                generic = time.perf_counter() - t
                t = time.perf_counter()
                b = model_reliance(model, X[rows], y[rows], method="engine", **kw)
                engine = time.perf_counter() - t
                if not (np.array_equal(a.e_orig, b.e_orig) and np.array_equal(a.e_switch, b.e_switch)):
                    print(f"{ds}/{fam} {est}: the two paths differ", flush=True)
                    return 1
                total["generic"] += generic
                total["engine"] += engine
                used = "engine" if engine_preferred(model, est) else "generic"
                print(
                    f"{ds}/{fam} {est}: generic_s={generic:.2f} engine_s={engine:.2f} "
                    f"ratio={generic / engine:.2f} used={used}",
                    flush=True,
                )
    if total["engine"]:
        print(
            f"all: generic_s={total['generic']:.2f} engine_s={total['engine']:.2f} "
            f"ratio={total['generic'] / total['engine']:.2f} (every pair bitwise equal)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
