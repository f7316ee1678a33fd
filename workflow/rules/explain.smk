# Explain: model reliance (three estimators) + split gain, PD / ICE / c-ICE / d-ICE,
# SHAP values, learner-PD/PFI; per dataset x model, then aggregated tables.

SHAP_PLOTS = ("bar", "beeswarm", "dependence", "waterfall_high", "waterfall_low", "waterfall_near_base")


rule model_reliance:
    """Model reliance (permutation, e_divide, e_switch; Fisher et al. 2019) on the test set, and split gain."""
    input:
        table=rules.prepare.output.table,
        info=rules.prepare.output.info,
        split=rules.split.output.split,
        model=rules.fit.output.model,
    output:
        reliance=f"{RESULTS}/explain/{{dataset}}/{{family}}/model_reliance.csv",
        split_gain=f"{RESULTS}/explain/{{dataset}}/{{family}}/split_gain.csv",
    params:
        reliance=config["explain"]["reliance"],
        losses=lambda w: config["explain"]["reliance"]["losses"][task_of(w.dataset)],
        seed=config["seed"],
    threads: config["threads"]["model_reliance"]
    resources:
        mem_mb=4000,
        runtime=30,
    log:
        f"{LOGS}/explain/model_reliance/{{dataset}}/{{family}}.log",
    benchmark:
        f"{BENCH}/model_reliance/{{dataset}}/{{family}}.tsv"
    conda:
        "../../envs/explain.yaml"
    script:
        "../scripts/model_reliance.py"


rule pd_ice:
    """PD, ICE, c-ICE, d-ICE of the top-k variables by MR and the 2-D PD of the top pair (test rows)."""
    input:
        table=rules.prepare.output.table,
        info=rules.prepare.output.info,
        split=rules.split.output.split,
        model=rules.fit.output.model,
        reliance=rules.model_reliance.output.reliance,
    output:
        curves=f"{RESULTS}/explain/{{dataset}}/{{family}}/pd_ice.csv",
        pairs=f"{RESULTS}/explain/{{dataset}}/{{family}}/pd_2d.csv",
    params:
        pd=config["explain"]["pd"],
        ranking=config["explain"]["reliance"]["ranking"],
        loss=lambda w: config["explain"]["reliance"]["losses"][task_of(w.dataset)][0],
        extra=lambda w: thesis_pd_features(config["thesis"], w.dataset, w.family),
    threads: 1
    resources:
        mem_mb=4000,
        runtime=30,
    log:
        f"{LOGS}/explain/pd_ice/{{dataset}}/{{family}}.log",
    benchmark:
        f"{BENCH}/pd_ice/{{dataset}}/{{family}}.tsv"
    conda:
        "../../envs/explain.yaml"
    script:
        "../scripts/pd_ice.py"


rule reliance_figures:
    """MR bars with uncertainty (thesis Figs 5.2, 5.5, 5.8) and MR beside split gain."""
    input:
        style=STYLE_FILE,
        reliance=rules.model_reliance.output.reliance,
        split_gain=rules.model_reliance.output.split_gain,
    output:
        mr_pdf=f"{RESULTS}/figures/{{dataset}}/{{family}}/model_reliance.pdf",
        mr_png=report(
            f"{RESULTS}/figures/{{dataset}}/{{family}}/model_reliance.png",
            caption="../report/model_reliance.rst",
            category="{dataset}",
            subcategory="model reliance",
            labels={"model": "{family}", "figure": "model reliance"},
        ),
        gain_pdf=f"{RESULTS}/figures/{{dataset}}/{{family}}/reliance_vs_split_gain.pdf",
        gain_png=report(
            f"{RESULTS}/figures/{{dataset}}/{{family}}/reliance_vs_split_gain.png",
            caption="../report/reliance_vs_split_gain.rst",
            category="{dataset}",
            subcategory="model reliance",
            labels={"model": "{family}", "figure": "MR vs split gain"},
        ),
    params:
        ranking=config["explain"]["reliance"]["ranking"],
        loss=lambda w: config["explain"]["reliance"]["losses"][task_of(w.dataset)][0],
    log:
        f"{LOGS}/figures/reliance/{{dataset}}/{{family}}.log",
    benchmark:
        f"{BENCH}/reliance_figures/{{dataset}}/{{family}}.tsv"
    localrule: True
    conda:
        "../../envs/report.yaml"
    script:
        "../scripts/reliance_figures.py"


