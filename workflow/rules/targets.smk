# Every output of the default target (`snakemake` / `rule all`), assembled in one place.
# The manifest rule waits for all of them. Figures: every figure the catalog
# (src/xaipipe/plots/catalog.py) puts in the default target (workflow/rules/figures.smk).

ALL_TARGETS = [
    # rows read / dropped / used, missing values and imputed cells of every dataset (issue 43)
    P("table", name="data_summary"),
    P("table", name="test_metrics"),
    P("table", name="thesis_comparison"),
    P("manifest"),
    *[path for group in GROUPS for path in figure_targets(group)],
]
if OLS_DATASETS:
    ALL_TARGETS.append(P("table", name="ols_inference"))

# explain: every fitted model
ALL_TARGETS += [
    P("table", name="model_reliance"),
    P("table", name="ranking_agreement"),
    # the large-data policies of every dataset: threshold, applied or not, rows used (issue 34)
    P("table", name="large_data"),
]

# under dependent features and interactions (issue 35)
ALL_TARGETS.append(P("table", name="h_statistic"))

# regional effects of the fitted models of explain.regional.families (issue 53; figures: the catalog)
if any(regional_families(d) for d in DATASETS):
    ALL_TARGETS.append(P("table", name="regional_effects"))

# an EBM's own terms and their bagged error bars (issue 53; its figures: the catalog)
if any(term_families(d) for d in DATASETS):
    ALL_TARGETS.append(P("table", name="ebm_terms"))

# SAGE of the fitted model of every family in explain.sage.families (issue 45; its figures: catalog)
if any(sage_families(d) for d in DATASETS):
    ALL_TARGETS.append(P("table", name="sage"))

# rashomon: sets and MCR of every dataset, bootstrap, the Table 4.1 study
ALL_TARGETS += [
    P("table", name="mcr"),
    *[P("mcr_path", dataset=d) for d in DATASETS],
    # predictive multiplicity of every scope (issue 35)
    P("table", name="multiplicity"),
    # the Rashomon explorer: every dataset's set in one static page (issue 44)
    P("explorer"),
    # the consensus order over every Rashomon set (issue 45; its Hasse diagrams: the figure catalog)
    P("table", name="consensus"),
    *[P("consensus", dataset=d) for d in DATASETS],
]
# the exact sparse-tree Rashomon sets of the binary classification datasets (issue 53; figures: the catalog)
if TREEFARMS_DATASETS:
    ALL_TARGETS.append(P("table", name="treefarms"))
# Rashomon prediction intervals of the regression datasets (issue 53; their figures: the catalog)
if PREDICTION_INTERVAL_DATASETS:
    ALL_TARGETS.append(P("table", name="prediction_intervals"))
if STUDIES:
    ALL_TARGETS.append(P("study_comparison", dataset="abalone_study"))

# the theses' numbered figures and tables
ALL_TARGETS += [P("thesis_figure", name=name, ext="pdf") for name in THESIS_FIGURES]
ALL_TARGETS += [P("thesis_table", name=name, ext="tex") for name in THESIS_TABLES]

# model comparison (seed 003) and ROC / PR curves (seed 004) of every dataset; the seed-003 rerun
ALL_TARGETS += [
    P("table", name="model_comparison"),
    P("table", name="test_loss"),
]
if OLS_DATASETS:
    ALL_TARGETS.append(P("table", name="squared_terms"))
if COMPARISON["seed003"]["enabled"]:
    ALL_TARGETS.append(P("seed003", name="seed003_comparison"))

# seed 000 ch. 4: the interactive force plot of the model(s) whose force plots the thesis maps
ALL_TARGETS += sorted(
    {
        P("shap_force_html", dataset=e["dataset"], family=e["model"])
        for e in THESIS_FIGURES.values()
        if e["kind"].startswith("shap_force_")
    }
)

# logistic-regression coefficient table (odds ratios) of the classification datasets
if any(task_of(d) == "classification" for d in DATASETS):
    ALL_TARGETS.append(P("table", name="logit_inference"))

# KernelSHAP vs TreeSHAP and LIME vs SHAP on the configured model, when it is run
for _key, _path in (
    ("shap_check", "kernel_vs_tree_shap"),
    ("lime", "lime_shap_summary"),
):
    _cfg = config["explain"][_key]
    if (
        _cfg["enabled"]
        and _cfg["dataset"] in DATASETS
        and _cfg["family"] in families_of(_cfg["dataset"])
    ):
        ALL_TARGETS.append(P(_path, dataset=_cfg["dataset"], family=_cfg["family"]))

# simulated data: the pipeline's estimates beside the DGP's truth (when a simulated dataset runs)
if SIMULATED:
    ALL_TARGETS.append(P("table", name="simulation_truth"))
