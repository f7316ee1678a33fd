#!/usr/bin/env python
"""The numbers of docs/shap_lime.md: SHAP, LIME, KernelSHAP and the logistic table on Breast Cancer.

Usage (repository root, after the pipeline has fitted Breast Cancer's families)::

    python benchmarks/shap_lime.py results/<version> [--json out.json] [--figures DIR]
    python benchmarks/shap_lime.py --tiny     # a stand-in results folder (benchmarks/_tiny.py), seconds

Reads ``data/breast_cancer/{prepared.csv,prepared.json,split.json}`` and
``models/breast_cancer/fitted/`` of that results version (``--dataset`` names another
binary classification dataset) and prints:

1. the logistic coefficient table of the ``logistic_regression`` family
   (:func:`xaipipe.models.logit.logit_inference`): separation and the penalised
   odds ratios;
2. LIME (:func:`xaipipe.explain.lime.lime_explanations`) against the pipeline's
   SHAP values of the fitted XGBoost model on every test row, and on the three
   force-plot rows;
3. KernelSHAP against exact interventional TreeSHAP
   (:func:`xaipipe.explain.shapley.kernel_vs_tree_shap`) for the fitted
   XGBoost and gradient-boosting models;
4. specificity and F-beta of every family on the test set.

With ``--figures DIR`` it also writes the force plots, the HTML page, the LIME
figure, the curves and 000 Figs 4.1-4.2 there (for a visual check; not part of
the pipeline's outputs).

``--tiny`` writes a stand-in results folder to a temporary folder (``benchmarks/_tiny.py``: a
self-made binary table with a one-hot group, prepared and split by the pipeline's code, and the
``logistic_regression``, ``xgboost`` and ``gradient_boosting`` models fitted on it by the
``fit`` rule's function), and runs the same on it with LIME's 500 samples per row, KernelSHAP's
64 and 128 samples on 3 rows, and the figures.
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from xaipipe.data.prepare import load_prepared
from xaipipe.explain.lime import compare_lime_shap, lime_explanations, lime_shap_summary
from xaipipe.explain.shapley import kernel_vs_tree_shap, shap_values
from xaipipe.io import read_joblib
from xaipipe.models.classification_metrics import f_beta, specificity
from xaipipe.models.logit import logit_inference
from xaipipe.plots.shap_force import force_rows

#: --tiny: the stand-in's dataset and models (small XGBoost / boosting; C as the grid's middle value)
TINY_DATASET = "tiny_classification"
TINY_MODELS = {
    "logistic_regression": {"C": 1.0},
    "xgboost": {"n_estimators": 10, "max_depth": 2, "learning_rate": 0.3},
    "gradient_boosting": {"n_estimators": 10, "max_depth": 2},
}


def tiny_results(folder: Path) -> Path:
    """A stand-in ``results/<version>`` under ``folder`` (:data:`TINY_DATASET`, :data:`TINY_MODELS`)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("_tiny", Path(__file__).resolve().parent / "_tiny.py")
    tiny = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tiny)
    return tiny.standin_results(folder, {TINY_DATASET: "classification"}, {"classification": TINY_MODELS})


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", type=Path, nargs="?")
    ap.add_argument("--dataset", default="breast_cancer", help="a binary classification dataset of the run")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--figures", type=Path)
    ap.add_argument("--kernel-rows", type=int, default=10)
    ap.add_argument(
        "--kernel-samples",
        default="128,512,2048,8192",
        help="KernelSHAP nsamples, comma-separated (default %(default)s)",
    )
    ap.add_argument("--lime-samples", type=int, default=5000, help="LIME num_samples per row (default 5000)")
    ap.add_argument("--tiny", action="store_true", help="a stand-in results folder of one tiny table (seconds)")
    args = ap.parse_args(argv)
    if args.tiny:
        import tempfile

        with tempfile.TemporaryDirectory(prefix="shap_lime_tiny_") as folder:
            root = tiny_results(Path(folder))
            rest = ["--dataset", TINY_DATASET, "--kernel-rows", "3", "--kernel-samples", "64,128"]
            rest += ["--lime-samples", "500", "--figures", str(args.figures or Path(folder) / "figures")]
            return main([str(root), *rest, *(["--json", str(args.json)] if args.json else [])])
    if args.results is None:
        ap.error("give results/<version> (or --tiny)")
    root = args.results
    data_dir = root / "data" / args.dataset
    models = root / "models" / args.dataset
    data = load_prepared(data_dir / "prepared.csv", data_dir / "prepared.json", data_dir / "split.json")
    out: dict = {"n_train": int(len(data.y_train)), "n_test": int(len(data.y_test)), "p": len(data.features)}
    pd.set_option("display.width", 200)

    # 1. logistic table ---------------------------------------------------------------
    lr = read_joblib(models / "fitted" / "logistic_regression.joblib")
    t0 = time.perf_counter()
    table = logit_inference(data.X_train, data.y_train, data.features, penalized_model=lr)
    out["logit"] = {
        "separation": str(table["separation"].iloc[0]),
        "n_not_identified": int((~table["identified"]).sum()),
        "perfect_separation_warning": bool(table["perfect_separation_warning"].iloc[0]),
        "C": float(table["C"].iloc[0]),
        "seconds": time.perf_counter() - t0,
        "top_penalized": table.iloc[1:]
        .assign(a=lambda d: d["penalized_coefficient"].abs())
        .sort_values("a", ascending=False)
        .head(6)[["term", "penalized_coefficient", "penalized_odds_ratio", "sd"]]
        .to_dict("records"),
    }
    # the same table on a few features, where the MLE exists
    few = ["radius1", "texture1", "concave_points1", "texture3"]
    few = [f for f in few if f in data.features]
    if len(few) == 4:
        cols = [data.features.index(f) for f in few]
        small = logit_inference(data.X_train[:, cols], data.y_train, few)
        out["logit_4_features"] = small[
            [
                "term",
                "coefficient",
                "std_error",
                "p_value",
                "odds_ratio",
                "odds_ratio_ci_low",
                "odds_ratio_ci_high",
                "separation",
            ]
        ].to_dict("records")
    print("logistic regression:", json.dumps({k: v for k, v in out["logit"].items() if k != "top_penalized"}))
    print(pd.DataFrame(out["logit"]["top_penalized"]).to_string(index=False))
    if "logit_4_features" in out:
        print(pd.DataFrame(out["logit_4_features"]).to_string(index=False))

    # 2. LIME against SHAP (XGBoost, all test rows) -------------------------------------
    xgb = read_joblib(models / "fitted" / "xgboost.joblib")
    shap_result = shap_values(xgb, data.X_test, feature_names=data.features)
    t0 = time.perf_counter()
    lime_result = lime_explanations(
        xgb, data.X_test, data.X_train, feature_names=data.features, num_samples=args.lime_samples, random_state=0
    )
    lime_seconds = time.perf_counter() - t0
    comparison = compare_lime_shap(lime_result, shap_result)
    summary = lime_shap_summary(comparison)
    rows = {k: int(shap_result.row_index[i]) for k, i in force_rows(shap_result).items()}
    out["lime"] = {
        "seconds": lime_seconds,
        "n_rows": int(len(summary)),
        "xgboost_params": {
            k: v for k, v in xgb.get_params().items() if k in ("n_estimators", "learning_rate", "max_depth")
        },
        "lime_gap_median": float(summary["lime_local_accuracy_gap"].median()),
        "lime_gap_max": float(summary["lime_local_accuracy_gap"].max()),
        "shap_gap_max": float(summary["shap_local_accuracy_gap"].max()),
        "abs_f_median": float(np.median(np.abs(summary["model_output"]))),
        "spearman_median": float(summary["spearman"].median()),
        "sign_agreement_median": float(summary["sign_agreement"].median()),
        "top5_overlap_median": float(summary["top_k_overlap"].median()),
        "score_median": float(summary["lime_score"].median()),
        "force_rows": rows,
        "force_rows_summary": summary.set_index("row").loc[list(rows.values())].reset_index().to_dict("records"),
        "shap_base_value": float(shap_result.base_values[0]),
    }
    print("LIME vs SHAP:", json.dumps({k: v for k, v in out["lime"].items() if k != "force_rows_summary"}))
    print(pd.DataFrame(out["lime"]["force_rows_summary"]).to_string(index=False))

    # 3. KernelSHAP against interventional TreeSHAP -------------------------------------
    out["kernel"] = {}
    for family in ("xgboost", "gradient_boosting"):
        model = read_joblib(models / "fitted" / f"{family}.joblib")
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="Linear regression equation is singular")
            check = kernel_vs_tree_shap(
                model,
                data.X_test[: args.kernel_rows],
                data.X_train,
                n_samples=tuple(int(v) for v in args.kernel_samples.split(",")),
                background_size=50,
                feature_names=data.features,
                random_state=0,
            )
        out["kernel"][family] = {
            "seconds": time.perf_counter() - t0,
            "summary": check.summary.to_dict("records"),
            "mean_abs_tree_shap": float(check.values["tree_shap"].abs().mean()),
        }
        print(f"KernelSHAP vs TreeSHAP, {family}:")
        print(check.summary.drop(columns=["output"]).to_string(index=False))

    # 4. specificity and F-beta -----------------------------------------------------------
    scores, metrics = {}, []
    for path in sorted((models / "fitted").glob("*.joblib")):
        family = path.stem
        model = read_joblib(path)
        proba = model.predict_proba(data.X_test)
        pred = np.argmax(proba, axis=1)
        scores[family] = (data.y_test, proba[:, 1])
        metrics.append(
            {
                "family": family,
                "specificity": specificity(data.y_test, pred),
                "recall": float(np.mean(pred[data.y_test == 1] == 1)),
                "f_0.5": f_beta(data.y_test, pred, 0.5),
                "f_1": f_beta(data.y_test, pred, 1.0),
                "f_2": f_beta(data.y_test, pred, 2.0),
            }
        )
    out["metrics"] = metrics
    print(pd.DataFrame(metrics).to_string(index=False))

    if args.figures:
        from sklearn.inspection import permutation_importance

        from xaipipe.explain.reliance import split_gain_importance
        from xaipipe.plots.curves import plot_precision_recall_curves, plot_roc_curves
        from xaipipe.plots.lime import plot_lime_vs_shap
        from xaipipe.plots.seed000 import plot_importance_before_shap, plot_response_vs_features
        from xaipipe.plots.shap_force import plot_shap_force_local, save_force_html
        from xaipipe.plots.style import figure_style, save_figure

        d = args.figures
        d.mkdir(parents=True, exist_ok=True)
        for kind, fig in plot_shap_force_local(shap_result).items():
            with figure_style():
                save_figure(fig, d / f"force_{kind}.png")
        save_force_html(shap_result, d / "force_all.html")
        with figure_style():
            save_figure(plot_lime_vs_shap(comparison, rows), d / "lime_vs_shap.png")
            save_figure(plot_roc_curves(scores), d / "roc.png")
            save_figure(plot_precision_recall_curves(scores), d / "pr.png")
            frame = pd.read_csv(data_dir / "prepared.csv")
            save_figure(plot_response_vs_features(frame, data.target, data.features), d / "fig_4_1.png")
            gain = split_gain_importance(xgb, feature_names=data.features)
            pfi = permutation_importance(
                xgb, data.X_test, data.y_test, scoring="neg_log_loss", n_repeats=10, random_state=0
            )
            imp = pd.DataFrame(
                {
                    "feature": data.features,
                    "permutation_importance": pfi.importances_mean,
                    "pfi_std": pfi.importances_std,
                }
            ).merge(gain.rename(columns={"split_gain": "builtin_importance"})[["feature", "builtin_importance"]])
            save_figure(
                plot_importance_before_shap(
                    imp,
                    permutation_std="pfi_std",
                    builtin_label="split-gain share (total gain)",
                    permutation_label="PFI: increase in log loss",
                ),
                d / "fig_4_2.png",
            )
    if args.json:
        args.json.write_text(json.dumps(out, indent=2, default=float))


if __name__ == "__main__":
    main()