rule pd_figures:
    """ICE + PD with decile rug (Figs 4.3-4.5, 5.3, 5.6, 5.9), c-ICE, d-ICE and the 2-D PD."""
    input:
        style=STYLE_FILE,
        curves=rules.pd_ice.output.curves,
        pairs=rules.pd_ice.output.pairs,
    output:
        **{
            f"{kind}_pdf": f"{RESULTS}/figures/{{dataset}}/{{family}}/{kind}.pdf"
            for kind in ("ice", "c_ice", "d_ice", "pd_2d")
        },
        **{
            f"{kind}_png": report(
                f"{RESULTS}/figures/{{dataset}}/{{family}}/{kind}.png",
                caption=f"../report/{kind}.rst",
                category="{dataset}",
                subcategory="PD / ICE",
                labels={"model": "{family}", "figure": kind},
            )
            for kind in ("ice", "c_ice", "d_ice", "pd_2d")
        },
    log:
        f"{LOGS}/figures/pd/{{dataset}}/{{family}}.log",
    benchmark:
        f"{BENCH}/pd_figures/{{dataset}}/{{family}}.tsv"
    localrule: True
    conda:
        "../../envs/report.yaml"
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
        values=f"{RESULTS}/explain/{{dataset}}/{{family}}/shap_values.csv",
        rows=f"{RESULTS}/explain/{{dataset}}/{{family}}/shap_rows.csv",
        importance=f"{RESULTS}/explain/{{dataset}}/{{family}}/shap_importance.csv",
        interactions=f"{RESULTS}/explain/{{dataset}}/{{family}}/shap_interactions.csv",
        meta=f"{RESULTS}/explain/{{dataset}}/{{family}}/shap_meta.json",
        result=f"{RESULTS}/explain/{{dataset}}/{{family}}/shap_result.joblib",
    params:
        shap=config["explain"]["shap"],
        seed=config["seed"],
    threads: config["threads"]["shap"]
    resources:
        mem_mb=4000,
        runtime=60,
    log:
        f"{LOGS}/explain/shap/{{dataset}}/{{family}}.log",
    benchmark:
        f"{BENCH}/shap/{{dataset}}/{{family}}.tsv"
    conda:
        "../../envs/explain.yaml"
    script:
        "../scripts/shap.py"


rule shap_figures:
    """SHAP bar, beeswarm, dependence (coloured by the strongest interaction) and waterfalls (000 Figs 4.3-4.8)."""
    input:
        style=STYLE_FILE,
        result=rules.shap.output.result,
    output:
        **{
            f"{kind}_pdf": f"{RESULTS}/figures/{{dataset}}/{{family}}/shap_{kind}.pdf"
            for kind in SHAP_PLOTS
        },
        **{
            f"{kind}_png": report(
                f"{RESULTS}/figures/{{dataset}}/{{family}}/shap_{kind}.png",
                caption="../report/shap.rst",
                category="{dataset}",
                subcategory="SHAP",
                labels={"model": "{family}", "figure": f"SHAP {kind}"},
            )
            for kind in SHAP_PLOTS
        },
    params:
        top_k=config["explain"]["pd"]["top_k"],
    log:
        f"{LOGS}/figures/shap/{{dataset}}/{{family}}.log",
    benchmark:
        f"{BENCH}/shap_figures/{{dataset}}/{{family}}.tsv"
    localrule: True
    conda:
        "../../envs/explain.yaml"
    script:
        "../scripts/shap_figures.py"


rule ranking_agreement:
    """Variable rankings per model: MR vs mean |SHAP| vs split gain, with Spearman correlations."""
    input:
        reliance=lambda w: [f"{RESULTS}/explain/{w.dataset}/{f}/model_reliance.csv" for f in families_of(w.dataset)],
        split_gain=lambda w: [f"{RESULTS}/explain/{w.dataset}/{f}/split_gain.csv" for f in families_of(w.dataset)],
        shap=lambda w: [f"{RESULTS}/explain/{w.dataset}/{f}/shap_values.csv" for f in families_of(w.dataset)],
        info=rules.prepare.output.info,
    output:
        importances=f"{RESULTS}/explain/{{dataset}}/importance_rankings.csv",
        agreement=f"{RESULTS}/explain/{{dataset}}/ranking_agreement.csv",
    params:
        ranking=config["explain"]["reliance"]["ranking"],
        loss=lambda w: config["explain"]["reliance"]["losses"][task_of(w.dataset)][0],
    log:
        f"{LOGS}/explain/ranking_agreement/{{dataset}}.log",
    benchmark:
        f"{BENCH}/ranking_agreement/{{dataset}}.tsv"
    localrule: True
    conda:
        "../../envs/explain.yaml"
    script:
        "../scripts/ranking_agreement.py"


