# Models: grid cross-validation (shared prefixes) -> best configuration ->
# refit on the 80 % -> test metrics; OLS inference; result tables; manifest.


rule cv_shard:
    """One shard of a split CV (config key cv_shards): whole fit units of the family's grid, every fold, or (unit, fold) pairs."""
    input:
        table=rules.prepare.output.table,
        info=rules.prepare.output.info,
        split=rules.split.output.split,
    output:
        shard=P("cv_shard"),
    log:
        f"{LOGS}/models/cv/{{dataset}}/{{family}}_{{shard}}.log",
    benchmark:
        f"{BENCH}/cv/{{dataset}}/{{family}}_{{shard}}.tsv"
    conda:
        "../../envs/models.yaml"
    threads: config["threads"]["cv"]
    resources:
        mem_mb=4000,
        runtime=60,
    params:
        settings=cv_params,
        n_shards=lambda w: cv_shards(w.dataset, w.family),
    script:
        "../scripts/cv_shard.py"


rule cv:
    """5-fold CV of one family's grid; every n_estimators value of a configuration from one fit per fold
    (or the combination of its cv_shard jobs)."""
    input:
        table=rules.prepare.output.table,
        info=rules.prepare.output.info,
        split=rules.split.output.split,
        shards=lambda w: cv_shard_files(w.dataset, w.family),
    output:
        cv=P("cv"),
        summary=P("cv_summary"),
        best=P("best"),
    log:
        f"{LOGS}/models/cv/{{dataset}}/{{family}}.log",
    benchmark:
        f"{BENCH}/cv/{{dataset}}/{{family}}.tsv"
    conda:
        "../../envs/models.yaml"
    threads: config["threads"]["cv"]
    resources:
        mem_mb=4000,
        runtime=60,
    params:
        settings=cv_params,
    script:
        "../scripts/cv.py"


rule fit:
    """Refit the best configuration on the whole 80 %, save it, evaluate on the 20 %."""
    input:
        table=rules.prepare.output.table,
        info=rules.prepare.output.info,
        split=rules.split.output.split,
        best=rules.cv.output.best,
    output:
        model=P("model"),
        metrics=P("test"),
        predictions=P("predictions"),
    log:
        f"{LOGS}/models/fit/{{dataset}}/{{family}}.log",
    benchmark:
        f"{BENCH}/fit/{{dataset}}/{{family}}.tsv"
    conda:
        "../../envs/models.yaml"
    threads: config["threads"]["fit"]
    resources:
        mem_mb=4000,
        runtime=30,
    params:
        settings=cv_params,
    script:
        "../scripts/fit.py"


rule dataset_test_metrics:
    """Test metrics of every family of one dataset (requesting it runs only that dataset's jobs)."""
    input:
        metrics=lambda w: [
            P("test", dataset=w.dataset, family=f) for f in families_of(w.dataset)
        ],
        best=lambda w: [
            P("best", dataset=w.dataset, family=f) for f in families_of(w.dataset)
        ],
    output:
        table=P("dataset_test_metrics"),
    log:
        f"{LOGS}/models/test_metrics/{{dataset}}.log",
    benchmark:
        f"{BENCH}/dataset_test_metrics/{{dataset}}.tsv"
    localrule: True
    conda:
        "../../envs/models.yaml"
    script:
        "../scripts/dataset_test_metrics.py"


rule test_metrics:
    """All datasets' test metrics, best configurations and confusion matrices."""
    input:
        tables=per_dataset("dataset_test_metrics"),
    output:
        table=report(
            ensure(P("table", name="test_metrics"), non_empty=True),
            caption="../report/tables.rst",
            category="tables",
            labels={"table": "test metrics"},
        ),
        best=P("table", name="best_configurations"),
        confusion=P("table", name="confusion_matrices"),
    log:
        f"{LOGS}/tables/test_metrics.log",
    benchmark:
        f"{BENCH}/test_metrics.tsv"
    localrule: True
    conda:
        "../../envs/models.yaml"
    script:
        "../scripts/test_metrics.py"


rule thesis_comparison:
    """Reproduced Tables 5.2 / 5.4 / 5.6 beside the published numbers (config/reference.yaml)."""
    input:
        metrics=rules.test_metrics.output.table,
        reference=REFERENCE_FILE,
    output:
        table=report(
            P("table", name="thesis_comparison"),
            caption="../report/tables.rst",
            category="tables",
            labels={"table": "thesis comparison"},
        ),
    log:
        f"{LOGS}/tables/thesis_comparison.log",
    benchmark:
        f"{BENCH}/thesis_comparison.tsv"
    localrule: True
    conda:
        "../../envs/models.yaml"
    script:
        "../scripts/thesis_comparison.py"


rule ols:
    """Classical OLS inference (coefficient, standard error, t, p, 95 % CI) on the 80 % split."""
    input:
        table=rules.prepare.output.table,
        info=rules.prepare.output.info,
        split=rules.split.output.split,
    output:
        table=P("ols"),
    log:
        f"{LOGS}/models/ols/{{dataset}}.log",
    benchmark:
        f"{BENCH}/ols/{{dataset}}.tsv"
    conda:
        "../../envs/models.yaml"
    script:
        "../scripts/ols.py"


rule ols_table:
    """All datasets' OLS inference tables in one."""
    input:
        tables=per_dataset("ols", OLS_DATASETS),
    output:
        table=P("table", name="ols_inference"),
    log:
        f"{LOGS}/tables/ols_inference.log",
    benchmark:
        f"{BENCH}/ols_table.tsv"
    localrule: True
    conda:
        "../../envs/models.yaml"
    script:
        "../scripts/concat_tables.py"


rule logit:
    """Logistic-regression coefficient table (statsmodels Logit on the standardised 80 %: log-odds per SD,
    SE, z, p, CI, odds ratio exp(b) and its CI; seed 000 / 002), beside the fitted family's coefficients.
    """
    input:
        unpack(
            lambda w: (
                {"model": P("model", dataset=w.dataset, family="logistic_regression")}
                if "logistic_regression" in families_of(w.dataset)
                else {}
            )
        ),
        table=rules.prepare.output.table,
        info=rules.prepare.output.info,
        split=rules.split.output.split,
    output:
        table=P("logit"),
    log:
        f"{LOGS}/models/logit/{{dataset}}.log",
    benchmark:
        f"{BENCH}/logit/{{dataset}}.tsv"
    wildcard_constraints:
        dataset="|".join(d for d in DATASETS if task_of(d) == "classification")
        or "NO_DATASET",
    localrule: True
    conda:
        "../../envs/models.yaml"
    script:
        "../scripts/logit.py"


rule logit_table:
    """All classification datasets' logistic coefficient tables in one."""
    input:
        tables=lambda w: per_dataset(
            "logit", [d for d in DATASETS if task_of(d) == "classification"]
        ),
    output:
        table=report(
            P("table", name="logit_inference"),
            caption="../report/tables.rst",
            category="tables",
            labels={"table": "logistic regression coefficients"},
        ),
    log:
        f"{LOGS}/tables/logit_inference.log",
    benchmark:
        f"{BENCH}/logit_table.tsv"
    localrule: True
    conda:
        "../../envs/models.yaml"
    script:
        "../scripts/concat_tables.py"
