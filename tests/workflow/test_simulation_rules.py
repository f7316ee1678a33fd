"""Dry runs: the default study plans the simulated dataset, its truth table and the chapter 2-3
illustrations; the tests' small config plans none of them (the CI suite's budget)."""

from __future__ import annotations

import re

from .conftest import small_args, snakemake


def _jobs(stdout: str) -> dict[str, int]:
    """Rule -> job count from a dry run's job table."""
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"^(\w+)\s+(\d+)$", stdout, flags=re.M)}


def test_default_study_plans_simulated_truth_and_illustrations(workflow_copy, mirror_dir):
    proc = snakemake(workflow_copy, "-n", "--config", f"uci_mirror={mirror_dir}")
    jobs = _jobs(proc.stdout)
    assert jobs["simulation_truth"] == 1
    assert jobs["illustration"] == 5 and jobs["illustration_tree"] == 1
    assert "results/v1/data/simulated/canonical.csv" in proc.stdout
    assert "results/v1/tables/simulation_truth.csv" in proc.stdout
    for name in ("001_fig_2_1", "001_fig_2_2", "001_fig_3_1_oob", "001_fig_3_1", "001_fig_3_2", "001_fig_3_3"):
        assert f"results/v1/thesis/{name}.pdf" in proc.stdout, name


def test_simulated_switched_off_plans_no_truth_table(workflow_copy, mirror_dir, tmp_path):
    off = tmp_path / "off.yaml"
    off.write_text("datasets:\n  simulated: {enabled: false}\n", encoding="utf-8")
    proc = snakemake(
        workflow_copy, "-n", "--configfile", "config/config.yaml", str(off), "--config", f"uci_mirror={mirror_dir}"
    )
    jobs = _jobs(proc.stdout)
    assert "simulation_truth" not in jobs and "data/simulated/" not in proc.stdout
    assert jobs["illustration"] == 5  # the illustrations do not need the dataset


def test_small_config_plans_neither(workflow_copy, mirror_dir):
    proc = snakemake(workflow_copy, "-n", *small_args(mirror_dir))
    jobs = _jobs(proc.stdout)
    assert not {"simulation_truth", "illustration", "illustration_tree"} & set(jobs)
    assert "simulated" not in proc.stdout
