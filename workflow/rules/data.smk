# Data: canonical table per dataset -> prepared table + correlation -> split.


rule canonical:
    """Read the dataset's source (verified UCI mirror or ucimlrepo, scikit-learn, a CSV/Parquet file, OpenML)
    into the canonical table + JSON sidecar."""
    input:
        files=source_files,
    output:
        table=P("canonical"),
        sidecar=P("canonical_sidecar"),
    log:
        f"{LOGS}/data/canonical/{{dataset}}.log",
    benchmark:
        f"{BENCH}/canonical/{{dataset}}.tsv"
    localrule: True
    conda:
        "../../envs/data.yaml"
    params:
        mirror=config["uci_mirror"],
        entry=lambda w: canonical_entry(w.dataset),
    script:
        "../scripts/canonical.py"


rule prepare:
    """Preparation (drops, one-hot groups, variant, positive class) and correlation matrix."""
    input:
        table=rules.canonical.output.table,
        sidecar=rules.canonical.output.sidecar,
    output:
        table=P("prepared"),
        info=P("prepared_info"),
        correlation=P("correlation"),
    log:
        f"{LOGS}/data/prepare/{{dataset}}.log",
    benchmark:
        f"{BENCH}/prepare/{{dataset}}.tsv"
    conda:
        "../../envs/data.yaml"
    params:
        options=lambda w: prep_options(w.dataset),
    script:
        "../scripts/prepare.py"


rule split:
    """80/20 train/test split (stratified for classification) and K CV folds, as row indices; refuses
    data too small for the folds, the test split, the bootstrap or the learner refits (before any fit);
    warns of separation and rare levels in the logit table's design (checks.json).
    """
    input:
        table=rules.prepare.output.table,
        info=rules.prepare.output.info,
    output:
        split=P("split"),
        checks=P("data_checks"),
    log:
        f"{LOGS}/data/split/{{dataset}}.log",
    benchmark:
        f"{BENCH}/split/{{dataset}}.tsv"
    conda:
        "../../envs/data.yaml"
    params:
        seed=config["seed"],
        test_size=config["split"]["test_size"],
        cv_folds=config["split"]["cv_folds"],
        checks=lambda w: sample_size_checks(w.dataset),
        penalized=lambda w: "logistic_regression" in families_of(w.dataset),
    script:
        "../scripts/split.py"


rule correlation_figure:
    """Correlation heatmap (thesis Figs 5.1, 5.4, 5.7)."""
    input:
        style=STYLE_FILE,
        correlation=rules.prepare.output.correlation,
    output:
        **figure_outputs("correlation_figure"),
    log:
        f"{LOGS}/figures/correlation/{{dataset}}.log",
    benchmark:
        f"{BENCH}/correlation_figure/{{dataset}}.tsv"
    localrule: True
    conda:
        "../../envs/report.yaml"
    script:
        "../scripts/correlation_figure.py"


rule data_summary:
    """Per dataset and column: rows read, selected, dropped and used, missing values, imputed cells,
    the missing-value policy, and the logit table's separation (tables/data_summary.csv).
    """
    input:
        infos=per_dataset("prepared_info"),
        sidecars=per_dataset("canonical_sidecar"),
        checks=per_dataset("data_checks"),
    output:
        table=P("table", name="data_summary"),
    log:
        f"{LOGS}/tables/data_summary.log",
    benchmark:
        f"{BENCH}/data_summary.tsv"
    localrule: True
    conda:
        "../../envs/data.yaml"
    script:
        "../scripts/data_summary.py"
