# Model comparison (seed 003, generalised): every pair of a dataset's families on the same test
# rows (paired bootstrap of the test-loss difference), each family's test loss with its binomial
# and bootstrap SE, the seed's Figs 3.1-3.4 and seed 004's ROC / precision-recall curves;
# the seed-003 rerun in its own setting.


rule model_comparison:
    """Paired bootstrap of every pair of families' test losses and each family's test loss (seed 003)."""
    input:
        predictions=lambda w: per_family("predictions", w.dataset),
    output:
        pairs=P("comparison_pairs"),
        test_loss=P("comparison_test_loss"),
    log:
        f"{LOGS}/comparison/{{dataset}}.log",
    benchmark:
        f"{BENCH}/model_comparison/{{dataset}}.tsv"
    localrule: True
    conda:
        "../../envs/models.yaml"
    params:
        families=lambda w: families_of(w.dataset),
        n_bootstrap=COMPARISON["n_bootstrap"],
        confidence=COMPARISON["confidence"],
        seed=config["seed"],
    script:
        "../scripts/model_comparison.py"


rule model_comparison_table:
    """All datasets' pairwise comparisons in one table."""
    input:
        tables=per_dataset("comparison_pairs"),
    output:
        table=report(
            P("table", name="model_comparison"),
            caption="../report/tables.rst",
            category="tables",
            labels={"table": "model comparison"},
        ),
    log:
        f"{LOGS}/tables/model_comparison.log",
    benchmark:
        f"{BENCH}/model_comparison_table.tsv"
    localrule: True
    conda:
        "../../envs/models.yaml"
    script:
        "../scripts/concat_tables.py"


rule test_loss_table:
    """All datasets' per-family test losses with binomial and bootstrap standard errors."""
    input:
        tables=per_dataset("comparison_test_loss"),
    output:
        table=report(
            P("table", name="test_loss"),
            caption="../report/tables.rst",
            category="tables",
            labels={"table": "test loss"},
        ),
    log:
        f"{LOGS}/tables/test_loss.log",
    benchmark:
        f"{BENCH}/test_loss_table.tsv"
    localrule: True
    conda:
        "../../envs/models.yaml"
    script:
        "../scripts/concat_tables.py"


rule comparison_figures_classification:
    """Figs 3.1 (reject option), 3.2 (test error bootstrap), 3.3 (difference) of seed 003; ROC and PR curves."""
    input:
        style=STYLE_FILE,
        info=rules.prepare.output.info,
        predictions=lambda w: per_family("predictions", w.dataset),
        pairs=rules.model_comparison.output.pairs,
        test_loss=rules.model_comparison.output.test_loss,
    output:
        **figure_outputs("comparison_figures", "classification"),
    log:
        f"{LOGS}/figures/comparison/{{dataset}}.log",
    benchmark:
        f"{BENCH}/comparison_figures/{{dataset}}.tsv"
    wildcard_constraints:
        dataset="|".join(CLASSIFICATION_DATASETS) or "NO_DATASET",
    localrule: True
    conda:
        "../../envs/report.yaml"
    params:
        families=lambda w: families_of(w.dataset),
        n_bootstrap=COMPARISON["n_bootstrap"],
        seed=config["seed"],
    script:
        "../scripts/comparison_figures.py"


# Snakemake 9 resets `localrule` in `use rule ... with:` unless it is repeated there
# (RuleInfo.localrule defaults to False, which overwrites the parent's True).
use rule comparison_figures_classification as comparison_figures_regression with:
    output:
        **figure_outputs("comparison_figures", "regression"),
    wildcard_constraints:
        dataset="|".join(REGRESSION_DATASETS) or "NO_DATASET",
    localrule: True


rule squared_terms:
    """Seed 003's Diabetes comparison on the pipeline's split: OLS on the |t| >= 2 variables and their
    squares against OLS on all variables, paired bootstrap of the test MSE and MAE (ols_inference datasets).
    """
    input:
        table=rules.prepare.output.table,
        info=rules.prepare.output.info,
        split=rules.split.output.split,
    output:
        table=P("squared_terms"),
    log:
        f"{LOGS}/comparison/squared_terms/{{dataset}}.log",
    benchmark:
        f"{BENCH}/squared_terms/{{dataset}}.tsv"
    localrule: True
    conda:
        "../../envs/models.yaml"
    params:
        n_bootstrap=COMPARISON["n_bootstrap"],
        confidence=COMPARISON["confidence"],
        seed=config["seed"],
    script:
        "../scripts/squared_terms.py"


rule squared_terms_table:
    """The squared-terms comparisons of every ols_inference dataset in one table."""
    input:
        tables=per_dataset("squared_terms", OLS_DATASETS),
    output:
        table=report(
            P("table", name="squared_terms"),
            caption="../report/tables.rst",
            category="tables",
            labels={"table": "OLS with squared terms vs OLS"},
        ),
    log:
        f"{LOGS}/tables/squared_terms.log",
    benchmark:
        f"{BENCH}/squared_terms_table.tsv"
    localrule: True
    conda:
        "../../envs/models.yaml"
    script:
        "../scripts/concat_tables.py"


rule seed003:
    """Seed 003 rerun once in its own setting, its printed numbers beside ours, and its Figs 3.1-3.4."""
    input:
        style=STYLE_FILE,
    output:
        **figure_outputs("seed003"),
        table=report(
            P("seed003", name="seed003_comparison"),
            caption="../report/seed003.rst",
            category="thesis",
            subcategory=thesis_subcategory("003"),
            labels={"table": "printed beside rerun"},
        ),
        difference=P("seed003", name="difference_test"),
        error=P("seed003", name="error_summary"),
        squared=P("seed003", name="diabetes_squared_terms"),
    log:
        f"{LOGS}/studies/seed003.log",
    benchmark:
        f"{BENCH}/seed003.tsv"
    localrule: True
    conda:
        "../../envs/models.yaml"
    params:
        n_bootstrap=COMPARISON["seed003"]["n_bootstrap"],
    script:
        "../scripts/seed003.py"
