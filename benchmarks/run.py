#!/usr/bin/env python
"""Naive scikit-learn code against the pipeline's own code path, on the same data and grids.

Usage (from the repository root, virtual environment active)::

    python benchmarks/run.py --quick                 # Airfoil + Abalone, under 5 minutes on 2 cores
    python benchmarks/run.py                         # all six datasets, the seed grids (long)
    python benchmarks/run.py --quick --json out.json # also write every number as JSON
    python benchmarks/run.py --tiny                  # every stage on two tiny self-made tables (seconds)

Stages (each timed twice in this one process: the naive code a user would write,
then the project's code; same data, folds, grids, seeds and number of cores):

``grid <dataset>/<family>``
    naive: ``GridSearchCV(estimator, grid, cv=<the pipeline's folds>,
    n_jobs=<cores>, refit=False)``; pipeline:
    :func:`xaipipe.models.cv.cross_validate_grid` (``n_jobs=<cores>``; exact shared
    prefixes). Asserted: every fold score of every configuration equal (regression
    RMSE bitwise; classification log loss to ``rtol 1e-12``, accuracy bitwise), and
    the validation predictions of the smallest ``n_estimators`` of every ensemble
    configuration on fold 0, refitted on its own, bitwise equal to the shared-prefix
    predictions.
``rashomon refit abalone-324`` (full mode)
    naive: the 324 models of thesis 001 Table 4.1 fitted one by one (joblib,
    ``n_jobs=<cores>``); pipeline: :func:`xaipipe.rashomon.refit.fit_member_groups`
    (one fit per prefix group, 36 fits).
``rashomon reliance abalone-324``
    naive: ``sklearn.inspection.permutation_importance`` (20 repeats,
    ``n_jobs=<cores>``) of every member; pipeline:
    :func:`xaipipe.rashomon.refit.group_reliance` per fitted group
    (:func:`xaipipe.explain.reliance.model_reliance`, ``method="auto"``: the tree
    engine for forests and boosting, ``n_jobs=<cores>`` kernel threads) and
    :meth:`~xaipipe.explain.reliance.RelianceResult.to_frame`.
    Both see the same permutations (:func:`~xaipipe.explain.reliance.sklearn_permutations`)
    and permute every column on its own (``permutation_importance`` cannot permute
    a one-hot group jointly). Asserted: every importance
    ``e_switch_r - e_orig`` equal (bitwise where it is; otherwise the largest
    relative difference is printed and must be <= 1e-12).
``rashomon reliance <dataset>``
    The same on each dataset's Rashomon sets at the configuration's largest epsilon
    (``rashomon.epsilons``, ``rashomon.epsilon_mode``) over the grid stage's CV results,
    the grid scopes of ``rashomon.scopes`` (``family``, ``cross_family``; the closed-form
    ``linear_exact`` scope fits no members and is left out, as in the rashomon rule);
    random forest, gradient boosting and decision tree members; decision trees go
    through the generic path). Datasets: ``--rashomon-sets``
    (default: every dataset of the mode in full mode, Airfoil only in quick mode,
    which keeps ``--quick`` under 5 minutes on 2 cores; Abalone's set adds ~1 min).

The members of the naive MR stage are the fitted models of the naive refit stage in
full mode and ``truncated_ensemble`` copies (``benchmarks/reliance_timing.py``) in
quick mode (their predictions are bitwise those of separately fitted models:
``tests/models/test_prefix.py``, ``tests/report/test_reliance_timing.py``).

``--tiny`` runs every stage above (the full mode's code, the refit stage included) on two
self-made tables of 100 rows (``benchmarks/_tiny.py``: a regression and a classification
dataset declared inline in the configuration, read through the registry's ``file`` source),
with ``config/config.yaml`` as it is apart from its grids (each list cut to its first two
values, each ``n_estimators`` range to 2, 4, 6; the Table 4.1 grid likewise, fitted on the
regression table) and ``n_repeats`` 3. Its timings mean nothing; ``tests/test_benchmarks.py``
runs it so that the script follows the package's API and configuration.

Output: one line per stage ``<stage>: naive_s=<x> pipeline_s=<y> ratio=<x/y>``,
then totals, the peak resident memory (RSS summed over this process and its
worker processes, sampled every 0.1 s) per stage and overall, and the machine.
Timings are wall-clock seconds (``time.perf_counter``); the load average is
printed first because timings on a loaded machine are not evidence.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

REPO = Path(__file__).resolve().parents[1]

QUICK_DATASETS = ["airfoil", "abalone"]
# --quick: the Rashomon-set MR stage on Airfoil only (Abalone's 74-member set costs ~55 s
# of naive permutation_importance; the Abalone MR target is the 324-model stage)
QUICK_RASHOMON_SETS = ["airfoil"]
ALL_DATASETS = ["airfoil", "concrete", "wine_quality", "abalone", "diabetes", "breast_cancer"]
FAMILIES = ["decision_tree", "random_forest", "gradient_boosting"]
# --quick: 20 n_estimators values with a step of 5 (the seed's 100..2000 step 100 has the
# same ratio sum(ks)/max(ks) = 10.5, so the shared-prefix saving is the same)
QUICK_RANGE = {"start": 5, "stop": 100, "step": 5}
# --quick: the 324-model grid of thesis 001 Table 4.1 with n_estimators 10..90 step 10 instead
# of 100..900 (still 324 members in 36 prefix groups of 9)
QUICK_STUDY_RANGE = {"start": 10, "stop": 90, "step": 10}
# --tiny: two self-made tables (benchmarks/_tiny.py), every list of a grid cut to its first two
# values, every n_estimators range to 2, 4, 6
TINY_DATASETS = {"tiny_regression": "regression", "tiny_classification": "classification"}
TINY_RANGE = {"start": 2, "stop": 6, "step": 2}
TINY_ROWS = 100
TINY_REPEATS = 3


def _sibling(name: str):
    """A module of benchmarks/ (e.g. ``reliance_timing``), loaded by path (the package
    itself must be installed: ``pip install -e .``)."""
    spec = importlib.util.spec_from_file_location(name, Path(__file__).resolve().parent / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ----------------------------------------------------------------------------- memory


class PeakRSS:
    """Peak RSS (MiB) of this process plus its children, sampled in a thread."""

    def __init__(self, interval: float = 0.1):
        import psutil

        self._proc = psutil.Process()
        self._interval = interval
        self._stop = threading.Event()
        self.peak = 0.0
        self.overall = 0.0
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()

    def _sample(self) -> float:
        import psutil

        total = 0
        try:
            total += self._proc.memory_info().rss
            for child in self._proc.children(recursive=True):
                try:
                    total += child.memory_info().rss
                except psutil.Error:
                    pass
        except psutil.Error:
            pass
        return total / 2**20

    def _loop(self):
        while not self._stop.is_set():
            v = self._sample()
            self.peak = max(self.peak, v)
            self.overall = max(self.overall, v)
            time.sleep(self._interval)

    def reset(self) -> None:
        self.peak = self._sample()

    def close(self) -> None:
        self._stop.set()
        self._thread.join()


class Recorder:
    """Times the two paths of each stage and keeps the lines."""

    def __init__(self, rss: PeakRSS):
        self.rss = rss
        self.stages: list[dict] = []

    def time(self, fn, *args, **kwargs):
        self.rss.reset()
        t0 = time.perf_counter()
        out = fn(*args, **kwargs)
        return out, time.perf_counter() - t0, self.rss.peak

    def add(self, stage, naive_s, pipeline_s, naive_mb, pipeline_mb, check=""):
        rec = {
            "stage": stage,
            "naive_s": naive_s,
            "pipeline_s": pipeline_s,
            "ratio": naive_s / pipeline_s,
            "naive_peak_rss_mb": naive_mb,
            "pipeline_peak_rss_mb": pipeline_mb,
            "check": check,
        }
        self.stages.append(rec)
        print(
            f"{stage}: naive_s={naive_s:.2f} pipeline_s={pipeline_s:.2f} ratio={naive_s / pipeline_s:.2f}", flush=True
        )
        return rec


# ----------------------------------------------------------------------------- data


def load_config():
    with open(REPO / "config" / "config.yaml", encoding="utf-8") as fh:
        return yaml.safe_load(fh)


def default_mirror() -> str:
    """The offline UCI mirror: ``$XAIPIPE_UCI_MIRROR``, else ``../shared/data/uci`` beside the repository."""
    return os.environ.get("XAIPIPE_UCI_MIRROR") or str(REPO.parent / "shared" / "data" / "uci")


def _tiny_grid(grid: dict) -> dict:
    """A configuration grid cut down: ranges to :data:`TINY_RANGE`, lists to their first two values."""
    return {k: dict(TINY_RANGE) if isinstance(v, dict) else list(v)[:2] for k, v in grid.items()}


def tiny_config(cfg: dict, folder: Path) -> dict:
    """``cfg`` for ``--tiny``: the :data:`TINY_DATASETS` written under ``folder`` and declared
    inline, every grid (the Table 4.1 study's too) cut down, ``n_repeats`` :data:`TINY_REPEATS`."""
    import copy

    cfg = copy.deepcopy(cfg)
    entries = _sibling("_tiny").tiny_datasets(folder, TINY_DATASETS, n=TINY_ROWS)
    cfg["datasets"] = {**(cfg.get("datasets") or {}), **entries}
    cfg["grids"] = {task: {f: _tiny_grid(g) for f, g in fams.items()} for task, fams in cfg["grids"].items()}
    cfg["rashomon"]["n_repeats"] = TINY_REPEATS
    cfg["rashomon"]["abalone_study"]["grid"] = _tiny_grid(cfg["rashomon"]["abalone_study"]["grid"])
    return cfg


def load_dataset(name: str, cfg: dict, mirror: str) -> dict:
    """Prepared and split exactly as the pipeline's canonical/prepare/split rules."""
    from xaipipe.data.preparation import prepare_table
    from xaipipe.data.registry import load_registry, preparation_options
    from xaipipe.data.sources import load_canonical
    from xaipipe.data.split import folds_from_split, make_split

    entry = load_registry(REPO / "config" / "datasets.yaml", cfg["datasets"])[name]
    frame, sidecar = load_canonical(entry, mirror=mirror)
    options = preparation_options(entry, cfg["datasets"][name])
    prepared, info, _ = prepare_table(frame, sidecar, options)
    X = prepared[info["features"]].to_numpy(dtype=np.float64)
    y = prepared[info["target"]].to_numpy()
    y = y.astype(np.int64) if info["task"] == "classification" else y.astype(np.float64)
    split = make_split(
        y, info["task"], test_size=cfg["split"]["test_size"], n_folds=cfg["split"]["cv_folds"], random_state=cfg["seed"]
    )
    train, test = np.asarray(split["train"]), np.asarray(split["test"])
    return {
        "name": name,
        "task": info["task"],
        "X_train": X[train],
        "y_train": y[train],
        "X_test": X[test],
        "y_test": y[test],
        "folds": folds_from_split(split),
        "features": list(info["features"]),
        "feature_groups": dict(info.get("feature_groups") or {}),
    }


def family_grid(cfg: dict, task: str, family: str, quick: bool) -> dict:
    grid = dict(cfg["grids"][task][family])
    if quick and "n_estimators" in grid:
        grid["n_estimators"] = dict(QUICK_RANGE)
    return grid


# ----------------------------------------------------------------------------- grid stage


def naive_grid(family, task, grid, data, seed, options, cores):
    from sklearn.model_selection import GridSearchCV

    from xaipipe.models.families import make_estimator
    from xaipipe.models.grid import expand_values

    est = make_estimator(family, task, {}, random_state=seed, n_jobs=1, options=options)
    param_grid = {k: expand_values(v, name=k) for k, v in grid.items()}
    scoring = (
        "neg_root_mean_squared_error" if task == "regression" else {"log_loss": "neg_log_loss", "accuracy": "accuracy"}
    )
    gs = GridSearchCV(est, param_grid, cv=data["folds"], scoring=scoring, n_jobs=cores, refit=False)
    gs.fit(data["X_train"], data["y_train"])
    return gs.cv_results_


def pipeline_grid(family, task, grid, data, seed, options, cores):
    from xaipipe.models.cv import cross_validate_grid

    return cross_validate_grid(
        family,
        task,
        grid,
        data["X_train"],
        data["y_train"],
        data["folds"],
        random_state=seed,
        options=options,
        n_jobs=cores,
    )


def compare_grid(task, grid, cv_results, table, folds) -> str:
    """Assert equal fold scores; return a short description of the check."""
    from xaipipe.models.grid import config_id

    ref = {}
    for i, params in enumerate(cv_results["params"]):
        cid = config_id(params)
        if task == "regression":
            ref[cid] = [-cv_results[f"split{f}_test_score"][i] for f in range(len(folds))]
        else:
            ref[cid] = [
                (-cv_results[f"split{f}_test_log_loss"][i], cv_results[f"split{f}_test_accuracy"][i])
                for f in range(len(folds))
            ]
    ours = table.sort_values(["config_index", "fold"])
    assert set(ours["config_id"]) == set(ref), "the two paths evaluated different configurations"
    worst = 0.0
    for cid, part in ours.groupby("config_id"):
        for f, row in zip(part["fold"], part.itertuples()):
            if task == "regression":
                assert row.rmse == ref[cid][f], f"{cid} fold {f}: RMSE {row.rmse!r} != {ref[cid][f]!r}"
            else:
                ll, acc = ref[cid][f]
                assert row.accuracy == acc, f"{cid} fold {f}: accuracy differs"
                rel = abs(row.log_loss - ll) / abs(ll)
                worst = max(worst, rel)
                assert rel <= 1e-12, f"{cid} fold {f}: log loss {row.log_loss!r} vs {ll!r}"
    n = len(ours)
    if task == "regression":
        return f"{n} fold RMSEs bitwise equal"
    return f"{n} fold accuracies bitwise equal, log losses max rel diff {worst:.1e}"


def check_prefix_predictions(family, task, grid, data, seed, options) -> str:
    """Fold 0: the smallest n_estimators refitted alone vs the shared-prefix predictions."""
    from xaipipe.models.families import PREFIX_PARAM, get_family, make_estimator
    from xaipipe.models.grid import expand_grid, prefix_groups
    from xaipipe.models.output import model_output
    from xaipipe.models.prefix import prefix_predictions

    if not get_family(family).ensemble:
        return ""
    tr, va = data["folds"][0]
    X, y = data["X_train"], data["y_train"]
    checked = 0
    for base, ks in prefix_groups(expand_grid(grid)):
        big = make_estimator(
            family, task, dict(base, **{PREFIX_PARAM: max(ks)}), random_state=seed, n_jobs=1, options=options
        ).fit(X[tr], y[tr])
        k = min(ks)
        alone = make_estimator(
            family, task, dict(base, **{PREFIX_PARAM: k}), random_state=seed, n_jobs=1, options=options
        ).fit(X[tr], y[tr])
        np.testing.assert_array_equal(prefix_predictions(big, X[va], [k])[0], model_output(alone)(X[va]))
        checked += 1
    return f"; n_estimators={min(ks)} refitted alone = prefix, bitwise ({checked} configurations)"


def grid_stage(rec, datasets, cfg, cores, quick, families):
    naive_total = pipe_total = 0.0
    peaks = [0.0, 0.0]
    for data in datasets:
        task = data["task"]
        for family in families:
            if family not in cfg["grids"][task]:
                continue
            grid = family_grid(cfg, task, family, quick)
            options = cfg["estimator_options"].get(family, {})
            cvr, tn, mn = rec.time(naive_grid, family, task, grid, data, cfg["seed"], options, cores)
            table, tp, mp = rec.time(pipeline_grid, family, task, grid, data, cfg["seed"], options, cores)
            check = compare_grid(task, grid, cvr, table, data["folds"])
            check += check_prefix_predictions(family, task, grid, data, cfg["seed"], options)
            rec.add(f"grid {data['name']}/{family}", tn, tp, mn, mp, check)
            naive_total += tn
            pipe_total += tp
            peaks = [max(peaks[0], mn), max(peaks[1], mp)]
            data.setdefault("cv", {})[family] = table
    return rec.add("grid (all)", naive_total, pipe_total, *peaks, "sum of the grid stages")


# ----------------------------------------------------------------------------- Rashomon stages


def _naive_fit_one(cfg_params, X, y, seed):
    from xaipipe.models.families import make_estimator

    return make_estimator("gradient_boosting", "regression", cfg_params, random_state=seed, n_jobs=1).fit(X, y)


def naive_refit(configs, X, y, seed, cores):
    from joblib import Parallel, delayed

    return Parallel(n_jobs=cores)(delayed(_naive_fit_one)(c, X, y, seed) for c in configs)


def naive_reliance(models, X, y, scoring, R, seed, cores):
    """permutation_importance of every member (columns in parallel, as its n_jobs does)."""
    from sklearn.inspection import permutation_importance

    return [
        permutation_importance(m, X, y, scoring=scoring, n_repeats=R, random_state=seed, n_jobs=cores).importances
        for m in models
    ]


def pipeline_reliance(groups, X, y, loss, perms, cores):
    """The project's MR of every member of every fitted group (one pass per group)."""
    from xaipipe.rashomon.refit import group_reliance

    out = []
    for grp in groups:
        # as the rashomon rule: method="auto", the tree engine where engine_preferred (forests
        # and boosting, not e_divide), shared-prefix predictions otherwise (XGBoost, ...)
        arr = group_reliance(grp, X, y, loss=loss, permutations=perms, n_jobs=cores)
        arr.to_frame()
        out.append(arr)
    return out


def member_models(groups):
    """(group index, member index, model) of every member; prefixes as truncated copies."""
    from xaipipe.explain.reliance._engine import supports_engine

    truncated_ensemble = _sibling("reliance_timing").truncated_ensemble
    out = []
    for g, grp in enumerate(groups):
        if grp.n_estimators and supports_engine(grp.model):
            for i, k in enumerate(grp.n_estimators):
                out.append((g, i, truncated_ensemble(grp.model, k)))
        else:
            out.append((g, 0, grp.model))
    return out


def compare_reliance(naive, arrays, members) -> str:
    """importances[j, r] of permutation_importance vs e_switch[i, j, r] - e_orig[i]."""
    exact = total = 0
    worst = 0.0
    for imp, (g, i, _) in zip(naive, members):
        arr = arrays[g]
        ours = arr.e_switch[i] - arr.e_orig[i]
        assert ours.shape == imp.shape, f"shapes {ours.shape} vs {imp.shape}"
        exact += int(np.sum(ours == imp))
        total += ours.size
        scale = np.maximum(np.abs(imp), np.abs(arr.e_orig[i]))
        rel = np.max(np.abs(ours - imp) / scale)
        worst = max(worst, float(rel))
    assert worst <= 1e-12, f"MR differs: max relative difference {worst:.3e}"
    return f"{total} importances, {exact} bitwise equal, max rel diff {worst:.1e}"


def reliance_stage(rec, name, groups, models, X, y, task, cfg, cores):
    from xaipipe.explain.reliance import sklearn_permutations

    R = int(cfg["rashomon"]["n_repeats"])
    seed = int(cfg["seed"])
    scoring = "neg_mean_squared_error" if task == "regression" else "neg_log_loss"
    loss = "squared_error" if task == "regression" else "log_loss"
    perms = sklearn_permutations(X.shape[0], R, seed)
    naive, tn, mn = rec.time(naive_reliance, [m for _, _, m in models], X, y, scoring, R, seed, cores)
    arrays, tp, mp = rec.time(pipeline_reliance, groups, X, y, loss, perms, cores)
    check = compare_reliance(naive, arrays, models)
    return rec.add(
        f"rashomon reliance {name}",
        tn,
        tp,
        mn,
        mp,
        check + f"; {len(models)} members, "
        f"{len(groups)} fitted groups, {X.shape[0]} test rows, {X.shape[1]} columns, {R} repeats",
    )


def abalone_study_stages(rec, data, cfg, cores, quick):
    """The 324-model grid of thesis 001 Table 4.1 (``rashomon.abalone_study.grid``) on ``data``
    (Abalone; the regression table in ``--tiny``): refit stage (full mode) and MR stage."""
    from xaipipe.models.grid import config_id, expand_grid
    from xaipipe.rashomon.refit import fit_member_groups

    seed = int(cfg["seed"])
    grid = dict(cfg["rashomon"]["abalone_study"]["grid"])
    if quick:
        grid["n_estimators"] = dict(QUICK_STUDY_RANGE)
    configs = expand_grid(grid)
    members = pd.DataFrame({"family": "gradient_boosting", "config_id": [config_id(c) for c in configs]})
    X, y = data["X_train"], data["y_train"]
    groups, tp, mp = rec.time(fit_member_groups, members, "regression", X, y, random_state=seed, n_jobs=cores)
    if quick:
        print(
            f"rashomon refit {data['name']}-{len(configs)}: pipeline_s={tp:.2f} (naive refit skipped in --quick; "
            "the naive members are truncated copies)",
            flush=True,
        )
        models = member_models(groups)
    else:
        fitted, tn, mn = rec.time(naive_refit, configs, X, y, seed, cores)
        ids = [config_id(c) for c in configs]
        by_id = dict(zip(ids, fitted))
        models = [(g, i, by_id[cid]) for g, grp in enumerate(groups) for i, cid in enumerate(grp.config_ids)]
        # the refitted models predict exactly as the prefixes the engine evaluates
        for (_g, _i, model), (_, _, short) in zip(models, member_models(groups)):
            np.testing.assert_array_equal(model.predict(data["X_test"]), short.predict(data["X_test"]))
        rec.add(
            f"rashomon refit {data['name']}-{len(configs)}",
            tn,
            tp,
            mn,
            mp,
            f"{len(configs)} fits vs {len(groups)}; test predictions bitwise equal",
        )
    label = f"{data['name']}-{len(configs)}" + (" (n_estimators 10..90)" if quick else "")
    return reliance_stage(rec, label, groups, models, data["X_test"], data["y_test"], "regression", cfg, cores)


def dataset_rashomon_stage(rec, data, cfg, cores):
    from xaipipe.models.cv import summarize_cv
    from xaipipe.rashomon.linear import LINEAR_EXACT
    from xaipipe.rashomon.refit import fit_member_groups
    from xaipipe.rashomon.sets import rashomon_scopes

    task = data["task"]
    metric = cfg["selection"][task]
    frames = []
    for _family, table in data.get("cv", {}).items():
        s = summarize_cv(table, task)
        frames.append(s)
    summary = pd.concat(frames, ignore_index=True)
    sets = rashomon_scopes(
        summary,
        metric=metric,
        epsilon=max(cfg["rashomon"]["epsilons"]),
        mode=cfg["rashomon"]["epsilon_mode"],
        # the grid scopes only, as the rashomon rule (rashomon.study): linear_exact is the closed-form
        # MCR of all linear models, no set of fitted members whose MR this stage times
        scopes=[s for s in cfg["rashomon"]["scopes"] if s != LINEAR_EXACT],
    )
    candidates = pd.concat([rs.members[["family", "config_id"]] for rs in sets.values()], ignore_index=True)
    groups = fit_member_groups(
        candidates,
        task,
        data["X_train"],
        data["y_train"],
        random_state=int(cfg["seed"]),
        options=cfg["estimator_options"],
        n_jobs=cores,
    )
    models = member_models(groups)
    return reliance_stage(rec, data["name"], groups, models, data["X_test"], data["y_test"], task, cfg, cores)


# ----------------------------------------------------------------------------- main


def warm_up(cores):
    """Start the loky workers and load (or compile) the numba kernels before timing."""
    from joblib import Parallel, delayed
    from sklearn.ensemble import GradientBoostingRegressor

    from xaipipe.explain.reliance import model_reliance

    Parallel(n_jobs=cores)(delayed(abs)(-i) for i in range(4 * cores))
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(50, 3)), rng.normal(size=50)
    t0 = time.perf_counter()
    model = GradientBoostingRegressor(n_estimators=3, max_depth=2, random_state=0).fit(X, y)
    model_reliance(model, X, y, n_repeats=2, random_state=0, n_jobs=cores, method="engine")
    model_reliance(model, X, y, n_repeats=2, random_state=0, n_jobs=1, method="engine")
    return time.perf_counter() - t0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="Airfoil + Abalone, n_estimators 5..100 step 5")
    mode.add_argument(
        "--tiny", action="store_true", help="every stage on two tiny self-made tables, in seconds (a test, not timings)"
    )
    parser.add_argument("--cores", type=int, default=None, help="n_jobs of both paths (default: all; --tiny: 1)")
    parser.add_argument(
        "--mirror",
        default=default_mirror(),
        help="offline UCI mirror (default $XAIPIPE_UCI_MIRROR or ../shared/data/uci)",
    )
    parser.add_argument("--datasets", nargs="+", help="override the datasets of the mode")
    parser.add_argument("--families", nargs="+", default=FAMILIES, help=f"grid families (default {FAMILIES})")
    parser.add_argument(
        "--rashomon-sets",
        nargs="*",
        metavar="DATASET",
        help="datasets of the 'rashomon reliance <dataset>' stages (default: the mode's "
        f"datasets; --quick: {QUICK_RASHOMON_SETS}); no value: none",
    )
    parser.add_argument("--json", help="also write the stage records here")
    args = parser.parse_args(argv)
    if args.tiny:
        import tempfile

        with tempfile.TemporaryDirectory(prefix="bench_run_tiny_") as folder:
            return _main(parser, args, tiny_config(load_config(), Path(folder)))
    return _main(parser, args, load_config())


