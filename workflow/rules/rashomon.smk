# Rashomon sets and model class reliance (MCR) from the CV tables; the bootstrap of
# the set (Rashomon importance distribution); seed 001's Table 4.1 study on Abalone.


rule rashomon_refit:
    """Member refits, MR and PD curves of one family's Rashomon-set members (config key rashomon.refit_jobs)."""
    input:
        summaries=lambda w: [
            P("cv_summary", dataset=w.dataset, family=f)
            for f in rashomon_families(w.dataset)
        ],
        table=rules.prepare.output.table,
        info=rules.prepare.output.info,
        split=rules.split.output.split,
    output:
        refit=P("rashomon_refit"),
    log:
        f"{LOGS}/rashomon/refit/{{dataset}}/{{family}}.log",
    benchmark:
        f"{BENCH}/rashomon/refit/{{dataset}}/{{family}}.tsv"
    conda:
        "../../envs/explain.yaml"
    threads: config["threads"]["rashomon"]
    resources:
        mem_mb=6000,
        runtime=120,
    params:
        settings=rashomon_params,
    script:
        "../scripts/rashomon_refit.py"


rule rashomon:
    """Rashomon sets per family and across families, member refits (one per prefix group), MR of every member, MCR."""
    input:
        summaries=lambda w: [
            P("cv_summary", dataset=w.dataset, family=f)
            for f in rashomon_families(w.dataset)
        ],
        table=rules.prepare.output.table,
        info=rules.prepare.output.info,
        split=rules.split.output.split,
        refits=lambda w: [
            P("rashomon_refit", dataset=w.dataset, family=f)
            for f in refit_job_families(w.dataset)
        ],
    output:
        sets=P("rashomon_sets"),
        members=P("rashomon_members"),
        mcr=P("mcr"),
        path=P("mcr_path"),
        envelope=P("pd_envelope"),
        curves=P("pd_curves"),
        linear_exact=P("linear_exact"),
        predictions=P("member_predictions"),
        prediction_index=P("member_predictions_index"),
    log:
        f"{LOGS}/rashomon/mcr/{{dataset}}.log",
    benchmark:
        f"{BENCH}/rashomon/{{dataset}}.tsv"
    conda:
        "../../envs/explain.yaml"
    threads: config["threads"]["rashomon"]
    resources:
        mem_mb=6000,
        runtime=120,
    params:
        settings=rashomon_params,
    script:
        "../scripts/rashomon.py"


rule rashomon_effects:
    """PD and ALE of every member of the figure scope's largest Rashomon set, every variable (refits the members as the rashomon rule does; the explorer's effects view)."""
    input:
        summaries=lambda w: [
            P("cv_summary", dataset=w.dataset, family=f)
            for f in rashomon_families(w.dataset)
        ],
        table=rules.prepare.output.table,
        info=rules.prepare.output.info,
        split=rules.split.output.split,
    output:
        effects=P("member_effects"),
    log:
        f"{LOGS}/rashomon/effects/{{dataset}}.log",
    benchmark:
        f"{BENCH}/rashomon_effects/{{dataset}}.tsv"
    conda:
        "../../envs/explain.yaml"
    threads: config["threads"]["rashomon"]
    resources:
        mem_mb=6000,
        runtime=60,
    params:
        settings=member_effects_params,
    script:
        "../scripts/rashomon_effects.py"


rule rashomon_figures:
    """Figs 4.1 (MR of every member) and 4.2 (rank heatmap), MCR intervals, eps-sensitivity, PD envelope."""
    input:
        style=STYLE_FILE,
        members=rules.rashomon.output.members,
        mcr=rules.rashomon.output.mcr,
        path=rules.rashomon.output.path,
        envelope=rules.rashomon.output.envelope,
        curves=rules.rashomon.output.curves,
    output:
        **figure_outputs("rashomon_figures"),
    log:
        f"{LOGS}/figures/rashomon/{{dataset}}.log",
    benchmark:
        f"{BENCH}/rashomon_figures/{{dataset}}.tsv"
    localrule: True
    conda:
        "../../envs/report.yaml"
    params:
        scope=RASHOMON["figure_scope"],
        epsilon=RASHOMON["epsilon"],
        quantity=RASHOMON["figure_quantity"],
    script:
        "../scripts/rashomon_figures.py"


