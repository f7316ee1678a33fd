"""benchmarks/timeline.py: claimed cores of a Snakemake run, from its log."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "timeline.py"
spec = importlib.util.spec_from_file_location("timeline", SCRIPT)
timeline = importlib.util.module_from_spec(spec)
spec.loader.exec_module(timeline)

LOG = """\
Select jobs to execute...
[Sat Nov 21 06:57:43 2026]
rule cv:
    input: a
    jobid: 3
    wildcards: dataset=airfoil, family=random_forest
    threads: 2
    resources: tmpdir=/tmp
[Sat Nov 21 06:57:53 2026]
Finished jobid: 3 (Rule: cv)
[Sat Nov 21 06:57:53 2026]
localrule figures:
    jobid: 4
[Sat Nov 21 06:57:53 2026]
rule fit:
    jobid: 5
[Sat Nov 21 06:57:58 2026]
Finished jobid: 4 (Rule: figures)
[Sat Nov 21 06:58:03 2026]
Finished jobid: 5 (Rule: fit)
[Sat Nov 21 06:58:03 2026]
rule never_finished:
    jobid: 6
"""


def test_parse_and_occupancy():
    jobs = timeline.parse_log(LOG.splitlines())
    assert {j: v["rule"] for j, v in jobs.items()} == {3: "cv", 4: "figures", 5: "fit", 6: "never_finished"}
    assert jobs[3]["threads"] == 2 and jobs[4]["threads"] == 1 and "end" not in jobs[6]
    per_rule, hist, wall = timeline.occupancy(jobs)
    assert wall == 20
    assert per_rule["cv"] == {"jobs": 1, "wall_s": 10, "core_s": 20}
    assert per_rule["figures"]["core_s"] == 5 and per_rule["fit"]["core_s"] == 10
    assert "never_finished" not in per_rule
    # 0-10 s: cv (2 cores); 10-15 s: figures + fit (2); 15-20 s: fit alone (1)
    assert hist == {2: 15, 1: 5}


def test_empty_log_is_an_error():
    with pytest.raises(ValueError, match="no finished jobs"):
        timeline.occupancy(timeline.parse_log([]))


def test_cli_names_a_missing_log(tmp_path, capsys):
    with pytest.raises(SystemExit):
        timeline.main([str(tmp_path / "missing.log")])
    assert "missing.log" in capsys.readouterr().err
