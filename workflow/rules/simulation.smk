# Simulated data with a known truth (issue 23, docs/simulation.md): the pipeline's estimates on every
# enabled dataset of source kind `simulated` beside the truth of its DGP, and the illustrations of the
# thesis' chapters 2-3 (seed 001), computed as tables and drawn by the thesis_figure rule.

# enabled datasets generated from a DGP (source kind `simulated`)
SIMULATED = [d for d in DATASETS if REGISTRY[d].kind == "simulated"]
# per simulated dataset and family: the pipeline tables that truth_table compares with the truth
SIMULATION_TRUTH_PARTS = [
    {
        "dataset": d,
        "family": f,
        "tables": {
            "reliance": P("model_reliance", dataset=d, family=f),
            "curves": P("pd_ice", dataset=d, family=f),
            **(
                {
                    "learner_pd": P("learner_pd", dataset=d, family=f),
                    "learner_pfi": P("learner_pfi", dataset=d, family=f),
                }
                if f in config["explain"]["learner"]["families"]
                else {}
            ),
        },
    }
    for d in SIMULATED
    for f in families_of(d)
]
# the correlated variant of each simulated dataset (config simulation_truth.correlated, issue 35): the
# families refitted on it, with their best configuration on the dataset
# (xaipipe.config.CorrelatedSettings, unit-tested: registered regression families; params.settings
# is its to_params(); simulation_truth.correlated.enabled / .families choose the parts)
CORRELATED = CorrelatedSettings.from_config(config)
CORRELATED_PARTS = (
    {
        d: {
            f: P("best", dataset=d, family=f)
            for f in config["simulation_truth"]["correlated"]["families"]
            if f in families_of(d)
        }
        for d in SIMULATED
    }
    if config["simulation_truth"]["correlated"]["enabled"]
    else {}
)
# illustrations computed on simulated data by the `illustration` rule (Fig 2.1 has its own rule)
ILLUSTRATION_TABLES = [
    k for k in config["illustrations"] if k not in ("enabled", "data", "diabetes_tree")
]


rule simulation_truth:
    """PD, d-PD, ICE, d-ICE, MR and learner-PD/PFI estimates of the simulated datasets beside the DGP's truth."""
    input:
        sidecars=[P("canonical_sidecar", dataset=d) for d in SIMULATED],
        prepared=[P("prepared", dataset=d) for d in SIMULATED],
        tables=[
            path for part in SIMULATION_TRUTH_PARTS for path in part["tables"].values()
        ],
        best=[path for parts in CORRELATED_PARTS.values() for path in parts.values()],
    output:
        table=report(
            P("table", name="simulation_truth"),
            caption="../report/simulation_truth.rst",
            # the simulated dataset's category (one concept: the simulated data); several: tables
            category=SIMULATED[0] if len(SIMULATED) == 1 else "tables",
            subcategory="truth of the DGP",
            labels={"table": "simulation truth"},
        ),
    log:
        f"{LOGS}/simulation/simulation_truth.log",
    benchmark:
        f"{BENCH}/simulation_truth/simulation_truth.tsv"
    localrule: True
    conda:
        "../../envs/explain.yaml"
    params:
        parts=SIMULATION_TRUTH_PARTS,
        datasets=SIMULATED,
        seed=config["seed"],
        correlated=CORRELATED_PARTS,
        settings=CORRELATED.to_params(),
    script:
        "../scripts/simulation_truth.py"


rule illustration:
    """One illustration of the thesis' chapters 2-3 (pruning path, OOB curve, losses, boosting depth,
    staged curves with early stopping) as a table, on the seed's simulated data."""
    output:
        table=P("illustration"),
    log:
        f"{LOGS}/illustrations/{{illustration}}.log",
    benchmark:
        f"{BENCH}/illustration/{{illustration}}.tsv"
    wildcard_constraints:
        illustration="|".join(ILLUSTRATION_TABLES),
    conda:
        "../../envs/explain.yaml"
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        illustration="{illustration}",
        options=lambda w: config["illustrations"][w.illustration],
        data=config["illustrations"]["data"],
        seed=config["seed"],
    script:
        "../scripts/illustration.py"


rule illustration_tree:
    """Fig 2.1: the regression tree of Diabetes on BMI and age (all 442 rows)."""
    input:
        # the canonical Diabetes table when Diabetes runs; otherwise scikit-learn's bundled copy (same rows)
        unpack(
            lambda w: (
                {
                    "table": P("canonical", dataset="diabetes"),
                    "sidecar": P("canonical_sidecar", dataset="diabetes"),
                }
                if "diabetes" in DATASETS
                else {}
            )
        ),
    output:
        model=P("illustration_model", illustration="diabetes_tree"),
        table=P("illustration", illustration="diabetes_tree"),
    log:
        f"{LOGS}/illustrations/diabetes_tree.log",
    benchmark:
        f"{BENCH}/illustration/diabetes_tree.tsv"
    localrule: True
    conda:
        "../../envs/explain.yaml"
    params:
        options=config["illustrations"]["diabetes_tree"],
        seed=config["seed"],
    script:
        "../scripts/illustration_tree.py"


rule illustrations:
    """Target: the chapter 2-3 illustration tables, and their thesis figures when `illustrations.enabled`
    (`snakemake --cores 2 illustrations`)."""
    input:
        [P("illustration", illustration=n) for n in ILLUSTRATION_TABLES],
        P("illustration_model", illustration="diabetes_tree"),
        [
            P("thesis_figure", name=name, ext="pdf")
            for name, entry in THESIS_FIGURES.items()
            if entry["kind"] == "illustration"
        ],
    localrule: True