rule consensus:
    """The consensus partial order of the variables by MR over every Rashomon set (Laberge et al. 2023): pairs every member orders alike, ties, incomparable pairs; the exact linear scope's certified pairs."""
    input:
        table=rules.prepare.output.table,
        info=rules.prepare.output.info,
        split=rules.split.output.split,
        members=rules.rashomon.output.members,
        mcr=rules.rashomon.output.mcr,
        linear_exact=rules.rashomon.output.linear_exact,
    output:
        consensus=P("consensus"),
        summary=P("consensus_summary"),
    log:
        f"{LOGS}/rashomon/consensus/{{dataset}}.log",
    benchmark:
        f"{BENCH}/consensus/{{dataset}}.tsv"
    conda:
        "../../envs/explain.yaml"
    resources:
        mem_mb=1000,
        runtime=10,
    script:
        "../scripts/consensus.py"


rule consensus_figures:
    """Hasse diagram of the consensus order at the figure scope and the default eps (and the exact linear scope's certified order)."""
    input:
        style=STYLE_FILE,
        pairs=rules.consensus.output.consensus,
        summary=rules.consensus.output.summary,
    output:
        **figure_outputs("consensus_figures"),
    log:
        f"{LOGS}/figures/consensus/{{dataset}}.log",
    benchmark:
        f"{BENCH}/consensus_figures/{{dataset}}.tsv"
    localrule: True
    conda:
        "../../envs/report.yaml"
    params:
        scope=RASHOMON["figure_scope"],
        epsilon=RASHOMON["epsilon"],
        estimator=RASHOMON["estimators"][0],
    script:
        "../scripts/consensus_figures.py"


rule consensus_table:
    """All datasets' consensus counts at the default eps: pairs every member orders alike, per scope and MR estimator."""
    input:
        tables=per_dataset("consensus_summary"),
    output:
        table=report(
            P("table", name="consensus"),
            caption="../report/tables.rst",
            category="tables",
            labels={"table": "consensus over the Rashomon set"},
        ),
    log:
        f"{LOGS}/tables/consensus.log",
    benchmark:
        f"{BENCH}/consensus_table.tsv"
    localrule: True
    conda:
        "../../envs/models.yaml"
    script:
        "../scripts/consensus_table.py"


rule multiplicity:
    """Predictive multiplicity of every Rashomon scope: viable prediction ranges, ambiguity, discrepancy on the eps grid, the exact eps-path, per test row."""
    input:
        table=rules.prepare.output.table,
        info=rules.prepare.output.info,
        split=rules.split.output.split,
        members=rules.rashomon.output.members,
        predictions=rules.rashomon.output.predictions,
        index=rules.rashomon.output.prediction_index,
    output:
        summary=P("multiplicity"),
        path=P("multiplicity_path"),
        rows=P("multiplicity_rows"),
    log:
        f"{LOGS}/rashomon/multiplicity/{{dataset}}.log",
    benchmark:
        f"{BENCH}/multiplicity/{{dataset}}.tsv"
    conda:
        "../../envs/explain.yaml"
    resources:
        mem_mb=2000,
        runtime=15,
    params:
        capacity=RASHOMON["multiplicity"]["capacity"],
        epsilons=RASHOMON["epsilons"],
        epsilon=RASHOMON["epsilon"],
    script:
        "../scripts/multiplicity.py"


rule multiplicity_figures:
    """The test rows with the widest viable prediction ranges and multiplicity along the exact eps-path (eps grid marked) of every scope."""
    input:
        style=STYLE_FILE,
        summary=rules.multiplicity.output.summary,
        rows=rules.multiplicity.output.rows,
        path=rules.multiplicity.output.path,
    output:
        **figure_outputs("multiplicity_figures"),
    log:
        f"{LOGS}/figures/multiplicity/{{dataset}}.log",
    benchmark:
        f"{BENCH}/multiplicity_figures/{{dataset}}.tsv"
    localrule: True
    conda:
        "../../envs/report.yaml"
    params:
        scope=RASHOMON["figure_scope"],
        figure_rows=RASHOMON["multiplicity"]["figure_rows"],
        epsilon_mode=RASHOMON["epsilon_mode"],
        metric=lambda w: config["selection"][task_of(w.dataset)],
        target_unit=target_unit,
    script:
        "../scripts/multiplicity_figures.py"


