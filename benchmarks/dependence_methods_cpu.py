"""CPU seconds of one call of each dependence and interaction method (ALE, conditional and grouped MR,
H-statistic, SHAP interaction summary, predictive multiplicity, exact MC SE) per dataset (added by issue 35).

A gradient boosting (300 trees, depth 3; classification for breast_cancer) is fitted on each
dataset's training split (``benchmarks/_prepared.py``: the default study's preparation and split);
every computation runs on the test split with the settings a default-study rule would use.

    python benchmarks/dependence_methods_cpu.py [--mirror ../shared/data/uci] [--datasets abalone diabetes]
    python benchmarks/dependence_methods_cpu.py --tiny    # two tiny self-made tables, 10 trees (seconds)

``--tiny`` runs every computation on the regression and classification tables of
``benchmarks/_tiny.py`` (prepared and split by the pipeline's code; a one-hot group each) with
a boosting model of 10 trees of depth 3, R = 3, the H-statistic on 20 rows with 5 bootstrap
draws and 4 members for the multiplicity; its numbers mean nothing.
"""

from __future__ import annotations

import argparse
import importlib.util
import time
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.ensemble import GradientBoostingClassifier, GradientBoostingRegressor

from xaipipe.explain.pdp import accumulated_local_effects, accumulated_local_effects_2d, h_statistic
from xaipipe.explain.reliance import (
    RelianceOptions,
    conditional_model_reliance,
    exact_monte_carlo_se,
    features_from_groups,
    grouped_model_reliance,
    model_reliance,
)
from xaipipe.explain.shapley import shap_interaction_summary, shap_values
from xaipipe.models.prefix import member_predictor
from xaipipe.rashomon.multiplicity import predictive_multiplicity

DATASETS = ("airfoil", "concrete", "wine_quality", "abalone", "diabetes", "breast_cancer")
#: The sizes of a run: trees of the model, MR repeats, H-statistic rows and bootstrap draws, members' trees.
FULL = {"n_estimators": 300, "n_repeats": 20, "h_rows": 300, "h_bootstrap": 50, "members": range(100, 301, 10)}
TINY = {"n_estimators": 10, "n_repeats": 3, "h_rows": 20, "h_bootstrap": 5, "members": range(4, 11, 2)}
TINY_DATASETS = {"tiny_regression": "regression", "tiny_classification": "classification"}


def _load_prepared():
    """``benchmarks/_prepared.py`` (a sibling file, not a package)."""
    spec = importlib.util.spec_from_file_location("_prepared", Path(__file__).with_name("_prepared.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.prepared_data


def cpu(fn):
    t0 = time.process_time()
    out = fn()
    return time.process_time() - t0, out


def tiny_prepared(folder: Path) -> dict:
    """``--tiny``: PreparedData of :data:`TINY_DATASETS`, written under ``folder`` (``benchmarks/_tiny.py``)."""
    from xaipipe.data.prepare import load_prepared

    spec = importlib.util.spec_from_file_location("_tiny", Path(__file__).with_name("_tiny.py"))
    tiny = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tiny)
    root = tiny.standin_results(folder, TINY_DATASETS, {})
    out = {}
    for name in TINY_DATASETS:
        d = root / "data" / name
        out[name] = load_prepared(d / "prepared.csv", d / "prepared.json", d / "split.json")
    return out


def run(dataset: str, p, sizes=FULL) -> list[dict]:
    """CPU seconds of every computation on ``p`` (PreparedData of ``dataset``) with ``sizes``."""
    clf = p.task == "classification"
    R = sizes["n_repeats"]
    est = (GradientBoostingClassifier if clf else GradientBoostingRegressor)(
        n_estimators=sizes["n_estimators"], max_depth=3, random_state=0
    )
    fit_s, _ = cpu(lambda: est.fit(p.X_train, p.y_train))
    X, y, names, groups = p.X_test, p.y_test, p.features, p.feature_groups
    variables = list(features_from_groups(names, groups))
    recs = [{"dataset": dataset, "computation": "fit (reference)", "cpu_s": fit_s}]

    def add(name, fn):
        s, out = cpu(fn)
        recs.append({"dataset": dataset, "computation": name, "cpu_s": s})
        return out

    add(
        "ale 1-D, every variable",
        lambda: [accumulated_local_effects(est, X, v, feature_names=names, feature_groups=groups) for v in variables],
    )
    num = [j for j, c in enumerate(names) if not any(c in g for g in groups.values())]
    add("ale 2-D, one pair", lambda: accumulated_local_effects_2d(est, X, (num[0], num[1]), feature_names=names))
    add(
        f"mr permutation R={R} (existing, reference)",
        lambda: model_reliance(
            est, X, y, options=RelianceOptions(feature_groups=groups, feature_names=names), n_repeats=R, random_state=0
        ),
    )
    add(
        f"conditional MR R={R}",
        lambda: conditional_model_reliance(
            est,
            X,
            y,
            p.X_train,
            options=RelianceOptions(feature_groups=groups, feature_names=names),
            n_repeats=R,
            random_state=0,
        ),
    )
    add(
        f"grouped MR R={R} (|r|>=0.9)",
        lambda: grouped_model_reliance(
            est, X, y, p.X_train, feature_groups=groups, feature_names=names, n_repeats=R, random_state=0
        ),
    )
    add(
        f"H-statistic {sizes['h_rows']} rows, totals + pairs of top 4",
        lambda: h_statistic(
            est,
            X,
            variables,
            pairs=[(a, b) for i, a in enumerate(variables[:4]) for b in variables[i + 1 : 4]],
            feature_names=names,
            feature_groups=groups,
            n_rows=sizes["h_rows"],
            n_bootstrap=sizes["h_bootstrap"],
        ),
    )
    sv = add(
        "shap interaction values (tree_explainer)", lambda: shap_values(est, X, feature_names=names, interactions=True)
    )
    add("shap interaction summary", lambda: shap_interaction_summary(sv))
    members = list(sizes["members"])
    preds = np.asarray(member_predictor(est, members)(X))
    if preds.ndim == 3:
        preds = preds[..., 1]
    add(
        f"multiplicity, {len(members)} members",
        lambda: predictive_multiplicity(preds, task=p.task, reference=len(members) - 1, capacity=clf),
    )
    if not clf:
        add(
            "exact MC SE e_divide, every variable",
            lambda: exact_monte_carlo_se(est, X, y, feature_groups=groups, feature_names=names),
        )
    return recs


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mirror", default=str(Path(__file__).resolve().parents[2] / "shared" / "data" / "uci"))
    ap.add_argument("--datasets", nargs="*", default=list(DATASETS))
    ap.add_argument("--tiny", action="store_true", help="two tiny self-made tables, 10 trees (seconds)")
    a = ap.parse_args(argv)
    if a.tiny:
        import tempfile

        with tempfile.TemporaryDirectory(prefix="dependence_methods_cpu_tiny_") as folder:
            data = tiny_prepared(Path(folder))
            rows = [r for d, p in data.items() for r in run(d, p, TINY)]
        names = list(data)
    else:
        prepared_data = _load_prepared()
        rows = [r for d in a.datasets for r in run(d, prepared_data(d, mirror=a.mirror))]
        names = a.datasets
    t = pd.DataFrame(rows).pivot(index="computation", columns="dataset", values="cpu_s")[names]
    pd.set_option("display.width", 200)
    print(t.round(2).to_string())


if __name__ == "__main__":
    main()
