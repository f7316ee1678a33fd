# Effects and interactions under dependent features (issue 35; docs/methods_dependent_features.md):
# ALE beside PD, Friedman's H-statistic, the SHAP interaction summary; per dataset x model, then
# aggregated tables. (Conditional and grouped MR are rows of model_reliance.csv: rule model_reliance.)


def shap_interaction_families(dataset):
    """Families of `dataset` whose SHAP job computes interaction values (explain.shap.interactions and
    the XGBoost algorithm: xaipipe.explain.shapley.shap_tables)."""
    if not config["explain"]["shap"]["interactions"]:
        return []
    out = []
    for f in families_of(dataset):
        algorithm = shap_algorithm(f, config["explain"]["shap"]["algorithm"])
        if algorithm == "auto":
            algorithm = get_family(f).shap_algorithm
        if algorithm == "xgboost_pred_contribs":
            out.append(f)
    return out


rule ale:
    """ALE of every variable beside its PD on the same grid, the second-order ALE of the 2-D PD's pair, and their figures."""
    input:
        style=STYLE_FILE,
        table=rules.prepare.output.table,
        info=rules.prepare.output.info,
        split=rules.split.output.split,
        model=rules.fit.output.model,
        reliance=rules.model_reliance.output.reliance,
        pairs=rules.pd_ice.output.pairs,
    output:
        ale=P("ale"),
        ale_2d=P("ale_2d"),
        ale_pdf=P("model_figure", kind="ale", ext="pdf"),
        ale_png=report(
            P("model_figure", kind="ale", ext="png"),
            caption="../report/ale.rst",
            category="{dataset}",
            subcategory="PD / ICE",
            labels={"model": "{family}", "figure": "PD and ALE"},
        ),
        ale_2d_pdf=P("model_figure", kind="ale_2d", ext="pdf"),
        ale_2d_png=report(
            P("model_figure", kind="ale_2d", ext="png"),
            caption="../report/ale_2d.rst",
            category="{dataset}",
            subcategory="PD / ICE",
            labels={"model": "{family}", "figure": "second-order ALE"},
        ),
    log:
        f"{LOGS}/explain/ale/{{dataset}}/{{family}}.log",
    benchmark:
        f"{BENCH}/ale/{{dataset}}/{{family}}.tsv"
    conda:
        "../../envs/explain.yaml"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=30,
    params:
        ale=config["explain"]["ale"],
        output=lambda w: (
            "predict"
            if task_of(w.dataset) == "regression"
            else config["explain"]["pd"]["classification_output"]
        ),
        max_batch_rows=config["explain"]["pd"]["max_batch_rows"],
        ranking=config["explain"]["reliance"]["ranking"],
        loss=lambda w: config["explain"]["reliance"]["losses"][task_of(w.dataset)][0],
    script:
        "../scripts/ale.py"


rule h_statistic:
    """Friedman's H² of every variable and of the pairs of the top-k variables by MR (row subsample, bootstrap SE), and its figures."""
    input:
        style=STYLE_FILE,
        table=rules.prepare.output.table,
        info=rules.prepare.output.info,
        split=rules.split.output.split,
        model=rules.fit.output.model,
        reliance=rules.model_reliance.output.reliance,
    output:
        table=P("h_statistic"),
        total_pdf=P("model_figure", kind="h_statistic", ext="pdf"),
        total_png=report(
            P("model_figure", kind="h_statistic", ext="png"),
            caption="../report/h_statistic.rst",
            category="{dataset}",
            subcategory="interactions",
            labels={"model": "{family}", "figure": "H-statistic (total)"},
        ),
        pairs_pdf=P("model_figure", kind="h_statistic_pairs", ext="pdf"),
        pairs_png=report(
            P("model_figure", kind="h_statistic_pairs", ext="png"),
            caption="../report/h_statistic.rst",
            category="{dataset}",
            subcategory="interactions",
            labels={"model": "{family}", "figure": "H-statistic (pairs)"},
        ),
    log:
        f"{LOGS}/explain/h_statistic/{{dataset}}/{{family}}.log",
    benchmark:
        f"{BENCH}/h_statistic/{{dataset}}/{{family}}.tsv"
    conda:
        "../../envs/explain.yaml"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=30,
    params:
        interactions=config["explain"]["interactions"],
        output=lambda w: (
            "predict"
            if task_of(w.dataset) == "regression"
            else config["explain"]["pd"]["classification_output"]
        ),
        max_batch_rows=config["explain"]["pd"]["max_batch_rows"],
        ranking=config["explain"]["reliance"]["ranking"],
        loss=lambda w: config["explain"]["reliance"]["losses"][task_of(w.dataset)][0],
        seed=config["seed"],
    script:
        "../scripts/h_statistic.py"


rule shap_interaction_summary:
    """Mean |SHAP interaction value| per pair (matrix and strongest pairs) from the interaction values of the SHAP job, and their figures."""
    input:
        style=STYLE_FILE,
        interactions=rules.shap.output.interactions,
        meta=rules.shap.output.meta,
    output:
        pairs=P("shap_interaction_summary"),
        matrix=P("shap_interaction_matrix"),
        matrix_pdf=P("model_figure", kind="shap_interaction_matrix", ext="pdf"),
        matrix_png=report(
            P("model_figure", kind="shap_interaction_matrix", ext="png"),
            caption="../report/shap_interactions.rst",
            category="{dataset}",
            subcategory="interactions",
            labels={"model": "{family}", "figure": "SHAP interaction matrix"},
        ),
        summary_pdf=P("model_figure", kind="shap_interaction_summary", ext="pdf"),
        summary_png=report(
            P("model_figure", kind="shap_interaction_summary", ext="png"),
            caption="../report/shap_interactions.rst",
            category="{dataset}",
            subcategory="interactions",
            labels={"model": "{family}", "figure": "SHAP interaction pairs"},
        ),
    log:
        f"{LOGS}/figures/shap_interactions/{{dataset}}/{{family}}.log",
    benchmark:
        f"{BENCH}/shap_interaction_summary/{{dataset}}/{{family}}.tsv"
    localrule: True
    conda:
        "../../envs/explain.yaml"
    params:
        max_display=config["explain"]["interactions"]["max_display"],
    script:
        "../scripts/shap_interaction_summary.py"


rule h_statistic_table:
    """All datasets' and models' H-statistics in one table."""
    input:
        tables=per_model("h_statistic"),
    output:
        table=report(
            P("table", name="h_statistic"),
            caption="../report/tables.rst",
            category="tables",
            labels={"table": "H-statistic"},
        ),
    log:
        f"{LOGS}/tables/h_statistic.log",
    benchmark:
        f"{BENCH}/h_statistic_table.tsv"
    localrule: True
    conda:
        "../../envs/models.yaml"
    script:
        "../scripts/concat_tables.py"
