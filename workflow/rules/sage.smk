# SAGE (Covert, Lundberg & Lee 2020): Shapley additive global importance of the fitted model of
# every family in explain.sage.families (null: every family), marginal imputation, on the test rows
# (docs/sage.md); per dataset x family, its figure beside MR's ranking, one aggregated table.


rule sage:
    """Marginal SAGE values with their Monte-Carlo SE (sage-importance's permutation estimator)."""
    input:
        table=rules.prepare.output.table,
        info=rules.prepare.output.info,
        split=rules.split.output.split,
        model=rules.fit.output.model,
    output:
        table=P("sage"),
    log:
        f"{LOGS}/explain/sage/{{dataset}}/{{family}}.log",
    benchmark:
        f"{BENCH}/sage/{{dataset}}/{{family}}.tsv"
    conda:
        "../../envs/explain.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        # xaipipe.config.SageSettings: one dict, rebuilt by the script with from_params
        settings=SAGE_SETTINGS.to_params(),
    script:
        "../scripts/sage.py"


rule sage_figures:
    """SAGE bars with their 95 % Monte-Carlo intervals beside the MR of the same variables."""
    input:
        style=STYLE_FILE,
        sage=rules.sage.output.table,
        reliance=rules.model_reliance.output.reliance,
        # the twins' coverage table where the audit has run (docs/coverage.md): the caption
        twins=twins_table_if_run,
    output:
        **figure_outputs("sage_figures"),
    log:
        f"{LOGS}/figures/sage/{{dataset}}/{{family}}.log",
    benchmark:
        f"{BENCH}/sage_figures/{{dataset}}/{{family}}.tsv"
    localrule: True
    conda:
        "../../envs/report.yaml"
    params:
        ranking=config["explain"]["reliance"]["ranking"],
    script:
        "../scripts/sage_figures.py"


rule sage_table:
    """All datasets' and families' SAGE values in one table."""
    input:
        tables=sage_models("sage"),
    output:
        table=report(
            P("table", name="sage"),
            caption="../report/tables.rst",
            category="tables",
            labels={"table": "SAGE"},
        ),
    log:
        f"{LOGS}/tables/sage.log",
    benchmark:
        f"{BENCH}/sage_table.tsv"
    localrule: True
    conda:
        "../../envs/models.yaml"
    script:
        "../scripts/concat_tables.py"
