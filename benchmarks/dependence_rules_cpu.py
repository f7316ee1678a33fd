"""CPU seconds of the computations that the dependence rules (issue 35) add to the default study, per model and dataset,
measured on a finished run's stored models and tables (one process, one thread, ``time.process_time``).

The new jobs' start-up (interpreter, imports: ~1 CPU-s per compute job, ~0.6 per figure job) and
Snakemake's own per-job cost are not in these numbers; ``docs/methods_dependent_features.md`` adds
them. Run after the default study (or after its upstream jobs of the datasets of interest):

    python benchmarks/dependence_rules_cpu.py --results results/v1 [--out dependence_rules_cpu.csv] [--datasets abalone ...]
    python benchmarks/dependence_rules_cpu.py --tiny    # a stand-in results folder of two tiny tables (seconds)

``--tiny`` builds a stand-in ``results`` folder (``benchmarks/_tiny.py``: a regression and a
classification table prepared and split by the pipeline's code, a linear model and a 10-tree
gradient boosting each, their ``model_reliance.csv`` from the pipeline's own function) and runs the
per-model parts on it (no Rashomon set: the per-dataset parts are skipped as for a dataset without
``member_predictions.npy``).

Rows: ``dataset``, ``family`` (empty for per-dataset parts), ``part`` (``dependent_mr``: the
conditional and grouped MR rows of ``model_reliance``; ``ale``; ``h_statistic``; ``figures``: the
four figures of ``dependence_figures``; ``shap_interaction_summary``; ``member_predictions``: the
members' test predictions of the ``rashomon`` job (on the reference member's fitted model and
test rows: one predict per member); ``multiplicity`` and ``multiplicity_figure``), ``cpu_s``.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from xaipipe.config import AleSettings, HStatisticSettings, RelianceSettings
from xaipipe.data.prepare import load_prepared
from xaipipe.explain.pdp import ale_tables, h_statistic_table
from xaipipe.explain.reliance import dependent_reliance_rows, ranked_features
from xaipipe.explain.shapley import shap_interaction_tables
from xaipipe.io import read_joblib
from xaipipe.plots.ale import ale_figures
from xaipipe.plots.interactions import h_statistic_figures, plot_shap_interaction_matrix, plot_shap_interaction_summary
from xaipipe.plots.multiplicity import plot_multiplicity
from xaipipe.plots.style import figure_style
from xaipipe.rashomon.multiplicity import multiplicity_tables


def cpu(fn):
    t0 = time.process_time()
    out = fn()
    return time.process_time() - t0, out


def _close(figs):
    import matplotlib.pyplot as plt

    for fig in figs if isinstance(figs, (list, tuple)) else figs.values():
        fig.canvas.draw()  # render, as saving does
        plt.close(fig)


def run(results: Path, config: dict, datasets: list[str]) -> list[dict]:
    ale_cfg = config["explain"]["ale"]
    rows = []
    for d in datasets:
        data = load_prepared(
            results / f"data/{d}/prepared.csv", results / f"data/{d}/prepared.json", results / f"data/{d}/split.json"
        )
        clf = data.task == "classification"
        for model_path in sorted((results / f"models/{d}/fitted").glob("*.joblib")):
            family = model_path.stem
            model = read_joblib(model_path)
            reliance = pd.read_csv(results / f"explain/{d}/{family}/model_reliance.csv")
            marginal = reliance[~reliance["estimator"].isin(["conditional_permutation", "grouped_permutation"])]
            settings = RelianceSettings.from_config(config, data.task)  # the model_reliance rule's
            s, _ = cpu(
                lambda: dependent_reliance_rows(model, data, settings, family=family, columns=list(marginal.columns))
            )
            rows.append({"dataset": d, "family": family, "part": "dependent_mr", "cpu_s": s})
            ale_settings = AleSettings.from_config(config, data.task)  # the ale rule's settings
            ranking = ranked_features(marginal, ale_settings)
            pairs = pd.read_csv(results / f"explain/{d}/{family}/pd_2d.csv")
            pair = tuple(pairs[["feature_1", "feature_2"]].iloc[0]) if len(pairs) else None
            s, (ale, ale_2d, _) = cpu(lambda: ale_tables(model, data, ale_settings, ranking=ranking, pair=pair))
            rows.append({"dataset": d, "family": family, "part": "ale", "cpu_s": s})
            h_settings = HStatisticSettings.from_config(config, data.task, family)  # the h_statistic rule's
            s, h = cpu(lambda: h_statistic_table(model, data, h_settings, top=ranking[: h_settings.top_k]))
            rows.append({"dataset": d, "family": family, "part": "h_statistic", "cpu_s": s})
            with figure_style():
                s, _ = cpu(
                    lambda: _close(
                        {**ale_figures(ale, ale_2d, max_features=ale_cfg["figure_features"]), **h_statistic_figures(h)}
                    )
                )
            rows.append({"dataset": d, "family": family, "part": "figures", "cpu_s": s})
            inter = results / f"explain/{d}/{family}/shap_interactions.csv"
            if inter.is_file() and family == "xgboost":
                with figure_style():
                    s, _ = cpu(
                        lambda: _close(
                            [
                                f(shap_interaction_tables(pd.read_csv(inter))[2])
                                for f in (plot_shap_interaction_matrix, plot_shap_interaction_summary)
                            ]
                        )
                    )
                rows.append({"dataset": d, "family": family, "part": "shap_interaction_summary", "cpu_s": s})
        rash = results / f"rashomon/{d}"
        if (rash / "member_predictions.npy").is_file():
            P = np.load(rash / "member_predictions.npy")
            index = pd.read_csv(rash / "member_predictions_index.csv", dtype={"family": str, "config_id": str})
            members = pd.read_csv(rash / "members.csv", dtype={"family": str, "config_id": str})
            rashomon = config["rashomon"]
            s, out = cpu(
                lambda: multiplicity_tables(
                    P, index, members, task=data.task, epsilons=rashomon["epsilons"],
                    default_epsilon=rashomon["epsilon"], row_ids=data.test_rows, y_true=data.y_test,
                    capacity=clf and rashomon["multiplicity"]["capacity"], dataset=d,
                )
            )  # fmt: skip
            rows.append({"dataset": d, "family": "", "part": "multiplicity", "cpu_s": s})
            with figure_style():
                s, _ = cpu(
                    lambda: _close([plot_multiplicity(out.rows, out.multiplicity, scope=rashomon["figure_scope"])])
                )
            rows.append({"dataset": d, "family": "", "part": "multiplicity_figure", "cpu_s": s})
            # one predict per member on the test rows: the reference model stands in for each
            ref = read_joblib(next(iter(sorted((results / f"models/{d}/fitted").glob("*.joblib")))))
            predict = ref.predict_proba if clf else ref.predict
            s, _ = cpu(lambda: [predict(data.X_test) for _ in range(P.shape[0])])
            rows.append({"dataset": d, "family": "", "part": "member_predictions", "cpu_s": s})
    return rows


TINY_DATASETS = {"tiny_regression": "regression", "tiny_classification": "classification"}
TINY_FAMILIES = {
    "regression": {"linear_regression": {}, "gradient_boosting": {"n_estimators": 10, "max_depth": 2}},
    "classification": {"logistic_regression": {}, "gradient_boosting": {"n_estimators": 10, "max_depth": 2}},
}


def tiny_results(folder: Path, config: dict) -> Path:
    """``--tiny``: the stand-in results folder with each model's ``model_reliance.csv`` and an
    empty ``pd_2d.csv`` (no 2-D PD pair)."""
    import dataclasses
    import importlib.util

    from xaipipe.explain.reliance import reliance_tables
    from xaipipe.io import write_csv

    spec = importlib.util.spec_from_file_location("_tiny", Path(__file__).with_name("_tiny.py"))
    tiny = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tiny)
    root = tiny.standin_results(folder, TINY_DATASETS, TINY_FAMILIES)
    rel = config["explain"]["reliance"]
    for d in TINY_DATASETS:
        data = load_prepared(
            root / f"data/{d}/prepared.csv", root / f"data/{d}/prepared.json", root / f"data/{d}/split.json"
        )
        for model_path in sorted((root / f"models/{d}/fitted").glob("*.joblib")):
            family = model_path.stem
            settings = dataclasses.replace(
                RelianceSettings.from_config(config, data.task),
                estimators=("permutation",),
                losses=tuple(rel["losses"][data.task][:1]),
                n_repeats=3,
            )
            reliance, _ = reliance_tables(read_joblib(model_path), data, settings, family=family)
            write_csv(root / f"explain/{d}/{family}/model_reliance.csv", reliance)
            write_csv(root / f"explain/{d}/{family}/pd_2d.csv", pd.DataFrame(columns=["feature_1", "feature_2"]))
    return root


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", type=Path, default=Path("results/v1"))
    ap.add_argument("--config", type=Path, default=Path("config/config.yaml"))
    ap.add_argument("--datasets", nargs="*")
    ap.add_argument("--out", type=Path)
    ap.add_argument("--tiny", action="store_true", help="a stand-in results folder of two tiny tables (seconds)")
    args = ap.parse_args(argv)
    config = yaml.safe_load(args.config.read_text())
    if args.tiny:
        import tempfile

        with tempfile.TemporaryDirectory(prefix="dependence_rules_cpu_tiny_") as folder:
            config["explain"]["interactions"].update(n_rows=30, n_rows_random_forest=30, n_bootstrap=5)
            root = tiny_results(Path(folder), config)
            table = pd.DataFrame(run(root, config, list(TINY_DATASETS)))
    else:
        datasets = args.datasets or sorted(
            p.name for p in (args.results / "models").iterdir() if (p / "fitted").is_dir()
        )
        table = pd.DataFrame(run(args.results, config, datasets))
    pd.set_option("display.width", 200)
    print(table.pivot_table(index="dataset", columns="part", values="cpu_s", aggfunc="sum").round(2).to_string())
    print(f"total {table['cpu_s'].sum():.1f} CPU-s")
    if args.out:
        table.to_csv(args.out, index=False)


if __name__ == "__main__":
    main()
