# Rashomon sets and model class reliance (MCR) from the CV tables; the bootstrap of
# the set (Rashomon importance distribution); seed 001's Table 4.1 study on Abalone.

rule rashomon:
    """Rashomon sets per family and across families, member refits (one per prefix group), MR of every member, MCR."""
    input:
        summaries=lambda w: [f"{RESULTS}/models/{w.dataset}/cv/{f}_summary.csv" for f in rashomon_families(w.dataset)],
        table=rules.prepare.output.table,
        info=rules.prepare.output.info,
        split=rules.split.output.split,
    output:
        sets=f"{RESULTS}/rashomon/{{dataset}}/sets.csv",
        members=f"{RESULTS}/rashomon/{{dataset}}/members.csv",
        mcr=f"{RESULTS}/rashomon/{{dataset}}/mcr.csv",
        envelope=f"{RESULTS}/rashomon/{{dataset}}/pd_envelope.csv",
        curves=f"{RESULTS}/rashomon/{{dataset}}/pd_curves.csv",
    params:
        rashomon=rashomon_params,
    threads: config["threads"]["rashomon"]
    resources:
        mem_mb=6000,
        runtime=120,
    log:
        f"{LOGS}/rashomon/mcr/{{dataset}}.log",
    benchmark:
        f"{BENCH}/rashomon/{{dataset}}.tsv"
    conda:
        "../../envs/explain.yaml"
    script:
        "../scripts/rashomon.py"


rule rashomon_figures:
    """Figs 4.1 (MR of every member) and 4.2 (rank heatmap), MCR intervals, eps-sensitivity, PD envelope."""
    input:
        style=STYLE_FILE,
        members=rules.rashomon.output.members,
        mcr=rules.rashomon.output.mcr,
        envelope=rules.rashomon.output.envelope,
        curves=rules.rashomon.output.curves,
    output:
        **{f"{kind}_pdf": f"{RESULTS}/figures/{{dataset}}/rashomon/{kind}.pdf" for kind in RASHOMON_FIGURES},
        **{
            f"{kind}_png": report(
                f"{RESULTS}/figures/{{dataset}}/rashomon/{kind}.png",
                caption="../report/rashomon.rst",
                category="{dataset}",
                subcategory="Rashomon set / MCR",
                labels={"figure": kind},
            )
            for kind in RASHOMON_FIGURES
        },
    params:
        scope=RASHOMON["figure_scope"],
        epsilon=RASHOMON["epsilon"],
        quantity="mr_ratio",
    log:
        f"{LOGS}/figures/rashomon/{{dataset}}.log",
    benchmark:
        f"{BENCH}/rashomon_figures/{{dataset}}.tsv"
    localrule: True
    conda:
        "../../envs/report.yaml"
    script:
        "../scripts/rashomon_figures.py"


rule rashomon_bootstrap:
    """B bootstrap resamples of the training rows, the Rashomon set rebuilt on each: RID and MCR endpoint intervals."""
    input:
        table=rules.prepare.output.table,
        info=rules.prepare.output.info,
        split=rules.split.output.split,
    output:
        models=f"{RESULTS}/rashomon/{{dataset}}/bootstrap_models.csv",
        reliance=f"{RESULTS}/rashomon/{{dataset}}/bootstrap_reliance.csv",
        sizes=f"{RESULTS}/rashomon/{{dataset}}/bootstrap_sizes.csv",
        mcr=f"{RESULTS}/rashomon/{{dataset}}/bootstrap_mcr.csv",
        rid=f"{RESULTS}/rashomon/{{dataset}}/rid_summary.csv",
        mcr_summary=f"{RESULTS}/rashomon/{{dataset}}/bootstrap_mcr_summary.csv",
    params:
        rashomon=rashomon_params,
        bootstrap=RASHOMON["bootstrap"],
        grids=lambda w: {
            f: config["grids"][task_of(w.dataset)][f]
            for f in RASHOMON["bootstrap"]["families"]
            if f in families_of(w.dataset)
        },
    threads: config["threads"]["rashomon"]
    # long and needing only the split: start early (the critical path of a full run)
    priority: 20
    resources:
        mem_mb=6000,
        runtime=240,
    log:
        f"{LOGS}/rashomon/bootstrap/{{dataset}}.log",
    benchmark:
        f"{BENCH}/rashomon_bootstrap/{{dataset}}.tsv"
    conda:
        "../../envs/explain.yaml"
    script:
        "../scripts/rashomon_bootstrap.py"


rule rid_figures:
    """Rashomon importance distribution per variable with bootstrap intervals of the MCR endpoints."""
    input:
        style=STYLE_FILE,
        reliance=rules.rashomon_bootstrap.output.reliance,
        mcr=rules.rashomon_bootstrap.output.mcr,
        sizes=rules.rashomon_bootstrap.output.sizes,
    output:
        rid_pdf=f"{RESULTS}/figures/{{dataset}}/rashomon/rid.pdf",
        rid_png=report(
            f"{RESULTS}/figures/{{dataset}}/rashomon/rid.png",
            caption="../report/rid.rst",
            category="{dataset}",
            subcategory="Rashomon set / MCR",
            labels={"figure": "Rashomon importance distribution"},
        ),
        sizes_pdf=f"{RESULTS}/figures/{{dataset}}/rashomon/bootstrap_set_sizes.pdf",
        sizes_png=f"{RESULTS}/figures/{{dataset}}/rashomon/bootstrap_set_sizes.png",
    params:
        confidence=RASHOMON["bootstrap"]["confidence"],
    log:
        f"{LOGS}/figures/rid/{{dataset}}.log",
    benchmark:
        f"{BENCH}/rid_figures/{{dataset}}.tsv"
    localrule: True
    conda:
        "../../envs/report.yaml"
    script:
        "../scripts/rid_figures.py"


