"""Provenance manifest: what produced ``results/<version>/``."""

from __future__ import annotations

import hashlib
import json
import platform
import subprocess
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from ..io import read_json, write_json

__all__ = ["Manifest", "git_state", "record_invocation", "invocation_info", "build_manifest", "RUN_RECORD_ENV"]

PACKAGES = (
    "xaipipe",
    "numpy",
    "pandas",
    "scipy",
    "scikit-learn",
    "xgboost",
    "shap",
    "statsmodels",
    "matplotlib",
    "joblib",
    "ucimlrepo",
    "xlrd",
    "snakemake",
    "pyyaml",
    "jsonschema",
)


#: paths (relative to the repository) whose untracked files change what the workflow runs
CODE_PATHS = ("src/", "workflow/", "envs/", "profiles/", "Snakefile", "pyproject.toml", "requirements.txt")
#: most paths listed under ``changed`` / ``untracked``
MAX_LISTED = 50


def git_state(path: str | Path) -> dict:
    """The git state of the checkout at ``path`` (its top level is used whatever folder is given).

    Returns
    -------
    dict
        ``commit`` (sha), ``dirty`` (bool), ``changed`` (tracked files that differ from the
        commit: modified, staged, deleted, renamed) and ``untracked`` (untracked files that
        ``.gitignore`` does not ignore), each a sorted list of at most :data:`MAX_LISTED`
        paths relative to the top level. ``dirty`` is True when a tracked file changed or an
        untracked file lies under :data:`CODE_PATHS` (code the workflow runs); a user's
        own data and config files elsewhere (``data/my.csv``, ``my.yaml``) do not make a
        checkout dirty: their content is recorded anyway (the raw data's SHA-256 and the
        resolved config in ``manifest.json``), and the workflow's own outputs
        (``results/``, ``logs/``, ``.snakemake/``, ``resources/``) are ignored by
        ``.gitignore``. Every value is None outside a git repository.
    """

    def _git(*args):
        return subprocess.run(["git", "-C", str(path), *args], capture_output=True, text=True, timeout=30)

    none = {"commit": None, "dirty": None, "changed": None, "untracked": None}
    try:
        head = _git("rev-parse", "HEAD")
        if head.returncode != 0:
            return none
        top = _git("rev-parse", "--show-toplevel").stdout.strip()
        status = subprocess.run(
            ["git", "-C", top or str(path), "status", "--porcelain", "--untracked-files=all"],
            capture_output=True,
            text=True,
            timeout=60,
        )
        if status.returncode != 0:
            return {**none, "commit": head.stdout.strip()}
    except (OSError, subprocess.SubprocessError):
        return none
    changed, untracked = [], []
    for line in status.stdout.splitlines():
        if not line.strip():
            continue
        name = line[3:].split(" -> ")[-1].strip('"')
        (untracked if line.startswith("??") else changed).append(name)
    code = [f for f in untracked if f.startswith(CODE_PATHS)]
    return {
        "commit": head.stdout.strip(),
        "dirty": bool(changed or code),
        "changed": sorted(changed)[:MAX_LISTED],
        "untracked": sorted(untracked)[:MAX_LISTED],
    }