rule ranking_agreement_table:
    input:
        tables=per_dataset("{results}/explain/{dataset}/ranking_agreement.csv"),
    output:
        table=report(
            f"{RESULTS}/tables/ranking_agreement.csv",
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
    """Learner-PD and learner-PFI with corrected confidence intervals (Molnar et al. 2023)."""
    input:
        table=rules.prepare.output.table,
        info=rules.prepare.output.info,
        split=rules.split.output.split,
        best=rules.cv.output.best,
        reliance=rules.model_reliance.output.reliance,
    output:
        pd=f"{RESULTS}/explain/{{dataset}}/{{family}}/learner_pd.csv",
        pfi=f"{RESULTS}/explain/{{dataset}}/{{family}}/learner_pfi.csv",
        pd_refits=f"{RESULTS}/explain/{{dataset}}/{{family}}/learner_pd_refits.csv",
        pfi_refits=f"{RESULTS}/explain/{{dataset}}/{{family}}/learner_pfi_refits.csv",
    params:
        learner=config["explain"]["learner"],
        cv=cv_params,
        ranking=config["explain"]["reliance"]["ranking"],
        loss=lambda w: config["explain"]["reliance"]["losses"][task_of(w.dataset)][0],
        top_k=config["explain"]["pd"]["top_k"],
    threads: config["threads"]["learner"]
    resources:
        mem_mb=4000,
        runtime=60,
    log:
        f"{LOGS}/explain/learner/{{dataset}}/{{family}}.log",
    benchmark:
        f"{BENCH}/learner/{{dataset}}/{{family}}.tsv"
    conda:
        "../../envs/explain.yaml"
    script:
        "../scripts/learner.py"


rule learner_figures:
    """Learner-PD bands (corrected and naive) and learner-PFI bars with corrected intervals."""
    input:
        style=STYLE_FILE,
        pd=rules.learner.output.pd,
        pfi=rules.learner.output.pfi,
    output:
        pd_pdf=f"{RESULTS}/figures/{{dataset}}/{{family}}/learner_pd.pdf",
        pd_png=report(
            f"{RESULTS}/figures/{{dataset}}/{{family}}/learner_pd.png",
            caption="../report/learner.rst",
            category="{dataset}",
            subcategory="learner-PD/PFI",
            labels={"model": "{family}", "figure": "learner-PD"},
        ),
        pfi_pdf=f"{RESULTS}/figures/{{dataset}}/{{family}}/learner_pfi.pdf",
        pfi_png=report(
            f"{RESULTS}/figures/{{dataset}}/{{family}}/learner_pfi.png",
            caption="../report/learner.rst",
            category="{dataset}",
            subcategory="learner-PD/PFI",
            labels={"model": "{family}", "figure": "learner-PFI"},
        ),
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
        tables=lambda w: per_model("{results}/explain/{dataset}/{family}/model_reliance.csv"),
    output:
        table=report(
            ensure(f"{RESULTS}/tables/model_reliance.csv", non_empty=True),
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


ALL_TARGETS += [
    f"{RESULTS}/tables/model_reliance.csv",
    *per_model("{results}/figures/{dataset}/{family}/model_reliance.pdf"),
    *per_model("{results}/figures/{dataset}/{family}/reliance_vs_split_gain.pdf"),
    *per_model("{results}/figures/{dataset}/{family}/ice.pdf"),
    *per_model("{results}/figures/{dataset}/{family}/pd_2d.pdf"),
    *per_model("{results}/figures/{dataset}/{family}/shap_bar.pdf"),
    f"{RESULTS}/tables/ranking_agreement.csv",
    *[
        f"{RESULTS}/figures/{d}/{f}/learner_pd.pdf"
        for d in DATASETS
        for f in families_of(d)
        if f in config["explain"]["learner"]["families"]
    ],
]
