"""Thesis figures and tables regenerated from the pipeline's results.

The config section ``thesis`` maps the numbering of the theses (seed 001:
Figs 2.1–2.2, 3.1–3.3, 4.1–4.5, 5.1–5.9, Tables 4.1, 5.2, 5.4, 5.6; seed 000:
Figs 4.3–4.8) to a
*kind* of figure or table and its data (dataset, model, variables). This module
validates the mapping, says which result files each entry reads
(:func:`figure_sources`, :func:`table_sources`) and renders them
(:func:`render_figure`, :func:`render_table`) with the project's one style. Only
stored results are read: re-rendering never refits a model.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from ..io import read_csv
from ..models.families import FAMILIES, families_for_task, get_family
from ..paths import result_path

__all__ = [
    "FIGURE_KINDS",
    "ILLUSTRATION_PLOTS",
    "TABLE_KINDS",
    "importance_before_shap",
    "check_mapping",
    "available",
    "figure_sources",
    "table_sources",
    "render_figure",
    "render_table",
    "latex_table",
    "thesis_pd_features",
]

#: figure kind -> keys its mapping entry needs
FIGURE_KINDS = {
    "correlation": ("dataset",),
    "model_reliance": ("dataset", "model"),
    "pd": ("dataset", "model", "features"),
    "ice": ("dataset", "model", "features"),
    "c_ice": ("dataset", "model", "features"),
    "rashomon_member_reliance": ("study",),
    "rashomon_rank_heatmap": ("study",),
    "shap_waterfall_high": ("dataset", "model"),
    "shap_waterfall_low": ("dataset", "model"),
    "shap_waterfall_near_base": ("dataset", "model"),
    "shap_force_high": ("dataset", "model"),
    "shap_force_low": ("dataset", "model"),
    "shap_force_near_base": ("dataset", "model"),
    "response_vs_features": ("dataset",),
    "importance_before_shap": ("dataset", "model"),
    "shap_bar": ("dataset", "model"),
    "shap_beeswarm": ("dataset", "model"),
    "shap_dependence": ("dataset", "model"),
    "illustration": ("illustration",),
    "pd_vs_ale": ("dataset", "model", "features"),
}
#: illustration (config section ``illustrations``) -> plotting function of :mod:`xaipipe.plots.illustrations`
ILLUSTRATION_PLOTS = {
    "diabetes_tree": "plot_regression_tree",
    "pruning_path": "plot_pruning_path",
    "oob_curve": "plot_oob_curve",
    "loss_functions": "plot_loss_functions",
    "boosting_depth": "plot_boosting_depth",
    "boosting_staged": "plot_boosting_shrinkage",
}
#: table kind -> keys its mapping entry needs
TABLE_KINDS = {"test_metrics": ("dataset",), "abalone_top15": ()}


def check_mapping(mapping: Mapping[str, Any]) -> None:
    """Validate the ``thesis`` config section.

    Parameters
    ----------
    mapping : mapping
        ``{"figures": {name: entry}, "tables": {name: entry}}``.

    Raises
    ------
    ValueError
        Unknown kind or missing key; the message names the
        ``thesis.<figures|tables>.<name>`` key.
    """
    for section, kinds in (("figures", FIGURE_KINDS), ("tables", TABLE_KINDS)):
        for name, entry in (mapping.get(section) or {}).items():
            where = f"config key thesis.{section}.{name}"
            kind = entry.get("kind")
            if kind not in kinds:
                raise ValueError(f"{where}: unknown kind {kind!r}; known: {sorted(kinds)}")
            missing = [k for k in kinds[kind] if k not in entry]
            if missing:
                raise ValueError(f"{where}: kind {kind!r} needs key(s) {missing}")


def available(entry: Mapping[str, Any], datasets, families_of, studies=(), illustrations: bool = True) -> bool:
    """Whether this run produces the results a thesis entry reads (its dataset is
    enabled, its model is run on it, its study is enabled, the illustrations are on)."""
    if entry.get("kind") == "illustration" and not illustrations:
        return False
    if "study" in entry and entry["study"] not in studies:
        return False
    if entry.get("kind") == "abalone_top15" and "abalone_study" not in studies:
        return False
    if "dataset" in entry and entry["dataset"] not in datasets:
        return False
    if "model" in entry and entry["model"] not in families_of(entry["dataset"]):
        return False
    return True


def thesis_pd_features(mapping: Mapping[str, Any], dataset: str, model: str) -> list[str]:
    """Variables that thesis PD/ICE figures need for ``dataset`` / ``model`` (beyond the top-k by MR)."""
    out: list[str] = []
    for entry in (mapping.get("figures") or {}).values():
        if (
            entry.get("kind") in ("pd", "ice", "c_ice")
            and entry.get("dataset") == dataset
            and entry.get("model") == model
        ):
            out += [f for f in entry["features"] if f not in out]
    return out


def figure_sources(entry: Mapping[str, Any], results: str) -> dict[str, str]:
    """Result files (relative to the working directory) a figure entry reads (catalog :mod:`xaipipe.paths`)."""
    kind = entry["kind"]
    d, m = entry.get("dataset"), entry.get("model")
    if kind == "correlation":
        return {"correlation": result_path("correlation", results, dataset=d)}
    if kind == "model_reliance":
        return {"reliance": result_path("model_reliance", results, dataset=d, family=m)}
    if kind in ("pd", "ice", "c_ice"):
        return {"curves": result_path("pd_ice", results, dataset=d, family=m)}
    if kind == "pd_vs_ale":
        return {"ale": result_path("ale", results, dataset=d, family=m)}
    if kind.startswith("rashomon_"):
        return {"members": result_path("rashomon_members", results, dataset=entry["study"])}
    if kind.startswith("shap_"):
        return {"shap": result_path("shap_result", results, dataset=d, family=m)}
    if kind == "response_vs_features":
        return {
            "prepared": result_path("prepared", results, dataset=d),
            "prepared_info": result_path("prepared_info", results, dataset=d),
        }
    if kind == "importance_before_shap":
        return {
            "split_gain": result_path("split_gain", results, dataset=d, family=m),
            "reliance": result_path("model_reliance", results, dataset=d, family=m),
        }
    if kind == "illustration":
        name = entry["illustration"]
        if name not in ILLUSTRATION_PLOTS:
            raise ValueError(f"unknown illustration {name!r}; known: {sorted(ILLUSTRATION_PLOTS)}")
        if name == "diabetes_tree":  # plot_tree draws the fitted estimator
            return {"model": result_path("illustration_model", results, illustration=name)}
        return {"table": result_path("illustration", results, illustration=name)}
    raise ValueError(f"unknown figure kind {kind!r}")


def table_sources(entry: Mapping[str, Any], results: str) -> dict[str, str]:
    """Result files a table entry reads (catalog :mod:`xaipipe.paths`)."""
    if entry["kind"] == "test_metrics":
        return {"metrics": result_path("table", results, name="test_metrics")}
    if entry["kind"] == "abalone_top15":
        return {"comparison": result_path("study_comparison", results, dataset="abalone_study")}
    raise ValueError(f"unknown table kind {entry['kind']!r}")


def _pd_only(effects, title, target_unit=None):
    import matplotlib.pyplot as plt

    from ..plots.units import with_unit

    fig, axes = plt.subplots(1, len(effects), figsize=(4.2 * len(effects), 3.4), squeeze=False)
    for ax, eff in zip(axes[0], effects):
        if eff.categorical:  # a one-hot group: the PD per level, the levels named on the axis
            ax.plot(eff.grid, eff.pd, color="black", marker="o", linestyle="none", label="PD")
            ax.set_xticks(eff.grid, eff.levels, rotation=30 if eff.grid.size > 3 else 0)
            ax.set_xlim(-0.5, eff.grid.size - 0.5)
        else:
            ax.plot(eff.grid, eff.pd, color="black", lw=1.8, label="PD")
        if len(eff.deciles):
            ymin = ax.get_ylim()[0]
            ax.plot(eff.deciles, np.full(len(eff.deciles), ymin), "|", color="0.3", ms=10)
        ax.set_xlabel(eff.feature)
        ax.set_ylabel(with_unit("partial dependence", eff.output, target_unit))
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


def _render_curves(kind: str, features, path: str, title, target_unit, output):
    """The ``pd`` / ``ice`` / ``c_ice`` kinds of :func:`render_figure` from the curves table at ``path``."""
    import dataclasses

    from ..explain.pdp import effect_from_table
    from ..plots.pdp import plot_centered_ice, plot_ice

    curves = read_csv(path, keep_default_na=False, na_values=[""])
    missing = [f for f in features if f not in set(curves["feature"])]
    if missing:
        raise ValueError(f"{path} has no curves for {missing}")
    effects = [effect_from_table(curves, f) for f in features]
    if output is not None:
        effects = [dataclasses.replace(e, output=output) for e in effects]
    if kind == "pd":
        return _pd_only(effects, title, target_unit)
    if kind == "ice":
        return plot_ice(effects, title=title, target_unit=target_unit)
    return plot_centered_ice(effects, title=title, target_unit=target_unit)


def _render_shap(kind: str, entry: Mapping[str, Any], path: str, title, target_unit):
    """The ``shap_*`` kinds of :func:`render_figure` from the SHAP result stored at ``path``."""
    from ..io import read_joblib
    from ..plots import shap as plot_shap

    result = read_joblib(path)
    unit = {"target_unit": target_unit}
    if kind == "shap_bar":
        return plot_shap.plot_shap_bar(result, title=title, **unit)
    if kind == "shap_beeswarm":
        return plot_shap.plot_shap_beeswarm(result, title=title, **unit)
    if kind == "shap_dependence":
        from ..explain.shapley import global_importance

        top = global_importance(result).sort_values("rank")["feature"].head(2).tolist()
        return plot_shap.plot_shap_dependence(result, entry.get("features", top), title=title, **unit)
    if kind.startswith("shap_force_"):
        from ..plots.shap_force import force_rows, plot_shap_force

        return plot_shap_force(result, force_rows(result)[kind.removeprefix("shap_force_")], title=title)
    which = kind.removeprefix("shap_waterfall_")
    return plot_shap.plot_shap_waterfall(result, plot_shap.local_rows(result)[which], title=title, **unit)


def _render_illustration(name: str, sources: Mapping[str, str], title):
    """The ``illustration`` kind of :func:`render_figure`: the figure of a fitted model or a table."""
    from ..plots import illustrations as plot_illustrations

    plot = getattr(plot_illustrations, ILLUSTRATION_PLOTS[name])
    if "model" in sources:
        from ..io import read_joblib

        fig = plot(read_joblib(sources["model"]))
    else:
        fig = plot(read_csv(sources["table"]))
    if title:
        fig.suptitle(title)
    return fig


def render_figure(
    entry: Mapping[str, Any],
    sources: Mapping[str, str],
    *,
    epsilon: float | None = None,
    estimator: str = "permutation",
    loss: str = "squared_error",
    quantity: str = "mr_difference",
    target_unit: str | None = None,
    output: str | None = None,
):
    """Render one thesis figure from stored results.

    Parameters
    ----------
    entry : mapping
        One ``thesis.figures`` entry (``kind``, ``dataset``, ``model``, ``features``,
        ``study``, optional ``title``).
    sources : mapping
        :func:`figure_sources` paths.
    epsilon : float, optional
        ε of the Rashomon set (Rashomon kinds).
    estimator, loss, quantity
        Which model reliance to draw (``model_reliance`` kind).
    target_unit : str, optional
        The dataset's ``target_unit`` (registry) on the effect axes (PD, ICE, c-ICE, PD vs ALE, SHAP;
        :func:`xaipipe.plots.units.with_unit`).
    output : {"predict", "proba", "logit"}, optional
        The explained output of the PD tables (which do not hold it): labels their axes.

    Returns
    -------
    matplotlib.figure.Figure
    """
    kind = entry["kind"]
    title = entry.get("title")
    if kind == "correlation":
        from ..plots.data import plot_correlation

        return plot_correlation(read_csv(sources["correlation"]), title=title)
    if kind == "model_reliance":
        from ..plots.reliance import plot_model_reliance

        table = read_csv(sources["reliance"])
        part = table[(table["estimator"] == estimator) & (table["loss"] == loss)]
        return plot_model_reliance(part, value=quantity, error="se", title=title)
    if kind in ("pd", "ice", "c_ice"):
        return _render_curves(kind, entry["features"], sources["curves"], title, target_unit, output)
    if kind == "pd_vs_ale":
        from ..plots.ale import plot_pd_vs_ale

        table = read_csv(sources["ale"], keep_default_na=False, na_values=[""])
        return plot_pd_vs_ale(
            table, entry["features"], ncols=min(len(entry["features"]), 4), title=title, target_unit=target_unit
        )
    if kind in ("rashomon_member_reliance", "rashomon_rank_heatmap"):
        from ..plots.rashomon import plot_member_reliance, plot_rank_heatmap

        members = read_csv(sources["members"])
        scope = entry.get("scope", "gradient_boosting")
        plot = plot_member_reliance if kind == "rashomon_member_reliance" else plot_rank_heatmap
        return plot(members, scope=scope, epsilon=epsilon, estimator="permutation", quantity="mr_ratio", title=title)
    if kind.startswith("shap_"):
        return _render_shap(kind, entry, sources["shap"], title, target_unit)
    if kind == "response_vs_features":
        from ..io import read_json
        from ..plots.seed000 import plot_response_vs_features

        info = read_json(sources["prepared_info"])
        frame = read_csv(sources["prepared"])
        return plot_response_vs_features(frame, info["target"], features=info["features"], title=title)
    if kind == "importance_before_shap":
        from ..plots.seed000 import plot_importance_before_shap

        return plot_importance_before_shap(
            importance_before_shap(read_csv(sources["split_gain"]), read_csv(sources["reliance"]), loss=loss),
            permutation_std="permutation_importance_std",
            permutation_label=f"permutation importance: MR ratio (test {loss})",
            title=title,
        )
    if kind == "illustration":
        return _render_illustration(entry["illustration"], sources, title)
    raise ValueError(f"unknown figure kind {kind!r}")


def importance_before_shap(
    split_gain: pd.DataFrame, reliance: pd.DataFrame, *, loss: str | None = None
) -> pd.DataFrame:
    """The table of 000 Fig 4.2: each feature's built-in importance (the model's
    ``split_gain`` table) beside its permutation importance (the ``permutation``
    rows of the model-reliance table: ``mr_ratio`` and its ``mr_ratio_std`` over
    repeats) for ``loss`` (the table's only loss when None).

    Returns
    -------
    DataFrame
        ``feature``, ``builtin_importance``, ``permutation_importance``,
        ``permutation_importance_std``; features in the split-gain table's order.

    Raises
    ------
    ValueError
        No permutation rows (of ``loss``), several losses and no ``loss``, or the two
        tables name different features.
    """
    perm = reliance[reliance["estimator"] == "permutation"]
    if loss is not None:
        perm = perm[perm["loss"] == loss]
    if perm.empty:
        raise ValueError(
            f"model-reliance table has no 'permutation' rows (loss {loss!r}; explain.reliance.estimators / losses)"
        )
    if perm["feature"].duplicated().any():
        raise ValueError(f"model-reliance table holds several losses {sorted(set(perm['loss']))}; give loss=")
    a, b = set(split_gain["feature"]), set(perm["feature"])
    if a != b:
        raise ValueError(f"split-gain and model-reliance tables name different features: {sorted(a ^ b)}")
    out = split_gain[["feature", "split_gain"]].rename(columns={"split_gain": "builtin_importance"})
    perm = perm.set_index("feature")
    out["permutation_importance"] = out["feature"].map(perm["mr_ratio"]).to_numpy()
    out["permutation_importance_std"] = out["feature"].map(perm["mr_ratio_std"]).to_numpy()
    return out.reset_index(drop=True)


def latex_table(frame: pd.DataFrame, *, caption: str, label: str, float_format: str = "{:.4f}") -> str:
    """A booktabs LaTeX table (``\\toprule``/``\\midrule``/``\\bottomrule``) of ``frame``."""
    floats = frame.select_dtypes("float").columns
    styler = frame.style.hide(axis="index").format(float_format, subset=floats, na_rep="--")
    return styler.to_latex(
        hrules=True, caption=caption, label=label, position="htbp", column_format="l" + "r" * (frame.shape[1] - 1)
    )


def render_table(
    entry: Mapping[str, Any], sources: Mapping[str, str], reference: Mapping[str, Any], name: str
) -> tuple[pd.DataFrame, str]:
    """One thesis table: reproduced numbers beside the published ones.

    Returns
    -------
    (DataFrame, str)
        The table and its booktabs LaTeX.
    """
    kind = entry["kind"]
    if kind == "test_metrics":
        d = entry["dataset"]
        metrics = read_csv(sources["metrics"])
        metrics = metrics[metrics["dataset"] == d].set_index("model")
        published = {r["model"]: r for r in reference["test_metrics"]["rows"] if r["dataset"] == d}
        rows = []
        for model in entry.get("models", families_for_task("regression")):
            if model not in metrics.index and model not in published:
                continue
            row = {"Model": get_family(model).label if model in FAMILIES else model}
            for metric, label in (("rmse", "RMSE"), ("mae", "MAE"), ("r2", "R$^2$")):
                row[label] = metrics.loc[model, metric] if model in metrics.index else np.nan
                row[f"{label} (thesis)"] = published[model][metric] if model in published else np.nan
            rows.append(row)
        table = pd.DataFrame(rows)
        caption = entry.get("caption", f"Test-set metrics, {d} (reproduced and as published)")
    elif kind == "abalone_top15":
        comp = read_csv(sources["comparison"])
        table = pd.DataFrame(
            {
                "Rank": comp["rank"],
                "RMSE": comp["our_rmse"],
                "Shrinkage": comp["our_learning_rate"],
                "Loss": comp["our_loss"],
                "Depth": comp["our_max_depth"],
                "Trees": comp["our_n_estimators"],
                "RMSE (thesis)": comp["pub_rmse"],
                "Loss (thesis)": comp["pub_loss"],
                "Depth (thesis)": comp["pub_max_depth"],
                "Trees (thesis)": comp["pub_n_estimators"],
            }
        )
        caption = entry.get("caption", "The 15 best of 324 gradient boosting models on Abalone by 5-fold CV RMSE")
    else:
        raise ValueError(f"unknown table kind {kind!r}")
    return table, latex_table(table, caption=caption, label=f"tab:{name}")
