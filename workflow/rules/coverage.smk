# Coverage audit on simulated data (issue 23): R fresh draws from a DGP with known truth; coverage of
# the learner-PD / learner-PFI intervals and of [MCR-, MCR+] (docs/simulation.md, "Coverage audit").
# Its own target, `snakemake --cores 2 coverage`; not part of `all`. Settings: COVERAGE_SETTINGS
# in common.smk.


rule coverage_audit:
    """R simulated data sets: learner-PD/PFI intervals and MCR against the DGP's truth; coverage table."""
    output:
        coverage=P("table", name="coverage"),
        repetitions=P("table", name="coverage_repetitions"),
    log:
        f"{LOGS}/coverage/coverage_audit.log",
    benchmark:
        f"{BENCH}/coverage/coverage_audit.tsv"
    conda:
        "../../envs/explain.yaml"
    threads: COVERAGE["threads"]
    resources:
        mem_mb=4000,
        runtime=60,
    params:
        settings=COVERAGE_SETTINGS.to_params(),
    script:
        "../scripts/coverage_audit.py"


rule coverage_figure:
    """Nominal against empirical coverage of the learner intervals; MCR coverage per variable and scope."""
    input:
        style=STYLE_FILE,
        coverage=rules.coverage_audit.output.coverage,
    output:
        **figure_outputs("coverage_figure"),
    log:
        f"{LOGS}/figures/coverage.log",
    benchmark:
        f"{BENCH}/coverage_figure/coverage.tsv"
    localrule: True
    conda:
        "../../envs/report.yaml"
    params:
        epsilon=COVERAGE_EPSILON,
    script:
        "../scripts/coverage_figure.py"


rule coverage:
    """Target: the coverage audit's tables and figure (`snakemake --cores 2 coverage`)."""
    input:
        rules.coverage_audit.output,
        rules.coverage_figure.output,
    localrule: True
