# Explain: model reliance (three estimators) + split gain, PD / ICE / c-ICE / d-ICE,
# SHAP values, learner-PD/PFI; per dataset x model, then aggregated tables.


rule model_reliance:
    """Model reliance (permutation, e_divide, e_switch; Fisher et al. 2019) on the test set, and split gain."""
    input:
        table=rules.prepare.output.table,
        info=rules.prepare.output.info,
        split=rules.split.output.split,
        model=rules.fit.output.model,
    output:
        reliance=P("model_reliance"),
        split_gain=P("split_gain"),
    log:
        f"{LOGS}/explain/model_reliance/{{dataset}}/{{family}}.log",
    benchmark:
        f"{BENCH}/model_reliance/{{dataset}}/{{family}}.tsv"
    conda:
        "../../envs/explain.yaml"
    threads: config["threads"]["model_reliance"]
    resources:
        mem_mb=4000,
        runtime=30,
    params:
        settings=lambda w: RELIANCE_SETTINGS[task_of(w.dataset)].to_params(),
    script:
        "../scripts/model_reliance.py"


rule pd_ice:
    """PD, ICE, c-ICE, d-ICE of the top-k variables by MR and the 2-D PD of the pair of largest H² (test rows)."""
    input:
        table=rules.prepare.output.table,
        info=rules.prepare.output.info,
        split=rules.split.output.split,
        model=rules.fit.output.model,
        reliance=rules.model_reliance.output.reliance,
        # the 2-D PD's pair: the largest H² among the pairs of the top variables by MR
        h_statistic=P("h_statistic"),  # rule h_statistic (dependence.smk, included after this file)
    output:
        curves=P("pd_ice"),
        pairs=P("pd_2d"),
    log:
        f"{LOGS}/explain/pd_ice/{{dataset}}/{{family}}.log",
    benchmark:
        f"{BENCH}/pd_ice/{{dataset}}/{{family}}.tsv"
    conda:
        "../../envs/explain.yaml"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=30,
    params:
        settings=lambda w: PD_ICE_SETTINGS[task_of(w.dataset)].to_params(),
        extra=lambda w: thesis_pd_features(config["thesis"], w.dataset, w.family),
    script:
        "../scripts/pd_ice.py"


rule reliance_figures:
    """MR bars with uncertainty (thesis Figs 5.2, 5.5, 5.8), MR beside split gain, marginal vs conditional vs grouped MR."""
    input:
        style=STYLE_FILE,
        reliance=rules.model_reliance.output.reliance,
        split_gain=rules.model_reliance.output.split_gain,
        twins=twins_table_if_run,
    output:
        **figure_outputs("reliance_figures"),
    log:
        f"{LOGS}/figures/reliance/{{dataset}}/{{family}}.log",
    benchmark:
        f"{BENCH}/reliance_figures/{{dataset}}/{{family}}.tsv"
    localrule: True
    conda:
        "../../envs/report.yaml"
    params:
        ranking=config["explain"]["reliance"]["ranking"],
        loss=lambda w: config["explain"]["reliance"]["losses"][task_of(w.dataset)][0],
        missing_note=missing_note,
    script:
        "../scripts/reliance_figures.py"


rule pd_figures:
    """ICE + PD with decile rug (Figs 4.3-4.5, 5.3, 5.6, 5.9), c-ICE, d-ICE and the 2-D PD."""
    input:
        style=STYLE_FILE,
        curves=rules.pd_ice.output.curves,
        pairs=rules.pd_ice.output.pairs,
    output:
        **figure_outputs("pd_figures"),
    log:
        f"{LOGS}/figures/pd/{{dataset}}/{{family}}.log",
    benchmark:
        f"{BENCH}/pd_figures/{{dataset}}/{{family}}.tsv"
    localrule: True
    conda:
        "../../envs/report.yaml"
    params:
        figure_class=config["explain"]["figure_class"],
        target_unit=target_unit,
        output=lambda w: PD_ICE_SETTINGS[task_of(w.dataset)].output(task_of(w.dataset)),
        missing_note=missing_note,
    script:
        "../scripts/pd_figures.py"


