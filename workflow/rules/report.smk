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
    localrule: True
    conda:
        "../../envs/report.yaml"
    script:
        "../scripts/diff_versions.py"
