#!/usr/bin/env python
"""A forest store's explanation jobs with their predictions planned into one pass over its blocks,
against one pass per ``predict`` call (issue 34; ``xaipipe.models.forest_store.predict_in_one_pass``).

Usage (from the repository root, virtual environment active)::

    python -m benchmarks.store_one_pass --store results/scale_n16000/models/simulated/fitted/random_forest.joblib \\
        --data results/scale_n16000/data/simulated --min-rows 2000      # the 16 000-row store: ~15 min
    python -m benchmarks.store_one_pass --tiny                           # 600 rows, 40 trees, seconds

A job that explains a stored forest (``pd_ice``, ``ale``, ``h_statistic``, and ``model_reliance``'s
subsampled repeats) calls the model many times, and each call decompresses every block of trees
again (5.8 CPU-s for the 650 MB store of 16 000 rows, ~23 for the 2.6 GB one of 64 000). Each step
runs the package function of its rule with the default configuration (``large_data.min_rows``
lowered by ``--min-rows`` so that the policies apply to the store's test rows) twice in one
process, alternately: **planned** (as the rules run it) and **per call** (planning switched off);
prints the CPU-s of each, their ratio, and checks that the two tables are bitwise equal. The
tiny mode fits a 40-tree forest on 600 rows of the simulated DGP, stores it in blocks of 10 trees
and runs the same steps (its numbers mean nothing). Evidence for ``docs/performance.md``, not a
test.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import pandas as pd
import yaml

REPO = Path(__file__).resolve().parents[1]
STEPS = ("pd_ice", "ale", "h_statistic", "model_reliance")


def _tiny_store(work: Path) -> tuple[Path, Path]:
    """The stand-in results of ``benchmarks/_tiny.py`` (600 rows, a categorical column) with a
    40-tree forest, re-saved as a store in blocks of 10 trees (as ``fit`` writes a forest past
    ``large_data.forest_block_rows``): ``(store, data folder)``."""
    import importlib.util

    from xaipipe.io import read_joblib
    from xaipipe.models.forest_store import save_forest
    from xaipipe.paths import result_path

    spec = importlib.util.spec_from_file_location("_tiny", Path(__file__).resolve().parent / "_tiny.py")
    tiny = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tiny)
    families = {"regression": {"random_forest": {"n_estimators": 40}}}
    root = tiny.standin_results(work, {"tiny_regression": "regression"}, families, n=600)
    fitted = result_path("model", str(root), dataset="tiny_regression", family="random_forest")
    store = work / "random_forest_store.joblib"
    save_forest(store, read_joblib(fitted), 10)
    return store, Path(result_path("prepared", str(root), dataset="tiny_regression")).parent


def _tables(step: str, model, data, config: dict, ranking: list[str]):
    from xaipipe.config import AleSettings, HStatisticSettings, PdIceSettings, RelianceSettings
    from xaipipe.explain.pdp import ale_tables, h_statistic_table, pd_ice_tables
    from xaipipe.explain.reliance import dependent_reliance_rows, reliance_tables

    if step == "pd_ice":
        s = PdIceSettings.from_config(config, "regression")
        return list(pd_ice_tables(model, data, s, top=ranking[:2], extra=()))
    if step == "ale":
        s = AleSettings.from_config(config, "regression")
        out = ale_tables(model, data, s, ranking=ranking, pair=tuple(ranking[:2]))
        return [out.ale, out.ale_2d]
    if step == "h_statistic":
        s = HStatisticSettings.from_config(config, "regression", "random_forest")
        return [h_statistic_table(model, data, s, top=ranking[:3])]
    s = RelianceSettings.from_config(config, "regression")
    marginal, _ = reliance_tables(model, data, s, family="random_forest")
    return [marginal, dependent_reliance_rows(model, data, s, family="random_forest")]


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--store", type=Path, help="a forest store (the fit rule's model.joblib)")
    ap.add_argument("--data", type=Path, help="its dataset's folder (prepared.csv, prepared.json, split.json)")
    ap.add_argument("--min-rows", type=int, default=None, help="large_data.min_rows (default: the config's)")
    ap.add_argument("--steps", nargs="+", default=list(STEPS), choices=STEPS)
    ap.add_argument("--tiny", action="store_true", help="600 rows, 40 trees in blocks of 10 (seconds)")
    args = ap.parse_args(argv)

    from xaipipe.data.prepare import load_prepared
    from xaipipe.io import open_model
    from xaipipe.models import forest_store

    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    with tempfile.TemporaryDirectory() as tmp:
        if args.tiny:
            store, folder = _tiny_store(Path(tmp))
            config["large_data"].update(min_rows=50, reliance_rows=50, pd_rows=50, shap_rows=50)
            config["explain"]["interactions"]["n_rows"] = 40
        elif args.store is None or args.data is None:
            ap.error("give --store and --data, or --tiny")
        else:
            store, folder = args.store, args.data
        if args.min_rows is not None:
            config["large_data"]["min_rows"] = args.min_rows
        data = load_prepared(folder / "prepared.csv", folder / "prepared.json", folder / "split.json")
        ranking = list(data.features)
        planner = forest_store.plans_predictions
        print(f"store {store}: {len(data.y_test)} test rows")
        print(f"{'step':<15}{'planned CPU-s':>15}{'per call CPU-s':>16}{'ratio':>8}")
        for step in args.steps:
            times, tables = {}, {}
            for mode in ("planned", "per_call", "planned", "per_call") if not args.tiny else ("planned", "per_call"):
                forest_store.plans_predictions = planner if mode == "planned" else (lambda model: False)
                try:
                    t0 = time.process_time()
                    out = _tables(step, open_model(store), data, config, ranking)
                    times.setdefault(mode, []).append(time.process_time() - t0)
                finally:
                    forest_store.plans_predictions = planner
                tables.setdefault(mode, out)
            for a, b in zip(tables["planned"], tables["per_call"]):
                pd.testing.assert_frame_equal(a, b, check_exact=True)
            p, c = min(times["planned"]), min(times["per_call"])
            print(f"{step:<15}{p:>15.1f}{c:>16.1f}{c / p:>8.2f}")
        print("check: planned and per-call tables bitwise equal in every step")
    return 0


if __name__ == "__main__":
    sys.exit(main())
