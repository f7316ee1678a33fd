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

__all__ = ["Manifest", "git_state", "snakemake_run_info", "build_manifest"]

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


def snakemake_run_info(workdir: str | Path = ".") -> dict:
    """Start time, cores, command and workflow id of the Snakemake run in ``workdir``.

    Read from the newest ``.snakemake/log/*.snakemake.log`` (Snakemake writes one
    per invocation when it starts; the run that executes the manifest rule is
    the newest). Missing fields are None.

    Returns
    -------
    dict
        ``started_at`` (ISO 8601, local time as logged), ``cores`` (int),
        ``command``, ``workflow_id``, ``snakemake_version``, ``log`` (path).
    """
    import re

    info = {
        "started_at": None,
        "cores": None,
        "command": None,
        "workflow_id": None,
        "snakemake_version": None,
        "log": None,
    }
    logs = sorted(Path(workdir, ".snakemake", "log").glob("*.snakemake.log"))
    if not logs:
        return info
    log = logs[-1]
    info["log"] = str(log)
    text = log.read_text(encoding="utf-8", errors="replace")[:20000]
    patterns = {
        "started_at": r"^\s*Date:\s*(.+)$",
        "command": r"^\s*Command:\s*(.+)$",
        "workflow_id": r"^\s*Workflow ID:\s*(.+)$",
        "snakemake_version": r"^\s*Snakemake version:\s*(.+)$",
        "cores": r"^Provided cores:\s*(\d+)",
    }
    for key, pattern in patterns.items():
        match = re.search(pattern, text, flags=re.M)
        if match:
            info[key] = match.group(1).strip()
    if info["started_at"]:
        info["started_at"] = info["started_at"].replace(" ", "T")
    else:  # older log layout: the file name is the start time
        info["started_at"] = log.name.split(".snakemake.log")[0].split(".")[0]
    if info["cores"] is not None:
        info["cores"] = int(info["cores"])
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
    extra : dict
        Further top-level keys (the rule adds ``run``: :func:`snakemake_run_info`).
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
    extra: Mapping[str, Any] | None = None,
) -> Manifest:
    """Assemble the provenance record of ``manifest.json`` (:meth:`Manifest.to_dict` is the document).

    ``datasets`` from the canonical tables' sidecars (source, raw SHA-256s, canonical SHA-256, rows,
    retrieval time), ``seeds`` from the global seed and each dataset's ``split.json``, ``git`` and
    ``xaipipe`` from the checkout at ``repo``, plus ``extra``.
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
        extra=dict(extra or {}),
    )