rule multiplicity_table:
    """All datasets' predictive multiplicity per scope and eps in one table."""
    input:
        tables=per_dataset("multiplicity"),
    output:
        table=report(
            P("table", name="multiplicity"),
            caption="../report/tables.rst",
            category="tables",
            labels={"table": "predictive multiplicity"},
        ),
    log:
        f"{LOGS}/tables/multiplicity.log",
    benchmark:
        f"{BENCH}/multiplicity_table.tsv"
    localrule: True
    conda:
        "../../envs/models.yaml"
    script:
        "../scripts/concat_tables.py"


rule prediction_intervals:
    """Rashomon prediction intervals of a regression dataset: each scope's range of predictions (exact for all linear models) widened by split-conformal calibration (MAPIE); coverage and width against eps."""
    input:
        table=rules.prepare.output.table,
        info=rules.prepare.output.info,
        split=rules.split.output.split,
        members=rules.rashomon.output.members,
        predictions=rules.rashomon.output.predictions,
        index=rules.rashomon.output.prediction_index,
    output:
        intervals=P("prediction_intervals"),
        rows=P("prediction_interval_rows"),
    log:
        f"{LOGS}/rashomon/prediction_intervals/{{dataset}}.log",
    benchmark:
        f"{BENCH}/prediction_intervals/{{dataset}}.tsv"
    conda:
        "../../envs/explain.yaml"
    resources:
        mem_mb=2000,
        runtime=15,
    params:
        settings=prediction_interval_params,
    script:
        "../scripts/prediction_intervals.py"


rule prediction_interval_figures:
    """Coverage and width of the Rashomon prediction intervals against eps: the exact linear set's path (the kink where its range covers alone) and every grid scope."""
    input:
        style=STYLE_FILE,
        intervals=rules.prediction_intervals.output.intervals,
    output:
        **figure_outputs("prediction_interval_figures"),
    log:
        f"{LOGS}/figures/prediction_intervals/{{dataset}}.log",
    benchmark:
        f"{BENCH}/prediction_interval_figures/{{dataset}}.tsv"
    localrule: True
    conda:
        "../../envs/report.yaml"
    params:
        target_unit=target_unit,
    script:
        "../scripts/prediction_interval_figures.py"


rule prediction_intervals_table:
    """All regression datasets' Rashomon prediction intervals per scope and eps in one table."""
    input:
        tables=per_dataset("prediction_intervals", PREDICTION_INTERVAL_DATASETS),
    output:
        table=report(
            P("table", name="prediction_intervals"),
            caption="../report/tables.rst",
            category="tables",
            labels={"table": "Rashomon prediction intervals"},
        ),
    log:
        f"{LOGS}/tables/prediction_intervals.log",
    benchmark:
        f"{BENCH}/prediction_intervals_table.tsv"
    localrule: True
    conda:
        "../../envs/models.yaml"
    script:
        "../scripts/concat_tables.py"


rule treefarms:
    """The exact Rashomon set of sparse decision trees (TreeFARMS) of a binary classification dataset at each eps: its size, distinct functions, members' MR and MCR beside the grid's decision_tree set."""
    input:
        table=rules.prepare.output.table,
        info=rules.prepare.output.info,
        split=rules.split.output.split,
        # the grid's decision_tree set: its members refitted for their zero-one MR
        members=rules.rashomon.output.members,
    output:
        summary=P("treefarms"),
        mcr=P("treefarms_mcr"),
        members=P("treefarms_members"),
        thresholds=P("treefarms_thresholds"),
        # the set at rashomon.epsilon as TimberTrek's widget reads it (its decision-path trie)
        timbertrek=P("treefarms_timbertrek"),
    log:
        f"{LOGS}/rashomon/treefarms/{{dataset}}.log",
    benchmark:
        f"{BENCH}/treefarms/{{dataset}}.tsv"
    conda:
        "../../envs/explain.yaml"
    resources:
        mem_mb=4000,
        runtime=30,
    params:
        settings=treefarms_params,
    script:
        "../scripts/treefarms.py"


