"""profiles/slurm: in a dry run (no cluster), and for real on a one-node SLURM cluster.

The real run needs the cluster of ``.ci/slurm.sh`` (or any SLURM whose default partition can run
this machine's Python): it runs tests/configs/slurm.yaml (Airfoil, two families, 13 SLURM jobs)
with the README's cluster command, cancels one job and its retry with ``scancel``, reruns, and
checks SLURM's own records of the jobs and the results against a local run. Skipped, with the
reason, when no cluster answers.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import yaml

from tests.conftest import REPO

from .conftest import copy_workflow, result_differences, snakemake

SLURM_CONFIGS = (
    "config/config.yaml",
    "tests/configs/small.yaml",
    "tests/configs/tiny.yaml",
    "tests/configs/slurm.yaml",
)
SLURM_VERSION = "slurm"  # tests/configs/slurm.yaml
CANCELLED_JOB = ("cv", "airfoil_linear_regression")  # cancelled twice: attempt 1 and its retry
RUN_TIMEOUT_S = 1200  # a run that waits forever for a job (the defects this guards) fails here


def profile(name: str) -> dict:
    return yaml.safe_load((REPO / "profiles" / name / "config.yaml").read_text())


def non_local_rules() -> set[str]:
    """Rules of workflow/rules/*.smk without ``localrule: True`` (the SLURM jobs).

    A rule derived with ``use rule A as B with:`` counts as local only if its own ``with:`` block
    says so: Snakemake 9 resets ``localrule`` there (the derived rule went to SLURM otherwise).
    """
    rules = set()
    for path in sorted((REPO / "workflow" / "rules").glob("*.smk")):
        blocks = re.split(r"^(?:rule (\w+)|use rule \w+ as (\w+) with):", path.read_text(), flags=re.M)
        names = [a or b for a, b in zip(blocks[1::3], blocks[2::3])]
        for name, body in zip(names, blocks[3::3]):
            if not re.search(r"^\s+localrule:\s*True", body, flags=re.M):
                rules.add(name)
    return rules


def planned_jobs(output: str) -> list[dict]:
    """Rule, threads and resources of every job of a dry run's output."""
    jobs = []
    for block in re.split(r"^\[[^\]\n]+\]\n", output, flags=re.M):
        rule = re.search(r"^(?:local)?rule (\w+):", block, flags=re.M)
        res = re.search(r"^\s+resources: (.*)$", block, flags=re.M)
        if not rule or not res:
            continue
        threads = re.search(r"^\s+threads: (\d+)$", block, flags=re.M)
        wildcards = re.search(r"^\s+wildcards: (.*)$", block, flags=re.M)
        jobs.append(
            {
                "rule": rule.group(1),
                "wildcards": wildcards.group(1) if wildcards else "",
                "threads": int(threads.group(1)) if threads else 1,
                "resources": dict(kv.split("=", 1) for kv in res.group(1).split(", ")),
            }
        )
    return jobs


# ---------------------------------------------------------------------------------------------
# Dry run: no cluster needed.


def test_slurm_profile_lists_every_slurm_rule_and_keeps_the_rerun_triggers():
    slurm = profile("slurm")
    assert set(slurm["set-resources"]) == non_local_rules()
    assert "default-resources" not in slurm  # a command-line --default-resources would replace it
    assert slurm["rerun-triggers"] == profile("default")["rerun-triggers"]
    assert "code" not in slurm["rerun-triggers"]
    assert slurm["slurm-status-command"] == "squeue"
    for rule, res in slurm["set-resources"].items():
        assert res["cpus_per_task"] == "threads", rule
        assert {"runtime", "mem_mb"} <= set(res), rule


@pytest.mark.parametrize(
    "limits", [(), ("--max-threads", "2", "--resources", "mem_mb=3000")], ids=["profile", "node_limits"]
)
def test_slurm_profile_dry_run_keeps_resources_with_account_and_partition(workflow_copy, mirror_dir, limits):
    # The README's command (account and partition through --default-resources) must keep every
    # SLURM rule's runtime, mem_mb and cpus_per_task. A dry run caps threads at --cores (1 if
    # not given), a SLURM run does not: --cores 64 shows the threads the jobs would get.
    # targets: the default one, `coverage`, `twins` and `illustrations` (off in the small config), and a split CV
    # (tests/configs/split_jobs.yaml), so that every SLURM rule is planned
    proc = snakemake(
        workflow_copy,
        "-n",
        "all",
        "coverage",
        "twins",
        "illustrations",
        "--workflow-profile",
        "profiles/slurm",
        "--configfile",
        "config/config.yaml",
        "tests/configs/small.yaml",
        "tests/configs/split_jobs.yaml",
        "--config",
        f"uci_mirror={mirror_dir}",
        "--cores",
        "64",
        *limits,
        "--default-resources",
        "slurm_account=acct01",
        "slurm_partition=part01",
    )
    slurm = profile("slurm")
    jobs = [j for j in planned_jobs(proc.stdout) if j["rule"] in non_local_rules()]
    assert {j["rule"] for j in jobs} == non_local_rules()  # the small config plans every SLURM rule
    max_threads = int(limits[1]) if limits else None
    for job in jobs:
        res, rule, threads = job["resources"], job["rule"], job["threads"]
        expected = slurm["set-resources"][rule]
        assert res["slurm_account"] == "acct01" and res["slurm_partition"] == "part01", job
        assert int(res["runtime"]) == expected["runtime"], job
        assert int(res["cpus_per_task"]) == threads, job
        wanted = slurm["set-threads"].get(rule)
        if wanted is not None:
            assert threads == min(wanted, max_threads or wanted), job
        mem = eval(str(expected["mem_mb"]), {"threads": threads})  # the profile's expression
        if limits:
            assert threads <= 2 and int(res["mem_mb"]) == min(mem, 3000), job
        else:
            assert int(res["mem_mb"]) == mem, job


# ---------------------------------------------------------------------------------------------
# A real cluster.


def cluster_or_skip_reason() -> tuple[dict | None, str]:
    if not shutil.which("sbatch"):
        return None, "SLURM is not installed (start a one-node cluster with .ci/slurm.sh, as root)"
    ping = subprocess.run(["scontrol", "ping"], capture_output=True, text=True, timeout=30)
    if "is UP" not in ping.stdout:
        said = (ping.stdout.strip() or ping.stderr.strip()).splitlines()
        return None, f"no SLURM controller answers (scontrol ping: {said[0] if said else ping.returncode})"
    nodes = subprocess.run(["sinfo", "-h", "-N", "-o", "%t %c %m"], capture_output=True, text=True, timeout=30)
    up = [line.split() for line in nodes.stdout.splitlines() if line.split()[0] in ("idle", "mix", "alloc")]
    if not up:
        return None, f"no SLURM node takes jobs (sinfo: {nodes.stdout.strip()})"
    parts = subprocess.run(["sinfo", "-h", "-o", "%P"], capture_output=True, text=True, timeout=30).stdout.split()
    default = [p.rstrip("*") for p in parts if p.endswith("*")]
    config = subprocess.run(["scontrol", "show", "config"], capture_output=True, text=True, timeout=30).stdout
    storage = re.search(r"^AccountingStorageType\s*=\s*(\S+)", config, flags=re.M)
    return {
        "cpus": min(int(n[1]) for n in up),
        "partition": default[0] if default else parts[0].rstrip("*"),
        "accounting": bool(storage) and storage.group(1) == "accounting_storage/slurmdbd",
    }, ""


@pytest.fixture(scope="module")
def cluster():
    info, reason = cluster_or_skip_reason()
    if info is None:
        pytest.skip(reason)
    return info


def slurm_command(mirror: Path, cluster: dict) -> list[str]:
    """The README's cluster command (see "On a cluster"), filled in for this cluster.

    Node limit: --max-threads = the node's CPUs. Account only where accounting knows one
    (the plugin checks it with sacctmgr). The initial status check comes after 5 s instead of
    the plugin's 40 s: this run's jobs take seconds.
    """
    defaults = [f"slurm_partition={cluster['partition']}"]
    if cluster["accounting"]:
        defaults.append("slurm_account=root")
    return [
        "--workflow-profile",
        "profiles/slurm",
        "--configfile",
        *SLURM_CONFIGS,
        "--config",
        f"uci_mirror={mirror}",
        "--max-threads",
        str(cluster["cpus"]),
        "--slurm-init-seconds-before-status-checks",
        "5",
        "--default-resources",
        *defaults,
    ]


class SqueueWatcher(threading.Thread):
    """Records every job of the runs whose Snakemake output goes to ``logs`` (by the run ID the
    plugin prints and gives each job as its name), as squeue shows them (finished jobs stay for
    MinJobAge), and cancels the attempts of ``cancel`` = (rule, wildcards)."""

    def __init__(self, logs: list[Path], cancel: tuple[str, str], max_cancels: int = 2):
        super().__init__(daemon=True)
        self.logs, self.comment, self.max_cancels = logs, f"rule_{cancel[0]}_wildcards_{cancel[1]}", max_cancels
        self.jobs: dict[str, dict] = {}
        self.cancelled: list[str] = []
        self.stop = threading.Event()

    def run_ids(self) -> set[str]:
        text = "".join(p.read_text(errors="replace") for p in self.logs if p.exists())
        return set(re.findall(r"SLURM run ID: (\S+)", text))

    def poll(self) -> None:
        ids = self.run_ids()
        out = subprocess.run(
            ["squeue", "--states=all", "--noheader", "--format=%i|%T|%C|%k|%j"],
            capture_output=True,
            text=True,
            timeout=30,
        ).stdout
        for line in out.splitlines():
            jobid, state, cpus, comment, name = line.split("|", 4)
            if name not in ids:
                continue
            self.jobs[jobid] = {"state": state, "cpus": int(cpus), "comment": comment}
            if (
                comment == self.comment
                and jobid not in self.cancelled
                and len(self.cancelled) < self.max_cancels
                and state in ("PENDING", "CONFIGURING", "RUNNING")
            ):
                subprocess.run(["scancel", jobid], check=True, timeout=30)
                self.cancelled.append(jobid)

    def run(self) -> None:
        while not self.stop.is_set():
            self.poll()
            time.sleep(0.3)
        self.poll()


def run_logged(workdir: Path, args: list[str], log: Path) -> int:
    """Run Snakemake in its own process group, output to ``log``; kill the group after the timeout."""
    env = dict(os.environ)
    env.pop("XAIPIPE_TMPDIR", None)
    with open(log, "w") as fh:
        proc = subprocess.Popen(
            [sys.executable, "-m", "snakemake", *args],
            cwd=workdir,
            stdout=fh,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,
        )
        try:
            return proc.wait(timeout=RUN_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            pytest.fail(f"snakemake {' '.join(args)} still running after {RUN_TIMEOUT_S} s: see {log}")


@pytest.fixture(scope="module")
def slurm_run(cluster, mirror_dir, tmp_path_factory):
    """Local reference run and SLURM run side by side; in the SLURM run one job is cancelled twice
    (its first attempt and the profile's retry), so Snakemake fails, then the same command is rerun."""
    root = tmp_path_factory.mktemp("slurm")
    work, local = copy_workflow(root / "slurm" / "repo"), copy_workflow(root / "local" / "repo")
    command = slurm_command(mirror_dir, cluster)
    logs = [root / "run1.log", root / "run2.log"]
    t0 = time.time()
    local_error: list[BaseException] = []

    def local_run():
        try:
            snakemake(local, "--cores", "2", "--configfile", *SLURM_CONFIGS, "--config", f"uci_mirror={mirror_dir}")
        except BaseException as err:  # reported by the fixture, not lost in the thread
            local_error.append(err)

    local_proc = threading.Thread(target=local_run)
    local_proc.start()
    watcher = SqueueWatcher(logs, CANCELLED_JOB)
    watcher.start()
    try:
        rc1 = run_logged(work, command, logs[0])
        rc2 = run_logged(work, command, logs[1])
    finally:
        watcher.stop.set()
        watcher.join(timeout=60)
        local_proc.join(timeout=RUN_TIMEOUT_S)
    wall = time.time() - t0
    if local_error:
        raise local_error[0]
    print(f"SLURM test runs: {wall:.0f} s wall (local reference run alongside)")
    return {
        "work": work,
        "local": local,
        "command": command,
        "rc": (rc1, rc2),
        "wall_s": wall,
        "output": [p.read_text() for p in logs],
        "watcher": watcher,
        "cluster": cluster,
    }


def submitted(output: str) -> dict[str, tuple[str, str]]:
    """SLURM job ID -> (rule, wildcards) of every ``sbatch`` the plugin reports."""
    found = re.findall(r"submitted with SLURM jobid (\d+) \(log: \S*/rule_(\w+)/([^/\s]*)/\d+\.log\)", output)
    return {jobid: (rule, wildcards) for jobid, rule, wildcards in found}


