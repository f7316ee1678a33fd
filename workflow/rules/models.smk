# Models: grid cross-validation (shared prefixes) -> best configuration ->
# refit on the 80 % -> test metrics; OLS inference; result tables; manifest.


rule cv:
    """5-fold CV of one family's grid; every n_estimators value of a configuration from one fit per fold."""
    input:
        table=rules.prepare.output.table,
        info=rules.prepare.output.info,
        split=rules.split.output.split,
    output:
        cv=f"{RESULTS}/models/{{dataset}}/cv/{{family}}.csv",
        summary=f"{RESULTS}/models/{{dataset}}/cv/{{family}}_summary.csv",
        best=f"{RESULTS}/models/{{dataset}}/best/{{family}}.json",
    params:
        cv=cv_params,
    threads: config["threads"]["cv"]
    resources:
        mem_mb=4000,
        runtime=60,
    log:
        f"{LOGS}/models/cv/{{dataset}}/{{family}}.log",
    benchmark:
        f"{BENCH}/cv/{{dataset}}/{{family}}.tsv"
    conda:
        "../../envs/models.yaml"
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
        model=f"{RESULTS}/models/{{dataset}}/fitted/{{family}}.joblib",
        metrics=f"{RESULTS}/models/{{dataset}}/test/{{family}}.json",
        predictions=f"{RESULTS}/models/{{dataset}}/test/{{family}}_predictions.csv",
    params:
        cv=cv_params,
    threads: config["threads"]["fit"]
    resources:
        mem_mb=4000,
        runtime=30,
    log:
        f"{LOGS}/models/fit/{{dataset}}/{{family}}.log",
    benchmark:
        f"{BENCH}/fit/{{dataset}}/{{family}}.tsv"
    conda:
        "../../envs/models.yaml"
    script:
        "../scripts/fit.py"


rule dataset_test_metrics:
    """Test metrics of every family of one dataset (requesting it runs only that dataset's jobs)."""
    input:
        metrics=lambda w: [f"{RESULTS}/models/{w.dataset}/test/{f}.json" for f in families_of(w.dataset)],
        best=lambda w: [f"{RESULTS}/models/{w.dataset}/best/{f}.json" for f in families_of(w.dataset)],
    output:
        table=f"{RESULTS}/models/{{dataset}}/test_metrics.csv",
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
        tables=per_dataset("{results}/models/{dataset}/test_metrics.csv"),
    output:
        table=report(
            ensure(f"{RESULTS}/tables/test_metrics.csv", non_empty=True),
            caption="../report/tables.rst",
            category="tables",
            labels={"table": "test metrics"},
        ),
        best=f"{RESULTS}/tables/best_configurations.csv",
        confusion=f"{RESULTS}/tables/confusion_matrices.csv",
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
            f"{RESULTS}/tables/thesis_comparison.csv",
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
        table=f"{RESULTS}/models/{{dataset}}/ols_inference.csv",
    log:
        f"{LOGS}/models/ols/{{dataset}}.log",
    benchmark:
        f"{BENCH}/ols/{{dataset}}.tsv"
    conda:
        "../../envs/models.yaml"
    script:
        "../scripts/ols.py"


rule ols_table:
    input:
        tables=lambda w: per_dataset(
            "{results}/models/{dataset}/ols_inference.csv",
            [d for d in config["ols_inference"] if d in DATASETS],
        ),
    output:
        table=f"{RESULTS}/tables/ols_inference.csv",
    log:
        f"{LOGS}/tables/ols_inference.log",
    benchmark:
        f"{BENCH}/ols_table.tsv"
    localrule: True
    conda:
        "../../envs/models.yaml"
    script:
        "../scripts/concat_tables.py"