rule treefarms_figures:
    """MCR over the exact sparse-tree set beside the grid's decision_tree set, per variable, and the set's size against eps."""
    input:
        style=STYLE_FILE,
        summary=rules.treefarms.output.summary,
        mcr=rules.treefarms.output.mcr,
    output:
        **figure_outputs("treefarms_figures"),
    log:
        f"{LOGS}/figures/treefarms/{{dataset}}.log",
    benchmark:
        f"{BENCH}/treefarms_figures/{{dataset}}.tsv"
    localrule: True
    conda:
        "../../envs/report.yaml"
    params:
        epsilon=RASHOMON["epsilon"],
    script:
        "../scripts/treefarms_figures.py"


rule treefarms_table:
    """All binary classification datasets' TreeFARMS sets per eps in one table."""
    input:
        tables=per_dataset("treefarms", TREEFARMS_DATASETS),
    output:
        table=report(
            P("table", name="treefarms"),
            caption="../report/tables.rst",
            category="tables",
            labels={"table": "TreeFARMS sets"},
        ),
    log:
        f"{LOGS}/tables/treefarms.log",
    benchmark:
        f"{BENCH}/treefarms_table.tsv"
    localrule: True
    conda:
        "../../envs/models.yaml"
    script:
        "../scripts/concat_tables.py"


rule rashomon_bootstrap_shard:
    """Some of the B bootstrap resamples (round-robin): the Rashomon set rebuilt on each, MR of its members."""
    input:
        table=rules.prepare.output.table,
        info=rules.prepare.output.info,
        split=rules.split.output.split,
        # the CV summaries of the bootstrapped model class: the "se" epsilon made absolute
        summaries=lambda w: [
            P("cv_summary", dataset=w.dataset, family=f)
            for f in bootstrap_families(w.dataset)
        ],
    output:
        shard=P("bootstrap_shard"),
    log:
        f"{LOGS}/rashomon/bootstrap/{{dataset}}_{{shard}}.log",
    benchmark:
        f"{BENCH}/rashomon_bootstrap/{{dataset}}_{{shard}}.tsv"
    # long and needing only the split: start early (the critical path of a full run)
    priority: 20
    conda:
        "../../envs/explain.yaml"
    resources:
        mem_mb=3000,
        runtime=60,
    params:
        settings=bootstrap_params,
        n_shards=BOOTSTRAP_SHARDS,
        grids=lambda w: {
            f: config["grids"][task_of(w.dataset)][f]
            for f in bootstrap_families(w.dataset)
        },
    script:
        "../scripts/rashomon_bootstrap_shard.py"


rule rashomon_bootstrap:
    """B bootstrap resamples of the training rows, the Rashomon set rebuilt on each: RID and MCR endpoint intervals."""
    input:
        shards=expand(
            P("bootstrap_shard"), shard=range(BOOTSTRAP_SHARDS), allow_missing=True
        ),
        info=rules.prepare.output.info,
    output:
        models=P("bootstrap_models"),
        reliance=P("bootstrap_reliance"),
        sizes=P("bootstrap_sizes"),
        mcr=P("bootstrap_mcr"),
        rid=P("rid_summary"),
        mcr_summary=P("bootstrap_mcr_summary"),
    log:
        f"{LOGS}/rashomon/bootstrap/{{dataset}}.log",
    benchmark:
        f"{BENCH}/rashomon_bootstrap/{{dataset}}.tsv"
    priority: 20
    # combines the shards in seconds: on a cluster, no job of its own
    localrule: True
    conda:
        "../../envs/explain.yaml"
    resources:
        mem_mb=2000,
        runtime=15,
    params:
        settings=bootstrap_params,
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
        **figure_outputs("rid_figures"),
    log:
        f"{LOGS}/figures/rid/{{dataset}}.log",
    benchmark:
        f"{BENCH}/rid_figures/{{dataset}}.tsv"
    localrule: True
    conda:
        "../../envs/report.yaml"
    params:
        confidence=RASHOMON["bootstrap"]["confidence"],
    script:
        "../scripts/rid_figures.py"


