"""The slowest-rules profile from Snakemake benchmark files."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from xaipipe.report.profiling import (
    JOB_COLUMNS,
    JOB_VIEW,
    RULE_VIEW,
    markdown_table,
    match_rule,
    pattern_regex,
    profile_tables,
    read_benchmark,
    read_benchmarks,
    rule_totals,
    slowest_jobs,
)

HEADER = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"
REPO = Path(__file__).resolve().parents[2]


def _write(path: Path, rows):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(HEADER + "".join("\t".join(str(v) for v in r) + "\n" for r in rows), encoding="utf-8")


def _row(s, rss, cpu, load=100.0):
    return [s, "0:00:00", rss, 2 * rss, rss, rss, 0.0, 0.0, load, cpu]


@pytest.fixture()
def bench(tmp_path):
    root = tmp_path / "logs" / "v9" / "benchmarks"
    _write(root / "cv" / "airfoil" / "random_forest.tsv", [_row(30.0, 500.5, 58.0)])
    _write(root / "cv" / "abalone" / "gradient_boosting.tsv", [_row(10.0, 300.0, 19.0)])
    _write(root / "shap" / "airfoil" / "random_forest.tsv", [_row(50.0, 800.0, 99.0), _row(70.0, 900.0, 101.0)])
    _write(root / "abalone_study" / "cv.tsv", [_row(20.0, 400.0, 39.0)])
    _write(root / "abalone_study" / "mcr.tsv", [[5.0, "0:00:05", "NA", "NA", "NA", "NA", "NA", "NA", "NA", "NA"]])
    return tmp_path, root


PATTERNS = {
    "cv": "logs/v9/benchmarks/cv/{dataset}/{family}.tsv",
    "shap": "logs/v9/benchmarks/shap/{dataset}/{family}.tsv",
    "abalone_study": "logs/v9/benchmarks/abalone_study/cv.tsv",
    "abalone_study_mcr": "logs/v9/benchmarks/abalone_study/mcr.tsv",
}


def test_pattern_regex_and_match_rule():
    rx = pattern_regex("logs/{v}/cv/{dataset,[a-z]+}/{family}.tsv")
    m = rx.match("logs/x.1/cv/airfoil/random_forest.tsv")
    assert m.groupdict() == {"v": "x.1", "dataset": "airfoil", "family": "random_forest"}
    assert rx.match("logs/x/cv/Air1/rf.tsv") is None  # the constraint is honoured
    assert pattern_regex("a/{x}/{x}.tsv").match("a/1/2.tsv") is None  # repeated wildcard
    assert match_rule("logs/v9/benchmarks/abalone_study/mcr.tsv", PATTERNS) == ("abalone_study_mcr", {})
    assert match_rule("logs/v9/benchmarks/cv/a/b.tsv", PATTERNS) == ("cv", {"dataset": "a", "family": "b"})
    assert match_rule("elsewhere.tsv", PATTERNS) is None
    with pytest.raises(ValueError):
        pattern_regex("")


def test_read_benchmark_means_repeats_and_handles_na(bench):
    _, root = bench
    rec = read_benchmark(root / "shap" / "airfoil" / "random_forest.tsv")
    assert rec == {"wall_s": 60.0, "cpu_s": 100.0, "max_rss_mb": 900.0, "mean_load": 100.0, "repeats": 2}
    na = read_benchmark(root / "abalone_study" / "mcr.tsv")
    assert na["wall_s"] == 5.0 and np.isnan(na["cpu_s"]) and np.isnan(na["max_rss_mb"])
    bad = root / "bad.tsv"
    bad.write_text("x\ty\n1\t2\n", encoding="utf-8")
    with pytest.raises(ValueError, match="not a Snakemake benchmark"):
        read_benchmark(bad)


def test_read_benchmarks_with_patterns(bench):
    base, root = bench
    jobs = read_benchmarks(root, PATTERNS, relative_to=base)
    assert list(jobs.columns) == JOB_COLUMNS
    # independent oracle: the numbers written above, sorted by wall time
    assert jobs["wall_s"].tolist() == [60.0, 30.0, 20.0, 10.0, 5.0]
    assert jobs["rule"].tolist() == ["shap", "cv", "abalone_study", "cv", "abalone_study_mcr"]
    assert jobs.loc[0, "wildcards"] == "dataset=airfoil,family=random_forest"
    assert jobs.loc[1, "max_rss_mb"] == 500.5 and jobs.loc[1, "cpu_s"] == 58.0
    np.testing.assert_allclose(jobs["share"], np.array([60, 30, 20, 10, 5]) / 125)
    assert jobs["cumulative_share"].iloc[-1] == pytest.approx(1.0)


def test_read_benchmarks_without_patterns_uses_the_path(bench):
    _, root = bench
    jobs = read_benchmarks(root)
    row = jobs[jobs["path"] == "abalone_study/mcr.tsv"].iloc[0]
    assert row["rule"] == "abalone_study" and row["wildcards"] == "mcr"
    assert set(jobs["rule"]) == {"cv", "shap", "abalone_study"}
    with pytest.raises(FileNotFoundError):
        read_benchmarks(root / "missing")


def test_empty_folder(tmp_path):
    jobs = read_benchmarks(tmp_path)
    assert jobs.empty and list(jobs.columns) == JOB_COLUMNS
    assert rule_totals(jobs).empty


def test_rule_totals_and_slowest(bench):
    base, root = bench
    jobs = read_benchmarks(root, PATTERNS, relative_to=base)
    totals = rule_totals(jobs).set_index("rule")
    assert totals.loc["cv", "jobs"] == 2 and totals.loc["cv", "wall_s"] == 40.0
    assert totals.loc["cv", "cpu_s"] == 77.0 and totals.loc["cv", "max_rss_mb"] == 500.5
    assert totals.loc["cv", "max_wall_s"] == 30.0
    assert totals["share"].sum() == pytest.approx(1.0)
    assert list(totals.index)[0] == "shap"
    assert len(slowest_jobs(jobs, 2)) == 2 and len(slowest_jobs(jobs, None)) == 5
    with pytest.raises(ValueError):
        slowest_jobs(jobs, 0)


def test_markdown_table():
    frame = pd.DataFrame({"rule": ["cv"], "wall_s": [12.345], "share": [0.25], "cpu_s": [np.nan]})
    text = markdown_table(frame)
    assert text.splitlines()[0] == "| rule | wall_s | share | cpu_s |"
    assert text.splitlines()[2] == "| cv | 12.3 | 25.0 % |  |"


def test_command_line_module(bench, tmp_path):
    _, root = bench
    out = tmp_path / "profile"
    res = subprocess.run(
        [sys.executable, "-m", "xaipipe.report.profiling", str(root), str(out), "--top", "3"],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
    )
    assert "Slowest 3 of 5 jobs" in res.stdout
    table = pd.read_csv(out / "slowest_rules.csv")
    assert table["wall_s"].iloc[0] == 60.0 and len(table) == 5
    assert (out / "rule_totals.csv").exists() and (out / "slowest_rules.md").exists()
    assert (out / "slowest_rules.md").read_text(encoding="utf-8") + "\n" == res.stdout


def test_profile_tables_wraps_the_pieces(bench):
    base, root = bench
    jobs, totals, text = profile_tables(root, PATTERNS, top=2)
    ref = read_benchmarks(root, PATTERNS)
    pd.testing.assert_frame_equal(jobs, ref)
    pd.testing.assert_frame_equal(totals, rule_totals(ref))
    assert text.startswith(
        "Slowest 2 of 5 jobs (sum of job wall times 125 s, CPU 216 s):"
    )  # 58 + 19 + mean(99, 101) + 39; NA left out
    assert markdown_table(slowest_jobs(ref, 2), JOB_VIEW) in text
    assert text.endswith(markdown_table(totals, RULE_VIEW))
    assert list(totals["rule"]) == ["shap", "cv", "abalone_study"]  # patterns are repo-relative: path fallback