rule mcr_table:
    """All datasets' MCR intervals in one table (dataset, scope, epsilon, feature, mcr_minus, mcr_plus, ...)."""
    input:
        tables=per_dataset("{results}/rashomon/{dataset}/mcr.csv"),
    output:
        table=report(
            ensure(f"{RESULTS}/tables/mcr.csv", non_empty=True),
            caption="../report/tables.rst",
            category="tables",
            labels={"table": "MCR"},
        ),
    log:
        f"{LOGS}/tables/mcr.log",
    benchmark:
        f"{BENCH}/mcr_table.tsv"
    localrule: True
    conda:
        "../../envs/models.yaml"
    script:
        "../scripts/concat_tables.py"


rule abalone_study:
    """Seed 001 Table 4.1: 5-fold CV RMSE of the 324 GradientBoostingRegressor models on Abalone."""
    input:
        table=f"{RESULTS}/data/abalone/prepared.csv",
        info=f"{RESULTS}/data/abalone/prepared.json",
        split=f"{RESULTS}/data/abalone/split.json",
        reference=REFERENCE_FILE,
    output:
        summary=f"{RESULTS}/rashomon/abalone_study/cv_summary.csv",
        comparison=f"{RESULTS}/rashomon/abalone_study/table_4_1.csv",
        pattern=f"{RESULTS}/rashomon/abalone_study/ranking_pattern.csv",
    params:
        study=RASHOMON["abalone_study"],
        seed=config["seed"],
    threads: config["threads"]["rashomon"]
    # the longest job of a full run, needing only the split: start it first
    priority: 50
    resources:
        mem_mb=4000,
        runtime=240,
    log:
        f"{LOGS}/rashomon/abalone_study.log",
    benchmark:
        f"{BENCH}/abalone_study/cv.tsv"
    conda:
        "../../envs/models.yaml"
    script:
        "../scripts/abalone_study.py"


rule abalone_study_mcr:
    """Rashomon set, member MR and MCR over the Table 4.1 grid (Figs 4.1 and 4.2 of seed 001)."""
    input:
        summaries=[rules.abalone_study.output.summary],
        table=f"{RESULTS}/data/abalone/prepared.csv",
        info=f"{RESULTS}/data/abalone/prepared.json",
        split=f"{RESULTS}/data/abalone/split.json",
    output:
        sets=f"{RESULTS}/rashomon/abalone_study/sets.csv",
        members=f"{RESULTS}/rashomon/abalone_study/members.csv",
        mcr=f"{RESULTS}/rashomon/abalone_study/mcr.csv",
        envelope=f"{RESULTS}/rashomon/abalone_study/pd_envelope.csv",
        curves=f"{RESULTS}/rashomon/abalone_study/pd_curves.csv",
    params:
        rashomon=rashomon_params_of("abalone") | {"scopes": ["family"]},
    threads: config["threads"]["rashomon"]
    resources:
        mem_mb=6000,
        runtime=120,
    log:
        f"{LOGS}/rashomon/abalone_study_mcr.log",
    benchmark:
        f"{BENCH}/abalone_study/mcr.tsv"
    conda:
        "../../envs/explain.yaml"
    script:
        "../scripts/rashomon.py"


rule abalone_study_figures:
    """Figs 4.1 and 4.2 of seed 001 (and MCR intervals, eps-sensitivity) for the Table 4.1 grid."""
    input:
        style=STYLE_FILE,
        members=rules.abalone_study_mcr.output.members,
        mcr=rules.abalone_study_mcr.output.mcr,
        envelope=rules.abalone_study_mcr.output.envelope,
        curves=rules.abalone_study_mcr.output.curves,
    output:
        **{f"{kind}_pdf": f"{RESULTS}/figures/abalone_study/{kind}.pdf" for kind in RASHOMON_FIGURES},
        **{
            f"{kind}_png": report(
                f"{RESULTS}/figures/abalone_study/{kind}.png",
                caption="../report/abalone_study.rst",
                category="abalone",
                subcategory="Table 4.1 study",
                labels={"figure": kind},
            )
            for kind in RASHOMON_FIGURES
        },
    params:
        scope="gradient_boosting",
        epsilon=RASHOMON["epsilon"],
        quantity="mr_ratio",
    log:
        f"{LOGS}/figures/abalone_study.log",
    benchmark:
        f"{BENCH}/abalone_study_figures.tsv"
    localrule: True
    conda:
        "../../envs/report.yaml"
    script:
        "../scripts/rashomon_figures.py"


ALL_TARGETS += [
    f"{RESULTS}/tables/mcr.csv",
    *per_dataset("{results}/figures/{dataset}/rashomon/member_reliance.pdf"),
]
if RASHOMON["bootstrap"]["enabled"]:
    ALL_TARGETS += [
        f"{RESULTS}/figures/{d}/rashomon/rid.pdf"
        for d in DATASETS
        if any(f in families_of(d) for f in RASHOMON["bootstrap"]["families"])
    ]
if RASHOMON["abalone_study"]["enabled"] and "abalone" in DATASETS:
    ALL_TARGETS += [
        f"{RESULTS}/rashomon/abalone_study/table_4_1.csv",
        f"{RESULTS}/figures/abalone_study/member_reliance.pdf",
    ]
