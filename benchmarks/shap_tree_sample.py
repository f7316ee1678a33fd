"""TreeSHAP of a large forest: every tree against the large-data tree sample (``large_data.shap_trees``).

Fits the default random forest (fully grown trees, ``max_features=1.0``) of ``--trees`` trees on
``--n`` rows of Friedman #1 (p = 10, noise 1), explains ``--rows`` test rows as the ``shap`` rule does
(:func:`xaipipe.explain.shapley.shap_tables`) with every tree and with ``--k`` sampled trees for
``--seeds`` seeds, and prints the CPU seconds of each (``time.process_time``), their ratio, and per
variable the whole forest's mean |SHAP| and mean SHAP, the mean of the sampled estimates, the SD of
the estimates over the seeds against the RMS of the reported jackknife SE, and the coverage of
``estimate ± 2 SE`` around the whole forest's value.

    python -m benchmarks.shap_tree_sample --n 8000 --trees 400 --k 100 --rows 200 --seeds 5
    python -m benchmarks.shap_tree_sample --tiny        # seconds; its numbers mean nothing
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from types import SimpleNamespace

import numpy as np
from sklearn.datasets import make_friedman1
from sklearn.ensemble import RandomForestRegressor

from xaipipe.config import LargeDataSettings, ShapSettings
from xaipipe.explain.shapley import shap_tables


def _tables(forest, X, Xb, names, *, random_state: int, large_data_trees: int | None = None):
    """The ``shap`` rule's tables as the default study makes them (``explain.shap`` defaults, rows capped
    by ``max_rows_random_forest``), with the tree sample of ``large_data_trees`` trees or every tree."""
    data = SimpleNamespace(
        X_test=X,
        X_train=Xb,
        test_rows=np.arange(len(X)),
        features=names,
        feature_groups=None,
        classes=None,
        dataset="friedman1",
    )
    large = None
    if large_data_trees is not None:
        large = LargeDataSettings(
            min_rows=1, reliance_rows=None, shap_rows=None, pd_rows=None, shap_trees=large_data_trees
        )
    settings = ShapSettings(
        family="random_forest",
        seed=random_state,
        max_rows=None,
        max_rows_random_forest=len(X),
        background_size=None,
        interactions=False,
        algorithm="auto",
        large_data=large,
    )
    return shap_tables(forest, data, settings)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=8000, help="training rows")
    ap.add_argument("--trees", type=int, default=400, help="trees of the forest")
    ap.add_argument("--k", type=int, default=100, help="trees sampled (large_data.shap_trees)")
    ap.add_argument("--rows", type=int, default=200, help="test rows explained")
    ap.add_argument("--seeds", type=int, default=5, help="tree samples drawn")
    ap.add_argument("--tiny", action="store_true", help="n = 200, 20 trees, k = 10, 20 rows, 3 seeds")
    opts = ap.parse_args(argv)
    if opts.tiny:
        opts.n, opts.trees, opts.k, opts.rows, opts.seeds = 200, 20, 10, 20, 3

    X, y = make_friedman1(n_samples=opts.n + opts.rows, n_features=10, noise=1.0, random_state=0)
    names = [f"x{j}" for j in range(10)]
    Xb, yb, Xt = X[: opts.n], y[: opts.n], X[opts.n :]
    t = time.process_time()
    forest = RandomForestRegressor(n_estimators=opts.trees, max_features=1.0, random_state=0).fit(Xb, yb)
    fit_s = time.process_time() - t
    leaves = int(np.mean([e.get_n_leaves() for e in forest.estimators_]))
    print(f"forest: n={opts.n} trees={opts.trees} mean leaves={leaves} fit_cpu_s={fit_s:.1f}")

    _tables(forest, Xt[:2], Xb, names, random_state=0, large_data_trees=opts.k)  # imports, first calls
    t = time.process_time()
    exact = _tables(forest, Xt, Xb, names, random_state=0).importance.set_index("feature").loc[names]
    exact_s = time.process_time() - t
    est, se, sample_s = [], [], []
    for seed in range(opts.seeds):
        t = time.process_time()
        imp = _tables(forest, Xt, Xb, names, random_state=seed, large_data_trees=opts.k).importance
        sample_s.append(time.process_time() - t)
        imp = imp.set_index("feature").loc[names]
        est.append(imp[["mean_abs_shap", "mean_shap"]].to_numpy())
        se.append(imp[["mean_abs_shap_se", "mean_shap_se"]].to_numpy())
    est, se = np.array(est), np.array(se)
    truth = exact[["mean_abs_shap", "mean_shap"]].to_numpy()
    print(
        f"cpu_s: every tree={exact_s:.2f} sample of {opts.k}={np.mean(sample_s):.2f} (mean of {opts.seeds}) "
        f"ratio={exact_s / np.mean(sample_s):.2f} (trees ratio {opts.trees / opts.k:.1f})"
    )
    print(f"{'feature':>8} {'mean_abs':>9} {'estimate':>9} {'sd/rms_se':>9} {'cov2se':>6} {'mean':>9} {'sd/rms_se':>9}")
    cover = (np.abs(est - truth) <= 2 * se).mean(axis=0)
    ddof = 1 if opts.seeds > 1 else 0
    ratio = est.std(axis=0, ddof=ddof) / np.sqrt((se**2).mean(axis=0))
    for j, name in enumerate(names):
        print(
            f"{name:>8} {truth[j, 0]:9.4f} {est[:, j, 0].mean():9.4f} {ratio[j, 0]:9.2f} {cover[j, 0]:6.2f} "
            f"{truth[j, 1]:9.4f} {ratio[j, 1]:9.2f}"
        )
    print(f"coverage of ±2 SE (all variables, both statistics): {cover.mean():.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