rule shap:
    """SHAP values of the test rows (exact TreeSHAP for trees, linear SHAP, permutation SHAP otherwise)."""
    input:
        table=rules.prepare.output.table,
        info=rules.prepare.output.info,
        split=rules.split.output.split,
        model=rules.fit.output.model,
    output:
        values=P("shap_values"),
        rows=P("shap_rows"),
        importance=P("shap_importance"),
        interactions=P("shap_interactions"),
        meta=P("shap_meta"),
        result=P("shap_result"),
    log:
        f"{LOGS}/explain/shap/{{dataset}}/{{family}}.log",
    benchmark:
        f"{BENCH}/shap/{{dataset}}/{{family}}.tsv"
    conda:
        "../../envs/explain.yaml"
    threads: config["threads"]["shap"]
    resources:
        mem_mb=4000,
        runtime=60,
    params:
        settings=lambda w: SHAP_SETTINGS[w.family].to_params(),
    script:
        "../scripts/shap_values.py"


rule shap_figures:
    """SHAP bar, beeswarm, dependence (coloured by the strongest interaction), waterfalls (000 Figs 4.3-4.8) and the main effect vs interaction of the strongest SHAP pair."""
    input:
        style=STYLE_FILE,
        result=rules.shap.output.result,
    output:
        **figure_outputs("shap_figures"),
    log:
        f"{LOGS}/figures/shap/{{dataset}}/{{family}}.log",
    benchmark:
        f"{BENCH}/shap_figures/{{dataset}}/{{family}}.tsv"
    localrule: True
    conda:
        "../../envs/explain.yaml"
    params:
        top_k=config["explain"]["pd"]["top_k"],
        figure_class=config["explain"]["figure_class"],
        target_unit=target_unit,
        missing_note=missing_note,
    script:
        "../scripts/shap_figures.py"


rule shap_force_html:
    """Interactive stacked force plot of every explained test row (000 ch. 4), self-contained HTML."""
    input:
        result=rules.shap.output.result,
    output:
        html=report(
            P("shap_force_html"),
            caption="../report/shap_force.rst",
            category="{dataset}",
            subcategory="SHAP",
            labels={"model": "{family}", "figure": "SHAP force plot (interactive)"},
        ),
    log:
        f"{LOGS}/figures/shap_force_html/{{dataset}}/{{family}}.log",
    benchmark:
        f"{BENCH}/shap_force_html/{{dataset}}/{{family}}.tsv"
    localrule: True
    conda:
        "../../envs/explain.yaml"
    params:
        seed=config["seed"],
        figure_class=config["explain"]["figure_class"],
    script:
        "../scripts/shap_force_html.py"


rule shap_check:
    """KernelSHAP against exact TreeSHAP on a seeded sample of test rows, by number of coalitions."""
    input:
        table=rules.prepare.output.table,
        info=rules.prepare.output.info,
        split=rules.split.output.split,
        model=rules.fit.output.model,
    output:
        summary=report(
            P("kernel_vs_tree_shap"),
            caption="../report/tables.rst",
            category="{dataset}",
            subcategory="SHAP",
            labels={"model": "{family}", "table": "KernelSHAP vs TreeSHAP"},
        ),
        by_feature=P("kernel_vs_tree_shap_by_feature"),
    log:
        f"{LOGS}/explain/shap_check/{{dataset}}/{{family}}.log",
    benchmark:
        f"{BENCH}/shap_check/{{dataset}}/{{family}}.tsv"
    conda:
        "../../envs/explain.yaml"
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        check=config["explain"]["shap_check"],
        seed=config["seed"],
        figure_class=config["explain"]["figure_class"],
    script:
        "../scripts/shap_check.py"