def _main(parser, args, cfg):
    mode = "tiny" if args.tiny else "quick" if args.quick else "full"
    names = args.datasets or {"tiny": list(TINY_DATASETS), "quick": QUICK_DATASETS, "full": ALL_DATASETS}[mode]
    if args.rashomon_sets is not None:
        set_names = list(args.rashomon_sets)
    else:
        set_names = [n for n in names if n in QUICK_RASHOMON_SETS] if args.quick else list(names)
    unknown = sorted(set(set_names) - set(names))
    if unknown:
        parser.error(f"--rashomon-sets {unknown}: not among the datasets of this run {names}")
    cores = int(args.cores or (1 if args.tiny else os.cpu_count()))
    print(
        f"mode={mode} cores={cores} datasets={names} rashomon_sets={set_names} "
        f"load_average={os.getloadavg()[0]:.2f} cpu_count={os.cpu_count()}",
        flush=True,
    )
    if args.tiny:
        print("tiny mode: self-made tables, cut-down grids; the timings mean nothing", flush=True)
    elif os.getloadavg()[0] > 0.5:
        print("warning: the machine is not idle; these timings are not evidence", flush=True)
    rss = PeakRSS()
    rec = Recorder(rss)
    t_start = time.perf_counter()
    print(f"warm-up (loky workers, numba kernels load/compile): {warm_up(cores):.2f} s", flush=True)
    datasets = [load_dataset(n, cfg, args.mirror) for n in names]
    grid_stage(rec, datasets, cfg, cores, args.quick, args.families)
    by_name = {d["name"]: d for d in datasets}
    # the Table 4.1 grid: on Abalone; in --tiny on the regression table
    study = "abalone" if "abalone" in by_name else next(iter(TINY_DATASETS)) if args.tiny else None
    rashomon = []
    if study in by_name:
        rashomon.append(abalone_study_stages(rec, by_name[study], cfg, cores, args.quick))
    for data in datasets:
        if data["name"] in set_names:
            rashomon.append(dataset_rashomon_stage(rec, data, cfg, cores))
    rel = [r for r in rashomon if r["stage"].startswith("rashomon reliance")]
    if rel:
        rec.add(
            "rashomon reliance (all)",
            sum(r["naive_s"] for r in rel),
            sum(r["pipeline_s"] for r in rel),
            max(r["naive_peak_rss_mb"] for r in rel),
            max(r["pipeline_peak_rss_mb"] for r in rel),
            "sum of the rashomon reliance stages",
        )
    elapsed = time.perf_counter() - t_start
    rss.close()
    print("\nchecks:")
    for r in rec.stages:
        if r["check"]:
            print(f"  {r['stage']}: {r['check']}")
    print("\npeak RSS (MiB, this process + workers):")
    for r in rec.stages:
        print(f"  {r['stage']}: naive={r['naive_peak_rss_mb']:.0f} pipeline={r['pipeline_peak_rss_mb']:.0f}")
    print(f"peak RSS overall: {rss.overall:.0f} MiB")
    import numba
    import sklearn

    print(
        f"\nelapsed {elapsed:.1f} s; python {platform.python_version()}, scikit-learn {sklearn.__version__}, "
        f"numpy {np.__version__}, numba {numba.__version__}; {platform.processor() or platform.machine()}; "
        f"load_average_end={os.getloadavg()[0]:.2f}"
    )
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    "mode": mode,
                    "cores": cores,
                    "datasets": names,
                    "stages": rec.stages,
                    "peak_rss_mb": rss.overall,
                    "elapsed_s": elapsed,
                },
                indent=2,
            )
        )


if __name__ == "__main__":
    main()
