"""Is the reported Monte-Carlo SE of the randomised MR estimators honest? (issue 35, item 5)

For a fixed model and test set, the ``permutation`` and ``e_divide`` estimates average ``R`` random
draws and report ``sd / sqrt(R)``. Here ``S`` independent seeds each give one estimate with its
reported SE; against them stand the true spread of the estimate (the SD of the ``S`` estimates, and
the exact SD from :func:`xaipipe.explain.reliance.exact_monte_carlo_se`) and the exact expectation
of the estimate (``e_switch`` for ``e_divide``). Printed per variable: the ratio median(reported
SE) / exact SE, the share of seeds whose reported SE is below half the exact one, the coverage of
``estimate ± 2 reported SE`` and ``± 2 exact SE`` around the expectation, the largest |z| over the
seeds with the reported and with the exact SE, and the skewness of one draw.

    python benchmarks/mc_se_honesty.py [--mirror ../shared/data/uci] [--seeds 500] [--repeats 20]
    python benchmarks/mc_se_honesty.py --tiny   # the simulated data only, 10 seeds of 5 draws, 10 trees

Data: a skewed simulated variable (lognormal, n = 89 test rows like Diabetes) and Diabetes
(prepared and split as the default study, ``benchmarks/_prepared.py``), each with OLS and a
gradient boosting fitted on the training split. ``--tiny``: the simulated data only, 10 seeds of
5 draws, a boosting model of 10 trees (seconds; its numbers mean nothing).
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats
from sklearn.ensemble import GradientBoostingRegressor
from sklearn.linear_model import LinearRegression

from xaipipe.explain.reliance import RelianceOptions, exact_monte_carlo_se, model_reliance


def _load_prepared():
    """``benchmarks/_prepared.py`` (a sibling file, not a package)."""
    spec = importlib.util.spec_from_file_location("_prepared", Path(__file__).with_name("_prepared.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.prepared_data


def simulated(seed: int = 0):
    rng = np.random.default_rng(seed)
    n = 442
    X = np.column_stack([rng.lognormal(sigma=1.2, size=n), rng.normal(size=n), rng.exponential(size=n)])
    y = 2.0 * X[:, 0] + X[:, 1] + 0.5 * X[:, 2] ** 2 + rng.standard_t(3, size=n)
    test = np.sort(rng.choice(n, 89, replace=False))
    train = np.setdiff1d(np.arange(n), test)
    return X[train], y[train], X[test], y[test], ["skewed", "normal", "exponential"]


def honesty(model, X, y, names, *, estimator, seeds, repeats, label) -> pd.DataFrame:
    exact = exact_monte_carlo_se(model, X, y, estimator=estimator, n_repeats=repeats, feature_names=names)
    draws = model_reliance(
        model,
        X,
        y,
        estimator=estimator,
        n_repeats=seeds * repeats,
        random_state=12345,
        options=RelianceOptions(feature_names=names),
    ).mr_ratio()[0]  # (G, S*R)
    rows = []
    for g, name in enumerate(names):
        v = draws[g].reshape(seeds, repeats)
        est = v.mean(axis=1)
        rep = v.std(axis=1, ddof=1) / np.sqrt(repeats)
        e = exact.iloc[g]
        se_exact = float(e["mr_ratio_se_exact"])
        target = float(e["mr_ratio_expected"])
        with np.errstate(divide="ignore", invalid="ignore"):
            z_rep = (est - target) / rep
            z_ex = (est - target) / se_exact
        rows.append(
            {
                "data": label,
                "estimator": estimator,
                "feature": name,
                "mr_ratio": target,
                "se_exact": se_exact,
                "sd_over_seeds": est.std(ddof=1),
                "ratio_median_reported_to_exact": float(np.median(rep) / se_exact) if se_exact > 0 else np.nan,
                "share_reported_below_half": float(np.mean(rep < 0.5 * se_exact)),
                "coverage_2se_reported": float(np.mean(np.abs(z_rep) <= 2)),
                "coverage_2se_exact": float(np.mean(np.abs(z_ex) <= 2)),
                "share_abs_z_gt_3_reported": float(np.mean(np.abs(z_rep) > 3)),
                "max_abs_z_reported": float(np.nanmax(np.abs(z_rep))),
                "max_abs_z_exact": float(np.nanmax(np.abs(z_ex))),
                "draw_skewness": float(stats.skew(v.ravel())),
            }
        )
    return pd.DataFrame(rows)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mirror", default=str(Path(__file__).resolve().parents[2] / "shared" / "data" / "uci"))
    ap.add_argument("--seeds", type=int, default=500)
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--tiny", action="store_true", help="the simulated data only, 10 seeds of 5 draws, 10 trees")
    a = ap.parse_args(argv)
    n_trees = 200
    sets = {"simulated_skewed": simulated()}
    if a.tiny:
        a.seeds, a.repeats, n_trees = 10, 5, 10
    else:
        try:
            p = _load_prepared()("diabetes", mirror=a.mirror)
            sets["diabetes"] = (p.X_train, p.y_train, p.X_test, p.y_test, p.features)
        except Exception as exc:  # pragma: no cover - no mirror / scikit-learn copy
            print(f"diabetes skipped: {exc}")
    frames = []
    for label, (Xtr, ytr, X, y, names) in sets.items():
        for mname, model in (
            ("ols", LinearRegression()),
            ("gradient_boosting", GradientBoostingRegressor(n_estimators=n_trees, max_depth=3, random_state=0)),
        ):
            model.fit(Xtr, ytr)
            for est in ("e_divide", "permutation"):
                t0 = time.process_time()
                frames.append(
                    honesty(
                        model, X, y, names, estimator=est, seeds=a.seeds, repeats=a.repeats, label=f"{label}/{mname}"
                    )
                )
                print(f"{label}/{mname}/{est}: {time.process_time() - t0:.1f} s CPU", file=sys.stderr)
    out = pd.concat(frames, ignore_index=True)
    pd.set_option("display.width", 250)
    pd.set_option("display.max_columns", 30)
    cols = [
        "data",
        "estimator",
        "feature",
        "ratio_median_reported_to_exact",
        "share_reported_below_half",
        "coverage_2se_reported",
        "coverage_2se_exact",
        "share_abs_z_gt_3_reported",
        "max_abs_z_reported",
        "max_abs_z_exact",
        "draw_skewness",
    ]
    print(out[cols].round(3).to_string(index=False))
    worst = out.sort_values("coverage_2se_reported").iloc[0]
    print(
        f"\nworst coverage of ±2 reported SE: {worst['data']} {worst['estimator']} {worst['feature']}: "
        f"{worst['coverage_2se_reported']:.3f} (exact SE: {worst['coverage_2se_exact']:.3f}); "
        f"largest |z| with the reported SE over all: {out['max_abs_z_reported'].max():.1f}, "
        f"with the exact SE: {out['max_abs_z_exact'].max():.1f}"
    )
    if a.out:
        out.to_csv(a.out, index=False)


if __name__ == "__main__":
    main()