rule lime:
    """LIME beside SHAP: the force-plot rows and a seeded sample of test rows; table and figure."""
    input:
        style=STYLE_FILE,
        table=rules.prepare.output.table,
        info=rules.prepare.output.info,
        split=rules.split.output.split,
        model=rules.fit.output.model,
        shap=rules.shap.output.result,
    output:
        **figure_outputs("lime"),
        comparison=P("lime_shap"),
        summary=report(
            P("lime_shap_summary"),
            caption="../report/lime.rst",
            category="{dataset}",
            subcategory="SHAP",
            labels={"model": "{family}", "table": "LIME vs SHAP"},
        ),
    log:
        f"{LOGS}/explain/lime/{{dataset}}/{{family}}.log",
    benchmark:
        f"{BENCH}/lime/{{dataset}}/{{family}}.tsv"
    conda:
        "../../envs/explain.yaml"
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        settings=LIME_SETTINGS.to_params(),
    script:
        "../scripts/lime.py"


rule ranking_agreement:
    """Variable rankings per model: MR vs mean |SHAP| vs split gain, with Spearman correlations."""
    input:
        reliance=lambda w: per_family("model_reliance", w.dataset),
        split_gain=lambda w: per_family("split_gain", w.dataset),
        shap=lambda w: per_family("shap_values", w.dataset),
        info=rules.prepare.output.info,
    output:
        importances=P("importance_rankings"),
        agreement=P("ranking_agreement"),
    log:
        f"{LOGS}/explain/ranking_agreement/{{dataset}}.log",
    benchmark:
        f"{BENCH}/ranking_agreement/{{dataset}}.tsv"
    localrule: True
    conda:
        "../../envs/explain.yaml"
    params:
        ranking=config["explain"]["reliance"]["ranking"],
        loss=lambda w: config["explain"]["reliance"]["losses"][task_of(w.dataset)][0],
    script:
        "../scripts/ranking_agreement.py"


rule ranking_agreement_table:
    input:
        tables=per_dataset("ranking_agreement"),
    output:
        table=report(
            P("table", name="ranking_agreement"),
            caption="../report/tables.rst",
            category="tables",
            labels={"table": "ranking agreement"},
        ),
    log:
        f"{LOGS}/tables/ranking_agreement.log",
    benchmark:
        f"{BENCH}/ranking_agreement_table.tsv"
    localrule: True
    conda:
        "../../envs/models.yaml"
    script:
        "../scripts/concat_tables.py"


rule learner:
    """Learner-PD, learner-PFI, learner-SHAP importance and learner-ALE with corrected confidence intervals (Molnar et al. 2023)."""
    input:
        table=rules.prepare.output.table,
        info=rules.prepare.output.info,
        split=rules.split.output.split,
        best=rules.cv.output.best,
        reliance=rules.model_reliance.output.reliance,
    output:
        pd=P("learner_pd"),
        pfi=P("learner_pfi"),
        pd_refits=P("learner_pd_refits"),
        pfi_refits=P("learner_pfi_refits"),
        # learner-SHAP importance and learner-ALE from the same refits (issue 45)
        shap=P("learner_shap"),
        ale=P("learner_ale"),
        shap_refits=P("learner_shap_refits"),
        ale_refits=P("learner_ale_refits"),
    log:
        f"{LOGS}/explain/learner/{{dataset}}/{{family}}.log",
    benchmark:
        f"{BENCH}/learner/{{dataset}}/{{family}}.tsv"
    conda:
        "../../envs/explain.yaml"
    threads: config["threads"]["learner"]
    resources:
        mem_mb=4000,
        runtime=60,
    params:
        settings=learner_params,
    script:
        "../scripts/learner.py"


rule learner_figures:
    """Learner-PD and learner-ALE bands (corrected and naive), learner-PFI and learner-SHAP bars with corrected intervals."""
    input:
        style=STYLE_FILE,
        pd=rules.learner.output.pd,
        pfi=rules.learner.output.pfi,
        shap=rules.learner.output.shap,
        ale=rules.learner.output.ale,
        # the twins' coverage table where the audit has run (docs/coverage.md): the captions
        twins=twins_table_if_run,
    output:
        **figure_outputs("learner_figures"),
    log:
        f"{LOGS}/figures/learner/{{dataset}}/{{family}}.log",
    benchmark:
        f"{BENCH}/learner_figures/{{dataset}}/{{family}}.tsv"
    localrule: True
    conda:
        "../../envs/report.yaml"
    script:
        "../scripts/learner_figures.py"


