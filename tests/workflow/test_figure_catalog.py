"""The figure catalog drives the workflow (dry runs of the small configuration, ~1 min each):
every figure a job writes is a catalog kind of its rule's group, and a kind added to the catalog
(one entry + one plot function, in a copy) becomes an output of its rule and a default target."""

from __future__ import annotations

import os
import re
import string
import subprocess
import sys

import pytest

from xaipipe.paths import PATHS, result_path
from xaipipe.plots.catalog import GROUPS, kinds

from .conftest import copy_workflow, small_args

pytestmark = pytest.mark.integration

RESULTS = "results/test"
EXTRA_TARGETS = ("coverage", "twins", f"{RESULTS}/studies/seed003/seed003_comparison.csv")


def _dry_run(work, mirror) -> list[dict]:
    """The jobs `snakemake -n` plans in `work` (its own src/ imported): rule, input, output, wildcards."""
    env = dict(os.environ, PYTHONPATH=str(work / "src"))
    env.pop("XAIPIPE_TMPDIR", None)
    proc = subprocess.run(
        [sys.executable, "-m", "snakemake", "-n", "--cores", "2", *small_args(mirror), "--", "all", *EXTRA_TARGETS],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=900,
        env=env,
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    jobs = []
    for block in re.split(r"\n(?=(?:local)?rule \w+:)", proc.stdout):
        m = re.match(r"(?:local)?rule (\w+):", block)
        if not m:
            continue
        fields = {k: v for k, v in re.findall(r"\n\s+(input|output|wildcards): (.*)", block)}
        jobs.append(
            {
                "rule": m.group(1),
                "input": fields.get("input", "").split(", "),
                "output": fields.get("output", "").split(", "),
                "wildcards": dict(w.split("=", 1) for w in fields["wildcards"].split(", "))
                if "wildcards" in fields
                else {},
            }
        )
    return jobs


def _expected(group, wildcards, task=None, kinds_of=kinds) -> set[str]:
    g = GROUPS[group]
    fields = {f for _, f, _, _ in string.Formatter().parse(PATHS[g.path]) if f}
    free = {k: v for k, v in wildcards.items() if k in fields}
    return {
        result_path(g.path, RESULTS, **g.wildcards, **free, kind=kind, ext=ext)
        for kind in kinds_of(group, task)
        for ext in ("pdf", "png")
    }


def _figures(outputs) -> set[str]:
    return {o for o in outputs if o.endswith((".pdf", ".png"))}


def test_every_figure_written_is_a_catalog_kind_of_its_rule(workflow_copy, mirror_dir):
    jobs = _dry_run(workflow_copy, mirror_dir)
    by_rule = {rule: g for g in GROUPS.values() for rule in g.rules}
    drawn = set()
    for job in jobs:
        figures = _figures(job["output"])
        group = by_rule.get(job["rule"])
        if group is None:
            # the theses' numbered figures (config thesis.figures) are the only others
            assert all(f.startswith(f"{RESULTS}/thesis/") for f in figures), (job["rule"], figures)
            continue
        task = job["rule"].removeprefix(f"{group.name}_") if group.per_task else None
        assert figures == _expected(group.name, job["wildcards"], task), job["rule"]
        drawn.add(group.name)
    # every group of the catalog ran in the small configuration (with the coverage and seed-003 targets)
    assert drawn == set(GROUPS)


DUMMY_MODULE = """
def plot_dummy(table, *, title=None):
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    ax.set_title(title)
    return fig
"""

DUMMY_ENTRY = """
FIGURES = (
    *FIGURES,
    Figure("dummy_reliance", "reliance_figures", "xaipipe.plots.dummy:plot_dummy", "model_reliance.rst", default=True),
)
"""


def test_a_new_per_model_figure_is_one_entry_and_one_function(tmp_path, mirror_dir):
    work = copy_workflow(tmp_path / "copy")
    plots = work / "src" / "xaipipe" / "plots"
    (plots / "dummy.py").write_text(DUMMY_MODULE)
    with open(plots / "catalog.py", "a") as f:
        f.write(DUMMY_ENTRY)
    jobs = _dry_run(work, mirror_dir)

    def with_dummy(group, task=None):
        return (*kinds(group, task), "dummy_reliance") if group == "reliance_figures" else kinds(group, task)

    reliance = [j for j in jobs if j["rule"] == "reliance_figures"]
    assert reliance
    for job in reliance:
        assert _figures(job["output"]) == _expected("reliance_figures", job["wildcards"], kinds_of=with_dummy)
    # the default target asks for the new figure of every model
    (target,) = [j for j in jobs if j["rule"] == "all"]
    dummies = {t for t in target["input"] if t.endswith("/dummy_reliance.pdf")}
    assert dummies == {
        result_path("model_figure", RESULTS, **j["wildcards"], kind="dummy_reliance", ext="pdf") for j in reliance
    }
