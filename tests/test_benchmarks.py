"""Benchmarks cannot rot: every script in ``benchmarks/`` runs its ``--tiny`` mode to the end.

Each script of ``benchmarks/*.py`` (found here, not listed: a new script is tested as soon as it
is added; modules whose name starts with ``_`` are helpers the scripts import) is started as
``python -m benchmarks.<name> --tiny`` from the repository root, as a user would, in its own
process. The tiny mode runs the script's real code path end to end on tiny self-made inputs
(``benchmarks/_tiny.py``: tables declared inline in the configuration, a stand-in results
folder written by the pipeline's own functions, a toy Snakemake workflow of four rules), so a
script broken by a change of the package's API, of the configuration, of the path catalog or
of Snakemake's output fails here, and so does a new script without a tiny mode (argparse:
"unrecognized arguments: --tiny") or without an entry in :data:`EXPECTED`.

Each run must exit 0 and print what :data:`EXPECTED` gives for it: the lines that carry the
script's result (its ratio line, its table header, its own bitwise-equality check). The
scripts' own assertions (naive scikit-learn against the pipeline, bitwise) run inside.

Cost: 31 CPU-seconds in all (``run``, ``shap_lime``, ``kill_resume`` ~6 s each), 80 s of wall
time at a load average of 7.5 on the 2-core development machine, about 40 s on 2 idle cores;
``scale_study`` adds ~25 CPU-seconds (three Snakemake calls on the pipeline cut to five jobs of
the simulated dataset at 60 and 120 rows; ~90 s of wall time at a load average of 9).
``critical_path``, ``timeline`` and ``kill_resume`` run Snakemake on the toy workflow (four rules,
seconds), not on the pipeline, so nothing here is marked ``integration``.
"""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from tests.conftest import REPO

BENCHMARKS = REPO / "benchmarks"
SCRIPTS = sorted(p.stem for p in BENCHMARKS.glob("*.py") if not p.name.startswith("_"))