rule model_reliance_table:
    """All datasets' and models' model reliance in one table."""
    input:
        tables=per_model("model_reliance"),
    output:
        table=report(
            ensure(P("table", name="model_reliance"), non_empty=True),
            caption="../report/tables.rst",
            category="tables",
            labels={"table": "model reliance"},
        ),
    log:
        f"{LOGS}/tables/model_reliance.log",
    benchmark:
        f"{BENCH}/model_reliance_table.tsv"
    localrule: True
    conda:
        "../../envs/models.yaml"
    script:
        "../scripts/concat_tables.py"


rule large_data:
    """The large-data policies of one dataset (large_data): threshold, applied or not, rows used."""
    input:
        split=rules.split.output.split,
    output:
        table=P("large_data"),
    log:
        f"{LOGS}/explain/large_data/{{dataset}}.log",
    benchmark:
        f"{BENCH}/large_data/{{dataset}}.tsv"
    localrule: True
    conda:
        "../../envs/models.yaml"
    params:
        settings=LARGE_DATA.to_params(),
    script:
        "../scripts/large_data.py"


rule large_data_table:
    """All datasets' large-data policies in one table."""
    input:
        tables=per_dataset("large_data"),
    output:
        table=report(
            P("table", name="large_data"),
            caption="../report/tables.rst",
            category="tables",
            labels={"table": "large-data policies"},
        ),
    log:
        f"{LOGS}/tables/large_data.log",
    benchmark:
        f"{BENCH}/large_data_table.tsv"
    localrule: True
    conda:
        "../../envs/models.yaml"
    script:
        "../scripts/concat_tables.py"


rule ebm_terms:
    """A glass-box model's own explanation (families with Family.terms: EBM): each term's importance and each main term's shape with the bagged error bars (±1 SD over the outer bags)."""
    input:
        table=rules.prepare.output.table,
        info=rules.prepare.output.info,
        split=rules.split.output.split,
        model=rules.fit.output.model,
    output:
        terms=P("ebm_terms"),
        shapes=P("ebm_shapes"),
    log:
        f"{LOGS}/explain/ebm_terms/{{dataset}}/{{family}}.log",
    benchmark:
        f"{BENCH}/ebm_terms/{{dataset}}/{{family}}.tsv"
    conda:
        "../../envs/explain.yaml"
    resources:
        mem_mb=2000,
        runtime=10,
    script:
        "../scripts/ebm_terms.py"


rule ebm_figures:
    """The EBM's term plots: each main term's shape (step function, ±1 SD band over the outer bags) and the terms' importances."""
    input:
        style=STYLE_FILE,
        terms=rules.ebm_terms.output.terms,
        shapes=rules.ebm_terms.output.shapes,
        # the twins' coverage table where the audit has run (docs/coverage.md): the caption
        twins=twins_table_if_run,
    output:
        **figure_outputs("ebm_figures"),
    log:
        f"{LOGS}/figures/ebm/{{dataset}}/{{family}}.log",
    benchmark:
        f"{BENCH}/ebm_figures/{{dataset}}/{{family}}.tsv"
    localrule: True
    conda:
        "../../envs/report.yaml"
    params:
        target_unit=target_unit,
    script:
        "../scripts/ebm_figures.py"


rule ebm_terms_table:
    """All datasets' EBM terms and importances in one table."""
    input:
        tables=term_models("ebm_terms"),
    output:
        table=report(
            P("table", name="ebm_terms"),
            caption="../report/tables.rst",
            category="tables",
            labels={"table": "EBM terms"},
        ),
    log:
        f"{LOGS}/tables/ebm_terms.log",
    benchmark:
        f"{BENCH}/ebm_terms_table.tsv"
    localrule: True
    conda:
        "../../envs/models.yaml"
    script:
        "../scripts/concat_tables.py"
