# The Rashomon explorer (issue 44): every Rashomon result of the study in one static page that
# opens from disk (results/<version>/explorer/index.html), built from the result tables only.


rule explorer:
    """One self-contained interactive page of every dataset's Rashomon set (Vega-Lite via Altair, data embedded) and the PD / ALE coverage rates."""
    input:
        sets=per_dataset("rashomon_sets"),
        members=per_dataset("rashomon_members"),
        mcr=per_dataset("mcr"),
        predictions=per_dataset("member_predictions"),
        index=per_dataset("member_predictions_index"),
        effects=per_dataset("member_effects"),
        tables=per_dataset("prepared"),
        infos=per_dataset("prepared_info"),
        splits=per_dataset("split"),
        # the Rashomon prediction intervals of the regression datasets (the rows view; issue 53)
        intervals=per_dataset("prediction_interval_rows", PREDICTION_INTERVAL_DATASETS),
        # the twins' coverage table where the audit has run (docs/coverage.md): a line per interval
        twins=twins_table_if_run,
    output:
        page=P("explorer"),
        coverage=P("explorer_coverage"),
    log:
        f"{LOGS}/explorer.log",
    benchmark:
        f"{BENCH}/explorer.tsv"
    localrule: True
    conda:
        "../../envs/report.yaml"
    params:
        datasets=DATASETS,
        epsilon=RASHOMON["epsilon"],
        scope=RASHOMON["figure_scope"],
        version=VERSION,
    script:
        "../scripts/explorer.py"