def config_sha256(config: Mapping[str, Any]) -> str:
    """SHA-256 of the config serialized as canonical JSON (sorted keys)."""
    text = json.dumps(config, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def package_versions(names: Iterable[str] = PACKAGES) -> dict:
    """Installed versions (None when a package is missing) plus Python's."""
    import importlib.metadata as md

    out = {"python": platform.python_version()}
    for name in names:
        try:
            out[name] = md.version(name)
        except md.PackageNotFoundError:
            out[name] = None
    return out


#: the environment variable that carries the invocation record's path from the Snakemake process
#: that recorded it (its ``onstart`` hook, ``workflow/rules/common.smk``) to that invocation's jobs
RUN_RECORD_ENV = "XAIPIPE_RUN_RECORD"

#: the keys of the manifest's ``run`` block (:func:`invocation_info`), in order
RUN_KEYS = ("run_id", "started_at", "cores", "command", "workflow_id", "snakemake_version", "log", "record")

_LOG_HEADER = {
    "started_at": r"^\s*Date:\s*(.+)$",
    "command": r"^\s*Command:\s*(.+)$",
    "workflow_id": r"^\s*Workflow ID:\s*(.+)$",
    "snakemake_version": r"^\s*Snakemake version:\s*(.+)$",
}


def record_invocation(
    directory: str | Path,
    *,
    argv: Iterable[str],
    cores: int | None,
    started_at: Any,
    snakemake_log: str | Path | None = None,
) -> Path:
    """Record the Snakemake invocation that is about to run jobs, in a file of its own.

    Called by the workflow's ``onstart`` hook (``workflow/rules/common.smk``), which Snakemake
    runs in the invocation's main process once its job graph is built and before the first job:
    never in a dry run (``-n``), never in an invocation that fails at start-up (a config or
    schema error, a locked directory), never in a job's own process. The record is keyed by the
    invocation's own Snakemake log file (``.snakemake/log/<run_id>.snakemake.log``: Snakemake names
    it by its start time, to the microsecond), so that concurrent invocations in one checkout
    (another version, a dry run, a failed start) each have theirs and none overwrites another's.

    Parameters
    ----------
    directory : path
        Folder of the records (the workflow: ``logs/<version>/runs``); created.
    argv : iterable of str
        The invocation's command line (``sys.argv``).
    cores : int or None
        ``--cores`` as Snakemake resolved it.
    started_at : datetime or str
        When the invocation started (``workflow.start_time``).
    snakemake_log : path, optional
        The invocation's Snakemake log file (the ``onstart`` hook's ``log``); None without file
        logging, when the record is named by the start time and the process id instead.

    Returns
    -------
    Path
        The record: JSON with ``run_id``, ``started_at`` (ISO 8601, local time, seconds),
        ``cores``, ``command`` (``argv`` joined by spaces, as Snakemake logs it), ``argv``,
        ``pid``, ``log`` (the Snakemake log, or None).
    """
    import os
    import sys
    from datetime import datetime

    if isinstance(started_at, datetime):
        started_at = started_at.isoformat(timespec="seconds")
    argv = [str(a) for a in argv]
    if snakemake_log is not None:
        run_id = Path(snakemake_log).name.split(".snakemake.log")[0]
    else:
        run_id = f"{str(started_at).replace(':', '')}-pid{os.getpid()}"
    record = Path(directory) / f"{run_id}.json"
    write_json(
        record,
        {
            "run_id": run_id,
            "started_at": str(started_at),
            "cores": None if cores is None else int(cores),
            "command": " ".join(argv),
            "argv": argv,
            "pid": os.getpid(),
            "python": sys.executable,
            "log": None if snakemake_log is None else str(snakemake_log),
        },
    )
    return record


def _log_header(log: Path) -> dict:
    """The header fields Snakemake writes at the top of a run's log file (None where absent)."""
    import re

    try:
        text = log.read_text(encoding="utf-8", errors="replace")[:20000]
    except OSError:
        return {}
    out = {}
    for key, pattern in _LOG_HEADER.items():
        match = re.search(pattern, text, flags=re.M)
        out[key] = match.group(1).strip() if match else None
    return out


def invocation_info(record: str | Path | None) -> dict:
    """The manifest's ``run`` block: the invocation that runs this job, from its record.

    Parameters
    ----------
    record : path or None
        The record :func:`record_invocation` wrote for this invocation; a job finds it in the
        environment variable :data:`RUN_RECORD_ENV`, which the recording process set before
        its first job (every job it starts inherits it). Never the newest of
        ``.snakemake/log``: another invocation in the same checkout (another version, a dry
        run, one that failed at start-up) may have started since.

    Returns
    -------
    dict
        :data:`RUN_KEYS`: ``run_id``, ``started_at``, ``cores``, ``command``, ``workflow_id``
        and ``snakemake_version`` (these two from the header of *this* invocation's own
        Snakemake log), ``log``, ``record``. Without a record (``record`` None or missing: a job
        run outside an invocation whose ``onstart`` hook ran, e.g. with ``--no-hooks``) every
        value is None and ``unrecorded`` says why: nothing is guessed.
    """
    info = dict.fromkeys(RUN_KEYS)
    path = Path(record) if record else None
    if path is None or not path.is_file():
        info["unrecorded"] = (
            f"no invocation record ({RUN_RECORD_ENV} {'unset' if path is None else f'names a missing file {path}'}): "
            "the job ran outside a Snakemake invocation whose onstart hook recorded it (e.g. --no-hooks)"
        )
        return info

    rec = read_json(path)
    info.update({k: rec.get(k) for k in ("run_id", "started_at", "cores", "command", "log")})
    info["record"] = str(path)
    if rec.get("log"):
        header = _log_header(Path(rec["log"]))
        info["workflow_id"] = header.get("workflow_id")
        info["snakemake_version"] = header.get("snakemake_version")
    if info["snakemake_version"] is None:
        import importlib.metadata as md

        try:
            info["snakemake_version"] = md.version("snakemake")
        except md.PackageNotFoundError:
            pass
    return info


@dataclass(frozen=True)
class Manifest:
    """The provenance record of a result tree (``manifest.json``, :func:`build_manifest`).

    Attributes
    ----------
    version : str or None
        ``config["version"]``.
    git : dict
        :func:`git_state` of the checkout (commit, dirty, changed, untracked).
    config : dict
        The configuration the run used.
    config_sha256 : str
        :func:`config_sha256` of it.
    packages : dict
        :func:`package_versions`.
    xaipipe : dict
        ``path`` (the imported package's folder) and ``from_checkout`` (whether it is the
        checkout's ``src/xaipipe``).
    platform : dict
        ``system``, ``machine``, ``python``.
    datasets : dict
        Per dataset: ``source``, ``uci_id``, ``doi``, ``raw`` (SHA-256s), ``canonical_sha256``,
        ``n_rows``, ``retrieved_at``.
    seeds : dict
        ``seed`` (the global seed) and ``splits`` (each split's seed, test size, folds, stratification).
    data_summary : dict
        Per dataset: the missing-value policy, rows read / selected / dropped / used, the non-zero
        missing values and imputed cells per column, the logit table's separation and the split's
        warnings (:func:`xaipipe.data.summary.data_summary_record`; ``tables/data_summary.csv``).
    extra : dict
        Further top-level keys (the rule adds ``run``: :func:`invocation_info`, the invocation that
        built the manifest, and its ``finished_at``).
    """

    version: Any
    git: dict
    config: dict
    config_sha256: str
    packages: dict
    xaipipe: dict
    platform: dict
    datasets: dict
    seeds: dict
    data_summary: dict = field(default_factory=dict)
    extra: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        """The JSON document: the fields in this order, then the keys of ``extra``."""
        out = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "extra"}
        out.update(self.extra)
        return out