@pytest.mark.slurm
@pytest.mark.integration
def test_slurm_cancelled_job_is_reported_failed_and_the_rerun_completes(slurm_run):
    run1, run2 = slurm_run["output"]
    cancelled = slurm_run["watcher"].cancelled
    assert len(cancelled) == 2, f"cancelled {cancelled}; first run:\n{run1[-4000:]}"
    for jobid in cancelled:
        assert re.search(rf"SLURM-job '{jobid}' failed, SLURM status is: 'CANCELLED'", run1), run1[-4000:]
    assert "Trying to restart job" in run1  # the profile's retries: 1
    assert slurm_run["rc"][0] != 0 and "Error in rule cv" in run1
    assert slurm_run["rc"][1] == 0, run2[-6000:]
    rerun_jobs = set(submitted(run2).values())
    assert ("cv", "airfoil_linear_regression") in rerun_jobs
    assert ("prepare", "airfoil") not in rerun_jobs  # finished jobs are not redone


@pytest.mark.slurm
@pytest.mark.integration
def test_slurm_jobs_went_through_sbatch_within_the_node(slurm_run):
    watcher, cluster = slurm_run["watcher"], slurm_run["cluster"]
    jobs = {}
    for out in slurm_run["output"]:
        jobs.update(submitted(out))
    # every SLURM rule of this configuration, and only those, went through sbatch ...
    expected_rules = {"prepare", "split", "cv", "fit", "rashomon", "model_reliance", "shap", "pd_ice"}
    expected_rules |= {"ale", "h_statistic", "multiplicity"}  # issue 35's compute rules (figure rules are local)
    expected_rules |= {"rashomon_effects", "sage", "consensus"}  # issues 44 and 45's compute rules
    # issue 53's: the Rashomon prediction intervals of the regression dataset (no gradient boosting
    # here, so no regional_effects job; no classification dataset, so no treefarms job)
    expected_rules |= {"prediction_intervals"}
    assert {rule for rule, _ in jobs.values()} == expected_rules
    # ... as SLURM itself records them (squeue keeps finished jobs for MinJobAge; sacct if on)
    records = dict(watcher.jobs)
    if cluster["accounting"]:
        sacct = subprocess.run(
            ["sacct", "-X", "-n", "-P", "-j", ",".join(jobs), "-o", "JobIDRaw,State,AllocCPUS"],
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
        ).stdout
        for line in sacct.splitlines():
            jobid, state, cpus = line.split("|")
            records[jobid] = {**records.get(jobid, {}), "state": state.split()[0], "cpus": int(cpus)}
    assert set(jobs) <= set(records), f"not seen by SLURM: {set(jobs) - set(records)}"
    slurm = profile("slurm")
    completed = []
    for jobid, (rule, wildcards) in jobs.items():
        rec = records[jobid]
        if jobid in watcher.cancelled:
            assert rec["state"] == "CANCELLED", (jobid, rec)
            continue
        assert rec["state"] == "COMPLETED", (jobid, rule, rec)
        completed.append((rule, wildcards))
        # cpus_per_task = the job's threads after --max-threads: never more than the node has
        threads = min(slurm["set-threads"].get(rule, 1), cluster["cpus"])
        assert rec["cpus"] == threads <= cluster["cpus"], (jobid, rule, rec)
    # each SLURM job of the DAG completed once: prepare, split, rashomon, multiplicity, rashomon_effects,
    # consensus, prediction_intervals and, per family (2), cv, fit, model_reliance, shap, pd_ice, ale,
    # h_statistic, sage
    assert len(completed) == len(set(completed)) == 7 + 2 * 8


@pytest.mark.slurm
@pytest.mark.integration
def test_slurm_results_equal_a_local_run(slurm_run):
    a = slurm_run["local"] / "results" / SLURM_VERSION
    b = slurm_run["work"] / "results" / SLURM_VERSION
    assert (b / "tables" / "test_metrics.csv").is_file()
    assert result_differences(a, b) == []


@pytest.mark.slurm
@pytest.mark.integration
def test_slurm_profile_does_not_rerun_after_touching_the_scripts(slurm_run):
    work = slurm_run["work"]
    later = time.time() + 5
    for script in (work / "workflow" / "scripts").glob("*.py"):
        os.utime(script, (later, later))
    proc = snakemake(work, "-n", *slurm_run["command"])
    assert "Nothing to be done" in proc.stdout + proc.stderr, proc.stdout[-3000:]
