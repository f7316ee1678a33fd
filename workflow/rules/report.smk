# Report: provenance manifest, thesis figures and tables, version diffs.


rule manifest:
    """Provenance: git commit and dirty flag, config and its hash, package versions, dataset checksums, seeds,
    the data summary (rows, missing values, imputed cells) and the invocation that built it.
    """
    input:
        sidecars=per_dataset("canonical_sidecar"),
        splits=per_dataset("split"),
        checks=per_dataset("data_checks"),
        data_summary=P("table", name="data_summary"),
        results=lambda w: [t for t in ALL_TARGETS if t != P("manifest")],
    output:
        manifest=P("manifest"),
    log:
        f"{LOGS}/manifest.log",
    benchmark:
        f"{BENCH}/manifest.tsv"
    localrule: True
    conda:
        "../../envs/report.yaml"
    script:
        "../scripts/manifest.py"


rule diff_versions:
    """Numbers that changed between another version's tables and this version's (request
    results/<version>/diff/<other>.csv)."""
    input:
        other=ancient("results/{other}/tables/test_metrics.csv"),
        this=rules.test_metrics.output.table,
    output:
        details=P("diff", name="{other}"),
        summary=P("diff", name="{other}_summary"),
    log:
        f"{LOGS}/diff/{{other}}.log",
    benchmark:
        f"{BENCH}/diff_versions/{{other}}.tsv"
    wildcard_constraints:
        other="[A-Za-z0-9][A-Za-z0-9._-]*",
    localrule: True
    conda:
        "../../envs/report.yaml"
    params:
        rtol=1e-9,
    script:
        "../scripts/diff_versions.py"


rule thesis_figure:
    """One figure of the theses (mapping in config `thesis.figures`), re-rendered from stored results."""
    input:
        unpack(lambda w: figure_sources(THESIS_FIGURES[w.name], RESULTS)),
        style=STYLE_FILE,
    output:
        pdf=P("thesis_figure", ext="pdf"),
        png=report(
            P("thesis_figure", ext="png"),
            caption="../report/thesis_figure.rst",
            category="thesis",
            subcategory=lambda w: thesis_subcategory(w.name),
            labels={"figure": "{name}"},
        ),
    log:
        f"{LOGS}/thesis/{{name}}.log",
    benchmark:
        f"{BENCH}/thesis_figure/{{name}}.tsv"
    wildcard_constraints:
        name="|".join(THESIS_FIGURES) or "NO_THESIS_FIGURES",
    localrule: True
    conda:
        "../../envs/explain.yaml"
    params:
        entry=lambda w: THESIS_FIGURES[w.name],
        epsilon=RASHOMON["epsilon"],
        ranking=config["explain"]["reliance"]["ranking"],
        loss=lambda w: config["explain"]["reliance"]["losses"][
            task_of(THESIS_FIGURES[w.name].get("dataset", "abalone"))
        ][0],
        # the figure's dataset's target_unit and explained output, for its effect axes
        target_unit=lambda w: thesis_target_unit(THESIS_FIGURES[w.name]),
        output=lambda w: thesis_output(THESIS_FIGURES[w.name]),
    script:
        "../scripts/thesis_figure.py"


rule thesis_table:
    """One table of the theses (mapping in config `thesis.tables`): reproduced beside published, LaTeX booktabs + CSV."""
    input:
        unpack(lambda w: table_sources(THESIS_TABLES[w.name], RESULTS)),
        reference=REFERENCE_FILE,
    output:
        tex=P("thesis_table", ext="tex"),
        csv=report(
            P("thesis_table", ext="csv"),
            caption="../report/tables.rst",
            category="thesis",
            subcategory=lambda w: thesis_subcategory(w.name),
            labels={"table": "{name}"},
        ),
    log:
        f"{LOGS}/thesis/{{name}}.log",
    benchmark:
        f"{BENCH}/thesis_table/{{name}}.tsv"
    wildcard_constraints:
        name="|".join(THESIS_TABLES) or "NO_THESIS_TABLES",
    localrule: True
    conda:
        "../../envs/report.yaml"
    params:
        entry=lambda w: THESIS_TABLES[w.name],
    script:
        "../scripts/thesis_table.py"


rule figures:
    """Every thesis figure (PDF + PNG) under results/<version>/thesis/; only rendering when the results exist."""
    input:
        [P("thesis_figure", name=name, ext="pdf") for name in THESIS_FIGURES],
    localrule: True


rule tables:
    """Every thesis table (LaTeX + CSV) under results/<version>/thesis/."""
    input:
        [P("thesis_table", name=name, ext="tex") for name in THESIS_TABLES],
    localrule: True


rule profile:
    """The slowest jobs and per-rule totals of this version, from the `benchmark:` files of all
    its rules but this one (request results/<version>/profile/slowest_rules.csv after a run).
    """
    input:
        # after the whole study (the manifest waits for every target), re-profiled when anything reruns
        manifest=rules.manifest.output.manifest,
    output:
        jobs=P("profile", name="slowest_rules", ext="csv"),
        rules=P("profile", name="rule_totals", ext="csv"),
        markdown=P("profile", name="slowest_rules", ext="md"),
    log:
        f"{LOGS}/profile.log",
    localrule: True
    conda:
        "../../envs/report.yaml"
    params:
        benchmarks=BENCH,
        patterns=lambda w: {
            r.name: str(r.benchmark) for r in workflow.rules if r.benchmark
        },
        top=25,
    script:
        "../scripts/profile_table.py"
