"""Provenance manifest: what produced ``results/<version>/``."""

from __future__ import annotations

import hashlib
import json
import platform
import subprocess
from pathlib import Path
from typing import Any, Iterable, Mapping

__all__ = ["PACKAGES", "git_state", "config_sha256", "package_versions", "build_manifest"]

PACKAGES = (
    "xaipipe", "numpy", "pandas", "scipy", "scikit-learn", "xgboost", "shap", "statsmodels",
    "matplotlib", "joblib", "ucimlrepo", "xlrd", "snakemake", "pyyaml", "jsonschema",
)


def git_state(path: str | Path) -> dict:
    """``{"commit": sha or None, "dirty": bool or None}`` of the git work tree at ``path``.

    ``dirty`` is True when tracked files differ from the commit or untracked,
    non-ignored files exist (``git status --porcelain``). Both are None outside
    a git repository.
    """
    def _git(*args):
        return subprocess.run(["git", "-C", str(path), *args], capture_output=True, text=True, timeout=30)

    try:
        head = _git("rev-parse", "HEAD")
        if head.returncode != 0:
            return {"commit": None, "dirty": None}
        status = _git("status", "--porcelain")
        return {"commit": head.stdout.strip(), "dirty": bool(status.stdout.strip())}
    except (OSError, subprocess.SubprocessError):
        return {"commit": None, "dirty": None}


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


def build_manifest(
    config: Mapping[str, Any],
    *,
    repo: str | Path,
    sidecars: Iterable[Mapping[str, Any]],
    splits: Mapping[str, Mapping[str, Any]],
    extra: Mapping[str, Any] | None = None,
) -> dict:
    """Assemble ``manifest.json``.

    Keys: ``version``, ``git`` (commit, dirty), ``config``, ``config_sha256``,
    ``packages``, ``platform``, ``datasets`` (source, raw SHA-256s, canonical
    SHA-256, rows, retrieval time), ``seeds`` (global seed and each split's),
    plus ``extra``.
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
    manifest = {
        "version": config.get("version"),
        "git": git_state(repo),
        "config": dict(config),
        "config_sha256": config_sha256(config),
        "packages": package_versions(),
        "platform": {"system": platform.system(), "machine": platform.machine(), "python": platform.python_version()},
        "datasets": datasets,
        "seeds": {
            "seed": config.get("seed"),
            "splits": {name: {"seed": sp["seed"], "test_size": sp["test_size"], "n_folds": sp["n_folds"],
                              "stratified": sp["stratified"]} for name, sp in splits.items()},
        },
    }
    manifest.update(dict(extra or {}))
    return manifest
