# Report: provenance manifest, thesis figures and tables, version diffs.


rule manifest:
    """Provenance: git commit and dirty flag, config and its hash, package versions, dataset checksums, seeds."""
    input:
        sidecars=per_dataset("{results}/data/{dataset}/canonical.json"),
        splits=per_dataset("{results}/data/{dataset}/split.json"),
        results=lambda w: [t for t in ALL_TARGETS if not t.endswith("manifest.json")],
    output:
        manifest=f"{RESULTS}/manifest.json",
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
        details=f"{RESULTS}/diff/{{other}}.csv",
        summary=f"{RESULTS}/diff/{{other}}_summary.csv",
    params:
        rtol=1e-9,
    wildcard_constraints:
        other="[A-Za-z0-9][A-Za-z0-9._-]*",
    log:
        f"{LOGS}/diff/{{other}}.log",
    benchmark:
        f"{BENCH}/diff_versions/{{other}}.tsv"
    localrule: True
    conda:
        "../../envs/report.yaml"
    script:
        "../scripts/diff_versions.py"


rule thesis_figure:
    """One figure of the theses (mapping in config `thesis.figures`), re-rendered from stored results."""
    input:
        unpack(lambda w: figure_sources(THESIS_FIGURES[w.name], RESULTS)),
        style=STYLE_FILE,
    output:
        pdf=f"{RESULTS}/thesis/{{name}}.pdf",
        png=report(
            f"{RESULTS}/thesis/{{name}}.png",
            caption="../report/thesis_figure.rst",
            category="thesis",
            subcategory="figures",
            labels={"figure": "{name}"},
        ),
    params:
        entry=lambda w: THESIS_FIGURES[w.name],
        epsilon=RASHOMON["epsilon"],
        ranking=config["explain"]["reliance"]["ranking"],
        loss=lambda w: config["explain"]["reliance"]["losses"][
            task_of(THESIS_FIGURES[w.name].get("dataset", "abalone"))
        ][0],
    wildcard_constraints:
        name="|".join(THESIS_FIGURES) or "NO_THESIS_FIGURES",
    log:
        f"{LOGS}/thesis/{{name}}.log",
    benchmark:
        f"{BENCH}/thesis_figure/{{name}}.tsv"
    localrule: True
    conda:
        "../../envs/explain.yaml"
    script:
        "../scripts/thesis_figure.py"


rule thesis_table:
    """One table of the theses (mapping in config `thesis.tables`): reproduced beside published, LaTeX booktabs + CSV."""
    input:
        unpack(lambda w: table_sources(THESIS_TABLES[w.name], RESULTS)),
        reference=REFERENCE_FILE,
    output:
        tex=f"{RESULTS}/thesis/{{name}}.tex",
        csv=report(
            f"{RESULTS}/thesis/{{name}}.csv",
            caption="../report/tables.rst",
            category="thesis",
            subcategory="tables",
            labels={"table": "{name}"},
        ),
    params:
        entry=lambda w: THESIS_TABLES[w.name],
    wildcard_constraints:
        name="|".join(THESIS_TABLES) or "NO_THESIS_TABLES",
    log:
        f"{LOGS}/thesis/{{name}}.log",
    benchmark:
        f"{BENCH}/thesis_table/{{name}}.tsv"
    localrule: True
    conda:
        "../../envs/report.yaml"
    script:
        "../scripts/thesis_table.py"


rule figures:
    """Every thesis figure (PDF + PNG) under results/<version>/thesis/; only rendering when the results exist."""
    input:
        [f"{RESULTS}/thesis/{name}.pdf" for name in THESIS_FIGURES],
    localrule: True


rule tables:
    """Every thesis table (LaTeX + CSV) under results/<version>/thesis/."""
    input:
        [f"{RESULTS}/thesis/{name}.tex" for name in THESIS_TABLES],
    localrule: True


ALL_TARGETS += [f"{RESULTS}/thesis/{name}.pdf" for name in THESIS_FIGURES]
ALL_TARGETS += [f"{RESULTS}/thesis/{name}.tex" for name in THESIS_TABLES]


rule profile:
    """The slowest jobs and per-rule totals of this version, from the `benchmark:` files of all
    its rules but this one (request results/<version>/profile/slowest_rules.csv after a run)."""
    input:
        # after the whole study (the manifest waits for every target), re-profiled when anything reruns
        manifest=rules.manifest.output.manifest,
    output:
        jobs=f"{RESULTS}/profile/slowest_rules.csv",
        rules=f"{RESULTS}/profile/rule_totals.csv",
        markdown=f"{RESULTS}/profile/slowest_rules.md",
    params:
        benchmarks=BENCH,
        patterns=lambda w: {r.name: str(r.benchmark) for r in workflow.rules if r.benchmark},
        top=25,
    log:
        f"{LOGS}/profile.log",
    localrule: True
    conda:
        "../../envs/report.yaml"
    script:
        "../scripts/profile_table.py"
