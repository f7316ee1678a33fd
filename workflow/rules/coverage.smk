# Coverage audit on simulated data (issue 23): R fresh draws from a DGP with known truth; coverage of
# the learner-PD / learner-PFI intervals and of [MCR-, MCR+] (docs/simulation.md, "Coverage audit").
# Its own target, `snakemake --cores 2 coverage`; not part of `all`.

COVERAGE = config["coverage"]


def coverage_params():
    """Arguments of xaipipe.studies.coverage.coverage_audit: the `coverage` section, with the pipeline's
    own learner settings (explain.learner) and epsilon rule (rashomon) where it leaves them null."""
    learner = dict(COVERAGE["learner"])
    families = learner.pop("families")
    for key in ("n_refits", "fraction", "pfi_estimator", "n_repeats"):
        if learner.get(key) is None:
            learner[key] = config["explain"]["learner"][key]
    mcr = dict(COVERAGE["mcr"])
    for key in ("epsilon_mode", "epsilons"):
        if mcr.get(key) is None:
            mcr[key] = RASHOMON[key]
    mcr.pop("epsilon")
    mcr.pop("enabled")
    for key, fams in (("coverage.learner.families", families), ("coverage.mcr.families", mcr["families"])):
        for family in fams:
            check_family(f"{key}.{family}", family, "regression")
    return {
        "dgp": COVERAGE["dgp"],
        "n": COVERAGE["n"],
        "p": COVERAGE["p"],
        "noise_sd": COVERAGE["noise_sd"],
        "n_repetitions": COVERAGE["n_repetitions"],
        "test_size": config["split"]["test_size"],
        "cv_folds": config["split"]["cv_folds"],
        "learners": families,
        "learner_config": learner,
        "rashomon_config": mcr if COVERAGE["mcr"]["enabled"] else False,
        "options": config["estimator_options"],
        "nominal": COVERAGE["nominal"],
        "random_state": config["seed"],
    }


COVERAGE_EPSILON = COVERAGE["mcr"]["epsilon"] if COVERAGE["mcr"]["epsilon"] is not None else RASHOMON["epsilon"]
if COVERAGE["mcr"]["enabled"] and COVERAGE_EPSILON not in (COVERAGE["mcr"]["epsilons"] or RASHOMON["epsilons"]):
    raise ValueError(
        f"config key coverage.mcr.epsilon ({COVERAGE_EPSILON}) must be one of the coverage epsilons "
        f"{COVERAGE['mcr']['epsilons'] or RASHOMON['epsilons']}"
    )


rule coverage_audit:
    """R simulated data sets: learner-PD/PFI intervals and MCR against the DGP's truth; coverage table."""
    output:
        coverage=P("table", name="coverage"),
        repetitions=P("table", name="coverage_repetitions"),
    params:
        coverage=coverage_params(),
    threads: COVERAGE["threads"]
    resources:
        mem_mb=4000,
        runtime=60,
    log:
        f"{LOGS}/coverage/coverage_audit.log",
    benchmark:
        f"{BENCH}/coverage/coverage_audit.tsv"
    conda:
        "../../envs/explain.yaml"
    script:
        "../scripts/coverage_audit.py"


rule coverage_figure:
    """Nominal against empirical coverage of the learner intervals; MCR coverage per variable and scope."""
    input:
        style=STYLE_FILE,
        coverage=rules.coverage_audit.output.coverage,
    output:
        pdf=P("coverage_figure", kind="coverage", ext="pdf"),
        png=report(
            P("coverage_figure", kind="coverage", ext="png"),
            caption="../report/coverage.rst",
            category="Coverage audit",
            labels={"figure": "coverage"},
        ),
    params:
        epsilon=COVERAGE_EPSILON,
    log:
        f"{LOGS}/figures/coverage.log",
    benchmark:
        f"{BENCH}/coverage_figure/coverage.tsv"
    localrule: True
    conda:
        "../../envs/report.yaml"
    script:
        "../scripts/coverage_figure.py"


rule coverage:
    """Target: the coverage audit's tables and figure (`snakemake --cores 2 coverage`)."""
    input:
        rules.coverage_audit.output,
        rules.coverage_figure.output,
    localrule: True
