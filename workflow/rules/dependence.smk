# Effects and interactions under dependent features (issue 35; docs/methods_dependent_features.md):
# ALE beside PD, Friedman's H-statistic, the SHAP interaction summary; per dataset x model, then
# aggregated tables. (Conditional and grouped MR are rows of model_reliance.csv: rule model_reliance.)


rule ale:
    """ALE of every variable beside its PD on the same grid, and the second-order ALE of the 2-D PD's pair (largest H²; test rows)."""
    input:
        table=rules.prepare.output.table,
        info=rules.prepare.output.info,
        split=rules.split.output.split,
        model=rules.fit.output.model,
        reliance=rules.model_reliance.output.reliance,
        pairs=rules.pd_ice.output.pairs,
    output:
        ale=P("ale"),
        ale_2d=P("ale_2d"),
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
        settings=lambda w: ALE_SETTINGS[task_of(w.dataset)].to_params(),
    script:
        "../scripts/ale.py"


rule h_statistic:
    """Friedman's H² of every variable and of the pairs of the top-k variables by MR (row subsample, bootstrap SE)."""
    input:
        table=rules.prepare.output.table,
        info=rules.prepare.output.info,
        split=rules.split.output.split,
        model=rules.fit.output.model,
        reliance=rules.model_reliance.output.reliance,
    output:
        table=P("h_statistic"),
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
        settings=lambda w: H_STATISTIC_SETTINGS[
            (task_of(w.dataset), w.family)
        ].to_params(),
    script:
        "../scripts/h_statistic.py"


rule dependence_figures:
    """PD beside ALE of the top variables, the second-order ALE, and Friedman's H² (total, pairs) with ±2 SE."""
    input:
        style=STYLE_FILE,
        ale=rules.ale.output.ale,
        ale_2d=rules.ale.output.ale_2d,
        h_statistic=rules.h_statistic.output.table,
        # the twins' coverage table where the audit has run (docs/coverage.md): the H² captions
        twins=twins_table_if_run,
    output:
        **figure_outputs("dependence_figures"),
    log:
        f"{LOGS}/figures/dependence/{{dataset}}/{{family}}.log",
    benchmark:
        f"{BENCH}/dependence_figures/{{dataset}}/{{family}}.tsv"
    localrule: True
    conda:
        "../../envs/report.yaml"
    params:
        figure_features=config["explain"]["ale"]["figure_features"],
        max_display=config["explain"]["interactions"]["max_display"],
        target_unit=target_unit,
        missing_note=missing_note,
    script:
        "../scripts/dependence_figures.py"


rule shap_interaction_summary:
    """Mean |SHAP interaction value| per pair (matrix and strongest pairs) from the interaction values of the SHAP job, and their figures."""
    input:
        style=STYLE_FILE,
        interactions=rules.shap.output.interactions,
        meta=rules.shap.output.meta,
    output:
        **figure_outputs("shap_interaction_summary"),
        pairs=P("shap_interaction_summary"),
        matrix=P("shap_interaction_matrix"),
    log:
        f"{LOGS}/figures/shap_interactions/{{dataset}}/{{family}}.log",
    benchmark:
        f"{BENCH}/shap_interaction_summary/{{dataset}}/{{family}}.tsv"
    localrule: True
    conda:
        "../../envs/explain.yaml"
    params:
        max_display=config["explain"]["interactions"]["max_display"],
        figure_class=config["explain"]["figure_class"],
        target_unit=target_unit,
    script:
        "../scripts/shap_interaction_summary.py"


rule regional_effects:
    """Regional PD of the variables whose ICE curves fan out most: the rows split by conditions on the other variables (effector), the heterogeneity each split explains (test rows)."""
    input:
        table=rules.prepare.output.table,
        info=rules.prepare.output.info,
        split=rules.split.output.split,
        model=rules.fit.output.model,
    output:
        heterogeneity=P("regional_heterogeneity"),
        regions=P("regional_effects"),
        curves=P("regional_curves"),
    log:
        f"{LOGS}/explain/regional_effects/{{dataset}}/{{family}}.log",
    benchmark:
        f"{BENCH}/regional_effects/{{dataset}}/{{family}}.tsv"
    conda:
        "../../envs/explain.yaml"
    resources:
        mem_mb=4000,
        runtime=30,
    params:
        settings=REGIONAL_SETTINGS.to_params(),
    script:
        "../scripts/regional_effects.py"


rule regional_figures:
    """The regional PD of each split variable: one curve per region, the split rule and the heterogeneity explained."""
    input:
        style=STYLE_FILE,
        regions=rules.regional_effects.output.regions,
        curves=rules.regional_effects.output.curves,
    output:
        **figure_outputs("regional_figures"),
    log:
        f"{LOGS}/figures/regional/{{dataset}}/{{family}}.log",
    benchmark:
        f"{BENCH}/regional_figures/{{dataset}}/{{family}}.tsv"
    localrule: True
    conda:
        "../../envs/report.yaml"
    params:
        target_unit=target_unit,
    script:
        "../scripts/regional_figures.py"


rule regional_effects_table:
    """All datasets' and models' regions in one table."""
    input:
        tables=regional_models("regional_effects"),
    output:
        table=report(
            P("table", name="regional_effects"),
            caption="../report/tables.rst",
            category="tables",
            labels={"table": "regional effects"},
        ),
    log:
        f"{LOGS}/tables/regional_effects.log",
    benchmark:
        f"{BENCH}/regional_effects_table.tsv"
    localrule: True
    conda:
        "../../envs/models.yaml"
    script:
        "../scripts/concat_tables.py"


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
