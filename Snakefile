# xaipipe: model reliance, model class reliance over Rashomon sets, PD/ICE and
# SHAP for six datasets. See README.md; every config key is in config/README.md.
from snakemake.utils import min_version

min_version("9.0")

# config/config.yaml checked as a file before Snakemake reads it: a YAML error or a duplicate key names
# the file and the line (xaipipe.config_files; the --configfile files are checked in common.smk).
from pathlib import Path  # noqa: E402

from xaipipe.config_files import check_yaml_file  # noqa: E402

if Path("config/config.yaml").exists():  # Snakemake reads it only where it exists, too
    check_yaml_file("config/config.yaml")


configfile: "config/config.yaml"


report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"
include: "workflow/rules/figures.smk"
include: "workflow/rules/data.smk"
include: "workflow/rules/models.smk"
include: "workflow/rules/explain.smk"
include: "workflow/rules/dependence.smk"
include: "workflow/rules/sage.smk"
include: "workflow/rules/rashomon.smk"
include: "workflow/rules/report.smk"
include: "workflow/rules/explorer.smk"
include: "workflow/rules/coverage.smk"
include: "workflow/rules/twins.smk"
include: "workflow/rules/comparison.smk"
include: "workflow/rules/simulation.smk"
include: "workflow/rules/targets.smk"
include: "workflow/rules/code.smk"


rule all:
    default_target: True
    input:
        ALL_TARGETS,