#: What each script's tiny mode must print: regular expressions searched line by line (re.M).
EXPECTED = {
    "dependence_methods_cpu": [
        r"^dataset +tiny_regression +tiny_classification$",
        r"^conditional MR R=3 +[\d.]+ +[\d.]+$",
        r"^exact MC SE e_divide, every variable +[\d.]+ +NaN$",
        r"^shap interaction summary +[\d.]+ +[\d.]+$",
    ],
    "boosting_fit": [
        r"^all: plain_s=[\d.]+ leaf_s=[\d.]+ pipeline_s=[\d.]+ ratio=[\d.]+ ",
        r"^check: training predictions bitwise equal on every fit$",
    ],
    "cpu_profile": [
        r"^\| activity \| CPU-s \| share \| largest parts",
        r"^\| tree fit \(scikit-learn\) \| 80 \| .* \| worker: models\.fitting 50, cv 30 \|$",
        r"^\| MR engine \(numba kernels\) \| 12 \|",
    ],
    "critical_path": [
        r"^jobs: 5 \(4 benchmark files read, 0 missing; 1 jobs without a benchmark",
        r"^critical path: [\d.]+ s over 4 jobs$",
        r"^\| b\[i=\d\] \| 2 \| [\d.]+ \| [\d.]+ \|$",
        r"^\| unbounded \| [\d.]+ \|",
    ],
    "e_divide_gap": [
        r"^relative gaps \|e_divide / e_switch - 1\| .* R = 20 random halvings$",
        r"^tiny_regression +[\d.]+ +[\d.]+ +[\d.]+ +[\d.]+$",
    ],
    "explorer_paint": [
        r"^(page: [\d.]+ MB|first paint: skipped \(no Chromium)",
        r"^first paint: (median [\d.]+ s over 1 loads|skipped)",
    ],
    "forest_memory": [
        r"^cv +whole +peak_rss_mb=\d+ wall_s=[\d.]+$",
        r"^fit +blocks +peak_rss_mb=\d+ wall_s=[\d.]+$",
        r"^ratio shap: whole/blocks peak RSS = [\d.]+$",
        r"^rashomon +blocks +peak_rss_mb=\d+ wall_s=[\d.]+$",
        r"^ratio rashomon: whole/blocks peak RSS = [\d.]+$",
        r"^check: outputs of the whole and the block paths bitwise equal in every step$",
    ],
    "dependence_rules_cpu": [
        r"^part +ale +dependent_mr +figures +h_statistic$",
        r"^tiny_classification +[\d.]+ +[\d.]+ +[\d.]+ +[\d.]+$",
        r"^tiny_regression +[\d.]+ +[\d.]+ +[\d.]+ +[\d.]+$",
        r"^total [\d.]+ CPU-s$",
    ],
    "kill_resume": [
        r"^uninterrupted run \(toy workflow\): [\d.]+ s",
        r"^run  1: .*: byte-identical$",
        r"^1 of 1 resumed byte-identical",
    ],
    "mc_se_honesty": [
        r"^ +data +estimator +feature +ratio_median_reported_to_exact ",
        r"^simulated_skewed/gradient_boosting +permutation +exponential ",
        r"^worst coverage of ±2 reported SE: simulated_skewed/",
    ],
    "reliance_paths": [
        r"^tiny_regression/gradient_boosting permutation: generic_s=[\d.]+ engine_s=[\d.]+ ratio=[\d.]+ used=engine$",
        r"^tiny_classification/random_forest e_switch: ",
        r"^all: generic_s=[\d.]+ engine_s=[\d.]+ ratio=[\d.]+ \(every pair bitwise equal\)$",
    ],
    "reliance_timing": [r"^engine_s=[\d.]+ generic_s=[\d.]+ permutation_importance_s=[\d.]+ .* bitwise_equal=True$"],
    "run": [
        r"^mode=tiny ",
        r"^grid tiny_classification/gradient_boosting: naive_s=[\d.]+ pipeline_s=[\d.]+ ratio=[\d.]+$",
        r"^grid \(all\): naive_s=[\d.]+ pipeline_s=[\d.]+ ratio=[\d.]+$",
        r"^rashomon refit tiny_regression-\d+: naive_s=",
        r"^rashomon reliance \(all\): naive_s=[\d.]+ pipeline_s=[\d.]+ ratio=[\d.]+$",
        r"^  rashomon reliance tiny_classification: \d+ importances, \d+ bitwise equal",
    ],
    "scaling": [
        r"^\| kernel \| factor \| sizes \| seconds \| exponent b \|$",
        r"^\| grid_cv \| K \| 20, 40 \| ",
        r"^\| mr \| members \| 6, 12, 24 \| ",
    ],
    "scale_study": [
        r"^n=60: 5 jobs, [\d.]+ CPU-s, wall [\d.]+ s$",
        r"^cost model: 5 job kinds fitted on n = 60, 120 -> ",
        r"^\| 120 \| cv \| 1 \| [\d.]+ \| \d+ \| -?[\d.]+ \| measured \|$",
        r"^\| 1000 \| fit \| 1 \| [\d.]+ \| \d+ \| -?[\d.]+ \| extrapolated \|$",
        r"^rules with b > 1\.2 over n = 60 \.\. 120: ",
        r"^\| 1000 \| extrapolated \| \d+ \| [\d.]+ \| [\d.]+ \| [\d.]+ \| ",
        # python -m xaipipe.report.cost_model on the model just fitted
        r"^rows: simulated=1000$",
        r"^extrapolated: 5 jobs lie outside the measured rows 60 \.\. 120$",
        r"^expected CPU: [\d.]+ CPU-hours$",
        r"^verdict: fits in 24 GB on 8 cores$",
    ],
    "shap_lime": [
        r"^logistic regression: \{\"separation\": ",
        r"^LIME vs SHAP: \{",
        r"^KernelSHAP vs TreeSHAP, xgboost:$",
        r"^KernelSHAP vs TreeSHAP, gradient_boosting:$",
        r"^ +family +specificity +recall +f_0\.5 +f_1 +f_2$",
    ],
    "shap_tree_sample": [
        r"^forest: n=200 trees=20 mean leaves=\d+ fit_cpu_s=[\d.]+$",
        r"^cpu_s: every tree=[\d.]+ sample of 10=[\d.]+ \(mean of 3\) ratio=[\d.]+ \(trees ratio 2\.0\)$",
        r"^ +x0 +[\d.]+ +[\d.]+ +[\d.]+ +[\d.]+ +-?[\d.]+ +[\d.]+$",
        r"^coverage of ±2 SE \(all variables, both statistics\): [\d.]+$",
    ],
    "store_one_pass": [
        r"^store .+: 120 test rows$",
        r"^ale +[\d.]+ +[\d.]+ +[\d.]+$",
        r"^model_reliance +[\d.]+ +[\d.]+ +[\d.]+$",
        r"^check: planned and per-call tables bitwise equal in every step$",
    ],
    "snakemake_cpu": [r"^rc=0 wall_s=[\d.]+ own_user_s=[\d.]+ own_sys_s=[\d.]+ tree_user_s=[\d.]+ tree_sys_s=[\d.]+$"],
    "twins_cost": [
        r"^twins cost model: 6 job kinds fitted on 3 twins -> ",
        r"^  twin_shard: 0\.009995 \* n\*\*0\.800 CPU-s per replicate \(n = 200 \.\. 3200\)$",
        r"^  twin_importance_shard: 0\.005003 \* n\*\*0\.800 CPU-s per replicate \(n = 200 \.\. 3200\)$",
        r"^\| b \| 800 \| 6 \| 13 \| 13 \| 13 \| -0% \|$",
    ],
    "timeline": [
        r"^run wall_s=\d+$",
        r"^seconds with k cores claimed: ",
        r"^b +2 +\d+ +\d+ ",
        r"^claimed core_s=\d+ ",
    ],
}


