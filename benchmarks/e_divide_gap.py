"""e_divide against the exact e_switch for the linear model on the real regression datasets.

For OLS fitted on each dataset's training split, on the test split (``split.json``, rows in file
order): the exact ``e_switch`` (all ordered pairs, closed form), ``e_divide`` on the file-order
halving (the seed's and the previous pipeline's estimator: the identity permutation) and the mean
of ``e_divide`` over R seeded random halvings with its Monte-Carlo standard error (Fisher, Rudin &
Dominici 2019, §3.1). Prints, per dataset and variable, the relative gaps to ``e_switch`` and the
gap of the random-halving mean in Monte-Carlo standard errors.

    python benchmarks/e_divide_gap.py results/v1/data [--repeats 200] [--out gaps.csv]
    python benchmarks/e_divide_gap.py --tiny    # a stand-in data folder of one tiny table, 20 halvings

The data folder is the pipeline's ``results/<version>/data`` (``snakemake --until split``);
``--tiny`` writes a stand-in (``benchmarks/_tiny.py``: a self-made regression table with a
one-hot group, prepared and split by the pipeline's code) to a temporary folder.
"""

from __future__ import annotations

import argparse
import importlib.util
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.linear_model import LinearRegression

from xaipipe.data.prepare import load_prepared
from xaipipe.explain.reliance import RelianceOptions, model_reliance, random_permutations

REGRESSION = ("airfoil", "concrete", "wine_quality", "abalone", "diabetes")


def gaps(data_dir: Path, dataset: str, repeats: int, seed: int = 0) -> pd.DataFrame:
    d = data_dir / dataset
    p = load_prepared(d / "prepared.csv", d / "prepared.json", d / "split.json")
    model = LinearRegression().fit(p.X_train, p.y_train)
    X, y = p.X_test, p.y_test
    pos = {f: i for i, f in enumerate(p.features)}
    grouped = {c for cols in p.feature_groups.values() for c in cols}
    features = {g: [pos[c] for c in cols] for g, cols in p.feature_groups.items()}
    features.update({f: [i] for f, i in pos.items() if f not in grouped})
    exact = model_reliance(model, X, y, estimator="e_switch", features=features)
    n, G = len(y), len(features)
    file_order = np.broadcast_to(np.arange(n), (G, 1, n))
    fo = model_reliance(
        model, X, y, estimator="e_divide", features=features, options=RelianceOptions(permutations=file_order)
    )
    perms = random_permutations(n, repeats, G, seed)
    draws = np.stack(
        [
            model_reliance(
                model,
                X,
                y,
                estimator="e_divide",
                features=features,
                options=RelianceOptions(permutations=np.ascontiguousarray(perms[:, r : r + 1])),
            ).e_switch.ravel()
            for r in range(repeats)
        ]
    )  # (R, G)
    es = exact.e_switch.ravel()
    mean, se = draws.mean(0), draws.std(0, ddof=1) / np.sqrt(repeats)
    return pd.DataFrame(
        {
            "dataset": dataset,
            "variable": list(features),
            "n_test": n,
            "e_orig": exact.e_orig.ravel()[0],
            "e_switch": es,
            "e_divide_file_order": fo.e_switch.ravel(),
            "e_divide_random_mean": mean,
            "e_divide_random_se": se,
            "gap_file_order": fo.e_switch.ravel() / es - 1,
            "gap_random_mean": mean / es - 1,
            "gap_one_halving_sd": draws.std(0, ddof=1) / es,
            "z_random_mean": (mean - es) / se,
        }
    )


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data_dir", type=Path, nargs="?")
    ap.add_argument("--repeats", type=int, default=200)
    ap.add_argument("--datasets", nargs="+", default=list(REGRESSION), help=f"default {list(REGRESSION)}")
    ap.add_argument("--out", type=Path)
    ap.add_argument("--tiny", action="store_true", help="a stand-in data folder of one tiny table, 20 halvings")
    args = ap.parse_args(argv)
    if args.tiny:
        spec = importlib.util.spec_from_file_location("_tiny", Path(__file__).resolve().parent / "_tiny.py")
        tiny = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(tiny)
        with tempfile.TemporaryDirectory(prefix="e_divide_gap_tiny_") as folder:
            root = tiny.standin_results(folder, {"tiny_regression": "regression"}, {})
            extra = ["--out", str(args.out)] if args.out else []
            return main([str(root / "data"), "--datasets", "tiny_regression", "--repeats", "20", *extra])
    if args.data_dir is None:
        ap.error("give results/<version>/data (or --tiny)")
    table = pd.concat([gaps(args.data_dir, d, args.repeats) for d in args.datasets], ignore_index=True)
    if args.out:
        table.to_csv(args.out, index=False)
    summary = table.groupby("dataset", sort=False).agg(
        max_gap_file_order=("gap_file_order", lambda s: s.abs().max()),
        max_gap_random_mean=("gap_random_mean", lambda s: s.abs().max()),
        median_one_halving_sd=("gap_one_halving_sd", "median"),
        max_abs_z=("z_random_mean", lambda s: s.abs().max()),
    )
    pd.set_option("display.width", 160)
    print(f"relative gaps |e_divide / e_switch - 1| (max over variables), R = {args.repeats} random halvings")
    print(summary.to_string(float_format=lambda v: f"{v:.4f}"))


if __name__ == "__main__":
    main()