def build_manifest(
    config: Mapping[str, Any],
    *,
    repo: str | Path,
    sidecars: Iterable[Mapping[str, Any]],
    splits: Mapping[str, Mapping[str, Any]],
    data_summary: Mapping[str, Any] | None = None,
    extra: Mapping[str, Any] | None = None,
) -> Manifest:
    """Assemble the provenance record of ``manifest.json`` (:meth:`Manifest.to_dict` is the document).

    ``datasets`` from the canonical tables' sidecars (source, raw SHA-256s, canonical SHA-256, rows,
    retrieval time), ``seeds`` from the global seed and each dataset's ``split.json``, ``git`` and
    ``xaipipe`` from the checkout at ``repo``, ``data_summary`` as given, plus ``extra``.
    """
    datasets = {}
    for s in sidecars:
        datasets[s["dataset"]] = {
            "source": s["source"],
            "uci_id": s.get("uci_id"),
            "doi": s.get("doi"),
            "raw": s["raw"],
            "canonical_sha256": s["canonical_sha256"],
            "n_rows": s["n_rows"],
            "retrieved_at": s.get("retrieved_at"),
        }
    return Manifest(
        version=config.get("version"),
        git=git_state(repo),
        config=dict(config),
        config_sha256=config_sha256(config),
        packages=package_versions(),
        xaipipe={
            "path": str(Path(__file__).resolve().parents[1]),
            "from_checkout": Path(__file__).resolve().parents[1] == (Path(repo) / "src" / "xaipipe").resolve(),
        },
        platform={"system": platform.system(), "machine": platform.machine(), "python": platform.python_version()},
        datasets=datasets,
        seeds={
            "seed": config.get("seed"),
            "splits": {
                name: {
                    "seed": sp["seed"],
                    "test_size": sp["test_size"],
                    "n_folds": sp["n_folds"],
                    "stratified": sp["stratified"],
                }
                for name, sp in splits.items()
            },
        },
        data_summary=dict(data_summary or {}),
        extra=dict(extra or {}),
    )
