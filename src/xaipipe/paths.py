"""Where every result of a version lives: one catalog for the Snakemake rules and the report.

Templates are relative to ``results/<version>/`` and use the workflow's wildcard
names (``{dataset}``, ``{family}``, ``{name}``, ``{kind}``, ``{ext}``, ``{shard}``; a study such
as ``abalone_study`` takes the ``{dataset}`` slot of the Rashomon paths).
:func:`result_path` fills the wildcards it is given and leaves the others for
Snakemake; ``workflow/rules/common.smk`` builds every rule's paths with it and
:mod:`xaipipe.report.thesis` finds the files a thesis figure reads with it, so a
path is typed once. ``results/README.md`` describes the layout.
"""

from __future__ import annotations

import string

__all__ = ["PATHS", "result_path"]

PATHS: dict[str, str] = {
    # data: canonical table -> prepared table + correlation -> split
    "canonical": "data/{dataset}/canonical.csv",
    "canonical_sidecar": "data/{dataset}/canonical.json",
    "prepared": "data/{dataset}/prepared.csv",
    "prepared_info": "data/{dataset}/prepared.json",
    "correlation": "data/{dataset}/correlation.csv",
    "split": "data/{dataset}/split.json",
    # the split rule's checks of the data before any fit (the logit table's separation, rare levels)
    "data_checks": "data/{dataset}/checks.json",
    # models: CV of every family's grid -> best configuration -> refit -> test metrics
    "cv": "models/{dataset}/cv/{family}.csv",
    "cv_summary": "models/{dataset}/cv/{family}_summary.csv",
    "cv_shard": "models/{dataset}/cv/shards/{family}_{shard}.joblib",
    "best": "models/{dataset}/best/{family}.json",
    "model": "models/{dataset}/fitted/{family}.joblib",
    "test": "models/{dataset}/test/{family}.json",
    "predictions": "models/{dataset}/test/{family}_predictions.csv",
    "dataset_test_metrics": "models/{dataset}/test_metrics.csv",
    "ols": "models/{dataset}/ols_inference.csv",
    "logit": "models/{dataset}/logit_inference.csv",
    # comparison: paired bootstrap of the families' test losses (seed 003), per dataset; the seed-003 rerun
    "comparison_pairs": "comparison/{dataset}/pairs.csv",
    "comparison_test_loss": "comparison/{dataset}/test_loss.csv",
    "squared_terms": "comparison/{dataset}/squared_terms.csv",
    "comparison_figure": "figures/{dataset}/comparison/{kind}.{ext}",
    "seed003": "studies/seed003/{name}.csv",
    "seed003_figure": "studies/seed003/{kind}.{ext}",
    # explain: model reliance, PD/ICE, SHAP, learner-PD/PFI of every fitted model
    "model_reliance": "explain/{dataset}/{family}/model_reliance.csv",
    "split_gain": "explain/{dataset}/{family}/split_gain.csv",
    "pd_ice": "explain/{dataset}/{family}/pd_ice.csv",
    "pd_2d": "explain/{dataset}/{family}/pd_2d.csv",
    "shap_values": "explain/{dataset}/{family}/shap_values.csv",
    "shap_rows": "explain/{dataset}/{family}/shap_rows.csv",
    "shap_importance": "explain/{dataset}/{family}/shap_importance.csv",
    "shap_interactions": "explain/{dataset}/{family}/shap_interactions.csv",
    "shap_meta": "explain/{dataset}/{family}/shap_meta.json",
    "shap_result": "explain/{dataset}/{family}/shap_result.joblib",
    "kernel_vs_tree_shap": "explain/{dataset}/{family}/kernel_vs_tree_shap.csv",
    "kernel_vs_tree_shap_by_feature": "explain/{dataset}/{family}/kernel_vs_tree_shap_by_feature.csv",
    "lime_shap": "explain/{dataset}/{family}/lime_shap.csv",
    "lime_shap_summary": "explain/{dataset}/{family}/lime_shap_summary.csv",
    "shap_force_html": "explain/{dataset}/{family}/shap_force.html",
    "learner_pd": "explain/{dataset}/{family}/learner_pd.csv",
    "learner_pfi": "explain/{dataset}/{family}/learner_pfi.csv",
    "learner_pd_refits": "explain/{dataset}/{family}/learner_pd_refits.csv",
    "learner_pfi_refits": "explain/{dataset}/{family}/learner_pfi_refits.csv",
    # learner-SHAP importance and learner-ALE from the same refits (issue 45)
    "learner_shap": "explain/{dataset}/{family}/learner_shap.csv",
    "learner_ale": "explain/{dataset}/{family}/learner_ale.csv",
    "learner_shap_refits": "explain/{dataset}/{family}/learner_shap_refits.csv",
    "learner_ale_refits": "explain/{dataset}/{family}/learner_ale_refits.csv",
    # under dependent features and interactions (issue 35): ALE beside PD, H-statistic, SHAP interaction summary
    "ale": "explain/{dataset}/{family}/ale.csv",
    "ale_2d": "explain/{dataset}/{family}/ale_2d.csv",
    "h_statistic": "explain/{dataset}/{family}/h_statistic.csv",
    # an EBM's own explanation: its terms' importances and shapes with the bagged error bars (issue 53)
    "ebm_terms": "explain/{dataset}/{family}/ebm_terms.csv",
    "ebm_shapes": "explain/{dataset}/{family}/ebm_shapes.csv",
    # regional effects: the regional PD of the most heterogeneous variables (issue 53)
    "regional_heterogeneity": "explain/{dataset}/{family}/regional_heterogeneity.csv",
    "regional_effects": "explain/{dataset}/{family}/regional_effects.csv",
    "regional_curves": "explain/{dataset}/{family}/regional_curves.csv",
    "shap_interaction_summary": "explain/{dataset}/{family}/shap_interaction_summary.csv",
    "shap_interaction_matrix": "explain/{dataset}/{family}/shap_interaction_matrix.csv",
    # SAGE (issue 45): marginal SAGE of the fitted model of every family in explain.sage.families
    "sage": "explain/{dataset}/{family}/sage.csv",
    "importance_rankings": "explain/{dataset}/importance_rankings.csv",
    "ranking_agreement": "explain/{dataset}/ranking_agreement.csv",
    # the large-data policies of the dataset: threshold, applied or not, rows used (issue 34)
    "large_data": "explain/{dataset}/large_data.csv",
    # rashomon: sets, member MR, MCR, PD envelope; bootstrap (RID); the Table 4.1 study
    "rashomon_sets": "rashomon/{dataset}/sets.csv",
    "rashomon_members": "rashomon/{dataset}/members.csv",
    "mcr": "rashomon/{dataset}/mcr.csv",
    "mcr_path": "rashomon/{dataset}/mcr_path.csv",
    "rashomon_refit": "rashomon/{dataset}/refit/{family}.joblib",
    # the members' test predictions and the predictive multiplicity of every scope (issue 35)
    "member_predictions": "rashomon/{dataset}/member_predictions.npy",
    "member_predictions_index": "rashomon/{dataset}/member_predictions_index.csv",
    "multiplicity": "rashomon/{dataset}/multiplicity.csv",
    "multiplicity_path": "rashomon/{dataset}/multiplicity_path.csv",
    "multiplicity_rows": "rashomon/{dataset}/multiplicity_rows.csv",
    "linear_exact": "rashomon/{dataset}/linear_exact.csv",
    # Rashomon prediction intervals of a regression dataset: per scope and eps, per test row (issue 53)
    "prediction_intervals": "rashomon/{dataset}/prediction_intervals.csv",
    "prediction_interval_rows": "rashomon/{dataset}/prediction_interval_rows.csv",
    # the exact sparse-tree Rashomon set of a binary classification dataset (TreeFARMS; issue 53)
    "treefarms": "rashomon/{dataset}/treefarms.csv",
    "treefarms_mcr": "rashomon/{dataset}/treefarms_mcr.csv",
    "treefarms_members": "rashomon/{dataset}/treefarms_members.csv",
    "treefarms_thresholds": "rashomon/{dataset}/treefarms_thresholds.csv",
    "treefarms_timbertrek": "rashomon/{dataset}/treefarms_timbertrek.json",
    # the consensus partial order of the variables over every Rashomon set (issue 45)
    "consensus": "rashomon/{dataset}/consensus.csv",
    "consensus_summary": "rashomon/{dataset}/consensus_summary.csv",
    "pd_envelope": "rashomon/{dataset}/pd_envelope.csv",
    "pd_curves": "rashomon/{dataset}/pd_curves.csv",
    # PD and ALE of every member of the figure scope's largest set, every variable (issue 44: explorer)
    "member_effects": "rashomon/{dataset}/member_effects.csv",
    "bootstrap_models": "rashomon/{dataset}/bootstrap_models.csv",
    "bootstrap_reliance": "rashomon/{dataset}/bootstrap_reliance.csv",
    "bootstrap_sizes": "rashomon/{dataset}/bootstrap_sizes.csv",
    "bootstrap_mcr": "rashomon/{dataset}/bootstrap_mcr.csv",
    "rid_summary": "rashomon/{dataset}/rid_summary.csv",
    "bootstrap_mcr_summary": "rashomon/{dataset}/bootstrap_mcr_summary.csv",
    "study_cv_summary": "rashomon/{dataset}/cv_summary.csv",
    # shards of split jobs (intermediate, kept so that a killed run resumes): Table 4.1 CV, bootstrap
    "study_cv_shard": "rashomon/{dataset}/shards/cv_{shard}.csv",
    "bootstrap_shard": "rashomon/{dataset}/shards/bootstrap_{shard}.joblib",
    "study_comparison": "rashomon/{dataset}/table_4_1.csv",
    "study_pattern": "rashomon/{dataset}/ranking_pattern.csv",
    # illustrations of the thesis' chapters 2-3 (seed 001), drawn by the thesis_figure rule
    "illustration": "illustrations/{illustration}.csv",
    "illustration_model": "illustrations/{illustration}.joblib",
    # tables of all datasets
    "table": "tables/{name}.csv",
    # the coverage audit on the twins (issue 51): the twin, its truths, the replicate shards, the coverage
    "twin": "twins/{dataset}/twin.joblib",
    "twin_design": "twins/{dataset}/design.json",
    "twin_truth": "twins/{dataset}/truth.csv",
    "twin_learner_truth": "twins/{dataset}/learner_truth.csv",
    "twin_shard": "twins/{dataset}/shards/replicates_{shard}.csv",
    "twin_importance_truth": "twins/{dataset}/importance_truth.csv",
    "twin_importance_shard": "twins/{dataset}/shards/importance_{shard}.csv",
    "twin_repetitions": "twins/{dataset}/repetitions.csv",
    "twin_coverage": "twins/{dataset}/coverage.csv",
    # figures: per dataset, per model, per Rashomon model class, per study, the coverage audit; the theses' numbering
    "dataset_figure": "figures/{dataset}/{kind}.{ext}",
    "model_figure": "figures/{dataset}/{family}/{kind}.{ext}",
    "rashomon_figure": "figures/{dataset}/rashomon/{kind}.{ext}",
    "study_figure": "figures/{dataset}/{kind}.{ext}",
    "coverage_figure": "figures/coverage/{kind}.{ext}",
    "thesis_figure": "thesis/{name}.{ext}",
    "thesis_table": "thesis/{name}.{ext}",
    # the Rashomon explorer (issue 44): one static page of every dataset; the PD / ALE coverage rates
    "explorer": "explorer/index.html",
    "explorer_coverage": "explorer/coverage.csv",
    # provenance, version diffs, profile
    "manifest": "manifest.json",
    "diff": "diff/{name}.csv",
    "profile": "profile/{name}.{ext}",
}


def result_path(key: str, results: str, /, **wildcards) -> str:
    """The path of result ``key`` under ``results`` (``results/<version>``).

    Wildcards given as keywords are filled in; the others stay as ``{wildcard}``
    for Snakemake.

    Raises
    ------
    KeyError
        Unknown ``key``, or a keyword that is not a wildcard of its template.
    """
    try:
        template = PATHS[key]
    except KeyError:
        raise KeyError(f"unknown result {key!r}; known: {sorted(PATHS)}") from None
    fields = {f for _, f, _, _ in string.Formatter().parse(template) if f}
    extra = set(wildcards) - fields
    if extra:
        raise KeyError(f"result {key!r} ({template}) has no wildcard(s) {sorted(extra)}")
    values = {f: wildcards.get(f, "{" + f + "}") for f in fields}
    return f"{results}/{template.format(**values)}"
