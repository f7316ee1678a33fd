# Coverage audit on the twin of every dataset (issue 51; docs/coverage.md): the table's own feature
# rows with a planted response of known truth (xaipipe.studies.twin), R replicates of the pipeline's
# own steps in n_shards jobs per dataset, the coverage of every interval kind against the estimand it
# claims and the planted truth. Its own target, `snakemake --cores 8 twins`; not part of `all`.
# Settings: xaipipe.config.TwinSettings (config section `twins`).


TWIN_SHARDS = list(range(config["twins"]["n_shards"]))


rule twin:
    """The twin: f* (the cross-family reference model by default) fitted on the table, its out-of-fold residuals."""
    input:
        table=rules.prepare.output.table,
        info=rules.prepare.output.info,
        split=rules.split.output.split,
        best=lambda w: [
            P("best", dataset=w.dataset, family=f) for f in families_of(w.dataset)
        ],
        reliance=twin_learner_reliance,
    output:
        twin=P("twin"),
        design=P("twin_design"),
    log:
        f"{LOGS}/twins/{{dataset}}/twin.log",
    benchmark:
        f"{BENCH}/twin/{{dataset}}.tsv"
    conda:
        "../../envs/explain.yaml"
    resources:
        mem_mb=4000,
        runtime=60,
    params:
        settings=twin_params,
    script:
        "../scripts/twin.py"


rule twin_truth:
    """The twin's planted truths (f*'s MR, PD, ALE, SHAP importance) and the learners' expected values."""
    input:
        twin=rules.twin.output.twin,
    output:
        f_star=P("twin_truth"),
        learner=P("twin_learner_truth"),
    log:
        f"{LOGS}/twins/{{dataset}}/truth.log",
    benchmark:
        f"{BENCH}/twin_truth/{{dataset}}.tsv"
    conda:
        "../../envs/explain.yaml"
    threads: config["twins"]["threads"]
    resources:
        mem_mb=4000,
        runtime=120,
    script:
        "../scripts/twin_truth.py"


rule twin_shard:
    """Replicates shard, shard + n_shards, ... of the twin: the pipeline's steps and every interval they print."""
    input:
        twin=rules.twin.output.twin,
    output:
        replicates=P("twin_shard"),
    log:
        f"{LOGS}/twins/{{dataset}}/shard_{{shard}}.log",
    benchmark:
        f"{BENCH}/twin_shard/{{dataset}}_{{shard}}.tsv"
    conda:
        "../../envs/explain.yaml"
    threads: config["twins"]["threads"]
    resources:
        mem_mb=4000,
        runtime=240,
    params:
        n_shards=config["twins"]["n_shards"],
    script:
        "../scripts/twin_shard.py"


rule twin_importance_truth:
    """f*'s SAGE and H² on the twin's population (the planted truths of the sage and h2 kinds)."""
    input:
        twin=rules.twin.output.twin,
        f_star=rules.twin_truth.output.f_star,
    output:
        truth=P("twin_importance_truth"),
    log:
        f"{LOGS}/twins/{{dataset}}/importance_truth.log",
    benchmark:
        f"{BENCH}/twin_importance_truth/{{dataset}}.tsv"
    conda:
        "../../envs/explain.yaml"
    resources:
        mem_mb=4000,
        runtime=60,
    params:
        settings=twin_importance_params,
    script:
        "../scripts/twin_importance_truth.py"


rule twin_importance_shard:
    """SAGE and H² of the twin's replicates shard, shard + n_shards, ... with their claimed truths."""
    input:
        twin=rules.twin.output.twin,
        truth=rules.twin_importance_truth.output.truth,
    output:
        replicates=P("twin_importance_shard"),
    log:
        f"{LOGS}/twins/{{dataset}}/importance_shard_{{shard}}.log",
    benchmark:
        f"{BENCH}/twin_importance_shard/{{dataset}}_{{shard}}.tsv"
    conda:
        "../../envs/explain.yaml"
    threads: config["twins"]["threads"]
    resources:
        mem_mb=4000,
        runtime=240,
    params:
        settings=twin_importance_params,
        n_shards=config["twins"]["n_shards"],
    script:
        "../scripts/twin_importance_shard.py"


rule twin_coverage:
    """The twin's replicates with their truths and the coverage of every interval kind."""
    input:
        shards=lambda w: [
            P("twin_shard", dataset=w.dataset, shard=k) for k in TWIN_SHARDS
        ],
        importance=lambda w: [
            P("twin_importance_shard", dataset=w.dataset, shard=k)
            for k in (TWIN_SHARDS if twin_importance_runs() else [])
        ],
        importance_truth=lambda w: (
            [P("twin_importance_truth", dataset=w.dataset)]
            if twin_importance_runs()
            else []
        ),
        f_star=rules.twin_truth.output.f_star,
        learner=rules.twin_truth.output.learner,
        design=rules.twin.output.design,
    output:
        repetitions=P("twin_repetitions"),
        coverage=P("twin_coverage"),
    log:
        f"{LOGS}/twins/{{dataset}}/coverage.log",
    benchmark:
        f"{BENCH}/twin_coverage/{{dataset}}.tsv"
    localrule: True
    conda:
        "../../envs/explain.yaml"
    script:
        "../scripts/twin_coverage.py"


rule twins_table:
    """Every twin's coverage in one table (tables/coverage_twins.csv)."""
    input:
        coverage=lambda w: [P("twin_coverage", dataset=d) for d in twin_datasets()],
    output:
        table=P("table", name="coverage_twins"),
    log:
        f"{LOGS}/twins/twins_table.log",
    localrule: True
    conda:
        "../../envs/report.yaml"
    script:
        "../scripts/twins_table.py"


rule twins_figure:
    """Coverage against nominal level of every interval kind on every twin."""
    input:
        style=STYLE_FILE,
        coverage=rules.twins_table.output.table,
    output:
        **figure_outputs("twins_figure"),
    log:
        f"{LOGS}/figures/twins.log",
    localrule: True
    conda:
        "../../envs/report.yaml"
    script:
        "../scripts/twins_figure.py"


rule twins:
    """Target: the coverage audit on the twins (`snakemake --cores 8 twins`)."""
    input:
        rules.twins_table.output,
        rules.twins_figure.output,
    localrule: True