rule mcr_table:
    """All datasets' MCR intervals in one table (dataset, scope, epsilon, feature, mcr_minus, mcr_plus, ...)."""
    input:
        tables=per_dataset("mcr"),
    output:
        table=report(
            ensure(P("table", name="mcr"), non_empty=True),
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


rule abalone_study_cv:
    """One shard of the Table 4.1 CV: whole prefix groups of the grid (every fold), dealt round-robin."""
    input:
        table=P("prepared", dataset=STUDY["dataset"]),
        info=P("prepared_info", dataset=STUDY["dataset"]),
        split=P("split", dataset=STUDY["dataset"]),
    output:
        shard=P("study_cv_shard", dataset="abalone_study"),
    log:
        f"{LOGS}/rashomon/abalone_study/cv_{{shard}}.log",
    benchmark:
        f"{BENCH}/abalone_study/cv_{{shard}}.tsv"
    # the longest chain of a full run, needing only the split: start it first
    priority: 50
    conda:
        "../../envs/models.yaml"
    resources:
        mem_mb=2000,
        runtime=60,
    params:
        study=STUDY,
        seed=config["seed"],
        n_shards=STUDY_SHARDS,
    script:
        "../scripts/abalone_study_shard.py"


rule abalone_study:
    """Seed 001 Table 4.1: 5-fold CV RMSE of the 324 GradientBoostingRegressor models on Abalone (from the shards)."""
    input:
        shards=expand(
            P("study_cv_shard", dataset="abalone_study"), shard=range(STUDY_SHARDS)
        ),
        info=P("prepared_info", dataset=STUDY["dataset"]),
        reference=REFERENCE_FILE,
    output:
        summary=P("study_cv_summary", dataset="abalone_study"),
        comparison=P("study_comparison", dataset="abalone_study"),
        pattern=P("study_pattern", dataset="abalone_study"),
    log:
        f"{LOGS}/rashomon/abalone_study.log",
    benchmark:
        f"{BENCH}/abalone_study/cv.tsv"
    priority: 50
    # combines the shards in seconds: on a cluster, no job of its own
    localrule: True
    conda:
        "../../envs/models.yaml"
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        study=STUDY,
    script:
        "../scripts/abalone_study.py"


rule abalone_study_mcr:
    """Rashomon set, member MR and MCR over the Table 4.1 grid (Figs 4.1 and 4.2 of seed 001)."""
    input:
        summaries=[rules.abalone_study.output.summary],
        table=P("prepared", dataset=STUDY["dataset"]),
        info=P("prepared_info", dataset=STUDY["dataset"]),
        split=P("split", dataset=STUDY["dataset"]),
    output:
        sets=P("rashomon_sets", dataset="abalone_study"),
        members=P("rashomon_members", dataset="abalone_study"),
        mcr=P("mcr", dataset="abalone_study"),
        path=P("mcr_path", dataset="abalone_study"),
        envelope=P("pd_envelope", dataset="abalone_study"),
        curves=P("pd_curves", dataset="abalone_study"),
    log:
        f"{LOGS}/rashomon/abalone_study_mcr.log",
    benchmark:
        f"{BENCH}/abalone_study/mcr.tsv"
    conda:
        "../../envs/explain.yaml"
    threads: config["threads"]["rashomon"]
    resources:
        mem_mb=6000,
        runtime=120,
    params:
        settings=STUDY_RASHOMON_PARAMS,
    script:
        "../scripts/rashomon.py"


rule abalone_study_figures:
    """Figs 4.1 and 4.2 of seed 001 (and MCR intervals, eps-sensitivity) for the Table 4.1 grid."""
    input:
        style=STYLE_FILE,
        members=rules.abalone_study_mcr.output.members,
        mcr=rules.abalone_study_mcr.output.mcr,
        path=rules.abalone_study_mcr.output.path,
        envelope=rules.abalone_study_mcr.output.envelope,
        curves=rules.abalone_study_mcr.output.curves,
    output:
        **figure_outputs("abalone_study_figures"),
    log:
        f"{LOGS}/figures/abalone_study.log",
    benchmark:
        f"{BENCH}/abalone_study_figures.tsv"
    localrule: True
    conda:
        "../../envs/report.yaml"
    params:
        scope=STUDY["family"],
        epsilon=RASHOMON["epsilon"],
        quantity=RASHOMON["figure_quantity"],
    script:
        "../scripts/rashomon_figures.py"