def test_every_benchmark_is_listed():
    """A script without an entry in EXPECTED (or an entry without a script) fails here first."""
    assert SCRIPTS, f"no script found in {BENCHMARKS}"
    assert sorted(EXPECTED) == SCRIPTS, (
        f"benchmarks/ has {SCRIPTS}, EXPECTED lists {sorted(EXPECTED)}: give every script a --tiny mode "
        "and say here what it must print"
    )


def test_the_readme_table_lists_every_benchmark_and_nothing_else():
    """benchmarks/README.md's table has one row per script (what it measures, its command), named
    for what it measures: no script named after an issue or a date."""
    rows = [line for line in (BENCHMARKS / "README.md").read_text().splitlines() if line.startswith("| `")]
    listed = sorted(re.match(r"\| `([\w]+)\.py` \|", row).group(1) for row in rows)
    assert listed == SCRIPTS, f"README lists {listed}, benchmarks/ has {SCRIPTS}"
    assert all(len(row.split(" | ")) >= 3 and row.split(" | ")[2].strip() for row in rows)  # a command each
    dated = [s for s in SCRIPTS if re.search(r"issue\d|20\d\d|stop\d", s)]
    assert not dated, f"scripts named after an issue or a date: {dated} (dated studies go to docs/history/)"


@pytest.mark.parametrize("name", SCRIPTS)
def test_tiny_mode(name):
    cmd = [sys.executable, "-m", f"benchmarks.{name}", "--tiny"]
    proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=600)
    tail = f"\n--- stdout ---\n{proc.stdout[-4000:]}\n--- stderr ---\n{proc.stderr[-4000:]}"
    assert proc.returncode == 0, f"{' '.join(cmd[1:])} exited with {proc.returncode}{tail}"
    missing = [pattern for pattern in EXPECTED.get(name, []) if not re.search(pattern, proc.stdout, flags=re.M)]
    assert name in EXPECTED and not missing, f"{' '.join(cmd[1:])}: no line matches {missing}{tail}"
